//! `hashlab cpu`: this machine as benchmarks see it, and the SIMD path each
//! algorithm's default backend takes here.

use std::process::ExitCode;

use hashlab::{dispatch, Registry};
use hashlab_bench::clock::{self, ClockSource};
use hashlab_bench::environment::{self, Environment};
use hashlab_bench::limits::clock_budget;
use hashlab_table::Document;
use serde::Serialize;

use crate::cli::{CpuArgs, Format};
use crate::commands::sections::FlatRow;
use crate::failure::Failure;
use crate::output::{render_document, render_json, table_of, Tabular};

#[derive(Serialize)]
struct PropertyRow {
    property: &'static str,
    value: String,
}

impl Tabular for PropertyRow {
    fn headers() -> &'static [&'static str] {
        &["property", "value"]
    }
    fn cells(&self) -> Vec<String> {
        vec![self.property.to_string(), self.value.clone()]
    }
}

#[derive(Serialize)]
struct FeatureRow {
    name: String,
    label: String,
    present: bool,
    used_for: String,
}

impl Tabular for FeatureRow {
    fn headers() -> &'static [&'static str] {
        &["feature", "name", "present", "used for"]
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.label.clone(),
            self.name.clone(),
            yes_no(self.present),
            self.used_for.clone(),
        ]
    }
}

#[derive(Serialize)]
struct AlgorithmRow {
    algorithm: String,
    /// Null when no backend of the algorithm can run here.
    backend: Option<String>,
    /// Why that backend is the default (or why there is none).
    backend_reason: String,
    /// Null when no rule describes the backend (one registered by a library user).
    path: Option<String>,
    path_reason: String,
}

impl Tabular for AlgorithmRow {
    fn headers() -> &'static [&'static str] {
        &["algorithm", "default backend", "path here", "why this path"]
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.algorithm.clone(),
            self.backend.clone().unwrap_or_else(|| "none".into()),
            self.path.clone().unwrap_or_else(|| "-".into()),
            self.path_reason.clone(),
        ]
    }
}

#[derive(Serialize)]
struct CpuReport {
    environment: Environment,
    features: Vec<FeatureRow>,
    algorithms: Vec<AlgorithmRow>,
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

fn properties(env: &Environment) -> Vec<PropertyRow> {
    let row = |property, value: String| PropertyRow { property, value };
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

fn flat(report: &CpuReport) -> Vec<FlatRow> {
    let properties = properties(&report.environment)
        .into_iter()
        .map(|p| FlatRow {
            section: "machine",
            name: p.property.to_string(),
            value: p.value,
            detail: String::new(),
        });
    let features = report.features.iter().map(|f| FlatRow {
        section: "feature",
        name: f.name.clone(),
        value: yes_no(f.present),
        detail: f.label.clone(),
    });
    let algorithms = report.algorithms.iter().map(|a| FlatRow {
        section: "algorithm",
        name: a.algorithm.clone(),
        value: format!(
            "{} / {}",
            a.backend.as_deref().unwrap_or("none"),
            a.path.as_deref().unwrap_or("-")
        ),
        detail: a.path_reason.clone(),
    });
    properties.chain(features).chain(algorithms).collect()
}

/// One titled table per section, and the long form CSV prints.
fn document(report: &CpuReport) -> Document {
    let mut doc = Document::default();
    doc.push_table(table_of("Machine", &properties(&report.environment)));
    doc.push_table(table_of(
        "CPU features that matter for hashing",
        &report.features,
    ));
    doc.push_table(table_of(
        "Default backend and SIMD path per algorithm",
        &report.algorithms,
    ));
    doc.flat = Some(table_of("", &flat(report)));
    doc
}

pub fn run(args: &CpuArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let budget =
        clock_budget(args.clock_ms).map_err(|e| Failure::Usage(format!("--clock-ms: {e}")))?;
    let clock = clock::calibrate(budget);
    let command_line = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let report = CpuReport {
        environment: environment::capture(command_line, Vec::new(), clock),
        features: features(),
        algorithms: algorithms(&registry),
    };
    let out = match args.format.chosen().unwrap_or(Format::Table) {
        Format::Json => render_json(&report)?,
        format => render_document(&document(&report), format, false)?,
    };
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
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
}
