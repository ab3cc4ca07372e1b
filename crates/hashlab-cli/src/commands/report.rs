//! `hashlab report`: read results (or run the bench), write the page or one
//! chart. The page and charts are made in hashlab-report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_bench::comparison::{compare, Options as CompareOptions};
use hashlab_bench::limits::time_budget;
use hashlab_bench::report::{Report, Request};
use hashlab_bench::selection::Algorithms;
use hashlab_bench::sizes::parse_size;
use hashlab_report::{
    chart_svg, comparison_section, html_report, judgement_section, parse_results, ChartKind, Input,
    Options, ReportError, Section,
};

use crate::cli::{ChartChoice, ReportArgs, ReportFormat};
use crate::failure::Failure;
use crate::shared::args::request_error;
use crate::shared::bench_run::measure_with_progress;

/// The report's own run: `hashlab bench` (or `bench --quick`) from the
/// library's defaults, on one thread and on every core (the report has a
/// thread-scaling section to fill), validated as `bench` validates.
pub(crate) fn bench_request(args: &ReportArgs, registry: &Registry) -> Result<Request, Failure> {
    let mut request = if args.quick {
        Request::quick()
    } else {
        Request::standard()
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    request.selection.threads = if cores > 1 { vec![1, cores] } else { vec![1] };
    if !args.algorithms.is_empty() {
        request.selection.algorithms = Algorithms::Named(
            args.algorithms
                .iter()
                .flat_map(|a| a.split(','))
                .map(|a| a.trim().to_string())
                .filter(|a| !a.is_empty())
                .collect(),
        );
    }
    if let Some(seconds) = args.max_time {
        request.budget.max_time = time_budget(seconds).map_err(request_error)?;
    }
    request.command_line = crate::stdio::command_line();
    request.validate(registry).map_err(request_error)?;
    Ok(request)
}

/// A label per input: the file name without `.json`, or the whole path where
/// two inputs share a name.
fn labels(paths: &[PathBuf]) -> Vec<String> {
    let stem = |p: &PathBuf| {
        p.file_stem()
            .map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into())
    };
    let stems: Vec<String> = paths.iter().map(stem).collect();
    paths
        .iter()
        .zip(&stems)
        .map(|(p, s)| {
            if stems.iter().filter(|t| *t == s).count() > 1 {
                p.display().to_string()
            } else {
                s.clone()
            }
        })
        .collect()
}

fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, Failure> {
    paths
        .iter()
        .zip(labels(paths))
        .map(|(path, label)| {
            let bytes = hashlab_integrity::bounded::read_json(path)
                .map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?;
            let report = parse_results(&bytes)
                .map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?;
            hashlab_bench::usable::check_usable(&report)
                .map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?;
            Ok(Input { label, report })
        })
        .collect()
}

fn chart_kind(choice: ChartChoice) -> ChartKind {
    match choice {
        ChartChoice::Size => ChartKind::Size,
        ChartChoice::Bars => ChartKind::Bars,
        ChartChoice::Box => ChartKind::Box,
        ChartChoice::Scaling => ChartKind::Scaling,
        ChartChoice::Backends => ChartKind::Backends,
    }
}

pub fn run(args: &ReportArgs) -> Result<ExitCode, Failure> {
    let chart = match (args.chart, args.format) {
        (Some(_), Some(ReportFormat::Html)) => {
            return Err(Failure::Usage(
                "--chart writes one chart as SVG; --format html is the whole page".into(),
            ))
        }
        (None, Some(ReportFormat::Svg)) => return Err(Failure::Usage(
            "--format svg writes one chart: say which with --chart size|bars|box|scaling|backends"
                .into(),
        )),
        (chart, _) => chart.map(chart_kind),
    };
    if let Some(kind @ (ChartKind::Box | ChartKind::Scaling | ChartKind::Backends)) = chart {
        if args.inputs.len() > 1 {
            return Err(Failure::Usage(format!(
                "--chart {} shows one results file, {} were given",
                kind.name(),
                args.inputs.len()
            )));
        }
    }
    let size = args
        .size
        .as_deref()
        .map(|s| parse_size(s).map_err(|e| Failure::Usage(format!("--size: {e}"))))
        .transpose()?;
    let output = args.output.clone().unwrap_or_else(|| match chart {
        Some(kind) => PathBuf::from(format!("{}.svg", kind.name())),
        None => PathBuf::from("report.html"),
    });

    if let Some(like) = super::report_like::like_input(&args.inputs, chart.is_some())? {
        write_rendered(&output, &hashlab_report::like_page(&like), args.quiet)?;
        return Ok(ExitCode::SUCCESS);
    }

    let registry = Registry::default();
    let mut partial = false;
    let inputs = if args.inputs.is_empty() {
        let request = bench_request(args, &registry)?;
        let report = measure_with_progress(&registry, &request, args.quiet)?;
        partial = report.run.partial;
        vec![Input {
            label: "this machine".into(),
            report,
        }]
    } else {
        read_inputs(&args.inputs)?
    };

    let options = Options {
        registry: &registry,
        size,
    };
    let rendered = match chart {
        Some(kind) => chart_svg(kind, &inputs, &options),
        None => {
            // Sections made elsewhere join the page here: the comparison
            // across inputs (as `hashlab compare` makes it) and the security
            // and availability judgement.
            let mut extra: Vec<Section> = Vec::new();
            if inputs.len() > 1 {
                let refs: Vec<(String, &Report)> = inputs
                    .iter()
                    .map(|i| (i.label.clone(), &i.report))
                    .collect();
                let comparison = compare(&refs, &CompareOptions::default());
                extra.push(comparison_section(&comparison));
            }
            extra.push(judgement_section(&registry, &inputs));
            extra.push(super::report_quality::quality_section(&inputs));
            html_report(&inputs, &options, &extra)
        }
    }
    .map_err(|e| match e {
        ReportError::SizeNotMeasured { .. } => Failure::Runtime(format!("--size {e}")),
        ReportError::Message(_) => Failure::Runtime(e.to_string()),
    })?;

    write_rendered(&output, &rendered, args.quiet)?;
    // As in `bench`: the history is touched only once the page is out, so a
    // damaged or locked database cannot cost the run.
    if args.save && args.inputs.is_empty() {
        if let Some(code) =
            crate::shared::history::after_bench(&inputs[0].report, true, None, &args.db)?
        {
            return Ok(code);
        }
    }
    Ok(if partial {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// The page or chart to its file (atomically; its path printed unless
/// quiet), or to standard output for `-`.
fn write_rendered(output: &Path, rendered: &str, quiet: bool) -> Result<(), Failure> {
    if output == Path::new("-") {
        crate::stdio::write_out(rendered.as_bytes())?;
    } else {
        hashlab_integrity::write_file(output, rendered.as_bytes())?;
        if !quiet {
            let shown = std::fs::canonicalize(output).unwrap_or_else(|_| output.to_path_buf());
            crate::stdio::write_out(format!("{}\n", shown.display()).as_bytes())?;
        }
    }
    Ok(())
}
