//! The path a backend takes on a CPU, from the [`super::Dispatch`] it carries.

use super::{feature_label, ChosenPath, CpuProfile, Need};
use crate::Backend;

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

/// The path `backend` takes on `cpu`; `None` for a backend that states no
/// [`super::Dispatch`] (a user's). The reason names, for each path the backend would
/// have preferred, what it lacked, then what the chosen path found.
pub fn choose(backend: &Backend, cpu: &CpuProfile) -> Option<ChosenPath> {
    let dispatch = backend.dispatch?;
    let mut steps = Vec::new();
    let mut candidates = 0;
    for path in dispatch.paths.iter().filter(|p| p.arch == cpu.arch) {
        candidates += 1;
        let missing: Vec<&Need> = path.needs.iter().filter(|n| !cpu.meets(n)).collect();
        if missing.is_empty() {
            steps.push(found(path.needs));
            return Some(ChosenPath {
                path: path.label.to_string(),
                reason: steps.join("; "),
            });
        }
        steps.push(format!("{} skipped: {}", path.label, lacking(&missing)));
    }
    let reason = if candidates == 0 {
        format!("{} has no SIMD path for this on {}", backend.name, cpu.arch)
    } else {
        steps.join("; ")
    };
    Some(ChosenPath {
        path: dispatch.fallback.to_string(),
        reason,
    })
}

/// The path `backend` takes on this machine.
pub fn path_here(backend: &Backend) -> Option<ChosenPath> {
    choose(backend, &CpuProfile::here())
}

/// Every CPU feature a backend's dispatch looks at, on any architecture.
pub fn features_consulted(backend: &Backend) -> Vec<&'static str> {
    let mut out = Vec::new();
    for path in backend.dispatch.map_or(&[][..], |d| d.paths) {
        for need in path.needs {
            if let Need::Feature(name) = need {
                if !out.contains(name) {
                    out.push(*name);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::AVX_INTEL_ONLY;
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
        let registry = Registry::default();
        choose(registry.backend(algorithm, backend).unwrap(), cpu).expect("a dispatch")
    }

    #[test]
    fn every_built_in_backend_states_its_dispatch() {
        let registry = Registry::default();
        for backend in registry.backends() {
            assert!(
                backend.dispatch.is_some(),
                "{} / {}: no dispatch",
                backend.algorithm,
                backend.name
            );
        }
    }

    #[test]
    fn every_default_backend_has_a_path_here() {
        let registry = Registry::default();
        for algorithm in registry.algorithms() {
            let (backend, _) = registry.default_backend(&algorithm.name).unwrap();
            let chosen = path_here(backend)
                .unwrap_or_else(|| panic!("{} / {}", algorithm.name, backend.name));
            assert!(!chosen.path.is_empty() && !chosen.reason.is_empty());
        }
    }

    #[test]
    fn every_dispatch_names_known_features() {
        let registry = Registry::default();
        for backend in registry.backends() {
            for path in backend.dispatch.map_or(&[][..], |d| d.paths) {
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
