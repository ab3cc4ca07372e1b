//! The built-in algorithms: names, rules, tags and default-backend preferences.
//! Backends live in `backends/`; this file holds only what is true of the
//! algorithm whatever code computes it.

use crate::algorithm::XOF_MAX_OUTPUT;
use crate::{Algorithm, Class, KeyRule, OutputRule};

struct Spec {
    name: &'static str,
    aliases: &'static [&'static str],
    family: &'static str,
    class: Class,
    output: OutputRule,
    key: KeyRule,
    customizable: bool,
    block_size: usize,
    tag: &'static str,
    preference: &'static [(&'static str, &'static str)],
}

const fn fixed(bytes: usize) -> OutputRule {
    OutputRule::Fixed { bytes }
}
const fn variable(default: usize, max: usize) -> OutputRule {
    OutputRule::Variable {
        default,
        min: 1,
        max,
    }
}
const fn xof(default: usize) -> OutputRule {
    OutputRule::Xof {
        default,
        max: XOF_MAX_OUTPUT,
    }
}
const NO_KEY: KeyRule = KeyRule::None;
const fn zero_key(bytes: usize) -> KeyRule {
    KeyRule::Defaulted {
        min: bytes,
        max: bytes,
        default: bytes,
    }
}
/// HMAC and KMAC take keys of any length; unkeyed means 32 zero bytes
/// (for HMAC that equals the empty key, since HMAC pads keys with zeros).
const ANY_KEY_ZERO_32: KeyRule = KeyRule::Defaulted {
    min: 0,
    max: 1 << 20,
    default: 32,
};

const OPENSSL_ASM: (&str, &str) = (
    "openssl",
    "OpenSSL's hand-written assembly, SHA-NI/AVX2 chosen at run time",
);
const AWS_LC: (&str, &str) = (
    "aws-lc",
    "AWS-LC assembly (OpenSSL-derived), dispatched at run time",
);
const RUSTCRYPTO: (&str, &str) = ("rustcrypto", "pure Rust, SIMD where the crate detects it");
const RING: (&str, &str) = ("ring", "BoringSSL-derived assembly");
const SHA_ORDER: &[(&str, &str)] = &[OPENSSL_ASM, AWS_LC, RUSTCRYPTO, RING];
const KECCAK_ORDER: &[(&str, &str)] = &[
    (
        "openssl",
        "OpenSSL's Keccak assembly beats the portable Rust permutation",
    ),
    AWS_LC,
    RUSTCRYPTO,
];
const BLAKE2_ORDER: &[(&str, &str)] = &[
    (
        "blake2-simd",
        "AVX2/SSE4.1 compression chosen at run time; fastest measured here",
    ),
    ("openssl", "OpenSSL's C implementation"),
    RUSTCRYPTO,
];
const XXH_ORDER: &[(&str, &str)] = &[
    (
        "twox-hash",
        "picks AVX2/SSE2 at run time (xxhash-rust fixes it at compile time)",
    ),
    ("xxhash-rust", "portable build of the reference algorithm"),
];

fn specs() -> Vec<Spec> {
    use Class::*;
    let sha = |name, aliases, bits: usize, block, tag| Spec {
        name,
        aliases,
        family: "SHA-2",
        class: Cryptographic,
        output: fixed(bits / 8),
        key: NO_KEY,
        customizable: false,
        block_size: block,
        tag,
        preference: SHA_ORDER,
    };
    let sha3 = |name, aliases, bits: usize, rate, tag| Spec {
        name,
        aliases,
        family: "SHA-3",
        class: Cryptographic,
        output: fixed(bits / 8),
        key: NO_KEY,
        customizable: false,
        block_size: rate,
        tag,
        preference: KECCAK_ORDER,
    };
    let xxh = |name, aliases, bytes, block, tag| Spec {
        name,
        aliases,
        family: "xxHash",
        class: NonCryptographic,
        output: fixed(bytes),
        key: NO_KEY,
        customizable: false,
        block_size: block,
        tag,
        preference: XXH_ORDER,
    };
    let highway = |name, aliases, bytes, tag| Spec {
        name,
        aliases,
        family: "HighwayHash",
        class: Keyed,
        output: fixed(bytes),
        key: zero_key(32),
        customizable: false,
        block_size: 32,
        tag,
        preference: &[
            ("highway-simd", "AVX2/SSE4.1/NEON chosen at run time"),
            ("highway-portable", "portable Rust"),
        ],
    };
    let siphash = |name, aliases, tag| Spec {
        name,
        aliases,
        family: "SipHash",
        class: Keyed,
        output: fixed(8),
        key: zero_key(16),
        customizable: false,
        block_size: 8,
        tag,
        preference: &[
            (
                "siphasher",
                "no call overhead per message, unlike a MAC context",
            ),
            ("openssl", "OpenSSL's EVP_MAC SIPHASH"),
        ],
    };
    vec![
        Spec {
            name: "md5",
            aliases: &["md-5"],
            family: "MD5",
            class: Cryptographic,
            output: fixed(16),
            key: NO_KEY,
            customizable: false,
            block_size: 64,
            tag: "MD5",
            preference: &[OPENSSL_ASM, RUSTCRYPTO],
        },
        Spec {
            name: "sha1",
            aliases: &["sha-1"],
            family: "SHA-1",
            class: Cryptographic,
            output: fixed(20),
            key: NO_KEY,
            customizable: false,
            block_size: 64,
            tag: "SHA1",
            preference: SHA_ORDER,
        },
        sha("sha224", &["sha-224", "sha2-224"], 224, 64, "SHA224"),
        sha("sha256", &["sha-256", "sha2-256"], 256, 64, "SHA256"),
        sha("sha384", &["sha-384", "sha2-384"], 384, 128, "SHA384"),
        sha("sha512", &["sha-512", "sha2-512"], 512, 128, "SHA512"),
        sha(
            "sha512-224",
            &["sha-512/224", "sha2-512/224", "sha512/224"],
            224,
            128,
            "SHA512-224",
        ),
        sha(
            "sha512-256",
            &["sha-512/256", "sha2-512/256", "sha512/256"],
            256,
            128,
            "SHA512-256",
        ),
        sha3("sha3-224", &[], 224, 144, "SHA3-224"),
        sha3("sha3-256", &[], 256, 136, "SHA3-256"),
        sha3("sha3-384", &[], 384, 104, "SHA3-384"),
        sha3("sha3-512", &[], 512, 72, "SHA3-512"),
        Spec {
            name: "shake128",
            aliases: &["shake-128"],
            family: "SHA-3",
            class: Cryptographic,
            output: xof(32),
            key: NO_KEY,
            customizable: false,
            block_size: 168,
            tag: "SHAKE128",
            preference: KECCAK_ORDER,
        },
        Spec {
            name: "shake256",
            aliases: &["shake-256"],
            family: "SHA-3",
            class: Cryptographic,
            output: xof(64),
            key: NO_KEY,
            customizable: false,
            block_size: 136,
            tag: "SHAKE256",
            preference: KECCAK_ORDER,
        },
        Spec {
            name: "blake2b",
            aliases: &["blake2b512", "blake2b-512", "b2"],
            family: "BLAKE2",
            class: Cryptographic,
            output: variable(64, 64),
            key: KeyRule::Optional { min: 1, max: 64 },
            customizable: false,
            block_size: 128,
            tag: "BLAKE2b",
            preference: BLAKE2_ORDER,
        },
        Spec {
            name: "blake2s",
            aliases: &["blake2s256", "blake2s-256"],
            family: "BLAKE2",
            class: Cryptographic,
            output: variable(32, 32),
            key: KeyRule::Optional { min: 1, max: 32 },
            customizable: false,
            block_size: 64,
            tag: "BLAKE2s",
            preference: BLAKE2_ORDER,
        },
        Spec {
            name: "blake2bp",
            aliases: &[],
            family: "BLAKE2",
            class: Cryptographic,
            output: variable(64, 64),
            key: KeyRule::Optional { min: 1, max: 64 },
            customizable: false,
            block_size: 128,
            // The BLAKE2 reference b2sum writes this mixed-case tag.
            tag: "BLAKE2bp",
            preference: &[("blake2-simd", "the only implementation of the 4-way tree mode")],
        },
        Spec {
            name: "blake2sp",
            aliases: &[],
            family: "BLAKE2",
            class: Cryptographic,
            output: variable(32, 32),
            key: KeyRule::Optional { min: 1, max: 32 },
            customizable: false,
            block_size: 64,
            tag: "BLAKE2sp",
            preference: &[("blake2-simd", "the only implementation of the 8-way tree mode")],
        },
        Spec {
            name: "blake3",
            aliases: &["b3"],
            family: "BLAKE3",
            class: Cryptographic,
            output: xof(32),
            key: KeyRule::Optional { min: 32, max: 32 },
            customizable: false,
            block_size: 64,
            tag: "BLAKE3",
            preference: &[("blake3", "the official crate: SSE2..AVX-512 chosen at run time")],
        },
        Spec {
            name: "k12",
            aliases: &["kangarootwelve", "kt128", "kangaroo12"],
            family: "Keccak",
            class: Cryptographic,
            output: xof(32),
            key: NO_KEY,
            customizable: true,
            block_size: 168,
            tag: "K12",
            preference: &[
                ("xkcp", "XKCP's assembly, AVX2/AVX-512 chosen at run time (2.3x the pure-Rust crate here)"),
                RUSTCRYPTO,
            ],
        },
        Spec {
            name: "turboshake128",
            aliases: &["turboshake-128"],
            family: "Keccak",
            class: Cryptographic,
            output: xof(32),
            key: NO_KEY,
            customizable: false,
            block_size: 168,
            tag: "TURBOSHAKE128",
            preference: &[RUSTCRYPTO],
        },
        Spec {
            name: "turboshake256",
            aliases: &["turboshake-256"],
            family: "Keccak",
            class: Cryptographic,
            output: xof(64),
            key: NO_KEY,
            customizable: false,
            block_size: 136,
            tag: "TURBOSHAKE256",
            preference: &[RUSTCRYPTO],
        },
        highway("highwayhash-64", &["highwayhash64", "highway-64", "highwayhash"], 8, "HIGHWAYHASH-64"),
        highway("highwayhash-128", &["highwayhash128", "highway-128"], 16, "HIGHWAYHASH-128"),
        highway("highwayhash-256", &["highwayhash256", "highway-256"], 32, "HIGHWAYHASH-256"),
        siphash("siphash-2-4", &["siphash", "siphash24"], "SIPHASH-2-4"),
        siphash("siphash-1-3", &["siphash13"], "SIPHASH-1-3"),
        xxh("xxh32", &["xxhash32"], 4, 16, "XXH32"),
        xxh("xxh64", &["xxhash64"], 8, 32, "XXH64"),
        xxh("xxh3-64", &["xxh3", "xxhash3", "xxh3_64"], 8, 64, "XXH3"),
        xxh("xxh3-128", &["xxh128", "xxhash128", "xxh3_128"], 16, 64, "XXH128"),
        Spec {
            name: "crc32c",
            aliases: &["crc-32c", "crc32-c", "castagnoli"],
            family: "CRC",
            class: Checksum,
            output: fixed(4),
            key: NO_KEY,
            customizable: false,
            block_size: 1,
            tag: "CRC32C",
            preference: &[
                ("crc-fast", "PCLMULQDQ/VPCLMULQDQ folding chosen at run time"),
                ("crc32c", "SSE4.2 crc32 instruction, three streams"),
            ],
        },
        Spec {
            name: "hmac-sha256",
            aliases: &["hmac-sha-256", "hmac-sha2-256", "hmacsha256"],
            family: "HMAC",
            class: Mac,
            output: fixed(32),
            key: ANY_KEY_ZERO_32,
            customizable: false,
            block_size: 64,
            tag: "HMAC-SHA256",
            preference: SHA_ORDER,
        },
        Spec {
            name: "hmac-sha512",
            aliases: &["hmac-sha-512", "hmac-sha2-512", "hmacsha512"],
            family: "HMAC",
            class: Mac,
            output: fixed(64),
            key: ANY_KEY_ZERO_32,
            customizable: false,
            block_size: 128,
            tag: "HMAC-SHA512",
            preference: SHA_ORDER,
        },
        Spec {
            name: "kmac128",
            aliases: &["kmac-128"],
            family: "Keccak",
            class: Mac,
            output: xof(32),
            key: ANY_KEY_ZERO_32,
            customizable: true,
            block_size: 168,
            tag: "KMAC128",
            preference: KECCAK_ORDER,
        },
        Spec {
            name: "kmac256",
            aliases: &["kmac-256"],
            family: "Keccak",
            class: Mac,
            output: xof(64),
            key: ANY_KEY_ZERO_32,
            customizable: true,
            block_size: 136,
            tag: "KMAC256",
            preference: KECCAK_ORDER,
        },
    ]
}

pub(crate) fn algorithms() -> Vec<Algorithm> {
    specs()
        .into_iter()
        .map(|s| Algorithm {
            name: s.name.to_string(),
            aliases: s.aliases.iter().map(|a| a.to_string()).collect(),
            family: s.family.to_string(),
            class: s.class,
            output: s.output,
            key: s.key,
            customizable: s.customizable,
            block_size: s.block_size,
            tag: s.tag.to_string(),
            preference: s
                .preference
                .iter()
                .map(|(b, why)| (b.to_string(), why.to_string()))
                .collect(),
        })
        .collect()
}
