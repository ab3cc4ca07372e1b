//! The comparison across inputs as a section of the page: the same numbers,
//! ratios, noise marks and ranking flips `hashlab compare` prints, in the same
//! words (`hashlab_bench::comparison::describe`), as tables.

use hashlab_bench::comparison::describe::{
    backend_cell, backends_note, column_headers, compared_sizes, explanation, features_line,
    input_line, legend, mode_label, mode_title, order_text, ratio_text, size_ranges,
    unmatched_lines,
};
use hashlab_bench::comparison::Comparison;
use hashlab_bench::sizes::size_label;

use crate::html::{Cell, Section, Table};

fn throughput_rows(c: &Comparison) -> Vec<Vec<Cell>> {
    c.rows
        .iter()
        .map(|row| {
            let mut cells = vec![
                Cell::text(row.entry.algorithm.as_str()),
                Cell::text(backend_cell(row)),
                Cell::number(size_label(row.size), row.size as f64),
                Cell::text(mode_label(&row.mode)),
            ];
            for side in &row.sides {
                let side = side.as_ref();
                cells.push(
                    side.and_then(|s| s.mb_per_s)
                        .map_or_else(|| Cell::text("-"), Cell::speed),
                );
                cells.push(side.and_then(|s| s.rank).map_or_else(
                    || Cell::text("-"),
                    |r| Cell::number(r.to_string(), r as f64),
                ));
            }
            for ratio in row.versus_first.iter().skip(1) {
                cells.push(
                    ratio
                        .as_ref()
                        .map_or_else(|| Cell::text("-"), |r| Cell::number(ratio_text(r), r.ratio)),
                );
            }
            cells
        })
        .collect()
}

fn flip_rows(c: &Comparison) -> Vec<Vec<Cell>> {
    let sizes = compared_sizes(c);
    c.flips
        .iter()
        .map(|f| {
            vec![
                Cell::text(mode_title(&f.mode)),
                Cell::text(format!(
                    "{}{}",
                    f.first.name(),
                    backends_note(&f.first_backends)
                )),
                Cell::text(order_text(&f.order)),
                Cell::text(format!(
                    "{}{}",
                    f.second.name(),
                    backends_note(&f.second_backends)
                )),
                Cell::text(size_ranges(&f.sizes, &sizes)),
                Cell::text(
                    explanation(c, f)
                        .trim_start_matches("; ")
                        .trim_start_matches("usable CPU features differ: ")
                        .to_string(),
                ),
            ]
        })
        .collect()
}

/// "Side by side" for a page of two or more inputs.
pub fn comparison_section(c: &Comparison) -> Section {
    let mut paragraphs: Vec<String> = (0..c.inputs.len()).map(|i| input_line(c, i)).collect();
    paragraphs.push(features_line(c));
    paragraphs.push(legend(c));
    let mut tables = Vec::new();
    if c.flips.is_empty() {
        paragraphs.push(
            "No ranking flips: no two algorithms swap places significantly between the inputs."
                .into(),
        );
    } else {
        tables.push(Table {
            caption: "Ranking flips (each order significant on its input, by the same test)".into(),
            headers: [
                "threads",
                "algorithm",
                "order",
                "against",
                "at sizes",
                "why (usable CPU features that differ)",
            ]
            .map(String::from)
            .to_vec(),
            rows: flip_rows(c),
        });
    }
    let unmatched = unmatched_lines(c);
    if !unmatched.is_empty() {
        paragraphs.push(format!(
            "Measured on some inputs only: {}.",
            unmatched.join("; ")
        ));
    }
    tables.push(Table {
        caption: "Throughput side by side".into(),
        headers: column_headers(c),
        rows: throughput_rows(c),
    });
    Section {
        id: "comparison".into(),
        title: "Side by side".into(),
        paragraphs,
        tables,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashlab_bench::comparison::{compare, Options};

    fn fixture(name: &str) -> hashlab_bench::report::Report {
        let text = std::fs::read_to_string(format!(
            "{}/../../fixtures/results/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        crate::parse_results(text.as_bytes()).unwrap()
    }

    #[test]
    fn the_section_carries_the_comparisons_numbers_and_the_sha_ni_flip() {
        let plain = fixture("zen4-plain");
        let masked = fixture("zen4-mask-sha");
        let c = compare(
            &[("plain".into(), &plain), ("nosha".into(), &masked)],
            &Options {
                sizes: Some(vec![1 << 20]),
                ..Options::default()
            },
        );
        let section = comparison_section(&c);
        let throughput = section.tables.last().unwrap();
        assert_eq!(throughput.rows.len(), c.rows.len());
        assert_eq!(throughput.headers.len(), 4 + 2 * 2 + 1);
        // Every MB/s cell holds the comparison's exact value.
        for (row, cells) in c.rows.iter().zip(&throughput.rows) {
            assert_eq!(cells[0].text, row.entry.algorithm);
            for (i, side) in row.sides.iter().enumerate() {
                assert_eq!(
                    cells[4 + 2 * i].value,
                    side.as_ref().and_then(|s| s.mb_per_s)
                );
            }
            assert_eq!(
                cells[8].value,
                row.versus_first[1].as_ref().map(|r| r.ratio)
            );
        }
        // Without SHA-NI sha256 falls behind: that flip is in the table, with
        // the feature that explains it.
        let flips = &section.tables[0];
        assert!(flips.caption.starts_with("Ranking flips"));
        let sha256 = flips
            .rows
            .iter()
            .find(|r| r[1].text.starts_with("sha256") || r[3].text.starts_with("sha256"))
            .expect("a flip involving sha256");
        assert!(sha256[5].text.to_lowercase().contains("sha"), "{sha256:?}");
        assert!(section.paragraphs[0].starts_with("A = plain: "));
        assert!(section.paragraphs[2].contains("SHA-NI (masked on B)"));
    }
}
