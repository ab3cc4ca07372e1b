//! This machine as benchmarks see it (`Environment`, the measured clock),
//! the CPU features that matter for hashing, and the SIMD path each
//! algorithm's default backend takes here; as serde data and as a document.

use hashlab::{dispatch, Registry};
use hashlab_table::{Document, Table};
use serde::Serialize;

use crate::clock::{self, ClockSource};
use crate::environment::{self, Environment};

/// A CPU feature and whether this machine has it.
#[derive(Debug, Serialize)]
pub struct FeatureRow {
    pub name: String,
    pub label: String,
    pub present: bool,
    pub used_for: String,
}

/// The default backend of one algorithm here, and the path it takes.
#[derive(Debug, Serialize)]
pub struct AlgorithmRow {
    pub algorithm: String,
    /// Null when no backend of the algorithm can run here.
    pub backend: Option<String>,
    /// Why that backend is the default (or why there is none).
    pub backend_reason: String,
    /// Null when no rule describes the backend (one registered by a library user).
    pub path: Option<String>,
    pub path_reason: String,
}

#[derive(Debug, Serialize)]
pub struct CpuReport {
    pub environment: Environment,
    pub features: Vec<FeatureRow>,
    pub algorithms: Vec<AlgorithmRow>,
}

/// Captures this machine, measuring its clock within `clock_budget`
/// (checked by `limits::clock_budget`); `command_line` is recorded as given.
pub fn cpu_report(
    registry: &Registry,
    clock_budget: std::time::Duration,
    command_line: Vec<String>,
) -> CpuReport {
    let clock = clock::calibrate(clock_budget);
    CpuReport {
        environment: environment::capture(command_line, Vec::new(), clock),
        features: features(),
        algorithms: algorithms(registry),
    }
}

/// One titled table per section, and the long form CSV prints.
pub fn document(report: &CpuReport) -> Document {
    let mut doc = Document::default();
    doc.push_table(Table::of_text(
        "Machine",
        &["property", "value"],
        properties(&report.environment)
            .into_iter()
            .map(|(p, v)| vec![p.to_string(), v])
            .collect(),
    ));
    doc.push_table(Table::of_text(
        "CPU features that matter for hashing",
        &["feature", "name", "present", "used for"],
        report
            .features
            .iter()
            .map(|f| {
                vec![
                    f.label.clone(),
                    f.name.clone(),
                    yes_no(f.present),
                    f.used_for.clone(),
                ]
            })
            .collect(),
    ));
    doc.push_table(Table::of_text(
        "Default backend and SIMD path per algorithm",
        &["algorithm", "default backend", "path here", "why this path"],
        report
            .algorithms
            .iter()
            .map(|a| {
                vec![
                    a.algorithm.clone(),
                    a.backend.clone().unwrap_or_else(|| "none".into()),
                    a.path.clone().unwrap_or_else(|| "-".into()),
                    a.path_reason.clone(),
                ]
            })
            .collect(),
    ));
    doc.flat = Some(Table::of_text(
        "",
        &["section", "name", "value", "detail"],
        flat(report),
    ));
    doc
}

fn yes_no(present: bool) -> String {
    if present { "yes" } else { "no" }.to_string()
}

fn bytes_cell(bytes: Option<u64>) -> String {
    match bytes {
        None => "unknown".into(),
        Some(b) if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        Some(b) if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        Some(b) => format!("{b} B"),
    }
}

fn clock_cell(env: &Environment) -> String {
    let clock = &env.clock;
    match clock.source {
        ClockSource::DependentAddChain => format!(
            "{:.2} GHz, measured: chain of dependent adds, one cycle each \
             ({} trials, 90th percentile; median {:.1} % slower)",
            clock.hz / 1e9,
            clock.trials.len(),
            clock.spread * 100.0
        ),
        ClockSource::Unavailable => format!(
            "not measured: no add-chain code for {}",
            std::env::consts::ARCH
        ),
    }
}

fn properties(env: &Environment) -> Vec<(&'static str, String)> {
    let row = |property, value: String| (property, value);
    let cores = env
        .physical_cores
        .map_or_else(|| "unknown".to_string(), |c| c.to_string());
    vec![
        row("model", env.cpu_model.clone()),
        row("vendor", env.cpu_vendor.clone()),
        row(
            "cores / threads",
            format!(
                "{cores} cores, {} threads ({} usable here)",
                env.logical_threads, env.usable_threads
            ),
        ),
        row("L1d cache", bytes_cell(env.caches.l1d)),
        row("L1i cache", bytes_cell(env.caches.l1i)),
        row("L2 cache", bytes_cell(env.caches.l2)),
        row("L3 cache", bytes_cell(env.caches.l3)),
        row("core clock", clock_cell(env)),
        row(
            "cpuinfo MHz",
            env.cpuinfo_mhz.map_or_else(
                || "not reported".to_string(),
                |mhz| format!("{mhz:.0} MHz (nominal, not measured)"),
            ),
        ),
        row(
            "frequency governor",
            env.governor
                .clone()
                .unwrap_or_else(|| "none (no cpufreq)".into()),
        ),
        row(
            "system",
            match &env.kernel {
                Some(kernel) => format!("{} {kernel}", env.os),
                None => env.os.clone(),
            },
        ),
        row("target", env.target.clone()),
        row(
            "build",
            format!(
                "hashlab {} ({}), {}",
                env.hashlab_version,
                env.git_commit.as_deref().unwrap_or("commit unknown"),
                env.rustc.as_deref().unwrap_or("rustc unknown")
            ),
        ),
    ]
}

fn features() -> Vec<FeatureRow> {
    hashlab::cpu::known_features()
        .iter()
        .map(|name| FeatureRow {
            name: name.to_string(),
            label: hashlab::cpu::label(name).unwrap_or(name).to_string(),
            present: hashlab::cpu::has(name),
            used_for: hashlab::cpu::used_for(name).unwrap_or("").to_string(),
        })
        .collect()
}

fn algorithms(registry: &Registry) -> Vec<AlgorithmRow> {
    let here = dispatch::CpuProfile::here();
    registry
        .algorithms()
        .iter()
        .map(|alg| match registry.default_backend(&alg.name) {
            Ok((backend, why)) => {
                let chosen = dispatch::choose(backend, &here);
                AlgorithmRow {
                    algorithm: alg.name.clone(),
                    backend: Some(backend.name.clone()),
                    backend_reason: why,
                    path: chosen.as_ref().map(|c| c.path.clone()),
                    path_reason: chosen.map_or_else(
                        || format!("hashlab has no dispatch rule for {}", backend.name),
                        |c| c.reason,
                    ),
                }
            }
            Err(error) => AlgorithmRow {
                algorithm: alg.name.clone(),
                backend: None,
                backend_reason: error.to_string(),
                path: None,
                path_reason: error.to_string(),
            },
        })
        .collect()
}

fn flat(report: &CpuReport) -> Vec<Vec<String>> {
    let properties = properties(&report.environment)
        .into_iter()
        .map(|(property, value)| vec!["machine".into(), property.into(), value, String::new()]);
    let features = report.features.iter().map(|f| {
        vec![
            "feature".into(),
            f.name.clone(),
            yes_no(f.present),
            f.label.clone(),
        ]
    });
    let algorithms = report.algorithms.iter().map(|a| {
        vec![
            "algorithm".into(),
            a.algorithm.clone(),
            format!(
                "{} / {}",
                a.backend.as_deref().unwrap_or("none"),
                a.path.as_deref().unwrap_or("-")
            ),
            a.path_reason.clone(),
        ]
    });
    properties.chain(features).chain(algorithms).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_use_the_largest_exact_unit() {
        assert_eq!(bytes_cell(Some(32 << 10)), "32 KiB");
        assert_eq!(bytes_cell(Some(32 << 20)), "32 MiB");
        assert_eq!(bytes_cell(Some(1536 << 10)), "1536 KiB");
        assert_eq!(bytes_cell(Some(100)), "100 B");
        assert_eq!(bytes_cell(None), "unknown");
    }

    /// Every feature and algorithm appears once in its table and once in the
    /// flat table CSV gets, after the machine's properties.
    #[test]
    fn the_document_has_three_tables_and_a_flat_row_per_fact() {
        let registry = Registry::default();
        let report = CpuReport {
            environment: environment::capture(
                Vec::new(),
                Vec::new(),
                clock::calibrate(std::time::Duration::ZERO),
            ),
            features: features(),
            algorithms: algorithms(&registry),
        };
        let doc = document(&report);
        let flat = doc.flat.as_ref().expect("a flat table");
        let properties = properties(&report.environment).len();
        assert_eq!(
            flat.rows.len(),
            properties + report.features.len() + report.algorithms.len()
        );
        assert_eq!(report.algorithms.len(), registry.algorithms().len());
        assert!(
            report.algorithms.iter().any(|a| a.backend.is_some()),
            "no algorithm has a backend here"
        );
    }
}
