//! Tests that hash a whole set of related keys and look at the values:
//! sparse keys, cyclic keys, differential pairs, hash-table keys, and keys of
//! a keyed hash.

use rand_chacha::rand_core::RngCore;
use rayon::prelude::*;

use crate::analysis::analyze;
use crate::keys::{distinct_keys, flip_bit, sparse_key, sparse_positions, stream, TableKeys};
use crate::statistic::{Findings, Measure, Statistic, Values};
use crate::subject::{first_u64, Secret, Subject, Worker};

/// Work items handed to a thread at a time: enough to amortise the hasher copy.
const CHUNK: usize = 1024;

fn successive_differences(hashes: &[u64]) -> Vec<u64> {
    hashes.windows(2).map(|w| w[0] ^ w[1]).collect()
}

pub(crate) fn keyset_findings(
    subject: &Subject,
    hashes: &[u64],
    with_differences: bool,
) -> Findings {
    let width = subject.keyset_bits();
    let mut findings = Findings {
        hashes: hashes.len() as u64,
        ..Findings::default()
    };
    analyze(hashes, width, Values::Hashes, &mut findings);
    if with_differences {
        analyze(
            &successive_differences(hashes),
            width,
            Values::SuccessiveDifferences,
            &mut findings,
        );
    }
    findings
}

/// The hashes as a grid of rows of `row` (whole rows only), as SMHasher3's
/// `testDeltas(row)` reads them: the values, the differences along each row
/// (cyclic in the row) and the differences down each column (cyclic over
/// the grid).
pub(crate) fn grid_findings(subject: &Subject, hashes: &[u64], row: usize) -> Findings {
    let width = subject.keyset_bits();
    let mut findings = keyset_findings(subject, hashes, false);
    let along: Vec<u64> = hashes
        .par_chunks(row)
        .flat_map_iter(|r| (0..r.len()).map(move |i| r[i] ^ r[(i + 1) % r.len()]))
        .collect();
    analyze(&along, width, Values::RowDifferences { row }, &mut findings);
    let down: Vec<u64> = (0..hashes.len())
        .into_par_iter()
        .map(|i| hashes[i] ^ hashes[(i + row) % hashes.len()])
        .collect();
    analyze(
        &down,
        width,
        Values::ColumnDifferences { row },
        &mut findings,
    );
    findings
}

/// Every key of `key_bytes` bytes with at most `max_set` bits set: weak
/// mixing shows up as collisions among these near-zero keys, and linearity
/// as repeated differences between successive ones. Keys of up to 24 bits go
/// in numeric order (a 3-byte keyset with up to 20 bits set is nearly every
/// 3-byte key, too many to list); longer ones by weight, then lexicographically
/// by the positions of their set bits.
pub(crate) fn sparse(subject: &Subject, key_bytes: usize, max_set: usize) -> Findings {
    let hashes: Vec<u64> = if key_bytes <= 3 {
        let chunks: Vec<Vec<u64>> = (0..(1u64 << (key_bytes * 8)).div_ceil(CHUNK as u64 * 64))
            .into_par_iter()
            .map_init(
                || subject.worker(),
                |worker, chunk| {
                    let start = chunk * CHUNK as u64 * 64;
                    let end = (start + CHUNK as u64 * 64).min(1u64 << (key_bytes * 8));
                    (start..end)
                        .filter(|v| v.count_ones() as usize <= max_set)
                        .map(|v| worker.hash64(&v.to_le_bytes()[..key_bytes]))
                        .collect()
                },
            )
            .collect();
        chunks.concat()
    } else {
        sparse_positions(key_bytes * 8, max_set)
            .par_chunks(max_set)
            .with_min_len(CHUNK)
            .map_init(
                || (subject.worker(), vec![0u8; key_bytes]),
                |(worker, key), positions| {
                    sparse_key(positions, key);
                    worker.hash64(key)
                },
            )
            .collect()
    };
    keyset_findings(subject, &hashes, true)
}

/// Keys made of one random block of `cycle_bytes` repeated `repeats` times.
pub(crate) fn cyclic(
    subject: &Subject,
    cycle_bytes: usize,
    repeats: usize,
    keys: usize,
    seed: u64,
    test: u64,
) -> Findings {
    let blocks = distinct_keys(&mut stream(seed, test, 0), cycle_bytes, keys, |_| {});
    let hashes: Vec<u64> = blocks
        .par_chunks(cycle_bytes)
        .with_min_len(CHUNK)
        .map_init(
            || (subject.worker(), vec![0u8; cycle_bytes * repeats]),
            |(worker, key), block| {
                for part in key.chunks_mut(cycle_bytes) {
                    part.copy_from_slice(block);
                }
                worker.hash64(key)
            },
        )
        .collect();
    keyset_findings(subject, &hashes, false)
}

/// Differential test: for each input bit, `keys` distinct random keys k and
/// the differences H(k) ⊕ H(k ⊕ bit). For a good hash they look like random
/// values; a hash that is linear (CRC) gives one difference for every k.
/// Counts pairs with equal outputs too (differential collisions).
pub(crate) fn differential(
    subject: &Subject,
    key_bytes: usize,
    keys: usize,
    seed: u64,
    test: u64,
) -> Findings {
    let width = subject.keyset_bits();
    let per_bit: Vec<Findings> = (0..key_bytes * 8)
        .into_par_iter()
        .map(|bit| {
            // Keys with the bit cleared, distinct: a key and its partner
            // would give the same difference twice, a collision not of the hash's making.
            let bases = distinct_keys(&mut stream(seed, test, bit as u64), key_bytes, keys, |k| {
                k[bit / 8] &= !(1 << (bit % 8))
            });
            let mut worker = subject.worker();
            let mut partner = vec![0u8; key_bytes];
            let mut equal = 0u64;
            let differences: Vec<u64> = bases
                .chunks(key_bytes)
                .map(|base| {
                    let a = worker.hash64(base);
                    partner.copy_from_slice(base);
                    flip_bit(&mut partner, bit);
                    let b = worker.hash64(&partner);
                    equal += u64::from(a == b);
                    a ^ b
                })
                .collect();
            let mut findings = Findings {
                hashes: 2 * keys as u64,
                ..Findings::default()
            };
            findings.add(Statistic::new(Measure::EqualPairs {
                pairs: keys as u64,
                input_bit: bit,
                bits: width,
                expected: keys as f64 / (width as f64).exp2(),
                observed: equal,
            }));
            analyze(
                &differences,
                width,
                Values::BitDifferences { input_bit: bit },
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

/// Keys a hash table sees: do the values fill every bucket evenly?
pub(crate) fn table(
    subject: &Subject,
    keyset: TableKeys,
    keys: usize,
    seed: u64,
    test: u64,
) -> Findings {
    let chunks: Vec<Vec<u64>> = (0..keys.div_ceil(CHUNK) as u64)
        .into_par_iter()
        .map_init(
            || subject.worker(),
            |worker, chunk| {
                let mut rng = stream(seed, test, chunk);
                let mut buf = [0u8; 32];
                let start = chunk * CHUNK as u64;
                let end = (start + CHUNK as u64).min(keys as u64);
                (start..end)
                    .map(|i| {
                        let len = keyset.write(i, &mut rng, &mut buf);
                        worker.hash64(&buf[..len])
                    })
                    .collect()
            },
        )
        .collect();
    keyset_findings(subject, &chunks.concat(), false)
}

/// One message under many related keys or seeds: every one with at most
/// `max_set` bits set (or that many random ones instead). A hash whose key
/// or seed is poorly mixed collides here.
pub(crate) fn secret_collisions(
    subject: &Subject,
    secret: Secret,
    message_bytes: usize,
    keyset: KeySet,
    seed: u64,
    test: u64,
) -> Findings {
    let key_len = subject
        .secret_len(secret)
        .expect("key and seed tests are planned for subjects that take them only");
    let mut rng = stream(seed, test, 0);
    let mut message = vec![0u8; message_bytes];
    rng.fill_bytes(&mut message);
    let keyed_hash = |key: &[u8]| {
        let hasher = subject
            .with_secret(secret, key)
            .expect("the backend took such a key or seed when the subject was made");
        first_u64(Worker::new(hasher).hash(&message))
    };
    let hashes: Vec<u64> = match keyset {
        KeySet::Sparse { max_set } => sparse_positions(key_len * 8, max_set)
            .par_chunks(max_set)
            .with_min_len(CHUNK / 4)
            .map_init(
                || vec![0u8; key_len],
                |key, positions| {
                    sparse_key(positions, key);
                    keyed_hash(key)
                },
            )
            .collect(),
        KeySet::Random { keys } => distinct_keys(&mut rng, key_len, keys, |_| {})
            .par_chunks(key_len)
            .with_min_len(CHUNK / 4)
            .map(keyed_hash)
            .collect(),
    };
    let differences = matches!(keyset, KeySet::Sparse { .. });
    keyset_findings(subject, &hashes, differences)
}

/// Candidate bad seeds: zero, one, the top bit, all ones, alternating bits
/// and each half set (where a seed is added to or multiplied into a state,
/// these are the values that cancel or vanish), then `random` drawn ones.
pub(crate) fn seed_candidates(seed_bits: u32, random: usize, rng: &mut impl RngCore) -> Vec<u64> {
    let mask = if seed_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << seed_bits) - 1
    };
    let half = seed_bits / 2;
    let mut seeds: Vec<u64> = [
        0,
        1,
        1u64 << (seed_bits - 1),
        u64::MAX,
        0x5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaa,
        (1u64 << half) - 1,
        u64::MAX << half,
    ]
    .into_iter()
    .map(|s| s & mask)
    .collect();
    seeds.dedup();
    while seeds.len() < 8 + random {
        let s = rng.next_u64() & mask;
        if !seeds.contains(&s) {
            seeds.push(s);
        }
    }
    seeds
}

/// Many messages under each candidate seed: every 16-byte message with at
/// most 2 bits set and the other all-zero messages of 0 to 255 bytes. A seed that
/// cancels the hash's mixing makes these collide or cluster (SMHasher3's
/// BadSeeds and seeded Zeroes tests ask the same of their seed samples).
pub(crate) fn bad_seeds(subject: &Subject, random: usize, seed: u64, test: u64) -> Findings {
    let seed_len = subject
        .seed_len
        .expect("seed tests are planned for seeded subjects only");
    let mut rng = stream(seed, test, 0);
    let candidates = seed_candidates(seed_len as u32 * 8, random, &mut rng);
    let positions = sparse_positions(128, 2);
    let mut findings = Findings::default();
    for candidate in candidates {
        let seeded = || {
            Worker::new(
                subject
                    .with_secret(Secret::Seed, &candidate.to_le_bytes()[..seed_len])
                    .expect("the backend took a seed when the subject was made"),
            )
        };
        let mut hashes: Vec<u64> = positions
            .par_chunks(2)
            .with_min_len(CHUNK / 4)
            .map_init(
                || (seeded(), [0u8; 16]),
                |(worker, message), set| {
                    sparse_key(set, message);
                    worker.hash64(message)
                },
            )
            .collect();
        let mut worker = seeded();
        let zeroes = [0u8; 255];
        // The 16-byte zero message is the sparse set's message of weight 0.
        hashes.extend(
            (0..=255)
                .filter(|&len| len != 16)
                .map(|len| worker.hash64(&zeroes[..len])),
        );
        findings.merge(keyset_findings(subject, &hashes, false));
    }
    findings
}

/// Zero-filled messages under related seeds, as SMHasher3's 'SeedZeroes'
/// lays them out: for each seed with 1 to `max_set` bits set, a row of the
/// all-zero messages of 1 to `max_len` bytes under that seed, then under its
/// complement. The hashes, their differences along the row and down each
/// column should all look random: wyhash and XXH3 repeat differences here.
pub(crate) fn seed_zeroes(subject: &Subject, max_set: usize, max_len: usize) -> Findings {
    let seed_len = subject
        .seed_len
        .expect("seed tests are planned for seeded subjects only");
    let zeroes = vec![0u8; max_len];
    let seeds: Vec<u16> = sparse_positions(seed_len * 8, max_set)
        .into_iter()
        // Row 0 is the zero seed, which SMHasher3 leaves out.
        .skip(max_set)
        .collect();
    let hashes: Vec<u64> = seeds
        .par_chunks(max_set)
        .flat_map_iter(|positions| {
            let mut seed_bytes = vec![0u8; seed_len];
            sparse_key(positions, &mut seed_bytes);
            let complement: Vec<u8> = seed_bytes.iter().map(|b| !b).collect();
            [seed_bytes, complement]
                .into_iter()
                .flat_map(|bytes| {
                    let mut worker = Worker::new(
                        subject
                            .with_secret(Secret::Seed, &bytes)
                            .expect("the backend took a seed when the subject was made"),
                    );
                    (1..=max_len)
                        .map(|len| worker.hash64(&zeroes[..len]))
                        .collect::<Vec<u64>>()
                })
                .collect::<Vec<u64>>()
        })
        .collect();
    grid_findings(subject, &hashes, 2 * max_len)
}

/// Which keys `secret_collisions` uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum KeySet {
    /// Every key with at most this many bits set.
    Sparse { max_set: usize },
    /// This many distinct random keys.
    Random { keys: usize },
}
