//! Exporters: one module per format, all fed by the same serde rows.
//! JSON gets the full structure; table, CSV and Markdown get the flat cells.

mod csv;
mod json;
mod md;
pub mod table;

use serde::Serialize;

use crate::cli::Format;
use crate::failure::Failure;

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
