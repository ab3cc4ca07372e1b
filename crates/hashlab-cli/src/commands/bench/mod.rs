//! `hashlab bench`: parse, run the engine, export. The measuring is in hashlab-bench.

use std::io::IsTerminal;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_bench::report::Report;
use hashlab_bench::tables;

use crate::cli::{BenchArgs, Format, Unit};
use crate::failure::Failure;
use crate::output::{format_for, render_document, render_json};
use crate::shared::bench_run::measure_with_progress;

pub mod like;
mod request;

pub(crate) use request::request;

/// Set in the child process started for a CPU mask, so it does not start another.
const MASK_CHILD: &str = "HASHLAB_MASK_CHILD";

/// OpenSSL reads `OPENSSL_ia32cap` once, when libcrypto starts: a mask that
/// OpenSSL must honour needs a fresh process with the variable set (`cap`).
/// Returns that process's exit code.
fn rerun_with_openssl_mask(cap: &str) -> Result<ExitCode, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Runtime(format!("cannot find my own executable: {e}")))?;
    let status = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("OPENSSL_ia32cap", cap)
        .env(MASK_CHILD, "1")
        .status()
        .map_err(|e| Failure::Runtime(format!("cannot start the masked run: {e}")))?;
    Ok(ExitCode::from(
        status.code().unwrap_or(1).clamp(0, 255) as u8
    ))
}

pub fn run(args: &BenchArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let asked = request(args, &registry)?;
    if let Some(cap) = &asked.openssl_ia32cap {
        if std::env::var_os(MASK_CHILD).is_none() {
            return rerun_with_openssl_mask(cap);
        }
    }
    let request = asked.request;
    let report = measure_with_progress(&registry, &request, &asked.plan, args.quiet)?;

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
    use hashlab_bench::report::Request;

    fn parsed(words: &[&str]) -> Request {
        let cli = crate::cli::Cli::try_parse_from(["hashlab", "bench"].iter().chain(words))
            .expect("parses");
        let crate::cli::Command::Bench(args) = cli.command else {
            unreachable!("a bench command")
        };
        request(&args, &Registry::default())
            .expect("a valid request")
            .request
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
