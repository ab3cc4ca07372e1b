//! `hashlab bench --like PATH`: the library measures and projects
//! (hashlab-bench's `like`), this renders it.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use hashlab::Registry;
use hashlab_bench::like::{like, tables, verify, LikeError, LikeReport, LikeRequest};

use crate::cli::{BenchArgs, Format};
use crate::failure::Failure;
use crate::output::{format_for, render_document, render_json};

/// Real runs made for `--verify` with no algorithm named: the fastest this many.
const VERIFY_TOP: usize = 3;

fn workers(text: &str) -> Result<Vec<usize>, Failure> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<usize>()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n))
                .ok_or_else(|| {
                    Failure::Usage(format!(
                        "--workers: '{p}' is not a worker count (1 to 1000000)"
                    ))
                })
        })
        .collect()
}

fn failure(e: LikeError) -> Failure {
    match e {
        LikeError::Algorithm(why) => Failure::Usage(format!("-a: {why}")),
        other => Failure::Runtime(other.to_string()),
    }
}

/// The request `bench --like` asks for.
fn request(args: &BenchArgs) -> Result<LikeRequest, Failure> {
    let Some(path) = &args.like else {
        return Err(Failure::Runtime(
            "internal: bench --like without a path".into(),
        ));
    };
    let mut request = LikeRequest::new(path.clone());
    request.algorithms = args.algorithms.clone();
    request.seed = args.seed;
    if let Some(seconds) = args.max_time {
        if !(seconds > 0.0 && seconds <= 3600.0) {
            return Err(Failure::Usage(format!(
                "--max-time: {seconds} is not a number of seconds from 0 to 3600"
            )));
        }
        request.budget = Duration::from_secs_f64(seconds);
    } else if args.quick {
        request.budget = Duration::from_secs(8);
    }
    if let Some(text) = &args.workers {
        request.workers = workers(text)?;
    }
    Ok(request)
}

pub fn run(args: &BenchArgs) -> Result<ExitCode, Failure> {
    let request = request(args)?;
    let format = format_for(args.format.chosen(), args.output.as_deref());
    let registry = Registry::default();
    let mut report: LikeReport = like(&registry, &request).map_err(failure)?;
    if let Some(asked) = &args.verify {
        let names: Vec<String> = if asked.is_empty() {
            report
                .projections
                .iter()
                .take(VERIFY_TOP)
                .map(|p| p.algorithm.clone())
                .collect()
        } else {
            asked.split(',').map(|s| s.trim().to_string()).collect()
        };
        report.verified = verify(&registry, &request, &report, &names, args.verify_cold).map_err(
            |e| match e {
                LikeError::Algorithm(why) => Failure::Usage(format!("--verify: {why}")),
                other => Failure::Runtime(other.to_string()),
            },
        )?;
    }
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let render = |format: Format, colour: bool| {
        if format == Format::Json {
            render_json(&report)
        } else {
            render_document(&tables::document(&report), format, colour)
        }
    };
    if let Some(path) = &args.output {
        hashlab_integrity::write_file(path, &render(format, false)?)?;
        if !args.quiet {
            crate::stdio::write_out(&render(Format::Table, colour)?)?;
        }
    } else {
        crate::stdio::write_out(&render(format, colour)?)?;
    }
    Ok(ExitCode::SUCCESS)
}
