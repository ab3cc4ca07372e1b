//! siphasher: SipHash-2-4 and SipHash-1-3 with 64- and 128-bit output,
//! written as the reference implementation writes them (the 64-bit value,
//! or each 64-bit half, little-endian).

use std::hash::Hasher as _;

use siphasher::sip::{SipHasher13, SipHasher24};
use siphasher::sip128::{Hasher128 as _, SipHasher13 as Sip13x128, SipHasher24 as Sip24x128};

use super::{key_of, Snapshot};
use crate::dispatch::Dispatch;
use crate::{Backend, Config};

/// k0 = key bytes 0..8, k1 = bytes 8..16, both little-endian.
fn keys(config: &Config) -> (u64, u64) {
    let key = key_of(config);
    let k0 = u64::from_le_bytes(key[..8].try_into().expect("16-byte key"));
    let k1 = u64::from_le_bytes(key[8..16].try_into().expect("16-byte key"));
    (k0, k1)
}

const PORTABLE: Dispatch = crate::dispatch::scalar("portable Rust");

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        Backend::new("siphash-2-4", "siphasher", "siphasher crate", |config| {
            let (k0, k1) = keys(config);
            Ok(Box::new(Snapshot::new(
                SipHasher24::new_with_keys(k0, k1),
                8,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&h.finish().to_le_bytes()),
            )))
        })
        .with_key()
        .with_dispatch(&PORTABLE),
        Backend::new("siphash-1-3", "siphasher", "siphasher crate", |config| {
            let (k0, k1) = keys(config);
            Ok(Box::new(Snapshot::new(
                SipHasher13::new_with_keys(k0, k1),
                8,
                |h, data| h.write(data),
                |h, out| out.copy_from_slice(&h.finish().to_le_bytes()),
            )))
        })
        .with_key()
        .with_dispatch(&PORTABLE),
        Backend::new(
            "siphash-2-4-128",
            "siphasher",
            "siphasher crate (sip128)",
            |config| {
                let (k0, k1) = keys(config);
                Ok(Box::new(Snapshot::new(
                    Sip24x128::new_with_keys(k0, k1),
                    16,
                    |h, data| h.write(data),
                    |h, out| out.copy_from_slice(&h.finish128().as_bytes()),
                )))
            },
        )
        .with_key()
        .with_dispatch(&PORTABLE),
        Backend::new(
            "siphash-1-3-128",
            "siphasher",
            "siphasher crate (sip128)",
            |config| {
                let (k0, k1) = keys(config);
                Ok(Box::new(Snapshot::new(
                    Sip13x128::new_with_keys(k0, k1),
                    16,
                    |h, data| h.write(data),
                    |h, out| out.copy_from_slice(&h.finish128().as_bytes()),
                )))
            },
        )
        .with_key()
        .with_dispatch(&PORTABLE),
    ]
}
