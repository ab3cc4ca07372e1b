//! xxHash from two crates: twox-hash 2.x (XXH3 picks AVX2/SSE2 at run time) and
//! xxhash-rust (its SIMD path is fixed when it is compiled; without
//! `-C target-cpu` that is SSE2 on x86_64). Output is the canonical big-endian
//! form `xxhsum` prints.

use std::hash::Hasher as _;

use super::{Native, Snapshot};
use crate::Backend;

fn twox() -> Vec<Backend> {
    const WHAT: &str = "twox-hash 2.x (XXH3: AVX2/SSE2 at run time)";
    vec![
        Backend::new("xxh32", "twox-hash", WHAT, |_| {
            Ok(Box::new(Snapshot::new(
                twox_hash::XxHash32::with_seed(0),
                4,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&(h.finish() as u32).to_be_bytes()),
            )))
        }),
        Backend::new("xxh64", "twox-hash", WHAT, |_| {
            Ok(Box::new(Snapshot::new(
                twox_hash::XxHash64::with_seed(0),
                8,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&h.finish().to_be_bytes()),
            )))
        }),
        Backend::new("xxh3-64", "twox-hash", WHAT, |_| {
            Ok(Box::new(Snapshot::new(
                twox_hash::XxHash3_64::with_seed(0),
                8,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&h.finish().to_be_bytes()),
            )))
        }),
        Backend::new("xxh3-128", "twox-hash", WHAT, |_| {
            Ok(Box::new(Snapshot::new(
                twox_hash::XxHash3_128::with_seed(0),
                16,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&h.finish_128().to_be_bytes()),
            )))
        }),
    ]
}

fn xxhash_rust() -> Vec<Backend> {
    use xxhash_rust::{xxh3::Xxh3, xxh32::Xxh32, xxh64::Xxh64};
    const WHAT: &str = "xxhash-rust (SIMD fixed at compile time)";
    vec![
        Backend::new("xxh32", "xxhash-rust", WHAT, |_| {
            Ok(Box::new(Native {
                state: Xxh32::new(0),
                out_len: 4,
                update: |h, data| h.update(data),
                finish_reset: |h, out| {
                    out.copy_from_slice(&h.digest().to_be_bytes());
                    h.reset(0);
                },
                reset: |h| h.reset(0),
            }))
        }),
        Backend::new("xxh64", "xxhash-rust", WHAT, |_| {
            Ok(Box::new(Native {
                state: Xxh64::new(0),
                out_len: 8,
                update: |h, data| h.update(data),
                finish_reset: |h, out| {
                    out.copy_from_slice(&h.digest().to_be_bytes());
                    h.reset(0);
                },
                reset: |h| h.reset(0),
            }))
        }),
        Backend::new("xxh3-64", "xxhash-rust", WHAT, |_| {
            Ok(Box::new(Native {
                state: Xxh3::new(),
                out_len: 8,
                update: |h, data| h.update(data),
                finish_reset: |h, out| {
                    out.copy_from_slice(&h.digest().to_be_bytes());
                    h.reset();
                },
                reset: Xxh3::reset,
            }))
        }),
        Backend::new("xxh3-128", "xxhash-rust", WHAT, |_| {
            Ok(Box::new(Native {
                state: Xxh3::new(),
                out_len: 16,
                update: |h, data| h.update(data),
                finish_reset: |h, out| {
                    out.copy_from_slice(&h.digest128().to_be_bytes());
                    h.reset();
                },
                reset: Xxh3::reset,
            }))
        }),
    ]
}

pub(crate) fn entries() -> Vec<Backend> {
    let mut all = twox();
    all.extend(xxhash_rust());
    all
}
