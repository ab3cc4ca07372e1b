//! A bench report as tables: the one layout the terminal, Markdown and CSV
//! print (through `hashlab_table`'s exporters). The HTML report draws its own
//! charts from the same `Report` and its tables from the same model.

use std::path::Path;

use hashlab_table::{format, Cell, Document, Table};

use crate::plan::{Mode, NULL_ALGORITHM, NULL_BACKEND};
use crate::report::Report;
use crate::results::{speedup, CellResult, Throughput};
use crate::sizes::size_label;

/// The quantity a throughput table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// 10^6 bytes per second.
    Mbps,
    /// 2^20 bytes per second.
    Mibps,
    /// Core cycles per byte.
    Cpb,
    /// Nanoseconds per message.
    Ns,
}

impl Unit {
    pub const ALL: [Unit; 4] = [Unit::Mbps, Unit::Mibps, Unit::Cpb, Unit::Ns];

    fn title(self) -> &'static str {
        match self {
            Unit::Mbps => "MB/s (10^6 bytes per second)",
            Unit::Mibps => "MiB/s",
            Unit::Cpb => "cycles per byte",
            Unit::Ns => "ns per message",
        }
    }

    fn of(self, cell: &CellResult) -> Option<f64> {
        let t = cell.throughput.as_ref()?;
        match self {
            Unit::Mbps => Some(t.mb_per_s),
            Unit::Mibps => Some(t.mib_per_s),
            Unit::Cpb => t.cycles_per_byte,
            Unit::Ns => Some(t.ns_per_message),
        }
    }

    fn lower_is_better(self) -> bool {
        matches!(self, Unit::Cpb | Unit::Ns)
    }
}

/// What the tables show besides the report itself.
#[derive(Debug, Clone)]
pub struct View<'a> {
    pub units: Vec<Unit>,
    /// The canonical name speed-ups are relative to.
    pub baseline: &'a str,
    /// The file `--file` read, for the reading table's title.
    pub file: Option<&'a Path>,
}

/// The mode as the flat table and `compare` name it.
pub fn mode_name(mode: &Mode) -> &'static str {
    match mode {
        Mode::Streams { .. } => "streams",
        Mode::OneStream { .. } => "one-stream",
        Mode::Latency => "latency",
        Mode::File { cold: false } => "file",
        Mode::File { cold: true } => "file-cold",
        Mode::Keys { chained: false } => "keys",
        Mode::Keys { chained: true } => "keys-chained",
        Mode::Table { .. } => "table",
    }
}

/// Every measured cell with its raw numbers, one line each (CSV).
pub fn cells_table(report: &Report) -> Table {
    let mut table = Table::new(
        "",
        &[
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
        ],
    );
    let opt =
        |x: Option<f64>| x.map_or_else(|| Cell::text(""), |v| Cell::number(format::exact(v), v));
    table.rows = report
        .cells
        .iter()
        .map(|c| {
            let s = c.summary.as_ref();
            let t = c.throughput.as_ref();
            vec![
                Cell::text(&c.algorithm),
                Cell::text(&c.backend),
                Cell::count(c.size),
                Cell::text(mode_name(&c.mode)),
                Cell::count(c.mode.threads()),
                Cell::number(c.batch.to_string(), c.batch as f64),
                Cell::count(c.samples.len()),
                s.map_or_else(|| Cell::text(""), |s| Cell::count(s.outliers)),
                opt(s.map(|s| s.median)),
                opt(s.map(|s| s.q1)),
                opt(s.map(|s| s.q3)),
                opt(t.map(|t| t.mb_per_s)),
                opt(t.map(|t| t.mib_per_s)),
                opt(t.and_then(|t| t.cycles_per_byte)),
                opt(t.map(|t| t.ns_per_message)),
            ]
        })
        .collect();
    table
}

fn missing() -> Cell {
    Cell::missing("-")
}

/// The report as a person reads it: the machine, one throughput table per
/// unit, thread scaling, latency, the file read, projections and the notes.
pub fn document(report: &Report, view: &View) -> Document {
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
    let mut doc = Document {
        preamble: vec![
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
        ],
        flat: Some(cells_table(report)),
        ..Document::default()
    };
    if !report.settings.mask.is_empty() {
        doc.preamble.push(format!(
            "CPU mask: measured as if without {}",
            report.settings.mask.join(", ")
        ));
    }
    let sizes = &report.settings.sizes;
    let singles: Vec<&CellResult> = report
        .cells
        .iter()
        .filter(|c| c.mode == Mode::Streams { threads: 1 })
        .collect();
    // hashlab's null hasher, then each runtime's: the cost of the loop
    // that calls a hash, per message, which every row of that runner pays.
    let mut nulls: Vec<(&str, &str)> = Vec::new();
    for c in &singles {
        if c.algorithm == NULL_ALGORITHM && !nulls.contains(&(NULL_ALGORITHM, c.backend.as_str())) {
            nulls.push((NULL_ALGORITHM, c.backend.as_str()));
        }
    }
    nulls.sort_by_key(|(_, backend)| *backend != NULL_BACKEND);
    for (_, backend) in &nulls {
        if let Some(t) = singles
            .iter()
            .find(|c| c.algorithm == NULL_ALGORITHM && c.backend == *backend && c.size == sizes[0])
            .and_then(|null| null.throughput.as_ref())
        {
            let whose = if *backend == NULL_BACKEND {
                "harness overhead (null hasher)".to_string()
            } else {
                format!("{backend} overhead (its null hasher)")
            };
            doc.preamble.push(format!(
                "{whose}: {:.1} ns per message at {}",
                t.ns_per_message,
                size_label(sizes[0])
            ));
        }
    }
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for c in &singles {
        let p = (c.algorithm.as_str(), c.backend.as_str());
        if !pairs.contains(&p) && c.algorithm != NULL_ALGORITHM {
            pairs.push(p);
        }
    }
    fn find<'a>(
        cells: &[&'a CellResult],
        alg: &str,
        backend: &str,
        size: usize,
    ) -> Option<&'a CellResult> {
        cells
            .iter()
            .find(|c| c.algorithm == alg && c.backend == backend && c.size == size)
            .copied()
    }
    let largest = *sizes.iter().max().expect("at least one size");
    for &unit in &view.units {
        if unit == Unit::Cpb && report.run.clock_hz.is_none() {
            doc.push_list(
                "Cycles per byte",
                vec!["not available: the core clock was not measured".into()],
            );
            continue;
        }
        let mut columns: Vec<String> = vec!["algorithm".into(), "backend".into()];
        columns.extend(sizes.iter().map(|s| size_label(*s)));
        columns.push(format!("vs {} @ {}", view.baseline, size_label(largest)));
        let mut table = Table {
            title: format!("Throughput, {} (one thread)", unit.title()),
            columns,
            ..Table::default()
        };
        // The null hasher's row means something as time per message (the
        // harness's own cost), not as a throughput.
        let shown_nulls: &[(&str, &str)] = if unit == Unit::Ns { &nulls } else { &[] };
        for &(alg, backend) in pairs.iter().chain(shown_nulls) {
            let mut row = vec![Cell::text(alg), Cell::text(backend)];
            for &size in sizes {
                row.push(
                    match find(&singles, alg, backend, size).and_then(|c| unit.of(c)) {
                        // Shown, but never the best of its column.
                        Some(v) if alg == NULL_ALGORITHM => Cell::text(format::speed(v)),
                        Some(v) => Cell::speed(v),
                        None => missing(),
                    },
                );
            }
            let ratio = find(&singles, alg, backend, largest)
                .filter(|_| alg != NULL_ALGORITHM)
                .and_then(|c| speedup(&report.cells, c, view.baseline));
            row.push(ratio.map_or_else(missing, |s| Cell::text(format::times(s))));
            table.rows.push(row);
        }
        table.mark_best(2..2 + sizes.len(), unit.lower_is_better());
        doc.push_table(table);
    }
    scaling(report, largest, &mut doc);
    latency(report, &pairs, &mut doc);
    if let Some(table) = short_keys(report) {
        doc.push_table(table);
    }
    if let Some(table) = hash_table(report) {
        doc.push_table(table);
    }
    file_reading(report, &singles, largest, view.file, &mut doc);
    projections(report, &mut doc);
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
    if !report.runtimes.is_empty() {
        doc.push_list("Runtimes", runtime_lines(report));
    }
    doc.push_list("Notes", notes);
    doc
}

/// One line per runtime asked for: what it measured, or why nothing; then
/// each library it could not use, and why.
pub fn runtime_lines(report: &Report) -> Vec<String> {
    use crate::runtimes::{LibraryState, RuntimeState};
    let mut lines = Vec::new();
    for r in &report.runtimes {
        let state = match r.state {
            RuntimeState::Measured => "measured",
            RuntimeState::Absent => "absent",
            RuntimeState::Failed => "failed",
            RuntimeState::TimedOut => "timed out",
        };
        let version = r
            .version
            .as_deref()
            .map(|v| format!(" ({v})"))
            .unwrap_or_default();
        lines.push(format!("{}{version}: {state}: {}", r.runtime, r.detail));
        for l in &r.libraries {
            let why = match l.state {
                LibraryState::Measured | LibraryState::NotAsked => continue,
                LibraryState::Absent => "absent",
                LibraryState::WrongDigest => "wrong digest, left out",
            };
            lines.push(format!("{}: {why}: {}", l.library, l.detail));
        }
    }
    lines
}

fn scaling(report: &Report, largest: usize, doc: &mut Document) {
    let rows: Vec<_> = report
        .scaling
        .iter()
        .filter(|s| s.size == largest && s.algorithm != NULL_ALGORITHM)
        .collect();
    if rows.is_empty() {
        return;
    }
    let mut table = Table::new(
        format!(
            "Thread scaling at {} (efficiency = MB/s at N / (N x MB/s at 1); one-stream n/a = no parallel mode)",
            size_label(largest)
        ),
        &[
            "algorithm",
            "backend",
            "threads",
            "1 thread MB/s",
            "streams MB/s",
            "efficiency",
            "one-stream MB/s",
            "efficiency",
        ],
    );
    let mb = |x: Option<f64>| x.map_or_else(|| Cell::missing("n/a"), Cell::speed);
    let pct = |x: Option<f64>| x.map_or_else(|| Cell::missing("n/a"), Cell::percent);
    table.rows = rows
        .iter()
        .map(|s| {
            vec![
                Cell::text(&s.algorithm),
                Cell::text(&s.backend),
                Cell::count(s.threads),
                mb(s.single_mb_per_s),
                mb(s.streams_mb_per_s),
                pct(s.streams_efficiency),
                mb(s.one_stream_mb_per_s),
                pct(s.one_stream_efficiency),
            ]
        })
        .collect();
    doc.push_table(table);
}

/// Short keys as a hash table hashes them: per hash, independent and
/// chained, one row per (algorithm, backend) measured so (`--keys`).
pub fn short_keys(report: &Report) -> Option<Table> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for c in &report.cells {
        let pair = (c.algorithm.as_str(), c.backend.as_str());
        if matches!(c.mode, Mode::Keys { .. }) && !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    let find = |alg: &str, backend: &str, chained: bool| {
        report
            .cells
            .iter()
            .find(|c| {
                c.mode == Mode::Keys { chained } && c.algorithm == alg && c.backend == backend
            })
            .and_then(|c| c.throughput.as_ref())
    };
    let measured: Vec<(&str, &str)> = pairs
        .iter()
        .copied()
        .filter(|&(alg, backend)| find(alg, backend, false).is_some())
        .collect();
    if measured.is_empty() {
        return None;
    }
    let cycles = |t: &Throughput| {
        t.cycles_per_byte
            .map(|per_byte| per_byte * t.bytes_per_second * t.ns_per_message / 1e9)
    };
    let columns = [
        "algorithm",
        "backend",
        "ns per hash",
        "cycles per hash",
        "million hashes/s",
        "chained ns per hash",
        "chained cycles per hash",
    ]
    .map(String::from)
    .to_vec();
    let rows = measured
        .iter()
        .map(|&(alg, backend)| {
            let free = find(alg, backend, false);
            let chained = find(alg, backend, true);
            vec![
                Cell::text(alg),
                Cell::text(backend),
                free.map_or_else(missing, |t| Cell::speed(t.ns_per_message)),
                free.and_then(cycles).map_or_else(missing, Cell::speed),
                free.map_or_else(missing, |t| Cell::speed(1e3 / t.ns_per_message)),
                chained.map_or_else(missing, |t| Cell::speed(t.ns_per_message)),
                chained.and_then(cycles).map_or_else(missing, Cell::speed),
            ]
        })
        .collect();
    let mut table = Table {
        title: format!(
            "Short keys, 1 to {} bytes of random length, one hash each (chained: each hash feeds the next key)",
            crate::selection::KEYS_MAX_LEN
        ),
        columns,
        rows,
        when_empty: None,
    };
    table.mark_best(2..4, true);
    table.mark_best(4..5, false);
    table.mark_best(5..7, true);
    Some(table)
}

/// The hash-table workload (`--table`): per insert or lookup, fastest first.
pub fn hash_table(report: &Report) -> Option<Table> {
    let mut cells: Vec<(&CellResult, &Throughput)> = report
        .cells
        .iter()
        .filter(|c| matches!(c.mode, Mode::Table { .. }))
        .filter_map(|c| Some((c, c.throughput.as_ref()?)))
        .collect();
    if cells.is_empty() {
        return None;
    }
    cells.sort_by(|a, b| a.1.ns_per_message.total_cmp(&b.1.ns_per_message));
    let cycles = |t: &Throughput| {
        t.cycles_per_byte
            .map(|per_byte| per_byte * t.bytes_per_second * t.ns_per_message / 1e9)
    };
    let rows = cells
        .iter()
        .map(|&(c, t)| {
            vec![
                Cell::text(&c.algorithm),
                Cell::text(&c.backend),
                Cell::speed(t.ns_per_message),
                cycles(t).map_or_else(missing, Cell::speed),
                Cell::speed(1e3 / t.ns_per_message),
            ]
        })
        .collect();
    let words = match &report.settings.table {
        Some(w) => format!(
            "{} words of {} ({:.1} bytes on average)",
            w.words,
            w.path,
            w.bytes as f64 / w.words.max(1) as f64
        ),
        None => "a word list".to_string(),
    };
    let mut table = Table {
        title: format!(
            "Hash table: {words} inserted into an emptied table, then each looked up; one hash per operation"
        ),
        columns: [
            "algorithm",
            "backend",
            "ns per operation",
            "cycles per operation",
            "million operations/s",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        when_empty: None,
    };
    table.mark_best(2..4, true);
    table.mark_best(4..5, false);
    Some(table)
}

fn latency(report: &Report, pairs: &[(&str, &str)], doc: &mut Document) {
    let cells: Vec<&CellResult> = report
        .cells
        .iter()
        .filter(|c| c.mode == Mode::Latency)
        .collect();
    if cells.is_empty() {
        return;
    }
    let sizes: Vec<usize> = report
        .settings
        .sizes
        .iter()
        .copied()
        .filter(|s| cells.iter().any(|c| c.size == *s))
        .collect();
    let mut columns: Vec<String> = vec!["algorithm".into(), "backend".into()];
    columns.extend(sizes.iter().map(|s| size_label(*s)));
    let rows = pairs
        .iter()
        .map(|&(alg, backend)| {
            let mut row = vec![Cell::text(alg), Cell::text(backend)];
            for &size in &sizes {
                let ns = cells
                    .iter()
                    .find(|c| c.algorithm == alg && c.backend == backend && c.size == size)
                    .and_then(|c| c.throughput.as_ref())
                    .map(|t| t.ns_per_message);
                row.push(ns.map_or_else(missing, Cell::speed));
            }
            row
        })
        .collect();
    doc.push_table(Table {
        title: "Latency, ns per message (dependent chain: each digest feeds the next input)".into(),
        columns,
        rows,
        when_empty: None,
    });
}

fn file_reading(
    report: &Report,
    singles: &[&CellResult],
    largest: usize,
    path: Option<&Path>,
    doc: &mut Document,
) {
    let files: Vec<&CellResult> = report
        .cells
        .iter()
        .filter(|c| matches!(c.mode, Mode::File { .. }))
        .collect();
    let (Some(first), Some(path)) = (files.first(), path) else {
        return;
    };
    let cold = matches!(first.mode, Mode::File { cold: true });
    let mut table = Table {
        title: format!(
            "Reading {} ({} bytes) the way `hashlab sum` does",
            path.display(),
            first.size
        ),
        columns: vec![
            "algorithm".into(),
            "backend".into(),
            format!("file MB/s ({})", if cold { "cold cache" } else { "cached" }),
            format!("in memory MB/s @ {}", size_label(largest)),
            "file / memory".into(),
        ],
        ..Table::default()
    };
    table.rows = files
        .iter()
        .map(|c| {
            let file = c.throughput.as_ref().map(|t| t.mb_per_s);
            let memory = singles
                .iter()
                .find(|m| m.algorithm == c.algorithm && m.backend == c.backend && m.size == largest)
                .and_then(|m| m.throughput.as_ref())
                .map(|t| t.mb_per_s);
            vec![
                Cell::text(&c.algorithm),
                Cell::text(&c.backend),
                file.map_or_else(missing, Cell::speed),
                memory.map_or_else(missing, Cell::speed),
                match (file, memory) {
                    (Some(f), Some(m)) if m > 0.0 => Cell::number(format!("{:.2}", f / m), f / m),
                    _ => missing(),
                },
            ]
        })
        .collect();
    doc.push_table(table);
}

fn projections(report: &Report, doc: &mut Document) {
    let Some(first) = report.projections.first() else {
        return;
    };
    let mut table = Table::new(
        format!("Time to hash {} bytes", first.bytes),
        &["algorithm", "backend", "at size", "1 core", "all cores"],
    );
    table.rows = report
        .projections
        .iter()
        .filter(|p| p.algorithm != NULL_ALGORITHM)
        .map(|p| {
            vec![
                Cell::text(&p.algorithm),
                Cell::text(&p.backend),
                Cell::text(size_label(p.at_size)),
                p.one_core_seconds
                    .map_or_else(missing, |s| Cell::text(format::duration(s))),
                match (p.all_cores_seconds, p.all_cores_threads) {
                    (Some(s), Some(t)) => {
                        Cell::text(format!("{} ({t} threads)", format::duration(s)))
                    }
                    _ => Cell::text("not measured: one thread only"),
                },
            ]
        })
        .collect();
    doc.push_table(table);
}
