//! The stored full runs `hashlab info` shows (data/hashlab_verdicts.tsv,
//! written by scripts/quality_verdicts.py) still agree with the battery:
//! the default plan's cheap tests are run again and must give the stored
//! worst statistic, and the stored verdict must be the battery's judgement
//! of it with the stored run's number of tests.

use hashlab::Registry;
use hashlab_quality::{run, stored_verdict, Options, Plan};

/// Sparse keysets of the default plan with at most this many keys.
const CHEAP: u64 = 100_000;

fn keys_up_to(bits: u64, max_set: u64) -> u64 {
    let (mut total, mut term) = (0u64, 1u64);
    for i in 0..=max_set.min(bits) {
        total += term;
        term = term * (bits - i) / (i + 1);
    }
    total
}

#[test]
fn stored_runs_agree_with_the_battery() {
    let registry = Registry::default();
    let standard = Plan::standard();
    let cheap = Plan {
        name: "stored check".into(),
        sparse: standard
            .sparse
            .iter()
            .copied()
            .filter(|&(bytes, set)| keys_up_to(bytes as u64 * 8, set as u64) <= CHEAP)
            .collect(),
        table: standard.table.clone(),
        table_keys: standard.table_keys,
        ..Plan::quick()
    };
    let only_cheap = Plan {
        avalanche: vec![],
        bit_independence: vec![],
        cyclic: vec![],
        differential: vec![],
        zeroes: None,
        two_bytes: vec![],
        text: vec![],
        permutation: vec![],
        key_avalanche: vec![],
        key_collisions: vec![],
        seed_avalanche: vec![],
        seed_bit_independence: vec![],
        seed_collisions: vec![],
        bad_seeds: None,
        seed_zeroes: None,
        seed_blocks: vec![],
        seed_keys: vec![],
        window: None,
        moment_chi2: vec![],
        prng: None,
        long_neighbors: None,
        ..cheap
    };
    assert!(only_cheap.sparse.len() >= 3, "{:?}", only_cheap.sparse);
    // A hash that fails sparse keys (CRC-32C), one that fails other
    // families only (XXH3-64), and one that passes everything (SipHash).
    for algorithm in ["crc32c", "xxh3-64", "siphash-1-3"] {
        let stored = stored_verdict(algorithm).unwrap_or_else(|| {
            panic!("no stored run of {algorithm}: run scripts/quality_verdicts.py")
        });
        assert_eq!(stored.tests.len(), stored.tests_in_run, "{algorithm}");
        let options = Options {
            plan: only_cheap.clone(),
            ..Options::standard()
        };
        let report = run(&registry, algorithm, None, &options).unwrap();
        assert_eq!(
            report.tests.len(),
            only_cheap.sparse.len() + only_cheap.table.len()
        );
        for test in &report.tests {
            let kind = serde_json::to_value(test.test).unwrap();
            let row = stored
                .tests
                .iter()
                .find(|t| t.test == kind.as_str().unwrap() && t.case == test.case)
                .unwrap_or_else(|| panic!("{algorithm}: no stored row for {}", test.case));
            assert_eq!(row.statistic, test.statistic, "{algorithm}: {}", test.case);
            assert_eq!((row.hashes, row.statistics), (test.hashes, test.statistics));
            let p = test.worst.p_value;
            assert!(
                row.p_value == p || (row.p_value - p).abs() <= 1e-9 * p.abs(),
                "{algorithm}: {}: stored p {} against {p}",
                test.case,
                row.p_value
            );
            assert_eq!(
                stored.fails(p, test.statistics),
                !row.passed,
                "{algorithm}: {}",
                test.case
            );
        }
    }
}
