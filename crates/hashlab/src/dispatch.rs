//! Which SIMD path each backend takes on a given CPU, and why.
//!
//! Backends pick their code themselves, mostly at run time, and none of them
//! says which path it took. So this module restates each backend's own rule as
//! data — candidate paths in the order the backend tries them, each with what
//! it needs — read from the sources of the versions in `Cargo.lock` (and, for
//! OpenSSL, the x86_64/ARMv8 perlasm dispatch of the 3.x releases). Each
//! backend entry carries its [`Dispatch`] (the backend modules define them
//! beside their entries); given a [`CpuProfile`], [`choose`] names the path
//! and the reason. A test holds every built-in backend entry to having one.

use serde::{Deserialize, Serialize};

// The choice itself takes a `Backend`, which holds a `Dispatch`: it lives
// in a child module, so that this one needs nothing of the backend's.
mod path;
pub use path::{choose, features_consulted, path_here};

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

/// How a backend chooses its code for an algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dispatch {
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

#[allow(dead_code)] // unused with every backend feature off
pub(crate) const fn x86(label: &'static str, needs: &'static [Need]) -> CodePath {
    CodePath {
        arch: "x86_64",
        label,
        needs,
    }
}

#[allow(dead_code)] // unused with every backend feature off
pub(crate) const fn arm(label: &'static str, needs: &'static [Need]) -> CodePath {
    CodePath {
        arch: "aarch64",
        label,
        needs,
    }
}

#[allow(dead_code)] // unused with every backend feature off
pub(crate) const fn dispatch(paths: &'static [CodePath], fallback: &'static str) -> Dispatch {
    Dispatch { paths, fallback }
}

/// Code with no SIMD path: what runs is the fallback, whatever the CPU.
#[allow(dead_code)] // unused with every backend feature off
pub(crate) const fn scalar(fallback: &'static str) -> Dispatch {
    Dispatch {
        paths: &[],
        fallback,
    }
}

/// OpenSSL, ring and AWS-LC take their AVX SHA code only on Intel CPUs.
#[cfg(any(feature = "openssl", feature = "ring", feature = "aws-lc", test))]
pub(crate) const AVX_INTEL_ONLY: &str = "AVX (Intel CPUs only)";
