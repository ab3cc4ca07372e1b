//! Which tests a run makes and how many keys each hashes.
//!
//! The default plan takes well under a minute per algorithm on one of this
//! project's 2-core machines, `--quick` under ten seconds (docs/quality.md has
//! the measured times). Sizes follow SMHasher3's choices where it can afford
//! them (key lengths 3..15 for BIC, sparse keysets with a few bits set, cycles
//! of 3-8 bytes) and are smaller where SMHasher3 hashes billions of keys.

use serde::Serialize;

use crate::keys::TableKeys;
use crate::keysets::KeySet;

/// The tests of a run. Fields are public so a caller (and the tests of this
/// crate) can run a reduced or enlarged battery through the same code.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// (most seed bits set, zero-message lengths) of the seed-zeroes test;
    /// `None`: none.
    pub seed_zeroes: Option<(usize, Vec<usize>)>,
}

/// Zero-message lengths of the seed-zeroes test: every length to `up_to`
/// bytes, as SMHasher3's Seed Zeroes hashes every length to 1,280.
fn zero_lengths(up_to: usize) -> Vec<usize> {
    (0..=up_to).collect()
}

impl Plan {
    /// The full battery.
    pub fn standard() -> Plan {
        Plan {
            name: "default".into(),
            avalanche: vec![
                (3, 32768),
                (4, 32768),
                (5, 32768),
                (8, 32768),
                (12, 16384),
                (16, 16384),
                (32, 8192),
                (64, 4096),
                (128, 2048),
            ],
            bit_independence: vec![
                (3, 32768),
                (4, 32768),
                (6, 32768),
                (8, 32768),
                (11, 16384),
                (15, 8192),
            ],
            sparse: vec![
                (2, 10),
                (3, 4),
                // Nearly every 3-byte key: SMHasher3's "20/3", where XXH3-64's
                // short-input path shows excess collisions.
                (3, 20),
                (4, 4),
                (6, 3),
                (8, 3),
                (12, 3),
                (16, 3),
                (32, 3),
                (64, 2),
                (128, 2),
            ],
            cyclic: [3, 4, 5, 8]
                .into_iter()
                .flat_map(|bytes| [4, 8, 16].map(|repeats| (bytes, repeats)))
                .collect(),
            cyclic_keys: 65536,
            differential: vec![(4, 16384), (8, 16384), (16, 8192)],
            table: vec![
                TableKeys::Sequential32,
                TableKeys::Sequential64,
                TableKeys::Pointers,
                TableKeys::Text,
                TableKeys::Random16,
            ],
            table_keys: 1 << 19,
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
            seed_zeroes: Some((2, zero_lengths(1280))),
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
            seed_zeroes: Some((2, zero_lengths(256))),
        }
    }
}

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
    KeyAvalanche,
    KeyCollisions,
    SeedAvalanche,
    SeedBitIndependence,
    SeedCollisions,
    BadSeeds,
    SeedZeroes,
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
            TestKind::KeyAvalanche => "key avalanche",
            TestKind::KeyCollisions => "key collisions",
            TestKind::SeedAvalanche => "seed avalanche",
            TestKind::SeedBitIndependence => "seed bit independence",
            TestKind::SeedCollisions => "seed collisions",
            TestKind::BadSeeds => "bad seeds",
            TestKind::SeedZeroes => "seed zeroes",
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
        lengths: Vec<usize>,
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
            Case::KeyAvalanche { .. } => TestKind::KeyAvalanche,
            Case::KeyCollisions { .. } => TestKind::KeyCollisions,
            Case::SeedAvalanche { .. } => TestKind::SeedAvalanche,
            Case::SeedBitIndependence { .. } => TestKind::SeedBitIndependence,
            Case::SeedCollisions { .. } => TestKind::SeedCollisions,
            Case::BadSeeds { .. } => TestKind::BadSeeds,
            Case::SeedZeroes { .. } => TestKind::SeedZeroes,
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
            Case::SeedZeroes { max_set, lengths } => format!(
                "seeds with ≤ {max_set} bits set × zero messages of {} lengths to {} bytes",
                lengths.len(),
                lengths.iter().max().unwrap_or(&0)
            ),
        }
    }
}

impl Plan {
    /// The tests this plan makes of a hash; the key tests only when
    /// `keyed`, the seed tests only when `seeded`.
    pub(crate) fn cases(&self, keyed: bool, seeded: bool) -> Vec<Case> {
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
            if let Some((max_set, lengths)) = &self.seed_zeroes {
                cases.push(Case::SeedZeroes {
                    max_set: *max_set,
                    lengths: lengths.clone(),
                });
            }
        }
        cases
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
        if let Some((max_set, lengths)) = &self.seed_zeroes {
            positive("seed-zeroes bits set", *max_set)?;
            at_least("seed-zeroes lengths", lengths.len(), 1)?;
        }
        Ok(())
    }
}
