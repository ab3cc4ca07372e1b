//! SMHasher3's Seed BlockLen and Seed BlockOffset tests
//! (tests/SeedBlockLenTest.cpp, tests/SeedBlockOffsetTest.cpp): zero keys
//! holding one sparse 4-byte block, under sparse seeds, the block moved
//! through the key or the key grown around it. A hash whose seed and
//! block mixing cancel (XXH64, XXH3) collides here.

use rayon::prelude::*;
use serde::Serialize;

use crate::keys::{binomial_sum, sparse_key, sparse_positions};
use crate::keysets::keyset_findings;
use crate::statistic::Findings;
use crate::subject::{Secret, Subject, Worker};

/// Bits set in the seeds and in the block, at most (SMHasher3's seedbits
/// and blockbits), and the block's length.
const SEED_BITS: usize = 2;
const BLOCK_BITS: usize = 2;
const BLOCK: usize = 4;
/// SMHasher3's longest key in both tests (without --extra).
const LONGEST: usize = 31;

/// One Seed Block test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SeedBlocks {
    /// Keys of `key_bytes` bytes, the block at every multiple of 4 that fits
    /// (Seed BlockLen, key lengths 8 to 31).
    Length { key_bytes: usize },
    /// The block at `offset`, keys of every length from offset + 4 to 31
    /// bytes (Seed BlockOffset, offsets 0 to 5).
    Offset { offset: usize },
}

impl SeedBlocks {
    /// (key length, block offset) of the keys under one seed and block, in
    /// SMHasher3's order.
    fn layouts(&self) -> Vec<(usize, usize)> {
        match *self {
            SeedBlocks::Length { key_bytes } => (0..=key_bytes - BLOCK)
                .step_by(BLOCK)
                .map(|offset| (key_bytes, offset))
                .collect(),
            SeedBlocks::Offset { offset } => (offset + BLOCK..=LONGEST)
                .map(|len| (len, offset))
                .collect(),
        }
    }

    pub fn describe(&self, seed_bits: Option<usize>) -> String {
        let seeds = seed_bits.map_or(String::new(), |bits| {
            format!(" × {} seeds", binomial_sum(bits, SEED_BITS) - 1)
        });
        let blocks = binomial_sum(BLOCK * 8, BLOCK_BITS) - 1;
        match self {
            SeedBlocks::Length { key_bytes } => format!(
                "{key_bytes}-byte zero keys, a 4-byte block with ≤ 2 bits set at each multiple of 4 ({blocks} blocks{seeds}, seeds ≤ 2 bits)"
            ),
            SeedBlocks::Offset { offset } => format!(
                "zero keys of {} to {LONGEST} bytes, a 4-byte block with ≤ 2 bits set at byte {offset} ({blocks} blocks{seeds}, seeds ≤ 2 bits)",
                offset + BLOCK
            ),
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        match *self {
            SeedBlocks::Length { key_bytes } if !(2 * BLOCK..=LONGEST).contains(&key_bytes) => {
                Err(format!(
                    "seed block-length keys must be {} to {LONGEST} bytes, not {key_bytes}",
                    2 * BLOCK
                ))
            }
            SeedBlocks::Offset { offset } if offset + BLOCK > LONGEST => Err(format!(
                "a seed block offset must be at most {}, not {offset}",
                LONGEST - BLOCK
            )),
            _ => Ok(()),
        }
    }
}

/// Every seed with 1 or 2 bits set, each hashing every block with 1 or 2
/// bits set in every layout; the hashes' collisions and distribution.
pub(crate) fn seed_blocks(subject: &Subject, set: SeedBlocks) -> Findings {
    let seed_len = subject
        .seed_len
        .expect("seed tests are planned for seeded subjects only");
    let layouts = set.layouts();
    // Row 0 of each sparse list is the zero value, which SMHasher3 leaves out.
    let blocks: Vec<u16> = sparse_positions(BLOCK * 8, BLOCK_BITS)
        .into_iter()
        .skip(BLOCK_BITS)
        .collect();
    let seeds: Vec<u16> = sparse_positions(seed_len * 8, SEED_BITS)
        .into_iter()
        .skip(SEED_BITS)
        .collect();
    let per_seed: Vec<Vec<u64>> = seeds
        .par_chunks(SEED_BITS)
        .map(|positions| {
            let mut seed_bytes = vec![0u8; seed_len];
            sparse_key(positions, &mut seed_bytes);
            let mut worker = Worker::new(
                subject
                    .with_secret(Secret::Seed, &seed_bytes)
                    .expect("the backend took a seed when the subject was made"),
            );
            let mut block = [0u8; BLOCK];
            let mut key = [0u8; LONGEST];
            let mut out = Vec::with_capacity(blocks.len() / BLOCK_BITS * layouts.len());
            for bits in blocks.chunks(BLOCK_BITS) {
                sparse_key(bits, &mut block);
                for &(len, offset) in &layouts {
                    key.fill(0);
                    key[offset..offset + BLOCK].copy_from_slice(&block);
                    out.push(worker.hash64(&key[..len]));
                }
            }
            out
        })
        .collect();
    let hashes: Vec<u64> = per_seed.into_iter().flatten().collect();
    keyset_findings(subject, &hashes, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_smhasher3s() {
        // 9-byte keys: the block at 0 and 4 (offset 8 would not fit).
        assert_eq!(
            SeedBlocks::Length { key_bytes: 9 }.layouts(),
            vec![(9, 0), (9, 4)]
        );
        assert_eq!(SeedBlocks::Length { key_bytes: 31 }.layouts().len(), 7);
        // Offset 5: keys of 9 to 31 bytes.
        let offset = SeedBlocks::Offset { offset: 5 }.layouts();
        assert_eq!((offset.len(), offset[0]), (23, (9, 5)));
        assert!(SeedBlocks::Length { key_bytes: 7 }.check().is_err());
        assert!(SeedBlocks::Offset { offset: 28 }.check().is_err());
    }
}
