//! The backends of each algorithm side by side at one size: bars as a share of
//! the fastest backend of the same algorithm (algorithms differ a hundredfold,
//! backends of one algorithm by a few times; a common MB/s axis would hide
//! the latter), labelled with their MB/s.

use hashlab_bench::sizes::size_label;
use maud::html;

use crate::data::{backend_groups, Index, Input};
use crate::format::{exact, percent, px, speed, text_width};
use crate::svg::{colour_class, x_axis, Chart, Scale, FONT, SMALL_FONT};
use crate::ReportError;

const PLOT_W: f64 = 440.0;
const HEADER_H: f64 = 20.0;
const BAR_ROW: f64 = 17.0;
const BAR_H: f64 = 12.0;
const GROUP_GAP: f64 = 8.0;

pub fn chart(id: &str, input: &Input, size: usize) -> Result<Chart, ReportError> {
    let groups = backend_groups(&Index::of(&input.report), size);
    if groups.is_empty() {
        return Err(ReportError::new(format!(
            "{}: no algorithm was measured with more than one backend at {} (hashlab bench --all-backends measures them all)",
            input.label,
            size_label(size)
        )));
    }
    // One colour per backend name across the chart, so `openssl` looks the same everywhere.
    let mut backends: Vec<&str> = Vec::new();
    for (_, members) in &groups {
        for (p, _) in members {
            if !backends.contains(&p.backend.as_str()) {
                backends.push(&p.backend);
            }
        }
    }
    let colour = |b: &str| colour_class(backends.iter().position(|x| *x == b).unwrap_or(0));
    let label_w = groups
        .iter()
        .flat_map(|(a, m)| {
            std::iter::once(text_width(a, FONT))
                .chain(m.iter().map(|(p, _)| text_width(&p.backend, FONT) + 12.0))
        })
        .fold(0.0, f64::max)
        + 14.0;
    let left = 8.0 + label_w;
    let top = 26.0;
    let plot_h: f64 = groups
        .iter()
        .map(|(_, m)| HEADER_H + m.len() as f64 * BAR_ROW + GROUP_GAP)
        .sum();
    let x = Scale::linear(0.0, 1.0, left, left + PLOT_W);
    let ticks: Vec<(f64, String)> = (0..=5)
        .map(|i| (i as f64 / 5.0, format!("{} %", i * 20)))
        .collect();
    let mut offsets = Vec::new();
    let mut y = top;
    for (_, members) in &groups {
        offsets.push(y);
        y += HEADER_H + members.len() as f64 * BAR_ROW + GROUP_GAP;
    }
    let body = html! {
        (x_axis(&x, &ticks, top, top + plot_h, true))
        g.muted {
            line x1=(px(left)) x2=(px(left)) y1=(px(top)) y2=(px(top + plot_h)) stroke="currentColor" {}
            text x=(px(left + PLOT_W / 2.0)) y=(px(top + plot_h + 36.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" {
                "share of the fastest backend of the same algorithm, at " (size_label(size)) ", one thread"
            }
        }
        @for ((algorithm, members), group_top) in groups.iter().zip(&offsets) {
            @let fastest = members[0].1;
            g.group data-algorithm=(algorithm) {
                text.fg x="8" y=(px(group_top + 14.0)) font-size=(FONT) font-weight="600" fill="currentColor" { (algorithm) }
                @for (k, (pair, v)) in members.iter().enumerate() {
                    @let y = group_top + HEADER_H + k as f64 * BAR_ROW;
                    @let share = v / fastest;
                    text.fg x=(px(left - 8.0)) y=(px(y + BAR_H - 2.0)) text-anchor="end" font-size=(FONT) fill="currentColor" { (pair.backend) }
                    g class=(colour(&pair.backend)) {
                        rect.bar x=(px(left)) y=(px(y)) width=(px((x.map(share) - left).max(0.5))) height=(px(BAR_H)) fill="currentColor"
                            data-algorithm=(pair.algorithm) data-backend=(pair.backend) data-size=(size)
                            data-share=(exact(share))
                            data-key=(super::key("mbps", &input.label, &pair.algorithm, &pair.backend, size)) data-value=(exact(*v)) {
                            title { (pair.full_name()) ", " (size_label(size)) ": " (speed(*v)) " MB/s, " (percent(share)) " of the fastest backend" }
                        }
                    }
                    text.fg x=(px(x.map(share) + 5.0)) y=(px(y + BAR_H - 2.0)) font-size=(SMALL_FONT) fill="currentColor" {
                        (speed(*v)) " MB/s"
                    }
                }
            }
        }
    };
    let desc = format!(
        "For each of {} algorithms measured with several backends in {}, horizontal bars of each backend's median single-thread throughput at {} as a share of that algorithm's fastest backend, labelled in MB/s. {}",
        groups.len(),
        input.label,
        size_label(size),
        groups
            .iter()
            .map(|(a, m)| format!(
                "{a}: {}.",
                m.iter()
                    .map(|(p, v)| format!("{} {} MB/s", p.backend, speed(*v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(Chart {
        id: id.to_string(),
        width: left + PLOT_W + 110.0,
        height: top + plot_h + 46.0,
        title: format!(
            "Backends of one algorithm side by side at {}: {}",
            size_label(size),
            input.label
        ),
        desc,
        body,
    })
}
