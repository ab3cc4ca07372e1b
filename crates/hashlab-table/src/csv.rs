//! RFC 4180 CSV of one table, with a header row. A cell with an exact value
//! is written unrounded.

use crate::{format, Document, Table};

pub fn render_table(table: &Table) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&table.columns)?;
    for row in &table.rows {
        // A number rounded for the eye; the spreadsheet gets its value.
        writer.write_record(
            row.iter()
                .map(|c| c.value.map_or_else(|| c.text.clone(), format::exact)),
        )?;
    }
    writer.into_inner().map_err(|e| e.into_error().into())
}

/// The document's flat table (see [`Document::flat`]); a document with no
/// table gives a CSV with no rows.
pub fn render(document: &Document) -> Result<Vec<u8>, csv::Error> {
    match document.flat_table() {
        Some(table) => render_table(table),
        None => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use crate::{Cell, Table};

    #[test]
    fn numbers_are_exact_and_text_is_quoted() {
        let mut t = Table::new("", &["name", "MB/s"]);
        t.rows = vec![vec![Cell::text("a,b"), Cell::speed(1234.5678)]];
        let out = String::from_utf8(super::render_table(&t).unwrap()).unwrap();
        assert_eq!(out, "name,MB/s\n\"a,b\",1234.5678\n");
    }
}
