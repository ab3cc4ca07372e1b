//! One module per implementation family. Each exposes `entries()`: the
//! (algorithm, backend) pairs it provides. `all()` is the one list the
//! registry is built from; a new backend is one module plus one line here.

use crate::Backend;

// The adapters the backend modules build their hashers from: in a module of
// their own, so that the backends (which import them) and this list (which
// calls the backends) do not import each other.
mod adapters;
#[allow(unused_imports)] // each is used by some backend features only
pub(crate) use adapters::{key_of, one_shot_when_idle, Extendable, Native, Snapshot, WithOneShot};

// Each backend is a cargo feature of the same name (all on by default), so a
// program that wants only pure-Rust hashes builds without the C libraries,
// cmake or libclang that OpenSSL, AWS-LC and XKCP need.
#[cfg(feature = "aws-lc")]
mod awslc;
#[cfg(feature = "blake2-simd")]
mod blake2simd;
#[cfg(feature = "blake3")]
mod blake3;
#[cfg(feature = "crc")]
mod crc;
#[cfg(feature = "fasthash")]
mod fasthash;
#[cfg(feature = "fasthash")]
mod hashtable;
#[cfg(feature = "highway")]
mod highway;
#[cfg(feature = "openssl")]
mod openssl;
#[cfg(feature = "ring")]
mod ring;
#[cfg(any(feature = "ring", feature = "aws-lc"))]
mod ring_like;
#[cfg(feature = "rustcrypto")]
mod rustcrypto;
#[cfg(feature = "siphash")]
mod siphash;
// No dependency: always built.
mod unix_sum;
#[cfg(feature = "xkcp")]
mod xkcp;
#[cfg(feature = "xxhash")]
mod xxh;
#[cfg(feature = "xxhash")]
mod xxh3_wide;

/// Every backend entry this build has.
pub(crate) fn all() -> Vec<Backend> {
    #[allow(unused_mut)]
    let mut all = Vec::new();
    #[cfg(feature = "rustcrypto")]
    all.extend(rustcrypto::entries());
    #[cfg(feature = "openssl")]
    all.extend(openssl::entries());
    #[cfg(feature = "ring")]
    all.extend(ring::entries());
    #[cfg(feature = "aws-lc")]
    all.extend(awslc::entries());
    #[cfg(feature = "blake2-simd")]
    all.extend(blake2simd::entries());
    #[cfg(feature = "blake3")]
    all.extend(blake3::entries());
    #[cfg(feature = "xkcp")]
    all.extend(xkcp::entries());
    #[cfg(feature = "highway")]
    all.extend(highway::entries());
    #[cfg(feature = "siphash")]
    all.extend(siphash::entries());
    #[cfg(feature = "xxhash")]
    all.extend(xxh::entries());
    #[cfg(feature = "xxhash")]
    all.extend(xxh3_wide::entries());
    #[cfg(feature = "crc")]
    all.extend(crc::entries());
    #[cfg(feature = "fasthash")]
    all.extend(fasthash::entries());
    #[cfg(feature = "fasthash")]
    all.extend(hashtable::entries());
    all.extend(unix_sum::entries());
    all
}
