//! What every keyset test asks of a list of hash values: how many collide, in
//! all the bits and in a narrower window where collisions are expected, and
//! whether every window of bits fills its buckets evenly (chi-square).

use rayon::prelude::*;

use crate::statistic::{Findings, Measure, Statistic, Values, Window};
use crate::stats::expected_collisions;

/// Collisions in a window are counted where about this many are expected, so
/// an excess shows as a ratio, not as a single unlucky pair.
pub(crate) const TARGET_COLLISIONS: f64 = 100.0;
/// Buckets get at least this many values on average, where chi-square's
/// approximation holds.
const VALUES_PER_BUCKET: u64 = 8;
/// Bucket windows are at most 2^16 bins: a histogram that fits the L2 cache.
const MAX_BUCKET_BITS: u32 = 16;
const MIN_BUCKET_BITS: u32 = 6;

/// The widths `analyze` uses for `keys` values of `width` bits: the collision
/// window (if any) and the bucket window (if any).
pub(crate) fn windows(keys: u64, width: u32) -> (Option<u32>, Option<u32>) {
    let collision_bits = (8..width)
        .rev()
        .find(|&bits| expected_collisions(keys, bits) >= TARGET_COLLISIONS);
    let mut bucket_bits = MAX_BUCKET_BITS.min(width);
    while bucket_bits >= MIN_BUCKET_BITS && keys < VALUES_PER_BUCKET << bucket_bits {
        bucket_bits -= 1;
    }
    (
        collision_bits,
        (bucket_bits >= MIN_BUCKET_BITS).then_some(bucket_bits),
    )
}

/// Adds the collision and distribution statistics of `values` (each `width`
/// bits wide) to `findings`.
pub(crate) fn analyze(values: &[u64], width: u32, of: Values, findings: &mut Findings) {
    let keys = values.len() as u64;
    if keys < 2 {
        return;
    }
    let mask = low_mask(width);
    let (collision_bits, bucket_bits) = windows(keys, width);

    let mut add_collisions = |window: Window, observed: u64| {
        findings.add(Statistic::new(Measure::Collisions {
            values: of,
            keys,
            window,
            expected: expected_collisions(keys, window.bits),
            observed,
        }));
    };
    // Sorted values are sorted by their top bits too: one sort counts
    // collisions in all bits and in the top window.
    let mut sorted: Vec<u64> = values.par_iter().map(|&v| v & mask).collect();
    sorted.par_sort_unstable();
    add_collisions(
        Window {
            offset: 0,
            bits: width,
        },
        repeats(&sorted, |v| v),
    );
    if let Some(bits) = collision_bits {
        let shift = width - bits;
        add_collisions(
            Window {
                offset: shift,
                bits,
            },
            repeats(&sorted, |v| v >> shift),
        );
        let mut low: Vec<u64> = values.par_iter().map(|&v| v & low_mask(bits)).collect();
        low.par_sort_unstable();
        add_collisions(Window { offset: 0, bits }, repeats(&low, |v| v));
    }

    if let Some(bits) = bucket_bits {
        let statistics: Vec<Statistic> = (0..=width - bits)
            .into_par_iter()
            .map(|offset| {
                let window = Window { offset, bits };
                Statistic::new(Measure::Distribution {
                    values: of,
                    keys,
                    window,
                    chi_square: bucket_chi_square(values, window),
                })
            })
            .collect();
        for statistic in statistics {
            findings.add(statistic);
        }
    }
}

/// Values equal to their predecessor in a sorted list, after `key`.
fn repeats(sorted: &[u64], key: impl Fn(u64) -> u64) -> u64 {
    sorted.windows(2).filter(|w| key(w[0]) == key(w[1])).count() as u64
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Pearson's chi-square of the histogram of `window` against a flat one.
pub(crate) fn bucket_chi_square(values: &[u64], window: Window) -> f64 {
    let buckets = 1usize << window.bits;
    let mut counts = vec![0u32; buckets];
    let mask = low_mask(window.bits);
    for &v in values {
        counts[((v >> window.offset) & mask) as usize] += 1;
    }
    let expected = values.len() as f64 / buckets as f64;
    counts
        .iter()
        .map(|&c| {
            let d = c as f64 - expected;
            d * d
        })
        .sum::<f64>()
        / expected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_widths_follow_the_key_count() {
        // 2^16 values of 64 bits: 100 collisions expected at 2^31/100 ≈ 2^24.4 bins → 24 bits.
        assert_eq!(windows(1 << 16, 64), (Some(24), Some(13)));
        // A 32-bit hash with millions of keys: the collision window stays below 32.
        assert_eq!(windows(1 << 22, 32).0, Some(31));
        // Too few keys for buckets.
        assert_eq!(windows(100, 64).1, None);
    }

    #[test]
    fn chi_square_of_flat_and_lumpy_histograms() {
        let flat: Vec<u64> = (0..1024u64).collect();
        let window = Window { offset: 0, bits: 8 };
        assert_eq!(bucket_chi_square(&flat, window), 0.0);
        let lumpy: Vec<u64> = (0..1024u64).map(|v| v & 0x7f).collect();
        // Half the 256 buckets hold 8, half hold 0, against 4 expected: 256 · 16 / 4.
        assert_eq!(bucket_chi_square(&lumpy, window), 1024.0);
    }

    #[test]
    fn a_constant_list_fails_and_random_values_pass() {
        let mut constant = Findings::default();
        analyze(&vec![7u64; 5000], 64, Values::Hashes, &mut constant);
        assert!(constant.worst.unwrap().p_value < 1e-100);

        // Random values: nothing to see.
        use rand_chacha::rand_core::RngCore;
        let mut rng = crate::keys::stream(1, 2, 3);
        let mut spread = Findings::default();
        let values: Vec<u64> = (0..5000).map(|_| rng.next_u64()).collect();
        analyze(&values, 64, Values::Hashes, &mut spread);
        let worst = spread.worst.unwrap();
        assert_eq!(spread.p_values.len(), 1 + 2 + (64 - 9 + 1));
        assert!(worst.p_value > 1e-6, "{worst:?}");
    }
}
