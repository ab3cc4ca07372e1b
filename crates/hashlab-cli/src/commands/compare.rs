//! `hashlab compare`: results files or saved runs side by side. The comparing
//! (ratios, significance, rankings, flips) is `hashlab_bench::comparison`; this
//! reads the inputs and prints.

use std::path::Path;
use std::process::ExitCode;

use hashlab_bench::comparison::describe::{
    backend_cell, column_headers, features_line, flip_lines, input_line, legend, mode_label,
    ratio_text, unmatched_lines,
};
use hashlab_bench::comparison::{self, Comparison, Options};
use hashlab_bench::plan::Mode;
use hashlab_bench::report::Report;
use hashlab_bench::results::SCHEMA_VERSION;

use crate::commands::bench::number;
use hashlab_bench::sizes::{parse_sizes, size_label};
use hashlab_history::RunId;

use crate::cli::{CompareArgs, Format};
use crate::commands::history::{database_path, open_existing};
use crate::failure::{io_message, Failure};
use crate::output::{render_grid, render_json, table};

/// Reads a `hashlab bench --json` file; every problem is one line naming it.
fn read_results(path: &Path) -> Result<Report, Failure> {
    let name = path.display();
    let bytes =
        std::fs::read(path).map_err(|e| Failure::Runtime(format!("{name}: {}", io_message(&e))))?;
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
    Ok(report)
}

fn file_label(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn inputs(args: &CompareArgs) -> Result<Vec<(String, Report)>, Failure> {
    if args.files.len() + args.runs.len() < 2 {
        return Err(Failure::Usage(
            "compare needs at least two inputs: results files and/or --runs ID ID".into(),
        ));
    }
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
    let sizes = args
        .size
        .as_deref()
        .map(|s| parse_sizes(s).map_err(|e| Failure::Usage(format!("--size: {e}"))))
        .transpose()?;
    let loaded = inputs(args)?;
    let refs: Vec<(String, &Report)> = loaded.iter().map(|(l, r)| (l.clone(), r)).collect();
    if let Some(sizes) = &sizes {
        comparison::check_sizes(&refs, sizes)
            .map_err(|e| Failure::Usage(format!("--size: {e}")))?;
    }
    let result = comparison::compare(
        &refs,
        &Options {
            sizes,
            ..Options::default()
        },
    );
    let format = args.format.chosen().unwrap_or(Format::Table);
    let out = match format {
        Format::Json => render_json(&result)?,
        Format::Csv => render_grid(&long_headers(), &long_rows(&result), Format::Csv)?,
        Format::Table | Format::Md => human(&result, format)?.into_bytes(),
    };
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn table_rows(c: &Comparison) -> Vec<Vec<String>> {
    c.rows
        .iter()
        .map(|row| {
            let mut cells = vec![
                row.entry.algorithm.clone(),
                backend_cell(row),
                size_label(row.size),
                mode_label(&row.mode),
            ];
            for side in &row.sides {
                let side = side.as_ref();
                cells.push(
                    side.and_then(|s| s.mb_per_s)
                        .map(number)
                        .unwrap_or_else(|| "-".into()),
                );
                cells.push(
                    side.and_then(|s| s.rank)
                        .map(|r| r.to_string())
                        .unwrap_or_else(|| "-".into()),
                );
            }
            for ratio in row.versus_first.iter().skip(1) {
                cells.push(ratio.as_ref().map_or_else(|| "-".into(), ratio_text));
            }
            cells
        })
        .collect()
}

fn human(c: &Comparison, format: Format) -> Result<String, Failure> {
    let md = format == Format::Md;
    let mut out = String::new();
    let bullet = if md { "- " } else { "" };
    for i in 0..c.inputs.len() {
        out.push_str(&format!("{bullet}{}\n", input_line(c, i)));
    }
    out.push_str(&format!("{bullet}{}\n", features_line(c)));
    out.push_str(&format!("{bullet}{}\n", legend(c)));

    let headers = column_headers(c);
    let rows = table_rows(c);
    if md {
        out.push('\n');
        out.push_str(&String::from_utf8_lossy(&render_grid(
            &headers,
            &rows,
            Format::Md,
        )?));
    } else {
        out.push('\n');
        let h: Vec<&str> = headers.iter().map(String::as_str).collect();
        out.push_str(&table::render(&h, &rows));
    }

    let title = |t: &str| {
        if md {
            format!("\n**{t}**\n\n")
        } else {
            format!("\n{t}\n")
        }
    };
    let flips = flip_lines(c);
    if flips.is_empty() {
        out.push_str(&title(
            "No ranking flips: no two algorithms swap places significantly between the inputs.",
        ));
    } else {
        out.push_str(&title(
            "Ranking flips (each order significant on its input, by the same test):",
        ));
        if md {
            out.push_str("```\n");
        }
        for line in flips {
            out.push_str(&line);
            out.push('\n');
        }
        if md {
            out.push_str("```\n");
        }
    }
    if !c.unmatched.is_empty() {
        out.push_str(&title("Measured on some inputs only:"));
        for line in unmatched_lines(c) {
            out.push_str(&format!("{bullet}{line}\n"));
        }
    }
    Ok(out)
}

fn long_headers() -> Vec<String> {
    [
        "algorithm",
        "backend",
        "size",
        "mode",
        "threads",
        "input",
        "mb_per_s",
        "rank",
        "ratio_to_first",
        "ratio_low",
        "ratio_high",
        "significant",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// One line per row and input, for spreadsheets.
fn long_rows(c: &Comparison) -> Vec<Vec<String>> {
    let opt = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    let mut out = Vec::new();
    for row in &c.rows {
        for (i, side) in row.sides.iter().enumerate() {
            let Some(side) = side else { continue };
            let ratio = row.versus_first[i].as_ref();
            out.push(vec![
                row.entry.algorithm.clone(),
                side.backend.clone(),
                row.size.to_string(),
                match row.mode {
                    Mode::Streams { .. } => "streams",
                    Mode::OneStream { .. } => "one-stream",
                    Mode::Latency => "latency",
                    Mode::File { .. } => "file",
                }
                .to_string(),
                row.mode.threads().to_string(),
                c.inputs[i].label.clone(),
                opt(side.mb_per_s),
                side.rank.map(|r| r.to_string()).unwrap_or_default(),
                opt(ratio.map(|r| r.ratio)),
                opt(ratio.map(|r| r.low)),
                opt(ratio.map(|r| r.high)),
                ratio.map(|r| r.significant.to_string()).unwrap_or_default(),
            ]);
        }
    }
    out
}
