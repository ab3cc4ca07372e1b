//! Tables for the HTML report: the cell's exact value in `data-value` and the
//! key of the chart mark that shows it in `data-key`, so nothing is lost to
//! rounding and a script (or the browser check) can match table and chart.

use maud::{html, Markup};

use crate::{format, Table};

pub fn table(table: &Table) -> Markup {
    let numeric: Vec<bool> = (0..table.columns.len())
        .map(|col| {
            table
                .rows
                .iter()
                .any(|r| r.get(col).is_some_and(|c| c.value.is_some()))
        })
        .collect();
    html! {
        div.table-wrap {
            table {
                caption { (table.title) }
                thead { tr {
                    @for (h, num) in table.columns.iter().zip(&numeric) {
                        th scope="col" class=[num.then_some("num")] { (h) }
                    }
                } }
                tbody {
                    @if table.rows.is_empty() {
                        @if let Some(text) = &table.when_empty {
                            tr { td colspan=(table.columns.len()) { (text) } }
                        }
                    }
                    @for row in &table.rows {
                        tr {
                            @for (c, num) in row.iter().zip(numeric.iter().chain(std::iter::repeat(&false))) {
                                td class=[num.then_some("num")] data-value=[c.value.map(format::exact)] data-key=[c.key.as_deref()] { (c.text) }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Cell, Table};

    #[test]
    fn numbers_carry_their_exact_value_and_text_is_escaped() {
        let mut t = Table::new("Speeds <1>", &["name", "MB/s"]);
        t.rows = vec![vec![
            Cell::text("<b>"),
            Cell::speed(1234.5678).keyed("k".into()),
        ]];
        let out = super::table(&t).into_string();
        assert!(out.contains("<caption>Speeds &lt;1&gt;</caption>"), "{out}");
        assert!(out.contains("<td>&lt;b&gt;</td>"), "{out}");
        assert!(
            out.contains(r#"<td class="num" data-value="1234.5678" data-key="k">1235</td>"#),
            "{out}"
        );
    }
}
