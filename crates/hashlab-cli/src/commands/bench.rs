//! `hashlab bench`: parse, run the engine, export. The measuring is in hashlab-bench.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use hashlab::Registry;
use hashlab_bench::limits::{time_budget, MAX_THREADS};
use hashlab_bench::mask;
use hashlab_bench::report::{pairs_for, Report, Request};
use hashlab_bench::runtimes::{Runtime, RuntimeOptions};
use hashlab_bench::selection::{Algorithms, Backends, FileTarget, Selection};
use hashlab_bench::sizes::{parse_amount, parse_sizes};
use hashlab_bench::tables;
use hashlab_bench::words::{WordList, WordListError};

use crate::cli::{BenchArgs, Format, Unit};
use crate::failure::{io_message, Failure};
use crate::output::{format_for, render_document, render_json};
use crate::shared::args::request_error;
use crate::shared::bench_run::measure_with_progress;

fn thread_counts(text: &str) -> Result<Vec<usize>, Failure> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1];
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let n = if part.eq_ignore_ascii_case("all") {
            cores
        } else {
            part.parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_THREADS).contains(n))
                .ok_or_else(|| {
                    Failure::Usage(format!(
                        "--threads: '{part}' is not a thread count (1 to {MAX_THREADS}, or 'all')"
                    ))
                })?
        };
        if !counts.contains(&n) {
            counts.push(n);
        }
    }
    Ok(counts)
}

/// The bench request the options ask for, validated by the library: no
/// option can make the run overflow, index out of range or abort on an
/// allocation.
pub(crate) fn request(args: &BenchArgs, registry: &Registry) -> Result<Request, Failure> {
    let usage = |e: String| Failure::Usage(e);
    let algorithms = if !args.algorithms.is_empty() {
        Algorithms::Named(args.algorithms.clone())
    } else if args.all {
        Algorithms::All
    } else if args.crypto {
        Algorithms::Crypto
    } else if args.fast {
        Algorithms::Fast
    } else {
        Algorithms::Default
    };
    let backends = if args.all_backends {
        Backends::All
    } else if !args.backends.is_empty() {
        Backends::Named(args.backends.clone())
    } else {
        Backends::Default
    };
    let defaults = if args.quick {
        Request::quick()
    } else {
        Request::standard()
    };
    let sizes = match &args.sizes {
        Some(text) => parse_sizes(text).map_err(|e| usage(format!("--sizes: {e}")))?,
        None => defaults.selection.sizes.clone(),
    };
    let baseline = registry
        .algorithm(&args.baseline)
        .map_err(|e| usage(format!("--baseline: {e}")))?
        .name
        .clone();
    let project = args
        .project
        .as_deref()
        .map(|p| parse_amount(p).map_err(|e| usage(format!("--project: {e}"))))
        .transpose()?;
    let mut budget = defaults.budget.clone();
    if let Some(seconds) = args.max_time {
        budget.max_time = time_budget(seconds).map_err(request_error)?;
    }
    let file = match &args.file {
        None => None,
        Some(path) => {
            let meta = std::fs::metadata(path)
                .map_err(|e| usage(format!("--file: {}: {}", path.display(), io_message(&e))))?;
            if !meta.is_file() {
                return Err(usage(format!(
                    "--file: {}: not a regular file",
                    path.display()
                )));
            }
            std::fs::File::open(path)
                .map_err(|e| usage(format!("--file: {}: {}", path.display(), io_message(&e))))?;
            if meta.len() == 0 {
                return Err(usage(format!(
                    "--file: {}: the file is empty",
                    path.display()
                )));
            }
            Some(FileTarget {
                path: path.clone(),
                size: usize::try_from(meta.len()).map_err(|_| {
                    usage(format!("--file: {}: too large to address", path.display()))
                })?,
                cold: args.cold,
            })
        }
    };
    let table = args
        .table
        .as_deref()
        .map(|path| {
            WordList::read(path).map_err(|e| match e {
                WordListError::Read { path, error } => usage(format!(
                    "--table: {}: {}",
                    path.display(),
                    io_message(&error)
                )),
                other => usage(format!("--table: {other}")),
            })
        })
        .transpose()?;
    let request = Request {
        selection: Selection {
            algorithms,
            backends,
            sizes,
            threads: thread_counts(&args.threads)?,
            latency: args.latency,
            keys: args.keys,
            also: vec![baseline],
            file,
            table,
        },
        budget,
        seed: args.seed,
        misalign: args.misalign,
        project,
        mask: args
            .mask_cpu
            .iter()
            .map(|f| f.trim().to_ascii_lowercase())
            .collect(),
        clock_budget: defaults.clock_budget,
        command_line: crate::stdio::command_line(),
        pin: args.pin,
        runtimes: args
            .runtime
            .as_deref()
            .map(|list| Runtime::parse_list(list).map_err(|e| usage(format!("--runtime: {e}"))))
            .transpose()?
            .unwrap_or_default(),
        runtime_options: RuntimeOptions {
            answer_deadline: runtime_timeout(args.runtime_timeout)?,
            ..defaults.runtime_options.clone()
        },
    };
    request.validate(registry).map_err(request_error)?;
    Ok(request)
}

/// `--runtime-timeout`: a positive number of seconds, at most an hour.
fn runtime_timeout(seconds: f64) -> Result<Duration, Failure> {
    if seconds.is_finite() && seconds > 0.0 && seconds <= 3600.0 {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(Failure::Usage(format!(
            "--runtime-timeout: {seconds} is not a number of seconds from more than 0 to 3600"
        )))
    }
}

/// Set in the child process started for a CPU mask, so it does not start another.
const MASK_CHILD: &str = "HASHLAB_MASK_CHILD";

/// OpenSSL reads `OPENSSL_ia32cap` once, when libcrypto starts: a mask that
/// OpenSSL must honour needs a fresh process with the variable set. Returns
/// that process's exit code, or `None` when no new process is needed.
fn rerun_with_openssl_mask(
    registry: &Registry,
    request: &Request,
) -> Result<Option<ExitCode>, Failure> {
    if request.mask.is_empty() || std::env::var_os(MASK_CHILD).is_some() {
        return Ok(None);
    }
    mask::validate(&request.mask).map_err(|e| Failure::Usage(format!("--mask-cpu: {e}")))?;
    let (pairs, _) = pairs_for(registry, request).map_err(|e| Failure::Usage(e.to_string()))?;
    if !mask::apply(registry, &pairs, &request.mask).needs_openssl_env {
        return Ok(None);
    }
    let cap = mask::openssl_ia32cap(&request.mask)
        .map_err(|e| Failure::Usage(format!("--mask-cpu: {e}")))?;
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Runtime(format!("cannot find my own executable: {e}")))?;
    let status = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("OPENSSL_ia32cap", &cap)
        .env(MASK_CHILD, "1")
        .status()
        .map_err(|e| Failure::Runtime(format!("cannot start the masked run: {e}")))?;
    Ok(Some(ExitCode::from(
        status.code().unwrap_or(1).clamp(0, 255) as u8,
    )))
}

pub fn run(args: &BenchArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let request = request(args, &registry)?;
    if let Some(code) = rerun_with_openssl_mask(&registry, &request)? {
        return Ok(code);
    }
    if !(args.regression_threshold > 0.0 && args.regression_threshold < 1e6) {
        return Err(Failure::Usage(format!(
            "--regression-threshold: {} is not a positive percentage",
            args.regression_threshold
        )));
    }
    let report = measure_with_progress(&registry, &request, args.quiet)?;

    let format = format_for(args.format.chosen(), args.output.as_deref());
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let baseline = request.selection.also.first().map_or("", String::as_str);
    let rendered = render(
        &report,
        args,
        baseline,
        format,
        colour && args.output.is_none(),
    )?;
    if let Some(path) = &args.output {
        hashlab_integrity::write_file(path, &rendered)?;
        if !args.quiet {
            let human = render(&report, args, baseline, Format::Table, colour)?;
            crate::stdio::write_out(&human)?;
        }
    } else {
        crate::stdio::write_out(&rendered)?;
    }
    // Only now, with the results out, is the history touched: a damaged or
    // locked database cannot cost the run.
    if let Some(code) = crate::shared::history::after_bench(
        &report,
        args.save,
        args.check_regression
            .then_some(args.regression_threshold / 100.0),
        &args.db,
    )? {
        return Ok(code);
    }
    Ok(if report.run.partial {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

fn render(
    report: &Report,
    args: &BenchArgs,
    baseline: &str,
    format: Format,
    colour: bool,
) -> Result<Vec<u8>, Failure> {
    if format == Format::Json {
        return render_json(report);
    }
    let units = match args.unit {
        Unit::Mbps => vec![tables::Unit::Mbps],
        Unit::Mibps => vec![tables::Unit::Mibps],
        Unit::Cpb => vec![tables::Unit::Cpb],
        Unit::Ns => vec![tables::Unit::Ns],
        Unit::All => tables::Unit::ALL.to_vec(),
    };
    let view = tables::View {
        units,
        baseline,
        file: args.file.as_deref(),
    };
    render_document(&tables::document(report, &view), format, colour)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parsed(words: &[&str]) -> Request {
        let cli = crate::cli::Cli::try_parse_from(["hashlab", "bench"].iter().chain(words))
            .expect("parses");
        let crate::cli::Command::Bench(args) = cli.command else {
            unreachable!("a bench command")
        };
        request(&args, &Registry::default()).expect("a valid request")
    }

    /// The command's defaults are the library's, which the Python package
    /// and `report` start from too.
    #[test]
    fn bench_without_options_asks_what_the_library_defaults_to() {
        for (words, defaults) in [
            (&[][..], Request::standard()),
            (&["--quick"][..], Request::quick()),
        ] {
            let asked = parsed(words);
            assert_eq!(asked.selection.sizes, defaults.selection.sizes);
            assert_eq!(asked.selection.threads, defaults.selection.threads);
            assert_eq!(asked.selection.also, defaults.selection.also);
            assert_eq!(asked.selection.algorithms, defaults.selection.algorithms);
            assert_eq!(asked.budget, defaults.budget);
            assert_eq!(asked.seed, defaults.seed);
            assert_eq!(asked.misalign, defaults.misalign);
            assert_eq!(asked.clock_budget, defaults.clock_budget);
        }
    }
}
