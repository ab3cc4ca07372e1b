//! The page's work grows with its cells, not with their square: counted
//! (cells its lookups visit, a debug build's counter), never timed.

#![cfg(debug_assertions)]

use hashlab::Registry;
use hashlab_bench::results::{CellResult, Scaling};
use hashlab_report::data::work;
use hashlab_report::{chart_svg, html_report, judgement_section, parse_results, ChartKind};
use hashlab_report::{Input, Options};

/// `copies` copies of the committed real run, each copy's backends renamed:
/// more (algorithm, backend) pairs, each at every size, as a run of many
/// backends or many merged runs holds (scripts/bench-report.py grows its
/// files the same way).
fn grown(copies: usize) -> Input {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/results/zen4-plain.json"
    ))
    .unwrap();
    let base = parse_results(text.as_bytes()).unwrap();
    let mut report = base.clone();
    report.cells.clear();
    report.scaling.clear();
    for k in 0..copies {
        let rename = |b: &str| {
            if k == 0 {
                b.to_string()
            } else {
                format!("{b}~{k}")
            }
        };
        report.cells.extend(base.cells.iter().map(|c| CellResult {
            backend: rename(&c.backend),
            ..c.clone()
        }));
        report.scaling.extend(base.scaling.iter().map(|s| Scaling {
            backend: rename(&s.backend),
            ..s.clone()
        }));
    }
    Input {
        label: format!("{copies} copies"),
        report,
    }
}

/// Cells visited, per cell of the input, by the whole page and by every chart
/// alone.
fn visits_per_cell(copies: usize) -> f64 {
    let registry = Registry::default();
    let options = Options {
        registry: &registry,
        size: None,
    };
    let inputs = vec![grown(copies)];
    let visits = work::counted(|| {
        let judgement = judgement_section(&registry, &inputs);
        html_report(&inputs, &options, &[judgement]).unwrap();
        for kind in [
            ChartKind::Size,
            ChartKind::Bars,
            ChartKind::Box,
            ChartKind::Scaling,
            ChartKind::Backends,
        ] {
            chart_svg(kind, &inputs, &options).unwrap();
        }
    });
    visits as f64 / inputs[0].report.cells.len() as f64
}

#[test]
fn a_page_visits_each_cell_a_bounded_number_of_times() {
    // Each lookup of a cell by pair and size once scanned every cell, so a
    // page of 60,000 cells took minutes. Three times the cells may not cost
    // more visits per cell than before.
    let (small, large) = (visits_per_cell(2), visits_per_cell(6));
    assert!(
        large <= small * 1.05 && large < 200.0,
        "cells visited per cell of the input: {small:.1} at 2 copies, {large:.1} at 6"
    );
}
