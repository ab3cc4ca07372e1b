//! Statistics for noisy timings: robust summaries, a stated outlier rule, and the
//! ONE function that decides whether two sets of samples differ beyond noise.

use serde::{Deserialize, Serialize};

/// Summary of one cell's samples after outlier rejection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Samples kept.
    pub n: usize,
    /// Samples rejected as outliers.
    pub outliers: usize,
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    pub iqr: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

/// Linear-interpolated quantile of sorted data (the "type 7" definition R and NumPy default to).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    assert!(!sorted.is_empty(), "quantile of nothing");
    let pos = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn sorted(samples: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v
}

/// The outlier rule: Tukey's fences, 3×IQR beyond the quartiles ("far out").
/// Timings are skewed upward by interference, so only far-out points go;
/// with fewer than 5 samples nothing is rejected.
pub const OUTLIER_FENCE_IQRS: f64 = 3.0;

/// Splits samples into (kept, number rejected) by the rule above.
pub fn reject_outliers(samples: &[f64]) -> (Vec<f64>, usize) {
    let s = sorted(samples);
    if s.len() < 5 {
        return (
            s,
            samples.len() - samples.iter().filter(|x| x.is_finite()).count(),
        );
    }
    let q1 = quantile(&s, 0.25);
    let q3 = quantile(&s, 0.75);
    let fence = OUTLIER_FENCE_IQRS * (q3 - q1);
    let kept: Vec<f64> = s
        .iter()
        .copied()
        .filter(|x| *x >= q1 - fence && *x <= q3 + fence)
        .collect();
    let rejected = samples.len() - kept.len();
    (kept, rejected)
}

/// Median, quartiles and extremes after outlier rejection. `None` for no finite samples.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    let (kept, outliers) = reject_outliers(samples);
    if kept.is_empty() {
        return None;
    }
    let q1 = quantile(&kept, 0.25);
    let q3 = quantile(&kept, 0.75);
    Some(Summary {
        n: kept.len(),
        outliers,
        median: quantile(&kept, 0.5),
        q1,
        q3,
        iqr: q3 - q1,
        min: kept[0],
        max: kept[kept.len() - 1],
        mean: kept.iter().sum::<f64>() / kept.len() as f64,
    })
}

/// Relative spread: IQR / median.
pub fn relative_spread(summary: &Summary) -> f64 {
    if summary.median > 0.0 {
        summary.iqr / summary.median
    } else {
        0.0
    }
}

/// How two sets of samples compare: the ratio of medians (b / a) with a 95 %
/// bootstrap confidence interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    /// The interval excludes 1 by more than `min_effect`: a real difference, not noise.
    pub significant: bool,
}

/// Bootstrap resamples for `compare`; 2000 keeps the 2.5 % tails stable to about ±0.3 %.
const BOOTSTRAP_RESAMPLES: usize = 2000;

/// THE test of "is this difference real?": a percentile bootstrap interval on the
/// ratio of medians (median(b) / median(a)), after outlier rejection. Significant
/// when the whole 95 % interval lies beyond 1 ± `min_effect` (e.g. 0.02 ignores
/// differences under 2 % however certain). Deterministic for a given `seed`.
pub fn compare(a: &[f64], b: &[f64], min_effect: f64, seed: u64) -> Option<Comparison> {
    let (a, _) = reject_outliers(a);
    let (b, _) = reject_outliers(b);
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let median_a = quantile(&a, 0.5);
    if median_a == 0.0 {
        return None;
    }
    let ratio = quantile(&b, 0.5) / median_a;
    let mut rng = SplitMix64(seed);
    let mut ratios = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let mut ra = vec![0.0; a.len()];
    let mut rb = vec![0.0; b.len()];
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for x in ra.iter_mut() {
            *x = a[rng.below(a.len())];
        }
        for x in rb.iter_mut() {
            *x = b[rng.below(b.len())];
        }
        ra.sort_by(f64::total_cmp);
        rb.sort_by(f64::total_cmp);
        let ma = quantile(&ra, 0.5);
        if ma > 0.0 {
            ratios.push(quantile(&rb, 0.5) / ma);
        }
    }
    if ratios.is_empty() {
        // No resample had a positive median: times that no clock gives.
        return None;
    }
    ratios.sort_by(f64::total_cmp);
    let low = quantile(&ratios, 0.025);
    let high = quantile(&ratios, 0.975);
    let significant = low > 1.0 + min_effect || high < 1.0 - min_effect;
    Some(Comparison {
        ratio,
        low,
        high,
        significant,
    })
}

/// A small deterministic generator for shuffles and resampling (no global RNG state).
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0), by rejection so there is no modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
    pub fn fill(&mut self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noisy(center: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut rng = SplitMix64(seed);
        (0..n)
            .map(|_| center * (1.0 + (rng.next_u64() % 1000) as f64 / 1000.0 * 0.02))
            .collect()
    }

    #[test]
    fn quantiles_and_summary() {
        let s = summarize(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(
            (s.median, s.q1, s.q3, s.iqr, s.min, s.max, s.mean),
            (3.0, 2.0, 4.0, 2.0, 1.0, 5.0, 3.0)
        );
        assert_eq!(s.outliers, 0);
        assert_eq!(summarize(&[7.0]).unwrap().median, 7.0);
        assert_eq!(summarize(&[1.0, 2.0]).unwrap().median, 1.5);
        assert!(summarize(&[]).is_none());
        assert!(summarize(&[f64::NAN]).is_none());
    }

    #[test]
    fn far_outliers_go_near_ones_stay() {
        let mut v = vec![10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7];
        v.push(100.0);
        let s = summarize(&v).unwrap();
        assert_eq!(s.outliers, 1);
        assert_eq!(s.max, 10.7);
        v.pop();
        v.push(11.0);
        assert_eq!(summarize(&v).unwrap().outliers, 0);
    }

    #[test]
    fn same_distribution_is_not_significant() {
        let a = noisy(100.0, 30, 1);
        let b = noisy(100.0, 30, 2);
        let c = compare(&a, &b, 0.0, 9).unwrap();
        assert!(!c.significant, "{c:?}");
        assert!(c.low < 1.0 && c.high > 1.0);
    }

    #[test]
    fn a_real_difference_is_significant_and_direction_is_right() {
        let a = noisy(100.0, 30, 3);
        let b = noisy(110.0, 30, 4);
        let c = compare(&a, &b, 0.02, 9).unwrap();
        assert!(c.significant, "{c:?}");
        assert!(c.ratio > 1.08 && c.ratio < 1.12);
        assert!(c.low > 1.0);
        let back = compare(&b, &a, 0.02, 9).unwrap();
        assert!(back.significant && back.high < 1.0);
    }

    #[test]
    fn small_effects_below_the_threshold_are_ignored() {
        let a = noisy(100.0, 50, 5);
        let b: Vec<f64> = a.iter().map(|x| x * 1.01).collect();
        assert!(!compare(&a, &b, 0.02, 9).unwrap().significant);
        assert!(compare(&a, &b, 0.0, 9).unwrap().low > 1.0);
    }

    #[test]
    fn compare_is_deterministic_per_seed() {
        let a = noisy(100.0, 20, 6);
        let b = noisy(103.0, 20, 7);
        assert_eq!(compare(&a, &b, 0.0, 1), compare(&a, &b, 0.0, 1));
    }

    #[test]
    fn shuffle_is_a_permutation_and_below_is_in_range() {
        let mut rng = SplitMix64(42);
        let mut v: Vec<usize> = (0..50).collect();
        rng.shuffle(&mut v);
        let mut s = v.clone();
        s.sort();
        assert_eq!(s, (0..50).collect::<Vec<_>>());
        assert_ne!(v, s);
        for n in 1..20 {
            assert!(rng.below(n) < n);
        }
    }
}
