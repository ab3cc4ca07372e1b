//! hashlab's own verdicts from full (default-plan) runs, stored as data in
//! `data/hashlab_verdicts.tsv` by scripts/quality_verdicts.py from `hashlab
//! quality --format json`, so `hashlab info` can show them beside
//! SMHasher3's without a run of minutes. Nothing here is computed: a stored
//! run is what the battery printed, and a test re-runs its cheap tests and
//! checks the rows still agree.

use serde::Serialize;

use crate::plan::TestKind;

const TABLE: &str = include_str!("../data/hashlab_verdicts.tsv");

/// One test of a stored run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredTest {
    /// The test kind, as `--format json` names it (`bit-independence`).
    pub test: String,
    pub case: String,
    pub hashes: u64,
    pub statistics: usize,
    /// The worst statistic's p-value before the correction.
    pub p_value: f64,
    pub passed: bool,
    /// The worst statistic in words.
    pub statistic: String,
}

/// One family (test kind) of a stored run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredFamily {
    pub test: String,
    pub failed: usize,
    pub total: usize,
    /// The test of this family with the smallest corrected p-value.
    pub worst_case: String,
    pub worst_statistic: String,
    pub worst_corrected_p: f64,
}

/// hashlab's stored verdict on one hash.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredVerdict {
    pub algorithm: String,
    /// Plan, seed and alpha of the run, and where it comes from.
    pub source: String,
    /// Tests in the run: the Bonferroni divisor of every test.
    pub tests_in_run: usize,
    pub alpha: f64,
    pub failed: usize,
    pub families: Vec<StoredFamily>,
    pub tests: Vec<StoredTest>,
}

impl StoredVerdict {
    /// Whether a test with this worst p-value over `statistics` statistics
    /// fails in this run: the judgement of the battery, with its divisor.
    pub fn fails(&self, p_value: f64, statistics: usize) -> bool {
        // The battery's own arithmetic (Correction::per_statistic), so a
        // stored p-value at the threshold is judged as the run judged it.
        p_value < self.alpha / self.tests_in_run.max(1) as f64 / statistics.max(1) as f64
    }
}

fn header<'a>(table: &'a str, key: &str) -> Option<&'a str> {
    table
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.trim_start_matches('#').trim().strip_prefix(key))
        .map(str::trim)
}

/// The stored full run of `algorithm` (hashlab's catalog name), if any.
pub fn stored_verdict(algorithm: &str) -> Option<StoredVerdict> {
    verdict_in(TABLE, algorithm)
}

fn verdict_in(table: &str, algorithm: &str) -> Option<StoredVerdict> {
    // A run kept from an older commit than the rest names its own source.
    let source = header(table, &format!("source {algorithm}:"))
        .or_else(|| header(table, "source:"))
        .unwrap_or("unknown")
        .to_string();
    let alpha: f64 = header(table, "alpha:")
        .and_then(|a| a.parse().ok())
        .unwrap_or(0.001);
    let mut verdict: Option<StoredVerdict> = None;
    for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, tests_in_run, test, case, hashes, statistics, p_value, passed, statistic] =
            fields[..]
        else {
            continue;
        };
        if name != algorithm {
            continue;
        }
        let entry = verdict.get_or_insert_with(|| StoredVerdict {
            algorithm: name.to_string(),
            source: source.clone(),
            tests_in_run: tests_in_run.parse().unwrap_or(0),
            alpha,
            failed: 0,
            families: Vec::new(),
            tests: Vec::new(),
        });
        entry.tests.push(StoredTest {
            test: test.to_string(),
            case: case.to_string(),
            hashes: hashes.parse().unwrap_or(0),
            statistics: statistics.parse().unwrap_or(1),
            p_value: p_value.parse().unwrap_or(f64::NAN),
            passed: passed == "pass",
            statistic: statistic.to_string(),
        });
    }
    let mut verdict = verdict?;
    verdict.failed = verdict.tests.iter().filter(|t| !t.passed).count();
    let k = verdict.tests_in_run as f64;
    for t in &verdict.tests {
        let corrected = (t.p_value * k * t.statistics as f64).min(1.0);
        match verdict.families.iter_mut().find(|f| f.test == t.test) {
            Some(family) => {
                family.total += 1;
                family.failed += usize::from(!t.passed);
                if corrected < family.worst_corrected_p {
                    family.worst_case = t.case.clone();
                    family.worst_statistic = t.statistic.clone();
                    family.worst_corrected_p = corrected;
                }
            }
            None => verdict.families.push(StoredFamily {
                test: t.test.clone(),
                failed: usize::from(!t.passed),
                total: 1,
                worst_case: t.case.clone(),
                worst_statistic: t.statistic.clone(),
                worst_corrected_p: corrected,
            }),
        }
    }
    Some(verdict)
}

/// The SMHasher3 family a hashlab test kind measures, where it has one.
pub fn smhasher3_family(kind: TestKind) -> Option<&'static str> {
    Some(match kind {
        TestKind::Avalanche => "Avalanche",
        TestKind::BitIndependence => "BIC",
        TestKind::SparseKeys => "Sparse",
        TestKind::CyclicKeys => "Cyclic",
        TestKind::Differential => "Bitflip",
        TestKind::Zeroes => "Zeroes",
        TestKind::TwoBytes => "TwoBytes",
        TestKind::Text => "Text",
        TestKind::Permutation => "Permutation",
        TestKind::SeedAvalanche => "SeedAvalanche",
        TestKind::SeedBitIndependence => "SeedBIC",
        TestKind::SeedZeroes => "SeedZeroes",
        TestKind::SeedBlockLength => "SeedBlockLen",
        TestKind::SeedBlockOffset => "SeedBlockOffset",
        TestKind::PerlinNoise => "PerlinNoise",
        TestKind::SeedSparse => "SeedSparse",
        TestKind::SeedGrid => "Seed",
        TestKind::SeedBitflip => "SeedBitflip",
        TestKind::HashTableBuckets
        | TestKind::KeyAvalanche
        | TestKind::KeyCollisions
        | TestKind::SeedCollisions
        | TestKind::BadSeeds
        // rurban's SMHasher families, which SMHasher3 does not run.
        | TestKind::Window
        | TestKind::MomentChi2
        | TestKind::Prng
        | TestKind::LongNeighbors => return None,
    })
}

/// Every test kind, in the battery's order.
pub const TEST_KINDS: [TestKind; 27] = [
    TestKind::Avalanche,
    TestKind::BitIndependence,
    TestKind::SparseKeys,
    TestKind::CyclicKeys,
    TestKind::Differential,
    TestKind::HashTableBuckets,
    TestKind::Zeroes,
    TestKind::TwoBytes,
    TestKind::Text,
    TestKind::Permutation,
    TestKind::Window,
    TestKind::MomentChi2,
    TestKind::Prng,
    TestKind::LongNeighbors,
    TestKind::KeyAvalanche,
    TestKind::KeyCollisions,
    TestKind::SeedAvalanche,
    TestKind::SeedBitIndependence,
    TestKind::SeedCollisions,
    TestKind::BadSeeds,
    TestKind::SeedZeroes,
    TestKind::SeedBlockLength,
    TestKind::SeedBlockOffset,
    TestKind::PerlinNoise,
    TestKind::SeedSparse,
    TestKind::SeedGrid,
    TestKind::SeedBitflip,
];

/// The kind `--format json` names `name` (`bit-independence`).
pub fn test_kind(name: &str) -> Option<TestKind> {
    TEST_KINDS
        .into_iter()
        .find(|k| k.as_str().replace(' ', "-") == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_map_back_to_kinds() {
        for kind in TEST_KINDS {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(test_kind(json.as_str().unwrap()), Some(kind), "{kind:?}");
        }
    }

    #[test]
    fn a_run_kept_from_another_commit_names_its_own_source() {
        let table = "# source: hashlab quality, plan default, seed 1, commit new\n\
            # source old-hash: hashlab quality, plan default, seed 1, commit old\n\
            # alpha: 0.001\n\
            algorithm\ttests_in_run\ttest\tcase\thashes\tstatistics\tp\tverdict\tstatistic\n\
            new-hash\t1\tzeroes\tzero keys\t10\t1\t0.5\tpass\tnothing\n\
            old-hash\t1\tzeroes\tzero keys\t10\t1\t1e-9\tfail\t9 collisions\n";
        let new = verdict_in(table, "new-hash").unwrap();
        let old = verdict_in(table, "old-hash").unwrap();
        assert!(new.source.ends_with("commit new"), "{}", new.source);
        assert!(old.source.ends_with("commit old"), "{}", old.source);
        assert_eq!((new.failed, old.failed), (0, 1));
        assert!(verdict_in(table, "absent").is_none());
    }

    #[test]
    fn stored_rows_are_well_formed() {
        for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
            assert_eq!(line.split('\t').count(), 9, "{line}");
        }
        for name in crate::smhasher3_algorithms() {
            if let Some(v) = stored_verdict(&name) {
                assert_eq!(v.tests_in_run, v.tests.len(), "{name}");
                for t in &v.tests {
                    assert!(test_kind(&t.test).is_some(), "{name}: {}", t.test);
                    // The stored verdict is the battery's judgement of the stored p.
                    assert_eq!(v.fails(t.p_value, t.statistics), !t.passed, "{name}: {t:?}");
                }
            }
        }
    }
}
