//! SMHasher3's published verdicts for the hashes hashlab also has: facts
//! from its `results/raw` summaries at a pinned commit, in
//! `data/smhasher3.tsv` (written by scripts/smhasher3_verdicts.py), so a
//! report can be read beside them.

use serde::Serialize;

const TABLE: &str = include_str!("../data/smhasher3.tsv");

/// SMHasher3's verdict on one hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Smhasher3Verdict {
    /// SMHasher3's name of the hash.
    pub name: String,
    pub passed: u32,
    pub total: u32,
    /// (family, failed cases as SMHasher3 lists them; empty when the family
    /// has one test), in SMHasher3's order.
    pub failures: Vec<(String, String)>,
    /// Where the facts come from.
    pub source: String,
}

/// The commit and release of SMHasher3 the table was read from.
pub fn smhasher3_source() -> String {
    TABLE
        .lines()
        .take_while(|line| line.starts_with('#'))
        .take(2)
        .map(|line| line.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join("; ")
}

/// SMHasher3's verdict on `algorithm` (hashlab's catalog name), when its
/// published results have the same function.
pub fn smhasher3_verdict(algorithm: &str) -> Option<Smhasher3Verdict> {
    let mut verdict: Option<Smhasher3Verdict> = None;
    for line in TABLE.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, theirs, passed, total, family, failed] = fields[..] else {
            continue;
        };
        if name != algorithm {
            continue;
        }
        let entry = verdict.get_or_insert_with(|| Smhasher3Verdict {
            name: theirs.to_string(),
            passed: passed.parse().unwrap_or(0),
            total: total.parse().unwrap_or(0),
            failures: Vec::new(),
            source: smhasher3_source(),
        });
        if family != "-" {
            entry
                .failures
                .push((family.to_string(), failed.to_string()));
        }
    }
    verdict
}

/// Every hashlab algorithm the table covers.
pub fn smhasher3_algorithms() -> Vec<String> {
    let mut names: Vec<String> = TABLE
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .filter_map(|l| l.split('\t').next().map(str::to_string))
        .collect();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_back() {
        let murmur = smhasher3_verdict("murmur3-32").unwrap();
        assert_eq!(
            (murmur.name.as_str(), murmur.passed, murmur.total),
            ("MurmurHash3-32", 168, 250)
        );
        assert!(murmur
            .failures
            .iter()
            .any(|(family, cases)| family == "SeedZeroes" && cases == "1280, 8448"));
        let sha = smhasher3_verdict("sha256").unwrap();
        assert!(sha.failures.is_empty() && sha.passed == sha.total);
        assert!(smhasher3_verdict("no-such-hash").is_none());
        assert!(smhasher3_source().contains("7ad8939d"));
        // Every row is well formed.
        for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
            assert_eq!(line.split('\t').count(), 6, "{line}");
        }
    }

    #[test]
    fn every_covered_name_is_in_the_catalog() {
        let registry = hashlab::Registry::default();
        for name in smhasher3_algorithms() {
            let alg = registry
                .algorithm(&name)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(alg.name, name, "the table uses catalog names, not aliases");
        }
    }
}
