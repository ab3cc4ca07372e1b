//! The hash-table hashes with a stable, published output: FNV-1a (32 and 64
//! bits, the value big-endian) and MurmurHash3 (x86_32, the value big-endian;
//! x64_128, the reference's 16 output bytes), as Guava, Cassandra and Kafka
//! use them.
//!
//! Seeds follow SMHasher3 (hashes/fnv.cpp, hashes/murmurhash3.cpp), so its
//! seed tests and published verification values apply here: MurmurHash3
//! starts its state from the 32-bit seed (the reference's own seed), FNV-1a
//! starts from its offset basis XORed with the seed. Seed 0 is the unseeded hash.

use std::hash::Hasher as _;

use super::Native;
use crate::dispatch::Dispatch;
use crate::Backend;

const PORTABLE: Dispatch = crate::dispatch::scalar("portable Rust");

/// FNV-1a 32 (Fowler, Noll & Vo). The `fnv` crate has only the 64-bit hash;
/// the 32-bit one is these four lines of the published definition. `start`
/// is the offset basis XORed with the seed.
#[derive(Clone)]
struct Fnv1a32 {
    h: u32,
    start: u32,
}

impl Fnv1a32 {
    const OFFSET: u32 = 0x811c_9dc5;
    const PRIME: u32 = 0x0100_0193;

    fn new(seed: u32) -> Self {
        let start = Self::OFFSET ^ seed;
        Fnv1a32 { h: start, start }
    }

    fn update(&mut self, data: &[u8]) {
        for &byte in data {
            self.h = (self.h ^ u32::from(byte)).wrapping_mul(Self::PRIME);
        }
    }
}

/// The `fnv` crate's FNV-1a 64 with the `Clone` a hasher needs: its state is
/// the value `finish` returns, and `with_key` starts from a given state (the
/// offset basis XORed with the seed, kept in `start` for a reset).
struct Fnv1a64 {
    h: fnv::FnvHasher,
    start: u64,
}

impl Fnv1a64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

    fn new(seed: u64) -> Self {
        let start = Self::OFFSET ^ seed;
        Fnv1a64 {
            h: fnv::FnvHasher::with_key(start),
            start,
        }
    }
}

impl Clone for Fnv1a64 {
    fn clone(&self) -> Self {
        Fnv1a64 {
            h: fnv::FnvHasher::with_key(self.h.finish()),
            start: self.start,
        }
    }
}

/// MurmurHash3 (Appleby, SMHasher's MurmurHash3.cpp), fed incrementally. The
/// one incremental crate, mur3, has no `Clone`, which a hasher needs (its
/// state is copied mid-message), so the two variants are written here from
/// the reference: a block function, the tail and the finalization.
#[derive(Clone)]
struct Murmur3<S: Murmur3Variant> {
    state: S,
    block: [u8; 16],
    filled: usize,
    length: u64,
    seed: u32,
}

trait Murmur3Variant: Clone {
    const BLOCK: usize;
    /// The state before any block: every word set to the seed.
    fn seeded(seed: u32) -> Self;
    fn block(&mut self, block: &[u8]);
    /// The last `tail.len() < BLOCK` bytes, then the finalization.
    fn finish(self, tail: &[u8], length: u64, out: &mut [u8]);
}

impl<S: Murmur3Variant> Murmur3<S> {
    fn new(seed: u32) -> Self {
        Murmur3 {
            state: S::seeded(seed),
            block: [0; 16],
            filled: 0,
            length: 0,
            seed,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.length += data.len() as u64;
        if self.filled > 0 {
            let take = (S::BLOCK - self.filled).min(data.len());
            self.block[self.filled..self.filled + take].copy_from_slice(&data[..take]);
            self.filled += take;
            data = &data[take..];
            if self.filled < S::BLOCK {
                return;
            }
            let block = self.block;
            self.state.block(&block[..S::BLOCK]);
            self.filled = 0;
        }
        let mut blocks = data.chunks_exact(S::BLOCK);
        for block in &mut blocks {
            self.state.block(block);
        }
        let rest = blocks.remainder();
        self.block[..rest.len()].copy_from_slice(rest);
        self.filled = rest.len();
    }

    fn finish_reset(&mut self, out: &mut [u8]) {
        let done = std::mem::replace(self, Murmur3::new(self.seed));
        done.state
            .finish(&done.block[..done.filled], done.length, out);
    }
}

fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// MurmurHash3_x86_32.
#[derive(Clone)]
struct X86x32(u32);

impl X86x32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;

    fn mix(k: u32) -> u32 {
        k.wrapping_mul(Self::C1)
            .rotate_left(15)
            .wrapping_mul(Self::C2)
    }
}

impl Murmur3Variant for X86x32 {
    const BLOCK: usize = 4;

    fn seeded(seed: u32) -> Self {
        X86x32(seed)
    }

    fn block(&mut self, block: &[u8]) {
        let k = u32::from_le_bytes(block.try_into().expect("4-byte block"));
        self.0 = (self.0 ^ Self::mix(k))
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64);
    }

    fn finish(mut self, tail: &[u8], length: u64, out: &mut [u8]) {
        if !tail.is_empty() {
            let mut k = [0u8; 4];
            k[..tail.len()].copy_from_slice(tail);
            self.0 ^= Self::mix(u32::from_le_bytes(k));
        }
        // The reference takes the length as a 32-bit int.
        let h = fmix32(self.0 ^ length as u32);
        out.copy_from_slice(&h.to_be_bytes());
    }
}

/// MurmurHash3_x64_128.
#[derive(Clone)]
struct X64x128(u64, u64);

impl X64x128 {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;

    fn mix1(k: u64) -> u64 {
        k.wrapping_mul(Self::C1)
            .rotate_left(31)
            .wrapping_mul(Self::C2)
    }

    fn mix2(k: u64) -> u64 {
        k.wrapping_mul(Self::C2)
            .rotate_left(33)
            .wrapping_mul(Self::C1)
    }
}

impl Murmur3Variant for X64x128 {
    const BLOCK: usize = 16;

    /// The reference widens its 32-bit seed into both 64-bit words.
    fn seeded(seed: u32) -> Self {
        X64x128(u64::from(seed), u64::from(seed))
    }

    fn block(&mut self, block: &[u8]) {
        let k1 = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
        let k2 = u64::from_le_bytes(block[8..].try_into().expect("8 bytes"));
        let X64x128(mut h1, mut h2) = *self;
        h1 = (h1 ^ Self::mix1(k1)).rotate_left(27).wrapping_add(h2);
        h1 = h1.wrapping_mul(5).wrapping_add(0x52dc_e729);
        h2 = (h2 ^ Self::mix2(k2)).rotate_left(31).wrapping_add(h1);
        h2 = h2.wrapping_mul(5).wrapping_add(0x3849_5ab5);
        *self = X64x128(h1, h2);
    }

    fn finish(self, tail: &[u8], length: u64, out: &mut [u8]) {
        let X64x128(mut h1, mut h2) = self;
        let mut k = [0u8; 16];
        k[..tail.len()].copy_from_slice(tail);
        if tail.len() > 8 {
            h2 ^= Self::mix2(u64::from_le_bytes(k[8..].try_into().expect("8 bytes")));
        }
        if !tail.is_empty() {
            h1 ^= Self::mix1(u64::from_le_bytes(k[..8].try_into().expect("8 bytes")));
        }
        h1 ^= length;
        h2 ^= length;
        h1 = h1.wrapping_add(h2);
        h2 = h2.wrapping_add(h1);
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 = h1.wrapping_add(h2);
        h2 = h2.wrapping_add(h1);
        // The reference writes h1 then h2, each little-endian.
        out[..8].copy_from_slice(&h1.to_le_bytes());
        out[8..].copy_from_slice(&h2.to_le_bytes());
    }
}

fn murmur3<S: Murmur3Variant + Send + 'static>(algorithm: &str, out_len: usize) -> Backend {
    Backend::new(
        algorithm,
        "murmur3",
        "MurmurHash3 from the reference, portable Rust",
        move |config| {
            // The registry has checked that the seed fits in 32 bits.
            Ok(Box::new(Native {
                state: Murmur3::<S>::new(config.seed as u32),
                out_len,
                update: Murmur3::update,
                finish_reset: Murmur3::finish_reset,
                reset: |m| *m = Murmur3::new(m.seed),
            }))
        },
    )
    .with_parameters()
    .with_dispatch(&PORTABLE)
}

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        Backend::new("fnv1a-32", "fnv", "FNV-1a 32, portable Rust", |config| {
            Ok(Box::new(Native {
                state: Fnv1a32::new(config.seed as u32),
                out_len: 4,
                update: Fnv1a32::update,
                finish_reset: |h, out| {
                    out.copy_from_slice(&h.h.to_be_bytes());
                    h.h = h.start;
                },
                reset: |h| h.h = h.start,
            }))
        })
        .with_parameters()
        .with_dispatch(&PORTABLE),
        Backend::new("fnv1a-64", "fnv", "fnv crate (servo)", |config| {
            Ok(Box::new(Native {
                state: Fnv1a64::new(config.seed),
                out_len: 8,
                update: |h, data| h.h.write(data),
                finish_reset: |h, out| {
                    out.copy_from_slice(&h.h.finish().to_be_bytes());
                    h.h = fnv::FnvHasher::with_key(h.start);
                },
                reset: |h| h.h = fnv::FnvHasher::with_key(h.start),
            }))
        })
        .with_parameters()
        .with_dispatch(&PORTABLE),
        murmur3::<X86x32>("murmur3-32", 4),
        murmur3::<X64x128>("murmur3-128", 16),
    ]
}
