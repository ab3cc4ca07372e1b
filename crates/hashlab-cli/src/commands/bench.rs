//! `hashlab bench`: parse, run the engine, export. The measuring is in hashlab-bench.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hashlab::Registry;
use hashlab_bench::limits::{time_budget, MeasureError, RequestError, MAX_THREADS};
use hashlab_bench::mask;
use hashlab_bench::plan::{Mode, NULL_ALGORITHM};
use hashlab_bench::report::{measure, pairs_for, plan_for, Report, Request};
use hashlab_bench::results::{speedup, CellResult};
use hashlab_bench::runner::{Phase, Progress};
use hashlab_bench::selection::{Algorithms, Backends, FileTarget, Selection};
use hashlab_bench::sizes::{parse_amount, parse_sizes, size_label};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{BenchArgs, Format, Unit};
use crate::failure::{io_message, Failure};
use crate::output::{render_grid, table};

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

/// A request the library refused, as a usage error naming the option at fault.
pub(crate) fn request_error(error: RequestError) -> Failure {
    let option = match &error {
        RequestError::Misalign { .. } => "--misalign",
        RequestError::NoSizes
        | RequestError::SizeTooLarge { .. }
        | RequestError::TooManySizes { .. } => "--sizes",
        RequestError::InputsDoNotFit { .. } | RequestError::InputsOverMemory { .. } => {
            "--sizes/--threads"
        }
        RequestError::Threads { .. } => "--threads",
        RequestError::MaxTime { .. } => "--max-time",
        RequestError::Pin { .. } => "--pin",
        RequestError::UnknownBackends { .. } => "--backends",
        // Set by this command, not by an option.
        RequestError::ClockBudget { .. } => "internal",
    };
    Failure::Usage(format!("{option}: {error}"))
}

/// What `measure` failed with, as this command reports it.
pub(crate) fn measure_error(error: MeasureError) -> Failure {
    match error {
        MeasureError::Request(e) => request_error(e),
        MeasureError::Failed(message) => Failure::Runtime(message),
    }
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
    let request = Request {
        selection: Selection {
            algorithms,
            backends,
            sizes,
            threads: thread_counts(&args.threads)?,
            latency: args.latency,
            also: vec![baseline],
            file,
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
    };
    request.validate(registry).map_err(request_error)?;
    Ok(request)
}

/// The output format: `--format`, else the `-o` file's extension, else a table.
fn chosen_format(args: &BenchArgs) -> Format {
    if let Some(f) = args.format.chosen() {
        return f;
    }
    match args
        .output
        .as_deref()
        .and_then(Path::extension)
        .and_then(|e| e.to_str())
    {
        Some("json") => Format::Json,
        Some("csv") => Format::Csv,
        Some("md") => Format::Md,
        _ => Format::Table,
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

/// Measures with the progress bar and time estimate (on a terminal, unless
/// `quiet`); Ctrl-C stops and keeps what was measured. Shared by `bench` and
/// `report`.
pub(crate) fn measure_with_progress(
    registry: &Registry,
    request: &Request,
    quiet: bool,
) -> Result<Report, Failure> {
    let plan = plan_for(registry, request).map_err(Failure::Usage)?;
    let interactive = std::io::stderr().is_terminal() && !quiet;
    let estimate = plan.estimate();
    if interactive && estimate > Duration::from_secs(15) {
        errln!(
            "hashlab: {} cells; this run may take up to {:.0} s (Ctrl-C keeps what was measured)",
            plan.cells.len(),
            estimate.as_secs_f64()
        );
    }

    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        // A second handler cannot be installed (tests call this twice); the run still works.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let bar = interactive.then(|| {
        let bar = ProgressBar::new(plan.cells.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {msg} ETA {eta}")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar
    });
    let mut on_progress = |p: &Progress| {
        if let Some(bar) = &bar {
            bar.set_prefix(match p.phase {
                Phase::WarmUp => "warm-up",
                Phase::Rounds => "rounds",
            });
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
        }
    };
    let report = measure(registry, request, &stop, &mut on_progress).map_err(measure_error)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(report)
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

    let format = chosen_format(args);
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let rendered = render(&report, args, format, colour && args.output.is_none())?;
    if let Some(path) = &args.output {
        hashlab_integrity::write_file(path, &rendered)?;
        if !args.quiet {
            let human = render(&report, args, Format::Table, colour)?;
            crate::stdio::write_out(&human)?;
        }
    } else {
        crate::stdio::write_out(&rendered)?;
    }
    // Only now, with the results out, is the history touched: a damaged or
    // locked database cannot cost the run.
    if let Some(code) = crate::commands::history::after_bench(
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
    format: Format,
    colour: bool,
) -> Result<Vec<u8>, Failure> {
    match format {
        Format::Json => {
            let mut out =
                serde_json::to_vec_pretty(report).map_err(|e| Failure::Runtime(e.to_string()))?;
            out.push(b'\n');
            Ok(out)
        }
        Format::Csv => render_grid(&long_headers(), &long_rows(report), Format::Csv),
        Format::Table | Format::Md => Ok(human(report, args, format, colour)?.into_bytes()),
    }
}

fn long_headers() -> Vec<String> {
    [
        "algorithm",
        "backend",
        "size",
        "mode",
        "threads",
        "batch",
        "samples",
        "outliers",
        "median_seconds",
        "q1_seconds",
        "q3_seconds",
        "mb_per_s",
        "mib_per_s",
        "cycles_per_byte",
        "ns_per_message",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn mode_name(mode: &Mode) -> &'static str {
    match mode {
        Mode::Streams { .. } => "streams",
        Mode::OneStream { .. } => "one-stream",
        Mode::Latency => "latency",
        Mode::File { cold: false } => "file",
        Mode::File { cold: true } => "file-cold",
    }
}

fn long_rows(report: &Report) -> Vec<Vec<String>> {
    let opt = |x: Option<f64>| x.map(|v| format!("{v}")).unwrap_or_default();
    report
        .cells
        .iter()
        .map(|c| {
            let s = c.summary.as_ref();
            let t = c.throughput.as_ref();
            vec![
                c.algorithm.clone(),
                c.backend.clone(),
                c.size.to_string(),
                mode_name(&c.mode).to_string(),
                c.mode.threads().to_string(),
                c.batch.to_string(),
                c.samples.len().to_string(),
                s.map(|s| s.outliers.to_string()).unwrap_or_default(),
                opt(s.map(|s| s.median)),
                opt(s.map(|s| s.q1)),
                opt(s.map(|s| s.q3)),
                opt(t.map(|t| t.mb_per_s)),
                opt(t.map(|t| t.mib_per_s)),
                opt(t.and_then(|t| t.cycles_per_byte)),
                opt(t.map(|t| t.ns_per_message)),
            ]
        })
        .collect()
}

/// A speed or ratio with three significant digits or so, as the tables print them.
pub(crate) fn number(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn value(cell: &CellResult, unit: Unit) -> Option<f64> {
    let t = cell.throughput.as_ref()?;
    match unit {
        Unit::Mbps | Unit::All => Some(t.mb_per_s),
        Unit::Mibps => Some(t.mib_per_s),
        Unit::Cpb => t.cycles_per_byte,
        Unit::Ns => Some(t.ns_per_message),
    }
}

fn unit_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Mbps | Unit::All => "MB/s (10^6 bytes per second)",
        Unit::Mibps => "MiB/s",
        Unit::Cpb => "cycles per byte",
        Unit::Ns => "ns per message",
    }
}

fn duration_text(seconds: f64) -> String {
    if seconds >= 3600.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else if seconds >= 60.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{seconds:.1} s")
    }
}

/// Appends one grid as a table or Markdown, with a title line.
fn section(
    out: &mut String,
    title: &str,
    headers: &[String],
    rows: &[Vec<String>],
    format: Format,
    emphasize: &dyn Fn(usize, usize) -> bool,
) -> Result<(), Failure> {
    if format == Format::Md {
        out.push_str(&format!("\n**{title}**\n\n"));
        out.push_str(&String::from_utf8_lossy(&render_grid(
            headers,
            rows,
            Format::Md,
        )?));
    } else {
        out.push_str(&format!("\n{title}\n"));
        let h: Vec<&str> = headers.iter().map(String::as_str).collect();
        out.push_str(&table::render_emphasized(&h, rows, emphasize));
    }
    Ok(())
}

fn human(
    report: &Report,
    args: &BenchArgs,
    format: Format,
    colour: bool,
) -> Result<String, Failure> {
    let mut out = String::new();
    let env = &report.environment;
    let features: Vec<&str> = env
        .cpu_features
        .iter()
        .map(|f| hashlab::cpu::label(f).unwrap_or(f))
        .collect();
    let clock = match report.run.clock_hz {
        Some(hz) => format!(
            "core clock {:.2} GHz (measured: dependent-add chain)",
            hz / 1e9
        ),
        None => "core clock not measured (no cycles per byte)".into(),
    };
    let partial = if report.run.partial {
        " (PARTIAL: interrupted)"
    } else {
        ""
    };
    let header = [
        format!(
            "hashlab bench {} ({}): {} round(s) in {:.1} s{partial}",
            report.version,
            env.git_commit.as_deref().unwrap_or("no git commit"),
            report.run.rounds,
            report.run.elapsed_seconds,
        ),
        format!(
            "CPU: {} ({} logical CPUs, {} usable); {clock}",
            env.cpu_model, env.logical_threads, env.usable_threads
        ),
        format!("features: {}", features.join(" ")),
    ];
    for line in header {
        out.push_str(&line);
        // Markdown needs two trailing spaces for a line break.
        out.push_str(if format == Format::Md { "  \n" } else { "\n" });
    }
    if !report.settings.mask.is_empty() {
        out.push_str(&format!(
            "CPU mask: measured as if without {}\n",
            report.settings.mask.join(", ")
        ));
    }
    let sizes = &report.settings.sizes;
    let singles: Vec<&CellResult> = report
        .cells
        .iter()
        .filter(|c| c.mode == Mode::Streams { threads: 1 })
        .collect();
    if let Some(null) = singles
        .iter()
        .find(|c| c.algorithm == NULL_ALGORITHM && c.size == sizes[0])
    {
        if let Some(t) = &null.throughput {
            out.push_str(&format!(
                "harness overhead (null hasher): {:.1} ns per message at {}\n",
                t.ns_per_message,
                size_label(null.size)
            ));
        }
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for c in &singles {
        let p = (c.algorithm.clone(), c.backend.clone());
        if !pairs.contains(&p) && c.algorithm != NULL_ALGORITHM {
            pairs.push(p);
        }
    }
    let null_pair = (
        NULL_ALGORITHM.to_string(),
        hashlab_bench::plan::NULL_BACKEND.to_string(),
    );
    let largest = *sizes.iter().max().expect("at least one size");
    let baseline = Registry::default()
        .algorithm(&args.baseline)
        .map(|a| a.name.clone())
        .unwrap_or_default();
    let units: Vec<Unit> = if args.unit == Unit::All {
        vec![Unit::Mbps, Unit::Mibps, Unit::Cpb, Unit::Ns]
    } else {
        vec![args.unit]
    };
    for unit in units {
        if unit == Unit::Cpb && report.run.clock_hz.is_none() {
            out.push_str("\ncycles per byte: not available (the core clock was not measured)\n");
            continue;
        }
        let mut headers = vec!["algorithm".to_string(), "backend".to_string()];
        headers.extend(sizes.iter().map(|s| size_label(*s)));
        headers.push(format!("vs {baseline} @ {}", size_label(largest)));
        let mut rows = Vec::new();
        let mut values: Vec<Vec<Option<f64>>> = Vec::new();
        // The null hasher's row means something as time per message (the harness's
        // own cost), not as a throughput.
        let with_null: Vec<&(String, String)> = pairs
            .iter()
            .chain((unit == Unit::Ns).then_some(&null_pair))
            .collect();
        for (alg, backend) in with_null {
            let mut row = vec![alg.clone(), backend.clone()];
            let mut vals = Vec::new();
            for &size in sizes {
                let cell = singles
                    .iter()
                    .find(|c| &c.algorithm == alg && &c.backend == backend && c.size == size);
                let v = cell.and_then(|c| value(c, unit));
                vals.push(if alg == NULL_ALGORITHM { None } else { v });
                row.push(v.map(number).unwrap_or_else(|| "-".into()));
            }
            let speed = singles
                .iter()
                .find(|c| &c.algorithm == alg && &c.backend == backend && c.size == largest)
                .filter(|_| alg != NULL_ALGORITHM)
                .and_then(|c| speedup(&report.cells, c, &baseline));
            row.push(
                speed
                    .map(|s| format!("{s:.2}x"))
                    .unwrap_or_else(|| "-".into()),
            );
            rows.push(row);
            values.push(vals);
        }
        // Fastest per column: highest throughput, or lowest time/cycles.
        let lower_is_better = matches!(unit, Unit::Cpb | Unit::Ns);
        let best: Vec<Option<usize>> = (0..sizes.len())
            .map(|col| {
                let mut best: Option<(usize, f64)> = None;
                for (r, vals) in values.iter().enumerate() {
                    if let Some(v) = vals[col] {
                        let better =
                            best.is_none_or(|(_, b)| if lower_is_better { v < b } else { v > b });
                        if better {
                            best = Some((r, v));
                        }
                    }
                }
                best.map(|(r, _)| r)
            })
            .collect();
        let emphasize =
            |r: usize, c: usize| colour && c >= 2 && c - 2 < best.len() && best[c - 2] == Some(r);
        section(
            &mut out,
            &format!("Throughput, {} (one thread)", unit_name(unit)),
            &headers,
            &rows,
            format,
            &emphasize,
        )?;
    }

    let scaling: Vec<_> = report
        .scaling
        .iter()
        .filter(|s| s.size == largest)
        .collect();
    if !scaling.is_empty() {
        let headers: Vec<String> = [
            "algorithm",
            "backend",
            "threads",
            "1 thread MB/s",
            "streams MB/s",
            "efficiency",
            "one-stream MB/s",
            "efficiency",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let pct = |x: Option<f64>| {
            x.map(|e| format!("{:.0} %", e * 100.0))
                .unwrap_or_else(|| "n/a".into())
        };
        let mb = |x: Option<f64>| x.map(number).unwrap_or_else(|| "n/a".into());
        let rows: Vec<Vec<String>> = scaling
            .iter()
            .filter(|s| s.algorithm != NULL_ALGORITHM)
            .map(|s| {
                vec![
                    s.algorithm.clone(),
                    s.backend.clone(),
                    s.threads.to_string(),
                    mb(s.single_mb_per_s),
                    mb(s.streams_mb_per_s),
                    pct(s.streams_efficiency),
                    mb(s.one_stream_mb_per_s),
                    pct(s.one_stream_efficiency),
                ]
            })
            .collect();
        section(
            &mut out,
            &format!(
                "Thread scaling at {} (efficiency = MB/s at N / (N x MB/s at 1); one-stream n/a = no parallel mode)",
                size_label(largest)
            ),
            &headers,
            &rows,
            format,
            &|_, _| false,
        )?;
    }

    let latency: Vec<&CellResult> = report
        .cells
        .iter()
        .filter(|c| c.mode == Mode::Latency)
        .collect();
    if !latency.is_empty() {
        let lat_sizes: Vec<usize> = sizes
            .iter()
            .copied()
            .filter(|s| latency.iter().any(|c| c.size == *s))
            .collect();
        let mut headers = vec!["algorithm".to_string(), "backend".to_string()];
        headers.extend(lat_sizes.iter().map(|s| size_label(*s)));
        let rows: Vec<Vec<String>> = pairs
            .iter()
            .filter(|(a, _)| a != NULL_ALGORITHM)
            .map(|(alg, backend)| {
                let mut row = vec![alg.clone(), backend.clone()];
                for &size in &lat_sizes {
                    let v = latency
                        .iter()
                        .find(|c| &c.algorithm == alg && &c.backend == backend && c.size == size)
                        .and_then(|c| c.throughput.as_ref())
                        .map(|t| number(t.ns_per_message));
                    row.push(v.unwrap_or_else(|| "-".into()));
                }
                row
            })
            .collect();
        section(
            &mut out,
            "Latency, ns per message (dependent chain: each digest feeds the next input)",
            &headers,
            &rows,
            format,
            &|_, _| false,
        )?;
    }

    let files: Vec<&CellResult> = report
        .cells
        .iter()
        .filter(|c| matches!(c.mode, Mode::File { .. }))
        .collect();
    if let (Some(first), Some(path)) = (files.first(), &args.file) {
        let cold = matches!(first.mode, Mode::File { cold: true });
        let headers: Vec<String> = [
            "algorithm".to_string(),
            "backend".to_string(),
            format!("file MB/s ({})", if cold { "cold cache" } else { "cached" }),
            format!("in memory MB/s @ {}", size_label(largest)),
            "file / memory".to_string(),
        ]
        .to_vec();
        let rows: Vec<Vec<String>> = files
            .iter()
            .map(|c| {
                let file = c.throughput.as_ref().map(|t| t.mb_per_s);
                let memory = singles
                    .iter()
                    .find(|m| {
                        m.algorithm == c.algorithm && m.backend == c.backend && m.size == largest
                    })
                    .and_then(|m| m.throughput.as_ref())
                    .map(|t| t.mb_per_s);
                vec![
                    c.algorithm.clone(),
                    c.backend.clone(),
                    file.map(number).unwrap_or_else(|| "-".into()),
                    memory.map(number).unwrap_or_else(|| "-".into()),
                    match (file, memory) {
                        (Some(f), Some(m)) if m > 0.0 => format!("{:.2}", f / m),
                        _ => "-".into(),
                    },
                ]
            })
            .collect();
        section(
            &mut out,
            &format!(
                "Reading {} ({} bytes) the way `hashlab sum` does",
                path.display(),
                first.size
            ),
            &headers,
            &rows,
            format,
            &|_, _| false,
        )?;
    }

    if !report.projections.is_empty() {
        let headers: Vec<String> = ["algorithm", "backend", "at size", "1 core", "all cores"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let rows: Vec<Vec<String>> = report
            .projections
            .iter()
            .filter(|p| p.algorithm != NULL_ALGORITHM)
            .map(|p| {
                vec![
                    p.algorithm.clone(),
                    p.backend.clone(),
                    size_label(p.at_size),
                    p.one_core_seconds
                        .map(duration_text)
                        .unwrap_or_else(|| "-".into()),
                    match (p.all_cores_seconds, p.all_cores_threads) {
                        (Some(s), Some(t)) => format!("{} ({t} threads)", duration_text(s)),
                        _ => "not measured (use --threads all)".into(),
                    },
                ]
            })
            .collect();
        let bytes = report.projections[0].bytes;
        section(
            &mut out,
            &format!("Time to hash {bytes} bytes"),
            &headers,
            &rows,
            format,
            &|_, _| false,
        )?;
    }

    let notes: Vec<String> = report
        .warnings
        .iter()
        .cloned()
        .chain(
            report
                .excluded
                .iter()
                .map(|e| format!("left out: {} / {}: {}", e.algorithm, e.backend, e.reason)),
        )
        .collect();
    if !notes.is_empty() {
        out.push_str("\nNotes:\n");
        for n in notes {
            out.push_str(&format!("- {n}\n"));
        }
    }
    Ok(out)
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
