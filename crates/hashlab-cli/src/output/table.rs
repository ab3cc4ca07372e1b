//! Aligned plain-text columns for a terminal.

pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    render_emphasized(headers, rows, &|_, _| false)
}

/// Like `render`, with the cells `emphasize(row, column)` picks in bold green
/// (the caller decides whether the terminal wants colour).
pub fn render_emphasized(
    headers: &[&str],
    rows: &[Vec<String>],
    emphasize: &dyn Fn(usize, usize) -> bool,
) -> String {
    // Cells may hold names and text from files: shown, never obeyed.
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| super::printable(cell).into_owned())
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |row: Option<usize>, cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (i, cell) in cells.enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            // Numbers line up on the right, words on the left.
            let numeric = i > 0 && is_number(cell);
            if numeric {
                text.extend(std::iter::repeat_n(' ', pad));
            }
            if row.is_some_and(|r| emphasize(r, i)) {
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
    line(None, &mut headers.iter().copied());
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(None, &mut rule.iter().map(String::as_str));
    for (r, row) in rows.iter().enumerate() {
        line(Some(r), &mut row.iter().map(String::as_str));
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
    #[test]
    fn columns_line_up() {
        let out = super::render(&["a", "bb"], &[vec!["long".into(), "x".into()]]);
        assert_eq!(out, "a     bb\n----  --\nlong  x\n");
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        let out = super::render(&["a"], &[vec!["\x1b]0;pwned\x07\u{202e}x".into()]]);
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
    fn numbers_align_right_and_emphasis_keeps_alignment() {
        let rows = vec![vec!["x".into(), "5".into()], vec!["y".into(), "100".into()]];
        let out = super::render_emphasized(&["n", "value"], &rows, &|r, c| r == 1 && c == 1);
        assert_eq!(
            out,
            "n  value\n-  -----\nx      5\ny    \x1b[1;32m100\x1b[0m\n"
        );
    }
}
