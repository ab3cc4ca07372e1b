//! The comparison across inputs as a section of the page: the same numbers,
//! ratios, noise marks and ranking flips `hashlab compare` prints, in the same
//! words (`hashlab_bench::comparison::describe`), as tables.

use hashlab_bench::comparison::describe::{
    features_line, flips_table, input_line, legend, throughput_table, unmatched_lines,
};
use hashlab_bench::comparison::Comparison;

use crate::html::Section;

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
        tables.push(flips_table(c));
    }
    let unmatched = unmatched_lines(c);
    if !unmatched.is_empty() {
        paragraphs.push(format!(
            "Measured on some inputs only: {}.",
            unmatched.join("; ")
        ));
    }
    tables.push(throughput_table(c));
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
        assert_eq!(throughput.columns.len(), 4 + 2 * 2 + 1);
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
        assert!(flips.title.starts_with("Ranking flips"));
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
