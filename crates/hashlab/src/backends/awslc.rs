//! aws-lc-rs against AWS-LC (built from source by aws-lc-sys; symbols are
//! prefixed, so it links beside the system OpenSSL without clashes).

pub(crate) fn entries() -> Vec<crate::Backend> {
    super::ring::ring_like_entries!(
        aws_lc_rs,
        "aws-lc",
        "aws-lc-rs (AWS-LC assembly, run-time dispatch)",
        digests: [
            ("sha1", SHA1_FOR_LEGACY_USE_ONLY),
            ("sha224", SHA224),
            ("sha256", SHA256),
            ("sha384", SHA384),
            ("sha512", SHA512),
            ("sha512-256", SHA512_256),
            ("sha3-256", SHA3_256),
            ("sha3-384", SHA3_384),
            ("sha3-512", SHA3_512),
        ],
        hmacs: [("hmac-sha256", HMAC_SHA256), ("hmac-sha512", HMAC_SHA512)]
    )
}
