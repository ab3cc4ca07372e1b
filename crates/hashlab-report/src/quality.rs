//! The report's quality panel: for each measured hash, its speed on the
//! smallest and largest message of the first input beside the statistical
//! families it fails (hashlab's stored full run, and SMHasher3's published
//! count), since a hash table wants both. The verdicts are data of
//! `hashlab-quality`; nothing is run here.

use crate::data::{mbps, single_thread, Input};
use crate::html::{Cell, Section, Table};
use hashlab_bench::sizes::size_label;
use hashlab_quality::{smhasher3_verdict, stored_verdict};

/// The fastest single-thread MB/s of `algorithm` at `size` over its backends.
fn best_mbps(input: &Input, algorithm: &str, size: usize) -> Option<f64> {
    single_thread(&input.report)
        .filter(|c| c.algorithm == algorithm && c.size == size)
        .map(mbps)
        .filter(|v| v.is_finite())
        .reduce(f64::max)
}

fn speed_cell(value: Option<f64>) -> Cell {
    match value {
        Some(v) => Cell::number(format!("{v:.0}"), v),
        None => Cell::text("—"),
    }
}

/// The quality panel over the first input's measured hashes.
pub fn quality_section(inputs: &[Input]) -> Section {
    let mut algorithms: Vec<String> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    if let Some(input) = inputs.first() {
        for c in single_thread(&input.report) {
            if c.algorithm != hashlab_bench::plan::NULL_ALGORITHM
                && !algorithms.contains(&c.algorithm)
            {
                algorithms.push(c.algorithm.clone());
            }
            sizes.push(c.size);
        }
    }
    let (small, large) = (sizes.iter().min().copied(), sizes.iter().max().copied());
    let small_label = small.map_or("—".to_string(), size_label);
    let large_label = large.map_or("—".to_string(), size_label);
    let columns = [
        "algorithm",
        &format!("MB/s at {small_label}") as &str,
        &format!("MB/s at {large_label}"),
        "hashlab: failed / tests",
        "families failed",
        "worst statistic",
        "SMHasher3: failed / tests",
    ];
    let mut table = Table::new("Quality beside speed", &columns);
    let mut stored = 0;
    for algorithm in &algorithms {
        let input = &inputs[0];
        let mut row = vec![
            Cell::text(algorithm.clone()),
            speed_cell(small.and_then(|s| best_mbps(input, algorithm, s))),
            speed_cell(large.and_then(|s| best_mbps(input, algorithm, s))),
        ];
        match stored_verdict(algorithm) {
            Some(v) => {
                stored += 1;
                let failing: Vec<_> = v.families.iter().filter(|f| f.failed > 0).collect();
                let worst = failing
                    .iter()
                    .min_by(|a, b| a.worst_corrected_p.total_cmp(&b.worst_corrected_p));
                row.push(Cell::number(
                    format!("{} / {}", v.failed, v.tests_in_run),
                    v.failed as f64,
                ));
                let passing: Vec<&str> = v
                    .families
                    .iter()
                    .filter(|f| f.failed == 0)
                    .map(|f| f.test.as_str())
                    .collect();
                let failing_names: Vec<&str> = failing.iter().map(|f| f.test.as_str()).collect();
                row.push(Cell::text(families_cell(&failing_names, &passing)));
                // The test and its statistic; the case's long description
                // (key set, lengths) is in `hashlab info` and docs/quality.md.
                row.push(Cell::text(worst.map_or(String::new(), |f| {
                    format!("{}: {}", f.test, f.worst_statistic)
                })));
            }
            None => {
                row.push(Cell::text("no stored run"));
                row.push(Cell::text(""));
                row.push(Cell::text(""));
            }
        }
        row.push(match smhasher3_verdict(algorithm) {
            Some(v) => Cell::number(
                format!("{} / {}", v.total - v.passed, v.total),
                f64::from(v.total - v.passed),
            ),
            None => Cell::text("not published"),
        });
        table.rows.push(row);
    }
    Section {
        id: "quality".to_string(),
        title: "Quality beside speed".to_string(),
        paragraphs: vec![
            format!(
                "Speed: the fastest backend, one thread, in {}. Quality: hashlab's stored full run of \
                 `hashlab quality` (default plan, seed 1; {stored} of {} measured hashes have one), its \
                 failing test families and the worst statistic among them, and SMHasher3's published \
                 count of failed tests (docs/quality.md compares the two family by family).",
                inputs.first().map_or("no input", |i| i.label.as_str()),
                algorithms.len()
            ),
        ],
        tables: vec![table],
    }
}

/// The failed families in a cell a row of a few lines holds: all of them
/// when few fail, the passing ones when most fail, else a count and the
/// first three.
fn families_cell(failing: &[&str], passing: &[&str]) -> String {
    const LISTED: usize = 3;
    let total = failing.len() + passing.len();
    match (failing.len(), passing.len()) {
        (0, _) => "none".to_string(),
        (f, _) if f <= LISTED + 1 => failing.join(", "),
        (_, 0) => format!("all {total}"),
        (_, p) if p <= LISTED => format!("all {total} but {}", passing.join(", ")),
        (f, _) => format!(
            "{f} of {total}: {} and {} more",
            failing[..LISTED].join(", "),
            f - LISTED
        ),
    }
}

#[cfg(test)]
mod families_cell_tests {
    use super::families_cell;

    #[test]
    fn a_long_list_of_failed_families_is_said_in_a_few_words() {
        assert_eq!(families_cell(&[], &["a", "b"]), "none");
        assert_eq!(families_cell(&["a", "b"], &["c"]), "a, b");
        assert_eq!(families_cell(&["a", "b", "c", "d", "e"], &[]), "all 5");
        assert_eq!(
            families_cell(&["a", "b", "c", "d", "e"], &["f", "g"]),
            "all 7 but f, g"
        );
        assert_eq!(
            families_cell(&["a", "b", "c", "d", "e"], &["f", "g", "h", "i"]),
            "5 of 9: a, b, c and 2 more"
        );
    }
}
