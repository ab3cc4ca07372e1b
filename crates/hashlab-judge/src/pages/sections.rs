//! The parts every judgement page is made of.

use hashlab_table::{Document, Table};

/// One row of the flattened CSV form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatRow {
    pub section: &'static str,
    pub name: String,
    pub value: String,
    pub detail: String,
}

pub(crate) fn flat(
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

/// The flat rows as the one table CSV gets.
pub fn flat_table(rows: &[FlatRow]) -> Table {
    Table::of_text(
        "",
        &["section", "name", "value", "detail"],
        rows.iter()
            .map(|r| {
                vec![
                    r.section.to_string(),
                    r.name.clone(),
                    r.value.clone(),
                    r.detail.clone(),
                ]
            })
            .collect(),
    )
}

/// A page of sections whose CSV form is `flat`.
pub(crate) fn page(flat: &[FlatRow]) -> Document {
    Document {
        flat: Some(flat_table(flat)),
        ..Document::default()
    }
}

/// Adds a titled table; an empty one says `(none)`.
pub(crate) fn section(doc: &mut Document, title: &str, headers: &[&str], rows: Vec<Vec<String>>) {
    doc.push_table(Table::of_text(title, headers, rows).when_empty("(none)"));
}

/// Adds a titled list; an empty one is left out.
pub(crate) fn lines(doc: &mut Document, title: &str, lines: &[String]) {
    doc.push_list(title, lines.to_vec());
}
