//! The CPU features that decide which code paths can run here.
//!
//! Names are the ones `is_x86_feature_detected!` / `is_aarch64_feature_detected!`
//! take, so a backend's own detection and ours agree by construction.

/// Whether this CPU has `feature` (names as `is_x86_feature_detected!` spells them:
/// "avx2", "sse4.1", "sha", "pclmulqdq", ...). Always false for names this module
/// does not know, and on architectures other than x86_64 and aarch64.
///
/// On aarch64, NEON is always true (the architecture guarantees it), and
/// "sha512" is true exactly when Rust's "sha3" is: Rust only detects the
/// SHA-512 instructions together with SHA-3 (its `sha3` means FEAT_SHA3 and
/// FEAT_SHA512).
pub fn has(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as detect;
        match feature {
            "sse2" => detect!("sse2"),
            "ssse3" => detect!("ssse3"),
            "sse4.1" => detect!("sse4.1"),
            "sse4.2" => detect!("sse4.2"),
            "avx" => detect!("avx"),
            "avx2" => detect!("avx2"),
            "avx512f" => detect!("avx512f"),
            "avx512vl" => detect!("avx512vl"),
            "avx512bw" => detect!("avx512bw"),
            "sha" => detect!("sha"),
            "vaes" => detect!("vaes"),
            "aes" => detect!("aes"),
            "pclmulqdq" => detect!("pclmulqdq"),
            "vpclmulqdq" => detect!("vpclmulqdq"),
            "bmi2" => detect!("bmi2"),
            _ => false,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::is_aarch64_feature_detected as detect;
        match feature {
            "neon" => true,
            "sha2" => detect!("sha2"),
            "sha3" | "sha512" => detect!("sha3"),
            "crc" => detect!("crc"),
            "pmull" => detect!("pmull"),
            "aes" => detect!("aes"),
            _ => false,
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = feature;
        false
    }
}

const X86_64_FEATURES: &[&str] = &[
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

const AARCH64_FEATURES: &[&str] = &["neon", "sha2", "sha3", "sha512", "crc", "pmull", "aes"];

/// The features `has` knows for this architecture, in a fixed order: every
/// feature that some hash backend's dispatch depends on.
pub fn known_features() -> &'static [&'static str] {
    known_features_of(std::env::consts::ARCH)
}

/// The features `has` knows on `arch` (as `std::env::consts::ARCH` names it),
/// so that reports from other machines can be read here.
pub fn known_features_of(arch: &str) -> &'static [&'static str] {
    match arch {
        "x86_64" => X86_64_FEATURES,
        "aarch64" => AARCH64_FEATURES,
        _ => &[],
    }
}

/// The features this CPU has, of those `known_features` lists.
pub fn detected() -> Vec<&'static str> {
    known_features()
        .iter()
        .copied()
        .filter(|f| has(f))
        .collect()
}

/// The name people use for a feature ("sha" -> "SHA-NI", "sse4.1" -> "SSE4.1").
/// `None` for names this module does not know.
pub fn label(feature: &str) -> Option<&'static str> {
    Some(match feature {
        "sse2" => "SSE2",
        "ssse3" => "SSSE3",
        "sse4.1" => "SSE4.1",
        "sse4.2" => "SSE4.2",
        "avx" => "AVX",
        "avx2" => "AVX2",
        "avx512f" => "AVX-512F",
        "avx512vl" => "AVX-512VL",
        "avx512bw" => "AVX-512BW",
        "sha" => "SHA-NI",
        "vaes" => "VAES",
        // The one name both architectures use; x86 people call it AES-NI.
        "aes" if cfg!(target_arch = "aarch64") => "AES",
        "aes" => "AES-NI",
        "pclmulqdq" => "PCLMULQDQ",
        "vpclmulqdq" => "VPCLMULQDQ",
        "bmi2" => "BMI2",
        "neon" => "NEON",
        "sha2" => "SHA1/SHA2 instructions",
        "sha3" => "SHA3 instructions",
        "sha512" => "SHA512 instructions",
        "crc" => "CRC32",
        "pmull" => "PMULL",
        _ => return None,
    })
}

/// What a feature does for hashing: which algorithms or backends use it.
/// `None` for names this module does not know.
pub fn used_for(feature: &str) -> Option<&'static str> {
    Some(match feature {
        "sse2" => "x86_64 baseline SIMD: BLAKE3 and XXH3 fall back to it",
        "ssse3" => "byte shuffles in the OpenSSL/ring/AWS-LC SHA-1 and SHA-256 code",
        "sse4.1" => "128-bit BLAKE2, BLAKE3, HighwayHash; the RustCrypto SHA-NI code needs it",
        "sse4.2" => "the crc32 instruction (CRC-32C)",
        "avx" => "the AVX SHA code of OpenSSL, ring and AWS-LC (taken on Intel CPUs only)",
        "avx2" => "256-bit BLAKE2, BLAKE3, XXH3, HighwayHash, K12 and SHA-512 code",
        "avx512f" => "512-bit BLAKE3 and K12 code (with AVX-512VL), the XXH3 loop",
        "avx512vl" => "AVX-512 on 128/256-bit registers: BLAKE3, K12, crc-fast",
        "avx512bw" => "512-bit byte and word operations (no current backend requires it)",
        "sha" => "SHA-1 and SHA-256 rounds in hardware",
        "vaes" => "vector AES rounds, for AES-based hashes (no current backend)",
        "aes" if cfg!(target_arch = "aarch64") => {
            "AES rounds; crc-fast requires it for its PMULL folding"
        }
        "aes" => "AES rounds, for AES-based hashes (no current backend)",
        "pclmulqdq" => "carry-less multiply: CRC folding",
        "vpclmulqdq" => "carry-less multiply on wide vectors: CRC folding at 4x the width",
        "bmi2" => "flag-free shifts and rotates in OpenSSL's AVX2 SHA code",
        "neon" => "128-bit BLAKE3, XXH3 and HighwayHash code",
        "sha2" => "SHA-1 and SHA-256 rounds in hardware",
        "sha3" => "three-way XOR and rotate (EOR3/RAX1/XAR): Keccak, K12, CRC fusion",
        "sha512" => "SHA-512 rounds in hardware",
        "crc" => "CRC-32 and CRC-32C instructions",
        "pmull" => "carry-less multiply: CRC folding",
        _ => return None,
    })
}

/// Whether `feature` was enabled when this crate was compiled (`-C
/// target-feature` / `-C target-cpu`). Crates that pick their SIMD path with
/// `cfg(target_feature)` instead of run-time detection (xxhash-rust) are
/// compiled with the same flags, so this says which path they took.
pub fn enabled_at_compile_time(feature: &str) -> bool {
    match feature {
        "sse2" => cfg!(target_feature = "sse2"),
        "ssse3" => cfg!(target_feature = "ssse3"),
        "sse4.1" => cfg!(target_feature = "sse4.1"),
        "sse4.2" => cfg!(target_feature = "sse4.2"),
        "avx" => cfg!(target_feature = "avx"),
        "avx2" => cfg!(target_feature = "avx2"),
        "avx512f" => cfg!(target_feature = "avx512f"),
        "avx512vl" => cfg!(target_feature = "avx512vl"),
        "avx512bw" => cfg!(target_feature = "avx512bw"),
        "sha" => cfg!(target_feature = "sha"),
        "vaes" => cfg!(target_feature = "vaes"),
        "aes" => cfg!(target_feature = "aes"),
        "pclmulqdq" => cfg!(target_feature = "pclmulqdq"),
        "vpclmulqdq" => cfg!(target_feature = "vpclmulqdq"),
        "bmi2" => cfg!(target_feature = "bmi2"),
        "neon" => cfg!(target_feature = "neon"),
        "sha2" => cfg!(target_feature = "sha2"),
        "sha3" | "sha512" => cfg!(target_feature = "sha3"),
        "crc" => cfg!(target_feature = "crc"),
        // Rust has no `pmull` target feature: its aarch64 `aes` includes PMULL.
        "pmull" => cfg!(target_feature = "aes"),
        _ => false,
    }
}

/// The CPUID vendor string ("GenuineIntel", "AuthenticAMD", ...) on x86_64;
/// `None` elsewhere. Some assembly (OpenSSL, ring, AWS-LC) takes its AVX SHA
/// path only on Intel CPUs, so the vendor decides code paths too.
pub fn x86_vendor() -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        // `__cpuid` became a safe function after Rust 1.85, this crate's oldest compiler.
        #[allow(unused_unsafe)]
        // SAFETY: every x86_64 CPU has CPUID and its leaf 0.
        let leaf = unsafe { std::arch::x86_64::__cpuid(0) };
        // The vendor string is EBX, EDX, ECX in that order.
        let bytes: Vec<u8> = [leaf.ebx, leaf.edx, leaf.ecx]
            .iter()
            .flat_map(|r| r.to_le_bytes())
            .collect();
        Some(String::from_utf8_lossy(&bytes).trim().to_string())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_feature_has_a_label_and_a_use() {
        for name in X86_64_FEATURES.iter().chain(AARCH64_FEATURES) {
            assert!(label(name).is_some(), "{name} has no label");
            assert!(used_for(name).is_some(), "{name} has no use");
        }
        assert_eq!(label("sha"), Some("SHA-NI"));
        assert_eq!(label("sse4.1"), Some("SSE4.1"));
        assert_eq!(label("no-such-feature"), None);
    }

    #[test]
    fn detected_is_the_known_features_this_cpu_has() {
        let detected = detected();
        for name in known_features() {
            assert_eq!(detected.contains(name), has(name), "{name}");
        }
        assert!(!has("no-such-feature"));
    }

    #[test]
    fn baseline_features_are_present() {
        // x86_64 guarantees SSE2 and aarch64 guarantees NEON; a detector that
        // misses them is broken.
        if cfg!(target_arch = "x86_64") {
            assert!(has("sse2"));
            assert!(enabled_at_compile_time("sse2"));
            assert_eq!(x86_vendor().map(|v| v.len()), Some(12));
        }
        if cfg!(target_arch = "aarch64") {
            assert!(has("neon"));
        }
    }

    #[test]
    fn compile_time_features_are_also_present_at_run_time() {
        // A binary compiled for a feature the CPU lacks would not get this far.
        for name in known_features() {
            if enabled_at_compile_time(name) {
                assert!(has(name), "{name} compiled in but not detected");
            }
        }
    }
}
