//! The multiply-mix hashes written for hash tables: wyhash (final4),
//! rapidhash (v3), komihash (5.x) and foldhash. Each value is printed
//! big-endian, as xxhsum prints XXH64.
//!
//! The authors' crates give one-shot functions, which are what a hash table
//! calls and what [`Hasher::hash_message_into`] uses. Their incremental
//! hashers have no `Clone` (a hasher is copied mid-message: hashlib's
//! `copy()`, the registry's prototypes), so the incremental form is written
//! here from the one-shot definitions: the lanes absorb whole blocks while
//! more input follows, and the last block or less goes through the
//! definition's tail, with the 16 bytes before it for the reads that reach
//! back. A message that never filled a block is handed to the crate whole.
//! Tests compare both forms with the crates' one-shot functions on every
//! length and split.

use std::hash::{BuildHasher, Hasher as _};

use super::one_shot_when_idle;
use crate::dispatch::Dispatch;
use crate::{Backend, Config, Hasher};

const PORTABLE: Dispatch = crate::dispatch::scalar("portable Rust");

fn mum(a: u64, b: u64) -> (u64, u64) {
    let product = u128::from(a) * u128::from(b);
    (product as u64, (product >> 64) as u64)
}

fn mix(a: u64, b: u64) -> u64 {
    let (lo, hi) = mum(a, b);
    lo ^ hi
}

fn read64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// One algorithm's lanes: the state between blocks.
trait Lanes: Clone + Send + 'static {
    /// The block the bulk loop absorbs.
    const BLOCK: usize;
    /// True where the definition's loop runs only while *more* than a block
    /// remains, so a final whole block goes through the tail.
    const LAST_BLOCK_IN_TAIL: bool;

    fn new(seed: u64) -> Self;
    fn block(&mut self, block: &[u8]);
    /// The hash of a message that filled at least one block: `tail` is what
    /// the lanes have not absorbed (`1..=BLOCK` bytes, or `0..BLOCK`), `back`
    /// the 16 bytes before it, `length` the message's length.
    fn finish(&self, tail: &[u8], back: &[u8; 16], length: u64) -> u64;
    /// The crate's one-shot function.
    fn one_shot(data: &[u8], seed: u64) -> u64;
}

const MAX_BLOCK: usize = 112;

#[derive(Clone)]
struct Streamed<L: Lanes> {
    seed: u64,
    lanes: L,
    /// True once `lanes` has absorbed a block.
    absorbed: bool,
    pending: [u8; MAX_BLOCK],
    filled: usize,
    back: [u8; 16],
    length: u64,
}

impl<L: Lanes> Streamed<L> {
    fn new(seed: u64) -> Self {
        Streamed {
            seed,
            lanes: L::new(seed),
            absorbed: false,
            pending: [0; MAX_BLOCK],
            filled: 0,
            back: [0; 16],
            length: 0,
        }
    }

    /// True when `available` bytes may be absorbed as a block now.
    fn may_absorb(available: usize) -> bool {
        if L::LAST_BLOCK_IN_TAIL {
            available > L::BLOCK
        } else {
            available >= L::BLOCK
        }
    }

    fn absorb(&mut self, block: &[u8]) {
        self.lanes.block(block);
        self.back.copy_from_slice(&block[L::BLOCK - 16..L::BLOCK]);
        self.absorbed = true;
    }

    fn write(&mut self, mut data: &[u8]) {
        self.length += data.len() as u64;
        if !Self::may_absorb(self.filled + data.len()) {
            self.pending[self.filled..self.filled + data.len()].copy_from_slice(data);
            self.filled += data.len();
            return;
        }
        if self.filled > 0 {
            let take = L::BLOCK - self.filled;
            self.pending[self.filled..L::BLOCK].copy_from_slice(&data[..take]);
            data = &data[take..];
            let block = self.pending;
            self.absorb(&block[..L::BLOCK]);
            self.filled = 0;
        }
        while Self::may_absorb(data.len()) {
            self.absorb(&data[..L::BLOCK]);
            data = &data[L::BLOCK..];
        }
        self.pending[..data.len()].copy_from_slice(data);
        self.filled = data.len();
    }

    fn value(&self) -> u64 {
        if self.absorbed {
            self.lanes
                .finish(&self.pending[..self.filled], &self.back, self.length)
        } else {
            L::one_shot(&self.pending[..self.filled], self.seed)
        }
    }
}

impl<L: Lanes> Hasher for Streamed<L> {
    fn update(&mut self, data: &[u8]) {
        self.write(data);
    }

    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        out.copy_from_slice(&self.value().to_be_bytes());
        self.reset();
    }

    fn hash_message_into(&mut self, data: &[u8], out: &mut [u8]) {
        one_shot_when_idle(self, self.length == 0, data, out, |h, data, out| {
            out.copy_from_slice(&L::one_shot(data, h.seed).to_be_bytes())
        })
    }

    fn reset(&mut self) {
        *self = Streamed::new(self.seed);
    }

    fn output_len(&self) -> usize {
        8
    }

    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

/// wyhash final4 (Wang Yi, `wyhash.h`), default secret.
#[derive(Clone)]
struct WyHash {
    seed: u64,
    see1: u64,
    see2: u64,
}

impl WyHash {
    const SECRET: [u64; 4] = [
        0xa076_1d64_78bd_642f,
        0xe703_7ed1_a0b4_28db,
        0x8ebc_6af0_9c88_c6e3,
        0x5899_65cc_7537_4cc3,
    ];
}

impl Lanes for WyHash {
    const BLOCK: usize = 48;
    const LAST_BLOCK_IN_TAIL: bool = true;

    fn new(seed: u64) -> Self {
        let seed = seed ^ mix(seed ^ Self::SECRET[0], Self::SECRET[1]);
        WyHash {
            seed,
            see1: seed,
            see2: seed,
        }
    }

    fn block(&mut self, p: &[u8]) {
        let s = Self::SECRET;
        self.seed = mix(read64(p, 0) ^ s[1], read64(p, 8) ^ self.seed);
        self.see1 = mix(read64(p, 16) ^ s[2], read64(p, 24) ^ self.see1);
        self.see2 = mix(read64(p, 32) ^ s[3], read64(p, 40) ^ self.see2);
    }

    fn finish(&self, tail: &[u8], back: &[u8; 16], length: u64) -> u64 {
        let s = Self::SECRET;
        let mut seed = self.seed ^ self.see1 ^ self.see2;
        let mut rest = tail;
        while rest.len() > 16 {
            seed = mix(read64(rest, 0) ^ s[1], read64(rest, 8) ^ seed);
            rest = &rest[16..];
        }
        let last = last_16(back, tail);
        let (a, b) = mum(read64(&last, 0) ^ s[1], read64(&last, 8) ^ seed);
        mix(a ^ s[0] ^ length, b ^ s[1])
    }

    fn one_shot(data: &[u8], seed: u64) -> u64 {
        use wyhash_final4::{generics::WyHashVariant, WyHash64};
        WyHash64::hash_with_seed(data, seed)
    }
}

/// The last 16 bytes of the message whose unabsorbed end is `tail`.
fn last_16(back: &[u8; 16], tail: &[u8]) -> [u8; 16] {
    let mut last = [0u8; 16];
    let from_tail = tail.len().min(16);
    last[..16 - from_tail].copy_from_slice(&back[from_tail..]);
    last[16 - from_tail..].copy_from_slice(&tail[tail.len() - from_tail..]);
    last
}

/// rapidhash v3 (Nicoshev), the C++ implementation's secrets: the crate's
/// `RapidSecrets::seed_cpp`.
#[derive(Clone)]
struct RapidHash {
    seeds: [u64; 7],
}

impl RapidHash {
    /// With the C++ secrets only the seed depends on the seed.
    const SECRETS: [u64; 7] = rapidhash::v3::DEFAULT_RAPID_SECRETS.secrets;

    fn secrets(seed: u64) -> rapidhash::v3::RapidSecrets {
        rapidhash::v3::RapidSecrets::seed_cpp(seed)
    }
}

impl Lanes for RapidHash {
    const BLOCK: usize = 112;
    const LAST_BLOCK_IN_TAIL: bool = true;

    fn new(seed: u64) -> Self {
        RapidHash {
            seeds: [Self::secrets(seed).seed; 7],
        }
    }

    fn block(&mut self, p: &[u8]) {
        let s = Self::SECRETS;
        for (lane, seed) in self.seeds.iter_mut().enumerate() {
            *seed = mix(
                read64(p, 16 * lane) ^ s[lane],
                read64(p, 16 * lane + 8) ^ *seed,
            );
        }
    }

    fn finish(&self, tail: &[u8], back: &[u8; 16], _length: u64) -> u64 {
        let s = Self::SECRETS;
        let mut seed = self.seeds.iter().fold(0, |all, lane| all ^ lane);
        // The tail's 16-byte pairs take secret 2, 2, 1, 1, 2, 1 in turn.
        const SECRET_OF_PAIR: [usize; 6] = [2, 2, 1, 1, 2, 1];
        for (pair, &secret) in SECRET_OF_PAIR.iter().enumerate() {
            if tail.len() <= 16 * (pair + 1) {
                break;
            }
            seed = mix(
                read64(tail, 16 * pair) ^ s[secret],
                read64(tail, 16 * pair + 8) ^ seed,
            );
        }
        let last = last_16(back, tail);
        let remainder = tail.len() as u64;
        let (a, b) = mum(read64(&last, 0) ^ remainder ^ s[1], read64(&last, 8) ^ seed);
        mix(a ^ 0xaaaa_aaaa_aaaa_aaaa, b ^ s[1] ^ remainder)
    }

    fn one_shot(data: &[u8], seed: u64) -> u64 {
        rapidhash::v3::rapidhash_v3_seeded(data, &Self::secrets(seed))
    }
}

/// komihash 5 (Aleksey Vaneev).
#[derive(Clone)]
struct KomiHash {
    seeds: [u64; 8],
}

impl KomiHash {
    /// Two seeds absorb `a` and `b`: komihash's `KOMIHASH_HASHROUND`.
    fn round(seed1: &mut u64, seed5: &mut u64, a: u64, b: u64) {
        let (lo, hi) = mum(a ^ *seed1, b ^ *seed5);
        *seed5 = seed5.wrapping_add(hi);
        *seed1 = *seed5 ^ lo;
    }
}

impl Lanes for KomiHash {
    const BLOCK: usize = 64;
    const LAST_BLOCK_IN_TAIL: bool = false;

    fn new(seed: u64) -> Self {
        let mut seed1 = 0x243f_6a88_85a3_08d3 ^ (seed & 0x5555_5555_5555_5555);
        let mut seed5 = 0x4528_21e6_38d0_1377 ^ (seed & 0xaaaa_aaaa_aaaa_aaaa);
        Self::round(&mut seed1, &mut seed5, 0, 0);
        KomiHash {
            seeds: [
                seed1,
                0x1319_8a2e_0370_7344 ^ seed1,
                0xa409_3822_299f_31d0 ^ seed1,
                0x082e_fa98_ec4e_6c89 ^ seed1,
                seed5,
                0xbe54_66cf_34e9_0c6c ^ seed5,
                0xc0ac_29b7_c97c_50dd ^ seed5,
                0x3f84_d5b5_b547_0917 ^ seed5,
            ],
        }
    }

    fn block(&mut self, p: &[u8]) {
        let s = &mut self.seeds;
        let word = |i: usize| read64(p, 8 * i);
        let (r1l, r1h) = mum(word(0) ^ s[0], word(4) ^ s[4]);
        let (r2l, r2h) = mum(word(1) ^ s[1], word(5) ^ s[5]);
        let (r3l, r3h) = mum(word(2) ^ s[2], word(6) ^ s[6]);
        let (r4l, r4h) = mum(word(3) ^ s[3], word(7) ^ s[7]);
        s[4] = s[4].wrapping_add(r1h);
        s[5] = s[5].wrapping_add(r2h);
        s[6] = s[6].wrapping_add(r3h);
        s[7] = s[7].wrapping_add(r4h);
        s[1] = s[4] ^ r2l;
        s[2] = s[5] ^ r3l;
        s[3] = s[6] ^ r4l;
        s[0] = s[7] ^ r1l;
    }

    fn finish(&self, tail: &[u8], _back: &[u8; 16], _length: u64) -> u64 {
        let s = &self.seeds;
        let mut seed1 = s[0] ^ s[1] ^ s[2] ^ s[3];
        let mut seed5 = s[4] ^ s[5] ^ s[6] ^ s[7];
        let mut rest = tail;
        while rest.len() >= 16 {
            Self::round(&mut seed1, &mut seed5, read64(rest, 0), read64(rest, 8));
            rest = &rest[16..];
        }
        // komihash's final round: the last word padded with a 1 bit.
        let (mut r2l, mut r2h) = (seed1, seed5);
        if rest.len() >= 8 {
            let word = read64(rest, 0);
            r2l = r2h;
            r2h = seed1 ^ word;
            rest = &rest[8..];
        }
        let mut padded = [0u8; 8];
        padded[..rest.len()].copy_from_slice(rest);
        r2l ^= u64::from_le_bytes(padded) | 1 << (8 * rest.len());
        let (r3l, r3h) = mum(r2l, r2h);
        seed5 = seed5.wrapping_add(r3h);
        seed1 = seed5 ^ r3l;
        Self::round(&mut seed1, &mut seed5, 0, 0);
        seed1
    }

    fn one_shot(data: &[u8], seed: u64) -> u64 {
        komihash::komihash(data, seed)
    }
}

/// foldhash (Orson Peters), fast variant, a fixed seed. Its output may
/// change between versions and differs between 32- and 64-bit targets (its
/// documentation says so); the catalog marks it unstable, so no manifest
/// holds it. Its `Hasher::write` folds each call separately, so the message
/// is kept until the end and written once.
#[derive(Clone)]
struct FoldHash {
    state: foldhash::fast::FixedState,
    message: Vec<u8>,
}

impl FoldHash {
    fn value(state: &foldhash::fast::FixedState, data: &[u8]) -> u64 {
        let mut hasher = state.build_hasher();
        hasher.write(data);
        hasher.finish()
    }
}

impl Hasher for FoldHash {
    fn update(&mut self, data: &[u8]) {
        self.message.extend_from_slice(data);
    }

    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        out.copy_from_slice(&Self::value(&self.state, &self.message).to_be_bytes());
        self.message.clear();
    }

    fn hash_message_into(&mut self, data: &[u8], out: &mut [u8]) {
        let idle = self.message.is_empty();
        one_shot_when_idle(self, idle, data, out, |h, data, out| {
            out.copy_from_slice(&Self::value(&h.state, data).to_be_bytes())
        })
    }

    fn reset(&mut self) {
        self.message.clear();
    }

    fn output_len(&self) -> usize {
        8
    }

    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

fn streamed<L: Lanes>(algorithm: &str, backend: &str, what: &str) -> Backend {
    Backend::new(algorithm, backend, what, |config: &Config| {
        Ok(Box::new(Streamed::<L>::new(config.seed)))
    })
    .with_parameters()
    .with_dispatch(&PORTABLE)
}

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        streamed::<WyHash>(
            "wyhash",
            "wyhash-final4",
            "wyhash-final4 crate; incremental form here",
        ),
        streamed::<RapidHash>(
            "rapidhash",
            "rapidhash",
            "rapidhash crate (v3); incremental form here",
        ),
        streamed::<KomiHash>(
            "komihash",
            "komihash",
            "komihash crate; incremental form here",
        ),
        Backend::new(
            "foldhash",
            "foldhash",
            "foldhash crate, fast variant",
            |config| {
                Ok(Box::new(FoldHash {
                    state: foldhash::fast::FixedState::with_seed(config.seed),
                    message: Vec::new(),
                }))
            },
        )
        .with_parameters()
        .with_dispatch(&PORTABLE),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that differ at every position and length.
    fn message(length: usize) -> Vec<u8> {
        (0..length)
            .map(|i| {
                (i as u64)
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    .rotate_left(17) as u8
            })
            .collect()
    }

    fn incremental<L: Lanes>(data: &[u8], seed: u64, split: usize) -> u64 {
        let mut hasher = Streamed::<L>::new(seed);
        for piece in data.chunks(split.max(1)) {
            hasher.write(piece);
        }
        hasher.value()
    }

    fn agrees_with_the_crate<L: Lanes>() {
        for length in (0..=700).chain([1023, 1024, 1025, 4096, 10_007]) {
            let data = message(length);
            for seed in [0, 1, 0x0123_4567_89ab_cdef] {
                let expected = L::one_shot(&data, seed);
                for split in [1, 3, 7, 16, 47, 48, 49, 63, 64, 65, 111, 112, 113, 4096] {
                    assert_eq!(
                        incremental::<L>(&data, seed, split),
                        expected,
                        "length {length}, seed {seed}, pieces of {split}"
                    );
                }
            }
        }
    }

    #[test]
    fn wyhash_incremental_equals_one_shot() {
        agrees_with_the_crate::<WyHash>();
    }

    #[test]
    fn rapidhash_incremental_equals_one_shot() {
        agrees_with_the_crate::<RapidHash>();
    }

    #[test]
    fn komihash_incremental_equals_one_shot() {
        agrees_with_the_crate::<KomiHash>();
    }

    #[test]
    fn a_copy_mid_message_continues_independently() {
        let data = message(1000);
        let mut first = Streamed::<RapidHash>::new(0);
        first.write(&data[..300]);
        let mut copy = first.clone();
        first.write(&data[300..]);
        copy.write(&data[300..]);
        assert_eq!(first.value(), copy.value());
        assert_eq!(first.value(), RapidHash::one_shot(&data, 0));
    }

    #[test]
    fn foldhash_does_not_depend_on_the_split() {
        let data = message(777);
        let mut whole = [0u8; 8];
        let mut pieces = [0u8; 8];
        let mut hasher = FoldHash {
            state: foldhash::fast::FixedState::with_seed(0),
            message: Vec::new(),
        };
        hasher.hash_message_into(&data, &mut whole);
        for piece in data.chunks(10) {
            hasher.update(piece);
        }
        hasher.finalize_into_reset(&mut pieces);
        assert_eq!(whole, pieces);
    }
}
