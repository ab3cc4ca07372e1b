//! Throughput at one message size: a bar per (algorithm, backend), fastest
//! first, one bar per input side by side, the interquartile range as a whisker.

use hashlab_bench::sizes::size_label;
use maud::html;

use crate::data::{backends_vary, by_speed, cell, mbps, pairs, Input, Pair};
use crate::format::{exact, px, speed, text_width};
use crate::svg::{colour_class, linear_ticks, tick_text, x_axis, Chart, Scale, FONT, SMALL_FONT};
use crate::ReportError;

pub const PLOT_W: f64 = 560.0;
const BAR_H: f64 = 13.0;
const BAR_GAP: f64 = 2.0;
const ROW_GAP: f64 = 7.0;
const VALUE_SPACE: f64 = 96.0;

/// Pairs fastest first in the first input, then any only the others have.
pub fn order(inputs: &[Input], size: usize) -> Vec<Pair> {
    let mut order = by_speed(&inputs[0].report, size);
    for input in &inputs[1..] {
        for p in pairs(&input.report) {
            if !order.contains(&p) {
                order.push(p);
            }
        }
    }
    order
}

pub fn chart(id: &str, inputs: &[Input], size: usize) -> Result<Chart, ReportError> {
    let order = order(inputs, size);
    let with_backend = backends_vary(&order);
    let label_w = order
        .iter()
        .map(|p| text_width(&p.label(with_backend), FONT))
        .fold(0.0, f64::max)
        + 14.0;
    let left = 8.0 + label_w;
    let legend_h = if inputs.len() > 1 {
        inputs.len() as f64 * 18.0 + 8.0
    } else {
        0.0
    };
    let top = legend_h + 26.0;
    let row_h = inputs.len() as f64 * (BAR_H + BAR_GAP) - BAR_GAP + ROW_GAP;
    let plot_h = order.len() as f64 * row_h + ROW_GAP;
    let max = inputs
        .iter()
        .flat_map(|i| {
            order.iter().filter_map(move |p| {
                let c = cell(&i.report, p, size)?;
                Some(
                    c.mb_per_s_iqr
                        .map_or(mbps(c), |(_, fast)| fast.max(mbps(c))),
                )
            })
        })
        .fold(0.0, f64::max);
    if max <= 0.0 {
        return Err(ReportError::new(format!(
            "nothing measured at {} to chart",
            size_label(size)
        )));
    }
    let (upper, ticks) = linear_ticks(max, 6);
    let x = Scale::linear(0.0, upper, left, left + PLOT_W);
    let x_ticks: Vec<(f64, String)> = ticks.iter().map(|t| (*t, tick_text(*t))).collect();
    let width = left + PLOT_W + VALUE_SPACE;
    let height = top + plot_h + 46.0;

    let body = html! {
        @if inputs.len() > 1 {
            g.legend.inputs {
                @for (i, input) in inputs.iter().enumerate() {
                    @let ly = 8.0 + i as f64 * 18.0;
                    g class=(colour_class(i)) data-input=(input.label) {
                        rect x=(px(left)) y=(px(ly)) width="12" height="12" fill="currentColor" {}
                        text.fg x=(px(left + 18.0)) y=(px(ly + 10.0)) font-size=(FONT) fill="currentColor" {
                            (input.label) ": " (crate::charts::size::machine_line(input))
                        }
                    }
                }
            }
        }
        (x_axis(&x, &x_ticks, top, top + plot_h, true))
        g.muted {
            line x1=(px(left)) x2=(px(left)) y1=(px(top)) y2=(px(top + plot_h)) stroke="currentColor" {}
            text x=(px(left + PLOT_W / 2.0)) y=(px(top + plot_h + 36.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" {
                "MB/s at " (size_label(size)) ", one thread: median; whisker: interquartile range"
            }
        }
        @for (r, pair) in order.iter().enumerate() {
            @let row_top = top + ROW_GAP + r as f64 * row_h;
            g.row data-algorithm=(pair.algorithm) data-backend=(pair.backend) {
                text.fg x=(px(left - 8.0)) y=(px(row_top + (row_h - ROW_GAP) / 2.0 + 4.0)) text-anchor="end" font-size=(FONT) fill="currentColor" {
                    (pair.label(with_backend))
                }
                @for (i, input) in inputs.iter().enumerate() {
                    @if let Some(c) = cell(&input.report, pair, size) {
                        @let v = mbps(c);
                        @let y = row_top + i as f64 * (BAR_H + BAR_GAP);
                        @let end = x.map(v);
                        @let whisker_end = c.mb_per_s_iqr.map_or(end, |(_, fast)| x.map(fast).max(end));
                        g class=(colour_class(i)) {
                            rect.bar x=(px(left)) y=(px(y)) width=(px((end - left).max(0.5))) height=(px(BAR_H)) fill="currentColor"
                                data-input=(input.label) data-algorithm=(pair.algorithm) data-backend=(pair.backend)
                                data-size=(size)
                                data-key=(super::key("mbps", &input.label, &pair.algorithm, &pair.backend, size)) data-value=(exact(v))
                                data-iqr-low-mbps=[c.mb_per_s_iqr.map(|q| exact(q.0))]
                                data-iqr-high-mbps=[c.mb_per_s_iqr.map(|q| exact(q.1))] {
                                title {
                                    (pair.full_name()) ", " (input.label) ", " (size_label(size)) ": " (speed(v)) " MB/s"
                                    @if let Some((slow, fast)) = c.mb_per_s_iqr { " (interquartile range " (speed(slow)) "–" (speed(fast)) ")" }
                                }
                            }
                        }
                        @if let Some((slow, fast)) = c.mb_per_s_iqr {
                            g.ref {
                                line x1=(px(x.map(slow))) x2=(px(x.map(fast))) y1=(px(y + BAR_H / 2.0)) y2=(px(y + BAR_H / 2.0)) stroke="currentColor" stroke-width="1.2" {}
                                line x1=(px(x.map(slow))) x2=(px(x.map(slow))) y1=(px(y + 3.0)) y2=(px(y + BAR_H - 3.0)) stroke="currentColor" stroke-width="1.2" {}
                                line x1=(px(x.map(fast))) x2=(px(x.map(fast))) y1=(px(y + 3.0)) y2=(px(y + BAR_H - 3.0)) stroke="currentColor" stroke-width="1.2" {}
                            }
                        }
                        text.fg x=(px(whisker_end + 5.0)) y=(px(y + BAR_H - 2.5)) font-size=(SMALL_FONT) fill="currentColor" { (speed(v)) }
                    }
                }
            }
        }
    };
    Ok(Chart {
        id: id.to_string(),
        width,
        height,
        title: format!(
            "Throughput at {}, one thread, fastest first{}",
            size_label(size),
            if inputs.len() > 1 {
                format!(", {} inputs side by side", inputs.len())
            } else {
                format!(": {}", inputs[0].label)
            }
        ),
        desc: describe(inputs, &order, size),
        body,
    })
}

fn describe(inputs: &[Input], order: &[Pair], size: usize) -> String {
    let mut text = format!(
        "Horizontal bars of median single-thread throughput in MB/s (10^6 bytes per second, linear scale from zero) at {} for {} algorithm/backend pairs, fastest first; the whisker on each bar spans the interquartile range of its samples.",
        size_label(size),
        order.len()
    );
    for input in inputs {
        let measured: Vec<(&Pair, f64)> = order
            .iter()
            .filter_map(|p| Some((p, mbps(cell(&input.report, p, size)?))))
            .collect();
        let fastest = measured.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let slowest = measured.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(f), Some(s)) = (fastest, slowest) {
            text.push_str(&format!(
                " {}: fastest {} at {} MB/s, slowest {} at {} MB/s.",
                input.label,
                f.0.full_name(),
                speed(f.1),
                s.0.full_name(),
                speed(s.1)
            ));
        }
    }
    text
}
