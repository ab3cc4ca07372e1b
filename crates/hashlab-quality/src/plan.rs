//! Which tests a run makes and how many keys each hashes.
//!
//! The default plan hashes SMHasher3's key counts where it matters (BIC 2²⁰
//! keys per length, cyclic keys 2²⁰ per row, its Zeroes, TwoBytes, Text,
//! Permutation and Seed Block keysets at its sizes) and leaves out its
//! keysets of more than 25 M keys; `--quick` runs the same tests with
//! 10⁴-10⁶ keys (docs/quality.md has the measured times).

use serde::Serialize;

use crate::families::{Blocks, Permutation, Text, TwoBytes};
use crate::keys::TableKeys;
use crate::keysets::KeySet;
use crate::rurban::{window_key_bits, LongNeighbors};
use crate::seed_blocks::SeedBlocks;
use crate::seed_keysets::{SeedKeys, SEED_KEY_LENGTHS};

/// The tests of a run. Fields are public so a caller (and the tests of this
/// crate) can run a reduced or enlarged battery through the same code.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Plan {
    /// `default`, `quick`, or a caller's own name.
    pub name: String,
    /// (key bytes, random keys) per avalanche test.
    pub avalanche: Vec<(usize, usize)>,
    /// (key bytes, random keys) per bit-independence test.
    pub bit_independence: Vec<(usize, usize)>,
    /// (key bytes, most bits set) per sparse-key test.
    pub sparse: Vec<(usize, usize)>,
    /// (cycle bytes, repeats) per cyclic-key test.
    pub cyclic: Vec<(usize, usize)>,
    /// Keys per cyclic-key test.
    pub cyclic_keys: usize,
    /// (key bytes, keys per input bit) per differential test.
    pub differential: Vec<(usize, usize)>,
    /// Hash-table keysets.
    pub table: Vec<TableKeys>,
    /// Keys per hash-table keyset.
    pub table_keys: usize,
    /// All-zero keys of 0 to this many bytes less one (SMHasher3's Zeroes);
    /// `None`: no Zeroes test.
    pub zeroes: Option<usize>,
    /// SMHasher3's TwoBytes keysets.
    pub two_bytes: Vec<TwoBytes>,
    /// SMHasher3's Text and Num keysets.
    pub text: Vec<Text>,
    /// SMHasher3's Permutation keysets.
    pub permutation: Vec<Permutation>,
    /// (message bytes, random keys) per key-avalanche test (keyed hashes only).
    pub key_avalanche: Vec<(usize, usize)>,
    /// (message bytes, keyset) per key-collision test (keyed hashes only).
    pub key_collisions: Vec<(usize, KeySet)>,
    /// (message bytes, random seeds) per seed-avalanche test (seeded hashes
    /// only, as the three below).
    pub seed_avalanche: Vec<(usize, usize)>,
    /// (message bytes, random seeds) per seed bit-independence test.
    pub seed_bit_independence: Vec<(usize, usize)>,
    /// (message bytes, seedset) per seed-collision test.
    pub seed_collisions: Vec<(usize, KeySet)>,
    /// Random seeds beside the eight fixed candidates of the bad-seeds test;
    /// `None`: no bad-seeds test.
    pub bad_seeds: Option<usize>,
    /// (most seed bits set, longest zero message) of the seed-zeroes test:
    /// messages of 1 byte to that many, as SMHasher3's Seed Zeroes hashes
    /// every length to 1,280; `None`: none.
    pub seed_zeroes: Option<(usize, usize)>,
    /// SMHasher3's Seed BlockLen and Seed BlockOffset tests.
    pub seed_blocks: Vec<SeedBlocks>,
    /// SMHasher3's PerlinNoise, SeedSparse, Seed and SeedBitflip tests.
    pub seed_keys: Vec<SeedKeys>,
    /// rurban's Window test: 2^this many keys per window position; `None`:
    /// none.
    pub window: Option<u32>,
    /// rurban's MomentChi2 tests: (key bytes, step between the integers
    /// hashed, which run from 0 to 2^32 − 1).
    pub moment_chi2: Vec<(usize, u64)>,
    /// rurban's Prng test (hashes of 64 bits or more only): outputs of the
    /// chain; `None`: none.
    pub prng: Option<usize>,
    /// rurban's LongNeighbors test; `None`: none.
    pub long_neighbors: Option<LongNeighbors>,
}

/// SMHasher3's Text keysets (TextKeyTest) that vary 4 middle characters,
/// the shortest and longest of its six key lengths, each with the varying
/// part in the middle, at the end and at the start.
fn text_cores(core: usize) -> Vec<Text> {
    let mut sets = Vec::new();
    for (prefix, suffix) in [("F", "B"), ("Foooooooooo", "Baaaaaaaaar")] {
        for (p, s) in [
            (prefix.to_string(), suffix.to_string()),
            (format!("{prefix}{suffix}"), String::new()),
            (String::new(), format!("{prefix}{suffix}")),
        ] {
            sets.push(Text::Core {
                prefix: p,
                core,
                suffix: s,
            });
        }
    }
    sets
}

/// SMHasher3's Permutation block sets of 4- and 8-byte blocks (the ones it
/// runs without --extra), with its sequence lengths: 7 blocks of 8, 6 of
/// 15, 23 of 2 (`long` replaces the 23 where a plan is smaller).
fn permutations(long: usize) -> Vec<Permutation> {
    let mut sets = Vec::new();
    for big_endian in [false, true] {
        sets.push(Permutation {
            blocks: Blocks::LowBits { big_endian },
            max_blocks: 7,
        });
        sets.push(Permutation {
            blocks: Blocks::HighBits { big_endian },
            max_blocks: 7,
        });
        sets.push(Permutation {
            blocks: Blocks::HighAndLowBits { big_endian },
            max_blocks: 6,
        });
    }
    for bytes in [4, 8] {
        for high in [false, true] {
            for big_endian in [false, true] {
                sets.push(Permutation {
                    blocks: Blocks::ZeroAndBit {
                        bytes,
                        high,
                        big_endian,
                    },
                    max_blocks: long,
                });
            }
        }
    }
    sets
}

/// SMHasher3's seed keysets: PerlinNoise at its size; SeedSparse and Seed
/// at its ten key lengths with fewer seeds (one bit fewer set, 2^20 seeds
/// instead of 2^22); SeedBitflip at its three key lengths with 2^16 pairs
/// per seed bit instead of 1.5 M, to keep a run within minutes.
fn standard_seed_keys() -> Vec<SeedKeys> {
    let mut sets = vec![SeedKeys::Perlin {
        key_bytes: 2,
        x_bits: 12,
        y_bits: 12,
    }];
    for key_bytes in SEED_KEY_LENGTHS {
        sets.push(SeedKeys::Sparse {
            key_bytes,
            max_set_64: 4,
        });
    }
    for key_bytes in SEED_KEY_LENGTHS {
        sets.push(SeedKeys::Grid {
            key_bytes,
            seed_bits: 20,
        });
    }
    for key_bytes in [3, 4, 8] {
        sets.push(SeedKeys::Bitflip {
            key_bytes,
            pairs: 1 << 16,
        });
    }
    sets
}

impl Plan {
    /// The full battery.
    pub fn standard() -> Plan {
        Plan {
            name: "default".into(),
            // SMHasher3 hashes 300,000 keys per avalanche length and about a
            // million per BIC length; so does this plan, at its BIC lengths.
            avalanche: vec![
                (3, 1 << 18),
                (4, 1 << 18),
                (5, 1 << 18),
                (8, 1 << 18),
                (12, 1 << 17),
                (16, 1 << 17),
                (32, 1 << 16),
                (64, 1 << 15),
                (128, 1 << 14),
            ],
            bit_independence: vec![
                (3, 1 << 20),
                (4, 1 << 20),
                (6, 1 << 20),
                (8, 1 << 20),
                (11, 1 << 20),
                (15, 1 << 20),
            ],
            // SMHasher3's sparse keysets (bits / most set), but for those of
            // more than 25 M keys (4/9, 96/3, 1024/2, 1280/2).
            sparse: vec![
                (2, 6),
                (2, 10),
                (3, 4),
                // Nearly every 3-byte key: SMHasher3's "20/3", where XXH3-64's
                // short-input path shows excess collisions.
                (3, 20),
                (4, 4),
                (5, 4),
                (6, 3),
                (7, 3),
                (8, 3),
                (9, 3),
                (9, 5),
                (10, 3),
                (12, 3),
                (14, 3),
                (14, 4),
                (16, 4),
                (32, 3),
                (48, 3),
                (64, 3),
                (128, 2),
                (256, 2),
                (512, 2),
            ],
            cyclic: [3, 4, 5, 8]
                .into_iter()
                .flat_map(|bytes| [4, 8, 16].map(|repeats| (bytes, repeats)))
                .collect(),
            cyclic_keys: 1 << 20,
            differential: vec![(3, 1 << 17), (4, 1 << 18), (8, 1 << 18), (16, 1 << 17)],
            table: vec![
                TableKeys::Sequential32,
                TableKeys::Sequential64,
                TableKeys::Pointers,
                TableKeys::Text,
                TableKeys::Random16,
            ],
            table_keys: 1 << 19,
            zeroes: Some(200 * 1024),
            two_bytes: vec![
                TwoBytes::UpTo { bytes: 8 },
                TwoBytes::Length { bytes: 1024 },
                TwoBytes::Length { bytes: 2048 },
                TwoBytes::Length { bytes: 4096 },
            ],
            text: [
                Text::Numbers {
                    count: 10_000_000,
                    commas: false,
                },
                Text::Numbers {
                    count: 10_000_000,
                    commas: true,
                },
            ]
            .into_iter()
            .chain(text_cores(4))
            .collect(),
            permutation: permutations(23),
            key_avalanche: vec![(8, 2048), (64, 1024)],
            key_collisions: vec![
                (0, KeySet::Sparse { max_set: 2 }),
                (16, KeySet::Sparse { max_set: 2 }),
                (16, KeySet::Random { keys: 65536 }),
            ],
            // SMHasher3's seed avalanche and BIC key lengths, fewer of them.
            seed_avalanche: vec![(4, 4096), (8, 4096), (16, 4096), (64, 2048), (128, 1024)],
            seed_bit_independence: vec![(3, 4096), (4, 4096), (8, 4096), (16, 2048)],
            seed_collisions: vec![
                (0, KeySet::Sparse { max_set: 3 }),
                (16, KeySet::Sparse { max_set: 3 }),
                (16, KeySet::Random { keys: 65536 }),
            ],
            bad_seeds: Some(24),
            seed_zeroes: Some((2, 1280)),
            seed_blocks: (8..=31)
                .map(|key_bytes| SeedBlocks::Length { key_bytes })
                .chain((0..=5).map(|offset| SeedBlocks::Offset { offset }))
                .collect(),
            seed_keys: standard_seed_keys(),
            // rurban's sizes: 2^20 keys per window (his count for 32-bit
            // hashes; 2^25 for wider ones), MomentChi2 on 4-byte keys with
            // step 16 (his: 6 for fast hashes, 2 for slow ones), his 2^25
            // Prng outputs, and LongNeighbors at every length of his range
            // with his bases and narrower flip ranges (his: 2048 and 160
            // bits; 76 M messages of 155 bytes on average, 12 GB, here).
            window: Some(20),
            moment_chi2: vec![(4, 16)],
            prng: Some(32 << 20),
            long_neighbors: Some(LongNeighbors {
                min_bytes: 10,
                max_bytes: 300,
                length_step: 1,
                random_bases: 3,
                two_bit_range: 128,
                three_bit_range: 64,
                appended: 16,
            }),
        }
    }

    /// A shorter battery of the same tests, with fewer keys: for a first look
    /// and for CI.
    pub fn quick() -> Plan {
        Plan {
            name: "quick".into(),
            avalanche: vec![(3, 8192), (4, 8192), (8, 8192), (16, 4096), (64, 1024)],
            bit_independence: vec![(3, 8192), (8, 4096)],
            sparse: vec![(2, 10), (4, 4), (8, 3), (16, 3), (64, 2)],
            cyclic: vec![(3, 4), (4, 8), (5, 16), (8, 8)],
            cyclic_keys: 32768,
            differential: vec![(4, 4096), (8, 4096)],
            table: vec![
                TableKeys::Sequential32,
                TableKeys::Sequential64,
                TableKeys::Text,
                TableKeys::Random16,
            ],
            table_keys: 1 << 17,
            zeroes: Some(4096),
            two_bytes: vec![TwoBytes::UpTo { bytes: 4 }, TwoBytes::Length { bytes: 256 }],
            text: vec![
                Text::Numbers {
                    count: 100_000,
                    commas: true,
                },
                Text::Core {
                    prefix: "Foo".into(),
                    core: 3,
                    suffix: "Bar".into(),
                },
            ],
            permutation: vec![
                Permutation {
                    blocks: Blocks::LowBits { big_endian: false },
                    max_blocks: 5,
                },
                Permutation {
                    blocks: Blocks::ZeroAndBit {
                        bytes: 8,
                        high: true,
                        big_endian: false,
                    },
                    max_blocks: 15,
                },
            ],
            key_avalanche: vec![(8, 1024)],
            key_collisions: vec![
                (16, KeySet::Sparse { max_set: 2 }),
                (16, KeySet::Random { keys: 16384 }),
            ],
            seed_avalanche: vec![(8, 1024), (64, 512)],
            seed_bit_independence: vec![(8, 1024)],
            seed_collisions: vec![
                (16, KeySet::Sparse { max_set: 2 }),
                (16, KeySet::Random { keys: 16384 }),
            ],
            bad_seeds: Some(8),
            seed_zeroes: Some((2, 160)),
            seed_blocks: vec![
                SeedBlocks::Length { key_bytes: 16 },
                SeedBlocks::Offset { offset: 24 },
            ],
            seed_keys: vec![
                SeedKeys::Perlin {
                    key_bytes: 2,
                    x_bits: 10,
                    y_bits: 8,
                },
                SeedKeys::Sparse {
                    key_bytes: 3,
                    max_set_64: 3,
                },
                SeedKeys::Grid {
                    key_bytes: 15,
                    seed_bits: 16,
                },
                SeedKeys::Bitflip {
                    key_bytes: 8,
                    pairs: 2048,
                },
            ],
            window: Some(12),
            moment_chi2: vec![(4, 1 << 12)],
            prng: Some(1 << 20),
            long_neighbors: Some(LongNeighbors {
                min_bytes: 10,
                max_bytes: 300,
                length_step: 29,
                random_bases: 1,
                two_bit_range: 64,
                three_bit_range: 24,
                appended: 4,
            }),
        }
    }
}

/// Most keys one keyset test may hash: their values are held in memory.
const MAX_KEYS: u64 = 1 << 28;

/// The kind of test, as SMHasher names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestKind {
    Avalanche,
    BitIndependence,
    SparseKeys,
    CyclicKeys,
    Differential,
    HashTableBuckets,
    Zeroes,
    TwoBytes,
    Text,
    Permutation,
    Window,
    MomentChi2,
    Prng,
    LongNeighbors,
    KeyAvalanche,
    KeyCollisions,
    SeedAvalanche,
    SeedBitIndependence,
    SeedCollisions,
    BadSeeds,
    SeedZeroes,
    SeedBlockLength,
    SeedBlockOffset,
    PerlinNoise,
    SeedSparse,
    SeedGrid,
    SeedBitflip,
}

impl TestKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            TestKind::Avalanche => "avalanche",
            TestKind::BitIndependence => "bit independence",
            TestKind::SparseKeys => "sparse keys",
            TestKind::CyclicKeys => "cyclic keys",
            TestKind::Differential => "differential",
            TestKind::HashTableBuckets => "hash-table buckets",
            TestKind::Zeroes => "zeroes",
            TestKind::TwoBytes => "two bytes",
            TestKind::Text => "text",
            TestKind::Permutation => "permutation",
            TestKind::KeyAvalanche => "key avalanche",
            TestKind::KeyCollisions => "key collisions",
            TestKind::SeedAvalanche => "seed avalanche",
            TestKind::SeedBitIndependence => "seed bit independence",
            TestKind::SeedCollisions => "seed collisions",
            TestKind::BadSeeds => "bad seeds",
            TestKind::SeedZeroes => "seed zeroes",
            TestKind::SeedBlockLength => "seed block length",
            TestKind::SeedBlockOffset => "seed block offset",
            TestKind::PerlinNoise => "perlin noise",
            TestKind::SeedSparse => "seed sparse",
            TestKind::SeedGrid => "seed grid",
            TestKind::SeedBitflip => "seed bitflip",
            TestKind::Window => "window",
            TestKind::MomentChi2 => "moment chi2",
            TestKind::Prng => "prng",
            TestKind::LongNeighbors => "long neighbors",
        }
    }
}

/// One test of a run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Case {
    Avalanche {
        key_bytes: usize,
        keys: usize,
    },
    BitIndependence {
        key_bytes: usize,
        keys: usize,
    },
    Sparse {
        key_bytes: usize,
        max_set: usize,
    },
    Cyclic {
        cycle_bytes: usize,
        repeats: usize,
        keys: usize,
    },
    Differential {
        key_bytes: usize,
        keys: usize,
    },
    Table {
        keyset: TableKeys,
        keys: usize,
    },
    Zeroes {
        keys: usize,
    },
    TwoBytes {
        set: TwoBytes,
    },
    Text {
        set: Text,
    },
    Permutation {
        set: Permutation,
    },
    KeyAvalanche {
        message_bytes: usize,
        keys: usize,
    },
    KeyCollisions {
        message_bytes: usize,
        keyset: KeySet,
    },
    SeedAvalanche {
        message_bytes: usize,
        seeds: usize,
    },
    SeedBitIndependence {
        message_bytes: usize,
        seeds: usize,
    },
    SeedCollisions {
        message_bytes: usize,
        seedset: KeySet,
    },
    BadSeeds {
        random: usize,
    },
    SeedZeroes {
        max_set: usize,
        max_len: usize,
    },
    SeedBlocks {
        set: SeedBlocks,
    },
    SeedKeys {
        set: SeedKeys,
    },
    Window {
        key_bits: usize,
        bits: u32,
    },
    MomentChi2 {
        key_bytes: usize,
        step: u64,
    },
    Prng {
        numbers: usize,
    },
    LongNeighbors {
        set: LongNeighbors,
    },
}

impl Case {
    pub fn kind(&self) -> TestKind {
        match self {
            Case::Avalanche { .. } => TestKind::Avalanche,
            Case::BitIndependence { .. } => TestKind::BitIndependence,
            Case::Sparse { .. } => TestKind::SparseKeys,
            Case::Cyclic { .. } => TestKind::CyclicKeys,
            Case::Differential { .. } => TestKind::Differential,
            Case::Table { .. } => TestKind::HashTableBuckets,
            Case::Zeroes { .. } => TestKind::Zeroes,
            Case::TwoBytes { .. } => TestKind::TwoBytes,
            Case::Text { .. } => TestKind::Text,
            Case::Permutation { .. } => TestKind::Permutation,
            Case::KeyAvalanche { .. } => TestKind::KeyAvalanche,
            Case::KeyCollisions { .. } => TestKind::KeyCollisions,
            Case::SeedAvalanche { .. } => TestKind::SeedAvalanche,
            Case::SeedBitIndependence { .. } => TestKind::SeedBitIndependence,
            Case::SeedCollisions { .. } => TestKind::SeedCollisions,
            Case::BadSeeds { .. } => TestKind::BadSeeds,
            Case::SeedZeroes { .. } => TestKind::SeedZeroes,
            Case::SeedBlocks {
                set: SeedBlocks::Length { .. },
            } => TestKind::SeedBlockLength,
            Case::SeedBlocks {
                set: SeedBlocks::Offset { .. },
            } => TestKind::SeedBlockOffset,
            Case::SeedKeys { set } => match set {
                SeedKeys::Perlin { .. } => TestKind::PerlinNoise,
                SeedKeys::Sparse { .. } => TestKind::SeedSparse,
                SeedKeys::Grid { .. } => TestKind::SeedGrid,
                SeedKeys::Bitflip { .. } => TestKind::SeedBitflip,
            },
            Case::Window { .. } => TestKind::Window,
            Case::MomentChi2 { .. } => TestKind::MomentChi2,
            Case::Prng { .. } => TestKind::Prng,
            Case::LongNeighbors { .. } => TestKind::LongNeighbors,
        }
    }

    pub fn label(&self) -> String {
        match self {
            Case::Avalanche { key_bytes, keys } | Case::BitIndependence { key_bytes, keys } => {
                format!("{key_bytes}-byte keys × {keys}")
            }
            Case::Sparse { key_bytes, max_set } => {
                format!("{key_bytes}-byte keys, ≤ {max_set} bits set")
            }
            Case::Cyclic {
                cycle_bytes,
                repeats,
                keys,
            } => format!("{repeats} cycles of {cycle_bytes} bytes × {keys}"),
            Case::Differential { key_bytes, keys } => {
                format!("{key_bytes}-byte keys, one-bit flips × {keys} per bit")
            }
            Case::Table { keyset, keys } => format!("{} × {keys}", keyset.describe()),
            Case::Zeroes { keys } => format!("all-zero keys of 0 to {} bytes", keys - 1),
            Case::TwoBytes { set } => format!("{} × {}", set.describe(), set.keys()),
            Case::Text { set } => set.describe(),
            Case::Permutation { set } => set.describe(),
            Case::KeyAvalanche {
                message_bytes,
                keys,
            } => format!("{message_bytes}-byte messages × {keys} keys"),
            Case::KeyCollisions {
                message_bytes,
                keyset,
            } => match keyset {
                KeySet::Sparse { max_set } => {
                    format!("keys with ≤ {max_set} bits set, {message_bytes}-byte message")
                }
                KeySet::Random { keys } => {
                    format!("{keys} random keys, {message_bytes}-byte message")
                }
            },
            Case::SeedAvalanche {
                message_bytes,
                seeds,
            }
            | Case::SeedBitIndependence {
                message_bytes,
                seeds,
            } => format!("{message_bytes}-byte messages × {seeds} seeds"),
            Case::SeedCollisions {
                message_bytes,
                seedset,
            } => match seedset {
                KeySet::Sparse { max_set } => {
                    format!("seeds with ≤ {max_set} bits set, {message_bytes}-byte message")
                }
                KeySet::Random { keys } => {
                    format!("{keys} random seeds, {message_bytes}-byte message")
                }
            },
            Case::BadSeeds { random } => format!(
                "8 candidate seeds and {random} random ones × sparse 16-byte and zero messages"
            ),
            Case::SeedBlocks { set } => set.describe(None),
            Case::SeedKeys { set } => set.describe(),
            Case::SeedZeroes { max_set, max_len } => format!(
                "seeds with 1 to {max_set} bits set or clear × zero messages of 1 to {max_len} bytes"
            ),
            Case::Window { key_bits, bits } => format!(
                "{bits}-bit windows at each bit of a {key_bits}-bit key × {} keys each",
                1u64 << bits
            ),
            Case::MomentChi2 { key_bytes, step } => format!(
                "{key_bytes}-byte integers 0 to 2^32 − 1, step {step} × {}",
                (1u64 << 32).div_ceil(*step)
            ),
            Case::Prng { numbers } => {
                format!("each output hashed again, from a zero digest × {numbers}")
            }
            Case::LongNeighbors { set } => set.describe(),
        }
    }
}

impl Plan {
    /// The tests this plan makes of a hash of `output_bits`; the key tests
    /// only when `keyed`, the seed tests only when `seeded`.
    pub(crate) fn cases(&self, keyed: bool, seeded: bool, output_bits: usize) -> Vec<Case> {
        let mut cases = Vec::new();
        for &(key_bytes, keys) in &self.avalanche {
            cases.push(Case::Avalanche { key_bytes, keys });
        }
        for &(key_bytes, keys) in &self.bit_independence {
            cases.push(Case::BitIndependence { key_bytes, keys });
        }
        for &(key_bytes, max_set) in &self.sparse {
            cases.push(Case::Sparse { key_bytes, max_set });
        }
        for &(cycle_bytes, repeats) in &self.cyclic {
            cases.push(Case::Cyclic {
                cycle_bytes,
                repeats,
                keys: self.cyclic_keys,
            });
        }
        for &(key_bytes, keys) in &self.differential {
            cases.push(Case::Differential { key_bytes, keys });
        }
        for &keyset in &self.table {
            cases.push(Case::Table {
                keyset,
                keys: self.table_keys,
            });
        }
        if let Some(keys) = self.zeroes {
            cases.push(Case::Zeroes { keys });
        }
        for &set in &self.two_bytes {
            cases.push(Case::TwoBytes { set });
        }
        for set in &self.text {
            cases.push(Case::Text { set: set.clone() });
        }
        for &set in &self.permutation {
            cases.push(Case::Permutation { set });
        }
        if let Some(bits) = self.window {
            cases.push(Case::Window {
                key_bits: window_key_bits(output_bits),
                bits,
            });
        }
        for &(key_bytes, step) in &self.moment_chi2 {
            cases.push(Case::MomentChi2 { key_bytes, step });
        }
        if let Some(numbers) = self.prng {
            // A random function on fewer bits falls into a cycle within
            // about 2^(bits/2) steps: the chain says nothing (rurban skips it too).
            if output_bits >= 64 {
                cases.push(Case::Prng { numbers });
            }
        }
        if let Some(set) = self.long_neighbors {
            cases.push(Case::LongNeighbors { set });
        }
        if keyed {
            for &(message_bytes, keys) in &self.key_avalanche {
                cases.push(Case::KeyAvalanche {
                    message_bytes,
                    keys,
                });
            }
            for &(message_bytes, keyset) in &self.key_collisions {
                cases.push(Case::KeyCollisions {
                    message_bytes,
                    keyset,
                });
            }
        }
        if seeded {
            for &(message_bytes, seeds) in &self.seed_avalanche {
                cases.push(Case::SeedAvalanche {
                    message_bytes,
                    seeds,
                });
            }
            for &(message_bytes, seeds) in &self.seed_bit_independence {
                cases.push(Case::SeedBitIndependence {
                    message_bytes,
                    seeds,
                });
            }
            for &(message_bytes, seedset) in &self.seed_collisions {
                cases.push(Case::SeedCollisions {
                    message_bytes,
                    seedset,
                });
            }
            if let Some(random) = self.bad_seeds {
                cases.push(Case::BadSeeds { random });
            }
            if let Some((max_set, max_len)) = self.seed_zeroes {
                cases.push(Case::SeedZeroes { max_set, max_len });
            }
            for &set in &self.seed_blocks {
                cases.push(Case::SeedBlocks { set });
            }
            for &set in &self.seed_keys {
                cases.push(Case::SeedKeys { set });
            }
        }
        cases
    }

    /// How many tests this plan makes of a hash of `output_bits` (keyed,
    /// seeded or neither): the Bonferroni divisor of each of them.
    pub fn tests(&self, keyed: bool, seeded: bool, output_bits: usize) -> usize {
        self.cases(keyed, seeded, output_bits).len()
    }

    /// Rejects sizes the tests cannot use, with the reason.
    pub(crate) fn check(&self) -> Result<(), String> {
        let at_least = |what: &str, n: usize, min: usize| {
            if n < min {
                Err(format!("{what} must be at least {min}, not {n}"))
            } else {
                Ok(())
            }
        };
        let positive = |what: &str, n: usize| at_least(what, n, 1);
        for &(bytes, keys) in self.avalanche.iter().chain(&self.bit_independence) {
            positive("avalanche and BIC key length", bytes)?;
            positive("avalanche and BIC keys", keys)?;
        }
        for &(bytes, max_set) in &self.sparse {
            positive("sparse key length", bytes)?;
            positive("sparse bits set", max_set)?;
            if bytes * 8 >= u16::MAX as usize {
                return Err(format!("sparse keys of {bytes} bytes are too long"));
            }
        }
        for &(bytes, repeats) in &self.cyclic {
            positive("cycle length", bytes)?;
            positive("cycle repeats", repeats)?;
            if (self.cyclic_keys as f64).log2() >= (bytes * 8) as f64 - 1.0 {
                return Err(format!(
                    "{} distinct {bytes}-byte cycles do not exist",
                    self.cyclic_keys
                ));
            }
        }
        if !self.cyclic.is_empty() {
            at_least("cyclic keys", self.cyclic_keys, 2)?;
        }
        if !self.table.is_empty() {
            at_least("hash-table keys", self.table_keys, 2)?;
        }
        for &(bytes, keys) in &self.differential {
            positive("differential key length", bytes)?;
            at_least("differential keys", keys, 2)?;
            if (keys as f64).log2() >= (bytes * 8) as f64 - 2.0 {
                return Err(format!("{keys} distinct {bytes}-byte keys do not exist"));
            }
        }
        for &(_, keys) in &self.key_avalanche {
            positive("key-avalanche keys", keys)?;
        }
        for &(_, keyset) in self.key_collisions.iter().chain(&self.seed_collisions) {
            match keyset {
                KeySet::Sparse { max_set } => positive("sparse key bits set", max_set)?,
                KeySet::Random { keys } => at_least("random keys", keys, 2)?,
            }
        }
        for &(_, seeds) in self
            .seed_avalanche
            .iter()
            .chain(&self.seed_bit_independence)
        {
            positive("seed-avalanche and seed-BIC seeds", seeds)?;
        }
        if let Some((max_set, max_len)) = self.seed_zeroes {
            positive("seed-zeroes bits set", max_set)?;
            at_least("seed-zeroes message length", max_len, 1)?;
        }
        if let Some(keys) = self.zeroes {
            at_least("zero keys", keys, 2)?;
        }
        for set in &self.seed_blocks {
            set.check()?;
        }
        for set in &self.seed_keys {
            set.check()?;
        }
        for set in &self.two_bytes {
            let (TwoBytes::UpTo { bytes } | TwoBytes::Length { bytes }) = *set;
            at_least("two-bytes key length", bytes, 2)?;
            if set.keys() > MAX_KEYS {
                return Err(format!("{} keys are too many", set.describe()));
            }
        }
        for set in &self.text {
            if let Text::Numbers { count, .. } = set {
                at_least("text numbers", *count as usize, 2)?;
            }
            if let Text::Core { core, .. } = set {
                positive("text core length", *core)?;
            }
        }
        if let Some(bits) = self.window {
            if !(1..=28).contains(&bits) {
                return Err(format!("window bits must be 1 to 28, not {bits}"));
            }
        }
        for &(bytes, step) in &self.moment_chi2 {
            at_least("moment key length", bytes, 4)?;
            if !(1..=1 << 31).contains(&step) {
                return Err(format!("moment step must be 1 to 2^31, not {step}"));
            }
        }
        if let Some(numbers) = self.prng {
            at_least("prng outputs", numbers, 2)?;
            if numbers as u64 > MAX_KEYS {
                return Err(format!("{numbers} prng outputs are too many"));
            }
        }
        if let Some(set) = &self.long_neighbors {
            set.check()?;
        }
        for set in &self.permutation {
            positive("permutation blocks", set.max_blocks)?;
            if set.keys() > MAX_KEYS {
                return Err(format!("{} are too many keys", set.describe()));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Correction;

    /// The family-wise false-alarm rate of whole plans, by simulation: under
    /// the null each statistic's p-value is uniform, so the worst of a test's
    /// m statistics (independent ones, the case where the union bound is
    /// tightest) is below x with probability 1 − (1 − x)^m. Each simulated
    /// run draws every test's worst p-value that way, for the statistic
    /// counts of this plan's tests (a BIC test has 2016 pairs per input bit,
    /// a keyset test a few dozen windows), and fails when any test fails.
    #[test]
    fn plans_keep_the_family_wise_rate_at_alpha() {
        for plan in [Plan::standard(), Plan::quick()] {
            let cases = plan.cases(true, true, 64);
            // The seed keysets are part of the simulated run, sharing alpha.
            for kind in [
                TestKind::PerlinNoise,
                TestKind::SeedSparse,
                TestKind::SeedGrid,
                TestKind::SeedBitflip,
                TestKind::Window,
                TestKind::MomentChi2,
                TestKind::Prng,
                TestKind::LongNeighbors,
            ] {
                assert!(cases.iter().any(|c| c.kind() == kind), "{kind:?}");
            }
            // A representative count for each kind: BIC of a 64-bit hash over
            // 11-byte keys, avalanche of 256 output bits, keysets with their
            // windows and differences, per-bit differential tests.
            let statistics: Vec<usize> = cases
                .iter()
                .map(|case| match case.kind() {
                    TestKind::BitIndependence | TestKind::SeedBitIndependence => 2016 * 88,
                    TestKind::Avalanche | TestKind::KeyAvalanche | TestKind::SeedAvalanche => {
                        256 * 1024
                    }
                    TestKind::Differential => 128 * 60,
                    TestKind::BadSeeds => 32 * 60,
                    TestKind::SeedZeroes | TestKind::PerlinNoise | TestKind::SeedGrid => 3 * 60,
                    TestKind::SeedBitflip => 64 * 2 * 60,
                    // A 32-bit hash's 72 key positions, each a keyset.
                    TestKind::Window => 72 * 20,
                    TestKind::MomentChi2 => 4,
                    TestKind::LongNeighbors => 3,
                    _ => 120,
                })
                .collect();
            let alpha = 0.05;
            let correction = Correction::new(alpha, cases.len());
            let mut state = 0x2545_f491_4f6c_dd1du64;
            let mut uniform = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 11) as f64 / (1u64 << 53) as f64
            };
            let runs = 20_000;
            let failed = (0..runs)
                .filter(|_| {
                    statistics.iter().any(|&m| {
                        // The smallest of m uniform p-values, by inversion.
                        let worst = -(-uniform()).ln_1p() / m as f64;
                        let worst = -(-worst).exp_m1();
                        worst < correction.per_statistic(m)
                    })
                })
                .count();
            let rate = failed as f64 / runs as f64;
            // Expected 1 − Π(1 − α/K) ≈ 0.0488; 20,000 runs give ±0.005.
            assert!(
                rate < alpha + 0.006,
                "{}: family-wise rate {rate}",
                plan.name
            );
            assert!(
                rate > alpha - 0.012,
                "{}: family-wise rate {rate}",
                plan.name
            );
        }
    }
}
