//! The vocabulary of the catalog's entries: what an entry states, the
//! traits most share ([`BASE`]), and the orders of backends and the
//! constructors that families of entries share.

use crate::algorithm::XOF_MAX_OUTPUT;
use crate::{
    ByteRange, Class, DomainRule, FileBound, KeyRule, LineForm, Lineage, OutputRule, TreeRule,
};

/// One catalog entry: what is true of an algorithm whatever code computes it.
/// Fields not given take [`BASE`]'s value.
pub(super) struct Spec {
    pub(super) name: &'static str,
    pub(super) aliases: &'static [&'static str],
    pub(super) family: &'static str,
    pub(super) class: Class,
    pub(super) lineage: Lineage,
    pub(super) output: OutputRule,
    pub(super) key: KeyRule,
    pub(super) customizable: bool,
    pub(super) salt: Option<ByteRange>,
    pub(super) personal: Option<ByteRange>,
    /// Width of its seeds in bits.
    pub(super) seed: Option<u32>,
    pub(super) domain: Option<DomainRule>,
    /// FIPS 202's first padding byte, for SHA-3 and SHAKE.
    pub(super) fips202_suffix: Option<u8>,
    pub(super) derive_key: bool,
    pub(super) tree: Option<TreeRule>,
    pub(super) block_size: usize,
    pub(super) tag: &'static str,
    /// Tags other tools write for it, with the length in bytes they imply.
    pub(super) foreign_tags: &'static [(&'static str, Option<usize>)],
    pub(super) digest_prefix: Option<&'static str>,
    pub(super) bare_gnu_default: bool,
    pub(super) untagged_rank: Option<u8>,
    pub(super) cksum_rank: Option<u8>,
    pub(super) lines: LineForm,
    pub(super) file_bound: FileBound,
    pub(super) stable: bool,
    pub(super) default_bench: bool,
    pub(super) git_object_format: bool,
    pub(super) hashdeep_column: Option<&'static str>,
    pub(super) integer_digest: bool,
    pub(super) sfv: bool,
    /// HMAC over this hash (RFC 2104), as its own algorithm `hmac-NAME`: the
    /// rest of that entry follows from this one (see `hmac_of` in catalog.rs).
    pub(super) hmac: Option<Hmac>,
    /// The digest of "abc" at default parameters, from the independent oracles
    /// of `scripts/gen_vectors.py` (hashlib, pycryptodome, the C xxHash /
    /// SipHash / HighwayHash / CRC32C libraries, the pure-Python BLAKE3). A
    /// benchmark checks each backend against it before timing it.
    pub(super) abc: &'static str,
    pub(super) preference: &'static [Pref],
}

/// The traits most algorithms share; an entry states only where it differs.
pub(super) const BASE: Spec = Spec {
    name: "",
    aliases: &[],
    family: "",
    class: Class::Cryptographic,
    lineage: Lineage::Other,
    output: fixed(32),
    key: NO_KEY,
    customizable: false,
    salt: None,
    personal: None,
    seed: None,
    domain: None,
    fips202_suffix: None,
    derive_key: false,
    tree: None,
    block_size: 64,
    tag: "",
    foreign_tags: &[],
    digest_prefix: None,
    bare_gnu_default: false,
    untagged_rank: OTHER_HASH,
    cksum_rank: None,
    lines: LineForm::Gnu,
    file_bound: FileBound::Hash,
    stable: true,
    default_bench: true,
    git_object_format: false,
    hashdeep_column: None,
    integer_digest: false,
    sfv: false,
    hmac: None,
    abc: "",
    preference: &[],
};

// Where a candidate for an untagged line stands (`Algorithm::untagged_rank`):
// the tools that write such lines first, each with the lengths it writes,
// cryptographic hashes before the rest.
/// md5sum, sha1sum, sha224sum..sha512sum: what coreutils reads a bare line as.
pub(super) const COREUTILS_TOOL: Option<u8> = Some(0);
/// b2sum and b3sum.
pub(super) const CHECKSUM_TOOL: Option<u8> = Some(1);
/// Every other unkeyed hash whose lines `sum` writes untagged.
pub(super) const OTHER_HASH: Option<u8> = Some(2);
/// xxhsum's untagged XXH32, XXH64 and XXH128 lines: no security claim.
pub(super) const XXHSUM: Option<u8> = Some(3);
/// CRCs written as bare lines: error detection only.
pub(super) const CRC_LINE: Option<u8> = Some(4);
/// Never read from an untagged line: keyed hashes and MACs (the line cannot
/// say the key), and algorithms whose lines are always tagged.
pub(super) const NOT_UNTAGGED: Option<u8> = None;

/// What an HMAC entry adds to its hash's entry.
#[derive(Clone, Copy)]
pub(super) struct Hmac {
    /// HMAC of "abc" under the default key (32 zero bytes), from Python's hmac.
    pub(super) abc: &'static str,
    pub(super) default_bench: bool,
}

pub(super) const fn hmac(abc: &'static str) -> Option<Hmac> {
    Some(Hmac {
        abc,
        default_bench: false,
    })
}

pub(super) const fn fixed(bytes: usize) -> OutputRule {
    OutputRule::Fixed { bytes }
}
pub(super) const fn variable(default: usize, max: usize) -> OutputRule {
    OutputRule::Variable {
        default,
        min: 1,
        max,
    }
}
pub(super) const fn xof(default: usize) -> OutputRule {
    OutputRule::Xof {
        default,
        max: XOF_MAX_OUTPUT,
    }
}
pub(super) const NO_KEY: KeyRule = KeyRule::None;
pub(super) const fn zero_key(bytes: usize) -> KeyRule {
    KeyRule::Defaulted {
        min: bytes,
        max: bytes,
        default: bytes,
    }
}
/// HMAC and KMAC take keys of any length; unkeyed means 32 zero bytes
/// (for HMAC that equals the empty key, since HMAC pads keys with zeros).
pub(super) const ANY_KEY_ZERO_32: KeyRule = KeyRule::Defaulted {
    min: 0,
    max: 1 << 20,
    default: 32,
};

/// A default-backend preference: backend, the CPU feature it needs to be
/// preferred (None: always), and why. The orders follow measurements on this
/// project's machines (docs/backends.md).
pub(super) type Pref = (&'static str, Option<&'static str>, &'static str);

pub(super) const OPENSSL_ASM: Pref = (
    "openssl",
    None,
    "OpenSSL's hand-written assembly, faster than the Rust code on bulk data",
);
pub(super) const AWS_LC: Pref = (
    "aws-lc",
    None,
    "AWS-LC assembly (OpenSSL-derived), dispatched at run time",
);
pub(super) const RUSTCRYPTO: Pref = (
    "rustcrypto",
    None,
    "pure Rust, SIMD where the crate detects it",
);
pub(super) const RING: Pref = ("ring", None, "BoringSSL-derived assembly");
/// OpenSSL's portable C, for hashes it has no assembly for.
pub(super) const OPENSSL_C: Pref = ("openssl", None, "OpenSSL's portable C");
/// SHA-1 and SHA-256: with SHA-NI (or ARMv8 SHA2) every backend ties on bulk
/// data, and RustCrypto has the least overhead per message.
pub(super) const SHA_NI_ORDER: &[Pref] = &[
    (
        "rustcrypto",
        Some("sha"),
        "SHA-NI here: all backends tie on bulk data (within 2 %) and RustCrypto has the least per-message cost (1.6x OpenSSL at 64 B, 3.5x for HMAC at 16 B)",
    ),
    (
        "rustcrypto",
        Some("sha2"),
        "ARMv8 SHA2 instructions here, used by RustCrypto at run time",
    ),
    (
        "openssl",
        None,
        "no SHA instructions here: OpenSSL's AVX2/SSSE3 assembly beats the Rust fallback",
    ),
    AWS_LC,
    RUSTCRYPTO,
    RING,
];
pub(super) const SHA512_ORDER: &[Pref] = &[
    (
        "openssl",
        None,
        "OpenSSL's AVX2 assembly: about 1.5x RustCrypto on bulk data here",
    ),
    AWS_LC,
    RUSTCRYPTO,
    RING,
];
pub(super) const KECCAK_ORDER: &[Pref] = &[
    (
        "openssl",
        None,
        "OpenSSL's Keccak assembly beats the portable Rust permutation on bulk data",
    ),
    AWS_LC,
    RUSTCRYPTO,
];
pub(super) const BLAKE2B_ORDER: &[Pref] = &[
    (
        "rustcrypto",
        None,
        "1.7-1.8x blake2b_simd on AMD Zen 4 (1515 vs 826 MB/s at 1 KiB) and 0.94-1.04x it on an Intel Xeon: the order that loses least on the machines measured",
    ),
    (
        "blake2-simd",
        None,
        "AVX2 compression chosen at run time",
    ),
    ("openssl", None, "OpenSSL's C implementation"),
];
pub(super) const BLAKE2S_ORDER: &[Pref] = &[
    (
        "rustcrypto",
        None,
        "measured 2-5 % faster than blake2s_simd here from 1 KiB up (whose AVX2 code serves only the many-lane modes)",
    ),
    ("blake2-simd", None, "SSE4.1 compression chosen at run time"),
    ("openssl", None, "OpenSSL's C implementation"),
];
pub(super) const XXH3_ORDER: &[Pref] = &[
    (
        "hashlab",
        Some("avx512f"),
        "AVX-512 loop written here: 1.23-1.43x twox-hash's AVX2 at 8 KiB-1 MiB, 1.14x at 16 MiB (Xeon, hashlab bench, 2026-11-27)",
    ),
    (
        "twox-hash",
        None,
        "picks AVX2/SSE2 at run time (xxhash-rust fixes it at compile time): about 2x on bulk data",
    ),
    (
        "xxhash-rust",
        None,
        "portable build of the reference algorithm",
    ),
];
pub(super) const XXH_SCALAR_ORDER: &[Pref] = &[
    (
        "twox-hash",
        None,
        "scalar like xxhash-rust, and as fast on bulk data",
    ),
    (
        "xxhash-rust",
        None,
        "portable build of the reference algorithm",
    ),
];

pub(super) const HIGHWAY_ORDER: &[Pref] = &[
    ("highway-simd", None, "AVX2/SSE4.1/NEON chosen at run time"),
    ("highway-portable", None, "portable Rust"),
];
pub(super) const SIPHASH_ORDER: &[Pref] = &[
    (
        "siphasher",
        None,
        "3-6.6x OpenSSL's EVP_MAC on 16-64 B inputs, SipHash's purpose (OpenSSL is 6-9 % faster beyond 64 KiB)",
    ),
    ("openssl", None, "OpenSSL's EVP_MAC SIPHASH"),
];

pub(super) const fn sha2(
    name: &'static str,
    aliases: &'static [&'static str],
    bits: usize,
    block_size: usize,
    tag: &'static str,
    foreign_tags: &'static [(&'static str, Option<usize>)],
    abc: &'static str,
) -> Spec {
    Spec {
        name,
        aliases,
        family: "SHA-2",
        lineage: Lineage::MerkleDamgard,
        output: fixed(bits / 8),
        block_size,
        tag,
        foreign_tags,
        // coreutils' sha224sum..sha512sum; none for the truncated SHA-512s.
        bare_gnu_default: block_size == 64 || bits >= 384,
        untagged_rank: if block_size == 64 || bits >= 384 {
            COREUTILS_TOOL
        } else {
            OTHER_HASH
        },
        abc,
        preference: if block_size == 64 {
            SHA_NI_ORDER
        } else {
            SHA512_ORDER
        },
        ..BASE
    }
}

/// FIPS 202's domain bits with the pad's first 1: `01` for SHA-3, `1111`
/// for SHAKE (section 6.1 and 6.2), least significant bit first.
pub(super) const SHA3_SUFFIX: u8 = 0x06;
pub(super) const SHAKE_SUFFIX: u8 = 0x1f;

pub(super) const fn sha3(
    name: &'static str,
    bits: usize,
    rate: usize,
    tag: &'static str,
    abc: &'static str,
) -> Spec {
    Spec {
        name,
        family: "SHA-3",
        lineage: Lineage::Keccak,
        output: fixed(bits / 8),
        block_size: rate,
        fips202_suffix: Some(SHA3_SUFFIX),
        tag,
        abc,
        preference: KECCAK_ORDER,
        ..BASE
    }
}

pub(super) const fn xxh(
    name: &'static str,
    aliases: &'static [&'static str],
    bytes: usize,
    block_size: usize,
    tag: &'static str,
    abc: &'static str,
) -> Spec {
    Spec {
        name,
        aliases,
        family: "xxHash",
        // XXH32 takes 32-bit seeds; XXH64 and XXH3 64-bit ones.
        seed: Some(if bytes == 4 { 32 } else { 64 }),
        default_bench: false,
        class: Class::NonCryptographic,
        output: fixed(bytes),
        block_size,
        tag,
        file_bound: FileBound::Reading,
        integer_digest: true,
        untagged_rank: XXHSUM,
        abc,
        preference: if bytes >= 8 && block_size == 64 {
            XXH3_ORDER
        } else {
            XXH_SCALAR_ORDER
        },
        ..BASE
    }
}

pub(super) const fn highway(
    name: &'static str,
    aliases: &'static [&'static str],
    bytes: usize,
    tag: &'static str,
    abc: &'static str,
) -> Spec {
    Spec {
        name,
        aliases,
        family: "HighwayHash",
        default_bench: false,
        class: Class::Keyed,
        untagged_rank: NOT_UNTAGGED,
        output: fixed(bytes),
        key: zero_key(32),
        block_size: 32,
        tag,
        file_bound: FileBound::Reading,
        abc,
        preference: HIGHWAY_ORDER,
        ..BASE
    }
}

pub(super) const fn siphash(
    name: &'static str,
    aliases: &'static [&'static str],
    tag: &'static str,
    abc: &'static str,
) -> Spec {
    Spec {
        name,
        aliases,
        family: "SipHash",
        default_bench: false,
        class: Class::Keyed,
        untagged_rank: NOT_UNTAGGED,
        output: fixed(8),
        key: zero_key(16),
        block_size: 8,
        tag,
        abc,
        preference: SIPHASH_ORDER,
        ..BASE
    }
}

/// A hash-table hash whose value, big-endian, is the digest.
pub(super) const fn fast_hash(family: &'static str) -> Spec {
    Spec {
        family,
        // No checksum tool reads these as bare GNU lines, and their lengths
        // are XXH64's or CRC's: the tag says which hash a line holds.
        lines: LineForm::Tagged,
        untagged_rank: NOT_UNTAGGED,
        class: Class::NonCryptographic,
        block_size: 1,
        default_bench: false,
        integer_digest: true,
        ..BASE
    }
}

/// A CRC whose value, big-endian, is the digest.
pub(super) const fn crc_spec(bytes: usize) -> Spec {
    Spec {
        family: "CRC",
        class: Class::Checksum,
        untagged_rank: CRC_LINE,
        output: fixed(bytes),
        block_size: 1,
        file_bound: FileBound::Reading,
        default_bench: false,
        integer_digest: true,
        ..BASE
    }
}

pub(super) const fn blake2(
    name: &'static str,
    aliases: &'static [&'static str],
    bytes: usize,
    block_size: usize,
    tag: &'static str,
    abc: &'static str,
) -> Spec {
    Spec {
        name,
        aliases,
        family: "BLAKE2",
        lineage: Lineage::Blake,
        output: variable(bytes, bytes),
        key: KeyRule::Optional { min: 1, max: bytes },
        // Salt and personalization are a quarter of the block each (RFC 7693's
        // parameter block), padded with zeros when shorter.
        salt: Some(ByteRange {
            min: 0,
            max: block_size / 8,
        }),
        personal: Some(ByteRange {
            min: 0,
            max: block_size / 8,
        }),
        // BLAKE2s's parameter block holds a 48-bit node offset, BLAKE2b's 64.
        tree: Some(TreeRule {
            node_offset_bits: if block_size == 128 { 64 } else { 48 },
            inner_max: bytes,
        }),
        block_size,
        tag,
        abc,
        preference: if block_size == 128 {
            BLAKE2B_ORDER
        } else {
            BLAKE2S_ORDER
        },
        ..BASE
    }
}
