//! GitHub-flavoured Markdown: `##` headings, pipe tables, bullet lists.

use crate::{printable, Document, Part, Table};

fn escape(cell: &str) -> String {
    printable(&cell.replace('\n', " ")).replace('|', "\\|")
}

pub fn render(document: &Document) -> String {
    let mut out = String::new();
    for line in &document.preamble {
        out.push_str(&escape(line));
        // Two trailing spaces: a line break, not a new paragraph.
        out.push_str("  \n");
    }
    for part in &document.parts {
        if !out.is_empty() {
            out.push('\n');
        }
        match part {
            Part::Table(table) => {
                if !table.title.is_empty() {
                    out.push_str(&format!("## {}\n\n", escape(&table.title)));
                }
                out.push_str(&grid(table));
            }
            Part::Text(text) => {
                let lines: Vec<String> = text.lines.iter().map(|l| escape(l)).collect();
                let mark = if text.strong { "**" } else { "" };
                out.push_str(&format!("{mark}{}{mark}\n", lines.join("  \n")));
            }
            Part::List(list) => {
                out.push_str(&format!("## {}\n\n", escape(&list.title)));
                if list.preformatted {
                    out.push_str("```\n");
                    for item in &list.items {
                        // A fence inside would end the block early.
                        out.push_str(&printable(item).replace("```", "` ` `"));
                        out.push('\n');
                    }
                    out.push_str("```\n");
                } else {
                    for item in &list.items {
                        out.push_str(&format!("- {}\n", escape(item)));
                    }
                }
            }
        }
    }
    out
}

/// One pipe table, without its heading.
pub fn grid(table: &Table) -> String {
    if table.rows.is_empty() {
        if let Some(text) = &table.when_empty {
            return format!("{}\n", escape(text));
        }
    }
    let mut out = String::new();
    let row = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    out.push_str(&row(table.columns.iter().map(|h| escape(h)).collect()));
    out.push_str(&row(table
        .columns
        .iter()
        .map(|_| "---".to_string())
        .collect()));
    for r in &table.rows {
        out.push_str(&row(r.iter().map(|c| escape(&c.text)).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::{Document, Table};

    #[test]
    fn pipes_are_escaped() {
        let t = Table::of_text("", &["a"], vec![vec!["x|y".into()]]);
        assert_eq!(super::grid(&t), "| a |\n| --- |\n| x\\|y |\n");
    }

    #[test]
    fn prose_keeps_its_lines_and_a_verdict_is_bold() {
        let mut d = Document::default();
        d.push_text(vec!["ran a".into(), "on b".into()], false);
        d.push_table(Table::of_text("", &["a"], vec![vec!["1".into()]]));
        d.push_text(vec!["PASS".into()], true);
        assert_eq!(
            super::render(&d),
            "ran a  \non b\n\n| a |\n| --- |\n| 1 |\n\n**PASS**\n"
        );
        assert_eq!(
            crate::text::render(&d, false),
            "ran a\non b\n\na\n-\n1\n\nPASS\n"
        );
    }

    #[test]
    fn titles_are_headings_and_lists_bullets() {
        let mut d = Document::default();
        d.push_table(Table::of_text("T", &["a"], vec![vec!["1".into()]]));
        d.push_list("Notes", vec!["n".into()]);
        assert_eq!(
            super::render(&d),
            "## T\n\n| a |\n| --- |\n| 1 |\n\n## Notes\n\n- n\n"
        );
    }
}
