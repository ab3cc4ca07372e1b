//! Exporters: one module per format, all fed by the same serde rows.
//! JSON gets the full structure; table, CSV and Markdown get the flat cells.

mod csv;
mod json;
mod md;
pub mod table;

use serde::Serialize;

use crate::cli::Format;
use crate::failure::Failure;

/// `text` with every control character (ESC, CR, BEL, the C1 range...) and
/// every bidirectional override written as a visible escape (`\x1b`,
/// `\u{202e}`), so text from a file or a name cannot move the cursor, retitle
/// the terminal or reorder what is shown around it.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if hidden(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A row type that every format can print.
pub trait Tabular: Serialize {
    fn headers() -> &'static [&'static str];
    fn cells(&self) -> Vec<String>;
}

/// A grid whose columns are only known at run time (e.g. one per message size).
/// JSON callers serialize their own structure instead.
pub fn render_grid(
    headers: &[String],
    rows: &[Vec<String>],
    format: Format,
) -> Result<Vec<u8>, Failure> {
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    match format {
        Format::Table => Ok(table::render(&headers, rows).into_bytes()),
        Format::Md => Ok(md::render(&headers, rows).into_bytes()),
        Format::Csv => csv::render(&headers, rows),
        Format::Json => Err(Failure::Runtime("internal: a grid has no JSON form".into())),
    }
}

pub fn render<T: Tabular>(rows: &[T], format: Format) -> Result<Vec<u8>, Failure> {
    let cells = || rows.iter().map(Tabular::cells).collect::<Vec<_>>();
    match format {
        Format::Table => Ok(table::render(T::headers(), &cells()).into_bytes()),
        Format::Md => Ok(md::render(T::headers(), &cells()).into_bytes()),
        Format::Csv => csv::render(T::headers(), &cells()),
        Format::Json => json::render(rows),
    }
}

/// One JSON document, for commands whose output is not a single list of rows.
pub fn render_json<T: Serialize>(document: &T) -> Result<Vec<u8>, Failure> {
    json::render(document)
}
