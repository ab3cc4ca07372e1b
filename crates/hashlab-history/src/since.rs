//! A run checked against the last complete run on its machine: what
//! `bench --check-regression` reports before it saves.

use hashlab_bench::regression::{self, RegressionCheck};
use hashlab_bench::report::Report;

use crate::{History, Machine, Result};

/// What a check found.
#[derive(Debug)]
pub enum SinceLast {
    /// The history has no complete run on this machine under this mask.
    NoEarlierRun(Machine),
    /// The check against that run, and the run as the check names it.
    Checked {
        against: String,
        check: RegressionCheck,
    },
}

/// `report` against the last complete run on its machine, a change counted
/// from `min_effect` (a share: 0.05 is 5 %).
pub fn since_last(history: &History, report: &Report, min_effect: f64) -> Result<SinceLast> {
    let machine = Machine::of(report);
    Ok(match history.last_on_machine(&machine)? {
        None => SinceLast::NoEarlierRun(machine),
        Some((summary, before)) => SinceLast::Checked {
            against: summary.label(),
            check: regression::check(&before, report, min_effect),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Report {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/results/zen4-plain.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_run_is_checked_against_the_last_on_its_machine_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut history = History::open(dir.path().join("h.sqlite")).unwrap();
        let report = fixture();
        match since_last(&history, &report, 0.05).unwrap() {
            SinceLast::NoEarlierRun(machine) => assert_eq!(machine, Machine::of(&report)),
            SinceLast::Checked { .. } => panic!("an empty history has no earlier run"),
        }
        let id = history.save(&report).unwrap();
        match since_last(&history, &report, 0.05).unwrap() {
            SinceLast::Checked { against, check } => {
                assert!(against.starts_with(&format!("run {id} (")));
                assert!(!check.regressed(), "a run is no slower than itself");
            }
            SinceLast::NoEarlierRun(_) => panic!("the saved run is on this machine"),
        }
    }
}
