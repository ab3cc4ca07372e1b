//! GitHub-flavoured Markdown tables.

fn escape(cell: &str) -> String {
    super::printable(&cell.replace('\n', " ")).replace('|', "\\|")
}

pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let row = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    out.push_str(&row(headers.iter().map(|h| escape(h)).collect()));
    out.push_str(&row(headers.iter().map(|_| "---".to_string()).collect()));
    for r in rows {
        out.push_str(&row(r.iter().map(|c| escape(c)).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn pipes_are_escaped() {
        let out = super::render(&["a"], &[vec!["x|y".into()]]);
        assert_eq!(out, "| a |\n| --- |\n| x\\|y |\n");
    }
}
