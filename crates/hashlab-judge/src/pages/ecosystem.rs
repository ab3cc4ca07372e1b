//! The ecosystem page: the runtimes probed on this machine, what each offers
//! of every algorithm of the registry, and where the probes disagree with
//! the availability table.

use hashlab::Registry;
use hashlab_table::Document;

use super::sections::{flat, lines, page, section, FlatRow};
use crate::ecosystem::{Answer, EcosystemReport, ProbeState};
use crate::Offer;

/// The page of `report`, whose probes waited up to `timeout` seconds each;
/// one row per algorithm of `registry`.
pub fn document(report: &EcosystemReport, registry: &Registry, timeout: f64) -> Document {
    human(report, registry, timeout, &flat_rows(report))
}

fn state(s: ProbeState) -> &'static str {
    match s {
        ProbeState::Found => "found",
        ProbeState::Absent => "absent",
        ProbeState::TimedOut => "timed out",
        ProbeState::Failed => "failed",
    }
}

/// "yes", "pkg" (an installed extra), "-"; in brackets the table's word where
/// the runtime could not be probed.
fn cell(answer: &Answer, standard: bool) -> String {
    match answer.here {
        Some(true) if standard => "yes".into(),
        Some(true) => "pkg".into(),
        Some(false) => "-".into(),
        None => format!(
            "({})",
            match answer.table {
                Offer::Ships => "ships",
                Offer::Partial => "partial",
                Offer::Package => "pkg",
                Offer::Absent => "-",
            }
        ),
    }
}

fn human(
    report: &EcosystemReport,
    registry: &Registry,
    timeout: f64,
    flat: &[FlatRow],
) -> Document {
    let mut out = page(flat);
    let runtimes: Vec<Vec<String>> = report
        .probes
        .iter()
        .map(|p| {
            vec![
                p.ecosystem.clone(),
                p.runtime.clone(),
                state(p.state).into(),
                p.detail.clone(),
            ]
        })
        .collect();
    section(
        &mut out,
        &format!("Runtimes on this machine (found through PATH, {timeout} s per probe)"),
        &["ecosystem", "runtime", "state", "detail"],
        runtimes,
    );
    let ecosystems: Vec<&str> = report.probes.iter().map(|p| p.ecosystem.as_str()).collect();
    let mut headers = vec!["algorithm"];
    headers.extend(&ecosystems);
    let rows: Vec<Vec<String>> = registry
        .algorithms()
        .iter()
        .map(|alg| {
            let mut row = vec![alg.name.clone()];
            for p in &report.probes {
                let answer = report
                    .answers
                    .iter()
                    .find(|a| a.ecosystem == p.ecosystem && a.algorithm == alg.name);
                let standard = p
                    .offered
                    .iter()
                    .find(|o| o.algorithm == alg.name)
                    .is_some_and(|o| o.standard);
                row.push(answer.map_or_else(String::new, |a| cell(a, standard)));
            }
            row
        })
        .collect();
    section(
        &mut out,
        "Offered here (yes: standard library or default install; pkg: an extra package that is installed; -: not offered; (..): not probed, the table's answer)",
        &headers,
        rows,
    );
    let disagreements: Vec<Vec<String>> = report
        .disagreements
        .iter()
        .map(|d| {
            vec![
                d.ecosystem.clone(),
                d.algorithm.clone(),
                d.table.clone(),
                d.probe.clone(),
            ]
        })
        .collect();
    section(
        &mut out,
        "Where this machine disagrees with the table (the probe wins here)",
        &["ecosystem", "algorithm", "table", "probe"],
        disagreements,
    );
    let inferred: Vec<String> = report
        .probes
        .iter()
        .filter(|p| p.inferred)
        .map(|p| format!("{}: {}", p.ecosystem, p.detail))
        .collect();
    lines(&mut out, "Inferred, not observed", &inferred);
    out
}

fn flat_rows(report: &EcosystemReport) -> Vec<FlatRow> {
    let mut rows: Vec<FlatRow> = report
        .probes
        .iter()
        .map(|p| {
            flat(
                "runtime",
                p.ecosystem.clone(),
                state(p.state),
                p.detail.clone(),
            )
        })
        .collect();
    rows.extend(report.answers.iter().map(|a| {
        flat(
            "offer",
            format!("{}/{}", a.ecosystem, a.algorithm),
            match a.here {
                Some(true) => "yes",
                Some(false) => "no",
                None => "not probed",
            },
            format!(
                "table: {}; from {}{}",
                a.table.as_str(),
                a.from,
                a.via
                    .as_ref()
                    .map(|v| format!("; via {v}"))
                    .unwrap_or_default()
            ),
        )
    }));
    rows.extend(report.disagreements.iter().map(|d| {
        flat(
            "disagreement",
            format!("{}/{}", d.ecosystem, d.algorithm),
            d.probe.clone(),
            format!("table: {}", d.table),
        )
    }));
    rows
}
