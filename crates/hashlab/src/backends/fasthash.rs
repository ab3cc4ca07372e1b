//! The hash-table hashes with a stable, published output: FNV-1a, 32 and 64
//! bits, the value printed big-endian.

use std::hash::Hasher as _;

use super::Native;
use crate::dispatch::Dispatch;
use crate::Backend;

const PORTABLE: Dispatch = crate::dispatch::scalar("portable Rust");

/// FNV-1a 32 (Fowler, Noll & Vo). The `fnv` crate has only the 64-bit hash;
/// the 32-bit one is these four lines of the published definition.
#[derive(Clone)]
struct Fnv1a32(u32);

impl Fnv1a32 {
    const OFFSET: u32 = 0x811c_9dc5;
    const PRIME: u32 = 0x0100_0193;

    fn update(&mut self, data: &[u8]) {
        for &byte in data {
            self.0 = (self.0 ^ u32::from(byte)).wrapping_mul(Self::PRIME);
        }
    }
}

/// The `fnv` crate's FNV-1a 64 with the `Clone` a hasher needs: its state is
/// the value `finish` returns, and `with_key` starts from a given state.
struct Fnv1a64(fnv::FnvHasher);

impl Clone for Fnv1a64 {
    fn clone(&self) -> Self {
        Fnv1a64(fnv::FnvHasher::with_key(self.0.finish()))
    }
}

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        Backend::new("fnv1a-32", "fnv", "FNV-1a 32, portable Rust", |_| {
            Ok(Box::new(Native {
                state: Fnv1a32(Fnv1a32::OFFSET),
                out_len: 4,
                update: Fnv1a32::update,
                finish_reset: |h, out| {
                    out.copy_from_slice(&h.0.to_be_bytes());
                    h.0 = Fnv1a32::OFFSET;
                },
                reset: |h| h.0 = Fnv1a32::OFFSET,
            }))
        })
        .with_dispatch(&PORTABLE),
        Backend::new("fnv1a-64", "fnv", "fnv crate (servo)", |_| {
            Ok(Box::new(Native {
                state: Fnv1a64(fnv::FnvHasher::default()),
                out_len: 8,
                update: |h, data| h.0.write(data),
                finish_reset: |h, out| {
                    out.copy_from_slice(&h.0.finish().to_be_bytes());
                    h.0 = fnv::FnvHasher::default();
                },
                reset: |h| h.0 = fnv::FnvHasher::default(),
            }))
        })
        .with_dispatch(&PORTABLE),
    ]
}
