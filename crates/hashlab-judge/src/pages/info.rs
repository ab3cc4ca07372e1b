//! The info page: the facts about one algorithm with their sources, where it
//! ships, its backends here, speeds from a results file, and its statistical
//! quality.

use hashlab_bench::sizes::size_label;
use hashlab_table::Document;

use super::quality::{self, Quality};
use super::sections::{flat, lines, page as page_of, section, FlatRow};
use crate::info::Info;
use crate::speed::group_thousands;

/// What the page says of the caller's own commands.
pub struct Hints<'a> {
    /// Said where no results file was given: how to add speeds.
    pub no_results: &'a str,
    /// How to run the quality battery again.
    pub rerun_quality: &'a str,
}

/// The page of `page`, with `quality` after it.
pub fn document(page: &Info, quality: &Quality, hints: &Hints) -> Document {
    let mut rows = flat_rows(page);
    rows.extend(quality::flat_rows(quality));
    let mut doc = human(page, &rows, hints.no_results);
    quality::add_section(&mut doc, quality, hints.rerun_quality);
    doc
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

fn human(page: &Info, flat: &[FlatRow], no_results: &str) -> Document {
    let mut out = page_of(flat);
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
            section(
                &mut out,
                &title,
                &["size", "backend", "MB/s", "IQR", "path"],
                speed_cells(page),
            );
        }
        None => lines(&mut out, "Measured", &[no_results.to_string()]),
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
