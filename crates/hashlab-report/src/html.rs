//! The page: one HTML file with its stylesheet and charts inline, nothing
//! fetched, no script. Every chart is followed by a table with the same numbers.

use hashlab::{Class, Registry};
use hashlab_bench::clock::ClockSource;
use hashlab_bench::plan::Mode;
use hashlab_bench::report::Report;
use hashlab_bench::sizes::size_label;
use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::charts::{self, key, scaling::Kind};
use crate::data::{
    backend_groups, by_speed, chosen_size, common_size, mbps, scaling_at, spread, Index, Input,
    Pair,
};
use crate::format::{bytes, percent, shell_command, speed};
use crate::svg::{Chart, CHART_CSS};
use crate::{Options, ReportError};
pub use hashlab_table::{Cell, Table};

const PAGE_CSS: &str = include_str!("page.css");

/// A section the page does not build itself: the comparison across inputs and
/// the security/availability judgement arrive from their own crates as
/// sections of prose and tables, and the page places them after the overview.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// The section's anchor (`#id`); unique in the page.
    pub id: String,
    pub title: String,
    pub paragraphs: Vec<String>,
    pub tables: Vec<Table>,
}

fn section_markup(section: &Section) -> Markup {
    html! {
        section id=(section.id) {
            h2 { (section.title) }
            @for p in &section.paragraphs { p { (p) } }
            @for t in &section.tables { (hashlab_table::html::table(t)) }
        }
    }
}

fn figure(chart: &Chart) -> Markup {
    html! {
        figure {
            (chart.inline())
            figcaption { (chart.desc) }
        }
    }
}

/// A chart and its table, or the sentence saying why there is no chart.
fn chart_or_note(chart: Result<Chart, ReportError>, table: Option<Table>) -> Markup {
    match chart {
        Ok(chart) => html! {
            (figure(&chart))
            @if let Some(t) = table { (hashlab_table::html::table(&t)) }
        },
        Err(why) => html! { p.note { (why.to_string()) } },
    }
}

pub fn page(inputs: &[Input], options: &Options, extra: &[Section]) -> Result<String, ReportError> {
    if inputs.is_empty() {
        return Err(ReportError::new("no results to report".to_string()));
    }
    let chosen: Vec<usize> = inputs
        .iter()
        .map(|i| chosen_size(i, options.size))
        .collect::<Result<_, _>>()?;
    let several = inputs.len() > 1;
    let title = if several {
        format!(
            "hashlab report: {}",
            inputs
                .iter()
                .map(|i| i.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        format!("hashlab report: {}", inputs[0].report.environment.cpu_model)
    };
    let mut input_sections = Vec::new();
    for (k, (input, size)) in inputs.iter().zip(&chosen).enumerate() {
        input_sections.push(input_section(k, input, *size, options.registry)?);
    }
    let overview = if several {
        Some(overview(inputs, options)?)
    } else {
        None
    };
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                meta name="generator" content=(format!("hashlab {}", hashlab::VERSION));
                title { (title) }
                style { (PreEscaped(PAGE_CSS)) (PreEscaped(CHART_CSS)) }
            }
            body {
                main {
                    header {
                        h1 { (title) }
                        p.lead {
                            "Hash throughput measured by " code { "hashlab bench" } ": "
                            @if several { (inputs.len()) " inputs. " }
                            "Speeds are medians in MB/s (10" sup { "6" } " bytes per second). Every chart has a text description and is followed by a table of its numbers; hover a mark for its value."
                        }
                        nav.toc aria-label="Contents" {
                            ul {
                                @if several { li { a href="#overview" { "All inputs together" } } }
                                @for s in extra { li { a href=(format!("#{}", s.id)) { (s.title) } } }
                                @for (k, input) in inputs.iter().enumerate() {
                                    li { a href=(format!("#input-{k}")) { (input.label) ": " (input.report.environment.cpu_model) } }
                                }
                            }
                        }
                    }
                    @if let Some(o) = overview { (o) }
                    @for s in extra { (section_markup(s)) }
                    @for s in input_sections { (s) }
                    footer {
                        "Made by hashlab " (hashlab::VERSION) " (" code { "hashlab report" } "). One self-contained file: no script, nothing loaded from the network."
                    }
                }
            }
        }
    };
    Ok(page.into_string())
}

/// Several inputs: their lines overlaid, their bars side by side, and who they are.
fn overview(inputs: &[Input], options: &Options) -> Result<Markup, ReportError> {
    let size_chart = charts::size::chart("overview-size", inputs, options.registry);
    let bars = common_size(inputs, options.size).and_then(|size| {
        charts::bars::chart("overview-bars", inputs, size, options.registry).map(|c| (c, size))
    });
    let inputs_table = Table {
        when_empty: None,
        title: "The inputs".into(),
        columns: [
            "input",
            "CPU",
            "masked",
            "core clock",
            "measured",
            "command",
        ]
        .map(String::from)
        .to_vec(),
        rows: inputs
            .iter()
            .map(|i| {
                let env = &i.report.environment;
                vec![
                    Cell::text(&i.label),
                    Cell::text(&env.cpu_model),
                    Cell::text(if env.cpu_mask.is_empty() {
                        "-".to_string()
                    } else {
                        feature_labels(&env.cpu_mask).join(" ")
                    }),
                    Cell::text(clock_text(&i.report)),
                    Cell::text(&env.timestamp),
                    Cell::text(shell_command(&env.command_line)),
                ]
            })
            .collect(),
    };
    Ok(html! {
        section #overview {
            h2 { "All inputs together" }
            (hashlab_table::html::table(&inputs_table))
            h3 { "Throughput against message size" }
            (chart_or_note(size_chart, None))
            p.note { "Each input's numbers are in the table under its own size chart below." }
            @match bars {
                Ok((chart, size)) => {
                    h3 { "At " (size_label(size)) }
                    (figure(&chart))
                    (hashlab_table::html::table(&side_by_side_table(inputs, size, options.registry)))
                }
                Err(why) => { p.note { (why.to_string()) } }
            }
        }
    })
}

/// The lines of the bar chart in its order, each with the pair the input measured.
fn bar_rows<'a>(
    input: &'a Input,
    size: usize,
    registry: &Registry,
) -> Vec<(Pair, &'a hashlab_bench::results::CellResult)> {
    let ix = Index::of(&input.report);
    charts::bars::blocks(std::slice::from_ref(input), size, registry)
        .into_iter()
        .flat_map(|b| b.lines)
        .filter_map(|l| {
            let p = ix.line_pair(&l)?;
            let c = ix.cell(&p, size)?;
            Some((p, c))
        })
        .collect()
}

fn side_by_side_table(inputs: &[Input], size: usize, registry: &Registry) -> Table {
    let ixs = crate::data::indexes(inputs);
    let mut headers = vec!["algorithm".to_string()];
    for i in inputs {
        headers.push(format!("{} backend", i.label));
        headers.push(format!("{} MB/s", i.label));
    }
    Table {
        when_empty: None,
        title: format!("Median MB/s at {}, one thread", size_label(size)),
        columns: headers,
        rows: charts::bars::blocks(inputs, size, registry)
            .iter()
            .flat_map(|b| &b.lines)
            .map(|line| {
                let mut row = vec![Cell::text(&line.algorithm)];
                for (i, ix) in inputs.iter().zip(&ixs) {
                    let measured = ix
                        .line_pair(line)
                        .and_then(|p| ix.cell(&p, size).map(|c| (p, c)));
                    match measured {
                        Some((p, c)) => {
                            row.push(Cell::text(&p.backend));
                            row.push(Cell::speed(mbps(c)).keyed(key(
                                "mbps",
                                &i.label,
                                &p.algorithm,
                                &p.backend,
                                size,
                            )));
                        }
                        None => {
                            row.push(Cell::missing("-"));
                            row.push(Cell::missing("-"));
                        }
                    }
                }
                row
            })
            .collect(),
    }
}

fn input_section(
    k: usize,
    input: &Input,
    size: usize,
    registry: &Registry,
) -> Result<Markup, ReportError> {
    let report = &input.report;
    let id = |part: &str| format!("input-{k}-{part}");
    let one = std::slice::from_ref(input);
    let order = by_speed(&Index::of(report), size);
    let scaling_rows = scaling_at(report, size, &order);
    Ok(html! {
        section id=(format!("input-{k}")) {
            h2 { (input.label) ": " (report.environment.cpu_model)
                @if !report.environment.cpu_mask.is_empty() { " as if without " (feature_labels(&report.environment.cpu_mask).join(", ")) } }
            (at_a_glance(input, size, registry))
            h3 { "The machine" }
            (machine(report))
            h3 { "Throughput against message size" }
            (chart_or_note(charts::size::chart(&id("size"), one, registry), Some(size_table(input, registry))))
            h3 { "At " (size_label(size)) }
            (chart_or_note(charts::bars::chart(&id("bars"), one, size, registry), Some(bars_table(input, size, registry))))
            h3 { "Spread of the samples at " (size_label(size)) }
            p.note { "A median hides how the rounds varied; here is every sample. A wide box means a noisy measurement: rerun on a quieter machine before trusting a small difference." }
            (chart_or_note(charts::boxes::chart(&id("box"), input, size), Some(box_table(input, size, &order))))
            h3 { "Backends side by side at " (size_label(size)) }
            (chart_or_note(charts::backends::chart(&id("backends"), input, size), Some(backends_table(input, size))))
            @if !report.runtimes.is_empty() {
                h3 { "Runtimes" }
                p.note { "Rows named after a runtime (go, python, node, java, c) were measured by that runtime's own harness and library, in the same rounds as hashlab's backends, after their digests matched hashlab's." }
                ul.runtimes { @for line in hashlab_bench::tables::runtime_lines(report) { li { (line) } } }
            }
            h3 { "Thread scaling at " (size_label(size)) }
            (chart_or_note(charts::scaling::chart(&id("scaling"), input, size, &scaling_rows), Some(scaling_table(input, size, &scaling_rows))))
            h3 { "Cycles per byte" }
            (cycles_table(input, registry))
            @if let Some(t) = hashlab_bench::tables::short_keys(report) { (hashlab_table::html::table(&t)) }
            @if let Some(t) = hashlab_bench::tables::hash_table(report) { (hashlab_table::html::table(&t)) }
            (notes(report))
            h3 { "Command and version" }
            pre.command { code { (shell_command(&report.environment.command_line)) } }
            p.note {
                (report.tool) " " (report.version)
                @if let Some(c) = &report.environment.git_commit { " (git " (c) ")" }
                @if let Some(r) = &report.environment.rustc { ", built by " (r) }
                ", " (report.environment.target) "; results schema " (report.schema_version) "; measured " (report.environment.timestamp) "."
            }
        }
    })
}

fn feature_labels(features: &[String]) -> Vec<String> {
    features
        .iter()
        .map(|f| hashlab::cpu::label(f).unwrap_or(f).to_string())
        .collect()
}

fn clock_text(report: &Report) -> String {
    let clock = &report.environment.clock;
    match clock.source {
        ClockSource::DependentAddChain if clock.hz > 0.0 => format!(
            "{:.2} GHz measured (spread {})",
            clock.hz / 1e9,
            percent(clock.spread)
        ),
        _ => "not measured".to_string(),
    }
}

fn at_a_glance(input: &Input, size: usize, registry: &Registry) -> Markup {
    let report = &input.report;
    let ix = Index::of(report);
    let ranked: Vec<(Pair, f64)> = by_speed(&ix, size)
        .into_iter()
        .filter_map(|p| {
            let v = mbps(ix.cell(&p, size)?);
            Some((p, v))
        })
        .collect();
    let class_of = |p: &Pair| registry.algorithm(&p.algorithm).ok().map(|a| a.class);
    let fastest_crypto = ranked
        .iter()
        .find(|(p, _)| class_of(p) == Some(Class::Cryptographic));
    let sha256 = ranked
        .iter()
        .find(|(p, _)| p.algorithm == hashlab_bench::selection::DEFAULT_BASELINE);
    let sha_ni = if report.environment.cpu_mask.iter().any(|m| m == "sha") {
        "SHA-NI masked"
    } else if report.environment.cpu_features.iter().any(|f| f == "sha") {
        "this CPU has SHA-NI"
    } else {
        "no SHA-NI on this CPU"
    };
    html! {
        ul.glance {
            @if let Some((p, v)) = ranked.first() {
                li { "Fastest at " (size_label(size)) ": " strong { (p.full_name()) } ", " (speed(*v)) " MB/s." }
            }
            @if let Some((p, v)) = fastest_crypto {
                li { "Fastest cryptographic hash: " strong { (p.full_name()) } ", " (speed(*v)) " MB/s." }
            }
            @if let Some((p, v)) = sha256 {
                li { (p.full_name()) ": " (speed(*v)) " MB/s (" (sha_ni) ")." }
            }
            @if let Some((p, v)) = ranked.last() {
                li { "Slowest: " (p.full_name()) ", " (speed(*v)) " MB/s." }
            }
        }
    }
}

fn machine(report: &Report) -> Markup {
    let env = &report.environment;
    let caches: Vec<String> = [
        ("L1d", env.caches.l1d),
        ("L1i", env.caches.l1i),
        ("L2", env.caches.l2),
        ("L3", env.caches.l3),
    ]
    .iter()
    .filter_map(|(name, size)| size.map(|s| format!("{name} {}", bytes(s))))
    .collect();
    let masked = |f: &str| env.cpu_mask.iter().any(|m| m.eq_ignore_ascii_case(f));
    html! {
        dl.facts {
            dt { "CPU" } dd { (env.cpu_model) " (" (env.cpu_vendor) ")" }
            dt { "Cores" } dd {
                @if let Some(c) = env.physical_cores { (c) " physical cores, " }
                (env.logical_threads) " logical CPUs, " (env.usable_threads) " usable by the run"
            }
            dt { "Caches" } dd { @if caches.is_empty() { "not reported" } @else { (caches.join(", ")) } }
            dt { "Features" } dd {
                @for f in &env.cpu_features {
                    @let label = hashlab::cpu::label(f).unwrap_or(f);
                    @if masked(f) {
                        span.feature.masked title="masked for this run (--mask-cpu)" { (label) } " "
                    } @else {
                        span.feature { (label) } " "
                    }
                }
            }
            @if !env.cpu_mask.is_empty() {
                dt { "Mask" } dd { "measured as if the CPU lacked " (feature_labels(&env.cpu_mask).join(", ")) " (" code { "--mask-cpu " (env.cpu_mask.join(",")) } ")" }
            }
            dt { "Core clock" } dd {
                (clock_text(report))
                @if let Some(after) = report.clock_after.as_ref().filter(|c| c.hz > 0.0) { "; " (format!("{:.2}", after.hz / 1e9)) " GHz after the run" }
                @if let Some(mhz) = env.cpuinfo_mhz { "; /proc/cpuinfo says " (format!("{mhz:.0}")) " MHz (a nominal figure)" }
            }
            dt { "Governor" } dd { (env.governor.as_deref().unwrap_or("none (no cpufreq)")) }
            dt { "System" } dd { (env.os) @if let Some(k) = &env.kernel { " " (k) } ", " (env.target) }
            dt { "Run" } dd {
                (report.run.rounds) " rounds in " (format!("{:.1}", report.run.elapsed_seconds)) " s; sizes "
                (report.settings.sizes.iter().map(|s| size_label(*s)).collect::<Vec<_>>().join(", "))
                "; threads " (report.settings.threads.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "))
                @if report.run.partial { strong { "; interrupted: results are partial" } }
            }
        }
    }
}

/// MB/s for every line and size, in the size chart's order.
fn size_table(input: &Input, registry: &Registry) -> Table {
    let ix = Index::of(&input.report);
    let sizes = ix.sizes();
    let mut headers = vec!["algorithm".to_string(), "backend".to_string()];
    headers.extend(sizes.iter().map(|s| size_label(*s)));
    let mut rows = Vec::new();
    for panel in charts::size::panels(std::slice::from_ref(input), registry) {
        for line in panel.pairs {
            let Some(p) = ix.line_pair(&line) else {
                continue;
            };
            let mut row = vec![Cell::text(&p.algorithm), Cell::text(&p.backend)];
            for &s in sizes {
                row.push(match ix.cell(&p, s) {
                    Some(c) => Cell::speed(mbps(c)).keyed(key(
                        "mbps",
                        &input.label,
                        &p.algorithm,
                        &p.backend,
                        s,
                    )),
                    None => Cell::missing("-"),
                });
            }
            rows.push(row);
        }
    }
    Table {
        when_empty: None,
        title: "Median MB/s, one thread, by message size".into(),
        columns: headers,
        rows,
    }
}

fn bars_table(input: &Input, size: usize, registry: &Registry) -> Table {
    Table {
        when_empty: None,
        title: format!("At {}, one thread, fastest first", size_label(size)),
        columns: [
            "algorithm",
            "backend",
            "MB/s",
            "slow quartile MB/s",
            "fast quartile MB/s",
            "MiB/s",
            "ns per message",
        ]
        .map(String::from)
        .to_vec(),
        rows: bar_rows(input, size, registry)
            .into_iter()
            .filter_map(|(p, c)| {
                let t = c.throughput.as_ref()?;
                let (slow, fast) = c
                    .mb_per_s_iqr
                    .map_or((Cell::missing("-"), Cell::missing("-")), |(s, f)| {
                        (Cell::speed(s), Cell::speed(f))
                    });
                Some(vec![
                    Cell::text(&p.algorithm),
                    Cell::text(&p.backend),
                    Cell::speed(t.mb_per_s).keyed(key(
                        "mbps",
                        &input.label,
                        &p.algorithm,
                        &p.backend,
                        size,
                    )),
                    slow,
                    fast,
                    Cell::speed(t.mib_per_s),
                    Cell::number(speed(t.ns_per_message), t.ns_per_message),
                ])
            })
            .collect(),
    }
}

fn box_table(input: &Input, size: usize, order: &[Pair]) -> Table {
    let ix = Index::of(&input.report);
    Table {
        when_empty: None,
        title: format!(
            "Samples at {} in MB/s: quartiles, median, and the slowest and fastest kept by the outlier rule",
            size_label(size)
        ),
        columns: [
            "algorithm",
            "backend",
            "samples",
            "rejected",
            "slowest",
            "slow quartile",
            "median",
            "fast quartile",
            "fastest",
            "spread (IQR / median)",
        ]
        .map(String::from)
        .to_vec(),
        rows: order
            .iter()
            .filter_map(|p| {
                let s = spread(ix.cell(p, size)?)?;
                Some(vec![
                    Cell::text(&p.algorithm),
                    Cell::text(&p.backend),
                    Cell::number(s.kept.to_string(), s.kept as f64),
                    Cell::number(s.outliers.to_string(), s.outliers as f64),
                    Cell::speed(s.slowest),
                    Cell::speed(s.low_quartile),
                    Cell::speed(s.median).keyed(key(
                        "median",
                        &input.label,
                        &p.algorithm,
                        &p.backend,
                        size,
                    )),
                    Cell::speed(s.high_quartile),
                    Cell::speed(s.fastest),
                    {
                        let rel = (s.high_quartile - s.low_quartile) / s.median;
                        Cell::number(percent(rel), rel)
                    },
                ])
            })
            .collect(),
    }
}

fn backends_table(input: &Input, size: usize) -> Table {
    let groups = backend_groups(&Index::of(&input.report), size);
    Table {
        when_empty: None,
        title: format!(
            "Backends of one algorithm at {}, one thread",
            size_label(size)
        ),
        columns: ["algorithm", "backend", "MB/s", "share of the fastest"]
            .map(String::from)
            .to_vec(),
        rows: groups
            .iter()
            .flat_map(|(_, members)| {
                let fastest = members[0].1;
                members.iter().map(move |(p, v)| {
                    vec![
                        Cell::text(&p.algorithm),
                        Cell::text(&p.backend),
                        Cell::speed(*v).keyed(key(
                            "mbps",
                            &input.label,
                            &p.algorithm,
                            &p.backend,
                            size,
                        )),
                        Cell::number(percent(v / fastest), v / fastest),
                    ]
                })
            })
            .collect(),
    }
}

fn scaling_table(input: &Input, size: usize, rows: &[&hashlab_bench::results::Scaling]) -> Table {
    let mb = |v: Option<f64>| v.map_or(Cell::missing("n/a"), Cell::speed);
    let efficiency = |s: &hashlab_bench::results::Scaling, kind: Kind| match kind.of(s) {
        Some((_, e)) => Cell::number(percent(e), e).keyed(key(
            &format!("efficiency-{}-{}", kind.name(), s.threads),
            &input.label,
            &s.algorithm,
            &s.backend,
            size,
        )),
        None => Cell::missing("n/a"),
    };
    Table {
        when_empty: None,
        title: format!(
            "Thread scaling at {}: efficiency = MB/s with N threads / (N × MB/s with one); one-stream n/a = the backend has no parallel mode",
            size_label(size)
        ),
        columns: [
            "algorithm",
            "backend",
            "threads",
            "1 thread MB/s",
            "streams MB/s",
            "streams efficiency",
            "one-stream MB/s",
            "one-stream efficiency",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|s| {
                vec![
                    Cell::text(&s.algorithm),
                    Cell::text(&s.backend),
                    Cell::number(s.threads.to_string(), s.threads as f64),
                    mb(s.single_mb_per_s),
                    mb(s.streams_mb_per_s),
                    efficiency(s, Kind::Streams),
                    mb(s.one_stream_mb_per_s),
                    efficiency(s, Kind::OneStream),
                ]
            })
            .collect(),
    }
}

fn cycles_table(input: &Input, registry: &Registry) -> Markup {
    let report = &input.report;
    let Some(hz) = report.run.clock_hz else {
        return html! { p.note { "Not available: the core clock was not measured in this run, so cycles per byte cannot be derived." } };
    };
    let ix = Index::of(report);
    let sizes = ix.sizes();
    let mut headers = vec!["algorithm".to_string(), "backend".to_string()];
    headers.extend(sizes.iter().map(|s| size_label(*s)));
    let mut rows = Vec::new();
    for panel in charts::size::panels(std::slice::from_ref(input), registry) {
        for line in panel.pairs {
            if let Some(p) = ix.line_pair(&line) {
                let mut row = vec![Cell::text(&p.algorithm), Cell::text(&p.backend)];
                for &s in sizes {
                    let cpb = ix
                        .cell(&p, s)
                        .and_then(|c| c.throughput.as_ref())
                        .and_then(|t| t.cycles_per_byte);
                    row.push(cpb.map_or(Cell::missing("-"), |v| Cell::number(speed(v), v)));
                }
                rows.push(row);
            }
        }
    }
    let table = Table {
        when_empty: None,
        title: format!(
            "Core cycles per byte, one thread, at the measured {:.2} GHz (lower is faster)",
            hz / 1e9
        ),
        columns: headers,
        rows,
    };
    hashlab_table::html::table(&table)
}

fn notes(report: &Report) -> Markup {
    let latency = report.cells.iter().any(|c| c.mode == Mode::Latency);
    html! {
        @if !report.warnings.is_empty() || !report.excluded.is_empty() || latency {
            h3 { "Notes from the run" }
            ul.warnings {
                @for w in &report.warnings { li { (w) } }
                @for e in &report.excluded { li { "Left out: " (e.algorithm) " / " (e.backend) ": " (e.reason) } }
                @if latency { li { "Latency cells (--latency) are in the JSON; this page shows throughput." } }
            }
        }
    }
}
