//! Throughput at one message size: a bar per line (algorithm, or algorithm and
//! backend), fastest first, one bar per input side by side, the interquartile
//! range as a whisker. Cryptographic hashes and the fast non-cryptographic ones
//! differ tenfold, so each kind gets its own block and axis: on a shared axis
//! the cryptographic bars would be slivers.

use hashlab::{Class, Registry};
use hashlab_bench::sizes::size_label;
use maud::{html, Markup};

use crate::data::{indexes, lines, lines_are_algorithms, mbps, Index, Input, Pair};
use crate::format::{exact, px, speed, text_width};
use crate::svg::{colour_class, linear_ticks, tick_text, x_axis, Chart, Scale, FONT, SMALL_FONT};
use crate::ReportError;

pub const PLOT_W: f64 = 560.0;
const BAR_H: f64 = 13.0;
const BAR_GAP: f64 = 2.0;
const ROW_GAP: f64 = 7.0;
const VALUE_SPACE: f64 = 150.0;
const BLOCK_HEAD: f64 = 46.0;
const BLOCK_FOOT: f64 = 44.0;

/// A block of the chart: its title and lines, fastest first in the first input.
pub struct Block {
    pub title: &'static str,
    pub lines: Vec<Pair>,
}

/// The lines at `size`, split into cryptographic and fast blocks.
pub fn blocks(inputs: &[Input], size: usize, registry: &Registry) -> Vec<Block> {
    let inputs = indexes(inputs);
    let speed_in = |input: &Index, line: &Pair| {
        input
            .line_pair(line)
            .and_then(|p| input.cell(&p, size).map(mbps))
            .unwrap_or(f64::NEG_INFINITY)
    };
    let mut all = lines(&inputs);
    // Fastest first in the first input; lines only later inputs have, by their own speed.
    all.sort_by(|a, b| {
        let key = |l: &Pair| {
            inputs
                .iter()
                .map(|i| speed_in(i, l))
                .find(|v| v.is_finite())
                .unwrap_or(f64::NEG_INFINITY)
        };
        let in_first = |l: &Pair| speed_in(&inputs[0], l).is_finite();
        in_first(b)
            .cmp(&in_first(a))
            .then(key(b).total_cmp(&key(a)))
    });
    let mut blocks: Vec<Block> = Vec::new();
    for line in all {
        let title = match registry.algorithm(&line.algorithm).map(|a| a.class) {
            Ok(Class::Cryptographic | Class::Mac) => "Cryptographic hashes and MACs",
            Ok(_) => "Keyed, non-cryptographic hashes and checksums",
            Err(_) => "Other",
        };
        match blocks.iter_mut().find(|b| b.title == title) {
            Some(b) => b.lines.push(line),
            None => blocks.push(Block {
                title,
                lines: vec![line],
            }),
        }
    }
    let rank = |t: &str| match t {
        "Cryptographic hashes and MACs" => 0,
        "Other" => 2,
        _ => 1,
    };
    blocks.sort_by_key(|b| rank(b.title));
    blocks
}

pub fn chart(
    id: &str,
    inputs: &[Input],
    size: usize,
    registry: &Registry,
) -> Result<Chart, ReportError> {
    let blocks = blocks(inputs, size, registry);
    let ixs = indexes(inputs);
    let with_backend = !lines_are_algorithms(&ixs);
    let label_w = blocks
        .iter()
        .flat_map(|b| &b.lines)
        .map(|p| text_width(&p.label(with_backend), FONT))
        .fold(0.0, f64::max)
        + 14.0;
    let left = 8.0 + label_w;
    let legend_h = if inputs.len() > 1 {
        inputs.len() as f64 * 18.0 + 8.0
    } else {
        0.0
    };
    let row_h = inputs.len() as f64 * (BAR_H + BAR_GAP) - BAR_GAP + ROW_GAP;
    let mut offsets = Vec::new();
    let mut y = legend_h;
    for b in &blocks {
        offsets.push(y);
        y += BLOCK_HEAD + b.lines.len() as f64 * row_h + ROW_GAP + BLOCK_FOOT;
    }
    let mut rendered = Vec::new();
    for (b, top) in blocks.iter().zip(&offsets) {
        rendered.push(block(b, *top, left, inputs, &ixs, size, with_backend)?);
    }
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
        @for r in rendered { (r) }
    };
    let count: usize = blocks.iter().map(|b| b.lines.len()).sum();
    Ok(Chart {
        id: id.to_string(),
        width: left + PLOT_W + VALUE_SPACE,
        height: y + 4.0,
        title: format!(
            "Throughput at {}, one thread, fastest first{}",
            size_label(size),
            if inputs.len() > 1 {
                format!(", {} inputs side by side", inputs.len())
            } else {
                format!(": {}", inputs[0].label)
            }
        ),
        desc: describe(inputs, &ixs, &blocks, count, size),
        body,
    })
}

fn block(
    b: &Block,
    top: f64,
    left: f64,
    inputs: &[Input],
    ixs: &[Index],
    size: usize,
    with_backend: bool,
) -> Result<Markup, ReportError> {
    let row_h = inputs.len() as f64 * (BAR_H + BAR_GAP) - BAR_GAP + ROW_GAP;
    let plot_top = top + BLOCK_HEAD;
    let plot_h = b.lines.len() as f64 * row_h + ROW_GAP;
    let max = ixs
        .iter()
        .flat_map(|i| {
            b.lines.iter().filter_map(move |l| {
                let c = i.cell(&i.line_pair(l)?, size)?;
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
    Ok(html! {
        g.block data-block=(b.title) {
            text.fg x="8" y=(px(top + 18.0)) font-size=(FONT + 1.0) font-weight="600" fill="currentColor" { (b.title) }
            (x_axis(&x, &x_ticks, plot_top, plot_top + plot_h, true))
            g.muted {
                line x1=(px(left)) x2=(px(left)) y1=(px(plot_top)) y2=(px(plot_top + plot_h)) stroke="currentColor" {}
                text x=(px(left + PLOT_W / 2.0)) y=(px(plot_top + plot_h + 34.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" {
                    "MB/s at " (size_label(size)) ", one thread: median; whisker: interquartile range"
                }
            }
            @for (r, line) in b.lines.iter().enumerate() {
                @let row_top = plot_top + ROW_GAP + r as f64 * row_h;
                @let measured: Vec<(usize, &Input, Pair)> = inputs.iter().enumerate()
                    .filter_map(|(i, input)| ixs[i].line_pair(line).map(|p| (i, input, p))).collect();
                // Where the inputs ran the algorithm on different backends, each bar says which.
                @let backends_differ = measured.iter().any(|(_, _, p)| p.backend != measured[0].2.backend);
                g.row data-algorithm=(line.algorithm) data-backend=[(!line.backend.is_empty()).then_some(&line.backend)] {
                    text.fg x=(px(left - 8.0)) y=(px(row_top + (row_h - ROW_GAP) / 2.0 + 4.0)) text-anchor="end" font-size=(FONT) fill="currentColor" {
                        (line.label(with_backend))
                    }
                    @for (i, input, pair) in &measured {
                        @if let Some(c) = ixs[*i].cell(pair, size) {
                            @let v = mbps(c);
                            @let y = row_top + *i as f64 * (BAR_H + BAR_GAP);
                            @let end = x.map(v);
                            @let whisker_end = c.mb_per_s_iqr.map_or(end, |(_, fast)| x.map(fast).max(end));
                            g class=(colour_class(*i)) {
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
                            text.fg x=(px(whisker_end + 5.0)) y=(px(y + BAR_H - 2.5)) font-size=(SMALL_FONT) fill="currentColor" {
                                (speed(v))
                                @if backends_differ { tspan.muted fill="currentColor" { " " (pair.backend) } }
                            }
                        }
                    }
                }
            }
        }
    })
}

fn describe(
    inputs: &[Input],
    ixs: &[Index],
    blocks: &[Block],
    count: usize,
    size: usize,
) -> String {
    let mut text = format!(
        "Horizontal bars of median single-thread throughput in MB/s (10⁶ bytes per second, linear scale from zero) at {} for {count} {}, fastest first, in {} ({}); the whisker on each bar spans the interquartile range of its samples.",
        size_label(size),
        if lines_are_algorithms(ixs) { "algorithms" } else { "algorithm/backend pairs" },
        if blocks.len() > 1 { "blocks with their own axes" } else { "one block" },
        blocks.iter().map(|b| b.title).collect::<Vec<_>>().join("; ")
    );
    for (input, ix) in inputs.iter().zip(ixs) {
        for b in blocks {
            let measured: Vec<(Pair, f64)> = b
                .lines
                .iter()
                .filter_map(|l| {
                    let p = ix.line_pair(l)?;
                    let v = mbps(ix.cell(&p, size)?);
                    Some((p, v))
                })
                .collect();
            let fastest = measured.iter().max_by(|a, b| a.1.total_cmp(&b.1));
            let slowest = measured.iter().min_by(|a, b| a.1.total_cmp(&b.1));
            if let (Some(f), Some(s)) = (fastest, slowest) {
                text.push_str(&format!(
                    " {}, {}: fastest {} at {} MB/s, slowest {} at {} MB/s.",
                    input.label,
                    b.title,
                    f.0.full_name(),
                    speed(f.1),
                    s.0.full_name(),
                    speed(s.1)
                ));
            }
        }
    }
    text
}
