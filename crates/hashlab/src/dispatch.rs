//! Which SIMD path each backend takes on a given CPU, and why.
//!
//! Backends pick their code themselves, mostly at run time, and none of them
//! says which path it took. So this module restates each backend's own rule as
//! data — candidate paths in the order the backend tries them, each with what
//! it needs — read from the sources of the versions in `Cargo.lock` (and, for
//! OpenSSL, the x86_64/ARMv8 perlasm dispatch of the 3.x releases). Given a
//! [`CpuProfile`], [`choose`] names the path and the reason. A test holds every
//! (algorithm, backend) pair of the registry to having exactly one rule.

use serde::{Deserialize, Serialize};

/// One condition a code path needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// A CPU feature found at run time (names as [`crate::cpu::has`] takes them).
    Feature(&'static str),
    /// A feature the binary was compiled for: for crates that choose with
    /// `cfg(target_feature)` and never look at the CPU.
    CompiledFor(&'static str),
    /// An Intel CPU. OpenSSL, ring and AWS-LC take their AVX SHA code only on
    /// Intel, because pre-Zen AMD CPUs ran its SHLD/SHRD rotates slowly.
    IntelCpu,
}

/// One code path of a backend and what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodePath {
    /// The architecture the path exists on, as `std::env::consts::ARCH` names it.
    pub arch: &'static str,
    pub label: &'static str,
    pub needs: &'static [Need],
}

/// How one backend chooses its code for some of its algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DispatchRule {
    pub backend: &'static str,
    pub algorithms: &'static [&'static str],
    /// In the order the backend tries them: the first whose needs are met runs.
    pub paths: &'static [CodePath],
    /// What runs when no path's needs are met.
    pub fallback: &'static str,
}

/// The path a backend takes on one CPU, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChosenPath {
    pub path: String,
    pub reason: String,
}

/// What decides a path: the architecture, the features found at run time, the
/// features compiled for, and whether the CPU is Intel's. [`CpuProfile::here`]
/// describes this machine; a profile can also describe another machine, or
/// this one with features masked off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuProfile {
    pub arch: String,
    pub features: Vec<String>,
    pub compiled_for: Vec<String>,
    pub intel: bool,
}

impl CpuProfile {
    pub fn here() -> CpuProfile {
        let known = crate::cpu::known_features();
        CpuProfile {
            arch: std::env::consts::ARCH.to_string(),
            features: crate::cpu::detected()
                .into_iter()
                .map(str::to_string)
                .collect(),
            compiled_for: known
                .iter()
                .filter(|f| crate::cpu::enabled_at_compile_time(f))
                .map(|f| f.to_string())
                .collect(),
            intel: crate::cpu::x86_vendor().as_deref() == Some("GenuineIntel"),
        }
    }

    fn meets(&self, need: &Need) -> bool {
        match *need {
            Need::Feature(name) => self.features.iter().any(|f| f == name),
            Need::CompiledFor(name) => self.compiled_for.iter().any(|f| f == name),
            Need::IntelCpu => self.intel,
        }
    }
}

fn feature_label(name: &str) -> &str {
    crate::cpu::label(name).unwrap_or(name)
}

/// "AVX + SSSE3 detected, Intel CPU": what a chosen path found.
fn found(needs: &[Need]) -> String {
    let detected: Vec<&str> = needs
        .iter()
        .filter_map(|n| match n {
            Need::Feature(name) => Some(feature_label(name)),
            _ => None,
        })
        .collect();
    let built: Vec<&str> = needs
        .iter()
        .filter_map(|n| match n {
            Need::CompiledFor(name) => Some(feature_label(name)),
            _ => None,
        })
        .collect();
    let mut parts = Vec::new();
    if !detected.is_empty() {
        parts.push(format!("{} detected", detected.join(" + ")));
    }
    if !built.is_empty() {
        parts.push(format!(
            "built with {} (no run-time detection)",
            built.join(" + ")
        ));
    }
    if needs.contains(&Need::IntelCpu) {
        parts.push("Intel CPU".to_string());
    }
    if parts.is_empty() {
        "needs nothing".to_string()
    } else {
        parts.join(", ")
    }
}

/// "no AVX-512F, no AVX-512VL": why a path was passed over.
fn lacking(missing: &[&Need]) -> String {
    missing
        .iter()
        .map(|n| match n {
            Need::Feature(name) => format!("no {}", feature_label(name)),
            Need::CompiledFor(name) => format!("not built with {}", feature_label(name)),
            Need::IntelCpu => "not an Intel CPU".to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The path `rule` takes on `cpu`. The reason names, for each path the backend
/// would have preferred, what it lacked, then what the chosen path found.
pub fn choose(rule: &DispatchRule, cpu: &CpuProfile) -> ChosenPath {
    let mut steps = Vec::new();
    let mut candidates = 0;
    for path in rule.paths.iter().filter(|p| p.arch == cpu.arch) {
        candidates += 1;
        let missing: Vec<&Need> = path.needs.iter().filter(|n| !cpu.meets(n)).collect();
        if missing.is_empty() {
            steps.push(found(path.needs));
            return ChosenPath {
                path: path.label.to_string(),
                reason: steps.join("; "),
            };
        }
        steps.push(format!("{} skipped: {}", path.label, lacking(&missing)));
    }
    let reason = if candidates == 0 {
        format!("{} has no SIMD path for this on {}", rule.backend, cpu.arch)
    } else {
        steps.join("; ")
    };
    ChosenPath {
        path: rule.fallback.to_string(),
        reason,
    }
}

/// The rule for one (algorithm, backend) pair, by canonical names.
pub fn rule_for(algorithm: &str, backend: &str) -> Option<&'static DispatchRule> {
    RULES
        .iter()
        .find(|r| r.backend == backend && r.algorithms.contains(&algorithm))
}

/// The path `backend` takes for `algorithm` on this machine; `None` for a
/// pair no rule describes (a user-registered backend).
pub fn path_here(algorithm: &str, backend: &str) -> Option<ChosenPath> {
    rule_for(algorithm, backend).map(|rule| choose(rule, &CpuProfile::here()))
}

/// Every rule.
pub fn rules() -> &'static [DispatchRule] {
    RULES
}

use Need::{CompiledFor as Built, Feature as F, IntelCpu as Intel};

const fn x86(label: &'static str, needs: &'static [Need]) -> CodePath {
    CodePath {
        arch: "x86_64",
        label,
        needs,
    }
}

const fn arm(label: &'static str, needs: &'static [Need]) -> CodePath {
    CodePath {
        arch: "aarch64",
        label,
        needs,
    }
}

const fn rule(
    backend: &'static str,
    algorithms: &'static [&'static str],
    paths: &'static [CodePath],
    fallback: &'static str,
) -> DispatchRule {
    DispatchRule {
        backend,
        algorithms,
        paths,
        fallback,
    }
}

const SHA256_FAMILY: &[&str] = &["sha224", "sha256", "hmac-sha256"];
const SHA512_FAMILY: &[&str] = &[
    "sha384",
    "sha512",
    "sha512-224",
    "sha512-256",
    "hmac-sha512",
];
const KECCAK_FAMILY: &[&str] = &[
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "shake128",
    "shake256",
    "turboshake128",
    "turboshake256",
    "k12",
    "kmac128",
    "kmac256",
];
const XXH_SCALAR: &[&str] = &["xxh32", "xxh64"];
const XXH3: &[&str] = &["xxh3-64", "xxh3-128"];
const HIGHWAY: &[&str] = &["highwayhash-64", "highwayhash-128", "highwayhash-256"];

const AVX_INTEL_ONLY: &str = "AVX (Intel CPUs only)";

// Rules list only the algorithms a backend registers; a test checks both ways.
const RULES: &[DispatchRule] = &[
    // RustCrypto: cpufeatures checks at run time in sha1, sha2 and keccak.
    rule("rustcrypto", &["md5"], &[], "portable Rust"),
    rule(
        "rustcrypto",
        &["sha1"],
        &[
            x86("SHA-NI", &[F("sha"), F("sse2"), F("ssse3"), F("sse4.1")]),
            arm("SHA1 instructions", &[F("sha2")]),
        ],
        "portable Rust",
    ),
    rule(
        "rustcrypto",
        SHA256_FAMILY,
        &[
            x86("SHA-NI", &[F("sha"), F("sse4.1")]),
            arm("SHA2 instructions", &[F("sha2")]),
        ],
        "portable Rust",
    ),
    rule(
        "rustcrypto",
        SHA512_FAMILY,
        &[
            x86("AVX2", &[F("avx2")]),
            arm("SHA512 instructions", &[F("sha512")]),
        ],
        "portable Rust",
    ),
    rule(
        "rustcrypto",
        KECCAK_FAMILY,
        &[arm("SHA3 instructions", &[F("sha3")])],
        "portable Rust Keccak",
    ),
    rule("rustcrypto", &["blake2b", "blake2s"], &[], "portable Rust"),
    // OpenSSL 3.x: the perlasm entry points test OPENSSL_ia32cap_P / the ARMv8 caps.
    rule("openssl", &["md5"], &[], "scalar (MD5 has no SIMD form)"),
    rule(
        "openssl",
        &["sha1"],
        &[
            x86("SHA-NI", &[F("ssse3"), F("sha")]),
            x86("AVX2+BMI2", &[F("ssse3"), F("avx2"), F("bmi2")]),
            x86(AVX_INTEL_ONLY, &[F("ssse3"), F("avx"), Intel]),
            x86("SSSE3", &[F("ssse3")]),
            arm("SHA1 instructions", &[F("sha2")]),
        ],
        "scalar assembly",
    ),
    rule(
        "openssl",
        SHA256_FAMILY,
        &[
            x86("SHA-NI", &[F("sha")]),
            x86("AVX2+BMI2", &[F("avx2"), F("bmi2")]),
            x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
            x86("SSSE3", &[F("ssse3")]),
            arm("SHA2 instructions", &[F("sha2")]),
            arm("NEON", &[F("neon")]),
        ],
        "scalar assembly",
    ),
    rule(
        "openssl",
        SHA512_FAMILY,
        &[
            x86("AVX2+BMI2", &[F("avx2"), F("bmi2")]),
            x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
            arm("SHA512 instructions", &[F("sha512")]),
        ],
        "scalar assembly",
    ),
    rule(
        "openssl",
        &[
            "sha3-224", "sha3-256", "sha3-384", "sha3-512", "shake128", "shake256", "kmac128",
            "kmac256",
        ],
        &[],
        "scalar Keccak assembly",
    ),
    rule("openssl", &["blake2b", "blake2s"], &[], "portable C"),
    rule(
        "openssl",
        &["siphash-2-4", "siphash-1-3"],
        &[],
        "portable C",
    ),
    // ring 0.17: the same perlasm, dispatched from Rust (digest/sha2/sha2_*.rs); its SHA-1 is Rust.
    rule("ring", &["sha1"], &[], "portable Rust"),
    rule(
        "ring",
        &["sha256", "hmac-sha256"],
        &[
            x86("SHA-NI", &[F("sha"), F("ssse3")]),
            x86(AVX_INTEL_ONLY, &[F("avx"), Intel]),
            x86("SSSE3", &[F("ssse3")]),
            arm("SHA2 instructions", &[F("sha2")]),
        ],
        "scalar assembly",
    ),
    rule(
        "ring",
        &["sha384", "sha512", "sha512-256", "hmac-sha512"],
        &[
            x86(AVX_INTEL_ONLY, &[F("avx"), Intel]),
            arm("SHA512 instructions", &[F("sha512")]),
        ],
        "scalar assembly",
    ),
    // AWS-LC: the *_capable() tests in crypto/fipsmodule/sha/internal.h.
    rule(
        "aws-lc",
        &["sha1"],
        &[
            x86("SHA-NI", &[F("sha"), F("ssse3")]),
            x86("AVX2+BMI2", &[F("avx2"), F("bmi2"), F("ssse3")]),
            x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
            x86("SSSE3", &[F("ssse3")]),
            arm("SHA1 instructions", &[F("sha2")]),
        ],
        "scalar assembly",
    ),
    rule(
        "aws-lc",
        SHA256_FAMILY,
        &[
            x86("SHA-NI", &[F("sha")]),
            x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
            x86("SSSE3", &[F("ssse3")]),
            arm("SHA2 instructions", &[F("sha2")]),
        ],
        "scalar assembly",
    ),
    rule(
        "aws-lc",
        &["sha384", "sha512", "sha512-256", "hmac-sha512"],
        &[
            x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
            arm("SHA512 instructions", &[F("sha512")]),
        ],
        "scalar assembly",
    ),
    rule(
        "aws-lc",
        &["sha3-256", "sha3-384", "sha3-512"],
        &[arm(
            "SHA3 instructions (scalar s2n-bignum code on Neoverse N1/V1/V2/V3)",
            &[F("sha3")],
        )],
        "scalar Keccak assembly",
    ),
    // blake2b_simd / blake2s_simd: guts.rs, Implementation::detect.
    rule(
        "blake2-simd",
        &["blake2b"],
        &[x86("AVX2", &[F("avx2")]), x86("SSE4.1", &[F("sse4.1")])],
        "portable Rust",
    ),
    rule(
        "blake2-simd",
        &["blake2s"],
        // blake2s_simd compresses one message with SSE4.1 even when AVX2 is
        // present; its AVX2 code only serves eight messages at once.
        &[x86("SSE4.1", &[F("sse4.1")])],
        "portable Rust",
    ),
    rule(
        "blake2-simd",
        &["blake2bp"],
        &[
            x86("AVX2, 4 lanes", &[F("avx2")]),
            x86("SSE4.1, 2 lanes", &[F("sse4.1")]),
        ],
        "portable Rust",
    ),
    rule(
        "blake2-simd",
        &["blake2sp"],
        &[
            x86("AVX2, 8 lanes", &[F("avx2")]),
            x86("SSE4.1, 4 lanes", &[F("sse4.1")]),
        ],
        "portable Rust",
    ),
    // blake3: platform.rs, Platform::detect; NEON is assumed on little-endian aarch64.
    rule(
        "blake3",
        &["blake3"],
        &[
            x86("AVX-512", &[F("avx512f"), F("avx512vl")]),
            x86("AVX2", &[F("avx2")]),
            x86("SSE4.1", &[F("sse4.1")]),
            x86("SSE2", &[F("sse2")]),
            arm("NEON", &[F("neon")]),
        ],
        "portable Rust",
    ),
    // XKCP: KeccakP-1600-runtimeDispatch.c (x86_64 and ARMv8A-SHA3 variants).
    rule(
        "xkcp",
        &["k12"],
        &[
            x86("AVX-512", &[F("avx512f"), F("avx512vl")]),
            x86("AVX2", &[F("avx2")]),
            arm("SHA3 instructions", &[F("sha3")]),
        ],
        "generic 64-bit C",
    ),
    // highway: builder.rs, HighwayHasher::new.
    rule(
        "highway-simd",
        HIGHWAY,
        &[
            x86("AVX2", &[F("avx2")]),
            x86("SSE4.1", &[F("sse4.1")]),
            arm("NEON", &[F("neon")]),
        ],
        "portable Rust",
    ),
    rule("highway-portable", HIGHWAY, &[], "portable Rust"),
    rule(
        "siphasher",
        &["siphash-2-4", "siphash-1-3"],
        &[],
        "portable Rust",
    ),
    // twox-hash 2: xxhash3/large.rs dispatch!; XXH32 and XXH64 are scalar by design.
    rule(
        "twox-hash",
        XXH_SCALAR,
        &[],
        "scalar (XXH32/XXH64 have no SIMD form)",
    ),
    rule(
        "twox-hash",
        XXH3,
        &[
            x86("AVX2", &[F("avx2")]),
            x86("SSE2", &[F("sse2")]),
            arm("NEON", &[F("neon")]),
        ],
        "scalar Rust",
    ),
    // xxhash-rust: xxh3.rs chooses with cfg(target_feature) only.
    rule(
        "xxhash-rust",
        XXH_SCALAR,
        &[],
        "scalar (XXH32/XXH64 have no SIMD form)",
    ),
    rule(
        "xxhash-rust",
        XXH3,
        &[
            x86("AVX-512 (compile time)", &[Built("avx512f")]),
            x86("AVX2 (compile time)", &[Built("avx2")]),
            x86("SSE2 (compile time)", &[Built("sse2")]),
            arm("NEON (compile time)", &[Built("neon")]),
        ],
        "scalar Rust",
    ),
    // crc-fast: feature_detection.rs tiers, then crc32/fusion for CRC-32/ISCSI;
    // inputs up to 256 bytes (x86) or 127 bytes (aarch64) use the crc32 instruction alone.
    rule(
        "crc-fast",
        &["crc32c"],
        &[
            x86(
                "VPCLMULQDQ (AVX-512VL) + crc32 fusion",
                &[
                    F("sse4.1"),
                    F("pclmulqdq"),
                    F("avx512vl"),
                    F("vpclmulqdq"),
                    F("sse4.2"),
                ],
            ),
            x86(
                "PCLMULQDQ (AVX-512VL) + crc32 fusion",
                &[F("sse4.1"), F("pclmulqdq"), F("avx512vl"), F("sse4.2")],
            ),
            x86(
                "PCLMULQDQ + crc32 fusion",
                &[F("sse4.1"), F("pclmulqdq"), F("sse4.2")],
            ),
            x86("PCLMULQDQ folding", &[F("sse4.1"), F("pclmulqdq")]),
            arm("PMULL + EOR3 + CRC32 fusion", &[F("aes"), F("sha3")]),
            arm("PMULL + CRC32 fusion", &[F("aes")]),
        ],
        "table-driven software",
    ),
    rule(
        "crc32c",
        &["crc32c"],
        &[
            x86("SSE4.2 crc32", &[F("sse4.2")]),
            arm("CRC32C instructions", &[F("crc")]),
        ],
        "software tables",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;

    fn profile(arch: &str, features: &[&str], compiled_for: &[&str], intel: bool) -> CpuProfile {
        let owned = |names: &[&str]| names.iter().map(|s| s.to_string()).collect();
        CpuProfile {
            arch: arch.to_string(),
            features: owned(features),
            compiled_for: owned(compiled_for),
            intel,
        }
    }

    const ZEN4: &[&str] = &[
        "sse2",
        "ssse3",
        "sse4.1",
        "sse4.2",
        "avx",
        "avx2",
        "avx512f",
        "avx512vl",
        "avx512bw",
        "sha",
        "vaes",
        "aes",
        "pclmulqdq",
        "vpclmulqdq",
        "bmi2",
    ];
    const HASWELL: &[&str] = &[
        "sse2",
        "ssse3",
        "sse4.1",
        "sse4.2",
        "avx",
        "avx2",
        "aes",
        "pclmulqdq",
        "bmi2",
    ];

    fn path(algorithm: &str, backend: &str, cpu: &CpuProfile) -> ChosenPath {
        choose(rule_for(algorithm, backend).expect("rule"), cpu)
    }

    #[test]
    fn every_registered_pair_has_exactly_one_rule() {
        let registry = Registry::default();
        for backend in registry.backends() {
            let matching = RULES
                .iter()
                .filter(|r| {
                    r.backend == backend.name && r.algorithms.contains(&backend.algorithm.as_str())
                })
                .count();
            assert_eq!(
                matching, 1,
                "{} / {}: {matching} rules",
                backend.algorithm, backend.name
            );
        }
    }

    #[test]
    fn every_default_backend_has_a_path_here() {
        let registry = Registry::default();
        for algorithm in registry.algorithms() {
            let (backend, _) = registry.default_backend(&algorithm.name).unwrap();
            let chosen = path_here(&algorithm.name, &backend.name)
                .unwrap_or_else(|| panic!("{} / {}", algorithm.name, backend.name));
            assert!(!chosen.path.is_empty() && !chosen.reason.is_empty());
        }
    }

    #[test]
    fn every_rule_names_registered_pairs_and_known_features() {
        let registry = Registry::default();
        for rule in RULES {
            for algorithm in rule.algorithms {
                assert!(
                    registry.backend(algorithm, rule.backend).is_ok(),
                    "rule for {algorithm} / {} matches no registered backend",
                    rule.backend
                );
            }
            for path in rule.paths {
                let known = crate::cpu::known_features_of(path.arch);
                for need in path.needs {
                    if let Need::Feature(name) | Need::CompiledFor(name) = need {
                        assert!(known.contains(name), "{}: unknown {name}", path.label);
                    }
                }
            }
        }
    }

    #[test]
    fn the_first_path_whose_needs_are_met_wins() {
        let zen4 = profile("x86_64", ZEN4, &["sse2"], false);
        let haswell = profile("x86_64", HASWELL, &["sse2"], true);
        assert_eq!(path("blake3", "blake3", &zen4).path, "AVX-512");
        let on_haswell = path("blake3", "blake3", &haswell);
        assert_eq!(on_haswell.path, "AVX2");
        assert_eq!(
            on_haswell.reason,
            "AVX-512 skipped: no AVX-512F, no AVX-512VL; AVX2 detected"
        );
        assert_eq!(path("sha256", "openssl", &zen4).path, "SHA-NI");
        assert_eq!(path("sha256", "openssl", &haswell).path, "AVX2+BMI2");
        assert_eq!(path("sha256", "rustcrypto", &haswell).path, "portable Rust");
        assert_eq!(
            path("crc32c", "crc-fast", &zen4).path,
            "VPCLMULQDQ (AVX-512VL) + crc32 fusion"
        );
        assert_eq!(
            path("crc32c", "crc-fast", &haswell).path,
            "PCLMULQDQ + crc32 fusion"
        );
    }

    #[test]
    fn the_vendor_decides_the_avx_sha_code() {
        let avx_only = ["sse2", "ssse3", "sse4.1", "avx"];
        let intel = profile("x86_64", &avx_only, &[], true);
        let amd = profile("x86_64", &avx_only, &[], false);
        assert_eq!(path("sha512", "ring", &intel).path, AVX_INTEL_ONLY);
        let on_amd = path("sha512", "ring", &amd);
        assert_eq!(on_amd.path, "scalar assembly");
        assert!(
            on_amd.reason.contains("skipped: not an Intel CPU"),
            "{}",
            on_amd.reason
        );
    }

    #[test]
    fn compile_time_paths_follow_the_build_not_the_cpu() {
        let built_for_sse2 = profile("x86_64", ZEN4, &["sse2"], false);
        let built_for_avx2 = profile("x86_64", &["sse2"], &["sse2", "avx2"], false);
        assert_eq!(
            path("xxh3-64", "xxhash-rust", &built_for_sse2).path,
            "SSE2 (compile time)"
        );
        assert_eq!(
            path("xxh3-64", "xxhash-rust", &built_for_avx2).path,
            "AVX2 (compile time)"
        );
        assert_eq!(path("xxh3-64", "twox-hash", &built_for_sse2).path, "AVX2");
    }

    #[test]
    fn other_architectures_use_their_own_paths() {
        let graviton2 = profile(
            "aarch64",
            &["neon", "sha2", "crc", "pmull", "aes"],
            &["neon"],
            false,
        );
        assert_eq!(
            path("sha256", "rustcrypto", &graviton2).path,
            "SHA2 instructions"
        );
        let keccak = path("sha3-256", "rustcrypto", &graviton2);
        assert_eq!(keccak.path, "portable Rust Keccak");
        assert_eq!(
            keccak.reason,
            "SHA3 instructions skipped: no SHA3 instructions"
        );
        assert_eq!(path("blake3", "blake3", &graviton2).path, "NEON");
        let blake2 = path("blake2b", "blake2-simd", &graviton2);
        assert_eq!(blake2.path, "portable Rust");
        assert_eq!(
            blake2.reason,
            "blake2-simd has no SIMD path for this on aarch64"
        );
    }
}
