//! `hashlab compare`: results files or saved runs side by side. The comparing
//! (ratios, significance, rankings, flips) is `hashlab_bench::comparison`; this
//! reads the inputs and prints.

use std::path::Path;
use std::process::ExitCode;

use hashlab_bench::comparison::describe;
use hashlab_bench::comparison::{self, Options};
use hashlab_bench::report::Report;
use hashlab_bench::results::SCHEMA_VERSION;

use hashlab_bench::sizes::parse_sizes;
use hashlab_history::RunId;

use crate::cli::{CompareArgs, Format};
use crate::failure::Failure;
use crate::output::{render_document, render_json};
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

fn file_label(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
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

fn inputs(args: &CompareArgs) -> Result<Vec<(String, Report)>, Failure> {
    let mut out = Vec::new();
    for path in &args.files {
        out.push((file_label(path), read_results(path)?));
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
        for &id in &args.runs {
            let report = history
                .load(RunId(id))
                .map_err(|e| Failure::Runtime(e.to_string()))?;
            out.push((format!("run {id}"), report));
        }
    }
    // Two files of one name elsewhere: tell them apart by path.
    let labels: Vec<String> = out.iter().map(|(l, _)| l.clone()).collect();
    for (i, (label, _)) in out.iter_mut().enumerate() {
        if labels.iter().filter(|l| *l == label).count() > 1 && i < args.files.len() {
            *label = args.files[i].display().to_string();
        }
    }
    Ok(out)
}

pub fn run(args: &CompareArgs) -> Result<ExitCode, Failure> {
    let (loaded, options) = request(args)?;
    let refs: Vec<(String, &Report)> = loaded.iter().map(|(l, r)| (l.clone(), r)).collect();
    let result = comparison::compare(&refs, &options);
    let format = args.format.chosen().unwrap_or(Format::Table);
    let out = match format {
        Format::Json => render_json(&result)?,
        _ => render_document(&describe::document(&result), format, false)?,
    };
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
}
