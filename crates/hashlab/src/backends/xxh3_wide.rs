//! XXH3 (64 and 128 bits) with its long-input loop written here, for
//! AVX-512 and AVX2 chosen at run time.
//!
//! Why by hand: no maintained crate runs XXH3's accumulate loop with AVX-512
//! chosen at run time. twox-hash 2.1 stops at AVX2, xxhash-rust fixes its
//! path when it is compiled (SSE2 without `-C target-cpu`), xxhash-c-sys
//! builds xxHash's C without its x86 dispatcher (SSE2), and rscrypto 0.9's
//! AVX-512 path hashed a cached 1 MiB at 28 GB/s where xxHash's own C code
//! (PyPI's xxhash) did 52 and twox-hash 23, on the same Xeon. The loop is
//! the whole cost of a long input, and one 512-bit register holds all eight
//! of XXH3's accumulators.
//!
//! Inputs of up to 240 bytes have no loop (XXH3's short and mid-size
//! formulas); they go to twox-hash's one-shot functions.
//! The long path follows xxHash's `XXH3_hashLong_*` exactly: stripes of 64
//! bytes, a scramble after every 16 (one block of the 192-byte secret), the
//! input's last 64 bytes as a final stripe, and the accumulators merged.

use super::WithOneShot;
use crate::dispatch::{dispatch, x86, Dispatch, Need::Feature as F};
use crate::{Backend, Hasher};

const STRIPE: usize = 64;
const SECRET_LEN: usize = 192;
const STRIPES_PER_BLOCK: usize = (SECRET_LEN - STRIPE) / 8;
/// The longest input XXH3 hashes without the accumulate loop.
const MIDSIZE_MAX: usize = 240;
/// Input held before the first stripe is taken: more than [`MIDSIZE_MAX`],
/// so a message that ends within it is hashed by the short formulas.
const BUFFER: usize = 4 * STRIPE;
/// A whole message up to this long goes to twox-hash's one-shot function:
/// those without XXH3's loop. Since the end of a message is merged from
/// registers the loop wins from the first input that has it (`hashlab bench`,
/// three runs, this loop against twox-hash: 1.10-1.12x at 256 B, 1.18x at
/// 320 B, 1.19-1.23x at 384-512 B, 1.32-1.41x at 768 B); before, twox-hash
/// was faster up to 512 B.
const SHORT_ONE_SHOT_MAX: usize = MIDSIZE_MAX;
/// Where the final stripe's and the merges' secret begins (xxHash's
/// XXH_SECRET_LASTACC_START and XXH_SECRET_MERGEACCS_START).
const LAST_STRIPE_SECRET: usize = SECRET_LEN - STRIPE - 7;
const MERGE_SECRET: usize = 11;

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;
const PRIME_MX1: u64 = 0x1656_6791_9E37_79F9;

const INITIAL_ACCUMULATORS: [u64; 8] = [
    PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1,
];

/// XXH3's default secret (xxhash.h, XXH3_kSecret).
const DEFAULT_SECRET: [u8; SECRET_LEN] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
];

// The same rule as `Kernel::detect`, as data for `hashlab cpu` and --mask-cpu.
const WIDE_XXH3: Dispatch = dispatch(
    &[x86("AVX-512", &[F("avx512f")]), x86("AVX2", &[F("avx2")])],
    "scalar Rust",
);

fn read64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// A secret with a 64-byte-aligned copy of each block stripe's key
/// (`bytes[8 * i..8 * i + 64]`): loaded from the secret itself, seven of
/// every eight keys straddle two cache lines, and those split loads cost the
/// AVX-512 loop a third of its speed. GCC builds the same table from
/// xxHash's constant secret by itself; the default one is built at compile
/// time here, a seeded one when its hasher is made.
#[repr(C, align(64))]
#[derive(Clone)]
struct Secret {
    stripe_keys: [[u8; STRIPE]; STRIPES_PER_BLOCK],
    /// The secret; 64-byte aligned too, so its last stripe (the scramble
    /// key) is.
    bytes: [u8; SECRET_LEN],
}

impl Secret {
    const fn new(bytes: [u8; SECRET_LEN]) -> Secret {
        let mut stripe_keys = [[0; STRIPE]; STRIPES_PER_BLOCK];
        let mut i = 0;
        while i < STRIPES_PER_BLOCK {
            let mut j = 0;
            while j < STRIPE {
                stripe_keys[i][j] = bytes[8 * i + j];
                j += 1;
            }
            i += 1;
        }
        Secret { stripe_keys, bytes }
    }

    /// The secret of a seed other than 0 (xxHash's XXH3_initCustomSecret).
    fn seeded(seed: u64) -> Secret {
        let mut bytes = DEFAULT_SECRET;
        for pair in bytes.chunks_exact_mut(16) {
            let low = read64(pair, 0).wrapping_add(seed);
            let high = read64(pair, 8).wrapping_sub(seed);
            pair[..8].copy_from_slice(&low.to_le_bytes());
            pair[8..].copy_from_slice(&high.to_le_bytes());
        }
        Secret::new(bytes)
    }

    /// The key of a message's final stripe, at an odd offset of the secret.
    fn last_stripe_key(&self) -> &[u8; STRIPE] {
        self.bytes[LAST_STRIPE_SECRET..LAST_STRIPE_SECRET + STRIPE]
            .try_into()
            .expect("one stripe")
    }

    fn scramble_key(&self) -> &[u8; STRIPE] {
        self.bytes[SECRET_LEN - STRIPE..]
            .try_into()
            .expect("one stripe")
    }
}

static DEFAULT: Secret = Secret::new(DEFAULT_SECRET);

/// The secret of a long hash: the default one for seed 0, else its own
/// (xxHash's XXH3_initCustomSecret), boxed: a hasher carries it.
#[derive(Clone)]
enum Keys {
    Default,
    Seeded(Box<Secret>),
}

impl Keys {
    fn for_seed(seed: u64) -> Keys {
        if seed == 0 {
            return Keys::Default;
        }
        Keys::Seeded(Box::new(Secret::seeded(seed)))
    }

    fn secret(&self) -> &Secret {
        match self {
            Keys::Default => &DEFAULT,
            Keys::Seeded(secret) => secret,
        }
    }
}

/// The code that runs the loop, chosen once when a hasher is made. A SIMD
/// variant exists only where [`Kernel::detect`] found its feature, which is
/// what makes calling its `target_feature` functions sound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Scalar,
}

impl Kernel {
    fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Kernel::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Kernel::Avx2;
            }
        }
        Kernel::Scalar
    }

    /// Every kernel this CPU can run (for the tests that hold each to the others).
    #[cfg(test)]
    fn available() -> Vec<Kernel> {
        #[allow(unused_mut)]
        let mut all = vec![Kernel::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                all.push(Kernel::Avx2);
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                all.push(Kernel::Avx512);
            }
        }
        all
    }

    /// Accumulates whole stripes from stripe `in_block` of a block on,
    /// scrambling at every block's end. The SIMD kernels keep the
    /// accumulators in registers across blocks, as xxHash's C does: with a
    /// store and a load around each block and each scramble the same AVX-512
    /// loop ran at the speed of twox-hash's AVX2 one.
    fn consume(self, acc: &mut [u64; 8], in_block: &mut usize, secret: &Secret, stripes: &[u8]) {
        assert!(stripes.len().is_multiple_of(STRIPE), "whole stripes");
        assert!(*in_block < STRIPES_PER_BLOCK, "a stripe within a block");
        match self {
            // SAFETY: the variant exists only where detect() found the
            // feature; the kernels read whole stripes and the secret's
            // aligned stripe keys.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::consume_avx512(acc, in_block, secret, stripes) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::consume_avx2(acc, in_block, secret, stripes) },
            Kernel::Scalar => {
                let tail = secret.scramble_key();
                for stripe in stripes.chunks_exact(STRIPE) {
                    accumulate_scalar(acc, stripe, &secret.stripe_keys[*in_block]);
                    *in_block += 1;
                    if *in_block == STRIPES_PER_BLOCK {
                        scramble_scalar(acc, tail);
                        *in_block = 0;
                    }
                }
            }
        }
    }

    /// The digest of a long message: `consume` of its last whole stripes
    /// but one, its final 64 bytes `last` (against the secret at an odd
    /// offset, outside the block structure), and the merge, in one call.
    /// The SIMD kernels merge from their registers: stored to memory, the
    /// accumulators cost 20-30 ns per message, at every size, because the
    /// next load could not be forwarded from the wide store.
    fn finish(self, acc: &[u64; 8], in_block: usize, end: End<'_>, out: &mut [u8]) {
        assert!(end.stripes.len().is_multiple_of(STRIPE), "whole stripes");
        assert!(in_block < STRIPES_PER_BLOCK, "a stripe within a block");
        match self {
            // SAFETY: as for `consume`; the final stripe's key lies inside the secret.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { x86::finish_avx512(acc, in_block, end, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::finish_avx2(acc, in_block, end, out) },
            Kernel::Scalar => {
                let (mut acc, mut in_block) = (*acc, in_block);
                self.consume(&mut acc, &mut in_block, end.secret, end.stripes);
                accumulate_scalar(&mut acc, end.last, end.secret.last_stripe_key());
                end.width.write_long(&acc, end.secret, end.len, out);
            }
        }
    }
}

/// What ends a long hash: the message's remaining whole stripes but one,
/// its final 64 bytes, its length, the secret and the output width.
#[derive(Clone, Copy)]
struct End<'a> {
    secret: &'a Secret,
    stripes: &'a [u8],
    last: &'a [u8; STRIPE],
    len: u64,
    width: Width,
}

fn scramble_scalar(acc: &mut [u64; 8], secret: &[u8; STRIPE]) {
    for (i, lane) in acc.iter_mut().enumerate() {
        let mixed = *lane ^ (*lane >> 47) ^ read64(secret, 8 * i);
        *lane = mixed.wrapping_mul(PRIME32_1);
    }
}

fn accumulate_scalar(acc: &mut [u64; 8], stripe: &[u8], secret: &[u8]) {
    for i in 0..8 {
        let data = read64(stripe, 8 * i);
        let keyed = data ^ read64(secret, 8 * i);
        acc[i ^ 1] = acc[i ^ 1].wrapping_add(data);
        acc[i] = acc[i].wrapping_add((keyed & 0xFFFF_FFFF) * (keyed >> 32));
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{End, Secret, PRIME32_1, STRIPE, STRIPES_PER_BLOCK};

    /// How far ahead the block loops prefetch (xxHash's XXH_PREFETCH_DIST).
    const PREFETCH_AHEAD: usize = 384;

    // One stripe: acc += swap64(data) + lo32(data ^ key) * hi32(data ^ key),
    // eight 64-bit lanes at once; the sum of the two terms is formed first
    // so the accumulators' dependency chain is one add per stripe.
    macro_rules! stripe512 {
        ($lanes:expr, $data:expr, $key:expr) => {{
            let data = _mm512_loadu_si512($data.cast());
            let keyed = _mm512_xor_si512(data, _mm512_loadu_si512($key.cast()));
            let product = _mm512_mul_epu32(keyed, _mm512_srli_epi64::<32>(keyed));
            let mut sum = _mm512_add_epi64(product, _mm512_shuffle_epi32::<_MM_PERM_BADC>(data));
            // An empty asm the sum passes through: LLVM would otherwise
            // reassociate the adds into two on the accumulators' chain
            // (xxHash's C has XXH_COMPILER_GUARD for the same reason).
            std::arch::asm!("/* {0} */", inout(zmm_reg) sum, options(pure, nomem, nostack, preserves_flags));
            _mm512_add_epi64($lanes, sum)
        }};
    }

    // acc = (acc ^ (acc >> 47) ^ key) * PRIME32_1, the 64-bit product from
    // two 32x32 multiplies (0x96: a three-way XOR in one instruction).
    macro_rules! scramble512 {
        ($lanes:expr, $key:expr, $prime:expr) => {{
            let lanes = $lanes;
            let mixed =
                _mm512_ternarylogic_epi32::<0x96>(lanes, _mm512_srli_epi64::<47>(lanes), $key);
            let low = _mm512_mul_epu32(mixed, $prime);
            let high = _mm512_mul_epu32(_mm512_srli_epi64::<32>(mixed), $prime);
            _mm512_add_epi64(low, _mm512_slli_epi64::<32>(high))
        }};
    }

    // Takes whole stripes from stripe `$at` of a block on: the block's
    // remaining stripes, whole blocks, then the rest, scrambling at each
    // block's end, with a kernel's `$stripe` and `$scramble` macros. Whole
    // blocks prefetch ahead as xxHash's C does: the loop outruns the L1
    // prefetcher on data from L2 (the address is formed by wrapping: it may
    // lie past the input, which a prefetch never faults on).
    macro_rules! walk_blocks {
        ($lanes:ident, $at:ident, $stripes:expr, $keys:expr, $stripe:ident, $scramble:ident,
         $scramble_key:expr, $prime:expr) => {{
            let mut rest: &[u8] = $stripes;
            while !rest.is_empty() {
                let take = (rest.len() / STRIPE).min(STRIPES_PER_BLOCK - $at);
                let (now, after) = rest.split_at(take * STRIPE);
                if take == STRIPES_PER_BLOCK {
                    // Unrolled in fours: LLVM keeps the sixteen as a loop,
                    // whose counter and branch were a fifth of the work
                    // per stripe (xxHash's C is unrolled whole).
                    for (q, four) in $keys.chunks_exact(4).enumerate() {
                        for (j, key) in four.iter().enumerate() {
                            let i = 4 * q + j;
                            let ahead = now.as_ptr().wrapping_add(STRIPE * i + PREFETCH_AHEAD);
                            _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
                            $lanes = $stripe!($lanes, now.as_ptr().add(STRIPE * i), key.as_ptr());
                        }
                    }
                } else {
                    for i in 0..take {
                        let key = $keys[$at + i].as_ptr();
                        $lanes = $stripe!($lanes, now.as_ptr().add(STRIPE * i), key);
                    }
                }
                $at += take;
                if $at == STRIPES_PER_BLOCK {
                    $lanes = $scramble!($lanes, $scramble_key, $prime);
                    $at = 0;
                }
                rest = after;
            }
        }};
    }

    // Inlined into finish_avx512, whose copy of the accumulators then
    // stays in registers.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn consume_avx512(
        acc: &mut [u64; 8],
        in_block: &mut usize,
        secret: &Secret,
        stripes: &[u8],
    ) {
        unsafe {
            let mut lanes = _mm512_loadu_si512(acc.as_ptr().cast());
            let prime = _mm512_set1_epi32(PRIME32_1 as i32);
            let scramble_key = _mm512_load_si512(secret.scramble_key().as_ptr().cast());
            let keys = &secret.stripe_keys;
            let mut at = *in_block;
            walk_blocks!(
                lanes,
                at,
                stripes,
                keys,
                stripe512,
                scramble512,
                scramble_key,
                prime
            );
            _mm512_storeu_si512(acc.as_mut_ptr().cast(), lanes);
            *in_block = at;
        }
    }

    // One stripe as two halves of four lanes.
    macro_rules! stripe256 {
        ($lanes:expr, $data:expr, $key:expr) => {{
            let mut lanes = $lanes;
            for (half, lane) in lanes.iter_mut().enumerate() {
                let data = _mm256_loadu_si256($data.add(32 * half).cast());
                let keyed = _mm256_xor_si256(data, _mm256_loadu_si256($key.add(32 * half).cast()));
                let product = _mm256_mul_epu32(keyed, _mm256_srli_epi64::<32>(keyed));
                let mut sum =
                    _mm256_add_epi64(product, _mm256_shuffle_epi32::<0b01_00_11_10>(data));
                // As in stripe512: one add on the accumulators' chain.
                std::arch::asm!("/* {0} */", inout(ymm_reg) sum, options(pure, nomem, nostack, preserves_flags));
                *lane = _mm256_add_epi64(*lane, sum);
            }
            lanes
        }};
    }

    macro_rules! scramble256 {
        ($lanes:expr, $key:expr, $prime:expr) => {{
            let mut lanes = $lanes;
            for (lane, key) in lanes.iter_mut().zip($key) {
                let mixed =
                    _mm256_xor_si256(_mm256_xor_si256(*lane, _mm256_srli_epi64::<47>(*lane)), key);
                let low = _mm256_mul_epu32(mixed, $prime);
                let high = _mm256_mul_epu32(_mm256_srli_epi64::<32>(mixed), $prime);
                *lane = _mm256_add_epi64(low, _mm256_slli_epi64::<32>(high));
            }
            lanes
        }};
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn consume_avx2(
        acc: &mut [u64; 8],
        in_block: &mut usize,
        secret: &Secret,
        stripes: &[u8],
    ) {
        unsafe {
            let acc_ptr = acc.as_mut_ptr().cast::<__m256i>();
            let mut lanes = [
                _mm256_loadu_si256(acc_ptr),
                _mm256_loadu_si256(acc_ptr.add(1)),
            ];
            let prime = _mm256_set1_epi32(PRIME32_1 as i32);
            let tail = secret.scramble_key().as_ptr();
            let keys = &secret.stripe_keys;
            let scramble_key = [
                _mm256_loadu_si256(tail.cast()),
                _mm256_loadu_si256(tail.add(32).cast()),
            ];
            let mut at = *in_block;
            walk_blocks!(
                lanes,
                at,
                stripes,
                keys,
                stripe256,
                scramble256,
                scramble_key,
                prime
            );
            _mm256_storeu_si256(acc_ptr, lanes[0]);
            _mm256_storeu_si256(acc_ptr.add(1), lanes[1]);
            *in_block = at;
        }
    }

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn finish_avx512(
        acc: &[u64; 8],
        in_block: usize,
        end: End<'_>,
        out: &mut [u8],
    ) {
        unsafe {
            let (mut acc, mut at) = (*acc, in_block);
            consume_avx512(&mut acc, &mut at, end.secret, end.stripes);
            let lanes = _mm512_loadu_si512(acc.as_ptr().cast());
            let key = end.secret.last_stripe_key().as_ptr();
            let lanes = stripe512!(lanes, end.last.as_ptr(), key);
            _mm512_storeu_si512(acc.as_mut_ptr().cast(), lanes);
            end.width.write_long(&acc, end.secret, end.len, out);
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn finish_avx2(
        acc: &[u64; 8],
        in_block: usize,
        end: End<'_>,
        out: &mut [u8],
    ) {
        unsafe {
            let (mut acc, mut at) = (*acc, in_block);
            consume_avx2(&mut acc, &mut at, end.secret, end.stripes);
            let acc_ptr = acc.as_mut_ptr().cast::<__m256i>();
            let lanes = [
                _mm256_loadu_si256(acc_ptr),
                _mm256_loadu_si256(acc_ptr.add(1)),
            ];
            let key = end.secret.last_stripe_key().as_ptr();
            let lanes = stripe256!(lanes, end.last.as_ptr(), key);
            _mm256_storeu_si256(acc_ptr, lanes[0]);
            _mm256_storeu_si256(acc_ptr.add(1), lanes[1]);
            end.width.write_long(&acc, end.secret, end.len, out);
        }
    }
}

/// The accumulators of a long hash and where in its block the next stripe falls.
#[derive(Clone)]
struct Accumulators {
    acc: [u64; 8],
    stripes_in_block: usize,
    kernel: Kernel,
}

impl Accumulators {
    fn new(kernel: Kernel) -> Self {
        Accumulators {
            acc: INITIAL_ACCUMULATORS,
            stripes_in_block: 0,
            kernel,
        }
    }

    /// Takes whole stripes, scrambling at every block's end.
    fn consume(&mut self, secret: &Secret, stripes: &[u8]) {
        self.kernel
            .consume(&mut self.acc, &mut self.stripes_in_block, secret, stripes)
    }

    /// Writes the digest of the message whose end is `end`; the
    /// accumulators are left as they were.
    fn finish(&self, end: End<'_>, out: &mut [u8]) {
        self.kernel
            .finish(&self.acc, self.stripes_in_block, end, out)
    }
}

fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(PRIME_MX1);
    h ^ (h >> 32)
}

// Inlined into the kernels' ends, so the accumulators are taken from their
// registers rather than stored and read back (a wide store cannot be
// forwarded to the narrow loads).
#[inline(always)]
fn merge(acc: &[u64; 8], secret: &[u8], start: u64) -> u64 {
    let mut sum = start;
    for i in 0..4 {
        let a = acc[2 * i] ^ read64(secret, 16 * i);
        let b = acc[2 * i + 1] ^ read64(secret, 16 * i + 8);
        let product = u128::from(a) * u128::from(b);
        sum = sum.wrapping_add(in_register(product as u64 ^ (product >> 64) as u64));
    }
    avalanche(sum)
}

/// `value`, made opaque to the optimiser in a general register: in the
/// AVX-512 kernel LLVM moved the four products of a merge into vector
/// registers to add them (eight moves and three shuffles on the message's
/// last path, where xxHash's C adds them where `mul` left them).
#[inline(always)]
fn in_register(mut value: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: an empty asm statement; it only pins the value to a register.
    unsafe {
        std::arch::asm!("/* {0} */", inout(reg) value, options(pure, nomem, nostack, preserves_flags));
    }
    value
}

/// The two widths, as XXH3_finalizeLong_64b and _128b merge the accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Width {
    Bits64,
    Bits128,
}

impl Width {
    fn len(self) -> usize {
        match self {
            Width::Bits64 => 8,
            Width::Bits128 => 16,
        }
    }

    #[inline(always)]
    fn write_long(self, acc: &[u64; 8], secret: &Secret, len: u64, out: &mut [u8]) {
        let secret = &secret.bytes;
        let low = merge(acc, &secret[MERGE_SECRET..], len.wrapping_mul(PRIME64_1));
        match self {
            Width::Bits64 => out.copy_from_slice(&low.to_be_bytes()),
            Width::Bits128 => {
                let high = merge(
                    acc,
                    &secret[SECRET_LEN - STRIPE - MERGE_SECRET..],
                    !len.wrapping_mul(PRIME64_2),
                );
                out.copy_from_slice(&((u128::from(high) << 64) | u128::from(low)).to_be_bytes())
            }
        }
    }

    /// Through twox-hash's one-shot functions: inputs of up to 240 bytes (no
    /// loop) and whole messages up to [`SHORT_ONE_SHOT_MAX`].
    #[inline(always)]
    fn write_short(self, seed: u64, data: &[u8], out: &mut [u8]) {
        match self {
            Width::Bits64 => out.copy_from_slice(
                &twox_hash::XxHash3_64::oneshot_with_seed(seed, data).to_be_bytes(),
            ),
            Width::Bits128 => out.copy_from_slice(
                &twox_hash::XxHash3_128::oneshot_with_seed(seed, data).to_be_bytes(),
            ),
        }
    }

    /// One whole message: no buffer, the stripes read where they lie.
    #[inline(always)]
    fn one_shot(self, seed: u64, data: &[u8], out: &mut [u8]) {
        if data.len() <= SHORT_ONE_SHOT_MAX {
            self.write_short(seed, data, out)
        } else {
            self.long_one_shot(seed, data, out)
        }
    }

    // Kept out of line, so the short path (a hash table's key) stays as
    // small as twox-hash's own.
    #[inline(never)]
    fn long_one_shot(self, seed: u64, data: &[u8], out: &mut [u8]) {
        // A seeded secret on the stack: one message needs no allocation.
        let seeded;
        let secret = if seed == 0 {
            &DEFAULT
        } else {
            seeded = Secret::seeded(seed);
            &seeded
        };
        let end = End {
            secret,
            stripes: &data[..(data.len() - 1) / STRIPE * STRIPE],
            last: data[data.len() - STRIPE..].try_into().expect("one stripe"),
            len: data.len() as u64,
            width: self,
        };
        // The initial accumulators straight from the constant: built on the
        // stack they would be read back before the stores were done (8 ns).
        Kernel::detect().finish(&INITIAL_ACCUMULATORS, 0, end, out)
    }
}

/// A streaming XXH3: stripes are taken straight from the caller's slices;
/// only the tail of each (at most [`BUFFER`] bytes) is held, because the
/// final stripe is hashed differently and is known to be final only at the end.
#[derive(Clone)]
struct Streaming {
    width: Width,
    seed: u64,
    keys: Keys,
    acc: Accumulators,
    /// Input not yet taken as a stripe: the whole message while it is at
    /// most [`BUFFER`] bytes, else 1 to 64 bytes (or 256 right after a fill).
    held: [u8; BUFFER],
    held_len: usize,
    /// The last 64 bytes taken as stripes: the start of the final stripe
    /// when fewer than 64 bytes are held.
    last_taken: [u8; STRIPE],
    total: u64,
}

impl Streaming {
    fn new(width: Width, seed: u64, kernel: Kernel) -> Self {
        Streaming {
            width,
            seed,
            keys: Keys::for_seed(seed),
            acc: Accumulators::new(kernel),
            held: [0; BUFFER],
            held_len: 0,
            last_taken: [0; STRIPE],
            total: 0,
        }
    }

    fn reset(&mut self) {
        self.acc = Accumulators::new(self.acc.kernel);
        self.held_len = 0;
        self.total = 0;
    }

    fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.held_len + data.len() <= BUFFER {
            self.held[self.held_len..self.held_len + data.len()].copy_from_slice(data);
            self.held_len += data.len();
            return;
        }
        if self.held_len > 0 {
            // Fill the buffer: more input follows it, so none of it is final.
            let (fill, rest) = data.split_at(BUFFER - self.held_len);
            self.held[self.held_len..].copy_from_slice(fill);
            self.acc.consume(self.keys.secret(), &self.held);
            self.last_taken
                .copy_from_slice(&self.held[BUFFER - STRIPE..]);
            self.held_len = 0;
            data = rest;
        }
        // Every whole stripe but one that ends the input so far.
        let stripes = data.len().saturating_sub(1) / STRIPE;
        if stripes > 0 {
            let (taken, _) = data.split_at(stripes * STRIPE);
            self.acc.consume(self.keys.secret(), taken);
            self.last_taken
                .copy_from_slice(&taken[taken.len() - STRIPE..]);
        }
        let tail = &data[stripes * STRIPE..];
        self.held[..tail.len()].copy_from_slice(tail);
        self.held_len = tail.len();
    }

    fn digest(&self, out: &mut [u8]) {
        if self.total <= MIDSIZE_MAX as u64 {
            return self
                .width
                .write_short(self.seed, &self.held[..self.held_len], out);
        }
        let held = &self.held[..self.held_len];
        let stripes = &held[..(held.len() - 1) / STRIPE * STRIPE];
        let mut last = [0u8; STRIPE];
        if held.len() >= STRIPE {
            last.copy_from_slice(&held[held.len() - STRIPE..]);
        } else {
            let from_before = STRIPE - held.len();
            last[..from_before].copy_from_slice(&self.last_taken[held.len()..]);
            last[from_before..].copy_from_slice(held);
        }
        let end = End {
            secret: self.keys.secret(),
            stripes,
            last: &last,
            len: self.total,
            width: self.width,
        };
        self.acc.finish(end, out)
    }
}

// Its own Hasher rather than a `Native` adapter: a digest that leaves the
// state as it was (hashlib's `digest()`) then reads the state in place,
// where the adapter copied all of it (the 256-byte buffer included) first.
impl Hasher for Streaming {
    fn update(&mut self, data: &[u8]) {
        Streaming::update(self, data)
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        self.finalize_copy_into(out);
        Streaming::reset(self);
    }
    fn finalize_copy_into(&mut self, out: &mut [u8]) {
        assert_eq!(out.len(), self.width.len(), "output buffer length");
        self.digest(out)
    }
    fn reset(&mut self) {
        Streaming::reset(self)
    }
    fn output_len(&self) -> usize {
        self.width.len()
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

fn entry(algorithm: &'static str, width: Width) -> Backend {
    const WHAT: &str = "hashlab's XXH3 loop (AVX-512/AVX2 at run time; short inputs via twox-hash)";
    fn one_shot_64(seed: u64, data: &[u8], out: &mut [u8]) {
        Width::Bits64.one_shot(seed, data, out)
    }
    fn one_shot_128(seed: u64, data: &[u8], out: &mut [u8]) {
        Width::Bits128.one_shot(seed, data, out)
    }
    let one_shot: fn(u64, &[u8], &mut [u8]) = match width {
        Width::Bits64 => one_shot_64,
        Width::Bits128 => one_shot_128,
    };
    Backend::new(algorithm, "hashlab", WHAT, move |config| {
        let streaming = Streaming::new(width, config.seed, Kernel::detect());
        Ok(Box::new(WithOneShot::new(streaming, config.seed, one_shot)))
    })
    .with_parameters()
    .with_dispatch(&WIDE_XXH3)
}

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        entry("xxh3-64", Width::Bits64),
        entry("xxh3-128", Width::Bits128),
    ]
}

#[cfg(test)]
mod tests {
    use std::hash::Hasher as _;

    use super::*;

    fn reference(width: Width, seed: u64, data: &[u8]) -> Vec<u8> {
        let mut hasher = twox_hash::XxHash3_128::with_seed(seed);
        let mut h64 = twox_hash::XxHash3_64::with_seed(seed);
        hasher.write(data);
        h64.write(data);
        match width {
            Width::Bits64 => h64.finish().to_be_bytes().to_vec(),
            Width::Bits128 => hasher.finish_128().to_be_bytes().to_vec(),
        }
    }

    fn streamed(width: Width, seed: u64, kernel: Kernel, pieces: &[&[u8]]) -> Vec<u8> {
        let mut s = Streaming::new(width, seed, kernel);
        for piece in pieces {
            s.update(piece);
        }
        let mut out = vec![0; width.len()];
        s.digest(&mut out);
        out
    }

    /// Every length through the block and buffer boundaries, every kernel,
    /// whole and cut at awkward places, against twox-hash.
    #[test]
    fn every_kernel_agrees_with_twox_hash_at_every_length() {
        let data: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let lengths = (0..=1200).chain([2047, 2048, 2049, 3071, 3072, 3073, 4096, 5000]);
        for kernel in Kernel::available() {
            for len in lengths.clone() {
                let message = &data[..len];
                for width in [Width::Bits64, Width::Bits128] {
                    for seed in [0, 0x9E37_79B9_7F4A_7C15] {
                        let want = reference(width, seed, message);
                        assert_eq!(
                            streamed(width, seed, kernel, &[message]),
                            want,
                            "{kernel:?} {len}"
                        );
                        for cut in [1, 63, 64, 65, 200, 256, 257, 1024, 1100] {
                            let cut = cut.min(len);
                            let (a, b) = message.split_at(cut);
                            let got = streamed(width, seed, kernel, &[a, b]);
                            assert_eq!(got, want, "{kernel:?} {len} cut at {cut}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn byte_by_byte_and_in_odd_pieces() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 + 3) as u8).collect();
        for kernel in Kernel::available() {
            let bytes: Vec<&[u8]> = data.chunks(1).collect();
            assert_eq!(
                streamed(Width::Bits64, 5, kernel, &bytes),
                reference(Width::Bits64, 5, &data)
            );
            let odd: Vec<&[u8]> = data.chunks(97).collect();
            assert_eq!(
                streamed(Width::Bits128, 0, kernel, &odd),
                reference(Width::Bits128, 0, &data)
            );
        }
    }

    #[test]
    fn one_shot_matches_streaming() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for len in [
            0, 1, 240, 241, 255, 256, 300, 1024, 1025, 3072, 3073, 4000, 4096, 4097,
        ] {
            for (width, seed) in [Width::Bits64, Width::Bits128].into_iter().zip([0, 7]) {
                let mut out = vec![0; width.len()];
                width.one_shot(seed, &data[..len], &mut out);
                assert_eq!(out, reference(width, seed, &data[..len]), "{len}");
                width.one_shot(seed ^ 7, &data[..len], &mut out);
                assert_eq!(out, reference(width, seed ^ 7, &data[..len]), "{len}");
            }
        }
    }
}
