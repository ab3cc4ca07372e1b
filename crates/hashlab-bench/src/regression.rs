//! Did a run get slower than an earlier one? Cells are matched exactly (same
//! algorithm, backend, size and mode) and judged by `stats::compare` on their raw
//! samples, the one significance test of the project, with a minimum effect so
//! that a real but tiny change does not fail a CI job.

use serde::{Deserialize, Serialize};

use crate::comparison::describe::mode_label;
use crate::plan::{Mode, NULL_ALGORITHM};
use crate::report::Report;
use crate::results::{find, CellResult};
use crate::sizes::size_label;
use crate::stats;

/// A cell must be at least this much slower (and significantly so) to count as
/// a regression: runs on one machine minutes apart differ by a few percent.
pub const DEFAULT_MIN_EFFECT: f64 = 0.05;

const BOOTSTRAP_SEED: u64 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Slower,
    Faster,
    /// Within the noise or the minimum effect.
    Unchanged,
}

/// One cell measured in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellChange {
    pub algorithm: String,
    pub backend: String,
    pub size: usize,
    pub mode: Mode,
    pub before_mb_per_s: Option<f64>,
    pub after_mb_per_s: Option<f64>,
    /// Throughput after / before: below 1 is slower.
    pub ratio: f64,
    /// 95 % interval of `ratio`.
    pub low: f64,
    pub high: f64,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegressionCheck {
    pub min_effect: f64,
    /// Cells measured in both runs.
    pub compared: usize,
    /// Slower beyond noise and `min_effect`, largest slowdown first.
    pub slower: Vec<CellChange>,
    /// Faster beyond noise and `min_effect`, largest speed-up first.
    pub faster: Vec<CellChange>,
    pub unchanged: usize,
    /// Cells in only one of the runs.
    pub only_before: usize,
    pub only_after: usize,
    /// Why the two runs may not be alike (other settings), for the reader.
    pub notes: Vec<String>,
}

impl RegressionCheck {
    pub fn regressed(&self) -> bool {
        !self.slower.is_empty()
    }
}

fn change(before: &CellResult, after: &CellResult, min_effect: f64) -> Option<CellChange> {
    // compare's ratio is time after / time before; throughput is its inverse.
    let c = stats::compare(&before.samples, &after.samples, min_effect, BOOTSTRAP_SEED)?;
    if c.ratio <= 0.0 || c.low <= 0.0 {
        return None;
    }
    let verdict = match (c.significant, c.ratio > 1.0) {
        (true, true) => Verdict::Slower,
        (true, false) => Verdict::Faster,
        (false, _) => Verdict::Unchanged,
    };
    let mbps = |c: &CellResult| c.throughput.as_ref().map(|t| t.mb_per_s);
    Some(CellChange {
        algorithm: after.algorithm.clone(),
        backend: after.backend.clone(),
        size: after.size,
        mode: after.mode,
        before_mb_per_s: mbps(before),
        after_mb_per_s: mbps(after),
        ratio: 1.0 / c.ratio,
        low: 1.0 / c.high,
        high: 1.0 / c.low,
        verdict,
    })
}

/// Compares `after` (the new run) with `before` cell by cell.
pub fn check(before: &Report, after: &Report, min_effect: f64) -> RegressionCheck {
    let measured = |c: &&CellResult| c.algorithm != NULL_ALGORITHM;
    let mut result = RegressionCheck {
        min_effect,
        compared: 0,
        slower: Vec::new(),
        faster: Vec::new(),
        unchanged: 0,
        only_before: 0,
        only_after: 0,
        notes: Vec::new(),
    };
    for new in after.cells.iter().filter(measured) {
        let Some(old) = find(
            &before.cells,
            &new.algorithm,
            &new.backend,
            new.size,
            new.mode,
        ) else {
            result.only_after += 1;
            continue;
        };
        let Some(change) = change(old, new, min_effect) else {
            continue;
        };
        result.compared += 1;
        match change.verdict {
            Verdict::Slower => result.slower.push(change),
            Verdict::Faster => result.faster.push(change),
            Verdict::Unchanged => result.unchanged += 1,
        }
    }
    result.only_before = before
        .cells
        .iter()
        .filter(measured)
        .filter(|c| find(&after.cells, &c.algorithm, &c.backend, c.size, c.mode).is_none())
        .count();
    result.slower.sort_by(|a, b| a.ratio.total_cmp(&b.ratio));
    result.faster.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));

    let (b, a) = (&before.settings, &after.settings);
    if b.misalign != a.misalign {
        result.notes.push(format!(
            "the runs used different --misalign ({} then {})",
            b.misalign, a.misalign
        ));
    }
    if before.environment.cpu_mask != after.environment.cpu_mask {
        result.notes.push(format!(
            "the runs masked different CPU features ([{}] then [{}])",
            before.environment.cpu_mask.join(","),
            after.environment.cpu_mask.join(",")
        ));
    }
    if before.version != after.version {
        result
            .notes
            .push(format!("hashlab {} then {}", before.version, after.version));
    }
    if before.run.partial {
        result
            .notes
            .push("the earlier run was interrupted (partial)".into());
    }
    result
}

fn change_rows(changes: &[CellChange]) -> Vec<Vec<String>> {
    let mbps = |x: Option<f64>| x.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".into());
    changes
        .iter()
        .map(|c| {
            vec![
                c.algorithm.clone(),
                c.backend.clone(),
                size_label(c.size),
                mode_label(&c.mode),
                mbps(c.before_mb_per_s),
                mbps(c.after_mb_per_s),
                format!("{:.3}", c.ratio),
                format!("{:.3}..{:.3}", c.low, c.high),
            ]
        })
        .collect()
}

/// The check as the lines a person reads: what was compared, then the
/// slower and faster cells as tables, then the notes. `against` names the
/// earlier run ("run 3 (2026-01-02, hashlab 0.1.0)").
pub fn describe(check: &RegressionCheck, against: &str) -> String {
    let mut out = format!(
        "Regression check against {against}: {} cells compared, {} slower, {} faster, {} within the noise or under {:.0} % in time per message",
        check.compared,
        check.slower.len(),
        check.faster.len(),
        check.unchanged,
        check.min_effect * 100.0
    );
    if check.only_before + check.only_after > 0 {
        out.push_str(&format!(
            "; {} cells only in the earlier run, {} only in this one",
            check.only_before, check.only_after
        ));
    }
    out.push('\n');
    let headers = [
        "algorithm",
        "backend",
        "size",
        "threads",
        "before MB/s",
        "now MB/s",
        "now/before",
        "95 % interval",
    ];
    for (title, changes) in [
        ("SLOWER (regressions)", &check.slower),
        ("faster", &check.faster),
    ] {
        if !changes.is_empty() {
            out.push_str(&format!("{title}:\n"));
            out.push_str(&hashlab_table::text::grid(
                &hashlab_table::Table::of_text("", &headers, change_rows(changes)),
                false,
            ));
        }
    }
    for note in &check.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Throughput;
    use crate::stats::{summarize, SplitMix64};

    /// `n` samples around `seconds` with `jitter` relative noise (uniform).
    fn samples(seconds: f64, jitter: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut rng = SplitMix64(seed);
        (0..n)
            .map(|_| {
                let u = (rng.next_u64() % 10_000) as f64 / 10_000.0;
                seconds * (1.0 + jitter * (2.0 * u - 1.0))
            })
            .collect()
    }

    fn cell(alg: &str, size: usize, samples: Vec<f64>) -> CellResult {
        let summary = summarize(&samples).unwrap();
        CellResult {
            algorithm: alg.into(),
            backend: "b".into(),
            size,
            mode: Mode::Streams { threads: 1 },
            batch: 1,
            throughput: Some(Throughput::from_seconds(summary.median, size, None)),
            samples,
            summary: Some(summary),
            mb_per_s_iqr: None,
        }
    }

    fn report(cells: Vec<CellResult>) -> Report {
        let path = format!(
            "{}/../../fixtures/results/zen4-plain.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut r: Report = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        r.cells = cells;
        r
    }

    #[test]
    fn a_clear_slowdown_is_flagged() {
        let before = report(vec![cell("sha256", 1024, samples(1e-6, 0.03, 40, 1))]);
        let after = report(vec![cell("sha256", 1024, samples(1.25e-6, 0.03, 40, 2))]);
        let check = check(&before, &after, DEFAULT_MIN_EFFECT);
        assert!(check.regressed());
        assert_eq!(check.compared, 1);
        let slow = &check.slower[0];
        assert_eq!(slow.verdict, Verdict::Slower);
        assert!((slow.ratio - 0.8).abs() < 0.03, "{slow:?}");
        assert!(slow.high < 1.0 - DEFAULT_MIN_EFFECT);
    }

    #[test]
    fn noise_level_jitter_is_not_a_regression() {
        // Several seeds, 5 % jitter, 2 % shift: never flagged.
        for seed in 0..20 {
            let before = report(vec![cell("x", 64, samples(1e-7, 0.05, 25, seed))]);
            let after = report(vec![cell("x", 64, samples(1.02e-7, 0.05, 25, seed + 100))]);
            let check = check(&before, &after, DEFAULT_MIN_EFFECT);
            assert!(!check.regressed(), "seed {seed}: {:?}", check.slower);
            assert_eq!(check.unchanged, 1);
        }
    }

    #[test]
    fn a_slowdown_hidden_in_wide_noise_is_not_claimed() {
        // 10 % slower, but samples spread ±40 % and few: not provably beyond 5 %.
        let before = report(vec![cell("x", 64, samples(1e-7, 0.4, 8, 3))]);
        let after = report(vec![cell("x", 64, samples(1.1e-7, 0.4, 8, 4))]);
        assert!(!check(&before, &after, DEFAULT_MIN_EFFECT).regressed());
    }

    #[test]
    fn a_speed_up_is_not_a_regression() {
        let before = report(vec![cell("x", 64, samples(1e-7, 0.02, 30, 5))]);
        let after = report(vec![cell("x", 64, samples(0.7e-7, 0.02, 30, 6))]);
        let check = check(&before, &after, DEFAULT_MIN_EFFECT);
        assert!(!check.regressed());
        assert_eq!(check.faster.len(), 1);
        assert!(check.faster[0].ratio > 1.35);
    }

    #[test]
    fn only_matching_cells_are_compared() {
        let before = report(vec![
            cell("x", 64, samples(1e-7, 0.02, 30, 7)),
            cell("gone", 64, samples(1e-7, 0.02, 30, 8)),
            cell(NULL_ALGORITHM, 64, samples(1e-9, 0.02, 30, 9)),
        ]);
        let mut other_backend = cell("x", 64, samples(3e-7, 0.02, 30, 10));
        other_backend.backend = "other".into();
        let after = report(vec![
            cell("x", 64, samples(1e-7, 0.02, 30, 11)),
            other_backend,
            cell(NULL_ALGORITHM, 64, samples(5e-9, 0.02, 30, 12)),
        ]);
        let check = check(&before, &after, DEFAULT_MIN_EFFECT);
        assert_eq!(check.compared, 1);
        assert_eq!((check.only_before, check.only_after), (1, 1));
        assert!(
            !check.regressed(),
            "another backend or the harness is not a regression"
        );
    }

    /// The words a person reads: the earlier run named as given, the slower
    /// cell in its table with its numbers, no "faster" table when none was.
    #[test]
    fn a_slowdown_is_described_with_its_cell_and_no_faster_table() {
        let before = report(vec![cell("sha256", 1024, samples(1e-6, 0.03, 40, 1))]);
        let after = report(vec![cell("sha256", 1024, samples(1.25e-6, 0.03, 40, 2))]);
        let text = describe(&check(&before, &after, DEFAULT_MIN_EFFECT), "run 7 (then)");
        assert!(
            text.starts_with(
                "Regression check against run 7 (then): 1 cells compared, 1 slower, 0 faster"
            ),
            "{text}"
        );
        assert!(text.contains("SLOWER (regressions):\n"), "{text}");
        assert!(!text.contains("faster:\n"), "{text}");
        let row = text
            .lines()
            .find(|l| l.contains("sha256"))
            .expect("the slower cell's row");
        assert!(row.contains("1 KiB"), "{row}");
    }
}
