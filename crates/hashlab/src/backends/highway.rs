//! The highway crate (a Rust port of Google's HighwayHash), as two backends:
//! the portable code, and `HighwayHasher`, which picks AVX2/SSE4.1/NEON at run time.

use highway::{HighwayHash, Key, PortableHash};

use super::{key_of, Snapshot};
use crate::dispatch::{arm, dispatch, scalar, x86, Dispatch, Need::Feature as F};
use crate::{Backend, Config, Hasher};

/// HighwayHash keys are four little-endian u64 words.
fn key_words(config: &Config) -> Key {
    let key = key_of(config);
    let mut words = [0u64; 4];
    for (word, chunk) in words.iter_mut().zip(key.chunks_exact(8)) {
        *word = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
    }
    Key(words)
}

/// Lanes are written little-endian, lane 0 first (what the C reference's byte API does).
fn write_lanes(lanes: &[u64], out: &mut [u8]) {
    for (lane, dst) in lanes.iter().zip(out.chunks_exact_mut(8)) {
        dst.copy_from_slice(&lane.to_le_bytes());
    }
}

fn finish<H: HighwayHash>(h: H, out: &mut [u8]) {
    match out.len() {
        8 => write_lanes(&[h.finalize64()], out),
        16 => write_lanes(&h.finalize128(), out),
        _ => write_lanes(&h.finalize256(), out),
    }
}

fn build<H>(new: fn(Key) -> H, config: &Config) -> Box<dyn Hasher>
where
    H: HighwayHash + Clone + Send + 'static,
{
    Box::new(Snapshot::new(
        new(key_words(config)),
        config.output_len,
        |h, data| h.append(data),
        finish::<H>,
    ))
}

fn simd_available() -> Result<(), String> {
    if cfg!(target_arch = "aarch64") || crate::cpu::has("avx2") || crate::cpu::has("sse4.1") {
        Ok(())
    } else {
        Err("needs AVX2 or SSE4.1 (x86_64) or NEON (aarch64)".into())
    }
}

// highway: builder.rs, HighwayHasher::new.
const SIMD: Dispatch = dispatch(
    &[
        x86("AVX2", &[F("avx2")]),
        x86("SSE4.1", &[F("sse4.1")]),
        arm("NEON", &[F("neon")]),
    ],
    "portable Rust",
);
const PORTABLE: Dispatch = scalar("portable Rust");

pub(crate) fn entries() -> Vec<Backend> {
    let mut entries = Vec::new();
    for alg in ["highwayhash-64", "highwayhash-128", "highwayhash-256"] {
        entries.push(
            Backend::new(
                alg,
                "highway-portable",
                "highway crate, portable Rust",
                |config| Ok(build(PortableHash::new, config)),
            )
            .with_key()
            .with_dispatch(&PORTABLE),
        );
        entries.push(
            Backend::new(
                alg,
                "highway-simd",
                "highway crate, AVX2/SSE4.1/NEON chosen at run time",
                |config| Ok(build(highway::HighwayHasher::new, config)),
            )
            .with_key()
            .with_probe(simd_available)
            .with_dispatch(&SIMD),
        );
    }
    entries
}
