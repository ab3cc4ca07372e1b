//! SMHasher3's structured keysets beyond sparse and cyclic keys: Zeroes,
//! TwoBytes, Text and Permutation (fwojcik/smhasher3, tests/*KeysetTest.cpp).
//! Each hashes every key of a set in SMHasher3's order and asks of the
//! values what every keyset test asks (analysis.rs), and of the successive
//! differences too where SMHasher3 does (`testDeltas(1)`).

use rayon::prelude::*;
use serde::Serialize;

use crate::keysets::keyset_findings;
use crate::statistic::Findings;
use crate::subject::Subject;

/// Keys handed to a thread at a time.
const CHUNK: usize = 4096;

/// SMHasher3's 'Zeroes' keyset: the all-zero keys of 0 to `keys - 1` bytes,
/// which differ only in length (it hashes 200 Ki of them).
pub(crate) fn zeroes(subject: &Subject, keys: usize) -> Findings {
    let zeroes = vec![0u8; keys];
    let hashes: Vec<u64> = (0..keys)
        .into_par_iter()
        .with_min_len(64)
        .map_init(
            || subject.worker(),
            |worker, len| worker.hash64(&zeroes[..len]),
        )
        .collect();
    keyset_findings(subject, &hashes, true)
}

/// Which keys a TwoBytes test hashes: keys of zero bytes with one or two of
/// them set to any non-zero value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TwoBytes {
    /// Every length from 2 to this many bytes ('TwoBytesUpToLen').
    UpTo { bytes: usize },
    /// This length only ('TwoBytesLen'); past 55 bytes only the keys with one
    /// non-zero byte, as in SMHasher3.
    Length { bytes: usize },
}

/// Past this length SMHasher3 hashes only the one-byte keys (MAX_TWOBYTES).
const MAX_TWO_BYTES: usize = 56;

impl TwoBytes {
    pub fn describe(&self) -> String {
        match self {
            TwoBytes::UpTo { bytes } => {
                format!("keys of 2 to {bytes} zero bytes, one or two of them set")
            }
            TwoBytes::Length { bytes } if *bytes >= MAX_TWO_BYTES => {
                format!("{bytes}-byte zero keys, one byte set")
            }
            TwoBytes::Length { bytes } => {
                format!("{bytes}-byte zero keys, one or two bytes set")
            }
        }
    }

    /// How many keys the set holds.
    pub fn keys(&self) -> u64 {
        let of_length = |len: u64| {
            let two = if len < MAX_TWO_BYTES as u64 {
                len * len.saturating_sub(1) / 2 * 255 * 255
            } else {
                0
            };
            len * 255 + two
        };
        match *self {
            TwoBytes::UpTo { bytes } => (2..=bytes as u64).map(of_length).sum(),
            TwoBytes::Length { bytes } => of_length(bytes as u64),
        }
    }
}

/// The hashes of every key of one length with one non-zero byte (by
/// position, then value), then with two (by positions, then values), as
/// SMHasher3's TwoBytesLenKeygen orders them.
fn two_bytes_of_length(subject: &Subject, len: usize, hashes: &mut Vec<u64>) {
    let one: Vec<Vec<u64>> = (0..len)
        .into_par_iter()
        .map_init(
            || (subject.worker(), vec![0u8; len]),
            |(worker, key), position| {
                (1..=255u8)
                    .map(|value| {
                        key[position] = value;
                        let h = worker.hash64(key);
                        key[position] = 0;
                        h
                    })
                    .collect()
            },
        )
        .collect();
    hashes.extend(one.into_iter().flatten());
    if len >= MAX_TWO_BYTES {
        return;
    }
    let pairs: Vec<(usize, usize)> = (0..len)
        .flat_map(|a| (a + 1..len).map(move |b| (a, b)))
        .collect();
    let two: Vec<Vec<u64>> = pairs
        .into_par_iter()
        .map_init(
            || (subject.worker(), vec![0u8; len]),
            |(worker, key), (a, b)| {
                let mut out = Vec::with_capacity(255 * 255);
                for x in 1..=255u8 {
                    key[a] = x;
                    for y in 1..=255u8 {
                        key[b] = y;
                        out.push(worker.hash64(key));
                    }
                }
                key[a] = 0;
                key[b] = 0;
                out
            },
        )
        .collect();
    hashes.extend(two.into_iter().flatten());
}

/// SMHasher3's 'TwoBytes' keysets.
pub(crate) fn two_bytes(subject: &Subject, set: TwoBytes) -> Findings {
    let mut hashes = Vec::with_capacity(set.keys() as usize);
    match set {
        TwoBytes::UpTo { bytes } => {
            for len in 2..=bytes {
                two_bytes_of_length(subject, len, &mut hashes);
            }
        }
        TwoBytes::Length { bytes } => two_bytes_of_length(subject, bytes, &mut hashes),
    }
    keyset_findings(subject, &hashes, true)
}

/// SMHasher3's 'alnum' character set of its Text keysets (a space, digits,
/// capitals, small letters).
const ALNUM: &[u8] = b" 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A Text keyset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Text {
    /// "0", "1", ... up to `count - 1`, with thousands separated by commas
    /// or not ('Num').
    Numbers { count: u64, commas: bool },
    /// `prefix`, then every string of `core` characters of the alnum set,
    /// then `suffix` ('Text').
    Core {
        prefix: String,
        core: usize,
        suffix: String,
    },
}

impl Text {
    pub fn describe(&self) -> String {
        match self {
            Text::Numbers { count, commas } => format!(
                "numbers 0 to {} in decimal{}",
                count - 1,
                if *commas { " with commas" } else { "" }
            ),
            Text::Core {
                prefix,
                core,
                suffix,
            } => format!(
                "\"{prefix}\" + {core} alnum characters + \"{suffix}\" × {}",
                self.keys()
            ),
        }
    }

    pub fn keys(&self) -> u64 {
        match self {
            Text::Numbers { count, .. } => *count,
            // SMHasher3 caps a set at INT32_MAX / 8 keys.
            Text::Core { core, .. } => (ALNUM.len() as u64)
                .saturating_pow(*core as u32)
                .min(i32::MAX as u64 / 8),
        }
    }
}

fn number_text(n: u64, commas: bool, out: &mut Vec<u8>) {
    out.clear();
    let digits = n.to_string();
    if !commas {
        out.extend_from_slice(digits.as_bytes());
        return;
    }
    for (i, digit) in digits.bytes().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(b',');
        }
        out.push(digit);
    }
}

/// SMHasher3's 'Text' and 'Num' keysets (collisions and distribution only,
/// as there).
pub(crate) fn text(subject: &Subject, set: &Text) -> Findings {
    let keys = set.keys();
    let hashes: Vec<u64> = match set {
        Text::Numbers { commas, .. } => (0..keys as usize)
            .into_par_iter()
            .with_min_len(CHUNK)
            .map_init(
                || (subject.worker(), Vec::with_capacity(32)),
                |(worker, key), n| {
                    number_text(n as u64, *commas, key);
                    worker.hash64(key)
                },
            )
            .collect(),
        Text::Core {
            prefix,
            core,
            suffix,
        } => {
            let template: Vec<u8> =
                [prefix.as_bytes(), &vec![b'X'; *core], suffix.as_bytes()].concat();
            (0..keys as usize)
                .into_par_iter()
                .with_min_len(CHUNK)
                .map_init(
                    || (subject.worker(), template.clone()),
                    |(worker, key), n| {
                        let mut n = n as u64;
                        for slot in &mut key[prefix.len()..][..*core] {
                            *slot = ALNUM[(n % ALNUM.len() as u64) as usize];
                            n /= ALNUM.len() as u64;
                        }
                        worker.hash64(key)
                    },
                )
                .collect()
        }
    };
    keyset_findings(subject, &hashes, false)
}

/// A Permutation keyset: every sequence of 1 to `max_blocks` blocks drawn
/// from a small set of blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Permutation {
    pub blocks: Blocks,
    pub max_blocks: usize,
}

/// SMHasher3's block sets (tests/PermutationKeysetTest.cpp), each with its
/// values stored little- or big-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Blocks {
    /// 4-byte blocks 0..7 ('4-bytes [3 low bits]').
    LowBits { big_endian: bool },
    /// 4-byte blocks 0, 32, ..., 224 in the top byte ('4-bytes [3 high bits]').
    HighBits { big_endian: bool },
    /// The two sets above together, 15 blocks ('4-bytes [3 high+low bits]').
    HighAndLowBits { big_endian: bool },
    /// Two blocks of `bytes` bytes: zero and one with its lowest or highest
    /// bit set ('N-bytes [0, low bit]', '[0, high bit]').
    ZeroAndBit {
        bytes: usize,
        high: bool,
        big_endian: bool,
    },
}

impl Blocks {
    /// The blocks, concatenated, and the length of one.
    fn blocks(&self) -> (Vec<u8>, usize) {
        // A 4-byte block whose little-endian value has `low` in its lowest
        // byte and `high` in its highest; big-endian reverses it.
        let word = |low: u8, high: u8, big: bool| {
            let block = [low, 0, 0, high];
            if big {
                [high, 0, 0, low]
            } else {
                block
            }
        };
        match *self {
            Blocks::LowBits { big_endian } => {
                ((0..8).flat_map(|v| word(v, 0, big_endian)).collect(), 4)
            }
            Blocks::HighBits { big_endian } => (
                (0..8).flat_map(|v| word(0, v * 32, big_endian)).collect(),
                4,
            ),
            Blocks::HighAndLowBits { big_endian } => (
                (0..8)
                    .flat_map(|v| word(v, 0, big_endian))
                    .chain((1..8).flat_map(|v| word(0, v * 32, big_endian)))
                    .collect(),
                4,
            ),
            Blocks::ZeroAndBit {
                bytes,
                high,
                big_endian,
            } => {
                let mut set = vec![0u8; 2 * bytes];
                let (index, bit) = match (high, big_endian) {
                    (false, false) => (0, 1),
                    (false, true) => (bytes - 1, 1),
                    (true, false) => (bytes - 1, 0x80),
                    (true, true) => (0, 0x80),
                };
                set[bytes + index] = bit;
                (set, bytes)
            }
        }
    }

    pub fn describe(&self) -> String {
        let order = |big: bool| if big { "BE" } else { "LE" };
        match *self {
            Blocks::LowBits { big_endian } => format!("4-byte [3 low bits; {}]", order(big_endian)),
            Blocks::HighBits { big_endian } => {
                format!("4-byte [3 high bits; {}]", order(big_endian))
            }
            Blocks::HighAndLowBits { big_endian } => {
                format!("4-byte [3 high+low bits; {}]", order(big_endian))
            }
            Blocks::ZeroAndBit {
                bytes,
                high,
                big_endian,
            } => format!(
                "{bytes}-byte [0, {} bit; {}]",
                if high { "high" } else { "low" },
                order(big_endian)
            ),
        }
    }
}

impl Permutation {
    pub fn describe(&self) -> String {
        format!(
            "sequences of up to {} blocks of {} × {}",
            self.max_blocks,
            self.blocks.describe(),
            self.keys()
        )
    }

    pub fn keys(&self) -> u64 {
        let (set, size) = self.blocks.blocks();
        let count = (set.len() / size) as u64;
        (1..=self.max_blocks as u32).map(|n| count.pow(n)).sum()
    }
}

/// SMHasher3's 'Permutation' keysets: every sequence of blocks in its
/// order (depth first: a sequence, then every sequence it starts), one
/// thread per first block.
pub(crate) fn permutation(subject: &Subject, set: Permutation) -> Findings {
    let (blocks, size) = set.blocks.blocks();
    let count = blocks.len() / size;
    let per_first: Vec<Vec<u64>> = (0..count)
        .into_par_iter()
        .map(|first| {
            let mut worker = subject.worker();
            let mut key = vec![0u8; set.max_blocks * size];
            key[..size].copy_from_slice(&blocks[first * size..][..size]);
            let mut out = vec![worker.hash64(&key[..size])];
            // Which block each position past the first holds, depth first.
            let mut stack: Vec<usize> = Vec::with_capacity(set.max_blocks);
            if set.max_blocks > 1 {
                stack.push(0);
            }
            while let Some(&choice) = stack.last() {
                if choice == count {
                    stack.pop();
                    if let Some(parent) = stack.last_mut() {
                        *parent += 1;
                    }
                    continue;
                }
                let depth = stack.len();
                key[depth * size..][..size].copy_from_slice(&blocks[choice * size..][..size]);
                out.push(worker.hash64(&key[..(depth + 1) * size]));
                if depth + 1 < set.max_blocks {
                    stack.push(0);
                } else {
                    *stack.last_mut().expect("not empty") += 1;
                }
            }
            out
        })
        .collect();
    let hashes: Vec<u64> = per_first.into_iter().flatten().collect();
    keyset_findings(subject, &hashes, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_with_commas_group_thousands() {
        let mut out = Vec::new();
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ] {
            number_text(n, true, &mut out);
            assert_eq!(out, text.as_bytes());
        }
        number_text(1234567, false, &mut out);
        assert_eq!(out, b"1234567");
    }

    #[test]
    fn keyset_sizes_match_smhasher3s() {
        // SMHasher3 prints these counts: TwoBytesLen 32 has 32·255 + C(32,2)·255².
        assert_eq!(
            TwoBytes::Length { bytes: 32 }.keys(),
            32 * 255 + 496 * 65025
        );
        assert_eq!(TwoBytes::Length { bytes: 1024 }.keys(), 1024 * 255);
        let upto4 = (2..=4u64)
            .map(|l| l * 255 + l * (l - 1) / 2 * 65025)
            .sum::<u64>();
        assert_eq!(TwoBytes::UpTo { bytes: 4 }.keys(), upto4);
        // 8 blocks, up to 7 of them: 8 + 8² + ... + 8⁷.
        let low = Permutation {
            blocks: Blocks::LowBits { big_endian: false },
            max_blocks: 7,
        };
        assert_eq!(low.keys(), 2_396_744);
        let text = Text::Core {
            prefix: "F".into(),
            core: 4,
            suffix: "B".into(),
        };
        assert_eq!(text.keys(), 63u64.pow(4));
    }

    #[test]
    fn blocks_are_smhasher3s() {
        let (set, size) = Blocks::HighBits { big_endian: true }.blocks();
        assert_eq!((size, &set[4..8]), (4, &[32u8, 0, 0, 0][..]));
        let (set, _) = Blocks::HighAndLowBits { big_endian: false }.blocks();
        assert_eq!(set.len(), 15 * 4);
        assert_eq!(&set[8 * 4..9 * 4], &[0, 0, 0, 32]);
        let (set, size) = Blocks::ZeroAndBit {
            bytes: 8,
            high: true,
            big_endian: false,
        }
        .blocks();
        assert_eq!((size, set[15]), (8, 0x80));
    }
}
