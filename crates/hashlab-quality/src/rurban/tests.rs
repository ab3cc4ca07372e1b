use super::*;
use crate::{run, Options, Plan, Report, TestKind};
use hashlab::{Algorithm, Backend, Class, Hasher, OutputRule, Registry};

/// Bernstein's djb2 widened to 64 bits (h = 33·h + byte): rurban's
/// 'bernstein' fails Window in 66 of 73 positions and MomentChi2 by far.
#[derive(Clone)]
struct Djb2(u64);

const DJB2_START: u64 = 5381;

impl Hasher for Djb2 {
    fn update(&mut self, data: &[u8]) {
        for &b in data {
            self.0 = self.0.wrapping_mul(33).wrapping_add(u64::from(b));
        }
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        out.copy_from_slice(&self.0.to_le_bytes());
        self.0 = DJB2_START;
    }
    fn reset(&mut self) {
        self.0 = DJB2_START;
    }
    fn output_len(&self) -> usize {
        8
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

fn registry() -> Registry {
    let mut registry = Registry::default();
    registry
        .register_algorithm(Algorithm::new(
            "djb2-64",
            "toy",
            Class::NonCryptographic,
            OutputRule::Fixed { bytes: 8 },
        ))
        .unwrap();
    registry
        .register_backend(Backend::new("djb2-64", "plain", "a loop", |_| {
            Ok(Box::new(Djb2(DJB2_START)))
        }))
        .unwrap();
    registry
}

/// A plan of no test: each test below adds the one family it checks.
fn empty() -> Plan {
    Plan {
        name: "rurban".into(),
        ..Plan::default()
    }
}

fn run_plan(registry: &Registry, algorithm: &str, plan: &Plan) -> Report {
    let options = Options {
        plan: plan.clone(),
        ..Options::quick()
    };
    run(registry, algorithm, None, &options).unwrap()
}

/// Runs `plan` (one family) on a weak hash, which must fail, and on strong
/// ones, which must pass.
fn weak_fails_strong_pass(plan: Plan, kind: TestKind, weak: &[&str]) {
    let registry = registry();
    for algorithm in weak {
        let report = run_plan(&registry, algorithm, &plan);
        assert_eq!(report.tests.len(), 1, "{algorithm}");
        let test = &report.tests[0];
        assert_eq!(test.test, kind);
        assert!(!test.passed, "{algorithm} passed: {test:?}");
    }
    for algorithm in ["siphash-1-3", "xxh64"] {
        let report = run_plan(&registry, algorithm, &plan);
        assert!(report.all_passed(), "{algorithm}: {:?}", report.tests[0]);
        assert!(report.tests[0].statistics > 0 && report.tests[0].hashes > 0);
    }
}

#[test]
fn window_catches_djb2() {
    let plan = Plan {
        window: Some(12),
        ..empty()
    };
    weak_fails_strong_pass(plan, TestKind::Window, &["djb2-64"]);
}

#[test]
fn moment_chi2_catches_djb2_and_crc32c() {
    // rurban: CRC-32C's differences of successive counters have a mean
    // popcount⁵ of 902,992 where 1,391,290 is expected.
    let plan = Plan {
        moment_chi2: vec![(4, 1 << 14)],
        ..empty()
    };
    weak_fails_strong_pass(plan, TestKind::MomentChi2, &["djb2-64", "crc32c"]);
}

#[test]
fn prng_catches_djb2_and_skips_narrow_hashes() {
    let plan = Plan {
        prng: Some(1 << 14),
        ..empty()
    };
    weak_fails_strong_pass(plan.clone(), TestKind::Prng, &["djb2-64"]);
    // A 32-bit chain cycles by chance: not run.
    assert!(run_plan(&registry(), "crc32c", &plan).tests.is_empty());
}

#[test]
fn long_neighbors_catch_djb2() {
    let plan = Plan {
        long_neighbors: Some(LongNeighbors {
            min_bytes: 10,
            max_bytes: 70,
            length_step: 20,
            random_bases: 1,
            two_bit_range: 32,
            three_bit_range: 16,
            appended: 2,
        }),
        ..empty()
    };
    weak_fails_strong_pass(plan, TestKind::LongNeighbors, &["djb2-64"]);
}

#[test]
fn fifth_power_moments_are_exact_and_near_rurbans_constants() {
    // Exact (Σ C(n,k)·k^5 / 2^n, in integers): 38,918,912 and 1,391,296.
    // main.cpp compares with 38918200 and 1391290, 712 and 6 below: for 64
    // bits about one standard error of its mean over 2^31 values, which is
    // why its zero-count statistics of good hashes run high.
    let (mean64, var64) = fifth_power_moments(64);
    assert!((mean64 - 38_918_912.0).abs() < 1e-6, "{mean64}");
    let (mean32, var32) = fifth_power_moments(32);
    assert!((mean32 - 1_391_296.0).abs() < 1e-7, "{mean32}");
    // Its srefl is the variance of that mean (step 2: 2^31 values).
    assert!((var64 / (1u64 << 31) as f64 / 273_633.333 - 1.0).abs() < 1e-4);
    assert!((var32 / (1u64 << 31) as f64 / 686.666_666_7 - 1.0).abs() < 2e-3);
}

#[test]
fn window_keys_are_sized_as_rurbans() {
    assert_eq!(window_key_bits(32), 72);
    assert_eq!(window_key_bits(64), 32);
    assert_eq!(window_key_bits(256), 32);
}

#[test]
fn neighbours_are_distinct_messages_as_counted() {
    let registry = Registry::default();
    let subject = Subject::new(&registry, "sha256", None).unwrap();
    let set = LongNeighbors {
        min_bytes: 3,
        max_bytes: 40,
        length_step: 37,
        random_bases: 0,
        two_bit_range: 40,
        three_bit_range: 20,
        appended: 9,
    };
    for len in [3, 40] {
        let mut hashes = neighbour_hashes(&subject, &set, &vec![0x5a; len]);
        assert_eq!(hashes.len() as u64, set.variants(len), "{len}");
        // SHA-256 collides in 64 bits with probability 10⁻¹²: a repeat here
        // is a message enumerated twice.
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len() as u64, set.variants(len), "{len}");
    }
    // 3 bytes: 1 + 24 + C(24, 2) + C(20, 3) + Σ_{z=1..9} (1 + min(64, 8(3 + z))).
    let appended: u64 = (1..=9).map(|z| 1 + (8 * (3 + z)).min(64) as u64).sum();
    assert_eq!(set.variants(3), 1 + 24 + 276 + 1140 + appended);
    assert_eq!(set.keys(), 2 * (set.variants(3) + set.variants(40)));
}
