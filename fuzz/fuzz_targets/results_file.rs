//! Any bytes as a results file for `compare` and `report`: the reader
//! (`hashlab_report::parse_results`, which `report` uses, with the checks
//! `compare` makes too) must never panic, and results it accepts must go
//! through every step both commands take without a panic: the comparison
//! with a real run and its table, the HTML page with the comparison's
//! section, and each chart alone.
#![no_main]

use hashlab::Registry;
use hashlab_bench::comparison::{self, describe};
use hashlab_bench::report::Report;
use hashlab_report::{
    chart_svg, comparison_section, html_report, parse_results, ChartKind, Input, Options,
};
use libfuzzer_sys::fuzz_target;

const PLAIN: &str = include_str!("../../fixtures/results/zen4-plain.json");

/// The fixture cut to a few cells: the comparison resamples every pair of
/// cells, and the whole fixture (663 cells) took seconds an input.
fn small(mut report: Report) -> Report {
    report.cells.truncate(12);
    report.scaling.truncate(6);
    report
}

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static REGISTRY: Registry = Registry::default();
        static FIXTURE: Report = small(serde_json::from_str(PLAIN).expect("the committed fixture"));
    }
    // As both commands take a file: parsed, then checked usable.
    let Ok(report) = parse_results(data) else {
        return;
    };
    if hashlab_bench::usable::check_usable(&report).is_err() {
        return;
    }
    REGISTRY.with(|registry| {
        FIXTURE.with(|fixture| {
            let inputs = [("fuzz".to_string(), &report), ("plain".to_string(), fixture)];
            let c = comparison::compare(&inputs, &comparison::Options::default());
            let _ = describe::document(&c);
            let _ = serde_json::to_vec(&c);
            let mine = Input {
                label: "fuzz".into(),
                report: report.clone(),
            };
            let both = [
                mine.clone(),
                Input {
                    label: "plain".into(),
                    report: fixture.clone(),
                },
            ];
            let options = Options {
                registry,
                size: None,
            };
            let _ = html_report(&both, &options, &[comparison_section(&c)]);
            for kind in [
                ChartKind::Size,
                ChartKind::Bars,
                ChartKind::Box,
                ChartKind::Scaling,
                ChartKind::Backends,
            ] {
                let _ = chart_svg(kind, std::slice::from_ref(&mine), &options);
            }
        });
    });
});
