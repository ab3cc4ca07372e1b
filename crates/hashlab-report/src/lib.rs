//! `hashlab report`: bench results as one self-contained HTML page with inline
//! SVG charts, or as a single chart in an SVG file.
//!
//! The charts are drawn by a small module of our own rather than a plotting
//! crate: every mark carries its exact value (`data-` attributes) and a
//! `<title>`, colours come from CSS classes so light, dark and print modes
//! restyle them, and a test reads the values back (docs/design-notes.md says more).
//! Takes `hashlab_bench::report::Report` values (or files' bytes, read by
//! the caller), returns strings; opens no files and prints nothing.

mod charts;
mod comparison;
pub mod data;
mod error;
mod format;
mod html;
mod inputs;
mod judgement;
mod like;
mod options;
mod quality;
mod svg;

use hashlab_bench::comparison::{compare, Options as CompareOptions};
use hashlab_bench::report::Report;
use hashlab_bench::results::SCHEMA_VERSION;

pub use comparison::comparison_section;
pub use data::Input;
pub use error::ReportError;
pub use html::{Cell, Section, Table};
pub use inputs::{like_among, read_inputs};
pub use judgement::judgement_section;
pub use like::{like_page, parse_like};
pub use options::Options;
pub use quality::quality_section;

/// The charts `hashlab report --chart` can write alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    /// Throughput against message size, every input overlaid.
    Size,
    /// Throughput at one size, inputs side by side.
    Bars,
    /// The raw samples at one size (one input).
    Box,
    /// Thread-scaling efficiency at one size (one input).
    Scaling,
    /// Backends of each algorithm side by side at one size (one input).
    Backends,
}

impl ChartKind {
    pub fn name(self) -> &'static str {
        match self {
            ChartKind::Size => "size",
            ChartKind::Bars => "bars",
            ChartKind::Box => "box",
            ChartKind::Scaling => "scaling",
            ChartKind::Backends => "backends",
        }
    }
}

/// Reads `hashlab bench --json` output. The error is one line, without the
/// file's name (the caller knows it).
pub fn parse_results(bytes: &[u8]) -> Result<Report, String> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON: {e}"))?;
    match value.get("schema_version").map(serde_json::Value::as_u64) {
        None => {
            return Err(
                "not hashlab bench results (no schema_version; write them with `hashlab bench --json -o FILE`)"
                    .to_string(),
            )
        }
        Some(Some(v)) if v == SCHEMA_VERSION as u64 => {}
        Some(v) => {
            return Err(format!(
                "results schema version {}, but this hashlab reads version {SCHEMA_VERSION}",
                v.map_or("(not a number)".to_string(), |v| v.to_string())
            ))
        }
    }
    // Parsed again from the bytes, so that a problem is reported with its line and column.
    serde_json::from_slice::<Report>(bytes).map_err(|e| format!("not hashlab bench results: {e}"))
}

/// The whole page. `extra` sections (the comparison across inputs, the
/// security and availability judgement) are placed after the overview, before
/// each input's own section.
pub fn html_report(
    inputs: &[Input],
    options: &Options,
    extra: &[Section],
) -> Result<String, ReportError> {
    html::page(inputs, options, extra)
}

/// The whole page with the sections made beside the numbers: the comparison
/// across inputs (as `comparison::compare` makes it) when there are several,
/// the security and availability judgement, and the quality panel.
pub fn report_page(inputs: &[Input], options: &Options) -> Result<String, ReportError> {
    let mut extra: Vec<Section> = Vec::new();
    if inputs.len() > 1 {
        let refs: Vec<(String, &Report)> = inputs
            .iter()
            .map(|i| (i.label.clone(), &i.report))
            .collect();
        let comparison = compare(&refs, &CompareOptions::default());
        extra.push(comparison_section(&comparison));
    }
    extra.push(judgement_section(options.registry, inputs));
    extra.push(quality_section(inputs));
    html_report(inputs, options, &extra)
}

/// One chart as a standalone SVG file.
pub fn chart_svg(
    kind: ChartKind,
    inputs: &[Input],
    options: &Options,
) -> Result<String, ReportError> {
    let one = || match inputs {
        [input] => Ok(input),
        [] => Err(ReportError::new("no results to chart".to_string())),
        _ => Err(ReportError::new(format!(
            "the {} chart shows one input, {} were given",
            kind.name(),
            inputs.len()
        ))),
    };
    let id = format!("hashlab-{}", kind.name());
    let chart = match kind {
        ChartKind::Size => {
            if inputs.is_empty() {
                return Err(ReportError::new("no results to chart".to_string()));
            }
            charts::size::chart(&id, inputs, options.registry)?
        }
        ChartKind::Bars => {
            if inputs.is_empty() {
                return Err(ReportError::new("no results to chart".to_string()));
            }
            let size = data::common_size(inputs, options.size)?;
            charts::bars::chart(&id, inputs, size, options.registry)?
        }
        ChartKind::Box => {
            let input = one()?;
            let size = data::chosen_size(input, options.size)?;
            charts::boxes::chart(&id, input, size)?
        }
        ChartKind::Backends => {
            let input = one()?;
            let size = data::chosen_size(input, options.size)?;
            charts::backends::chart(&id, input, size)?
        }
        ChartKind::Scaling => {
            let input = one()?;
            let size = data::chosen_size(input, options.size)?;
            let order = data::by_speed(&data::Index::of(&input.report), size);
            let rows = data::scaling_at(&input.report, size, &order);
            charts::scaling::chart(&id, input, size, &rows)?
        }
    };
    Ok(chart.standalone())
}
