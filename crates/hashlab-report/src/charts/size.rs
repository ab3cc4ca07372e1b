//! Throughput against message size: one line per (algorithm, backend) and
//! input, in panels by family so that no panel holds more lines than a reader
//! can tell apart.

use std::collections::HashMap;

use hashlab::Registry;
use hashlab_bench::sizes::size_label;
use maud::{html, Markup};

use crate::data::{indexes, lines, lines_are_algorithms, mbps, panel_of, Index, Input, Pair};
use crate::format::{exact, px, speed, text_width};
use crate::svg::{
    colour_class, dash, log_ticks, marker_path, nice_ceil, nice_floor, tick_text, x_axis, y_axis,
    Chart, Scale, FONT, SMALL_FONT,
};
use crate::ReportError;

/// More lines than this in a panel are split over several panels.
const MAX_LINES: usize = 9;
const PLOT_W: f64 = 300.0;
const PLOT_H: f64 = 210.0;
const MARGIN_LEFT: f64 = 62.0;
const MARGIN_TOP: f64 = 30.0;
const MARGIN_BOTTOM: f64 = 48.0;
const LEGEND_ROW: f64 = 18.0;
const INPUT_ROW: f64 = 20.0;

/// The lines of one panel. A line is an algorithm (`backend` empty) when every
/// input measured one backend per algorithm, so that the inputs' lines of one
/// algorithm share a colour even where their default backends differ (a
/// masked sha256 runs another backend); else each (algorithm, backend) is a line.
pub struct Panel {
    pub title: String,
    pub pairs: Vec<Pair>,
}

/// Panels for every line in the inputs, in a fixed order of families.
pub fn panels(inputs: &[Input], registry: &Registry) -> Vec<Panel> {
    let mut grouped: Vec<(u8, &'static str, Vec<Pair>)> = Vec::new();
    for line in lines(&indexes(inputs)) {
        let (order, title) = panel_of(registry, &line.algorithm);
        match grouped.iter_mut().find(|(o, _, _)| *o == order) {
            Some((_, _, members)) => members.push(line),
            None => grouped.push((order, title, vec![line])),
        }
    }
    grouped.sort_by_key(|(order, _, _)| *order);
    let mut panels = Vec::new();
    for (_, title, members) in grouped {
        let parts = members.len().div_ceil(MAX_LINES);
        let per_part = members.len().div_ceil(parts);
        for (i, chunk) in members.chunks(per_part).enumerate() {
            panels.push(Panel {
                title: if parts > 1 {
                    format!("{title} ({} of {parts})", i + 1)
                } else {
                    title.to_string()
                },
                pairs: chunk.to_vec(),
            });
        }
    }
    panels
}

pub fn chart(id: &str, inputs: &[Input], registry: &Registry) -> Result<Chart, ReportError> {
    let panels = panels(inputs, registry);
    let ixs = indexes(inputs);
    // Each backend's place in the chart's order of backends.
    let mut backends: HashMap<&str, usize> = HashMap::new();
    for p in panels.iter().flat_map(|p| &p.pairs) {
        let next = backends.len();
        backends.entry(&p.backend).or_insert(next);
    }
    let all_pairs: Vec<&Pair> = panels.iter().flat_map(|p| &p.pairs).collect();
    let with_backend = !lines_are_algorithms(&ixs);
    let values: Vec<f64> = inputs
        .iter()
        .flat_map(|i| crate::data::single_thread(&i.report).map(mbps))
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    if values.is_empty() {
        return Err(ReportError::new(
            "no single-thread throughput to chart".to_string(),
        ));
    }
    let lo = nice_floor(values.iter().copied().fold(f64::INFINITY, f64::min));
    let hi = nice_ceil(values.iter().copied().fold(0.0, f64::max));
    let mut all_sizes: Vec<usize> = ixs.iter().flat_map(|i| i.sizes().to_vec()).collect();
    all_sizes.sort_unstable();
    all_sizes.dedup();
    let (smallest, largest) = (all_sizes[0] as f64, all_sizes[all_sizes.len() - 1] as f64);

    let legend_w = all_pairs
        .iter()
        .map(|p| text_width(&p.label(with_backend), FONT))
        .fold(0.0, f64::max)
        + 34.0;
    let panel_w = MARGIN_LEFT + PLOT_W + 18.0 + legend_w + 12.0;
    let max_rows = panels.iter().map(|p| p.pairs.len()).max().unwrap_or(0);
    let panel_h = MARGIN_TOP + PLOT_H.max(max_rows as f64 * LEGEND_ROW + 4.0) + MARGIN_BOTTOM;
    let columns = if panels.len() > 1 { 2 } else { 1 };
    let rows = panels.len().div_ceil(columns);
    let top = if inputs.len() > 1 {
        inputs.len() as f64 * INPUT_ROW + 12.0
    } else {
        0.0
    };
    let width = columns as f64 * panel_w + 8.0;
    let height = top + rows as f64 * panel_h + 4.0;

    let y = Scale::log(lo, hi, MARGIN_TOP + PLOT_H, MARGIN_TOP);
    // Half a step of padding either side, so end markers clear the frame.
    let x = Scale::log(
        smallest / 1.5,
        largest * 1.5,
        MARGIN_LEFT,
        MARGIN_LEFT + PLOT_W,
    );
    let y_ticks = log_ticks(lo, hi);
    let x_ticks: Vec<(f64, String)> = all_sizes
        .iter()
        .map(|s| (*s as f64, size_label(*s)))
        .collect();

    let body = html! {
        @if inputs.len() > 1 {
            g.legend.inputs.fg {
                @for (i, input) in inputs.iter().enumerate() {
                    @let ly = 14.0 + i as f64 * INPUT_ROW;
                    g data-input=(input.label) {
                        line x1="12" x2="52" y1=(px(ly)) y2=(px(ly)) stroke="currentColor" stroke-width="2"
                            stroke-dasharray=[(!dash(i).is_empty()).then_some(dash(i))] {}
                        path transform=(format!("translate(32 {})", px(ly))) d=(marker_path(0, 3.5))
                            fill=(if i == 0 { "currentColor" } else { "none" }) stroke="currentColor" stroke-width="1.5" {}
                        text x="60" y=(px(ly + 4.0)) font-size=(FONT) fill="currentColor" {
                            (input.label) ": " (machine_line(input))
                        }
                    }
                }
            }
        }
        @for (k, panel) in panels.iter().enumerate() {
            @let (col, row) = (k % columns, k / columns);
            g.panel transform=(format!("translate({} {})", px(col as f64 * panel_w), px(top + row as f64 * panel_h)))
                data-panel=(panel.title) {
                text.fg x=(px(MARGIN_LEFT)) y="18" font-size=(FONT + 1.0) font-weight="600" fill="currentColor" { (panel.title) }
                (y_axis(&y, &y_ticks, MARGIN_LEFT, MARGIN_LEFT + PLOT_W, &tick_text))
                (x_axis(&x, &x_ticks, MARGIN_TOP, MARGIN_TOP + PLOT_H, false))
                g.muted {
                    line x1=(px(MARGIN_LEFT)) x2=(px(MARGIN_LEFT)) y1=(px(MARGIN_TOP)) y2=(px(MARGIN_TOP + PLOT_H)) stroke="currentColor" {}
                    line x1=(px(MARGIN_LEFT)) x2=(px(MARGIN_LEFT + PLOT_W)) y1=(px(MARGIN_TOP + PLOT_H)) y2=(px(MARGIN_TOP + PLOT_H)) stroke="currentColor" {}
                    text x=(px(MARGIN_LEFT + PLOT_W / 2.0)) y=(px(MARGIN_TOP + PLOT_H + 36.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" { "message size (log scale)" }
                    text transform=(format!("translate(14 {}) rotate(-90)", px(MARGIN_TOP + PLOT_H / 2.0))) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" { "MB/s, one thread (log scale)" }
                }
                @for (i, input) in inputs.iter().enumerate() {
                    @for (j, pair) in panel.pairs.iter().enumerate() {
                        (series(input, &ixs[i], i, pair, style(panel, j, &backends), with_backend, &x, &y))
                    }
                }
                g.legend transform=(format!("translate({} {})", px(MARGIN_LEFT + PLOT_W + 18.0), px(MARGIN_TOP + 4.0))) {
                    @for (j, pair) in panel.pairs.iter().enumerate() {
                        @let ly = j as f64 * LEGEND_ROW + 6.0;
                        @let (colour, shape) = style(panel, j, &backends);
                        g class=(colour_class(colour)) data-algorithm=(pair.algorithm) data-backend=[(!pair.backend.is_empty()).then_some(&pair.backend)] {
                            line x1="0" x2="22" y1=(px(ly)) y2=(px(ly)) stroke="currentColor" stroke-width="2" {}
                            path transform=(format!("translate(11 {})", px(ly))) d=(marker_path(shape, 3.5)) fill="currentColor" {}
                            text.fg x="28" y=(px(ly + 4.0)) font-size=(FONT) fill="currentColor" { (pair.label(with_backend)) }
                        }
                    }
                }
            }
        }
    };
    Ok(Chart {
        id: id.to_string(),
        width,
        height,
        title: if inputs.len() > 1 {
            format!(
                "Throughput against message size, one thread, {} inputs overlaid",
                inputs.len()
            )
        } else {
            format!(
                "Throughput against message size, one thread: {}",
                inputs[0].label
            )
        },
        desc: describe(inputs, &ixs, &panels, largest as usize),
        body,
    })
}

/// (colour, marker) of a panel's line: one each per line; where lines are
/// (algorithm, backend) pairs, a colour per algorithm and a marker per backend
/// of it, so that one algorithm's backends read as one family.
fn style(panel: &Panel, j: usize, backends: &HashMap<&str, usize>) -> (usize, usize) {
    let line = &panel.pairs[j];
    if line.backend.is_empty() {
        return (j, j);
    }
    let mut algorithms: Vec<&str> = Vec::new();
    for p in &panel.pairs {
        if !algorithms.contains(&p.algorithm.as_str()) {
            algorithms.push(&p.algorithm);
        }
    }
    let colour = algorithms
        .iter()
        .position(|a| *a == line.algorithm)
        .unwrap_or(0);
    // The algorithm's backends in the chart's order of backends, so each has its own marker.
    let mut own: Vec<&str> = panel
        .pairs
        .iter()
        .filter(|p| p.algorithm == line.algorithm)
        .map(|p| p.backend.as_str())
        .collect();
    own.sort_by_key(|b| backends.get(b).copied());
    let shape = own.iter().position(|b| *b == line.backend).unwrap_or(0);
    (colour, shape)
}

/// CPU and mask in a few words, for legends.
pub fn machine_line(input: &Input) -> String {
    let env = &input.report.environment;
    let mut text = env.cpu_model.clone();
    if !env.cpu_mask.is_empty() {
        let masked: Vec<&str> = env
            .cpu_mask
            .iter()
            .map(|f| hashlab::cpu::label(f).unwrap_or(f))
            .collect();
        text.push_str(&format!(" without {}", masked.join(", ")));
    }
    text
}

#[allow(clippy::too_many_arguments)]
fn series(
    input: &Input,
    ix: &Index,
    i: usize,
    line: &Pair,
    (colour, shape): (usize, usize),
    with_backend: bool,
    x: &Scale,
    y: &Scale,
) -> Markup {
    let Some(pair) = ix.line_pair(line) else {
        return html! {};
    };
    let pair = &pair;
    let points: Vec<(usize, f64)> = ix
        .sizes()
        .iter()
        .filter_map(|&s| ix.cell(pair, s).map(|c| (s, mbps(c))))
        .filter(|(_, v)| v.is_finite() && *v > 0.0)
        .collect();
    if points.is_empty() {
        return html! {};
    }
    let mut d = String::new();
    for (k, (s, v)) in points.iter().enumerate() {
        d.push_str(&format!(
            "{}{} {}",
            if k == 0 { "M" } else { "L" },
            px(x.map(*s as f64)),
            px(y.map(*v))
        ));
    }
    let name = if with_backend {
        pair.full_name()
    } else {
        format!("{} ({} backend)", pair.algorithm, pair.backend)
    };
    html! {
        g class=(format!("series {}", colour_class(colour))) data-input=(input.label) data-algorithm=(pair.algorithm) data-backend=(pair.backend) {
            path.line d=(d) fill="none" stroke="currentColor" stroke-width="1.8" stroke-linejoin="round"
                stroke-dasharray=[(!dash(i).is_empty()).then_some(dash(i))] {
                title { (name) ", " (input.label) }
            }
            @for (s, v) in &points {
                g.mark transform=(format!("translate({} {})", px(x.map(*s as f64)), px(y.map(*v))))
                    data-size=(s) data-key=(super::key("mbps", &input.label, &pair.algorithm, &pair.backend, *s)) data-value=(exact(*v)) {
                    title { (pair.full_name()) ", " (size_label(*s)) ", " (input.label) ": " (speed(*v)) " MB/s" }
                    @if i == 0 {
                        path d=(marker_path(shape, 3.5)) fill="currentColor" {}
                    } @else {
                        path d=(marker_path(shape, 3.5)) fill="none" stroke="currentColor" stroke-width="1.5" {}
                    }
                }
            }
        }
    }
}

/// The text alternative: what is drawn, and what a reader would take from it.
fn describe(inputs: &[Input], ixs: &[Index], panels: &[Panel], largest: usize) -> String {
    let lines: usize = panels.iter().map(|p| p.pairs.len()).sum();
    let mut text = format!(
        "Median single-thread throughput in MB/s (10⁶ bytes per second, log scale) against message size (log scale): {lines} lines in {} panels ({}).",
        panels.len(),
        panels.iter().map(|p| p.title.as_str()).collect::<Vec<_>>().join("; ")
    );
    if inputs.len() > 1 {
        text.push_str(" Line styles tell the inputs apart: ");
        text.push_str(
            &inputs
                .iter()
                .enumerate()
                .map(|(i, input)| {
                    format!(
                        "{} ({}) {}",
                        input.label,
                        machine_line(input),
                        ["solid", "dashed", "dotted", "dash-dotted"][i % 4]
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
        );
        text.push('.');
    }
    for (input, ix) in inputs.iter().zip(ixs) {
        let ranked: Vec<(Pair, f64)> = ix
            .pairs()
            .iter()
            .filter_map(|p| {
                let v = mbps(ix.cell(p, largest)?);
                Some((p.clone(), v))
            })
            .collect();
        let fastest = ranked.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let slowest = ranked.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(f), Some(s)) = (fastest, slowest) {
            text.push_str(&format!(
                " {}: at {} the fastest is {} at {} MB/s and the slowest {} at {} MB/s.",
                input.label,
                size_label(largest),
                f.0.full_name(),
                speed(f.1),
                s.0.full_name(),
                speed(s.1)
            ));
        }
    }
    text.push_str(" The table after the chart has every value.");
    text
}
