//! Tests that flip one bit of the input (or of the key) and watch the output:
//! avalanche (strict avalanche criterion) and bit independence (BIC).

use rand_chacha::rand_core::RngCore;
use rayon::prelude::*;

use crate::keys::{flip_bit, stream};
use crate::statistic::{Findings, Measure, Statistic};
use crate::stats::independence_chi_square;
use crate::subject::{first_u64, first_words, Secret, Subject, Worker};

/// Keys are drawn in blocks of this many, one random stream per block, so the
/// work splits across threads without changing which keys are drawn.
pub(crate) const BLOCK: usize = 64;

/// Flip counts per (input bit, output bit) cell, row-major by input bit.
struct FlipCounts {
    counts: Vec<u32>,
    output_bits: usize,
}

impl FlipCounts {
    fn new(input_bits: usize, output_bits: usize) -> FlipCounts {
        FlipCounts {
            counts: vec![0; input_bits * output_bits],
            output_bits,
        }
    }

    fn record(&mut self, input_bit: usize, base: &[u64; 4], flipped: &[u64; 4]) {
        let row = &mut self.counts[input_bit * self.output_bits..][..self.output_bits];
        for word in 0..4 {
            let mut changed = base[word] ^ flipped[word];
            while changed != 0 {
                let bit = word * 64 + changed.trailing_zeros() as usize;
                if bit >= row.len() {
                    break;
                }
                row[bit] += 1;
                changed &= changed - 1;
            }
        }
    }

    fn add(mut self, other: FlipCounts) -> FlipCounts {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
        self
    }

    fn into_findings(self, trials: u64, hashes: u64) -> Findings {
        let mut findings = Findings {
            hashes,
            ..Findings::default()
        };
        for (cell, &flips) in self.counts.iter().enumerate() {
            findings.add(Statistic::new(Measure::Bias {
                trials,
                flips: u64::from(flips),
                input_bit: cell / self.output_bits,
                output_bit: cell % self.output_bits,
            }));
        }
        findings
    }
}

/// Strict avalanche criterion: every output bit should flip with probability
/// 1/2 whenever any one input bit flips. One statistic per (input bit, output
/// bit) cell: the number of flips out of `reps` random keys.
pub(crate) fn avalanche(
    subject: &Subject,
    key_bytes: usize,
    reps: usize,
    seed: u64,
    test: u64,
) -> Findings {
    let input_bits = key_bytes * 8;
    let output_bits = subject.avalanche_bits();
    let blocks = reps.div_ceil(BLOCK) as u64;
    let counts = (0..blocks)
        .into_par_iter()
        .fold(
            || {
                (
                    subject.worker(),
                    FlipCounts::new(input_bits, output_bits),
                    vec![0u8; key_bytes],
                )
            },
            |(mut worker, mut counts, mut key), block| {
                let mut rng = stream(seed, test, block);
                for _ in 0..BLOCK {
                    rng.fill_bytes(&mut key);
                    let base = worker.hash256(&key);
                    for bit in 0..input_bits {
                        flip_bit(&mut key, bit);
                        let flipped = worker.hash256(&key);
                        flip_bit(&mut key, bit);
                        counts.record(bit, &base, &flipped);
                    }
                }
                (worker, counts, key)
            },
        )
        .map(|(_, counts, _)| counts)
        .reduce(|| FlipCounts::new(input_bits, output_bits), FlipCounts::add);
    let trials = blocks * BLOCK as u64;
    counts.into_findings(trials, trials * (input_bits as u64 + 1))
}

/// The avalanche criterion for the key of a keyed hash or the seed of a
/// seeded one: flip one bit of it, keep the message, and every output bit
/// should flip with probability 1/2.
pub(crate) fn secret_avalanche(
    subject: &Subject,
    secret: Secret,
    message_bytes: usize,
    reps: usize,
    seed: u64,
    test: u64,
) -> Findings {
    let secret_len = subject
        .secret_len(secret)
        .expect("key and seed tests are planned for subjects that take them only");
    let input_bits = secret_len * 8;
    let output_bits = subject.avalanche_bits();
    let blocks = reps.div_ceil(BLOCK) as u64;
    let secret_hash = |bytes: &[u8], message: &[u8]| {
        let hasher = subject
            .with_secret(secret, bytes)
            .expect("the backend took such a key or seed when the subject was made");
        first_words(Worker::new(hasher).hash(message))
    };
    let counts = (0..blocks)
        .into_par_iter()
        .fold(
            || {
                (
                    FlipCounts::new(input_bits, output_bits),
                    vec![0u8; secret_len],
                    vec![0u8; message_bytes],
                )
            },
            |(mut counts, mut bytes, mut message), block| {
                let mut rng = stream(seed, test, block);
                for _ in 0..BLOCK {
                    rng.fill_bytes(&mut bytes);
                    rng.fill_bytes(&mut message);
                    let base = secret_hash(&bytes, &message);
                    for bit in 0..input_bits {
                        flip_bit(&mut bytes, bit);
                        let flipped = secret_hash(&bytes, &message);
                        flip_bit(&mut bytes, bit);
                        counts.record(bit, &base, &flipped);
                    }
                }
                (counts, bytes, message)
            },
        )
        .map(|(counts, _, _)| counts)
        .reduce(|| FlipCounts::new(input_bits, output_bits), FlipCounts::add);
    let trials = blocks * BLOCK as u64;
    counts.into_findings(trials, trials * (input_bits as u64 + 1))
}

/// Bit independence criterion: when one input bit flips, whether output bit j
/// flips should tell nothing about whether output bit k flips. One statistic
/// per (input bit, output bit pair): chi-square of the 2×2 table of
/// (j flipped, k flipped) over `reps` random keys, on the first 64 output bits.
pub(crate) fn bit_independence(
    subject: &Subject,
    key_bytes: usize,
    reps: usize,
    seed: u64,
    test: u64,
) -> Findings {
    independence(
        subject,
        key_bytes,
        key_bytes * 8,
        reps,
        (seed, test),
        || subject.worker(),
        |worker, key| worker.hash64(key),
    )
}

/// The bit independence criterion for the seed bits of a seeded hash: a
/// random seed and message per trial, one seed bit flipped at a time.
pub(crate) fn seed_bit_independence(
    subject: &Subject,
    message_bytes: usize,
    reps: usize,
    seed: u64,
    test: u64,
) -> Findings {
    let seed_len = subject
        .seed_len
        .expect("seed tests are planned for seeded subjects only");
    independence(
        subject,
        seed_len + message_bytes,
        seed_len * 8,
        reps,
        (seed, test),
        || (),
        |_, input| {
            let (seed_bytes, message) = input.split_at(seed_len);
            let hasher = subject
                .with_secret(Secret::Seed, seed_bytes)
                .expect("the backend took a seed when the subject was made");
            first_u64(Worker::new(hasher).hash(message))
        },
    )
}

/// The BIC over random `input_bytes`-byte inputs, flipping each of their
/// first `flip_bits` bits; `hash` maps an input to its first 64 output bits
/// with per-thread state from `init`.
fn independence<S>(
    subject: &Subject,
    input_bytes: usize,
    flip_bits: usize,
    reps: usize,
    (seed, test): (u64, u64),
    init: impl Fn() -> S + Sync + Send,
    hash: impl Fn(&mut S, &[u8]) -> u64 + Sync + Send,
) -> Findings
where
    S: Send,
{
    let key_bytes = input_bytes;
    let input_bits = flip_bits;
    let width = subject.keyset_bits() as usize;
    let pairs = width * (width - 1) / 2;
    let blocks = reps.div_ceil(BLOCK) as u64;

    struct Tally {
        /// Per (input bit, output bit): how often it flipped.
        ones: Vec<u32>,
        /// Per (input bit, output pair j < k): how often both flipped.
        both: Vec<u32>,
    }
    let empty = || Tally {
        ones: vec![0; input_bits * width],
        both: vec![0; input_bits * pairs],
    };
    let tally = (0..blocks)
        .into_par_iter()
        .fold(
            || {
                (
                    init(),
                    empty(),
                    vec![0u8; key_bytes],
                    vec![0u64; input_bits * BLOCK],
                )
            },
            |(mut state, mut tally, mut key, mut changes), block| {
                let mut rng = stream(seed, test, block);
                for rep in 0..BLOCK {
                    rng.fill_bytes(&mut key);
                    let base = hash(&mut state, &key);
                    for bit in 0..input_bits {
                        flip_bit(&mut key, bit);
                        changes[bit * BLOCK + rep] = hash(&mut state, &key) ^ base;
                        flip_bit(&mut key, bit);
                    }
                }
                // Transposed, column j holds one bit per rep: whether output
                // bit j flipped. Pairs then cost one AND and one popcount per
                // 64 reps instead of a loop over every pair of set bits.
                let mut columns = [0u64; 64];
                for bit in 0..input_bits {
                    columns.fill(0);
                    for (rep, &change) in changes[bit * BLOCK..][..BLOCK].iter().enumerate() {
                        let mut rest = change;
                        while rest != 0 {
                            columns[rest.trailing_zeros() as usize] |= 1 << rep;
                            rest &= rest - 1;
                        }
                    }
                    let ones = &mut tally.ones[bit * width..][..width];
                    for (count, column) in ones.iter_mut().zip(&columns) {
                        *count += column.count_ones();
                    }
                    let both = &mut tally.both[bit * pairs..][..pairs];
                    let mut pair = 0;
                    for j in 0..width {
                        for k in j + 1..width {
                            both[pair] += (columns[j] & columns[k]).count_ones();
                            pair += 1;
                        }
                    }
                }
                (state, tally, key, changes)
            },
        )
        .map(|(_, tally, _, _)| tally)
        .reduce(empty, |mut a, b| {
            a.ones.iter_mut().zip(b.ones).for_each(|(x, y)| *x += y);
            a.both.iter_mut().zip(b.both).for_each(|(x, y)| *x += y);
            a
        });

    let trials = blocks * BLOCK as u64;
    let mut findings = Findings {
        hashes: trials * (input_bits as u64 + 1),
        ..Findings::default()
    };
    for bit in 0..input_bits {
        let ones = &tally.ones[bit * width..][..width];
        let both = &tally.both[bit * pairs..][..pairs];
        let mut pair = 0;
        for j in 0..width {
            for k in j + 1..width {
                let n11 = u64::from(both[pair]);
                let n10 = u64::from(ones[j]) - n11;
                let n01 = u64::from(ones[k]) - n11;
                let n00 = trials - n11 - n10 - n01;
                findings.add(Statistic::new(Measure::Dependence {
                    trials,
                    chi_square: independence_chi_square(n11, n10, n01, n00),
                    input_bit: bit,
                    output_bits: [j, k],
                }));
                pair += 1;
            }
        }
    }
    findings
}
