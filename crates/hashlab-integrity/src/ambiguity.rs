//! Untagged lines that nothing settles: no `-a`, no tag, no telling manifest
//! name, and a digest length several algorithms give (32 hex digits are
//! MD5's, XXH128's, BLAKE2b-128's...). Rather than guess, `check` tries the
//! candidates of that length (the catalog's `untagged_rank`, lowest first)
//! on the first line's file, and the one that matches reads every line of
//! that length in the manifest; where none matches, the line is FAILED and
//! the next line of that length is tried the same way.

use std::collections::HashMap;
use std::sync::Arc;

use hashlab::{Algorithm, Class, Registry};

use crate::check::{CheckError, Outcome, Unsettled};
use crate::manifest::Entry;

/// The candidates for an untagged line whose digest has `bytes` bytes, in
/// the order they are tried: those whose default length it is first, then
/// those that can be asked for that length (b2sum `-l`, b3sum `--length`),
/// each group by rank and then catalog order. A length no candidate has by
/// default has no candidates: a 5-byte digest is no tool's untagged line,
/// and a line of prose (`cafe  babe`) must not read as one.
pub fn candidates(registry: &Registry, bytes: usize) -> Vec<&Arc<Algorithm>> {
    let ranked = || {
        registry
            .algorithms()
            .iter()
            .filter_map(|a| a.untagged_rank.map(|rank| (rank, a)))
    };
    let mut by_default: Vec<_> = ranked()
        .filter(|(_, a)| a.output.default_len() == bytes)
        .collect();
    if by_default.is_empty() {
        return Vec::new();
    }
    let mut asked_for: Vec<_> = ranked()
        .filter(|(_, a)| {
            let (min, max) = a.output.range();
            a.output.default_len() != bytes && (min..=max).contains(&bytes)
        })
        .collect();
    // Stable sorts: catalog order within a rank.
    by_default.sort_by_key(|(rank, _)| *rank);
    asked_for.sort_by_key(|(rank, _)| *rank);
    by_default
        .into_iter()
        .chain(asked_for)
        .map(|(_, a)| a)
        .collect()
}

/// The candidates for a `VALUE COUNT NAME` line (cksum's CRC lines, the
/// BSD and System V sums' lines) whose value is the big-endian number
/// `value`: those of the catalog's `cksum_rank` whose digest can hold it,
/// lowest rank first. A value of 16 bits or less may be any of them.
pub fn cksum_candidates<'r>(registry: &'r Registry, value: &[u8]) -> Vec<&'r Arc<Algorithm>> {
    let bytes = value.len() - value.iter().take_while(|&&b| b == 0).count();
    let mut ranked: Vec<_> = registry
        .algorithms()
        .iter()
        .filter(|a| a.output.default_len() >= bytes)
        .filter_map(|a| a.cksum_rank.map(|rank| (rank, a)))
        .collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    ranked.into_iter().map(|(_, a)| a).collect()
}

/// The algorithm a `cksum` line holding `value` is read as before its file
/// is tried: `chosen` (`-a`) when its lines are of that form and can hold
/// the value, else the first candidate. The length returned is the line's
/// (4 bytes); what is hashed is the algorithm's own.
pub(crate) fn settle_cksum<'r>(
    registry: &'r Registry,
    chosen: Option<&str>,
    value: &[u8],
) -> Result<(&'r Algorithm, usize), Unsettled> {
    let bytes = value.len();
    let candidates = cksum_candidates(registry, value);
    let found = match chosen {
        Some(chosen) => candidates.into_iter().find(|a| a.name == chosen),
        None => candidates.into_iter().next(),
    };
    match found {
        Some(algorithm) => Ok((algorithm, bytes)),
        None => Err(Unsettled::Length {
            algorithm: chosen.unwrap_or_default().to_string(),
            bytes,
        }),
    }
}

/// What trying the candidates of one digest length found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    /// The digest length, in bytes.
    pub bytes: usize,
    /// The candidate that matched, which now reads every line of this
    /// length in the manifest; `None` when none did.
    pub algorithm: Option<String>,
    /// The candidates tried, in order (the matching one last).
    pub tried: Vec<String>,
    /// The match has no security claim (a non-cryptographic hash or a CRC)
    /// while a cryptographic candidate was tried before it and did not match:
    /// a caller must say so, never fall back silently.
    pub below_cryptographic: bool,
}

/// The digest lengths one manifest has settled so far, for untagged lines,
/// and the algorithm of its `VALUE COUNT NAME` lines apart (one for all of
/// them: their values' lengths say nothing).
#[derive(Debug, Default)]
pub(crate) struct Lengths {
    settled: HashMap<(bool, usize), Arc<Algorithm>>,
}

fn key(entry: &Entry, bytes: usize) -> (bool, usize) {
    match entry.size {
        Some(_) => (true, 0),
        None => (false, bytes),
    }
}

/// How one untagged line is to be verified.
pub(crate) enum Plan {
    /// As the line reader settled it: its length has one candidate at most.
    AsRead,
    /// As an earlier line of the manifest settled its length.
    Settled(Arc<Algorithm>),
    /// Try these in order.
    Try(Vec<Arc<Algorithm>>),
    /// No candidate can be tried: standard input can be read only once.
    Unreadable,
}

impl Lengths {
    /// How to verify `entry`, an untagged or cksum line of `bytes` bytes.
    pub(crate) fn plan(&self, registry: &Registry, entry: &Entry, bytes: usize) -> Plan {
        if let Some(settled) = self.settled.get(&key(entry, bytes)) {
            return Plan::Settled(Arc::clone(settled));
        }
        let candidates = if entry.size.is_some() {
            cksum_candidates(registry, &entry.expected)
        } else {
            candidates(registry, bytes)
        };
        // Standard input can be read only once.
        let reads_stdin = entry.name == b"-";
        match candidates.len() {
            0 | 1 => Plan::AsRead,
            _ if reads_stdin => Plan::Unreadable,
            _ => Plan::Try(candidates.into_iter().map(Arc::clone).collect()),
        }
    }

    /// Tries `candidates` in order with `verify` until one matches; that one
    /// is kept for `bytes`. An unreadable or missing file settles nothing.
    pub(crate) fn probe(
        &mut self,
        candidates: &[Arc<Algorithm>],
        entry: &Entry,
        bytes: usize,
        mut verify: impl FnMut(&Algorithm) -> Result<Outcome, CheckError>,
    ) -> Result<(Outcome, Option<Settlement>), CheckError> {
        let mut tried = Vec::new();
        let mut cryptographic_missed = false;
        for candidate in candidates {
            let outcome = verify(candidate)?;
            tried.push(candidate.name.clone());
            match outcome {
                Outcome::Failed => {
                    cryptographic_missed |= candidate.class == Class::Cryptographic;
                }
                Outcome::Ok => {
                    self.settled
                        .insert(key(entry, bytes), Arc::clone(candidate));
                    let settlement = Settlement {
                        bytes,
                        algorithm: Some(candidate.name.clone()),
                        tried,
                        below_cryptographic: cryptographic_missed
                            && candidate.class != Class::Cryptographic,
                    };
                    return Ok((Outcome::Ok, Some(settlement)));
                }
                other => return Ok((other, None)),
            }
        }
        let settlement = Settlement {
            bytes,
            algorithm: None,
            tried,
            below_cryptographic: false,
        };
        Ok((Outcome::Failed, Some(settlement)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(bytes: usize) -> Vec<String> {
        let registry = Registry::default();
        candidates(&registry, bytes)
            .into_iter()
            .map(|a| a.name.clone())
            .collect()
    }

    #[test]
    fn coreutils_reading_comes_first() {
        for (bytes, first) in [
            (16, "md5"),
            (20, "sha1"),
            (28, "sha224"),
            (32, "sha256"),
            (48, "sha384"),
            (64, "sha512"),
            (4, "xxh32"),
            (8, "xxh64"),
        ] {
            let names = names(bytes);
            assert_eq!(names.first().map(String::as_str), Some(first), "{names:?}");
            assert!(names.len() > 1, "{bytes}: {names:?}");
        }
    }

    #[test]
    fn the_tools_candidates_are_there_in_rank_order() {
        let sixteen = names(16);
        let at = |name: &str| sixteen.iter().position(|n| n == name).unwrap();
        // Default lengths before asked-for ones; cryptographic before xxHash.
        assert!(at("md5") < at("xxh3-128"));
        assert!(at("xxh3-128") < at("blake2b"));
        assert!(at("blake2b") < at("blake3"));
        let thirty_two = names(32);
        assert!(thirty_two.starts_with(&["sha256".to_string(), "blake3".to_string()]));
        assert!(thirty_two.iter().any(|n| n == "sha3-256"));
        assert!(thirty_two.iter().any(|n| n == "blake2b"));
        // Keyed hashes, MACs and always-tagged lines are never candidates.
        for name in ["hmac-sha256", "highwayhash-256", "kmac128"] {
            assert!(!thirty_two.iter().any(|n| n == name), "{name}");
        }
        assert!(!names(8)
            .iter()
            .any(|n| n == "xxh3-64" || n == "siphash-2-4"));
        // The 4-byte CRC cksum prints is its own line form.
        assert!(!names(4).iter().any(|n| n == "crc32-posix"));
        assert!(names(4).iter().any(|n| n == "crc32"));
    }

    #[test]
    fn lengths_no_tool_writes_have_none() {
        for bytes in [0, 1, 2, 3, 5, 7, 9, 33, 65, 1000] {
            assert_eq!(names(bytes), Vec::<String>::new(), "{bytes}");
        }
    }

    fn line(size: Option<u64>) -> Entry {
        Entry {
            tag: None,
            expected: Vec::new(),
            name: b"f".to_vec(),
            binary: false,
            size,
        }
    }

    #[test]
    fn cksum_lines_are_a_crc_or_a_sum_that_holds_the_value() {
        let registry = Registry::default();
        let names = |value: u32| -> Vec<String> {
            cksum_candidates(&registry, &value.to_be_bytes())
                .into_iter()
                .map(|a| a.name.clone())
                .collect()
        };
        assert_eq!(names(65536), ["crc32-posix", "crc32"]);
        assert_eq!(names(65535), ["crc32-posix", "crc32", "bsd", "sysv"]);
        let wide = 1_000_000u32.to_be_bytes();
        let narrow = 542u32.to_be_bytes();
        assert_eq!(
            settle_cksum(&registry, None, &wide).unwrap().0.name,
            "crc32-posix"
        );
        assert_eq!(
            settle_cksum(&registry, Some("crc32"), &wide)
                .unwrap()
                .0
                .name,
            "crc32"
        );
        let (sysv, len) = settle_cksum(&registry, Some("sysv"), &narrow).unwrap();
        assert_eq!((sysv.name.as_str(), len), ("sysv", 4));
        assert!(settle_cksum(&registry, Some("sysv"), &wide).is_err());
        assert!(settle_cksum(&registry, Some("sha256"), &narrow).is_err());
        assert!(settle_cksum(&registry, None, &[1; 9]).is_err());
    }

    fn registry_algorithm(name: &str) -> Arc<Algorithm> {
        Arc::clone(Registry::default().algorithm(name).unwrap())
    }

    #[test]
    fn the_first_match_settles_the_length_and_says_so() {
        let registry = Registry::default();
        let md5 = registry_algorithm("md5");
        let xxh = registry_algorithm("xxh3-128");
        let blake2b = registry_algorithm("blake2b");
        let tried = [md5, xxh, blake2b];
        let mut lengths = Lengths::default();
        let (outcome, settlement) = lengths
            .probe(&tried, &line(None), 16, |a| {
                Ok(if a.name == "xxh3-128" {
                    Outcome::Ok
                } else {
                    Outcome::Failed
                })
            })
            .unwrap();
        assert!(matches!(outcome, Outcome::Ok));
        assert_eq!(
            settlement,
            Some(Settlement {
                bytes: 16,
                algorithm: Some("xxh3-128".into()),
                tried: vec!["md5".into(), "xxh3-128".into()],
                below_cryptographic: true,
            })
        );
        match lengths.plan(&registry, &line(None), 16) {
            Plan::Settled(a) => assert_eq!(a.name, "xxh3-128"),
            _ => panic!("16 bytes settled"),
        }
        // Another length is still open.
        assert!(matches!(
            lengths.plan(&registry, &line(None), 32),
            Plan::Try(_)
        ));
        let mut dash = line(None);
        dash.name = b"-".to_vec();
        assert!(matches!(
            lengths.plan(&registry, &dash, 32),
            Plan::Unreadable
        ));
        // cksum's lines settle apart from untagged lines, by their value.
        let mut cksum_line = line(Some(3));
        cksum_line.expected = 70000u32.to_be_bytes().to_vec();
        assert!(matches!(
            lengths.plan(&registry, &cksum_line, 4),
            Plan::Try(c) if c.len() == 2
        ));
    }

    #[test]
    fn none_matching_is_failed_and_settles_nothing() {
        let registry = Registry::default();
        let md5 = registry_algorithm("md5");
        let xxh = registry_algorithm("xxh3-128");
        let mut lengths = Lengths::default();
        let (outcome, settlement) = lengths
            .probe(&[md5.clone(), xxh.clone()], &line(None), 16, |_| {
                Ok(Outcome::Failed)
            })
            .unwrap();
        assert!(matches!(outcome, Outcome::Failed));
        let settlement = settlement.unwrap();
        assert_eq!(settlement.algorithm, None);
        assert_eq!(settlement.tried, ["md5", "xxh3-128"]);
        assert!(matches!(
            lengths.plan(&registry, &line(None), 16),
            Plan::Try(_)
        ));
        // An unreadable file settles nothing and names no candidates.
        let (outcome, settlement) = lengths
            .probe(&[md5, xxh], &line(None), 16, |_| {
                Ok(Outcome::Unreadable(std::io::ErrorKind::NotFound.into()))
            })
            .unwrap();
        assert!(matches!(outcome, Outcome::Unreadable(_)));
        assert_eq!(settlement, None);
        // A match of a cryptographic hash after a CRC is no fall.
        let crc = registry_algorithm("crc32");
        let sha = registry_algorithm("sha256");
        let (_, settlement) = lengths
            .probe(&[crc, sha], &line(None), 4, |a| {
                Ok(if a.name == "sha256" {
                    Outcome::Ok
                } else {
                    Outcome::Failed
                })
            })
            .unwrap();
        assert!(!settlement.unwrap().below_cryptographic);
    }
}
