//! Tail probabilities, the thresholds they imply, and the multiple-testing
//! correction that turns one run-wide false-failure rate into a threshold per
//! statistic.
//!
//! Every p-value here is an upper tail: the probability that an ideal (random)
//! hash gives a statistic at least this extreme. Tails that favour the hash
//! (fewer collisions than expected, a histogram flatter than chance) are never
//! failures, as in SMHasher.

use statrs::function::erf::{erfc, erfc_inv};
use statrs::function::gamma::{checked_gamma_lr, checked_gamma_ur};

/// The run-wide probability that a random function fails at least one test.
pub const DEFAULT_ALPHA: f64 = 0.001;

/// Bonferroni correction over a run: `tests` tests, each the worst of its own
/// number of statistics. Each test gets an equal share `alpha / tests`, split
/// equally among its statistics, so the shares of all statistics in a run add
/// up to `alpha`: by the union bound, a random function fails any test of the
/// run with probability at most `alpha`, however the statistics depend on each
/// other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correction {
    pub alpha: f64,
    pub tests: usize,
}

impl Correction {
    pub fn new(alpha: f64, tests: usize) -> Correction {
        Correction {
            alpha,
            tests: tests.max(1),
        }
    }

    /// The significance level one statistic of a test with `statistics` of them must reach to fail it.
    pub fn per_statistic(&self, statistics: usize) -> f64 {
        self.alpha / self.tests as f64 / statistics.max(1) as f64
    }

    /// The worst raw p-value of a test scaled to the run: comparable with `alpha`.
    pub fn corrected(&self, p_value: f64, statistics: usize) -> f64 {
        (p_value * self.tests as f64 * statistics.max(1) as f64).min(1.0)
    }
}

/// Two-sided p-value of `count` heads in `trials` fair coin flips (normal
/// approximation with continuity correction; the tests use thousands of trials,
/// where it is accurate far into the tail because the fair binomial is symmetric).
pub fn fair_coin_p(trials: u64, count: u64) -> f64 {
    let half = trials as f64 / 2.0;
    let deviation = ((count as f64 - half).abs() - 0.5).max(0.0);
    let z = deviation / (trials as f64).sqrt() * 2.0;
    erfc(z / std::f64::consts::SQRT_2)
}

/// |2·count/trials − 1|: 0 for a bit that flips half the time, 1 for one that always or never flips.
pub fn bias(trials: u64, count: u64) -> f64 {
    (2.0 * count as f64 / trials as f64 - 1.0).abs()
}

/// Two-sided tail of the standard normal distribution beyond `z`.
pub fn normal_two_sided_p(z: f64) -> f64 {
    erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// The standard normal deviate whose two-sided tail is `alpha`.
pub fn two_sided_z(alpha: f64) -> f64 {
    std::f64::consts::SQRT_2 * erfc_inv(alpha.clamp(f64::MIN_POSITIVE, 1.0))
}

/// The largest bias (as [`bias`]) that `fair_coin_p` still accepts at `alpha`.
pub fn bias_threshold(trials: u64, alpha: f64) -> f64 {
    let n = trials as f64;
    (two_sided_z(alpha) * n.sqrt() / 2.0 + 0.5) * 2.0 / n
}

/// Chi-square statistic of independence of a 2×2 table `[[a, b], [c, d]]`, or
/// `None` when an expected cell is below 10, where the chi-square
/// approximation fails (the caller treats that as total dependence, as
/// SMHasher3 does: a good hash puts about a quarter of the trials in each cell).
pub fn independence_chi_square(a: u64, b: u64, c: u64, d: u64) -> Option<f64> {
    let n = (a + b + c + d) as f64;
    let (r0, r1) = ((a + b) as f64, (c + d) as f64);
    let (c0, c1) = ((a + c) as f64, (b + d) as f64);
    let smallest_expected = r0.min(r1) * c0.min(c1) / n;
    if smallest_expected < 10.0 {
        return None;
    }
    let cross = a as f64 * d as f64 - b as f64 * c as f64;
    Some(n * cross * cross / (r0 * r1 * c0 * c1))
}

/// Upper tail of the chi-square distribution with one degree of freedom.
pub fn chi_square_1_p(x: f64) -> f64 {
    if x <= 0.0 {
        1.0
    } else {
        erfc((x / 2.0).sqrt())
    }
}

/// Upper tail P(X ≥ x) of the chi-square distribution with `df` degrees of freedom.
pub fn chi_square_p(x: f64, df: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    checked_gamma_ur(df / 2.0, x / 2.0).unwrap_or(if x > df { 0.0 } else { 1.0 })
}

/// The chi-square value (`df` degrees of freedom) whose upper tail is `alpha`.
pub fn chi_square_threshold(df: f64, alpha: f64) -> f64 {
    // Bisection on the tail itself: inverting the CDF at 1 − alpha would lose
    // the digits of an alpha near 1e-12.
    let (mut low, mut high) = (df, df + 10.0 * (2.0 * df).sqrt() + 100.0);
    while chi_square_p(high, df) > alpha {
        high *= 2.0;
    }
    for _ in 0..100 {
        let mid = (low + high) / 2.0;
        if chi_square_p(mid, df) > alpha {
            low = mid;
        } else {
            high = mid;
        }
    }
    high
}

/// P(X ≥ observed) for a Poisson count with mean `expected`.
pub fn poisson_at_least_p(expected: f64, observed: u64) -> f64 {
    if observed == 0 {
        return 1.0;
    }
    if expected <= 0.0 {
        return 0.0;
    }
    checked_gamma_lr(observed as f64, expected).unwrap_or(0.0)
}

/// The largest count a Poisson variable with mean `expected` may reach while
/// its upper tail stays above `alpha`.
pub fn poisson_threshold(expected: f64, alpha: f64) -> u64 {
    let mut count = expected.floor() as u64;
    while poisson_at_least_p(expected, count + 1) > alpha {
        count += 1;
    }
    count
}

/// Expected number of collisions (keys minus distinct values) when `keys`
/// values fall uniformly into 2^`bits` bins.
pub fn expected_collisions(keys: u64, bits: u32) -> f64 {
    let n = keys as f64;
    let m = (bits as f64).exp2();
    if n / m < 1e-4 {
        // n − m·(1 − (1 − 1/m)^n) cancels catastrophically here; the first
        // two terms of its series are exact to double precision.
        n * (n - 1.0) / (2.0 * m) - n * (n - 1.0) * (n - 2.0) / (6.0 * m * m)
    } else {
        n + m * (n * (-1.0 / m).ln_1p()).exp_m1()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bonferroni_shares_add_up_to_alpha() {
        let correction = Correction::new(0.001, 40);
        let statistics = [1usize, 7, 1536, 65536];
        let mut total = 0.0;
        for test in 0..40 {
            let m = statistics[test % statistics.len()];
            total += correction.per_statistic(m) * m as f64;
        }
        assert!((total - 0.001).abs() < 1e-15, "{total}");
        assert_eq!(correction.per_statistic(10), 0.001 / 40.0 / 10.0);
        // Corrected p-values compare with alpha exactly where raw ones compare with the share.
        let p = correction.per_statistic(10);
        assert!((correction.corrected(p, 10) - 0.001).abs() < 1e-15);
        assert_eq!(correction.corrected(0.5, 10), 1.0);
    }

    #[test]
    fn more_tests_make_every_threshold_stricter() {
        let few = Correction::new(0.001, 10);
        let many = Correction::new(0.001, 100);
        assert!(many.per_statistic(64) < few.per_statistic(64));
        assert!(
            bias_threshold(10_000, many.per_statistic(64))
                > bias_threshold(10_000, few.per_statistic(64))
        );
        assert!(
            chi_square_threshold(255.0, many.per_statistic(64))
                > chi_square_threshold(255.0, few.per_statistic(64))
        );
        assert!(
            poisson_threshold(100.0, many.per_statistic(64))
                >= poisson_threshold(100.0, few.per_statistic(64))
        );
    }

    #[test]
    fn family_wise_error_of_uniform_p_values_stays_below_alpha() {
        // Under the null, p-values are uniform. Simulate runs of 50 tests × 20
        // statistics with a fixed generator and count runs with any failure.
        let correction = Correction::new(0.05, 50);
        let alpha_stat = correction.per_statistic(20);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let runs = 4000;
        let failed_runs = (0..runs)
            .filter(|_| (0..50 * 20).map(|_| next()).any(|p| p < alpha_stat))
            .count();
        let rate = failed_runs as f64 / runs as f64;
        // Expected about 1 − (1 − 0.05/1000)^1000 ≈ 0.0488; 4000 runs give ±0.007.
        assert!(rate < 0.06, "family-wise failure rate {rate}");
        assert!(rate > 0.035, "family-wise failure rate {rate}");
    }

    #[test]
    fn coin_flip_tail_matches_the_normal_table() {
        // 10,000 flips, 5,196 heads: z = (196 − 0.5)/50 = 3.91, two-sided p ≈ 9.2e-5.
        let p = fair_coin_p(10_000, 5_196);
        assert!((p - 9.2e-5).abs() < 0.3e-5, "{p}");
        assert_eq!(fair_coin_p(10_000, 5_000), 1.0);
        // Symmetric.
        assert_eq!(fair_coin_p(10_000, 4_804), p);
        // The threshold is where the p-value crosses alpha.
        let alpha = 1e-9;
        let limit = bias_threshold(100_000, alpha);
        let count_at = |b: f64| (100_000.0 * (1.0 + b) / 2.0) as u64;
        assert!(fair_coin_p(100_000, count_at(limit * 0.999)) > alpha);
        assert!(fair_coin_p(100_000, count_at(limit * 1.01)) < alpha);
    }

    #[test]
    fn chi_square_tails_match_tables() {
        // Tables: df 1 at 3.841 → 0.05; df 10 at 23.209 → 0.01; df 255 at 310.457 → 0.01.
        assert!((chi_square_1_p(3.841) - 0.05).abs() < 1e-4);
        assert!((chi_square_p(3.841, 1.0) - 0.05).abs() < 1e-4);
        assert!((chi_square_p(23.209, 10.0) - 0.01).abs() < 1e-5);
        assert!((chi_square_p(310.457, 255.0) - 0.01).abs() < 1e-4);
        let t = chi_square_threshold(65535.0, 1e-10);
        assert!((chi_square_p(t, 65535.0) - 1e-10).abs() < 1e-12);
        assert_eq!(chi_square_p(0.0, 5.0), 1.0);
    }

    #[test]
    fn independence_statistic_of_known_tables() {
        // Perfectly independent: 0.
        assert_eq!(independence_chi_square(250, 250, 250, 250), Some(0.0));
        // [[30, 10], [10, 30]]: chi² = 80·(900 − 100)² / (40·40·40·40) = 20.
        assert!((independence_chi_square(30, 10, 10, 30).unwrap() - 20.0).abs() < 1e-9);
        // A bit that never flips leaves an empty margin: not testable.
        assert_eq!(independence_chi_square(0, 0, 500, 500), None);
    }

    #[test]
    fn poisson_tail_and_threshold() {
        // P(X ≥ 1 | λ) = 1 − e^−λ.
        assert!((poisson_at_least_p(0.5, 1) - (1.0 - (-0.5f64).exp())).abs() < 1e-12);
        assert_eq!(poisson_at_least_p(3.0, 0), 1.0);
        // A tiny mean: one collision is already improbable.
        assert!((poisson_at_least_p(2.7e-8, 1) - 2.7e-8).abs() < 1e-12);
        let limit = poisson_threshold(100.0, 1e-9);
        assert!(poisson_at_least_p(100.0, limit) > 1e-9);
        assert!(poisson_at_least_p(100.0, limit + 1) <= 1e-9);
    }

    #[test]
    fn expected_collisions_of_birthday_problem() {
        // 2^16 keys in 2^32 bins: about n²/2m = 0.5.
        assert!((expected_collisions(1 << 16, 32) - 0.5).abs() < 1e-4);
        // 1,000,000 keys in 2^64 bins: 2.71e-8.
        assert!((expected_collisions(1_000_000, 64) / 2.7105e-8 - 1.0).abs() < 1e-3);
        // Overloaded: 2^20 keys into 2^10 bins: nearly all collide.
        let e = expected_collisions(1 << 20, 10);
        assert!((e - ((1 << 20) - 1024) as f64).abs() < 1.0, "{e}");
    }
}
