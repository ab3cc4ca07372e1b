//! The page of one `quality` run: what was tested and how, one row per test
//! and case, and the verdict.

use hashlab_quality::{Report, TestResult};
use hashlab_table::{Document, Table};

const COLUMNS: &[&str] = &[
    "test",
    "case",
    "worst statistic",
    "threshold",
    "corrected p",
    "failing",
    "result",
];

/// The run as a document: what was tested above the table, the verdict
/// below it (CSV gets the table alone).
pub fn document(report: &Report) -> Document {
    let mut doc = Document::default();
    doc.push_text(heading(report), false);
    doc.push_table(Table::of_text(
        "",
        COLUMNS,
        report.tests.iter().map(cells).collect(),
    ));
    doc.push_text(vec![verdict(report)], true);
    doc
}

fn cells(r: &TestResult) -> Vec<String> {
    vec![
        r.test.as_str().to_string(),
        r.case.clone(),
        r.statistic.clone(),
        r.threshold.clone(),
        p_cell(r.corrected_p),
        format!("{}/{}", r.failing_statistics, r.statistics),
        if r.passed { "PASS" } else { "FAIL" }.to_string(),
    ]
}

/// A p-value read at a glance: three decimals, else two significant digits.
fn p_cell(p: f64) -> String {
    if p == 0.0 {
        "< 1e-300".into()
    } else if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

/// What was tested and how: the hash, its backend, the bits each test
/// reads, the key and seed tests or why they did not run; the plan.
fn heading(report: &Report) -> Vec<String> {
    let keys = match (&report.key_bytes, &report.key_tests_skipped) {
        (Some(bytes), _) => format!("key tests with {bytes}-byte keys"),
        (None, Some(why)) => format!("no key tests: {why}"),
        (None, None) => "no key tests".into(),
    };
    let seeds = match (&report.seed_bits, &report.seed_tests_skipped) {
        (Some(bits), _) => format!("seed tests with {bits}-bit seeds"),
        (None, Some(why)) => format!("no seed tests: {why}"),
        (None, None) => "no seed tests".into(),
    };
    vec![
        format!(
            "{} on backend {} ({}); {} output bits: avalanche on {}, other tests on the first {}; {keys}; {seeds}",
            report.algorithm,
            report.backend,
            report.backend_reason,
            report.output_bits,
            report.avalanche_bits,
            report.keyset_bits,
        ),
        format!(
            "{} plan, seed {}; alpha {} for the whole run, Bonferroni-corrected over {} tests and their statistics",
            report.plan,
            report.seed,
            report.alpha,
            report.tests.len(),
        ),
    ]
}

fn verdict(report: &Report) -> String {
    format!(
        "{}: {} ({} of {} tests passed, {:.1} s)",
        report.algorithm,
        if report.all_passed() { "PASS" } else { "FAIL" },
        report.passed,
        report.tests.len(),
        report.seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_read_at_a_glance() {
        assert_eq!(p_cell(1.0), "1.000");
        assert_eq!(p_cell(0.0123), "0.012");
        assert_eq!(p_cell(2.5e-7), "2.5e-7");
        assert_eq!(p_cell(0.0), "< 1e-300");
    }
}
