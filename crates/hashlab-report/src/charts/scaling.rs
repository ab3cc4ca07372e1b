//! Thread scaling at one size: for each (algorithm, backend), the efficiency of
//! N threads (MB/s at N over N × MB/s at one) hashing separate messages
//! ("streams") and one message together ("one-stream", where the backend has
//! a parallel mode), against the 100 % of perfect scaling.

use hashlab_bench::results::Scaling;
use hashlab_bench::sizes::size_label;
use maud::html;

use crate::data::{backends_vary, Input, Pair};
use crate::format::{exact, percent, px, speed, text_width};
use crate::svg::{colour_class, linear_ticks, x_axis, Chart, Scale, FONT, SMALL_FONT};
use crate::ReportError;

const PLOT_W: f64 = 440.0;
const BAR_H: f64 = 12.0;
const BAR_GAP: f64 = 2.0;
const ROW_GAP: f64 = 8.0;

/// Streams or one-stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Streams,
    OneStream,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Streams => "streams",
            Kind::OneStream => "one-stream",
        }
    }

    fn describe(self, threads: usize) -> String {
        match self {
            Kind::Streams => format!("{threads} threads, a message each (streams)"),
            Kind::OneStream => format!(
                "{threads} threads on one message (one-stream; backends with a parallel mode)"
            ),
        }
    }

    /// (MB/s, efficiency) of a row, if measured.
    pub fn of(self, row: &Scaling) -> Option<(f64, f64)> {
        match self {
            Kind::Streams => row.streams_mb_per_s.zip(row.streams_efficiency),
            Kind::OneStream => row.one_stream_mb_per_s.zip(row.one_stream_efficiency),
        }
    }
}

pub fn chart(
    id: &str,
    input: &Input,
    size: usize,
    rows: &[&Scaling],
) -> Result<Chart, ReportError> {
    if rows.is_empty() {
        return Err(ReportError::new(format!(
            "{}: measured with one thread only, so there is no scaling to chart (hashlab bench --threads 1,all measures it)",
            input.label
        )));
    }
    let mut keys: Vec<(usize, Kind)> = Vec::new();
    for r in rows {
        for kind in [Kind::Streams, Kind::OneStream] {
            if kind.of(r).is_some() && !keys.contains(&(r.threads, kind)) {
                keys.push((r.threads, kind));
            }
        }
    }
    keys.sort_by_key(|(t, k)| (*t, *k == Kind::OneStream));
    let mut pairs: Vec<Pair> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in rows {
        if seen.insert((r.algorithm.as_str(), r.backend.as_str())) {
            pairs.push(Pair {
                algorithm: r.algorithm.clone(),
                backend: r.backend.clone(),
            });
        }
    }
    let with_backend = backends_vary(&pairs);
    let label_w = pairs
        .iter()
        .map(|p| text_width(&p.label(with_backend), FONT))
        .fold(0.0, f64::max)
        + 14.0;
    let left = 8.0 + label_w;
    let legend_h = keys.len() as f64 * 18.0 + 6.0;
    let top = legend_h + 26.0;
    // Each pair gets a bar for each measured (threads, kind) and no empty slot:
    // most backends have no one-stream mode, and the table says "n/a" for them.
    type Bar<'r> = (usize, usize, Kind, &'r Scaling, f64, f64);
    let mut layout: Vec<(f64, Vec<Bar>)> = Vec::new();
    let mut y = top + ROW_GAP;
    for pair in &pairs {
        let bars: Vec<Bar> = keys
            .iter()
            .enumerate()
            .filter_map(|(k, (threads, kind))| {
                let row = rows.iter().find(|s| {
                    s.algorithm == pair.algorithm
                        && s.backend == pair.backend
                        && s.threads == *threads
                })?;
                let (mb, efficiency) = kind.of(row)?;
                Some((k, *threads, *kind, *row, mb, efficiency))
            })
            .collect();
        let height = bars.len().max(1) as f64 * (BAR_H + BAR_GAP) - BAR_GAP;
        layout.push((y, bars));
        y += height + ROW_GAP;
    }
    let plot_h = y - top;
    let max_efficiency = rows
        .iter()
        .flat_map(|r| [Kind::Streams, Kind::OneStream].map(|k| k.of(r).map(|(_, e)| e)))
        .flatten()
        .fold(1.0, f64::max);
    let (upper, ticks) = linear_ticks(max_efficiency, 6);
    let x = Scale::linear(0.0, upper, left, left + PLOT_W);
    let x_ticks: Vec<(f64, String)> = ticks.iter().map(|t| (*t, percent(*t))).collect();
    let body = html! {
        g.legend {
            @for (k, (threads, kind)) in keys.iter().enumerate() {
                @let ly = 6.0 + k as f64 * 18.0;
                g class=(colour_class(k)) {
                    rect x=(px(left)) y=(px(ly)) width="12" height="12" fill="currentColor" {}
                    text.fg x=(px(left + 18.0)) y=(px(ly + 10.0)) font-size=(FONT) fill="currentColor" { (kind.describe(*threads)) }
                }
            }
        }
        (x_axis(&x, &x_ticks, top, top + plot_h, true))
        g.ref {
            line x1=(px(x.map(1.0))) x2=(px(x.map(1.0))) y1=(px(top)) y2=(px(top + plot_h)) stroke="currentColor" stroke-width="1.2" stroke-dasharray="5 3" {
                title { "100 %: N threads give N times the one-thread throughput" }
            }
        }
        g.muted {
            line x1=(px(left)) x2=(px(left)) y1=(px(top)) y2=(px(top + plot_h)) stroke="currentColor" {}
            text x=(px(left + PLOT_W / 2.0)) y=(px(top + plot_h + 36.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" {
                "efficiency at " (size_label(size)) ": MB/s with N threads / (N × MB/s with one)"
            }
        }
        @for (pair, (row_top, bars)) in pairs.iter().zip(&layout) {
            @let row_h = bars.len().max(1) as f64 * (BAR_H + BAR_GAP) - BAR_GAP;
            text.fg x=(px(left - 8.0)) y=(px(row_top + row_h / 2.0 + 4.0)) text-anchor="end" font-size=(FONT) fill="currentColor" { (pair.label(with_backend)) }
            @if bars.is_empty() {
                text.muted x=(px(left + 5.0)) y=(px(row_top + BAR_H - 1.5)) font-size=(SMALL_FONT) fill="currentColor" { "not measured" }
            }
            @for (slot, (k, threads, kind, s, mb, efficiency)) in bars.iter().enumerate() {
                @let y = row_top + slot as f64 * (BAR_H + BAR_GAP);
                g class=(colour_class(*k)) {
                    rect.bar x=(px(left)) y=(px(y)) width=(px((x.map(*efficiency) - left).max(0.5))) height=(px(BAR_H)) fill="currentColor"
                        data-algorithm=(pair.algorithm) data-backend=(pair.backend) data-size=(size)
                        data-threads=(threads) data-mode=(kind.name()) data-mbps=(exact(*mb))
                        data-key=(super::key(&format!("efficiency-{}-{threads}", kind.name()), &input.label, &pair.algorithm, &pair.backend, size)) data-value=(exact(*efficiency))
                        data-single-mbps=[s.single_mb_per_s.map(exact)] {
                        title {
                            (pair.full_name()) ", " (kind.describe(*threads)) ": " (speed(*mb)) " MB/s, "
                            (percent(*efficiency)) " of " (threads) " × " (s.single_mb_per_s.map(speed).unwrap_or_default()) " MB/s"
                        }
                    }
                }
                // Values in a column right of the plot, clear of the bars and the 100 % line.
                text.fg x=(px(left + PLOT_W + 10.0)) y=(px(y + BAR_H - 1.0)) font-size=(SMALL_FONT) fill="currentColor" {
                    tspan class=(colour_class(*k)) fill="currentColor" { "■ " }
                    (percent(*efficiency)) " · " (speed(*mb)) " MB/s"
                }
            }
        }
    };
    let best = rows
        .iter()
        .filter_map(|r| Kind::Streams.of(r).map(|(_, e)| (r, e)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let worst = rows
        .iter()
        .filter_map(|r| Kind::Streams.of(r).map(|(_, e)| (r, e)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let mut desc = format!(
        "Horizontal bars of thread-scaling efficiency (linear, 100 % = perfect) at {} in {} for {} algorithm/backend pairs: {}. A dashed line marks 100 %.",
        size_label(size),
        input.label,
        pairs.len(),
        keys.iter()
            .map(|(t, k)| k.describe(*t))
            .collect::<Vec<_>>()
            .join("; ")
    );
    if let (Some(b), Some(w)) = (best, worst) {
        desc.push_str(&format!(
            " Separate streams scale best for {} ({}) and worst for {} ({}).",
            b.0.algorithm,
            percent(b.1),
            w.0.algorithm,
            percent(w.1)
        ));
    }
    Ok(Chart {
        id: id.to_string(),
        width: left + PLOT_W + 175.0,
        height: top + plot_h + 46.0,
        title: format!("Thread scaling at {}: {}", size_label(size), input.label),
        desc,
        body,
    })
}
