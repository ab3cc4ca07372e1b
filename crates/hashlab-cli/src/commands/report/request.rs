//! `report`'s arguments as what it will do: the page or one chart, at which
//! size, to which file; its own bench run's request; and whether an input is
//! a `bench --like` report, which is a page of its own (the shape's histogram
//! and the projected time per algorithm) made in hashlab-report.

use std::path::{Path, PathBuf};

use hashlab::Registry;
use hashlab_bench::like::LikeReport;
use hashlab_bench::limits::time_budget;
use hashlab_bench::plan::Plan;
use hashlab_bench::report::{plan_for, Request};
use hashlab_bench::selection::Algorithms;
use hashlab_bench::sizes::parse_size;
use hashlab_report::{like_among, ChartKind};

use crate::cli::{ChartChoice, ReportArgs, ReportFormat};
use crate::failure::Failure;
use crate::shared::args::request_error;

/// What `report` was asked for, checked before anything is measured or
/// drawn; a `bench --like` report among the inputs is read here, since it
/// decides the page.
pub(super) struct Asked {
    pub chart: Option<ChartKind>,
    pub size: Option<usize>,
    pub output: PathBuf,
    pub like: Option<LikeReport>,
}

pub(super) fn request(args: &ReportArgs) -> Result<Asked, Failure> {
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

    let like = like_input(&args.inputs, chart.is_some())?;
    Ok(Asked {
        chart,
        size,
        output,
        like,
    })
}

/// The report's own run: `hashlab bench` (or `bench --quick`) from the
/// library's defaults, on one thread and on every core (the report has a
/// thread-scaling section to fill), validated as `bench` validates, with
/// its plan.
pub(crate) fn bench_request(
    args: &ReportArgs,
    registry: &Registry,
) -> Result<(Request, Plan), Failure> {
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
    let plan = plan_for(registry, &request).map_err(Failure::Usage)?;
    Ok((request, plan))
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

/// The like report among `paths`, if one is: it is shown alone, so another
/// input beside it, or `--chart`, is a usage error naming the file.
fn like_input(paths: &[PathBuf], chart: bool) -> Result<Option<LikeReport>, Failure> {
    let Some((path, report)) = like_among(paths, read).map_err(Failure::Runtime)? else {
        return Ok(None);
    };
    if paths.len() > 1 {
        return Err(Failure::Usage(format!(
            "{}: a bench --like report is shown alone, and {} other inputs were given",
            path.display(),
            paths.len() - 1
        )));
    }
    if chart {
        return Err(Failure::Usage(format!(
            "{}: --chart draws bench results; a bench --like report is a whole page (leave --chart out)",
            path.display()
        )));
    }
    Ok(Some(report))
}

/// A file's bytes, read with the bounds every file a user names is read with.
pub(super) fn read(path: &Path) -> Result<Vec<u8>, String> {
    hashlab_integrity::bounded::read_json(path).map_err(|e| e.to_string())
}
