//! `info`: everything known about one algorithm in one place: facts with
//! their sources, availability, the backends on this machine, and measured
//! speed from a results file.

use hashlab::{dispatch, Registry};
use hashlab_bench::plan::Mode;
use hashlab_bench::report::Report;
use serde::Serialize;

use crate::availability::{Availability, Entry};
use crate::facts::{AlgorithmFacts, Facts, Keyed, LengthExtension};
use crate::listing::availability;
use crate::speed::measured_cpu;

/// One fact as a line: what, its value, where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FactLine {
    pub fact: String,
    pub value: String,
    pub sources: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackendHere {
    pub name: String,
    pub implementation: String,
    pub available: bool,
    /// Why not, when unavailable.
    pub reason: Option<String>,
    pub default: bool,
    /// The SIMD path it takes on this CPU.
    pub path: Option<String>,
}

/// A single-thread speed from the results file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpeedLine {
    pub size: usize,
    pub backend: String,
    pub mb_per_s: f64,
    pub mb_per_s_iqr: Option<(f64, f64)>,
    /// The SIMD path a hashlab backend takes; for another runtime's row,
    /// that runtime's version line.
    pub path: Option<String>,
    /// The runtime that measured the row (`bench --runtime`); `None` for
    /// hashlab's own backends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Info {
    pub algorithm: String,
    pub aliases: Vec<String>,
    pub family: String,
    pub class: String,
    /// The record as reviewed, for programs.
    pub facts: AlgorithmFacts,
    /// The same, one line per fact with sources written out, for people.
    pub fact_lines: Vec<FactLine>,
    pub availability: Vec<Entry>,
    pub backends: Vec<BackendHere>,
    /// The results file the speeds come from, if one was given.
    pub results: Option<String>,
    /// Its CPU (and mask).
    pub results_cpu: Option<String>,
    /// Speeds at the smallest and largest size measured, every backend.
    pub speeds: Vec<SpeedLine>,
}

/// Assembles the page for `name` (any alias); `report` is a results file and its label.
pub fn info(
    name: &str,
    registry: &Registry,
    facts: &Facts,
    table: &Availability,
    report: Option<(&Report, &str)>,
) -> Result<Info, String> {
    let alg = registry.algorithm(name).map_err(|e| e.to_string())?;
    let f = facts
        .get(&alg.name)
        .ok_or_else(|| format!("{}: no facts recorded", alg.name))?;
    let default = registry
        .default_backend(&alg.name)
        .ok()
        .map(|(b, _)| b.name.clone());
    let backends = registry
        .backends_of(&alg.name)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|b| {
            let (available, reason) = availability(b);
            BackendHere {
                name: b.name.clone(),
                implementation: b.implementation.clone(),
                available,
                reason,
                default: default.as_deref() == Some(b.name.as_str()),
                path: dispatch::path_here(b).map(|p| p.path),
            }
        })
        .collect();
    let (speeds, results_cpu) = match report {
        Some((r, _)) => (speeds(registry, r, &alg.name), Some(describe_cpu(r))),
        None => (Vec::new(), None),
    };
    Ok(Info {
        algorithm: alg.name.clone(),
        aliases: alg.aliases.clone(),
        family: alg.family.clone(),
        class: alg.class.as_str().to_string(),
        facts: f.clone(),
        fact_lines: fact_lines(f, facts),
        availability: table.entries(&alg.name, registry),
        backends,
        results: report.map(|(_, label)| label.to_string()),
        results_cpu,
        speeds,
    })
}

fn describe_cpu(report: &Report) -> String {
    let env = &report.environment;
    if env.cpu_mask.is_empty() {
        env.cpu_model.clone()
    } else {
        format!("{}, with {} masked", env.cpu_model, env.cpu_mask.join(","))
    }
}

fn speeds(registry: &Registry, report: &Report, algorithm: &str) -> Vec<SpeedLine> {
    let cells: Vec<_> = report
        .cells
        .iter()
        .filter(|c| c.algorithm == algorithm && c.mode == Mode::Streams { threads: 1 })
        .filter(|c| c.throughput.is_some())
        .collect();
    let (Some(small), Some(large)) = (
        cells.iter().map(|c| c.size).min(),
        cells.iter().map(|c| c.size).max(),
    ) else {
        return Vec::new();
    };
    let cpu = measured_cpu(&report.environment);
    let mut sizes = vec![small];
    if large != small {
        sizes.push(large);
    }
    let mut lines = Vec::new();
    for size in sizes {
        for c in cells.iter().filter(|c| c.size == size) {
            let runtime = report.runtime_of(&c.backend);
            lines.push(SpeedLine {
                size,
                backend: c.backend.clone(),
                mb_per_s: c.throughput.as_ref().map_or(0.0, |t| t.mb_per_s),
                mb_per_s_iqr: c.mb_per_s_iqr,
                path: match runtime {
                    Some(r) => r.version.clone(),
                    None => registry
                        .backend(algorithm, &c.backend)
                        .ok()
                        .and_then(|b| dispatch::choose(b, &cpu))
                        .map(|p| p.path),
                },
                runtime: runtime.map(|r| r.runtime.clone()),
            });
        }
        // hashlab's rows first as measured, then each runtime's, fastest first.
        let at = lines.len() - cells.iter().filter(|c| c.size == size).count();
        lines[at..].sort_by(|a, b| match (&a.runtime, &b.runtime) {
            (Some(x), Some(y)) => x.cmp(y).then(b.mb_per_s.total_cmp(&a.mb_per_s)),
            (x, y) => x.is_some().cmp(&y.is_some()),
        });
    }
    lines
}

fn bits(value: Option<u32>) -> String {
    value.map_or_else(|| "none claimed".to_string(), |b| format!("{b} bits"))
}

/// The record as lines with their sources spelled out.
pub fn fact_lines(f: &AlgorithmFacts, facts: &Facts) -> Vec<FactLine> {
    let line = |fact: &str, value: String, cite: &[String]| FactLine {
        fact: fact.to_string(),
        value,
        sources: facts.cite(cite),
    };
    let mut lines = vec![
        line("output", format!("{} bits", f.output_bits), &[]),
        line(
            "collision security",
            bits(f.collision_bits),
            &f.security_cite,
        ),
        line("preimage security", bits(f.preimage_bits), &f.security_cite),
    ];
    if let Some(a) = &f.attack {
        lines.push(line(
            "best attack",
            format!("collisions in about 2^{:.1}: {}", a.collision_bits, a.text),
            &a.cite,
        ));
    }
    let le = match f.length_extension {
        LengthExtension::Vulnerable => "vulnerable",
        LengthExtension::Resistant => "resistant",
        LengthExtension::NotApplicable => "not applicable",
    };
    let le = match &f.length_extension_note {
        Some(note) => format!("{le}: {note}"),
        None => le.to_string(),
    };
    lines.push(line("length extension", le, &f.length_extension_cite));
    let keyed = match f.keyed {
        Keyed::No => "no".to_string(),
        Keyed::Optional => "optional keyed mode".to_string(),
        Keyed::Required => "always keyed".to_string(),
    };
    let keyed = if f.prf && f.keyed != Keyed::No {
        format!("{keyed}; a PRF")
    } else {
        keyed
    };
    lines.push(line("keyed / PRF", keyed, &[]));
    let mac = match (&f.mac_bits, &f.mac_note) {
        (Some(b), Some(note)) => format!("{b} bits: {note}"),
        (Some(b), None) => format!("{b} bits"),
        (None, _) => "none claimed".to_string(),
    };
    lines.push(line("MAC security", mac, &f.mac_cite));
    lines.push(line("XOF", if f.xof { "yes" } else { "no" }.into(), &[]));
    lines.push(line(
        "parallel tree mode",
        f.tree.clone().unwrap_or_else(|| "none".into()),
        &[],
    ));
    lines.push(line(
        "construction",
        f.construction.clone(),
        &f.construction_cite,
    ));
    lines.push(line(
        "defined by",
        f.standards
            .iter()
            .map(|s| facts.short(s))
            .collect::<Vec<_>>()
            .join("; "),
        &[],
    ));
    lines.push(line(
        "status",
        format!("{}: {}", f.status.as_str(), f.status_text),
        &f.status_cite,
    ));
    if let Some(m) = &f.margin {
        lines.push(line("security margin", m.text.clone(), &m.cite));
    }
    if let Some(s) = f.smhasher3 {
        lines.push(line(
            "SMHasher3",
            if s.failed == 0 {
                format!("passes all {} tests", s.tests)
            } else {
                format!("fails {} of {} tests", s.failed, s.tests)
            },
            &[crate::facts::SMHASHER3_SOURCE.to_string()],
        ));
    }
    lines
}
