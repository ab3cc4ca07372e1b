//! Titled tables for the judgement commands (info, ecosystem, pick): table
//! and Markdown get one table per section; CSV gets every section flattened
//! into one table, since CSV readers expect a single header row.

use serde::Serialize;

use crate::cli::Format;
use crate::failure::Failure;
use crate::output::{render_grid, Tabular};

/// One row of the flattened CSV form.
#[derive(Serialize)]
pub struct FlatRow {
    pub section: &'static str,
    pub name: String,
    pub value: String,
    pub detail: String,
}

impl Tabular for FlatRow {
    fn headers() -> &'static [&'static str] {
        &["section", "name", "value", "detail"]
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.section.to_string(),
            self.name.clone(),
            self.value.clone(),
            self.detail.clone(),
        ]
    }
}

pub fn flat(
    section: &'static str,
    name: impl Into<String>,
    value: impl Into<String>,
    detail: impl Into<String>,
) -> FlatRow {
    FlatRow {
        section,
        name: name.into(),
        value: value.into(),
        detail: detail.into(),
    }
}

/// Appends a title and a table (Markdown: a heading and a pipe table).
pub fn section(
    out: &mut Vec<u8>,
    title: &str,
    headers: &[&str],
    rows: &[Vec<String>],
    format: Format,
) -> Result<(), Failure> {
    if !out.is_empty() {
        out.push(b'\n');
    }
    match format {
        Format::Md => out.extend(format!("## {title}\n\n").into_bytes()),
        _ => out.extend(format!("{title}\n").into_bytes()),
    }
    if rows.is_empty() {
        out.extend(b"(none)\n");
        return Ok(());
    }
    let headers: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    out.extend(render_grid(
        &headers,
        rows,
        if format == Format::Md {
            Format::Md
        } else {
            Format::Table
        },
    )?);
    Ok(())
}

/// Appends a title and plain lines (Markdown: a bullet list).
pub fn lines(out: &mut Vec<u8>, title: &str, lines: &[String], format: Format) {
    if lines.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push(b'\n');
    }
    match format {
        Format::Md => {
            out.extend(format!("## {title}\n\n").into_bytes());
            for l in lines {
                out.extend(format!("- {l}\n").into_bytes());
            }
        }
        _ => {
            out.extend(format!("{title}\n").into_bytes());
            for l in lines {
                out.extend(format!("  {l}\n").into_bytes());
            }
        }
    }
}
