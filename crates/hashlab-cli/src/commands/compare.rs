//! `hashlab compare`: results files or saved runs side by side. The comparing
//! (ratios, significance, rankings, flips) is `hashlab_bench::comparison`; this
//! reads the inputs and prints.

use std::path::Path;
use std::process::ExitCode;

use hashlab_bench::comparison::describe;
use hashlab_bench::comparison::{self, labels, Options};
use hashlab_bench::report::Report;
use hashlab_bench::results::SCHEMA_VERSION;

use hashlab_bench::sizes::parse_sizes;
use hashlab_history::RunId;

use crate::cli::{CompareArgs, Format};
use crate::failure::Failure;
use crate::output::print;
use crate::shared::history::{database_path, open_existing};

/// Reads a `hashlab bench --json` file; every problem is one line naming it.
fn read_results(path: &Path) -> Result<Report, Failure> {
    let name = path.display();
    let bytes = hashlab_integrity::bounded::read_json(path)
        .map_err(|e| Failure::Runtime(format!("{name}: {e}")))?;
    let report: Report = serde_json::from_slice(&bytes).map_err(|e| {
        Failure::Runtime(format!(
            "{name}: not hashlab bench results (as `hashlab bench --json` writes them): {e}"
        ))
    })?;
    if report.schema_version > SCHEMA_VERSION {
        return Err(Failure::Runtime(format!(
            "{name}: results schema version {} is newer than this hashlab reads ({SCHEMA_VERSION})",
            report.schema_version
        )));
    }
    hashlab_bench::usable::check_usable(&report)
        .map_err(|e| Failure::Runtime(format!("{name}: {e}")))?;
    Ok(report)
}

/// What to compare: the inputs, read (at least two must be named), and the
/// library's options with the sizes `--size` asks for, each one the inputs
/// have.
fn request(args: &CompareArgs) -> Result<(Vec<(String, Report)>, Options), Failure> {
    let sizes = args
        .size
        .as_deref()
        .map(|s| parse_sizes(s).map_err(|e| Failure::Usage(format!("--size: {e}"))))
        .transpose()?;
    if args.files.len() + args.runs.len() < 2 {
        return Err(Failure::Usage(
            "compare needs at least two inputs: results files and/or --runs ID ID".into(),
        ));
    }
    let loaded = inputs(args)?;
    if let Some(sizes) = &sizes {
        let refs: Vec<(String, &Report)> = loaded.iter().map(|(l, r)| (l.clone(), r)).collect();
        comparison::check_sizes(&refs, sizes)
            .map_err(|e| Failure::Usage(format!("--size: {e}")))?;
    }
    let options = Options {
        sizes,
        ..Options::default()
    };
    Ok((loaded, options))
}

/// The files, then the saved runs, each labelled: a file by its name (its
/// path where another input has that name), a run as `run ID`.
fn inputs(args: &CompareArgs) -> Result<Vec<(String, Report)>, Failure> {
    let runs: Vec<String> = args.runs.iter().map(|id| format!("run {id}")).collect();
    let mut out = Vec::new();
    for (path, label) in args.files.iter().zip(labels(&args.files, &runs)) {
        out.push((label, read_results(path)?));
    }
    if !args.runs.is_empty() {
        let history = open_existing(&args.db)?.ok_or_else(|| {
            Failure::Runtime(format!(
                "{}: no history yet (hashlab bench --save stores runs there)",
                database_path(&args.db)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ))
        })?;
        for (&id, label) in args.runs.iter().zip(runs) {
            let report = history
                .load(RunId(id))
                .map_err(|e| Failure::Runtime(e.to_string()))?;
            out.push((label, report));
        }
    }
    Ok(out)
}

pub fn run(args: &CompareArgs) -> Result<ExitCode, Failure> {
    let (loaded, options) = request(args)?;
    let refs: Vec<(String, &Report)> = loaded.iter().map(|(l, r)| (l.clone(), r)).collect();
    let result = comparison::compare(&refs, &options);
    print(
        &result,
        args.format.chosen().unwrap_or(Format::Table),
        describe::document,
    )
}
