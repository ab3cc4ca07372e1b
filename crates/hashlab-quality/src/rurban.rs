//! The four test families of rurban's SMHasher (github.com/rurban/smhasher,
//! read at commit 1edbcfae32d451de9c18245d79db5b0dcc984922) that SMHasher3
//! does not have: Window (KeysetTest.h `WindowedKeyTest`), MomentChi2
//! (main.cpp `MomentChi2Test`), Prng (KeysetTest.h `PrngTest`) and
//! LongNeighbors (Henning Makholm's LongNeighborTest.md, whose code rurban
//! leaves out for its licence; this one is written from the description).
//! Key sets, lengths and counts follow his where the budget allows; the
//! statistics are this crate's (analysis.rs, and an exact null distribution
//! for the moments where rurban compares with fixed constants and a
//! threshold of 500).

use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::{analyze, TARGET_COLLISIONS};
use crate::keys::stream;
use crate::statistic::{Findings, Measure, Statistic, Values, Window};
use crate::stats::expected_collisions;
use crate::subject::{first_u64, Subject};
use rand_chacha::rand_core::RngCore;

/// Keys handed to a thread at a time.
const CHUNK: usize = 4096;

/// The width in bits of the Window test's key for a hash of `output_bits`:
/// 32 bits for 64-bit and wider hashes, else twice the output and 2 more,
/// in whole bytes (72 bits for a 32-bit hash), as rurban's main.cpp sizes it.
pub(crate) fn window_key_bits(output_bits: usize) -> usize {
    if output_bits >= 64 {
        32
    } else {
        (2 * output_bits + 2).div_ceil(8) * 8
    }
}

/// rurban's 'Window' keyset: for each position p of a `key_bits`-bit key,
/// the 2^`bits` keys holding every value of a `bits`-bit window that starts
/// at bit p (rotated: a window past the top wraps to bit 0), every other bit
/// zero. A hash that mixes some key bits weakly collides or clusters for
/// the windows over them. rurban also tests position `key_bits`, the same
/// keys as position 0; here each position is tested once.
pub(crate) fn window(subject: &Subject, key_bits: usize, bits: u32) -> Findings {
    let width = subject.keyset_bits();
    let key_bytes = key_bits / 8;
    let mask = if key_bits >= 128 {
        u128::MAX
    } else {
        (1u128 << key_bits) - 1
    };
    let mut findings = Findings::default();
    for position in 0..key_bits {
        let hashes: Vec<u64> = (0..1usize << bits)
            .into_par_iter()
            .with_min_len(CHUNK)
            .map_init(
                || subject.worker(),
                |worker, value| {
                    let v = value as u128;
                    let rotated = if position == 0 {
                        v
                    } else {
                        ((v << position) | (v >> (key_bits - position))) & mask
                    };
                    worker.hash64(&rotated.to_le_bytes()[..key_bytes])
                },
            )
            .collect();
        findings.hashes += hashes.len() as u64;
        analyze(
            &hashes,
            width,
            Values::KeyWindow { position },
            &mut findings,
        );
    }
    findings
}

/// Mean and variance of X^5 for X, the number of ones among `bits` fair
/// coin flips: the popcount of a random value of that width, as
/// MomentChi2 sums it (rurban's constants are these, rounded, for 32 and
/// 64 bits: 1391290 and 38918200). (bits − X)^5, the zeros' moment, has the
/// same distribution.
pub(crate) fn fifth_power_moments(bits: u32) -> (f64, f64) {
    let total = (bits as f64).exp2();
    let mut choose = 1.0f64;
    let (mut m5, mut m10) = (0.0f64, 0.0f64);
    for k in 0..=bits {
        let p = choose / total;
        let x5 = (k as f64).powi(5);
        m5 += p * x5;
        m10 += p * x5 * x5;
        choose = choose * (bits - k) as f64 / (k + 1) as f64;
    }
    (m5, m10 - m5 * m5)
}

/// Sums of the fifth powers of popcounts over one block of MomentChi2.
#[derive(Default, Clone, Copy)]
struct PowerSums {
    ones: u128,
    zeros: u128,
    difference_ones: u128,
    difference_zeros: u128,
}

fn fifth(x: u32) -> u128 {
    u128::from(x).pow(5)
}

/// The MomentChi2 key of integer `i`: its little-endian bytes, the first
/// `key_bytes` of them (zero past 8), as rurban copies a 64-bit counter.
fn counter_key(i: u64, key: &mut [u8]) {
    let bytes = i.to_le_bytes();
    let n = key.len().min(8);
    key[..n].copy_from_slice(&bytes[..n]);
}

/// rurban's 'MomentChi2': the integers 0, step, 2·step, ... below 2^32 as
/// `key_bytes`-byte keys (SMHasher: 4 bytes, step 2 or 6). For the hashes
/// and for the XOR of each with the previous one (the previous of the first
/// is the hash of 0 − step, as there), the mean of popcount⁵ and of
/// zero-count⁵ over the first 64 output bits, against its exact mean under
/// a random function: a z score each. The fifth power weighs the tails,
/// where a hash whose output barely changes between neighbouring counters
/// (a CRC's or FNV's differences) puts its mass.
pub(crate) fn moment_chi2(subject: &Subject, key_bytes: usize, step: u64) -> Findings {
    let width = subject.keyset_bits();
    let count = (1u64 << 32).div_ceil(step);
    let block = 1u64 << 16;
    let sums: Vec<PowerSums> = (0..count.div_ceil(block))
        .into_par_iter()
        .map_init(
            || (subject.worker(), vec![0u8; key_bytes]),
            |(worker, key), b| {
                let first = b * block;
                let last = (first + block).min(count);
                counter_key((first * step).wrapping_sub(step), key);
                let mut previous = worker.hash64(key);
                let mut sums = PowerSums::default();
                for n in first..last {
                    counter_key(n * step, key);
                    let h = worker.hash64(key);
                    let ones = h.count_ones();
                    let d = (h ^ previous).count_ones();
                    sums.ones += fifth(ones);
                    sums.zeros += fifth(width - ones);
                    sums.difference_ones += fifth(d);
                    sums.difference_zeros += fifth(width - d);
                    previous = h;
                }
                sums
            },
        )
        .collect();
    let total = sums.iter().fold(PowerSums::default(), |a, s| PowerSums {
        ones: a.ones + s.ones,
        zeros: a.zeros + s.zeros,
        difference_ones: a.difference_ones + s.difference_ones,
        difference_zeros: a.difference_zeros + s.difference_zeros,
    });
    let (expected, variance) = fifth_power_moments(width);
    let mut findings = Findings {
        hashes: count + count.div_ceil(block),
        ..Findings::default()
    };
    for (values, zeros, sum) in [
        (Values::Hashes, false, total.ones),
        (Values::Hashes, true, total.zeros),
        (Values::SuccessiveDifferences, false, total.difference_ones),
        (Values::SuccessiveDifferences, true, total.difference_zeros),
    ] {
        let mean = sum as f64 / count as f64;
        findings.add(Statistic::new(Measure::Moment {
            values,
            zeros,
            keys: count,
            bits: width,
            mean,
            expected,
            z: (mean - expected) / (variance / count as f64).sqrt(),
        }));
    }
    findings
}

/// rurban's 'Prng': the hash used as a generator, each output hashed again
/// as the next input (the first input all zero bytes, as long as a
/// digest): `numbers` outputs, analysed as any keyset. A hash that falls
/// into a short cycle repeats values. Only for hashes of 64 bits or more,
/// as there: a random function on 32 bits cycles within about 2^16 steps.
/// One chain, so one thread: the analysis is parallel.
pub(crate) fn prng(subject: &Subject, numbers: usize) -> Findings {
    let mut worker = subject.worker();
    let mut state = vec![0u8; subject.output_len];
    let mut values = Vec::with_capacity(numbers);
    for _ in 0..numbers {
        let next = worker.hash(&state);
        values.push(first_u64(next));
        state.copy_from_slice(next);
    }
    let mut findings = Findings {
        hashes: numbers as u64,
        ..Findings::default()
    };
    analyze(
        &values,
        subject.keyset_bits(),
        Values::Hashes,
        &mut findings,
    );
    findings
}

/// The LongNeighbors test's messages: base messages of every length in a
/// range (all zero bytes, all ones, random ones), and for each base its
/// near neighbours, which should never collide with each other more often
/// than random values would.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LongNeighbors {
    /// Shortest and longest base message (rurban: 10 to 300 bytes).
    pub min_bytes: usize,
    pub max_bytes: usize,
    /// Every how many bytes a length is tested (1: every length).
    pub length_step: usize,
    /// Random bases per length beside the all-zero and all-ones ones
    /// (rurban: 3).
    pub random_bases: usize,
    /// Pairs of flipped bits within the last this many bits (rurban: 2048).
    pub two_bit_range: usize,
    /// Triples of flipped bits within the last this many bits (rurban: 160).
    pub three_bit_range: usize,
    /// The base with 1 to this many zero bytes appended, each with every
    /// one-bit flip in its last 64 bits (rurban appends zeroes and flips 2).
    pub appended: usize,
}

/// Bits from the end of the message that appended-zero variants flip.
const APPENDED_FLIP_RANGE: usize = 64;

fn choose(n: usize, k: usize) -> u64 {
    (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i + 1) as u64)
}

impl LongNeighbors {
    fn lengths(&self) -> impl Iterator<Item = usize> {
        (self.min_bytes..=self.max_bytes).step_by(self.length_step.max(1))
    }

    fn bases_per_length(&self) -> usize {
        2 + self.random_bases
    }

    /// Variants of one base message of `len` bytes, itself included.
    pub fn variants(&self, len: usize) -> u64 {
        let bits = 8 * len;
        let appended: u64 = (1..=self.appended)
            .map(|z| 1 + (8 * (len + z)).min(APPENDED_FLIP_RANGE) as u64)
            .sum();
        1 + bits as u64
            + choose(self.two_bit_range.min(bits), 2)
            + choose(self.three_bit_range.min(bits), 3)
            + appended
    }

    /// Messages hashed in all.
    pub fn keys(&self) -> u64 {
        self.lengths()
            .map(|len| self.variants(len) * self.bases_per_length() as u64)
            .sum()
    }

    pub fn describe(&self) -> String {
        format!(
            "{} to {} bytes{} ({} bases each): 1-bit flips, 2 in the last {} bits, 3 in the last {}, 1-{} zero bytes appended × {}",
            self.min_bytes,
            self.max_bytes,
            if self.length_step > 1 {
                format!(" every {}", self.length_step)
            } else {
                String::new()
            },
            self.bases_per_length(),
            self.two_bit_range,
            self.three_bit_range,
            self.appended,
            self.keys()
        )
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        if self.min_bytes == 0 || self.min_bytes > self.max_bytes {
            return Err(format!(
                "long-neighbour lengths {} to {} are not a range of messages",
                self.min_bytes, self.max_bytes
            ));
        }
        if self.length_step == 0 {
            return Err("long-neighbour length step must be at least 1".into());
        }
        // Each base's random stream is named len · 64 + kind (kinds 0 and
        // 1 are the zero and ones bases).
        if self.random_bases > 62 {
            return Err(format!(
                "{} random long-neighbour bases per length are too many (62 at most)",
                self.random_bases
            ));
        }
        if self.three_bit_range > 4096 || self.two_bit_range > 1 << 16 {
            return Err("long-neighbour flip ranges are too wide".into());
        }
        Ok(())
    }
}

/// Flips bit `from_end` of `message`, counting from the last bit (bit 0 of
/// the last byte) backwards.
fn flip_from_end(message: &mut [u8], from_end: usize) {
    let len = message.len();
    message[len - 1 - from_end / 8] ^= 1 << (from_end % 8);
}

/// The hashes of every variant of one base message (the base, every one-bit
/// flip, flips of 2 and 3 bits near the end, zero bytes appended).
fn neighbour_hashes(subject: &Subject, set: &LongNeighbors, base: &[u8]) -> Vec<u64> {
    let mut worker = subject.worker();
    let len = base.len();
    let bits = 8 * len;
    let mut out = Vec::with_capacity(set.variants(len) as usize);
    let mut message = base.to_vec();
    out.push(worker.hash64(&message));
    for a in 0..bits {
        flip_from_end(&mut message, a);
        out.push(worker.hash64(&message));
        flip_from_end(&mut message, a);
    }
    let two = set.two_bit_range.min(bits);
    for a in 0..two {
        flip_from_end(&mut message, a);
        for b in a + 1..two {
            flip_from_end(&mut message, b);
            out.push(worker.hash64(&message));
            flip_from_end(&mut message, b);
        }
        flip_from_end(&mut message, a);
    }
    let three = set.three_bit_range.min(bits);
    for a in 0..three {
        flip_from_end(&mut message, a);
        for b in a + 1..three {
            flip_from_end(&mut message, b);
            for c in b + 1..three {
                flip_from_end(&mut message, c);
                out.push(worker.hash64(&message));
                flip_from_end(&mut message, c);
            }
            flip_from_end(&mut message, b);
        }
        flip_from_end(&mut message, a);
    }
    for zeroes in 1..=set.appended {
        message.push(0);
        out.push(worker.hash64(&message));
        for a in 0..(8 * message.len()).min(APPENDED_FLIP_RANGE) {
            flip_from_end(&mut message, a);
            out.push(worker.hash64(&message));
            flip_from_end(&mut message, a);
        }
        debug_assert_eq!(message.len(), len + zeroes);
    }
    out
}

/// Values equal to their predecessor in a sorted list, after `key`.
fn repeats(sorted: &[u64], key: impl Fn(u64) -> u64) -> u64 {
    sorted.windows(2).filter(|w| key(w[0]) == key(w[1])).count() as u64
}

/// Low `bits` bits set.
fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// rurban's 'LongNeighbors' (Henning Makholm's method): collisions among
/// messages of low Hamming distance from each other, which SpookyHash V2
/// has for lengths that end in a partial block. Per base message, its
/// variants are hashed and the collisions among them counted (in all the
/// bits, and in the top and bottom windows where about 100 are expected
/// over the whole test); the counts of every base add up to one Poisson
/// statistic each, as rurban compares his count of "bad bases" with the
/// expected one. Parallel over bases, each base's keys fixed by the run's
/// seed and its length, so the sums do not depend on the threads.
pub(crate) fn long_neighbors(
    subject: &Subject,
    set: &LongNeighbors,
    seed: u64,
    test: u64,
) -> Findings {
    let width = subject.keyset_bits();
    let bases: Vec<(usize, usize)> = set
        .lengths()
        .flat_map(|len| (0..set.bases_per_length()).map(move |kind| (len, kind)))
        .collect();
    let expected_at = |bits: u32| -> f64 {
        bases
            .iter()
            .map(|&(len, _)| expected_collisions(set.variants(len), bits))
            .sum()
    };
    let window = (8..width)
        .rev()
        .find(|&bits| expected_at(bits) >= TARGET_COLLISIONS);
    let counts: Vec<[u64; 3]> = bases
        .par_iter()
        .map(|&(len, kind)| {
            let base = match kind {
                0 => vec![0u8; len],
                1 => vec![0xffu8; len],
                _ => {
                    let mut bytes = vec![0u8; len];
                    stream(seed, test, (len * 64 + kind) as u64).fill_bytes(&mut bytes);
                    bytes
                }
            };
            let mut hashes = neighbour_hashes(subject, set, &base);
            let mask = low_mask(width);
            hashes.iter_mut().for_each(|h| *h &= mask);
            hashes.sort_unstable();
            let full = repeats(&hashes, |v| v);
            let Some(bits) = window else {
                return [full, 0, 0];
            };
            let shift = width - bits;
            let top = repeats(&hashes, |v| v >> shift);
            let low_bits = low_mask(bits);
            hashes.iter_mut().for_each(|h| *h &= low_bits);
            hashes.sort_unstable();
            [full, top, repeats(&hashes, |v| v)]
        })
        .collect();
    let sum = |i: usize| counts.iter().map(|c| c[i]).sum::<u64>();
    let keys = set.keys();
    let mut findings = Findings {
        hashes: keys,
        ..Findings::default()
    };
    let mut add = |window: Window, observed: u64| {
        findings.add(Statistic::new(Measure::Collisions {
            values: Values::Neighbours,
            keys,
            window,
            expected: expected_at(window.bits),
            observed,
        }));
    };
    add(
        Window {
            offset: 0,
            bits: width,
        },
        sum(0),
    );
    if let Some(bits) = window {
        add(
            Window {
                offset: width - bits,
                bits,
            },
            sum(1),
        );
        add(Window { offset: 0, bits }, sum(2));
    }
    findings
}

#[cfg(test)]
mod tests;
