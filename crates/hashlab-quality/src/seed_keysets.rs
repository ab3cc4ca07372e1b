//! SMHasher3's keysets that vary the seed: PerlinNoise (tests/PerlinNoiseTest.cpp),
//! SeedSparse (tests/SeedSparseTest.cpp), Seed (tests/SeedTest.cpp) and
//! SeedBitflip (tests/SeedBitflipTest.cpp). Each hashes a message under a
//! structured family of seeds and reads the hashes and their differences as
//! SMHasher3's `testDeltas` does; a seed mixed in linearly or too late
//! repeats values or differences.

use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::analyze;
use crate::keys::{binomial_sum, distinct_keys, stream};
use crate::keysets::{grid_findings, keyset_findings};
use crate::statistic::{Findings, Values};
use crate::subject::{Secret, Subject, Worker};

/// SMHasher3's SeedSparse and Seed key lengths.
pub const SEED_KEY_LENGTHS: [usize; 10] = [2, 3, 6, 15, 18, 31, 52, 80, 200, 1025];
const SPHINX: &[u8] = b"Sphinx of black quartz, judge my vow";
const FOX: &[u8] = b"The quick brown fox jumps over the lazy dog";

/// One seed-keyset test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SeedKeys {
    /// PerlinNoise: the key holding x (little-endian, `key_bytes` long)
    /// under seed y, for every x below 2^`x_bits` and y below 2^`y_bits`;
    /// the hashes as a grid of rows of one seed, with row and column
    /// differences (SMHasher3: 2-byte keys, 12 × 12 bits).
    Perlin {
        key_bytes: usize,
        x_bits: u32,
        y_bits: u32,
    },
    /// SeedSparse: "Sphinx of black quartz, judge my vow" repeated to
    /// `key_bytes`, under the zero seed and every seed with 1 to
    /// `max_set_64` bits set (a 32-bit seed: 2 more, as SMHasher3's 5 and
    /// 7), each weight in increasing numeric order; the hashes and their
    /// successive differences.
    Sparse { key_bytes: usize, max_set_64: usize },
    /// Seed: "The quick brown fox jumps over the lazy dog" repeated to
    /// `key_bytes`, under 2^`seed_bits` seeds whose low half and top half
    /// bits count through every value (SMHasher3: 22 bits); the hashes as a
    /// grid, a row per top-half value.
    Grid { key_bytes: usize, seed_bits: u32 },
    /// SeedBitflip: per seed bit, `pairs` random `key_bytes` keys, each under
    /// a random seed and under that seed with the bit flipped; the hashes
    /// and the pair differences (SMHasher3: 3, 4 and 8 bytes, 1.5 M pairs).
    Bitflip { key_bytes: usize, pairs: usize },
}

impl SeedKeys {
    pub fn describe(&self) -> String {
        match *self {
            SeedKeys::Perlin {
                key_bytes,
                x_bits,
                y_bits,
            } => format!(
                "{key_bytes}-byte keys 0 to 2^{x_bits} − 1 under seeds 0 to 2^{y_bits} − 1"
            ),
            SeedKeys::Sparse {
                key_bytes,
                max_set_64,
            } => format!(
                "{key_bytes}-byte text under seeds with ≤ {max_set_64} bits set (32-bit seeds: ≤ {})",
                max_set_64 + 2
            ),
            SeedKeys::Grid {
                key_bytes,
                seed_bits,
            } => format!(
                "{key_bytes}-byte text under 2^{seed_bits} seeds (low and top {} bits)",
                seed_bits / 2
            ),
            SeedKeys::Bitflip { key_bytes, pairs } => {
                format!("{key_bytes}-byte keys, one-bit seed flips × {pairs} per seed bit")
            }
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        match *self {
            SeedKeys::Perlin {
                key_bytes,
                x_bits,
                y_bits,
            } => {
                if !(1..=30).contains(&x_bits)
                    || !(1..=30).contains(&y_bits)
                    || x_bits + y_bits > 30
                {
                    return Err(format!(
                        "Perlin noise takes 1 to 30 bits of x and of y, 30 in all, not {x_bits} and {y_bits}"
                    ));
                }
                if key_bytes * 8 < x_bits as usize || key_bytes > 8 {
                    return Err(format!(
                        "Perlin noise keys of {key_bytes} bytes cannot hold {x_bits} bits"
                    ));
                }
            }
            // 6 bits of 64 are 83 M seeds, 8 of 32 (its 32-bit count) 15 M.
            SeedKeys::Sparse { max_set_64, .. } if !(1..=6).contains(&max_set_64) => {
                return Err(format!(
                    "seed-sparse seeds take 1 to 6 bits set, not {max_set_64}"
                ));
            }
            SeedKeys::Grid { seed_bits, .. } if !(2..=30).contains(&seed_bits) => {
                return Err(format!("seed grids take 2 to 30 bits, not {seed_bits}"));
            }
            SeedKeys::Bitflip { key_bytes, pairs }
                if key_bytes == 0
                    || pairs < 2
                    || (pairs as f64).log2() >= (key_bytes * 8) as f64 - 1.0 =>
            {
                return Err(format!(
                    "{pairs} distinct {key_bytes}-byte keys do not exist"
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// Hashes made for a seed of `seed_bits` bits.
    pub fn hashes(&self, seed_bits: usize) -> u64 {
        match *self {
            SeedKeys::Perlin { x_bits, y_bits, .. } => 1u64 << (x_bits + y_bits),
            SeedKeys::Sparse { max_set_64, .. } => {
                binomial_sum(seed_bits, sparse_weight(max_set_64, seed_bits)) as u64
            }
            SeedKeys::Grid { seed_bits, .. } => 1u64 << seed_bits,
            SeedKeys::Bitflip { pairs, .. } => 2 * pairs as u64 * seed_bits as u64,
        }
    }
}

fn sparse_weight(max_set_64: usize, seed_bits: usize) -> usize {
    if seed_bits > 32 {
        max_set_64
    } else {
        max_set_64 + 2
    }
}

/// `text` repeated to `len` bytes, as SMHasher3 fills its Seed keys.
fn repeated(text: &[u8], len: usize) -> Vec<u8> {
    text.iter().copied().cycle().take(len).collect()
}

/// The next larger value with as many bits set (SMHasher3's nextlex), or 0
/// past `bits` bits.
fn next_same_weight(v: u64, bits: usize) -> u64 {
    let t = v | (v - 1);
    if t == u64::MAX {
        // The top bits are all set: no larger value of this weight.
        return 0;
    }
    let next = (t + 1) | (((!t & (t + 1)) - 1) >> (v.trailing_zeros() + 1));
    if bits < 64 && next >> bits != 0 {
        0
    } else {
        next
    }
}

/// Zero, then every value of `bits` bits with 1 to `max_set` bits set, each
/// weight in increasing order.
fn sparse_seeds(bits: usize, max_set: usize) -> Vec<u64> {
    let mut seeds = vec![0];
    for weight in 1..=max_set.min(bits) {
        let mut v = if weight == 64 {
            u64::MAX
        } else {
            (1u64 << weight) - 1
        };
        while v != 0 {
            seeds.push(v);
            v = next_same_weight(v, bits);
        }
    }
    seeds
}

fn seeded(subject: &Subject, seed: u64) -> Worker {
    let len = subject
        .seed_len
        .expect("seed tests are planned for seeded subjects only");
    Worker::new(
        subject
            .with_secret(Secret::Seed, &seed.to_le_bytes()[..len])
            .expect("the backend took a seed when the subject was made"),
    )
}

/// Runs one seed-keyset test.
pub(crate) fn seed_keys(subject: &Subject, set: SeedKeys, seed: u64, test: u64) -> Findings {
    let seed_bits = subject
        .seed_len
        .expect("seed tests are planned for seeded subjects only")
        * 8;
    match set {
        SeedKeys::Perlin {
            key_bytes,
            x_bits,
            y_bits,
        } => {
            let hashes: Vec<u64> = (0..1u64 << y_bits)
                .into_par_iter()
                .flat_map_iter(|y| {
                    let mut worker = seeded(subject, y);
                    (0..1u64 << x_bits)
                        .map(|x| worker.hash64(&x.to_le_bytes()[..key_bytes]))
                        .collect::<Vec<u64>>()
                })
                .collect();
            grid_findings(subject, &hashes, 1 << x_bits)
        }
        SeedKeys::Sparse {
            key_bytes,
            max_set_64,
        } => {
            let message = repeated(SPHINX, key_bytes);
            let hashes: Vec<u64> = sparse_seeds(seed_bits, sparse_weight(max_set_64, seed_bits))
                .par_iter()
                .with_min_len(256)
                .map(|&s| seeded(subject, s).hash64(&message))
                .collect();
            keyset_findings(subject, &hashes, true)
        }
        SeedKeys::Grid {
            key_bytes,
            seed_bits: bits,
        } => {
            let message = repeated(FOX, key_bytes);
            let high = bits / 2;
            let low = bits - high;
            let shift = seed_bits as u32 - high;
            let hashes: Vec<u64> = (0..1u64 << high)
                .into_par_iter()
                .flat_map_iter(|i| {
                    let message = &message;
                    (0..1u64 << low).map(move |j| seeded(subject, (i << shift) + j).hash64(message))
                })
                .collect();
            grid_findings(subject, &hashes, 1 << low)
        }
        SeedKeys::Bitflip { key_bytes, pairs } => {
            let width = subject.keyset_bits();
            let seed_len = seed_bits / 8;
            let per_bit: Vec<Findings> = (0..seed_bits)
                .into_par_iter()
                .map(|bit| {
                    let mut rng = stream(seed, test, bit as u64);
                    let keys = distinct_keys(&mut rng, key_bytes, pairs, |_| {});
                    // Seeds with the bit clear, distinct: a seed and its
                    // partner would give one pair twice.
                    let seeds = distinct_keys(&mut rng, seed_len, pairs, |s| {
                        s[bit / 8] &= !(1 << (bit % 8))
                    });
                    let mut hashes = Vec::with_capacity(2 * pairs);
                    for (key, s) in keys.chunks(key_bytes).zip(seeds.chunks(seed_len)) {
                        let mut bytes = [0u8; 8];
                        bytes[..seed_len].copy_from_slice(s);
                        let s = u64::from_le_bytes(bytes);
                        hashes.push(seeded(subject, s).hash64(key));
                        hashes.push(seeded(subject, s ^ (1 << bit)).hash64(key));
                    }
                    let mut findings = keyset_findings(subject, &hashes, false);
                    let differences: Vec<u64> = hashes.chunks(2).map(|p| p[0] ^ p[1]).collect();
                    analyze(
                        &differences,
                        width,
                        Values::SeedBitDifferences { seed_bit: bit },
                        &mut findings,
                    );
                    findings
                })
                .collect();
            let mut findings = Findings::default();
            for f in per_bit {
                findings.merge(f);
            }
            findings
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_seeds_follow_smhasher3s_order_and_count() {
        let seeds = sparse_seeds(8, 2);
        assert_eq!(seeds.len(), binomial_sum(8, 2));
        assert_eq!(&seeds[..5], &[0, 1, 2, 4, 8]);
        assert_eq!(&seeds[9..12], &[3, 5, 6]);
        assert_eq!(*seeds.last().unwrap(), 0xc0);
        assert_eq!(sparse_seeds(64, 3).len(), binomial_sum(64, 3));
        assert_eq!(*sparse_seeds(64, 1).last().unwrap(), 1 << 63);
        assert_eq!(sparse_seeds(32, 7).len(), 4_514_873);
    }

    #[test]
    fn keys_are_smhasher3s_texts() {
        assert_eq!(
            repeated(SPHINX, 40),
            b"Sphinx of black quartz, judge my vowSphi"
        );
        assert_eq!(repeated(FOX, 3), b"The");
        assert!(SeedKeys::Perlin {
            key_bytes: 1,
            x_bits: 12,
            y_bits: 12
        }
        .check()
        .is_err());
        assert_eq!(
            SeedKeys::Sparse {
                key_bytes: 2,
                max_set_64: 5
            }
            .hashes(32),
            4_514_873
        );
    }
}
