//! Output: every command hands a `hashlab_table::Document` (or rows that
//! become one) to the exporters of `hashlab-table`; JSON gets each command's
//! full serde structure instead, with exact numbers.

mod json;

use hashlab_table::{csv, markdown, text, Document, Table};
use serde::Serialize;

use crate::cli::Format;
use crate::failure::Failure;

pub use hashlab_table::printable;

/// A row type that every format can print.
pub trait Tabular: Serialize {
    fn headers() -> &'static [&'static str];
    fn cells(&self) -> Vec<String>;
}

/// The table of `rows`, under `title` (may be empty).
pub fn table_of<T: Tabular>(title: &str, rows: &[T]) -> Table {
    Table::of_text(
        title,
        T::headers(),
        rows.iter().map(Tabular::cells).collect(),
    )
}

/// A document in a human or spreadsheet format; `colour` marks each column's
/// best cell on a terminal. JSON callers serialize their own structure.
pub fn render_document(
    document: &Document,
    format: Format,
    colour: bool,
) -> Result<Vec<u8>, Failure> {
    match format {
        Format::Table => Ok(text::render(document, colour).into_bytes()),
        Format::Md => Ok(markdown::render(document).into_bytes()),
        Format::Csv => {
            csv::render(document).map_err(|e| Failure::Runtime(format!("writing CSV: {e}")))
        }
        Format::Json => Err(Failure::Runtime(
            "internal: a document has no JSON form".into(),
        )),
    }
}

pub fn render<T: Tabular>(rows: &[T], format: Format) -> Result<Vec<u8>, Failure> {
    match format {
        Format::Json => json::render(rows),
        _ => render_document(&Document::table(table_of("", rows)), format, false),
    }
}

/// One JSON document, for commands whose output is not a single list of rows.
pub fn render_json<T: Serialize>(document: &T) -> Result<Vec<u8>, Failure> {
    json::render(document)
}

/// The format asked for, else the `-o` file's extension, else a table.
pub fn format_for(asked: Option<Format>, output: Option<&std::path::Path>) -> Format {
    if let Some(f) = asked {
        return f;
    }
    match output
        .and_then(std::path::Path::extension)
        .and_then(|e| e.to_str())
    {
        Some("json") => Format::Json,
        Some("csv") => Format::Csv,
        Some("md") => Format::Md,
        _ => Format::Table,
    }
}
