//! hashlab's one table model. Every command builds its output once as a
//! [`Document`] (preamble lines, titled tables and lists, and the one flat
//! table CSV gets); the exporters render it: [`text`] for a terminal,
//! [`markdown`], [`csv`] and [`html`] (the report's tables). JSON is not an
//! exporter of this model: `--format json` prints each command's full data,
//! with exact numbers, which a rendered table has already rounded.
//!
//! Adding an output format is one exporter module here.

pub mod csv;
pub mod format;
pub mod html;
pub mod markdown;
pub mod text;

use serde::Serialize;

/// A row type of a listing: its column headers and its cells as text. The
/// row's serde form is the JSON of the same listing.
pub trait Tabular {
    fn headers() -> &'static [&'static str];
    fn cells(&self) -> Vec<String>;
}

/// One command's output.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Document {
    /// Lines before the first part (what ran, where).
    pub preamble: Vec<String>,
    pub parts: Vec<Part>,
    /// The single table CSV gets, since CSV readers expect one header row:
    /// raw values, one line per measurement. `None`: the first table.
    pub flat: Option<Table>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Part {
    Table(Table),
    List(List),
    Text(Text),
}

/// Lines of prose between the tables (what was run, a verdict): one line
/// each on a terminal, Markdown line breaks between them, bold when
/// `strong`. CSV, which gets one table, leaves them out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Text {
    pub lines: Vec<String>,
    pub strong: bool,
}

/// A titled list of sentences (notes, warnings), or of lines laid out by
/// their author (indented groups), which exporters keep as they are.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct List {
    pub title: String,
    pub items: Vec<String>,
    pub preformatted: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Table {
    /// Printed above the table (the HTML caption); may be empty.
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    /// What to print instead of an empty table: `None` prints the header alone.
    pub when_empty: Option<String>,
}

/// A table cell: its text; for a number the exact value (right-aligned,
/// `data-value` in HTML); the key of the chart mark that shows it; and whether
/// it is the best of its column (bold on a colour terminal).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Cell {
    pub text: String,
    pub value: Option<f64>,
    pub key: Option<String>,
    pub best: bool,
}

impl Cell {
    pub fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            ..Cell::default()
        }
    }

    pub fn number(text: impl Into<String>, value: f64) -> Cell {
        Cell {
            text: text.into(),
            value: Some(value),
            ..Cell::default()
        }
    }

    /// A speed (or any measured quantity) with three significant digits.
    pub fn speed(value: f64) -> Cell {
        Cell::number(format::speed(value), value)
    }

    /// A share as a whole percentage.
    pub fn percent(share: f64) -> Cell {
        Cell::number(format::percent(share), share)
    }

    /// A count.
    pub fn count(n: usize) -> Cell {
        Cell::number(n.to_string(), n as f64)
    }

    /// A value that is absent: `-` (not measured) or `n/a` (does not apply).
    pub fn missing(text: &str) -> Cell {
        Cell::text(text)
    }

    pub fn keyed(mut self, key: String) -> Cell {
        self.key = Some(key);
        self
    }

    pub fn best(mut self, best: bool) -> Cell {
        self.best = best;
        self
    }
}

impl Table {
    pub fn new(title: impl Into<String>, columns: &[&str]) -> Table {
        Table {
            title: title.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            ..Table::default()
        }
    }

    /// A table of plain text cells, as most listings are.
    pub fn of_text(title: impl Into<String>, columns: &[&str], rows: Vec<Vec<String>>) -> Table {
        Table {
            rows: rows
                .into_iter()
                .map(|r| r.into_iter().map(Cell::text).collect())
                .collect(),
            ..Table::new(title, columns)
        }
    }

    /// The table of `rows`, one line each, under `title` (may be empty).
    pub fn of_rows<T: Tabular>(title: impl Into<String>, rows: &[T]) -> Table {
        Table::of_text(title, T::headers(), rows.iter().map(T::cells).collect())
    }

    pub fn when_empty(mut self, text: &str) -> Table {
        self.when_empty = Some(text.to_string());
        self
    }

    /// Marks, in each of `columns`, the cell with the highest value (or the
    /// lowest, when lower is better) as the best of its column.
    pub fn mark_best(&mut self, columns: std::ops::Range<usize>, lower_is_better: bool) {
        for col in columns {
            let mut best: Option<(usize, f64)> = None;
            for (r, row) in self.rows.iter().enumerate() {
                if let Some(v) = row.get(col).and_then(|c| c.value) {
                    let better =
                        best.is_none_or(|(_, b)| if lower_is_better { v < b } else { v > b });
                    if better {
                        best = Some((r, v));
                    }
                }
            }
            if let Some((r, _)) = best {
                self.rows[r][col].best = true;
            }
        }
    }
}

impl Document {
    pub fn table(table: Table) -> Document {
        Document {
            parts: vec![Part::Table(table)],
            ..Document::default()
        }
    }

    pub fn push_table(&mut self, table: Table) {
        self.parts.push(Part::Table(table));
    }

    /// Adds a list; an empty one is left out.
    pub fn push_list(&mut self, title: impl Into<String>, items: Vec<String>) {
        if !items.is_empty() {
            self.parts.push(Part::List(List {
                title: title.into(),
                items,
                preformatted: false,
            }));
        }
    }

    /// Adds lines whose layout matters (indentation); an empty set is left out.
    pub fn push_lines(&mut self, title: impl Into<String>, lines: Vec<String>) {
        if !lines.is_empty() {
            self.parts.push(Part::List(List {
                title: title.into(),
                items: lines,
                preformatted: true,
            }));
        }
    }

    /// Adds lines of prose; `strong` marks a verdict.
    pub fn push_text(&mut self, lines: Vec<String>, strong: bool) {
        self.parts.push(Part::Text(Text { lines, strong }));
    }

    /// The table CSV prints.
    pub fn flat_table(&self) -> Option<&Table> {
        self.flat.as_ref().or_else(|| {
            self.parts.iter().find_map(|p| match p {
                Part::Table(t) => Some(t),
                Part::List(_) | Part::Text(_) => None,
            })
        })
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_cell_of_each_column_is_marked() {
        let mut t = Table::new("", &["a", "x", "y"]);
        t.rows = vec![
            vec![Cell::text("p"), Cell::speed(5.0), Cell::speed(1.0)],
            vec![Cell::text("q"), Cell::speed(7.0), Cell::missing("-")],
        ];
        t.mark_best(1..3, false);
        assert!(!t.rows[0][1].best && t.rows[1][1].best && t.rows[0][2].best);
        t.rows.iter_mut().flatten().for_each(|c| c.best = false);
        t.mark_best(1..2, true);
        assert!(t.rows[0][1].best && !t.rows[1][1].best);
    }

    #[test]
    fn csv_gets_the_flat_table_or_the_first() {
        let mut d = Document::default();
        d.push_list("notes", vec!["n".into()]);
        d.push_table(Table::new("first", &["a"]));
        assert_eq!(d.flat_table().unwrap().title, "first");
        d.flat = Some(Table::new("flat", &["b"]));
        assert_eq!(d.flat_table().unwrap().title, "flat");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("a\x1b[2Jb\u{202e}"), "a\\x1b[2Jb\\u{202e}");
        assert!(matches!(printable("plain"), std::borrow::Cow::Borrowed(_)));
    }
}
