//! aws-lc-rs against AWS-LC (built from source by aws-lc-sys; symbols are
//! prefixed, so it links beside the system OpenSSL without clashes).

use crate::dispatch::{
    arm, dispatch, x86, Dispatch, Need::Feature as F, Need::IntelCpu as Intel, AVX_INTEL_ONLY,
};

// The *_capable() tests in crypto/fipsmodule/sha/internal.h.
const SHA1: Dispatch = dispatch(
    &[
        x86("SHA-NI", &[F("sha"), F("ssse3")]),
        x86("AVX2+BMI2", &[F("avx2"), F("bmi2"), F("ssse3")]),
        x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
        x86("SSSE3", &[F("ssse3")]),
        arm("SHA1 instructions", &[F("sha2")]),
    ],
    "scalar assembly",
);
const SHA256: Dispatch = dispatch(
    &[
        x86("SHA-NI", &[F("sha")]),
        x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
        x86("SSSE3", &[F("ssse3")]),
        arm("SHA2 instructions", &[F("sha2")]),
    ],
    "scalar assembly",
);
const SHA512: Dispatch = dispatch(
    &[
        x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
        arm("SHA512 instructions", &[F("sha512")]),
    ],
    "scalar assembly",
);
const KECCAK: Dispatch = dispatch(
    &[arm(
        "SHA3 instructions (scalar s2n-bignum code on Neoverse N1/V1/V2/V3)",
        &[F("sha3")],
    )],
    "scalar Keccak assembly",
);

pub(crate) fn entries() -> Vec<crate::Backend> {
    super::ring_like::ring_like_entries!(
        aws_lc_rs,
        "aws-lc",
        "aws-lc-rs (AWS-LC assembly, run-time dispatch)",
        digests: [
            ("sha1", SHA1_FOR_LEGACY_USE_ONLY, &SHA1),
            ("sha224", SHA224, &SHA256),
            ("sha256", SHA256, &SHA256),
            ("sha384", SHA384, &SHA512),
            ("sha512", SHA512, &SHA512),
            ("sha512-256", SHA512_256, &SHA512),
            ("sha3-256", SHA3_256, &KECCAK),
            ("sha3-384", SHA3_384, &KECCAK),
            ("sha3-512", SHA3_512, &KECCAK),
        ],
        hmacs: [
            ("hmac-sha1", HMAC_SHA1_FOR_LEGACY_USE_ONLY, &SHA1),
            ("hmac-sha224", HMAC_SHA224, &SHA256),
            ("hmac-sha256", HMAC_SHA256, &SHA256),
            ("hmac-sha384", HMAC_SHA384, &SHA512),
            ("hmac-sha512", HMAC_SHA512, &SHA512),
        ]
    )
}
