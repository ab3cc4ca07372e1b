//! Every built-in algorithm, one entry each: names, traits, the digest of
//! "abc" and the preferred backends. Data only; adding an algorithm is
//! adding an entry here (see [`super::spec::Spec`] for what each field means).

use super::spec::*;
use crate::{Class, DomainRule, FileBound, KeyRule, LineForm, Lineage};

/// Every entry, as data: a constant, so building a registry (every run of the
/// CLI, every Python import) and asking which hashes have an HMAC copy nothing.
pub(super) static SPECS: &[Spec] = {
    use Class::*;
    &[
        Spec {
            name: "md5",
            aliases: &["md-5"],
            family: "MD5",
            lineage: Lineage::MerkleDamgard,
            output: fixed(16),
            tag: "MD5",
            bare_gnu_default: true,
            untagged_rank: COREUTILS_TOOL,
            hashdeep_column: Some("md5"),
            hmac: hmac("dd2701993d29fdd0b032c233cec63403"),
            abc: "900150983cd24fb0d6963f7d28e17f72",
            preference: &[OPENSSL_ASM, RUSTCRYPTO],
            ..BASE
        },
        Spec {
            // Broken since 1995; here to read old manifests (rhash, ED2K's parts).
            name: "md4",
            aliases: &["md-4"],
            family: "MD4",
            lineage: Lineage::MerkleDamgard,
            output: fixed(16),
            tag: "MD4",
            default_bench: false,
            abc: "a448017aaf21d8525fc10ae87aa6729d",
            preference: &[
                ("rustcrypto", None, "0.83x OpenSSL on bulk data here, but OpenSSL 3 needs its legacy provider loaded for MD4"),
                OPENSSL_C,
            ],
            ..BASE
        },
        Spec {
            // Bitcoin's HASH160 and OpenPGP v3 fingerprints.
            name: "ripemd160",
            aliases: &["ripemd-160", "rmd160", "ripemd"],
            family: "RIPEMD",
            lineage: Lineage::MerkleDamgard,
            output: fixed(20),
            tag: "RIPEMD160",
            // rhash --bsd, and OpenSSL's `dgst` output.
            foreign_tags: &[("RMD160", None), ("RIPEMD-160", None)],
            default_bench: false,
            hmac: hmac("cf402f47ae89744c54ee3d8333677b26aaf3d8e2"),
            abc: "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc",
            preference: &[
                ("rustcrypto", None, "1.25x OpenSSL's C on bulk data here"),
                OPENSSL_C,
            ],
            ..BASE
        },
        Spec {
            // GB/T 32905-2016, ISO/IEC 10118-3; `cksum -a sm3`.
            name: "sm3",
            aliases: &["sm-3"],
            family: "SM3",
            lineage: Lineage::MerkleDamgard,
            output: fixed(32),
            tag: "SM3",
            default_bench: false,
            hmac: hmac("36525058ca466791502435c910517f1a7e86613d5f35ac1f18a94def0eaac81f"),
            abc: "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0",
            preference: &[
                ("rustcrypto", None, "within 7 % of OpenSSL's C on bulk data here, with less cost per message"),
                OPENSSL_C,
            ],
            ..BASE
        },
        Spec {
            name: "sha1",
            aliases: &["sha-1"],
            family: "SHA-1",
            lineage: Lineage::MerkleDamgard,
            output: fixed(20),
            tag: "SHA1",
            bare_gnu_default: true,
            untagged_rank: COREUTILS_TOOL,
            git_object_format: true,
            hashdeep_column: Some("sha1"),
            hmac: hmac("9b4a918f398d74d3e367970aba3cbe54e4d2b5d9"),
            abc: "a9993e364706816aba3e25717850c26c9cd0d89d",
            preference: SHA_NI_ORDER,
            ..BASE
        },
        Spec {
            hmac: hmac("d473c456fa6aad72bbec9c6ad63ca92d8675caa0b7f451fa4b692081"),
            ..sha2(
                "sha224",
                &["sha-224", "sha2-224"],
                224,
                64,
                "SHA224",
                &[("SHA2-224", None)],
                "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
            )
        },
        Spec {
            git_object_format: true,
            hashdeep_column: Some("sha256"),
            hmac: Some(Hmac {
                abc: "fd7adb152c05ef80dccf50a1fa4c05d5a3ec6da95575fc312ae7c5d091836351",
                default_bench: true,
            }),
                ..sha2(
                "sha256",
                &["sha-256", "sha2-256"],
                256,
                64,
                "SHA256",
                &[("SHA2-256", None)],
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            )
        },
        Spec {
            hmac: hmac("948f7c5caa500c31d7d4a0f52f3e3da7e33c8a9fe6ef528b8a9ac3e4adc4e24d908e6f40b737510e82354759dc5e9f06"),
            ..sha2(
                "sha384",
                &["sha-384", "sha2-384"],
                384,
                128,
                "SHA384",
                &[("SHA2-384", None)],
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            )
        },
        Spec {
            hmac: Some(Hmac {
                abc: "29689f6b79a8dd686068c2eeae97fd8769ad3ba65cb5381f838358a8045a358ee3ba1739c689c7805e31734fb6072f87261d1256995370d55725cba00d10bdd0",
                default_bench: true,
            }),
            ..sha2(
                "sha512",
                &["sha-512", "sha2-512"],
                512,
                128,
                "SHA512",
                &[("SHA2-512", None)],
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            )
        },
        Spec {
            hmac: hmac("bbff170efa4e26333b19388fe35029e8d7c49c6443f5b2acb6e110dc"),
            ..sha2(
                "sha512-224",
                &["sha-512/224", "sha2-512/224", "sha512/224"],
                224,
                128,
                "SHA512-224",
                &[("SHA2-512/224", None), ("SHA512/224", None)],
                "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa",
            )
        },
        Spec {
            hmac: hmac("784cac6aafefd5517029bae0cd223d58111dc37f390d982fae2a0548b5aa67ea"),
            ..sha2(
                "sha512-256",
                &["sha-512/256", "sha2-512/256", "sha512/256"],
                256,
                128,
                "SHA512-256",
                &[("SHA2-512/256", None), ("SHA512/256", None)],
                "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
            )
        },
        Spec {
            hmac: hmac("45590e15e0bcb331f9de5c3bf8ef8e7d018a45397735e5a8a1ce0b9b"),
            ..sha3("sha3-224", 224, 144, "SHA3-224", "e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf")
        },
        Spec {
            hmac: hmac("776bdf4f598121a2ac38c408d375731a5681f10998e77dcb92fb474adfef8f90"),
            ..sha3("sha3-256", 256, 136, "SHA3-256", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532")
        },
        Spec {
            hmac: hmac("175064a7663c17b5fa7abcd6fb9d0969b7be431dc4d310d2196d06b23cd8a9db5b13013038437b636de8dfa38edc3452"),
            ..sha3("sha3-384", 384, 104, "SHA3-384", "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25")
        },
        Spec {
            hmac: hmac("aedf400b73941c7a3bfb6f72c9e6f4530216fe82d382b04da2dd5eb099f8ca4f9319c0158e5ca9368cb9fb497b0863e4b5fc62701c75eef6a8b30fdf7836bd59"),
            ..sha3("sha3-512", 512, 72, "SHA3-512", "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0")
        },
        Spec {
            name: "shake128",
            aliases: &["shake-128"],
            family: "SHA-3",
            lineage: Lineage::Keccak,
            output: xof(32),
            block_size: 168,
            fips202_suffix: Some(SHAKE_SUFFIX),
            tag: "SHAKE128",
            foreign_tags: &[("SHAKE-128", None)],
            abc: "5881092dd818bf5cf8a3ddb793fbcba74097d5c526a6d35f97b83351940f2cc8",
            preference: KECCAK_ORDER,
            ..BASE
        },
        Spec {
            name: "shake256",
            aliases: &["shake-256"],
            family: "SHA-3",
            lineage: Lineage::Keccak,
            output: xof(64),
            block_size: 136,
            fips202_suffix: Some(SHAKE_SUFFIX),
            tag: "SHAKE256",
            foreign_tags: &[("SHAKE-256", None)],
            abc: "483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739d5a15bef186a5386c75744c0527e1faa9f8726e462a12a4feb06bd8801e751e4",
            preference: KECCAK_ORDER,
            ..BASE
        },
        Spec {
            foreign_tags: &[("BLAKE2b512", Some(64)), ("BLAKE2B-512", Some(64))],
            // b2sum's untagged lines.
            untagged_rank: CHECKSUM_TOOL,
            ..blake2(
                "blake2b",
                &["blake2b512", "blake2b-512", "b2"],
                64,
                128,
                "BLAKE2b",
                "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
            )
        },
        Spec {
            foreign_tags: &[("BLAKE2s256", Some(32)), ("BLAKE2S-256", Some(32))],
            ..blake2(
                "blake2s",
                &["blake2s256", "blake2s-256"],
                32,
                64,
                "BLAKE2s",
                "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982",
            )
        },
        Spec {
            preference: &[("blake2-simd", None, "the only implementation of the 4-way tree mode")],
            salt: None,
            personal: None,
            tree: None,
            ..blake2(
                "blake2bp",
                &[],
                64,
                128,
                // The BLAKE2 reference b2sum writes this mixed-case tag.
                "BLAKE2bp",
                "b91a6b66ae87526c400b0a8b53774dc65284ad8f6575f8148ff93dff943a6ecd8362130f22d6dae633aa0f91df4ac89aaff31d0f1b923c898e82025dedbdad6e",
            )
        },
        Spec {
            preference: &[("blake2-simd", None, "the only implementation of the 8-way tree mode")],
            salt: None,
            personal: None,
            tree: None,
            ..blake2(
                "blake2sp",
                &[],
                32,
                64,
                "BLAKE2sp",
                "70f75b58f1fecab821db43c88ad84edde5a52600616cd22517b7bb14d440a7d5",
            )
        },
        Spec {
            name: "blake3",
            lines: LineForm::B3sum,
            untagged_rank: CHECKSUM_TOOL,
            derive_key: true,
            aliases: &["b3"],
            family: "BLAKE3",
            lineage: Lineage::Blake,
            output: xof(32),
            key: KeyRule::Optional { min: 32, max: 32 },
            tag: "BLAKE3",
            abc: "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
            preference: &[("blake3", None, "the official crate: SSE2..AVX-512 chosen at run time")],
            ..BASE
        },
        Spec {
            name: "k12",
            aliases: &["kangarootwelve", "kt128", "kangaroo12"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(32),
            customizable: true,
            block_size: 168,
            tag: "K12",
            abc: "ab174f328c55a5510b0b209791bf8b60e801a7cfc2aa42042dcb8f547fbe3a7d",
            preference: &[
                ("xkcp", None, "XKCP's assembly, AVX2/AVX-512 chosen at run time (2-6x the pure-Rust crate here)"),
                RUSTCRYPTO,
            ],
            ..BASE
        },
        Spec {
            // RFC 9861's KangarooTwelve over TurboSHAKE256: 256-bit security.
            name: "kt256",
            aliases: &["kangarootwelve256", "kangaroo12-256"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(64),
            customizable: true,
            block_size: 136,
            tag: "KT256",
            default_bench: false,
            abc: "1b0f960f43e0384827a362330d724052a89f075c13cf496a51888a23b0075d6457071c7ea6f6f8c2274eef3804f623e4e0543cd2e2e7574de79a4fef735367de",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "turboshake128",
            // RFC 9861: any byte 0x01..0x7F; 0x1F when none is given.
            domain: Some(DomainRule {
                min: 0x01,
                max: 0x7F,
                default: 0x1F,
            }),
            aliases: &["turboshake-128"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(32),
            block_size: 168,
            tag: "TURBOSHAKE128",
            abc: "dcf1646dfe993a8eb6b782d1faaca6d82416a5dcf1de98ee3c6dbc5e1dc63018",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "turboshake256",
            // RFC 9861: any byte 0x01..0x7F; 0x1F when none is given.
            domain: Some(DomainRule {
                min: 0x01,
                max: 0x7F,
                default: 0x1F,
            }),
            aliases: &["turboshake-256"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(64),
            block_size: 136,
            tag: "TURBOSHAKE256",
            abc: "63824b1431a7372e85edc022c9d7afdd027472fcfa33c887d6f5aaf8dc5d4db68afbcb5714b49b7ffd8dd115dd5bd5436f837236845a230d6969a4083a113617",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            // NIST SP 800-232 (2025): the lightweight hash of constrained devices.
            name: "ascon-hash256",
            aliases: &["ascon-hash", "asconhash256"],
            family: "Ascon",
            output: fixed(32),
            block_size: 8,
            tag: "ASCON-HASH256",
            default_bench: false,
            abc: "45aa03431c3c829b3b066f33e844b0cc4d20a45af92d3dcfdf34f40fc20935cf",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "ascon-xof128",
            aliases: &["ascon-xof", "asconxof128"],
            family: "Ascon",
            output: xof(32),
            block_size: 8,
            tag: "ASCON-XOF128",
            default_bench: false,
            abc: "b87198613d724232505baa68187f925708c009fe6ec13d19ce3c7aa6b20b2f0b",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "ascon-cxof128",
            aliases: &["ascon-cxof", "asconcxof128"],
            family: "Ascon",
            output: xof(32),
            customizable: true,
            block_size: 8,
            tag: "ASCON-CXOF128",
            default_bench: false,
            abc: "5713d780f6589bd7386271bab19d542bc2cd0f406e42fe73e5c5aad720c94892",
            preference: &[(
                "rustcrypto",
                None,
                "the only implementation here: SP 800-232's CXOF over RustCrypto's permutation",
            )],
            ..BASE
        },
        Spec {
            default_bench: true,
            ..highway(
                "highwayhash-64",
                &["highwayhash64", "highway-64", "highwayhash"],
                8,
                "HIGHWAYHASH-64",
                "094ec3b17329c279",
            )
        },
        highway("highwayhash-128", &["highwayhash128", "highway-128"], 16, "HIGHWAYHASH-128", "fedb8ead2abea66f4384d03c11813128"),
        highway("highwayhash-256", &["highwayhash256", "highway-256"], 32, "HIGHWAYHASH-256", "a5a26736040a997ec7b9338afab936ede410fd10f88c57d409ac7d5e3932bb4f"),
        siphash("siphash-2-4", &["siphash", "siphash24"], "SIPHASH-2-4", "deee70479684c83f"),
        siphash("siphash-1-3", &["siphash13"], "SIPHASH-1-3", "f2302604a0c33bc0"),
        Spec {
            // The reference code's double-length output (Wycheproof's "siphashx").
            output: fixed(16),
            ..siphash(
                "siphash-2-4-128",
                &["siphash128", "siphash24-128", "siphashx-2-4"],
                "SIPHASH-2-4-128",
                "6c95dec302962fa8ca5e69c1d5d15478",
            )
        },
        Spec {
            output: fixed(16),
            ..siphash(
                "siphash-1-3-128",
                &["siphash13-128", "siphashx-1-3"],
                "SIPHASH-1-3-128",
                "18bab55bb4eeb464cdd2201c436f2ff6",
            )
        },
        xxh("xxh32", &["xxhash32"], 4, 16, "XXH32", "32d153ff"),
        xxh("xxh64", &["xxhash64"], 8, 32, "XXH64", "44bc2cf5ad770999"),
        Spec {
            // xxhsum reads a 16-digit GNU line as XXH64.
            lines: LineForm::Tagged,
            // xxhsum 0.8.2 and later write `-H3`'s untagged lines so.
            digest_prefix: Some("XXH3_"),
            untagged_rank: NOT_UNTAGGED,
            default_bench: true,
            ..xxh("xxh3-64", &["xxh3", "xxhash3", "xxh3_64"], 8, 64, "XXH3", "78af5f94892f3950")
        },
        xxh("xxh3-128", &["xxh128", "xxhash128", "xxh3_128"], 16, 64, "XXH128", "06b05ab6733a618578af5f94892f3950"),
        Spec {
            name: "fnv1a-32",
            aliases: &["fnv1a32", "fnv-1a-32"],
            tag: "FNV1A-32",
            output: fixed(4),
            // SMHasher3's seeding (hashes/fnv.cpp): the offset basis XOR the seed.
            seed: Some(32),
            abc: "1a47e90b",
            preference: &[("fnv", None, "the only implementation here")],
            ..fast_hash("FNV")
        },
        Spec {
            name: "fnv1a-64",
            aliases: &["fnv1a64", "fnv-1a-64", "fnv1a"],
            tag: "FNV1A-64",
            output: fixed(8),
            seed: Some(64),
            abc: "e71fa2190541574b",
            preference: &[("fnv", None, "the only implementation here")],
            ..fast_hash("FNV")
        },
        Spec {
            // MurmurHash3_x86_32, seed 0: the value, big-endian.
            name: "murmur3-32",
            aliases: &["murmur3", "murmurhash3-32", "murmur3-x86-32", "mmh3"],
            tag: "MURMUR3-32",
            output: fixed(4),
            block_size: 4,
            // The reference's own 32-bit seed, the initial state.
            seed: Some(32),
            abc: "b3dd93fa",
            preference: &[("murmur3", None, "the only implementation here")],
            ..fast_hash("MurmurHash3")
        },
        Spec {
            // MurmurHash3_x64_128, seed 0: the reference's 16 output bytes
            // (h1 then h2, each little-endian), as Guava's HashCode prints them.
            name: "murmur3-128",
            aliases: &["murmurhash3-128", "murmur3-x64-128", "mmh3-128"],
            tag: "MURMUR3-128",
            output: fixed(16),
            block_size: 16,
            integer_digest: false,
            seed: Some(32),
            abc: "6778ad3f3f3f96b4522dca264174a23b",
            preference: &[("murmur3", None, "the only implementation here")],
            ..fast_hash("MurmurHash3")
        },
        Spec {
            // wyhash final4 (wyhash.h "final version 4"), default secret.
            name: "wyhash",
            aliases: &["wyhash-final4", "wyhash64", "wyhash4"],
            tag: "WYHASH",
            output: fixed(8),
            block_size: 48,
            seed: Some(64),
            abc: "02a4f1d7cb516c72",
            preference: &[("wyhash-final4", None, "the only implementation here")],
            ..fast_hash("wyhash")
        },
        Spec {
            // rapidhash v3 (Nicoshev/rapidhash), the C++ secrets: rapidhash()
            // and rapidhash_withSeed().
            name: "rapidhash",
            aliases: &["rapidhash-v3", "rapidhash3"],
            tag: "RAPIDHASH",
            output: fixed(8),
            block_size: 112,
            seed: Some(64),
            abc: "cb475beafa9c0da2",
            preference: &[("rapidhash", None, "the only implementation here")],
            ..fast_hash("rapidhash")
        },
        Spec {
            // komihash 5 (avaneev/komihash).
            name: "komihash",
            aliases: &["komihash5"],
            tag: "KOMIHASH",
            output: fixed(8),
            block_size: 64,
            seed: Some(64),
            abc: "03b74dc61a6b7f33",
            preference: &[("komihash", None, "the only implementation here")],
            ..fast_hash("komihash")
        },
        Spec {
            // foldhash's fast variant with a fixed seed: Rust's hashbrown
            // default. Its output may change between versions and differs
            // between 32- and 64-bit machines, so it is measured but never
            // written to a manifest.
            name: "foldhash",
            aliases: &["foldhash-fast"],
            tag: "FOLDHASH",
            output: fixed(8),
            block_size: 16,
            seed: Some(64),
            stable: false,
            abc: "",
            preference: &[("foldhash", None, "the only implementation here")],
            ..fast_hash("foldhash")
        },
        Spec {
            name: "crc32c",
            aliases: &["crc-32c", "crc32-c", "castagnoli"],
            family: "CRC",
            class: Checksum,
            output: fixed(4),
            block_size: 1,
            tag: "CRC32C",
            file_bound: FileBound::Reading,
            integer_digest: true,
            // The CRC value to continue from, as SMHasher3 seeds CRC-32C
            // (hashes/crc.cpp) and crc32c_append takes it: 0 is the plain CRC.
            seed: Some(32),
            untagged_rank: CRC_LINE,
            abc: "364b3fb7",
            preference: &[
                ("crc-fast", None, "PCLMULQDQ/VPCLMULQDQ folding chosen at run time"),
                ("crc32c", None, "SSE4.2 crc32 instruction, three streams"),
            ],
            ..BASE
        },
        Spec {
            name: "crc32",
            // cksum -a crc32b (coreutils 9.6), rhash --crc32, zlib, S3's CRC32.
            aliases: &["crc-32", "crc32b", "crc-32/iso-hdlc", "crc32-iso-hdlc", "crc32-ieee"],
            tag: "CRC32",
            // SFV files (rhash --sfv, cfv) hold this CRC.
            sfv: true,
            // `cksum -a crc32b` (coreutils 9.6).
            cksum_rank: Some(1),
            abc: "352441c2",
            preference: &[
                ("crc-fast", None, "PCLMULQDQ/VPCLMULQDQ folding: 1.7x crc32fast at 1 KiB, tied on bulk data"),
                ("crc32fast", None, "PCLMULQDQ folding, slice-by-16 tables elsewhere"),
            ],
            ..crc_spec(4)
        },
        Spec {
            name: "crc64nvme",
            // S3's default object checksum (CRC64NVME).
            aliases: &["crc64-nvme", "crc-64/nvme"],
            tag: "CRC64NVME",
            abc: "05e5cabb3fc1faeb",
            preference: &[
                ("crc-fast", None, "VPCLMULQDQ folding: 2.7x crc64fast-nvme on bulk data here"),
                ("crc64fast-nvme", None, "PCLMULQDQ folding"),
            ],
            ..crc_spec(8)
        },
        Spec {
            name: "crc32-posix",
            // What `cksum` prints with no option (coreutils' `-a crc`): the CRC
            // of the data and its length.
            aliases: &["cksum", "posix-cksum", "crc-posix", "crc"],
            tag: "CRC",
            lines: LineForm::Cksum,
            untagged_rank: NOT_UNTAGGED,
            // cksum's default.
            cksum_rank: Some(0),
            abc: "48aa78a2",
            preference: &[
                ("crc-fast", None, "PCLMULQDQ/VPCLMULQDQ folding: 13x the table code on bulk data"),
                ("crc", None, "slice-by-16 tables, no CPU feature needed"),
            ],
            ..crc_spec(4)
        },
        Spec {
            // The 16-bit BSD checksum: `sum -r` (coreutils' default `sum`),
            // `cksum -a bsd`. A rotate-right-and-add over the bytes.
            name: "bsd",
            aliases: &["bsd-sum", "sum-bsd", "sum-r"],
            family: "UNIX sum",
            tag: "BSD",
            lines: LineForm::BsdSum,
            // Its lines are cksum's shape, never a bare digest.
            untagged_rank: NOT_UNTAGGED,
            cksum_rank: Some(2),
            abc: "40ac",
            preference: &[("hashlab", None, "the only implementation here")],
            ..crc_spec(2)
        },
        Spec {
            // The System V sum: `sum -s`, `cksum -a sysv`. The bytes' sum
            // modulo 2^32, folded to 16 bits.
            name: "sysv",
            aliases: &["sysv-sum", "sum-sysv", "sum-s"],
            family: "UNIX sum",
            tag: "SYSV",
            lines: LineForm::SysvSum,
            untagged_rank: NOT_UNTAGGED,
            cksum_rank: Some(3),
            abc: "0126",
            preference: &[("hashlab", None, "the only implementation here")],
            ..crc_spec(2)
        },
        Spec {
            // SP 800-185 cSHAKE with an empty function name; S is the
            // customization string (with none it is SHAKE128).
            name: "cshake128",
            aliases: &["cshake-128"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(32),
            customizable: true,
            block_size: 168,
            tag: "CSHAKE128",
            default_bench: false,
            abc: "5881092dd818bf5cf8a3ddb793fbcba74097d5c526a6d35f97b83351940f2cc8",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "cshake256",
            aliases: &["cshake-256"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(64),
            customizable: true,
            block_size: 136,
            tag: "CSHAKE256",
            default_bench: false,
            abc: "483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739d5a15bef186a5386c75744c0527e1faa9f8726e462a12a4feb06bd8801e751e4",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "parallelhash128",
            aliases: &["parallelhash-128"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(32),
            customizable: true,
            block_size: 168,
            tag: "PARALLELHASH128",
            default_bench: false,
            abc: "f07b9b1d0da389544bce61cfead55b2d599ecbb6aedc21e2850513900290fd0b",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "parallelhash256",
            aliases: &["parallelhash-256"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(64),
            customizable: true,
            block_size: 136,
            tag: "PARALLELHASH256",
            default_bench: false,
            abc: "820040c1e9577df899a483b67d235c8cc25b61a99ad604d2f64c2b998f21b43e1f4952584fcad517c5993ea0c013ee6f3f9622343084894fdeef516ab0df3353",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            // SP 800-185 TupleHash; a message is the tuple of one string, its
            // length encoded before it (readers announce it, see Hasher).
            name: "tuplehash128",
            aliases: &["tuplehash-128"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(32),
            customizable: true,
            block_size: 168,
            tag: "TUPLEHASH128",
            default_bench: false,
            abc: "873195cadfea6bc6a71cdd903da87afb49fd232d71db817c3abcad48ad8a7898",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "tuplehash256",
            aliases: &["tuplehash-256"],
            family: "Keccak",
            lineage: Lineage::Keccak,
            output: xof(64),
            customizable: true,
            block_size: 136,
            tag: "TUPLEHASH256",
            default_bench: false,
            abc: "ca7a87aba99f45aecff1ec6fe534e9d691ae31cb8a7aa5d48b26c563aae2099ef7265381acd2da55b679ab903b0c45e933a92d2a8fc65898f2d95ed7a415b650",
            preference: &[RUSTCRYPTO],
            ..BASE
        },
        Spec {
            name: "kmac128",
            aliases: &["kmac-128"],
            family: "Keccak",
            class: Mac,
            untagged_rank: NOT_UNTAGGED,
            lineage: Lineage::Keccak,
            output: xof(32),
            key: ANY_KEY_ZERO_32,
            customizable: true,
            block_size: 168,
            tag: "KMAC128",
            abc: "702206e981c20db2cc3e9a1e3250e41264a8d768b048a3f840e49a0940e5e2b2",
            preference: KECCAK_ORDER,
            ..BASE
        },
        Spec {
            name: "kmac256",
            aliases: &["kmac-256"],
            family: "Keccak",
            class: Mac,
            untagged_rank: NOT_UNTAGGED,
            lineage: Lineage::Keccak,
            output: xof(64),
            key: ANY_KEY_ZERO_32,
            customizable: true,
            block_size: 136,
            tag: "KMAC256",
            abc: "05d3d96958d7d477b97ffbc914a0af9086ea0beff70ddbbab85b8ca0e7ba27a580573e4df54a1eb609658ac6299807f06b1708efa1f89056edd71182f80a0820",
            preference: KECCAK_ORDER,
            ..BASE
        },
        Spec {
            name: "kmacxof128",
            aliases: &["kmac-xof-128", "kmacxof-128"],
            family: "Keccak",
            class: Mac,
            untagged_rank: NOT_UNTAGGED,
            lineage: Lineage::Keccak,
            output: xof(32),
            key: ANY_KEY_ZERO_32,
            customizable: true,
            block_size: 168,
            tag: "KMACXOF128",
            default_bench: false,
            abc: "fea9de1bd5df699e4b864f42aa6d5e86fd76fa84d536a9a001a775723b9a0532",
            preference: KECCAK_ORDER,
            ..BASE
        },
        Spec {
            name: "kmacxof256",
            aliases: &["kmac-xof-256", "kmacxof-256"],
            family: "Keccak",
            class: Mac,
            untagged_rank: NOT_UNTAGGED,
            lineage: Lineage::Keccak,
            output: xof(64),
            key: ANY_KEY_ZERO_32,
            customizable: true,
            block_size: 136,
            tag: "KMACXOF256",
            default_bench: false,
            abc: "8601b369006b12d80009d1fb23b58bfa284085f37a128b9450402816ec97e0f074039d7b6a6e58517d6e37fc61a99551080c949def463643bddffbab7697fede",
            preference: KECCAK_ORDER,
            ..BASE
        },
    ]
};
