//! ring 0.17: BoringSSL's perlasm SHA-2, dispatched from Rust
//! (digest/sha2/sha2_*.rs); its SHA-1 is Rust.

use crate::dispatch::{
    arm, dispatch, scalar, x86, Dispatch, Need::Feature as F, Need::IntelCpu as Intel,
    AVX_INTEL_ONLY,
};

const SHA1: Dispatch = scalar("portable Rust");
const SHA256: Dispatch = dispatch(
    &[
        x86("SHA-NI", &[F("sha"), F("ssse3")]),
        x86(AVX_INTEL_ONLY, &[F("avx"), Intel]),
        x86("SSSE3", &[F("ssse3")]),
        arm("SHA2 instructions", &[F("sha2")]),
    ],
    "scalar assembly",
);
const SHA512: Dispatch = dispatch(
    &[
        x86(AVX_INTEL_ONLY, &[F("avx"), Intel]),
        arm("SHA512 instructions", &[F("sha512")]),
    ],
    "scalar assembly",
);

pub(crate) fn entries() -> Vec<crate::Backend> {
    super::ring_like::ring_like_entries!(
        ring,
        "ring",
        "ring 0.17 (BoringSSL-derived assembly)",
        digests: [
            ("sha1", SHA1_FOR_LEGACY_USE_ONLY, &SHA1),
            ("sha256", SHA256, &SHA256),
            ("sha384", SHA384, &SHA512),
            ("sha512", SHA512, &SHA512),
            ("sha512-256", SHA512_256, &SHA512),
        ],
        hmacs: [
            ("hmac-sha1", HMAC_SHA1_FOR_LEGACY_USE_ONLY, &SHA1),
            ("hmac-sha256", HMAC_SHA256, &SHA256),
            ("hmac-sha384", HMAC_SHA384, &SHA512),
            ("hmac-sha512", HMAC_SHA512, &SHA512),
        ]
    )
}
