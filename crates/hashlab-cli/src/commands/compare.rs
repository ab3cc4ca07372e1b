//! `hashlab compare`: results files or saved runs side by side. The comparing
//! (ratios, significance, rankings, flips) is `hashlab_bench::comparison`; this
//! reads the inputs and prints.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use hashlab_bench::comparison::{self, Comparison, Entry, Flip, Options, Order, Row};
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

/// The thread mode of a cell, as the `threads` column shows it.
pub fn mode_label(mode: &Mode) -> String {
    match *mode {
        Mode::Streams { threads: 1 } => "1".into(),
        Mode::Streams { threads } => format!("{threads} streams"),
        Mode::OneStream { threads } => format!("{threads}, one message"),
        Mode::Latency => "latency".into(),
        Mode::File { cold: false } => "file".into(),
        Mode::File { cold: true } => "file, cold".into(),
    }
}

fn mode_title(mode: &Mode) -> String {
    match *mode {
        Mode::Streams { threads: 1 } => "1 thread".into(),
        Mode::Streams { threads } => format!("{threads} threads, one stream each"),
        Mode::OneStream { threads } => format!("{threads} threads on one message"),
        Mode::Latency => "latency".into(),
        Mode::File { cold: false } => "file".into(),
        Mode::File { cold: true } => "file, cold".into(),
    }
}

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
    std::io::stdout()
        .lock()
        .write_all(&out)
        .map_err(Failure::from_write)?;
    Ok(ExitCode::SUCCESS)
}

/// "A", "B", ... for column headers; the legend says which input each is.
fn letter(i: usize) -> String {
    if i < 26 {
        ((b'A' + i as u8) as char).to_string()
    } else {
        format!("#{}", i + 1)
    }
}

fn backend_cell(row: &Row) -> String {
    let names: Vec<&str> = row
        .sides
        .iter()
        .map(|s| s.as_ref().map_or("-", |s| s.backend.as_str()))
        .collect();
    if names.iter().all(|n| *n == names[0]) {
        names[0].to_string()
    } else {
        names.join(" / ")
    }
}

fn table_headers(c: &Comparison) -> Vec<String> {
    let mut h: Vec<String> = ["algorithm", "backend", "size", "threads"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for i in 0..c.inputs.len() {
        h.push(format!("{} MB/s", letter(i)));
        h.push(format!("{} #", letter(i)));
    }
    for i in 1..c.inputs.len() {
        h.push(format!("{}/{}", letter(i), letter(0)));
    }
    h
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
                cells.push(match ratio {
                    Some(r) if r.significant => format!("{:.2}", r.ratio),
                    Some(r) => format!("{:.2} ~", r.ratio),
                    None => "-".into(),
                });
            }
            cells
        })
        .collect()
}

/// Sizes as ranges over the sizes compared: "16 B..4 KiB, 1 MiB", or "all sizes".
fn size_ranges(sizes: &[usize], all: &[usize]) -> String {
    if sizes.len() == all.len() && all.len() > 1 {
        return "all sizes".into();
    }
    let positions: Vec<usize> = sizes
        .iter()
        .filter_map(|s| all.iter().position(|a| a == s))
        .collect();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < positions.len() {
        let start = i;
        while i + 1 < positions.len() && positions[i + 1] == positions[i] + 1 {
            i += 1;
        }
        let (a, b) = (all[positions[start]], all[positions[i]]);
        parts.push(match i - start {
            0 => size_label(a),
            1 => format!("{}, {}", size_label(a), size_label(b)),
            _ => format!("{}..{}", size_label(a), size_label(b)),
        });
        i += 1;
    }
    parts.join(", ")
}

fn backends_note(backends: &[Option<String>]) -> String {
    let present: Vec<&String> = backends.iter().flatten().collect();
    if present.iter().all(|b| *b == present[0]) {
        return String::new();
    }
    let parts: Vec<String> = backends
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.as_ref().map(|b| format!("{}: {b}", letter(i))))
        .collect();
    format!(" ({})", parts.join(", "))
}

fn order_text(order: &[Order]) -> String {
    order
        .iter()
        .enumerate()
        .filter_map(|(i, o)| match o {
            Order::FirstAhead => Some(format!("ahead on {}", letter(i))),
            Order::SecondAhead => Some(format!("behind on {}", letter(i))),
            Order::Tie => Some(format!("level on {}", letter(i))),
            Order::Absent => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn feature_note(c: &Comparison, features: &[String]) -> String {
    let parts: Vec<String> = c
        .feature_differences
        .iter()
        .filter(|d| features.contains(&d.feature))
        .map(|d| {
            let without: Vec<String> = (0..c.inputs.len())
                .filter(|&i| !d.usable[i])
                .map(|i| {
                    if d.masked[i] {
                        format!("masked on {}", letter(i))
                    } else {
                        format!("absent on {}", letter(i))
                    }
                })
                .collect();
            format!("{} ({})", d.label, without.join(", "))
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("; usable CPU features differ: {}", parts.join(", "))
    }
}

fn explanation(c: &Comparison, flip: &Flip) -> String {
    if !flip.explaining_features.is_empty() {
        return feature_note(c, &flip.explaining_features);
    }
    if flip.differing_features.is_empty() {
        return String::new();
    }
    let labels: Vec<&str> = c
        .feature_differences
        .iter()
        .filter(|d| flip.differing_features.contains(&d.feature))
        .map(|d| d.label.as_str())
        .collect();
    format!(
        "; no code path of either uses {} (run-to-run noise?)",
        labels.join(", ")
    )
}

/// Flips grouped by the entry that was ahead first and how the order went:
/// one heading per group, one line per entry it passed or fell behind.
fn flip_lines(c: &Comparison) -> Vec<String> {
    let mut sizes: Vec<usize> = c.rows.iter().map(|r| r.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut groups: Vec<(&Mode, &Entry, &[Order], Vec<&Flip>)> = Vec::new();
    for f in &c.flips {
        match groups.iter_mut().find(|g| {
            *g.0 == f.mode
                && *g.1 == f.first
                && g.2 == f.order.as_slice()
                && g.3[0].explaining_features == f.explaining_features
        }) {
            Some(g) => g.3.push(f),
            None => groups.push((&f.mode, &f.first, &f.order, vec![f])),
        }
    }
    let mut lines = Vec::new();
    for (mode, first, order, flips) in groups {
        lines.push(format!(
            "{}: {}{} {}{}",
            mode_title(mode),
            first.name(),
            backends_note(&flips[0].first_backends),
            order_text(order),
            explanation(c, flips[0]),
        ));
        for f in flips {
            lines.push(format!(
                "    {}{} at {}",
                f.second.name(),
                backends_note(&f.second_backends),
                size_ranges(&f.sizes, &sizes)
            ));
        }
    }
    lines
}

fn human(c: &Comparison, format: Format) -> Result<String, Failure> {
    let md = format == Format::Md;
    let mut out = String::new();
    let bullet = if md { "- " } else { "" };
    for (i, input) in c.inputs.iter().enumerate() {
        let mut line = format!(
            "{bullet}{} = {}: {}, hashlab {}",
            letter(i),
            input.label,
            input.cpu_model,
            input.version
        );
        if let Some(commit) = &input.git_commit {
            line.push_str(&format!(" ({commit})"));
        }
        line.push_str(&format!(", {}", input.timestamp));
        if !input.cpu_mask.is_empty() {
            line.push_str(&format!(", CPU mask {}", input.cpu_mask.join(",")));
        }
        if input.partial {
            line.push_str(" (PARTIAL: interrupted run)");
        }
        out.push_str(&line);
        out.push('\n');
    }
    if c.feature_differences.is_empty() {
        out.push_str(&format!(
            "{bullet}The inputs could use the same CPU features.\n"
        ));
    } else {
        let all: Vec<String> = c
            .feature_differences
            .iter()
            .map(|d| d.feature.clone())
            .collect();
        out.push_str(&format!(
            "{bullet}Usable CPU features that differ: {}\n",
            feature_note(c, &all).trim_start_matches("; usable CPU features differ: ")
        ));
    }
    out.push_str(&format!(
        "{bullet}MB/s = 10^6 bytes/s at the median; # = rank among the algorithms at that size and thread mode; \
         ratios are throughput against {}; `~` = within the noise or under {:.0} % (95 % bootstrap interval, the bench's significance test)\n",
        letter(0),
        c.min_effect * 100.0
    ));

    let headers = table_headers(c);
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
        for u in &c.unmatched {
            let on: Vec<String> = u
                .backends
                .iter()
                .enumerate()
                .filter_map(|(i, b)| b.as_ref().map(|b| format!("{} ({b})", letter(i))))
                .collect();
            out.push_str(&format!(
                "{bullet}{}: only on {}\n",
                u.entry.name(),
                on.join(", ")
            ));
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
