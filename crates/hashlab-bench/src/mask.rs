//! `--mask-cpu`: measuring as if the CPU lacked some features.
//!
//! Only code that can be told honours a mask. OpenSSL reads `OPENSSL_ia32cap`
//! when libcrypto starts, so the caller must start a fresh process with the
//! variable set (this module says what to set). A backend whose code path here
//! uses none of the masked features runs unchanged and stays. Every other
//! backend picks its SIMD path itself and cannot be told, so it is left out,
//! with that reason, rather than reported under a mask it ignored.

use hashlab::dispatch::{choose, CpuProfile};
use hashlab::Registry;

use crate::results::Excluded;
use crate::selection::Pair;

/// Bits of OpenSSL's capability vector (`OPENSSL_ia32cap`, x86_64): word 0 holds
/// CPUID.1 EDX (bits 0..32) and ECX (bits 32..64); word 1 holds CPUID.7 EBX
/// (0..32) and ECX (32..64). From OpenSSL's `OPENSSL_ia32cap(3)` manual page.
const IA32CAP_BITS: &[(&str, u32, u32)] = &[
    ("sse2", 0, 26),
    ("ssse3", 0, 32 + 9),
    ("sse4.1", 0, 32 + 19),
    ("sse4.2", 0, 32 + 20),
    ("pclmulqdq", 0, 32 + 1),
    ("aes", 0, 32 + 25),
    ("avx", 0, 32 + 28),
    ("avx2", 1, 5),
    ("bmi2", 1, 8),
    ("avx512f", 1, 16),
    ("sha", 1, 29),
    ("avx512bw", 1, 30),
    ("avx512vl", 1, 31),
    ("vaes", 1, 32 + 9),
    ("vpclmulqdq", 1, 32 + 10),
];

/// The `OPENSSL_ia32cap` value that hides `mask` from OpenSSL, or an error
/// naming a feature OpenSSL has no bit for.
pub fn openssl_ia32cap(mask: &[String]) -> Result<String, String> {
    let mut words = [0u64; 2];
    for feature in mask {
        let (_, word, bit) = IA32CAP_BITS
            .iter()
            .find(|(name, _, _)| name == feature)
            .ok_or_else(|| format!("OpenSSL cannot be told to ignore '{feature}'"))?;
        words[*word as usize] |= 1u64 << bit;
    }
    let part = |w: u64| {
        if w == 0 {
            String::new()
        } else {
            format!("~{w:#x}")
        }
    };
    Ok(format!("{}:{}", part(words[0]), part(words[1])))
}

/// The `OPENSSL_ia32cap` a run of `pairs` under `mask` must be started
/// with (OpenSSL reads it once, when libcrypto starts), or `None` when the
/// mask reaches no OpenSSL backend; an error names a feature OpenSSL has no
/// bit for. `mask` is checked with [`validate`] first.
pub fn openssl_env(
    registry: &Registry,
    pairs: &[Pair],
    mask: &[String],
) -> Result<Option<String>, String> {
    if mask.is_empty() || !apply(registry, pairs, mask).needs_openssl_env {
        return Ok(None);
    }
    openssl_ia32cap(mask).map(Some)
}

/// Checks mask names against the features this architecture knows.
pub fn validate(mask: &[String]) -> Result<(), String> {
    let known = hashlab::cpu::known_features();
    for feature in mask {
        if !known.contains(&feature.as_str()) {
            return Err(format!(
                "unknown CPU feature '{feature}'; known here: {}",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// Splits pairs into those that honour `mask` and those left out (with why).
/// `needs_openssl_env` tells the caller to run the measurement in a process
/// started with `OPENSSL_ia32cap` from `openssl_ia32cap`.
pub struct MaskPlan {
    pub kept: Vec<Pair>,
    pub excluded: Vec<Excluded>,
    pub needs_openssl_env: bool,
}

pub fn apply(registry: &Registry, pairs: &[Pair], mask: &[String]) -> MaskPlan {
    let real = CpuProfile::here();
    let mut masked = real.clone();
    masked.features.retain(|f| !mask.contains(f));
    let mut plan = MaskPlan {
        kept: Vec::new(),
        excluded: Vec::new(),
        needs_openssl_env: false,
    };
    for (alg, backend) in pairs {
        let chosen = registry
            .backend(alg, backend)
            .ok()
            .and_then(|b| Some((choose(b, &real)?, choose(b, &masked)?)));
        let Some((now, without)) = chosen else {
            plan.excluded.push(Excluded {
                algorithm: alg.clone(),
                backend: backend.clone(),
                reason: "no dispatch rule: cannot tell whether it honours the mask".into(),
            });
            continue;
        };
        if now.path == without.path {
            plan.kept.push((alg.clone(), backend.clone()));
        } else if backend == "openssl" && openssl_ia32cap(mask).is_ok() {
            plan.needs_openssl_env = true;
            plan.kept.push((alg.clone(), backend.clone()));
        } else {
            plan.excluded.push(Excluded {
                algorithm: alg.clone(),
                backend: backend.clone(),
                reason: format!(
                    "picks its own SIMD path ({} here, {} without {}) and cannot be told to avoid it",
                    now.path,
                    without.path,
                    mask.join(", ")
                ),
            });
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ia32cap_values() {
        assert_eq!(openssl_ia32cap(&["sha".into()]).unwrap(), ":~0x20000000");
        assert_eq!(
            openssl_ia32cap(&["avx2".into(), "sha".into()]).unwrap(),
            ":~0x20000020"
        );
        assert_eq!(
            openssl_ia32cap(&["avx".into()]).unwrap(),
            "~0x1000000000000000:"
        );
        assert!(openssl_ia32cap(&["neon".into()]).is_err());
    }

    #[test]
    fn unknown_features_are_refused() {
        assert!(validate(&["sha".into()]).is_ok() || cfg!(not(target_arch = "x86_64")));
        assert!(validate(&["warp-drive".into()])
            .unwrap_err()
            .contains("unknown CPU feature 'warp-drive'"));
    }

    /// Expectations follow this CPU: a backend goes exactly when the path
    /// it takes here needs a masked feature (RustCrypto's sha2 only with
    /// SHA-NI; on a CPU without it, nothing of it is masked and it stays).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn portable_code_stays_and_self_dispatching_code_goes() {
        let registry = Registry::default();
        let mask: Vec<String> = vec!["sha".into(), "avx2".into()];
        let path_here = |alg: &str, backend: &str| {
            hashlab::dispatch::path_here(registry.backend(alg, backend).unwrap())
                .unwrap()
                .path
        };
        let has = hashlab::cpu::has;
        if std::env::var_os("HASHLAB_EXPECT_NO_SHA_NI").is_some() {
            // .ci/run's emulated Haswell: the run proves nothing unless it is one.
            assert!(!has("sha") && has("avx2") && !has("avx512f"));
        }
        let rustcrypto_sha_ni = path_here("sha256", "rustcrypto") == "SHA-NI";
        assert_eq!(rustcrypto_sha_ni, has("sha") && has("sse4.1"));
        let pairs: Vec<Pair> = vec![
            ("md5".into(), "rustcrypto".into()),
            ("siphash-2-4".into(), "siphasher".into()),
            ("sha256".into(), "openssl".into()),
        ];
        let plan = apply(&registry, &pairs, &mask);
        assert!(plan.kept.contains(&("md5".into(), "rustcrypto".into())));
        assert!(plan
            .kept
            .contains(&("siphash-2-4".into(), "siphasher".into())));
        // OpenSSL is told through OPENSSL_ia32cap when its path here needs
        // SHA-NI or AVX2, and runs unchanged otherwise.
        let openssl_masked = matches!(
            path_here("sha256", "openssl").as_str(),
            "SHA-NI" | "AVX2+BMI2"
        );
        assert_eq!(openssl_masked, has("sha") || (has("avx2") && has("bmi2")));
        assert_eq!(plan.needs_openssl_env, openssl_masked);
        assert!(plan.kept.contains(&("sha256".into(), "openssl".into())));
        let sha2 = apply(&registry, &[("sha256".into(), "rustcrypto".into())], &mask);
        if rustcrypto_sha_ni {
            assert!(
                sha2.kept.is_empty(),
                "RustCrypto's sha2 picks SHA-NI itself"
            );
            assert!(sha2.excluded[0].reason.contains("cannot be told"));
        } else {
            assert_eq!(sha2.kept.len(), 1, "{:?}", sha2.excluded);
        }
    }
}
