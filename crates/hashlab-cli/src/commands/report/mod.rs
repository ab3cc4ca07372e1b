//! `hashlab report`: read results (or run the bench), write the page or one
//! chart. The page and charts are made in hashlab-report.

use std::path::Path;
use std::process::ExitCode;

mod request;

use hashlab::Registry;
use hashlab_report::{chart_svg, read_inputs, report_page, Input, Options, ReportError};

pub(crate) use request::bench_request;
use request::{read, request};

use crate::cli::ReportArgs;
use crate::failure::Failure;
use crate::shared::bench_run::measure_with_progress;

pub fn run(args: &ReportArgs) -> Result<ExitCode, Failure> {
    let asked = request(args)?;
    if let Some(like) = &asked.like {
        write_rendered(&asked.output, &hashlab_report::like_page(like), args.quiet)?;
        return Ok(ExitCode::SUCCESS);
    }
    let registry = Registry::default();
    let mut partial = false;
    let inputs = if args.inputs.is_empty() {
        let (request, plan) = bench_request(args, &registry)?;
        let report = measure_with_progress(&registry, &request, &plan, args.quiet)?;
        partial = report.run.partial;
        vec![Input {
            label: "this machine".into(),
            report,
        }]
    } else {
        read_inputs(&args.inputs, read).map_err(Failure::Runtime)?
    };
    let options = Options {
        registry: &registry,
        size: asked.size,
    };
    let rendered = match asked.chart {
        Some(kind) => chart_svg(kind, &inputs, &options),
        None => report_page(&inputs, &options),
    }
    .map_err(|e| match e {
        ReportError::SizeNotMeasured { .. } => Failure::Runtime(format!("--size {e}")),
        ReportError::Message(_) => Failure::Runtime(e.to_string()),
    })?;

    write_rendered(&asked.output, &rendered, args.quiet)?;
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
