//! Known-hash sets, as `hashdeep -k` loads them for its matching modes:
//! the digests of manifests in every form `audit` reads, and of NSRL's
//! Reference Data Set version 3 (an SQLite database), kept so that millions
//! of them cost little more than their bytes and a lookup costs less than
//! hashing the smallest file.
//!
//! A set's digests go into one table per (algorithm, digest length), and a
//! hashdeep set of several columns into tables of its own, each of which
//! must hold a file's digest for a match. A table is one
//! flat buffer of fixed-width binary digests, sorted and without repeats,
//! with an index of where each run of digests sharing their leading bits
//! starts, about eight digests a run (so a lookup is one index read and a
//! binary search within a few cache lines). Ten million SHA-256 digests
//! take 320 MB and the index 8 MiB; names are kept only when asked for
//! (hashdeep's `-w`), in one buffer with an offset each.

use std::fmt;
use std::io;

use hashlab::HashError;

use crate::recorded::{LineProblem, ManifestError};

mod load;
mod nsrl;
mod plan;
mod sets;
mod sort;
mod table;

pub use load::{load_set, load_set_from};
pub use nsrl::{NsrlBound, NsrlError, MAX_ROWS as MAX_NSRL_ROWS};
pub use plan::KnownPlan;
pub use sets::{Group, Hit, KnownBuilder, KnownHash, KnownSets, Lookup};
pub use table::DigestTable;

/// The algorithm of an NSRL set when none is asked for: RDS v3 publishes
/// SHA-256 for every file, and it is the strongest of its columns.
pub const NSRL_DEFAULT_ALGORITHM: &str = "sha256";

/// The most entries (names, and digests of one table) a run keeps: a
/// name's place is a `u32`, which halves what `-w` costs per entry.
pub const MAX_ENTRIES: u64 = u32::MAX as u64;

/// A manifest line longer than this is not a checksum line (the longest
/// digest in hex and a path of the longest length Linux allows take under
/// 5 KiB); it is skipped without being kept, so a file with no line ends
/// costs no more memory than this.
const MAX_LINE: usize = 1 << 20;

/// Lines of a hashdeep set read at once: each batch becomes a `Vec` of
/// entries for [`read_manifest`], so a set of millions of lines never does.
const HASHDEEP_BATCH_LINES: usize = 1 << 16;

/// Why a known set cannot be loaded. Names neither the set's file (the
/// caller knows which it was reading) nor any option.
#[derive(Debug)]
pub enum KnownError {
    /// The set's file cannot be read.
    Io(io::Error),
    /// The algorithm asked for is unknown.
    Algorithm(HashError),
    /// A manifest that cannot be read, or that holds no entry.
    Manifest(ManifestError),
    /// An SQLite file that is not a usable NSRL database.
    Nsrl(NsrlError),
    /// More (algorithm, digest length) pairs than [`MAX_ALGORITHMS`] over
    /// every set: each is a pass of hashing over every input.
    TooManyAlgorithms { limit: usize },
    /// More entries than [`MAX_ENTRIES`].
    TooManyEntries { limit: u64 },
    /// A JSON set read whole passed a bound of [`crate::bounded`].
    Bound(crate::bounded::LineError),
}

impl fmt::Display for KnownError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnownError::Io(e) => write!(f, "{}", crate::outfile::io_message(e)),
            KnownError::Algorithm(e) => write!(f, "{e}"),
            KnownError::Manifest(e) => write!(f, "{e}"),
            KnownError::Nsrl(e) => write!(f, "{e}"),
            KnownError::TooManyAlgorithms { limit } => write!(
                f,
                "the known sets hold more than {limit} algorithm and length pairs; every input is hashed with each, and at most {limit} are taken"
            ),
            KnownError::TooManyEntries { limit } => {
                write!(f, "more than {limit} known entries")
            }
            KnownError::Bound(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for KnownError {}

impl From<NsrlError> for KnownError {
    fn from(e: NsrlError) -> KnownError {
        KnownError::Nsrl(e)
    }
}

/// The forms a known set comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetForm {
    /// Checksum lines (GNU, BSD tags, openssl, SFV), as `check` reads them.
    Lines,
    /// hashdeep's `%%%% HASHDEEP-1.0` file: every column hashlab knows.
    Hashdeep,
    /// `hashlab sum --json`'s array.
    Json,
    /// NSRL's RDS v3: its FILE table's column of the algorithm.
    Nsrl,
}

/// What loading one set found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetReport {
    pub form: SetForm,
    /// Digests taken, repeats included (a hashdeep line gives one per column).
    pub digests: u64,
    /// Lines of a manifest that could not be read (the rest were).
    pub problems: Vec<LineProblem>,
    /// NSRL rows whose digest column is empty or NULL, skipped.
    pub without_digest: u64,
}

/// How to read a set.
#[derive(Debug, Clone, Copy, Default)]
pub struct SetOptions<'a> {
    /// The algorithm of every entry (any name the registry knows): for a
    /// manifest, over what its lines say; for hashdeep and NSRL sets, the
    /// column to read (NSRL: [`NSRL_DEFAULT_ALGORITHM`] without it;
    /// hashdeep: every column hashlab knows).
    pub algorithm: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::load::next_record;
    use super::sort::{dedup_records, sort_records};
    use super::table::{TableBuilder, COMPACT_MIN};
    use super::*;
    use crate::recorded::MAX_ALGORITHMS;
    use proptest::prelude::*;
    use std::io::BufReader;

    fn hit(lookup: Lookup) -> Option<Hit> {
        match lookup {
            Lookup::Known(hit) => Some(hit),
            _ => None,
        }
    }

    fn sets(entries: &[(&str, &[u8], &str)], names: bool) -> KnownSets {
        let mut b = KnownBuilder::new(names);
        for (alg, digest, name) in entries {
            b.add(alg, digest, name.as_bytes()).unwrap();
        }
        b.finish()
    }

    #[test]
    fn lookups_hit_and_miss_and_mark_what_was_used() {
        let mut k = sets(
            &[
                ("sha256", &[3u8; 32], "c"),
                ("sha256", &[1u8; 32], "a"),
                ("sha256", &[2u8; 32], "b"),
            ],
            true,
        );
        assert_eq!(k.tables().len(), 1);
        assert_eq!(k.unused(), 3);
        let hit = hit(k.lookup(&[[2u8; 32]])).unwrap();
        assert_eq!(k.name(hit), Some(&b"b"[..]));
        assert_eq!(k.lookup(&[[4u8; 32]]), Lookup::Unknown);
        assert_eq!(k.lookup(&[[0u8; 32]]), Lookup::Unknown);
        // A digest of another length is no match, whatever its bytes.
        assert_eq!(k.lookup(&[[2u8; 16]]), Lookup::Unknown);
        assert_eq!(k.unused(), 2);
        k.lookup(&[[2u8; 32]]);
        assert_eq!(k.unused(), 2, "a digest is used once however often matched");
    }

    #[test]
    fn repeats_are_one_digest_under_the_first_name() {
        // In order, out of order, and through a compaction.
        for order in [[0usize, 1, 2], [2, 0, 1], [1, 2, 0]] {
            let all: [(&str, &[u8], &str); 3] = [
                ("md5", &[9u8; 16], "first"),
                ("md5", &[9u8; 16], "second"),
                ("md5", &[5u8; 16], "other"),
            ];
            let mut b = KnownBuilder::new(true);
            // Names are numbered as added, so "first" must be added first.
            b.add(all[0].0, all[0].1, all[0].2.as_bytes()).unwrap();
            for &i in order.iter().filter(|&&i| i != 0) {
                b.add(all[i].0, all[i].1, all[i].2.as_bytes()).unwrap();
            }
            let mut k = b.finish();
            assert_eq!(k.tables()[0].len(), 2, "{order:?}");
            let hit = hit(k.lookup(&[[9u8; 16]])).unwrap();
            assert_eq!(k.name(hit), Some(&b"first"[..]), "{order:?}");
        }
    }

    #[test]
    fn algorithms_and_lengths_get_tables_of_their_own() {
        let mut k = sets(
            &[
                ("sha256", &[7u8; 32], "s"),
                ("shake128", &[7u8; 16], "x16"),
                ("shake128", &[7u8; 32], "x32"),
                ("blake3", &[7u8; 32], "b"),
            ],
            true,
        );
        let shapes: Vec<(&str, usize)> = k
            .tables()
            .iter()
            .map(|t| (t.algorithm(), t.width()))
            .collect();
        assert_eq!(
            shapes,
            [
                ("sha256", 32),
                ("shake128", 16),
                ("shake128", 32),
                ("blake3", 32)
            ]
        );
        // Same bytes, another table: only the table of the input's algorithm answers.
        let none: [&[u8]; 4] = [&[0u8; 32], &[0u8; 16], &[7u8; 32], &[0u8; 32]];
        let hit = hit(k.lookup(&none)).unwrap();
        assert_eq!((hit.table, k.name(hit)), (2, Some(&b"x32"[..])));
        assert_eq!(k.unused(), 3);
        let mut b = KnownBuilder::new(false);
        for n in 0..=MAX_ALGORITHMS {
            let r = b.add("shake128", &vec![1u8; n + 1], b"f");
            assert_eq!(r.is_err(), n == MAX_ALGORITHMS, "{n}");
        }
        assert!(sets(&[("sha256", &[1u8; 32], "x")], false)
            .name(Hit {
                table: 0,
                record: 0
            })
            .is_none());
    }

    /// A set whose entries hold several digests (hashdeep's columns)
    /// matches only when each is known: an MD5 known with an unknown
    /// SHA-256 is a collision. The pool beside it matches on any.
    #[test]
    fn a_set_of_several_digests_an_entry_needs_them_all() {
        let mut b = KnownBuilder::new(true);
        let hd = b.group_of_every_digest();
        let origin = b.name(b"both").unwrap();
        b.add_to(hd, "md5", &[1u8; 16], origin).unwrap();
        b.add_to(hd, "sha256", &[1u8; 32], origin).unwrap();
        b.add("sha1", &[2u8; 20], b"pooled").unwrap();
        let mut k = b.finish();
        let hashes: Vec<(&str, usize)> = k
            .hashes()
            .iter()
            .map(|h| (h.algorithm.as_str(), h.width))
            .collect();
        assert_eq!(hashes, [("md5", 16), ("sha256", 32), ("sha1", 20)]);
        let file =
            |md5: u8, sha256: u8, sha1: u8| (vec![md5; 16], vec![sha256; 32], vec![sha1; 20]);
        let ask = |k: &mut KnownSets, (a, b, c): (Vec<u8>, Vec<u8>, Vec<u8>)| k.lookup(&[a, b, c]);
        assert_eq!(
            ask(&mut k, file(1, 9, 9)),
            Lookup::Partial {
                known: vec![0],
                unknown: vec![1]
            }
        );
        assert_eq!(k.unused(), 3, "a partial match uses nothing");
        let both = hit(ask(&mut k, file(1, 1, 9))).unwrap();
        assert_eq!(k.name(both), Some(&b"both"[..]));
        assert_eq!(k.unused(), 1);
        let pooled = hit(ask(&mut k, file(9, 1, 2))).unwrap();
        assert_eq!(k.name(pooled), Some(&b"pooled"[..]));
        assert_eq!(k.unused(), 0);
        assert_eq!(ask(&mut k, file(9, 9, 9)), Lookup::Unknown);
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let k = KnownBuilder::new(false).finish();
        assert!(k.tables().is_empty());
        let t = TableBuilder::new("sha1".into(), 20, 0, false).finish();
        assert_eq!(t.find(&[0u8; 20]), None);
        assert_eq!(t.unused(), 0);
    }

    #[test]
    fn long_lines_are_skipped_without_being_kept() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\nshort\nlast");
        let mut reader = BufReader::with_capacity(4096, &input[..]);
        let mut out = Vec::new();
        assert_eq!(
            next_record(&mut reader, b'\n', &mut out).unwrap(),
            Some(false)
        );
        assert!(out.is_empty());
        assert_eq!(
            next_record(&mut reader, b'\n', &mut out).unwrap(),
            Some(true)
        );
        assert_eq!(out, b"short\n");
        assert_eq!(
            next_record(&mut reader, b'\n', &mut out).unwrap(),
            Some(true)
        );
        assert_eq!(out, b"last");
        assert_eq!(next_record(&mut reader, b'\n', &mut out).unwrap(), None);
    }

    /// Many records sharing long prefixes (every radix level, the small
    /// buckets, a parallel top level), against std's sort and dedup.
    #[test]
    fn a_large_table_is_sorted_and_found_whole() {
        let mut b = KnownBuilder::new(true);
        let mut expected = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..(COMPACT_MIN + 70_000) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Few distinct first bytes, and repeats, to reach every path.
            let mut d = [0u8; 20];
            d[0] = (x % 3) as u8;
            d[1..9].copy_from_slice(&(x % 500_000).to_be_bytes());
            d[12..20].copy_from_slice(&(x % 500_000).to_le_bytes());
            b.add("sha1", &d, format!("{i}").as_bytes()).unwrap();
            expected.push((d, i));
        }
        let mut k = b.finish();
        expected.sort();
        expected.dedup_by(|later, first| later.0 == first.0);
        let t = &k.tables()[0];
        assert_eq!(t.len(), expected.len());
        for (i, (d, _)) in expected.iter().enumerate() {
            assert_eq!(t.record(i), d, "{i}");
        }
        for (d, first) in expected.iter().step_by(997) {
            let hit = hit(k.lookup(&[d])).expect("found");
            assert_eq!(k.name(hit), Some(format!("{first}").as_bytes()));
        }
        assert_eq!(k.lookup(&[[3u8; 20]]), Lookup::Unknown);
    }

    proptest! {
        #[test]
        fn sorting_and_dedup_agree_with_std(
            width in 1usize..40,
            seeds in proptest::collection::vec(any::<u64>(), 0..300),
            repeats in 0usize..3,
        ) {
            let mut records = Vec::new();
            let mut expected: Vec<(Vec<u8>, u32)> = Vec::new();
            for (i, s) in seeds.iter().enumerate() {
                for r in 0..=repeats {
                    // Narrow byte values make long shared prefixes.
                    let d: Vec<u8> = (0..width).map(|k| ((s >> (k % 60)) % 3) as u8).collect();
                    records.extend_from_slice(&d);
                    expected.push((d, (i * (repeats + 1) + r) as u32));
                }
            }
            let mut origins: Vec<u32> = (0..expected.len() as u32).collect();
            sort_records(&mut records, width, &mut origins);
            dedup_records(&mut records, width, &mut origins);
            expected.sort();
            expected.dedup_by(|later, first| later.0 == first.0);
            let got: Vec<(Vec<u8>, u32)> = records
                .chunks_exact(width)
                .map(|c| c.to_vec())
                .zip(origins)
                .collect();
            prop_assert_eq!(got, expected);
        }

        #[test]
        fn every_added_digest_is_found_and_no_other(
            width in 1usize..33,
            digests in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 32), 1..200),
            probes in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 32), 0..50),
        ) {
            let mut b = KnownBuilder::new(false);
            for d in &digests {
                b.add("sha256", &d[..width], b"").unwrap();
            }
            let k = b.finish();
            let t = &k.tables()[0];
            for d in &digests {
                prop_assert!(t.find(&d[..width]).is_some());
            }
            for p in &probes {
                let present = digests.iter().any(|d| d[..width] == p[..width]);
                prop_assert_eq!(t.find(&p[..width]).is_some(), present);
            }
        }
    }
}
