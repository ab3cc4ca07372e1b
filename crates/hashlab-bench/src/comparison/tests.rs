use super::*;
use crate::results::Throughput;
use crate::stats::{summarize, SplitMix64};

/// Samples around `seconds` with ±1 % jitter.
fn samples(seconds: f64, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64(seed);
    (0..30)
        .map(|_| seconds * (1.0 + (rng.next_u64() % 1000) as f64 / 1000.0 * 0.02))
        .collect()
}

fn cell(alg: &str, backend: &str, size: usize, seconds: f64, seed: u64) -> CellResult {
    let s = samples(seconds, seed);
    let summary = summarize(&s).unwrap();
    CellResult {
        algorithm: alg.into(),
        backend: backend.into(),
        size,
        mode: Mode::Streams { threads: 1 },
        batch: 1,
        throughput: Some(Throughput::from_seconds(summary.median, size, None)),
        samples: s,
        summary: Some(summary),
        mb_per_s_iqr: None,
    }
}

fn fixture(name: &str) -> Report {
    let path = format!(
        "{}/../../fixtures/results/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn with_cells(base: &Report, cells: Vec<CellResult>, features: &[&str], mask: &[&str]) -> Report {
    let mut r = base.clone();
    r.cells = cells;
    r.environment.cpu_features = features.iter().map(|s| s.to_string()).collect();
    r.environment.cpu_mask = mask.iter().map(|s| s.to_string()).collect();
    r.settings.mask = r.environment.cpu_mask.clone();
    r
}

#[test]
fn synthetic_flip_is_found_with_the_feature_beside_it() {
    let base = fixture("zen4-plain");
    let a = with_cells(
        &base,
        vec![
            cell("sha256", "fast", 1000, 1.0, 1),
            cell("blake2b", "simd", 1000, 2.0, 2),
            cell("md5", "x", 1000, 3.0, 3),
        ],
        &["avx2", "sha"],
        &[],
    );
    let b = with_cells(
        &base,
        vec![
            cell("sha256", "slow", 1000, 4.0, 4),
            cell("blake2b", "simd", 1000, 2.0, 5),
            cell("md5", "x", 1000, 3.03, 6),
            cell("crc32c", "x", 1000, 0.1, 7),
        ],
        &["avx2", "sha"],
        &["sha"],
    );
    let c = compare(&[("a".into(), &a), ("b".into(), &b)], &Options::default());
    assert_eq!(c.feature_differences.len(), 1);
    assert_eq!(c.feature_differences[0].feature, "sha");
    assert_eq!(c.feature_differences[0].usable, vec![true, false]);
    assert_eq!(c.feature_differences[0].masked, vec![false, true]);

    let sha = c
        .rows
        .iter()
        .find(|r| r.entry.algorithm == "sha256")
        .unwrap();
    assert_eq!(
        sha.entry.backend, None,
        "one backend per input: matched by algorithm"
    );
    let ratio = sha.versus_first[1].as_ref().unwrap();
    assert!(
        ratio.significant && (ratio.ratio - 0.25).abs() < 0.01,
        "{ratio:?}"
    );
    assert_eq!(sha.sides[0].as_ref().unwrap().rank, Some(1));
    assert_eq!(sha.sides[1].as_ref().unwrap().rank, Some(4));

    let md5 = c.rows.iter().find(|r| r.entry.algorithm == "md5").unwrap();
    assert!(
        !md5.versus_first[1].as_ref().unwrap().significant,
        "1 % is noise"
    );

    // sha256 passes both blake2b and md5; blake2b and md5 keep their order.
    let names: Vec<(String, String)> = c
        .flips
        .iter()
        .map(|f| (f.first.name(), f.second.name()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("sha256".to_string(), "blake2b".to_string()),
            ("sha256".to_string(), "md5".to_string())
        ]
    );
    let flip = &c.flips[0];
    assert_eq!(flip.order, vec![Order::FirstAhead, Order::SecondAhead]);
    assert_eq!(flip.differing_features, vec!["sha".to_string()]);
    assert!(
        flip.explaining_features.is_empty(),
        "made-up backends have no dispatch rule"
    );
    assert_eq!(
        flip.first_backends,
        vec![Some("fast".to_string()), Some("slow".to_string())]
    );
    assert_eq!(c.unmatched.len(), 1);
    assert_eq!(c.unmatched[0].entry.algorithm, "crc32c");
    assert_eq!(c.unmatched[0].backends, vec![None, Some("x".to_string())]);
}

#[test]
fn a_reversal_within_the_noise_is_not_a_flip() {
    let base = fixture("zen4-plain");
    let a = with_cells(
        &base,
        vec![cell("x", "b", 64, 1.0, 1), cell("y", "b", 64, 1.005, 2)],
        &[],
        &[],
    );
    let b = with_cells(
        &base,
        vec![cell("x", "b", 64, 1.005, 3), cell("y", "b", 64, 1.0, 4)],
        &[],
        &[],
    );
    let c = compare(&[("a".into(), &a), ("b".into(), &b)], &Options::default());
    assert!(c.flips.is_empty(), "{:?}", c.flips);
}

#[test]
fn several_backends_of_one_algorithm_are_separate_entries() {
    let base = fixture("zen4-plain");
    let a = with_cells(
        &base,
        vec![
            cell("k12", "xkcp", 64, 1.0, 1),
            cell("k12", "rust", 64, 2.0, 2),
        ],
        &[],
        &[],
    );
    let b = with_cells(&base, vec![cell("k12", "rust", 64, 2.0, 3)], &[], &[]);
    let c = compare(&[("a".into(), &a), ("b".into(), &b)], &Options::default());
    let names: Vec<String> = c.rows.iter().map(|r| r.entry.name()).collect();
    assert_eq!(names, vec!["k12/xkcp", "k12/rust"]);
    assert_eq!(c.unmatched.len(), 1);
    assert_eq!(c.unmatched[0].entry.name(), "k12/xkcp");
}

#[test]
fn sizes_can_be_chosen() {
    let base = fixture("zen4-plain");
    let options = Options {
        sizes: Some(vec![1024]),
        ..Options::default()
    };
    let c = compare(&[("a".into(), &base), ("b".into(), &base)], &options);
    assert!(!c.rows.is_empty());
    assert!(c.rows.iter().all(|r| r.size == 1024));
    assert!(c.rankings.iter().all(|r| r.size == 1024));
    // A run against itself: every ratio is exactly 1 and nothing flips.
    for row in &c.rows {
        let r = row.versus_first[1].as_ref().unwrap();
        assert!((r.ratio - 1.0).abs() < 1e-12 && !r.significant);
    }
    assert!(c.flips.is_empty() && c.unmatched.is_empty());
}

#[test]
fn sizes_never_measured_are_named() {
    let base = fixture("zen4-plain");
    let inputs = [("a".to_string(), &base), ("b".to_string(), &base)];
    assert_eq!(check_sizes(&inputs, &[1024, 64]), Ok(()));
    let err = check_sizes(&inputs, &[7, 1024, 3]).unwrap_err();
    assert_eq!(err.missing, vec![7, 3]);
    assert!(err.measured.contains(&1024));
    assert!(
        err.to_string()
            .starts_with("7 B, 3 B were not measured by any input (measured: 16 B, 64 B, "),
        "{err}"
    );
}

/// The real runs: with SHA-NI masked, sha256 runs OpenSSL's plain code and
/// falls behind algorithms it beat; the flips say so and name SHA-NI.
#[test]
fn real_runs_plain_and_masked_sha_flip_sha256() {
    let plain = fixture("zen4-plain");
    let masked = fixture("zen4-mask-sha");
    let c = compare(
        &[("plain".into(), &plain), ("mask-sha".into(), &masked)],
        &Options::default(),
    );
    assert_eq!(c.inputs[1].cpu_mask, vec!["sha".to_string()]);
    assert!(!c.inputs[1].usable_features.contains(&"sha".to_string()));
    let sha_difference: Vec<&str> = c
        .feature_differences
        .iter()
        .map(|d| d.feature.as_str())
        .collect();
    assert_eq!(sha_difference, vec!["sha"]);

    let single = Mode::Streams { threads: 1 };
    let sha256 = c
        .rows
        .iter()
        .find(|r| r.entry.algorithm == "sha256" && r.size == 1 << 20 && r.mode == single)
        .unwrap();
    let sides: Vec<&str> = sha256
        .sides
        .iter()
        .map(|s| s.as_ref().unwrap().backend.as_str())
        .collect();
    assert_eq!(sides, vec!["rustcrypto", "openssl"]);
    let ratio = sha256.versus_first[1].as_ref().unwrap();
    assert!(ratio.significant && ratio.ratio < 0.7, "{ratio:?}");

    let sha256_flips: Vec<&Flip> = c
        .flips
        .iter()
        .filter(|f| f.mode == single && f.first.algorithm == "sha256")
        .collect();
    assert!(!sha256_flips.is_empty());
    for f in &sha256_flips {
        assert_eq!(f.order, vec![Order::FirstAhead, Order::SecondAhead]);
        assert_eq!(f.differing_features, vec!["sha".to_string()]);
        assert_eq!(f.explaining_features, vec!["sha".to_string()]);
    }
    // A flip between two algorithms whose code never looks at SHA-NI is
    // not blamed on it (run-to-run noise at two threads on two cores).
    let unexplained: Vec<&Flip> = c
        .flips
        .iter()
        .filter(|f| f.explaining_features.is_empty())
        .collect();
    for f in &unexplained {
        for e in [&f.first, &f.second] {
            assert!(!e.algorithm.starts_with("sha") && !e.algorithm.contains("sha256"));
        }
    }
    let passed: Vec<&str> = sha256_flips
        .iter()
        .map(|f| f.second.algorithm.as_str())
        .collect();
    assert!(passed.contains(&"blake2b"), "{passed:?}");
    // The JSON form is the same data.
    let json = serde_json::to_string(&c).unwrap();
    let back: Comparison = serde_json::from_str(&json).unwrap();
    assert_eq!(back.flips, c.flips);
}

#[test]
fn inputs_are_labelled_by_name_and_by_path_where_names_clash() {
    let paths: Vec<std::path::PathBuf> = ["a/x.json", "b/x.json", "c/y.json", "run 1.json"]
        .iter()
        .map(Into::into)
        .collect();
    assert_eq!(
        labels(&paths, &["run 1".to_string()]),
        ["a/x.json", "b/x.json", "y", "run 1.json"]
    );
    assert_eq!(labels(&paths[2..3], &[]), ["y"]);
}
