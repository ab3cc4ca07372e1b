//! Keys: random ones from a seeded stream, and the structured keysets
//! (sparse, cyclic, hash-table-like) that weak hashes get wrong.
//!
//! Every random key comes from ChaCha8 seeded by (run seed, test, block), so a
//! run is repeatable whatever the number of threads and the order they work in.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A stream of random bytes for one block of work of one test.
pub(crate) fn stream(seed: u64, test: u64, block: u64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&test.to_le_bytes());
    key[16..24].copy_from_slice(&block.to_le_bytes());
    ChaCha8Rng::from_seed(key)
}

/// A stable number for a test's name, to give each test its own stream. Not a
/// quality hash: ChaCha does the mixing, this only has to tell names apart.
pub(crate) fn test_id(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `count` distinct keys of `len` bytes from `rng`, each passed through
/// `adjust` first (e.g. to clear a bit), in the order drawn. Short keys can
/// repeat by chance, and a repeated key is a collision that is not the hash's fault.
pub(crate) fn distinct_keys(
    rng: &mut ChaCha8Rng,
    len: usize,
    count: usize,
    adjust: impl Fn(&mut [u8]),
) -> Vec<u8> {
    let space_bits = (len * 8) as f64;
    assert!(
        (count as f64).log2() < space_bits - 1.0,
        "{count} distinct {len}-byte keys cannot be drawn"
    );
    let mut keys = vec![0u8; len * count];
    let mut seen = std::collections::HashSet::with_capacity(count);
    let mut key = vec![0u8; len];
    let mut filled = 0;
    while filled < count {
        rng.fill_bytes(&mut key);
        adjust(&mut key);
        if seen.insert(key.clone()) {
            keys[filled * len..(filled + 1) * len].copy_from_slice(&key);
            filled += 1;
        }
    }
    keys
}

pub(crate) fn flip_bit(key: &mut [u8], bit: usize) {
    key[bit / 8] ^= 1 << (bit % 8);
}

/// Every key of `bits` bits with at most `max_set` bits set, as the positions
/// of its set bits: weight 0 first, then weight 1, 2, ... each in
/// lexicographic order of positions. Row `i` holds `max_set` positions,
/// `u16::MAX` past the key's weight.
pub(crate) fn sparse_positions(bits: usize, max_set: usize) -> Vec<u16> {
    assert!(bits < u16::MAX as usize && max_set >= 1);
    let mut rows = Vec::with_capacity(binomial_sum(bits, max_set) * max_set);
    for weight in 0..=max_set.min(bits) {
        let mut positions: Vec<usize> = (0..weight).collect();
        loop {
            let start = rows.len();
            rows.resize(start + max_set, u16::MAX);
            for (slot, &p) in rows[start..].iter_mut().zip(&positions) {
                *slot = p as u16;
            }
            // Next combination in lexicographic order: the last slot that can
            // still move right moves, and the slots after it follow it.
            let mut i = weight;
            let advanced = loop {
                if i == 0 {
                    break false;
                }
                i -= 1;
                if positions[i] < bits - weight + i {
                    positions[i] += 1;
                    for j in i + 1..weight {
                        positions[j] = positions[j - 1] + 1;
                    }
                    break true;
                }
            };
            if !advanced {
                break;
            }
        }
    }
    rows
}

pub(crate) fn binomial_sum(n: usize, k: usize) -> usize {
    let mut total = 0usize;
    let mut term = 1usize;
    for i in 0..=k.min(n) {
        total += term;
        term = term * (n - i) / (i + 1);
    }
    total
}

/// Writes the key whose set bits are `positions` into `key`.
pub(crate) fn sparse_key(positions: &[u16], key: &mut [u8]) {
    key.fill(0);
    for &p in positions.iter().take_while(|&&p| p != u16::MAX) {
        flip_bit(key, p as usize);
    }
}

/// Keys of hash-table workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableKeys {
    /// 0, 1, 2, ... as 4-byte little-endian integers.
    Sequential32,
    /// 0, 1, 2, ... as 8-byte little-endian integers.
    Sequential64,
    /// 64-byte-aligned addresses from 0x7f00_0000_0000, as 8-byte integers (pointer keys).
    Pointers,
    /// "key0", "key1", ...: decimal text of growing length.
    Text,
    /// Random 16-byte keys.
    Random16,
}

impl TableKeys {
    pub fn describe(&self) -> &'static str {
        match self {
            TableKeys::Sequential32 => "sequential 32-bit integers",
            TableKeys::Sequential64 => "sequential 64-bit integers",
            TableKeys::Pointers => "64-byte-aligned pointers",
            TableKeys::Text => "text keys \"key0\", \"key1\", ...",
            TableKeys::Random16 => "random 16-byte keys",
        }
    }

    /// Writes key `i` into `buf` and returns its length. Random keys come from
    /// `rng`, which the caller positions per block.
    pub fn write(&self, i: u64, rng: &mut ChaCha8Rng, buf: &mut [u8; 32]) -> usize {
        match self {
            TableKeys::Sequential32 => {
                buf[..4].copy_from_slice(&(i as u32).to_le_bytes());
                4
            }
            TableKeys::Sequential64 => {
                buf[..8].copy_from_slice(&i.to_le_bytes());
                8
            }
            TableKeys::Pointers => {
                buf[..8].copy_from_slice(&(0x7f00_0000_0000u64 + i * 64).to_le_bytes());
                8
            }
            TableKeys::Text => {
                use std::io::Write;
                let mut cursor = std::io::Cursor::new(&mut buf[..]);
                write!(cursor, "key{i}").expect("a u64 in decimal fits 32 bytes");
                cursor.position() as usize
            }
            TableKeys::Random16 => {
                // 2^-128 per pair: repeats are not worth checking for.
                rng.fill_bytes(&mut buf[..16]);
                16
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_keys_are_every_combination_once() {
        for (bits, max_set) in [(16, 3), (24, 4), (10, 10), (8, 1)] {
            let rows = sparse_positions(bits, max_set);
            let count = rows.len() / max_set;
            assert_eq!(count, binomial_sum(bits, max_set), "{bits}/{max_set}");
            let mut keys: Vec<Vec<u8>> = rows
                .chunks(max_set)
                .map(|row| {
                    let mut key = vec![0u8; bits.div_ceil(8)];
                    sparse_key(row, &mut key);
                    key
                })
                .collect();
            keys.sort();
            keys.dedup();
            assert_eq!(keys.len(), count);
        }
        assert_eq!(binomial_sum(64, 3), 1 + 64 + 2016 + 41664);
    }

    #[test]
    fn distinct_keys_are_distinct_and_adjusted() {
        let mut rng = stream(1, 2, 3);
        // 2-byte keys with bit 0 cleared: 32768 possible; 20000 drawn repeat often.
        let keys = distinct_keys(&mut rng, 2, 20_000, |k| k[0] &= !1);
        let mut list: Vec<&[u8]> = keys.chunks(2).collect();
        assert!(list.iter().all(|k| k[0] & 1 == 0));
        list.sort();
        list.dedup();
        assert_eq!(list.len(), 20_000);
    }

    #[test]
    fn streams_repeat_per_seed_and_differ_per_block() {
        let draw = |seed, block| stream(seed, 7, block).next_u64();
        assert_eq!(draw(1, 0), draw(1, 0));
        assert_ne!(draw(1, 0), draw(1, 1));
        assert_ne!(draw(1, 0), draw(2, 0));
    }

    #[test]
    fn table_keys_look_like_their_names() {
        let mut rng = stream(1, 1, 1);
        let mut buf = [0u8; 32];
        let len = TableKeys::Text.write(42, &mut rng, &mut buf);
        assert_eq!(&buf[..len], b"key42");
        let len = TableKeys::Pointers.write(1, &mut rng, &mut buf);
        assert_eq!(
            u64::from_le_bytes(buf[..len].try_into().unwrap()),
            0x7f00_0000_0040
        );
    }
}
