//! Titled tables for the judgement commands (info, ecosystem, pick), as parts
//! of one `hashlab_table::Document`; CSV gets every section flattened into
//! one table (`FlatRow`), since CSV readers expect a single header row.

use hashlab_table::{Document, Table};
use serde::Serialize;

use crate::output::{table_of, Tabular};

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

/// A page of sections whose CSV form is `flat`.
pub fn page(flat: &[FlatRow]) -> Document {
    Document {
        flat: Some(table_of("", flat)),
        ..Document::default()
    }
}

/// Adds a titled table; an empty one says `(none)`.
pub fn section(doc: &mut Document, title: &str, headers: &[&str], rows: Vec<Vec<String>>) {
    doc.push_table(Table::of_text(title, headers, rows).when_empty("(none)"));
}

/// Adds a titled list; an empty one is left out.
pub fn lines(doc: &mut Document, title: &str, lines: &[String]) {
    doc.push_list(title, lines.to_vec());
}
