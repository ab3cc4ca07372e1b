//! xxHash from two crates: twox-hash 2.x (XXH3 picks AVX2/SSE2 at run time) and
//! xxhash-rust (its SIMD path is fixed when it is compiled; without
//! `-C target-cpu` that is SSE2 on x86_64). Output is the canonical big-endian
//! form `xxhsum` prints.

use std::hash::Hasher as _;

use super::{Native, Snapshot, WithOneShot};
use crate::dispatch::{
    arm, dispatch, scalar, x86, Dispatch, Need::CompiledFor as Built, Need::Feature as F,
};
use crate::Backend;

const SCALAR: Dispatch = scalar("scalar (XXH32/XXH64 have no SIMD form)");
// twox-hash 2: xxhash3/large.rs dispatch!.
const TWOX_XXH3: Dispatch = dispatch(
    &[
        x86("AVX2", &[F("avx2")]),
        x86("SSE2", &[F("sse2")]),
        arm("NEON", &[F("neon")]),
    ],
    "scalar Rust",
);
// xxhash-rust: xxh3.rs chooses with cfg(target_feature) only.
const XXHASH_RUST_XXH3: Dispatch = dispatch(
    &[
        x86("AVX-512 (compile time)", &[Built("avx512f")]),
        x86("AVX2 (compile time)", &[Built("avx2")]),
        x86("SSE2 (compile time)", &[Built("sse2")]),
        arm("NEON (compile time)", &[Built("neon")]),
    ],
    "scalar Rust",
);

fn twox() -> Vec<Backend> {
    const WHAT: &str = "twox-hash 2.x (XXH3: AVX2/SSE2 at run time)";
    vec![
        Backend::new("xxh32", "twox-hash", WHAT, |config| {
            // The registry has checked that the seed fits in 32 bits.
            let streaming = Snapshot::new(
                twox_hash::XxHash32::with_seed(config.seed as u32),
                4,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&(h.finish() as u32).to_be_bytes()),
            );
            Ok(Box::new(WithOneShot::new(
                streaming,
                config.seed,
                |seed, data, out| {
                    let value = twox_hash::XxHash32::oneshot(seed as u32, data);
                    out.copy_from_slice(&value.to_be_bytes())
                },
            )))
        })
        .with_parameters()
        .with_dispatch(&SCALAR),
        Backend::new("xxh64", "twox-hash", WHAT, |config| {
            let streaming = Snapshot::new(
                twox_hash::XxHash64::with_seed(config.seed),
                8,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&h.finish().to_be_bytes()),
            );
            Ok(Box::new(WithOneShot::new(
                streaming,
                config.seed,
                |seed, data, out| {
                    let value = twox_hash::XxHash64::oneshot(seed, data);
                    out.copy_from_slice(&value.to_be_bytes())
                },
            )))
        })
        .with_parameters()
        .with_dispatch(&SCALAR),
        Backend::new("xxh3-64", "twox-hash", WHAT, |config| {
            let streaming = Snapshot::new(
                twox_hash::XxHash3_64::with_seed(config.seed),
                8,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&h.finish().to_be_bytes()),
            );
            Ok(Box::new(WithOneShot::new(
                streaming,
                config.seed,
                |seed, data, out| {
                    let value = twox_hash::XxHash3_64::oneshot_with_seed(seed, data);
                    out.copy_from_slice(&value.to_be_bytes())
                },
            )))
        })
        .with_parameters()
        .with_dispatch(&TWOX_XXH3),
        Backend::new("xxh3-128", "twox-hash", WHAT, |config| {
            let streaming = Snapshot::new(
                twox_hash::XxHash3_128::with_seed(config.seed),
                16,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&h.finish_128().to_be_bytes()),
            );
            Ok(Box::new(WithOneShot::new(
                streaming,
                config.seed,
                |seed, data, out| {
                    let value = twox_hash::XxHash3_128::oneshot_with_seed(seed, data);
                    out.copy_from_slice(&value.to_be_bytes())
                },
            )))
        })
        .with_parameters()
        .with_dispatch(&TWOX_XXH3),
    ]
}

/// An xxhash-rust state with the seed it restarts from: its `reset` takes
/// the seed (XXH32/XXH64) or keeps none (XXH3), and `Native`'s reset is a
/// plain function of the state.
#[derive(Clone)]
struct Seeded<T> {
    hasher: T,
    seed: u64,
}

fn xxhash_rust() -> Vec<Backend> {
    use xxhash_rust::{xxh3::Xxh3, xxh32::Xxh32, xxh64::Xxh64};
    const WHAT: &str = "xxhash-rust (SIMD fixed at compile time)";
    vec![
        Backend::new("xxh32", "xxhash-rust", WHAT, |config| {
            // The registry has checked that the seed fits in 32 bits.
            let seed = config.seed as u32;
            let native = Native {
                state: Seeded {
                    hasher: Xxh32::new(seed),
                    seed: config.seed,
                },
                out_len: 4,
                update: |s, data| s.hasher.update(data),
                finish_reset: |s, out| {
                    out.copy_from_slice(&s.hasher.digest().to_be_bytes());
                    s.hasher.reset(s.seed as u32);
                },
                reset: |s| s.hasher.reset(s.seed as u32),
            };
            Ok(Box::new(WithOneShot::new(
                native,
                config.seed,
                |seed, data, out| {
                    out.copy_from_slice(&xxhash_rust::xxh32::xxh32(data, seed as u32).to_be_bytes())
                },
            )))
        })
        .with_parameters()
        .with_dispatch(&SCALAR),
        Backend::new("xxh64", "xxhash-rust", WHAT, |config| {
            let native = Native {
                state: Seeded {
                    hasher: Xxh64::new(config.seed),
                    seed: config.seed,
                },
                out_len: 8,
                update: |s, data| s.hasher.update(data),
                finish_reset: |s, out| {
                    out.copy_from_slice(&s.hasher.digest().to_be_bytes());
                    s.hasher.reset(s.seed);
                },
                reset: |s| s.hasher.reset(s.seed),
            };
            Ok(Box::new(WithOneShot::new(
                native,
                config.seed,
                |seed, data, out| {
                    out.copy_from_slice(&xxhash_rust::xxh64::xxh64(data, seed).to_be_bytes())
                },
            )))
        })
        .with_parameters()
        .with_dispatch(&SCALAR),
        Backend::new("xxh3-64", "xxhash-rust", WHAT, |config| {
            let native = Native {
                state: Seeded {
                    hasher: Xxh3::with_seed(config.seed),
                    seed: config.seed,
                },
                out_len: 8,
                update: |s, data| s.hasher.update(data),
                finish_reset: |s, out| {
                    out.copy_from_slice(&s.hasher.digest().to_be_bytes());
                    s.hasher.reset();
                },
                reset: |s| s.hasher.reset(),
            };
            Ok(Box::new(WithOneShot::new(
                native,
                config.seed,
                |seed, data, out| {
                    let value = xxhash_rust::xxh3::xxh3_64_with_seed(data, seed);
                    out.copy_from_slice(&value.to_be_bytes())
                },
            )))
        })
        .with_parameters()
        .with_dispatch(&XXHASH_RUST_XXH3),
        Backend::new("xxh3-128", "xxhash-rust", WHAT, |config| {
            let native = Native {
                state: Seeded {
                    hasher: Xxh3::with_seed(config.seed),
                    seed: config.seed,
                },
                out_len: 16,
                update: |s, data| s.hasher.update(data),
                finish_reset: |s, out| {
                    out.copy_from_slice(&s.hasher.digest128().to_be_bytes());
                    s.hasher.reset();
                },
                reset: |s| s.hasher.reset(),
            };
            Ok(Box::new(WithOneShot::new(
                native,
                config.seed,
                |seed, data, out| {
                    let value = xxhash_rust::xxh3::xxh3_128_with_seed(data, seed);
                    out.copy_from_slice(&value.to_be_bytes())
                },
            )))
        })
        .with_parameters()
        .with_dispatch(&XXHASH_RUST_XXH3),
    ]
}

pub(crate) fn entries() -> Vec<Backend> {
    let mut all = twox();
    all.extend(xxhash_rust());
    all
}
