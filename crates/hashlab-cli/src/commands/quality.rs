//! `hashlab quality`: the statistical quality suite of `hashlab-quality` on
//! one algorithm, laid out by hashlab-judge's `battery` page; exit status 1
//! when any test fails.

use std::io::IsTerminal;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_judge::pages::battery::document;
use hashlab_quality::{run_tested, Options, QualityError, Tested};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{Format, QualityArgs};
use crate::failure::Failure;
use crate::output::print;

/// The hash to test, resolved (an unknown algorithm or backend is a usage
/// error), and the plan's options.
fn request(args: &QualityArgs, registry: &Registry) -> Result<(Tested, Options), Failure> {
    let options = Options {
        seed: args.seed,
        ..if args.quick {
            Options::quick()
        } else {
            Options::standard()
        }
    };
    let tested =
        Tested::new(registry, &args.algorithm, args.backend.as_deref()).map_err(|e| match e {
            QualityError::Hash(error) => crate::shared::args::usage(error),
            other => Failure::Runtime(other.to_string()),
        })?;
    Ok((tested, options))
}

pub fn run(args: &QualityArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let (tested, options) = request(args, &registry)?;
    let bar = (std::io::stderr().is_terminal() && !args.quiet).then(|| {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("quality [{bar:30}] {pos}/{len} {msg}")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar
    });
    let report = run_tested(&tested, &options, |done, total, finished| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(format!("{}: {}", finished.test.as_str(), finished.case));
        }
    })
    .map_err(|e| Failure::Runtime(e.to_string()))?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let printed = print(
        &report,
        args.format.chosen().unwrap_or(Format::Table),
        document,
    )?;
    Ok(if report.all_passed() {
        printed
    } else {
        ExitCode::from(1)
    })
}
