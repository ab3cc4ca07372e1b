//! The CPU features that decide which code paths can run here.

/// Whether this CPU has `feature` (names as `is_x86_feature_detected!` spells them:
/// "avx2", "sse4.1", "sha", "pclmulqdq", ...). Always false on other architectures,
/// except NEON on aarch64, which that architecture guarantees.
pub fn has(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match feature {
            "sse2" => std::arch::is_x86_feature_detected!("sse2"),
            "ssse3" => std::arch::is_x86_feature_detected!("ssse3"),
            "sse4.1" => std::arch::is_x86_feature_detected!("sse4.1"),
            "sse4.2" => std::arch::is_x86_feature_detected!("sse4.2"),
            "avx" => std::arch::is_x86_feature_detected!("avx"),
            "avx2" => std::arch::is_x86_feature_detected!("avx2"),
            "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
            "avx512vl" => std::arch::is_x86_feature_detected!("avx512vl"),
            "sha" => std::arch::is_x86_feature_detected!("sha"),
            "pclmulqdq" => std::arch::is_x86_feature_detected!("pclmulqdq"),
            "vpclmulqdq" => std::arch::is_x86_feature_detected!("vpclmulqdq"),
            "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
            "aes" => std::arch::is_x86_feature_detected!("aes"),
            "vaes" => std::arch::is_x86_feature_detected!("vaes"),
            _ => false,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        match feature {
            "neon" => true,
            "sha2" => std::arch::is_aarch64_feature_detected!("sha2"),
            "sha3" => std::arch::is_aarch64_feature_detected!("sha3"),
            "crc" => std::arch::is_aarch64_feature_detected!("crc"),
            "aes" => std::arch::is_aarch64_feature_detected!("aes"),
            _ => false,
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = feature;
        false
    }
}

/// The features `has` knows for this architecture, in a fixed order.
pub fn known_features() -> &'static [&'static str] {
    #[cfg(target_arch = "x86_64")]
    {
        &[
            "sse2",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "avx",
            "avx2",
            "avx512f",
            "avx512vl",
            "sha",
            "pclmulqdq",
            "vpclmulqdq",
            "bmi2",
            "aes",
            "vaes",
        ]
    }
    #[cfg(target_arch = "aarch64")]
    {
        &["neon", "sha2", "sha3", "crc", "aes"]
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        &[]
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
