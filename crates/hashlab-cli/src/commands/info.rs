//! `hashlab info ALGO`: the facts about one algorithm with their sources,
//! where it ships, its backends here, speeds from a results file, and its
//! statistical quality (SMHasher3's published verdict beside hashlab's).

use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_bench::sizes::size_label;
use hashlab_judge::info::{info, Info};
use hashlab_judge::speed::{group_thousands, load_report};
use hashlab_judge::{Availability, Facts};
use serde::Serialize;

use super::info_quality::{self, Quality};
use super::sections::{self, flat, lines, section, FlatRow};
use crate::cli::{Format, InfoArgs};
use crate::failure::Failure;
use crate::output::{render_document, render_json};
use hashlab_table::Document;

/// How reasons and titles name a results file: its file name.
pub fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

pub fn run(args: &InfoArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let facts = Facts::builtin();
    let table = Availability::builtin();
    registry
        .algorithm(&args.algorithm)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let report = match &args.results {
        Some(path) => Some((
            load_report(
                path,
                &hashlab_integrity::bounded::read_json(path)
                    .map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?,
            )
            .map_err(Failure::Runtime)?,
            file_label(path),
        )),
        None => None,
    };
    let page = info(
        &args.algorithm,
        &registry,
        &facts,
        &table,
        report.as_ref().map(|(r, label)| (r, label.as_str())),
    )
    .map_err(Failure::Runtime)?;
    let quality = info_quality::quality(&page.algorithm);
    let out = match args.format.chosen().unwrap_or(Format::Table) {
        Format::Json => render_json(&WithQuality {
            page: &page,
            quality: &quality,
        })?,
        format => {
            let mut rows = flat_rows(&page);
            rows.extend(info_quality::flat_rows(&quality));
            let mut doc = human(&page, &rows);
            info_quality::add_section(&mut doc, &quality);
            render_document(&doc, format, false)?
        }
    };
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The page as JSON, with the quality verdicts beside it.
#[derive(Serialize)]
struct WithQuality<'a> {
    #[serde(flatten)]
    page: &'a Info,
    quality: &'a Quality,
}

fn speed_cells(page: &Info) -> Vec<Vec<String>> {
    page.speeds
        .iter()
        .map(|s| {
            vec![
                size_label(s.size),
                s.backend.clone(),
                group_thousands(s.mb_per_s),
                s.mb_per_s_iqr
                    .map(|(lo, hi)| format!("{}..{}", group_thousands(lo), group_thousands(hi)))
                    .unwrap_or_default(),
                s.path.clone().unwrap_or_default(),
            ]
        })
        .collect()
}

fn human(page: &Info, flat: &[FlatRow]) -> Document {
    let mut out = sections::page(flat);
    let title = format!(
        "{} ({}, {}{})",
        page.algorithm,
        page.family,
        page.class,
        if page.aliases.is_empty() {
            String::new()
        } else {
            format!("; also {}", page.aliases.join(", "))
        }
    );
    let facts: Vec<Vec<String>> = page
        .fact_lines
        .iter()
        .map(|l| vec![l.fact.clone(), l.value.clone(), l.sources.clone()])
        .collect();
    section(&mut out, &title, &["fact", "value", "sources"], facts);
    let availability: Vec<Vec<String>> = page
        .availability
        .iter()
        .map(|e| vec![e.title.clone(), e.describe()])
        .collect();
    section(
        &mut out,
        "Where it ships",
        &["ecosystem", "offers it"],
        availability,
    );
    let backends: Vec<Vec<String>> = page
        .backends
        .iter()
        .map(|b| {
            vec![
                format!("{}{}", b.name, if b.default { " (default)" } else { "" }),
                b.implementation.clone(),
                match &b.reason {
                    None => "yes".into(),
                    Some(why) => format!("no: {why}"),
                },
                b.path.clone().unwrap_or_default(),
            ]
        })
        .collect();
    section(
        &mut out,
        "Backends here",
        &["backend", "implementation", "available", "path on this CPU"],
        backends,
    );
    match &page.results {
        Some(file) => {
            let title = format!(
                "Measured in {file} ({}), one thread",
                page.results_cpu.as_deref().unwrap_or("unknown CPU")
            );
            section(&mut out, &title, &["size", "backend", "MB/s", "IQR", "path"], speed_cells(page));
        }
        None => lines(
            &mut out,
            "Measured",
            &["no results file given: hashlab info ALGO --results FILE (from hashlab bench --json) adds speeds".to_string()],
        ),
    }
    out
}

fn flat_rows(page: &Info) -> Vec<FlatRow> {
    let mut rows: Vec<FlatRow> = page
        .fact_lines
        .iter()
        .map(|l| flat("fact", l.fact.clone(), l.value.clone(), l.sources.clone()))
        .collect();
    rows.extend(page.availability.iter().map(|e| {
        flat(
            "availability",
            e.ecosystem.clone(),
            e.offer.as_str(),
            e.describe(),
        )
    }));
    rows.extend(page.backends.iter().map(|b| {
        flat(
            "backend",
            b.name.clone(),
            if b.available {
                "available"
            } else {
                "unavailable"
            },
            b.reason.clone().unwrap_or_else(|| b.implementation.clone()),
        )
    }));
    rows.extend(page.speeds.iter().map(|s| {
        flat(
            "speed",
            size_label(s.size),
            format!("{:.1}", s.mb_per_s),
            s.backend.clone(),
        )
    }));
    rows
}
