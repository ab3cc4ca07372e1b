//! Output: every command hands a `hashlab_table::Document` (or rows that
//! become one) to the exporters of `hashlab-table`; JSON gets each command's
//! full serde structure instead, with exact numbers.

mod json;

use std::process::ExitCode;

use hashlab_table::{csv, markdown, text, Document, Table};
use serde::Serialize;

/// A row type of the CLI's own (`sum`'s and `audit`'s, whose rows are not
/// yet their libraries'); a library's rows implement `hashlab_table::Tabular`
/// and go through [`render_rows`].
pub trait Tabular: Serialize {
    fn headers() -> &'static [&'static str];
    fn cells(&self) -> Vec<String>;
}

use crate::cli::Format;
use crate::failure::Failure;

pub use hashlab_table::printable;

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
    let table = || Table::of_text("", T::headers(), rows.iter().map(T::cells).collect());
    match format {
        Format::Json => json::render(rows),
        _ => render_document(&Document::table(table()), format, false),
    }
}

/// A library's rows: their serde form as JSON, else their table.
pub fn render_rows<T>(rows: &[T], format: Format) -> Result<Vec<u8>, Failure>
where
    T: hashlab_table::Tabular + Serialize,
{
    match format {
        Format::Json => json::render(rows),
        _ => render_document(&Document::table(Table::of_rows("", rows)), format, false),
    }
}

/// A command's result on standard output: its serde form as JSON, else its
/// `document` in the human or spreadsheet `format`.
pub fn print<T: Serialize>(
    value: &T,
    format: Format,
    document: impl FnOnce(&T) -> Document,
) -> Result<ExitCode, Failure> {
    let out = match format {
        Format::Json => json::render(value)?,
        format => render_document(&document(value), format, false)?,
    };
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
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
