//! Statistical quality tests for any hasher of a `hashlab` [`Registry`], in
//! the spirit of SMHasher: avalanche, bit independence, sparse and cyclic
//! keys, differential pairs, hash-table buckets, SMHasher3's Zeroes,
//! TwoBytes, Text and Permutation keysets, key sensitivity for keyed hashes,
//! and seed sensitivity for seeded ones (SMHasher3's seed avalanche, seed
//! BIC, Seed Zeroes, Seed BlockLen and BlockOffset, PerlinNoise, Seed
//! Sparse, Seed and Seed Bitflip, and bad-seed tests), and the four
//! families of rurban's SMHasher that SMHasher3 lacks: Window, MomentChi2,
//! Prng and LongNeighbors.
//!
//! Each test reports its worst statistic, the threshold that statistic had to
//! stay within, and a verdict. Thresholds are Bonferroni-corrected over every
//! statistic of the run ([`Correction`]), so a random function fails a run
//! with probability at most [`Options::alpha`]; keys come from seeded ChaCha
//! streams, so a run with the same seed repeats exactly.
//!
//! ```no_run
//! use hashlab::Registry;
//! use hashlab_quality::{run, Options};
//!
//! let registry = Registry::default();
//! let report = run(&registry, "xxh64", None, &Options::quick()).unwrap();
//! println!("{} of {} tests passed", report.passed, report.tests.len());
//! ```
//!
//! The library prints nothing and keeps no global state: a run uses its own
//! thread pool.

mod analysis;
mod families;
mod flips;
mod keys;
mod keysets;
mod plan;
mod rurban;
mod seed_blocks;
mod seed_keysets;
mod smhasher3;
mod statistic;
pub mod stats;
mod stored;
mod subject;

use std::fmt;
use std::time::Instant;

use hashlab::{HashError, Registry};
use serde::Serialize;

pub use families::{Blocks, Permutation, Text, TwoBytes};
pub use keys::TableKeys;
pub use keysets::KeySet;
pub use plan::{Plan, TestKind};
pub use rurban::LongNeighbors;
pub use seed_blocks::SeedBlocks;
pub use seed_keysets::{SeedKeys, SEED_KEY_LENGTHS};
pub use smhasher3::{smhasher3_algorithms, smhasher3_source, smhasher3_verdict, Smhasher3Verdict};
pub use statistic::{Measure, Statistic, Values, Window};
pub use stats::{Correction, DEFAULT_ALPHA};
pub use stored::{
    smhasher3_family, stored_verdict, test_kind, StoredFamily, StoredTest, StoredVerdict,
    TEST_KINDS,
};
pub use subject::{AVALANCHE_OUTPUT_BITS, KEYSET_BITS};

use plan::Case;
use statistic::Findings;
use subject::{Secret, Subject};

/// How to run the suite.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub plan: Plan,
    /// Seed of every key stream.
    pub seed: u64,
    /// Probability that a random function fails any test of the run.
    pub alpha: f64,
    /// Worker threads; `None`: one per core.
    pub threads: Option<usize>,
}

impl Options {
    pub fn standard() -> Options {
        Options {
            plan: Plan::standard(),
            seed: 1,
            alpha: DEFAULT_ALPHA,
            threads: None,
        }
    }

    pub fn quick() -> Options {
        Options {
            plan: Plan::quick(),
            ..Options::standard()
        }
    }
}

/// Why a run could not start.
#[derive(Debug)]
pub enum QualityError {
    /// The algorithm or backend is unknown, unavailable or refuses the parameters.
    Hash(HashError),
    /// The plan asks for something the tests cannot do.
    Plan(String),
    /// The worker threads could not be started.
    Threads(String),
}

impl fmt::Display for QualityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QualityError::Hash(e) => write!(f, "{e}"),
            QualityError::Plan(why) => write!(f, "plan: {why}"),
            QualityError::Threads(why) => write!(f, "cannot start worker threads: {why}"),
        }
    }
}

impl std::error::Error for QualityError {}

impl From<HashError> for QualityError {
    fn from(error: HashError) -> Self {
        QualityError::Hash(error)
    }
}

/// The outcome of one test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestResult {
    pub test: TestKind,
    /// What was hashed, e.g. "3-byte keys × 49152".
    pub case: String,
    /// Hash computations made.
    pub hashes: u64,
    /// Statistics in this test (cells, pairs, windows...).
    pub statistics: usize,
    /// The statistic with the smallest p-value.
    pub worst: Statistic,
    /// `worst` in words.
    pub statistic: String,
    /// The value `worst` had to stay within to pass, in the same words.
    pub threshold: String,
    /// The significance level each statistic of this test had to reach to fail
    /// it: alpha / (tests in the run × statistics in this test).
    pub alpha_per_statistic: f64,
    /// The worst p-value scaled to the run (Bonferroni): fails below alpha.
    pub corrected_p: f64,
    /// Statistics beyond their threshold.
    pub failing_statistics: usize,
    pub passed: bool,
    /// Wall time of this test.
    pub seconds: f64,
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub algorithm: String,
    pub backend: String,
    /// Why this backend: the caller's choice, or the fastest on short keys.
    pub backend_reason: String,
    pub output_bits: usize,
    /// Output bits the avalanche tests count (all, up to [`AVALANCHE_OUTPUT_BITS`]).
    pub avalanche_bits: usize,
    /// Output bits the other tests read as one integer (the first 64, or all of a narrower hash).
    pub keyset_bits: u32,
    /// Key length of the key tests, when they ran.
    pub key_bytes: Option<usize>,
    /// Why the key tests did not run, when they did not.
    pub key_tests_skipped: Option<String>,
    /// Seed width in bits of the seed tests, when they ran.
    pub seed_bits: Option<usize>,
    /// Why the seed tests did not run, when they did not.
    pub seed_tests_skipped: Option<String>,
    pub plan: String,
    pub seed: u64,
    pub alpha: f64,
    pub tests: Vec<TestResult>,
    pub passed: usize,
    pub failed: usize,
    pub seconds: f64,
}

impl Report {
    pub fn all_passed(&self) -> bool {
        self.failed == 0
    }
}

/// Runs the plan of `options` on `algorithm`: on `backend`, or when `None` on
/// the backend that hashes short keys fastest here (all compute the same function).
pub fn run(
    registry: &Registry,
    algorithm: &str,
    backend: Option<&str>,
    options: &Options,
) -> Result<Report, QualityError> {
    run_with_progress(registry, algorithm, backend, options, |_, _, _| {})
}

/// As [`run`], calling `progress(done, total, finished test)` after each test.
pub fn run_with_progress(
    registry: &Registry,
    algorithm: &str,
    backend: Option<&str>,
    options: &Options,
    progress: impl FnMut(usize, usize, &TestResult),
) -> Result<Report, QualityError> {
    if !(options.alpha > 0.0 && options.alpha < 1.0) {
        return Err(QualityError::Plan(format!(
            "alpha must be between 0 and 1, not {}",
            options.alpha
        )));
    }
    options.plan.check().map_err(QualityError::Plan)?;
    let tested = Tested::new(registry, algorithm, backend)?;
    run_tested(&tested, options, progress)
}

/// The hash a run tests, resolved once: `algorithm` on `backend`, or when
/// `None` on the backend that hashes short keys fastest here (every backend
/// computes the same function).
pub struct Tested {
    subject: Subject,
}

impl Tested {
    pub fn new(
        registry: &Registry,
        algorithm: &str,
        backend: Option<&str>,
    ) -> Result<Tested, QualityError> {
        Ok(Tested {
            subject: Subject::new(registry, algorithm, backend)?,
        })
    }
}

/// Runs the plan of `options` on `tested`, calling `progress(done, total,
/// finished test)` after each test.
pub fn run_tested(
    tested: &Tested,
    options: &Options,
    mut progress: impl FnMut(usize, usize, &TestResult),
) -> Result<Report, QualityError> {
    if !(options.alpha > 0.0 && options.alpha < 1.0) {
        return Err(QualityError::Plan(format!(
            "alpha must be between 0 and 1, not {}",
            options.alpha
        )));
    }
    options.plan.check().map_err(QualityError::Plan)?;
    let subject = &tested.subject;
    for (secret_len, sets, what) in [
        (subject.key_len, &options.plan.key_collisions, "keys"),
        (subject.seed_len, &options.plan.seed_collisions, "seeds"),
    ] {
        let Some(secret_len) = secret_len else {
            continue;
        };
        for (_, set) in sets {
            if let KeySet::Random { keys } = set {
                if (*keys as f64).log2() >= (secret_len * 8) as f64 - 1.0 {
                    return Err(QualityError::Plan(format!(
                        "{keys} distinct {secret_len}-byte {what} do not exist"
                    )));
                }
            }
        }
    }
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = options.threads {
        builder = builder.num_threads(threads);
    }
    let pool = builder
        .build()
        .map_err(|e| QualityError::Threads(e.to_string()))?;

    let started = Instant::now();
    let cases = options.plan.cases(
        subject.key_len.is_some(),
        subject.seed_len.is_some(),
        subject.output_bits(),
    );
    let correction = Correction::new(options.alpha, cases.len());
    let mut tests = Vec::with_capacity(cases.len());
    for case in &cases {
        let case_started = Instant::now();
        let findings = pool.install(|| measure(subject, case, options.seed));
        let result = judge(
            case,
            findings,
            &correction,
            case_started.elapsed().as_secs_f64(),
        );
        progress(tests.len() + 1, cases.len(), &result);
        tests.push(result);
    }
    let failed = tests.iter().filter(|t| !t.passed).count();
    Ok(Report {
        algorithm: subject.choice.name().to_string(),
        backend: subject.choice.backend_name().to_string(),
        backend_reason: subject.choice.reason().to_string(),
        output_bits: subject.output_bits(),
        avalanche_bits: subject.avalanche_bits(),
        keyset_bits: subject.keyset_bits(),
        key_bytes: subject.key_len,
        key_tests_skipped: subject.unkeyed_reason.clone(),
        seed_bits: subject.seed_len.map(|bytes| bytes * 8),
        seed_tests_skipped: subject.unseeded_reason.clone(),
        plan: options.plan.name.clone(),
        seed: options.seed,
        alpha: options.alpha,
        passed: tests.len() - failed,
        failed,
        tests,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn measure(subject: &Subject, case: &Case, seed: u64) -> Findings {
    // Each test draws from its own streams, named by what it hashes, so
    // adding a test to a plan leaves the keys of the others unchanged.
    let test = keys::test_id(&format!("{}: {}", case.kind().as_str(), case.label()));
    match *case {
        Case::Avalanche { key_bytes, keys } => {
            flips::avalanche(subject, key_bytes, keys, seed, test)
        }
        Case::BitIndependence { key_bytes, keys } => {
            flips::bit_independence(subject, key_bytes, keys, seed, test)
        }
        Case::Sparse { key_bytes, max_set } => keysets::sparse(subject, key_bytes, max_set),
        Case::Cyclic {
            cycle_bytes,
            repeats,
            keys,
        } => keysets::cyclic(subject, cycle_bytes, repeats, keys, seed, test),
        Case::Differential { key_bytes, keys } => {
            keysets::differential(subject, key_bytes, keys, seed, test)
        }
        Case::Table { keyset, keys } => keysets::table(subject, keyset, keys, seed, test),
        Case::Zeroes { keys } => families::zeroes(subject, keys),
        Case::TwoBytes { set } => families::two_bytes(subject, set),
        Case::Text { ref set } => families::text(subject, set),
        Case::Permutation { set } => families::permutation(subject, set),
        Case::KeyAvalanche {
            message_bytes,
            keys,
        } => flips::secret_avalanche(subject, Secret::Key, message_bytes, keys, seed, test),
        Case::KeyCollisions {
            message_bytes,
            keyset,
        } => keysets::secret_collisions(subject, Secret::Key, message_bytes, keyset, seed, test),
        Case::SeedAvalanche {
            message_bytes,
            seeds,
        } => flips::secret_avalanche(subject, Secret::Seed, message_bytes, seeds, seed, test),
        Case::SeedBitIndependence {
            message_bytes,
            seeds,
        } => flips::seed_bit_independence(subject, message_bytes, seeds, seed, test),
        Case::SeedCollisions {
            message_bytes,
            seedset,
        } => keysets::secret_collisions(subject, Secret::Seed, message_bytes, seedset, seed, test),
        Case::BadSeeds { random } => keysets::bad_seeds(subject, random, seed, test),
        Case::SeedZeroes { max_set, max_len } => keysets::seed_zeroes(subject, max_set, max_len),
        Case::SeedBlocks { set } => seed_blocks::seed_blocks(subject, set),
        Case::SeedKeys { set } => seed_keysets::seed_keys(subject, set, seed, test),
        Case::Window { key_bits, bits } => rurban::window(subject, key_bits, bits),
        Case::MomentChi2 { key_bytes, step } => rurban::moment_chi2(subject, key_bytes, step),
        Case::Prng { numbers } => rurban::prng(subject, numbers),
        Case::LongNeighbors { set } => rurban::long_neighbors(subject, &set, seed, test),
    }
}

fn judge(case: &Case, findings: Findings, correction: &Correction, seconds: f64) -> TestResult {
    let statistics = findings.p_values.len();
    let alpha_per_statistic = correction.per_statistic(statistics);
    let failing_statistics = findings
        .p_values
        .iter()
        .filter(|&&p| p < alpha_per_statistic)
        .count();
    let worst = findings
        .worst
        .expect("every test measures at least one statistic");
    TestResult {
        test: case.kind(),
        case: case.label(),
        hashes: findings.hashes,
        statistics,
        statistic: worst.describe(),
        threshold: worst.threshold(alpha_per_statistic),
        alpha_per_statistic,
        corrected_p: correction.corrected(worst.p_value, statistics),
        failing_statistics,
        passed: failing_statistics == 0,
        worst,
        seconds,
    }
}
