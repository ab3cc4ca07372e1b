//! The spread of the raw samples at one size: every sample as a dot (in MB/s),
//! the box from the slow to the fast quartile, the median, and whiskers to the
//! slowest and fastest samples the outlier rule kept. Rejected samples are
//! drawn hollow.

use hashlab_bench::sizes::size_label;
use maud::html;

use crate::data::{backends_vary, by_speed, spread, Index, Input, Pair, Spread};
use crate::format::{exact, percent, px, speed, text_width};
use crate::svg::{
    log_ticks, nice_ceil, nice_floor, tick_text, x_axis, Chart, Scale, FONT, SMALL_FONT,
};
use crate::ReportError;

const PLOT_W: f64 = 560.0;
const ROW_H: f64 = 22.0;
const BOX_H: f64 = 12.0;

pub fn chart(id: &str, input: &Input, size: usize) -> Result<Chart, ReportError> {
    let ix = Index::of(&input.report);
    let rows: Vec<(Pair, Spread)> = by_speed(&ix, size)
        .into_iter()
        .filter_map(|p| {
            let s = spread(ix.cell(&p, size)?)?;
            Some((p, s))
        })
        .collect();
    let all: Vec<f64> = rows
        .iter()
        .flat_map(|(_, s)| s.samples.iter().map(|(v, _)| *v))
        .collect();
    if all.is_empty() {
        return Err(ReportError::new(format!(
            "{}: no samples at {} to chart",
            input.label,
            size_label(size)
        )));
    }
    let lo = nice_floor(all.iter().copied().fold(f64::INFINITY, f64::min));
    let hi = nice_ceil(all.iter().copied().fold(0.0, f64::max));
    let pairs: Vec<Pair> = rows.iter().map(|(p, _)| p.clone()).collect();
    let with_backend = backends_vary(&pairs);
    let label_w = pairs
        .iter()
        .map(|p| text_width(&p.label(with_backend), FONT))
        .fold(0.0, f64::max)
        + 14.0;
    let left = 8.0 + label_w;
    let top = 26.0;
    let plot_h = rows.len() as f64 * ROW_H + 6.0;
    let x = Scale::log(lo, hi, left, left + PLOT_W);
    let x_ticks: Vec<(f64, String)> = log_ticks(lo, hi)
        .into_iter()
        .map(|t| (t, tick_text(t)))
        .collect();
    let body = html! {
        (x_axis(&x, &x_ticks, top, top + plot_h, true))
        g.muted {
            line x1=(px(left)) x2=(px(left)) y1=(px(top)) y2=(px(top + plot_h)) stroke="currentColor" {}
            text x=(px(left + PLOT_W / 2.0)) y=(px(top + plot_h + 36.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" {
                "MB/s of each sample at " (size_label(size)) ", one thread (log scale)"
            }
        }
        @for (r, (pair, s)) in rows.iter().enumerate() {
            @let mid = top + 3.0 + r as f64 * ROW_H + ROW_H / 2.0;
            text.fg x=(px(left - 8.0)) y=(px(mid + 4.0)) text-anchor="end" font-size=(FONT) fill="currentColor" { (pair.label(with_backend)) }
            g class=(format!("box {}", crate::svg::colour_class(0)))
                data-algorithm=(pair.algorithm) data-backend=(pair.backend) data-size=(size)
                data-low-quartile-mbps=(exact(s.low_quartile))
                data-high-quartile-mbps=(exact(s.high_quartile)) data-slowest-mbps=(exact(s.slowest))
                data-fastest-mbps=(exact(s.fastest)) data-kept=(s.kept) data-outliers=(s.outliers)
                data-key=(super::key("median", &input.label, &pair.algorithm, &pair.backend, size)) data-value=(exact(s.median)) {
                title {
                    (pair.full_name()) ", " (size_label(size)) ": median " (speed(s.median)) " MB/s; quartiles "
                    (speed(s.low_quartile)) "–" (speed(s.high_quartile)) "; kept samples " (speed(s.slowest)) "–" (speed(s.fastest))
                    " (" (s.kept) " kept, " (s.outliers) " rejected; spread " (percent((s.high_quartile - s.low_quartile) / s.median)) ")"
                }
                line.whisker x1=(px(x.map(s.slowest))) x2=(px(x.map(s.fastest))) y1=(px(mid)) y2=(px(mid)) stroke="currentColor" stroke-width="1" {}
                line x1=(px(x.map(s.slowest))) x2=(px(x.map(s.slowest))) y1=(px(mid - 4.0)) y2=(px(mid + 4.0)) stroke="currentColor" stroke-width="1" {}
                line x1=(px(x.map(s.fastest))) x2=(px(x.map(s.fastest))) y1=(px(mid - 4.0)) y2=(px(mid + 4.0)) stroke="currentColor" stroke-width="1" {}
                rect.quartiles x=(px(x.map(s.low_quartile))) y=(px(mid - BOX_H / 2.0))
                    width=(px((x.map(s.high_quartile) - x.map(s.low_quartile)).max(1.0))) height=(px(BOX_H))
                    fill="currentColor" fill-opacity="0.22" stroke="currentColor" stroke-width="1" {}
                @for (k, (v, rejected)) in s.samples.iter().enumerate() {
                    // A fixed vertical jitter, so that equal samples stay visible as several dots.
                    @let dy = ((k * 7) % 5) as f64 * 1.6 - 3.2;
                    @if *rejected {
                        circle.sample.outlier cx=(px(x.map(*v))) cy=(px(mid + dy)) r="2.2" fill="none" stroke="currentColor" stroke-width="1" data-mbps=(exact(*v)) {}
                    } @else {
                        circle.sample cx=(px(x.map(*v))) cy=(px(mid + dy)) r="1.7" fill="currentColor" fill-opacity="0.55" data-mbps=(exact(*v)) {}
                    }
                }
                g.fg {
                    line.median x1=(px(x.map(s.median))) x2=(px(x.map(s.median))) y1=(px(mid - BOX_H / 2.0 - 1.0)) y2=(px(mid + BOX_H / 2.0 + 1.0)) stroke="currentColor" stroke-width="2.2" {}
                }
            }
        }
    };
    let widest = rows.iter().max_by(|a, b| {
        let rel = |s: &Spread| (s.high_quartile - s.low_quartile) / s.median;
        rel(&a.1).total_cmp(&rel(&b.1))
    });
    let mut desc = format!(
        "Box plots of every raw sample of {}, converted to MB/s (log scale), at {}, one per algorithm/backend pair, fastest median first: the box spans the quartiles, the thick mark is the median, whiskers reach the slowest and fastest samples kept by the outlier rule (3 IQR), hollow dots are rejected samples.",
        input.label,
        size_label(size)
    );
    if let Some((p, s)) = widest {
        desc.push_str(&format!(
            " The widest spread is {}'s: quartiles {}–{} MB/s around a median of {}.",
            p.full_name(),
            speed(s.low_quartile),
            speed(s.high_quartile),
            speed(s.median)
        ));
    }
    Ok(Chart {
        id: id.to_string(),
        width: left + PLOT_W + 24.0,
        height: top + plot_h + 46.0,
        title: format!(
            "Spread of the samples at {}, one thread: {}",
            size_label(size),
            input.label
        ),
        desc,
        body,
    })
}
