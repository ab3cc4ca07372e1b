//! Aligned plain-text columns for a terminal.

use crate::{printable, Cell, Document, Part, Table};

/// The whole document; `colour` prints each column's best cell in bold green
/// (the caller decides whether the terminal wants colour).
pub fn render(document: &Document, colour: bool) -> String {
    let mut out = String::new();
    for line in &document.preamble {
        out.push_str(&printable(line));
        out.push('\n');
    }
    for part in &document.parts {
        if !out.is_empty() {
            out.push('\n');
        }
        match part {
            Part::Table(table) => {
                if !table.title.is_empty() {
                    out.push_str(&printable(&table.title));
                    out.push('\n');
                }
                out.push_str(&grid(table, colour));
            }
            Part::Text(text) => {
                for line in &text.lines {
                    out.push_str(&printable(line));
                    out.push('\n');
                }
            }
            Part::List(list) => {
                out.push_str(&printable(&list.title));
                out.push('\n');
                for item in &list.items {
                    if !list.preformatted {
                        out.push_str("- ");
                    }
                    out.push_str(&printable(item));
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// One table's columns, without its title.
pub fn grid(table: &Table, colour: bool) -> String {
    if table.rows.is_empty() {
        if let Some(text) = &table.when_empty {
            return format!("{}\n", printable(text));
        }
    }
    // Cells may hold names and text from files: shown, never obeyed.
    let shown = |c: &Cell| printable(&c.text).into_owned();
    let headers: Vec<String> = table
        .columns
        .iter()
        .map(|h| printable(h).into_owned())
        .collect();
    let rows: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|r| r.iter().map(shown).collect())
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String], model: Option<&[Cell]>| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let source = model.and_then(|m| m.get(i));
            let pad = widths[i].saturating_sub(cell.chars().count());
            // Numbers line up on the right, words on the left.
            let numeric = i > 0 && (source.is_some_and(|c| c.value.is_some()) || is_number(cell));
            if numeric {
                text.extend(std::iter::repeat_n(' ', pad));
            }
            if colour && source.is_some_and(|c| c.best) {
                text.push_str("\x1b[1;32m");
                text.push_str(cell);
                text.push_str("\x1b[0m");
            } else {
                text.push_str(cell);
            }
            if !numeric {
                text.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&headers, None);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(&rule, None);
    for (row, model) in rows.iter().zip(&table.rows) {
        line(row, Some(model));
    }
    out
}

/// A number as the tables print them: digits with `.`, `,`, a sign, a `%` or a
/// trailing `x` (speed-ups); such cells are right-aligned.
fn is_number(cell: &str) -> bool {
    let body = cell.strip_prefix(['-', '+']).unwrap_or(cell);
    body.starts_with(|c: char| c.is_ascii_digit())
        && body
            .trim_end_matches(['x', '%', ' '])
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '+'))
}

#[cfg(test)]
mod tests {
    use crate::{Cell, Document, Table};

    fn table(columns: &[&str], rows: &[&[&str]]) -> Table {
        Table::of_text(
            "",
            columns,
            rows.iter()
                .map(|r| r.iter().map(|c| c.to_string()).collect())
                .collect(),
        )
    }

    #[test]
    fn columns_line_up() {
        let out = super::grid(&table(&["a", "bb"], &[&["long", "x"]]), false);
        assert_eq!(out, "a     bb\n----  --\nlong  x\n");
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        let out = super::grid(&table(&["a"], &[&["\x1b]0;pwned\x07\u{202e}x"]]), false);
        assert!(!out.contains('\x1b') && !out.contains('\x07') && !out.contains('\u{202e}'));
        assert!(out.contains("\\x1b]0;pwned\\x07\\u{202e}x"), "{out}");
    }

    #[test]
    fn only_numbers_are_right_aligned() {
        for n in ["5", "1785", "1.00x", "98 %", "-3.5", "1,234"] {
            assert!(super::is_number(n), "{n}");
        }
        for t in [
            "32 KiB",
            "2 cores, 2 threads",
            "256-bit BLAKE2",
            "x86_64",
            "-",
            "n/a",
        ] {
            assert!(!super::is_number(t), "{t}");
        }
    }

    #[test]
    fn numbers_align_right_and_the_best_cell_keeps_alignment() {
        let mut t = Table::new("", &["n", "value"]);
        t.rows = vec![
            vec![Cell::text("x"), Cell::speed(5.0)],
            vec![Cell::text("y"), Cell::speed(100.0)],
        ];
        t.mark_best(1..2, false);
        assert_eq!(
            super::grid(&t, true),
            "n  value\n-  -----\nx   5.00\ny    \x1b[1;32m100\x1b[0m\n"
        );
        assert!(!super::grid(&t, false).contains('\x1b'));
    }

    #[test]
    fn a_document_separates_its_parts_with_blank_lines() {
        let mut d = Document {
            preamble: vec!["run".into()],
            ..Document::default()
        };
        d.push_table(table(&["a"], &[&["1"]]));
        d.push_table(Table::new("Empty", &["a"]).when_empty("(none)"));
        d.push_list("Notes:", vec!["n".into()]);
        assert_eq!(
            super::render(&d, false),
            "run\n\na\n-\n1\n\nEmpty\n(none)\n\nNotes:\n- n\n"
        );
    }
}
