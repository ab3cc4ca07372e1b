//! `hashlab quality`: the statistical quality suite of `hashlab-quality` on
//! one algorithm; exit status 1 when any test fails.

use std::io::IsTerminal;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_quality::{run_tested, Options, QualityError, Report, TestResult, Tested};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::cli::{Format, QualityArgs};
use crate::failure::Failure;
use crate::output::{render, render_json, Tabular};

#[derive(Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    result: &'a TestResult,
}

impl Tabular for Row<'_> {
    fn headers() -> &'static [&'static str] {
        &[
            "test",
            "case",
            "worst statistic",
            "threshold",
            "corrected p",
            "failing",
            "result",
        ]
    }
    fn cells(&self) -> Vec<String> {
        let r = self.result;
        vec![
            r.test.as_str().to_string(),
            r.case.clone(),
            r.statistic.clone(),
            r.threshold.clone(),
            p_cell(r.corrected_p),
            format!("{}/{}", r.failing_statistics, r.statistics),
            if r.passed { "PASS" } else { "FAIL" }.to_string(),
        ]
    }
}

fn p_cell(p: f64) -> String {
    if p == 0.0 {
        "< 1e-300".into()
    } else if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

/// What was tested and how, above the table.
fn heading(report: &Report) -> String {
    let keys = match (&report.key_bytes, &report.key_tests_skipped) {
        (Some(bytes), _) => format!("key tests with {bytes}-byte keys"),
        (None, Some(why)) => format!("no key tests: {why}"),
        (None, None) => "no key tests".into(),
    };
    let seeds = match (&report.seed_bits, &report.seed_tests_skipped) {
        (Some(bits), _) => format!("seed tests with {bits}-bit seeds"),
        (None, Some(why)) => format!("no seed tests: {why}"),
        (None, None) => "no seed tests".into(),
    };
    format!(
        "{} on backend {} ({}); {} output bits: avalanche on {}, other tests on the first {}; {keys}; {seeds}\n\
         {} plan, seed {}; alpha {} for the whole run, Bonferroni-corrected over {} tests and their statistics",
        report.algorithm,
        report.backend,
        report.backend_reason,
        report.output_bits,
        report.avalanche_bits,
        report.keyset_bits,
        report.plan,
        report.seed,
        report.alpha,
        report.tests.len(),
    )
}

fn verdict(report: &Report) -> String {
    format!(
        "{}: {} ({} of {} tests passed, {:.1} s)",
        report.algorithm,
        if report.all_passed() { "PASS" } else { "FAIL" },
        report.passed,
        report.tests.len(),
        report.seconds
    )
}

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
    let out = rendered(&report, args.format.chosen().unwrap_or(Format::Table))?;
    crate::stdio::write_out(&out)?;
    Ok(if report.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The report in `format`: the table with what was tested above it and the
/// verdict below.
fn rendered(report: &Report, format: Format) -> Result<Vec<u8>, Failure> {
    let rows: Vec<Row> = report.tests.iter().map(|result| Row { result }).collect();
    Ok(match format {
        Format::Json => render_json(report)?,
        Format::Csv => render(&rows, Format::Csv)?,
        Format::Table => {
            let mut out = format!("{}\n\n", heading(report)).into_bytes();
            out.extend(render(&rows, Format::Table)?);
            out.extend(format!("\n{}\n", verdict(report)).into_bytes());
            out
        }
        Format::Md => {
            let mut out = format!("{}\n\n", heading(report).replace('\n', "  \n")).into_bytes();
            out.extend(render(&rows, Format::Md)?);
            out.extend(format!("\n**{}**\n", verdict(report)).into_bytes());
            out
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_read_at_a_glance() {
        assert_eq!(p_cell(1.0), "1.000");
        assert_eq!(p_cell(0.0123), "0.012");
        assert_eq!(p_cell(2.5e-7), "2.5e-7");
        assert_eq!(p_cell(0.0), "< 1e-300");
    }
}
