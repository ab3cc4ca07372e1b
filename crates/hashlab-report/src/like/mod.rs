//! The page of a `hashlab bench --like` report: the shape of the user's data
//! as a size histogram, the projected time per algorithm as bars with their
//! bound, and the tables of every charted number (keyed to the marks), the
//! projections to other core counts and Dask clusters, and the real runs.

mod charts;

use hashlab_bench::like::tables::{bound_note, bytes, seconds, state, storage_line, what};
use hashlab_bench::like::{LikeReport, Source};
use hashlab_table::format::{percent, times};
use hashlab_table::{Cell, Table};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::svg::{Chart, CHART_CSS};
use crate::ReportError;
use charts::{band_name, bars_of, capitalised, count_text, key};

const PAGE_CSS: &str = include_str!("../page.css");

/// Reads `hashlab bench --like --format json` output: `Ok(None)` when the
/// JSON is not a like report (no `shape` and `projections`), so the caller
/// reads it as bench results instead. The error is one line, without the
/// file's name.
pub fn parse_like(bytes: &[u8]) -> Result<Option<LikeReport>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON: {e}"))?;
    if value.get("shape").is_none() || value.get("projections").is_none() {
        return Ok(None);
    }
    // Parsed again from the bytes, so that a problem is reported with its line and column.
    serde_json::from_slice::<LikeReport>(bytes)
        .map(Some)
        .map_err(|e| format!("not a hashlab bench --like report: {e}"))
}

fn figure(chart: &Chart) -> Markup {
    html! {
        figure {
            (chart.inline())
            figcaption { (chart.desc) }
        }
    }
}

fn chart_or_note(chart: Result<Chart, ReportError>) -> Markup {
    match chart {
        Ok(chart) => figure(&chart),
        Err(why) => html! { p.note { (why.to_string()) } },
    }
}

fn shape_table(report: &LikeReport) -> Table {
    let shape = &report.shape;
    let sampled = !shape.exact;
    let mut columns = vec!["size band", "count", "bytes", "share of bytes", "replica"];
    if sampled {
        columns.extend(["count ± (95 %)", "bytes ± (95 %)"]);
    }
    let mut table = Table::new(format!("{} per size band", what(shape.source)), &columns);
    for (i, band) in shape.bands.iter().enumerate() {
        let mut row = vec![
            Cell::text(band_name(band.low, band.high)),
            Cell::number(count_text(band.count), band.count)
                .keyed(key("count", &band.low.to_string())),
            Cell::number(bytes(band.bytes), band.bytes).keyed(key("bytes", &band.low.to_string())),
            Cell::percent(band.bytes / shape.bytes.max(1.0)),
            match report.replica.get(i) {
                Some(r) => Cell::text(format!("{} × {}", r.files, bytes(r.size as f64))),
                None => Cell::missing("-"),
            },
        ];
        if sampled {
            row.push(Cell::number(count_text(band.count_error), band.count_error));
            row.push(Cell::number(bytes(band.bytes_error), band.bytes_error));
        }
        table.rows.push(row);
    }
    table
}

fn projection_table(report: &LikeReport) -> Table {
    let all = format!("{} threads", report.cores);
    let state = state(report.shape.source);
    let cached_one = format!("{state}, 1 thread");
    let cached_all = format!("{state}, {all}");
    let uncached_all = format!("uncached, {all}");
    let bound_title = format!("bound ({state})");
    // A git repository is hashed from memory: no storage, no uncached columns.
    let uncached = report.projections.iter().any(|p| p.uncached_all.is_some());
    let mut columns = vec![
        "algorithm",
        "backend",
        &cached_one,
        &cached_all,
        &bound_title,
    ];
    if uncached {
        columns.extend([uncached_all.as_str(), "bound (uncached)"]);
    }
    // Git objects are hashed from memory: nothing is read, per file or at all.
    let reading = report.shape.source != Source::Git;
    let reading_title = if report.shape.source == Source::Objects {
        "fetching alone"
    } else {
        "reading alone"
    };
    if reading {
        columns.push(reading_title);
    }
    let mut table = Table::new("Projected time for all of it, fastest first", &columns);
    for p in &report.projections {
        let mut row = vec![Cell::text(&p.algorithm), Cell::text(&p.backend)];
        let bars = bars_of(p, report.cores, report.shape.source);
        let cell = |metric: &str| {
            bars.iter().find(|b| b.0 == metric).map_or_else(
                || Cell::missing("-"),
                |b| Cell::number(seconds(b.2), b.2).keyed(key(metric, &p.algorithm)),
            )
        };
        row.push(cell("cached-one"));
        row.push(cell("cached-all"));
        row.push(Cell::text(p.bound_cached.words()));
        if uncached {
            row.push(cell("uncached-all"));
            row.push(match p.bound_uncached {
                Some(b) => Cell::text(b.words()),
                None => Cell::missing("-"),
            });
        }
        if reading {
            row.push(Cell::number(seconds(p.overhead_all), p.overhead_all));
        }
        table.rows.push(row);
    }
    table
}

fn scaling_table(report: &LikeReport) -> Table {
    let Some(first) = report.projections.first() else {
        return Table::new("Projected on other core counts and on Dask", &["algorithm"]);
    };
    let mut columns: Vec<String> = vec!["algorithm".into()];
    columns.extend(first.cores.iter().map(|c| match c.cores {
        1 => "1 core".to_string(),
        n => format!("{n} cores"),
    }));
    columns.extend(
        first
            .dask
            .iter()
            .map(|d| format!("Dask, {} workers", d.cores)),
    );
    let refs: Vec<&str> = columns.iter().map(String::as_str).collect();
    let title = if report.shape.source == Source::Objects {
        "Projected time on other core counts and on Dask clusters (objects from the store)"
    } else {
        "Projected time on other core counts and on Dask clusters (files cached)"
    };
    let mut table = Table::new(title, &refs);
    for p in &report.projections {
        let mut row = vec![Cell::text(&p.algorithm)];
        row.extend(
            p.cores
                .iter()
                .chain(&p.dask)
                .map(|c| Cell::number(seconds(c.seconds), c.seconds)),
        );
        table.rows.push(row);
    }
    table
}

fn verified_table(report: &LikeReport) -> Table {
    let mut table = Table::new(
        "Projected against a real run over all of it",
        &[
            "algorithm",
            "files",
            "bytes",
            "threads",
            "measured (cached)",
            "projected (cached)",
            "measured / projected",
            "first run",
            "cached before it",
            "projected (uncached)",
        ],
    );
    for v in &report.verified {
        let ratio = v.measured / v.projected_cached.max(1e-12);
        table.rows.push(vec![
            Cell::text(&v.algorithm),
            Cell::count(v.files as usize),
            Cell::number(bytes(v.bytes as f64), v.bytes as f64),
            Cell::count(v.jobs),
            Cell::number(seconds(v.measured), v.measured),
            Cell::number(seconds(v.projected_cached), v.projected_cached),
            Cell::number(times(ratio), ratio),
            Cell::number(seconds(v.measured_first), v.measured_first),
            Cell::percent(v.resident_before),
            match v.projected_uncached {
                Some(s) => Cell::number(seconds(s), s),
                None => Cell::missing("-"),
            },
        ]);
    }
    table
}

fn storage_lines(report: &LikeReport) -> Vec<String> {
    match storage_line(report) {
        Some(line) => vec![format!("{line}.")],
        None => vec!["The storage's read speed was not measured (a git repository is hashed from memory; or no file of the path could be read here): no uncached projection.".into()],
    }
}

/// The whole page for one like report.
pub fn like_page(report: &LikeReport) -> String {
    let shape = &report.shape;
    let title = format!("hashlab bench --like: {}", shape.path);
    let estimate = if shape.exact {
        "every size read".to_string()
    } else {
        format!(
            "sampled: total bytes ±{} and files ±{} (95 %)",
            bytes(shape.bytes_error),
            count_text(shape.files_error)
        )
    };
    let histogram = charts::histogram("like-shape", report);
    let bars = charts::projected("like-projected", report);
    let mut notes = report.notes.clone();
    notes.push(format!(
        "Dask: one single-threaded worker per core at {} of `sum -j1`'s speed; the storage is assumed to keep up.",
        percent(report.dask_worker_efficiency)
    ));
    notes.push(format!("{}.", capitalised(bound_note(shape.source))));
    let table = hashlab_table::html::table;
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                meta name="generator" content=(format!("hashlab {}", hashlab::VERSION));
                title { (title) }
                style { (PreEscaped(PAGE_CSS)) (PreEscaped(CHART_CSS)) }
            }
            body {
                main {
                    header {
                        h1 { (title) }
                        p.lead {
                            "Every candidate hash measured on a replica of this data's shape by " code { "hashlab bench --like" }
                            ", and the time each would take for all of it here. "
                            (count_text(shape.files)) " " (what(shape.source)) ", " (bytes(shape.bytes)) " in all (" (estimate) "), "
                            (report.cores) " threads here; measured in " (seconds(report.seconds)) "."
                        }
                        nav.toc aria-label="Contents" {
                            ul {
                                li { a href="#shape" { "Shape" } }
                                li { a href="#projected" { "Projected time" } }
                                li { a href="#scaling" { "Other core counts and Dask" } }
                                @if !report.verified.is_empty() { li { a href="#verified" { "Against a real run" } } }
                                li { a href="#notes" { "Storage and notes" } }
                            }
                        }
                    }
                    section id="shape" {
                        h2 { "Shape" }
                        (chart_or_note(histogram))
                        (table(&shape_table(report)))
                    }
                    section id="projected" {
                        h2 { "Projected time" }
                        (chart_or_note(bars))
                        (table(&projection_table(report)))
                    }
                    section id="scaling" {
                        h2 { "Other core counts and Dask" }
                        (table(&scaling_table(report)))
                    }
                    @if !report.verified.is_empty() {
                        section id="verified" {
                            h2 { "Against a real run" }
                            (table(&verified_table(report)))
                        }
                    }
                    section id="notes" {
                        h2 { "Storage and notes" }
                        @for line in storage_lines(report) { p { (line) } }
                        ul { @for n in &notes { li { (n) } } }
                    }
                    footer {
                        "Made by hashlab " (hashlab::VERSION) " (" code { "hashlab report" } "). One self-contained file: no script, nothing loaded from the network."
                    }
                }
            }
        }
    };
    page.into_string()
}
