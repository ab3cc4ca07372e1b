//! The few SVG pieces every chart shares: scales, axes, legend swatches and
//! the document around a chart.
//!
//! Colours are never written into the marks: a mark draws in `currentColor`
//! and its class (`fg`, `muted`, `grid`, `c0`..`c9`) sets `color` from
//! chart.css, so one stylesheet switches light, dark and print.

use maud::{html, Markup, PreEscaped};

use crate::format::{exact, px, text_width};

/// The chart stylesheet, shared by the page and standalone SVG files.
pub const CHART_CSS: &str = include_str!("chart.css");

/// Series colours defined in chart.css (`c0`..`c9`).
pub const COLOURS: usize = 10;
/// Marker shapes, so series stay apart without colour (`shape`).
pub const SHAPES: usize = 4;
/// Dash patterns, one per input when several are overlaid.
pub const DASHES: [&str; 4] = ["", "7 4", "2 3", "10 3 2 3"];

pub const FONT: f64 = 12.0;
pub const SMALL_FONT: f64 = 11.0;
pub const TITLE_FONT: f64 = 14.0;

pub fn colour_class(i: usize) -> String {
    format!("c{}", i % COLOURS)
}

pub fn dash(i: usize) -> &'static str {
    DASHES[i % DASHES.len()]
}

/// A scale from data to pixels, logarithmic or linear.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
    log: bool,
}

impl Scale {
    pub fn log(lo: f64, hi: f64, from: f64, to: f64) -> Scale {
        Scale {
            lo: lo.ln(),
            hi: hi.ln(),
            from,
            to,
            log: true,
        }
    }

    pub fn linear(lo: f64, hi: f64, from: f64, to: f64) -> Scale {
        Scale {
            lo,
            hi,
            from,
            to,
            log: false,
        }
    }

    pub fn map(&self, v: f64) -> f64 {
        let v = if self.log { v.ln() } else { v };
        let span = self.hi - self.lo;
        let t = if span > 0.0 {
            (v - self.lo) / span
        } else {
            0.5
        };
        self.from + t * (self.to - self.from)
    }
}

/// The 1-2-5 series: 1, 2, 5, 10, 20, 50, ...
fn one_two_five(k: i32) -> f64 {
    let decade = 10f64.powi(k.div_euclid(3));
    decade * [1.0, 2.0, 5.0][k.rem_euclid(3) as usize]
}

fn one_two_five_index(v: f64) -> i32 {
    let decade = v.log10().floor() as i32;
    let mantissa = v / 10f64.powi(decade);
    let step = if mantissa >= 5.0 - 1e-9 {
        2
    } else if mantissa >= 2.0 - 1e-9 {
        1
    } else {
        0
    };
    decade * 3 + step
}

/// The largest 1-2-5 number at or below `v` (> 0).
pub fn nice_floor(v: f64) -> f64 {
    one_two_five(one_two_five_index(v))
}

/// The smallest 1-2-5 number at or above `v` (> 0).
pub fn nice_ceil(v: f64) -> f64 {
    let k = one_two_five_index(v);
    if one_two_five(k) >= v * (1.0 - 1e-9) {
        one_two_five(k)
    } else {
        one_two_five(k + 1)
    }
}

/// Ticks of a log axis: the 1-2-5 numbers in the domain, thinned to powers of
/// ten when there are too many to label.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let all: Vec<f64> = (one_two_five_index(lo)..=one_two_five_index(hi) + 1)
        .map(one_two_five)
        .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9))
        .collect();
    if all.len() <= 9 {
        all
    } else {
        all.into_iter()
            .filter(|v| (v.log10() - v.log10().round()).abs() < 1e-9)
            .collect()
    }
}

/// A linear axis from zero: (upper end, ticks), with about `count` steps of 1, 2 or 5 × 10^k.
pub fn linear_ticks(max: f64, count: usize) -> (f64, Vec<f64>) {
    let max = if max > 0.0 { max } else { 1.0 };
    let step = nice_ceil(max / count as f64);
    let steps = (max / step - 1e-9).ceil().max(1.0) as usize;
    let ticks = (0..=steps).map(|i| i as f64 * step).collect();
    (steps as f64 * step, ticks)
}

/// Tick label for a speed: `500`, `2000`, `50000`, `0.5`.
pub fn tick_text(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// Horizontal grid lines with labels left of the plot; each tick carries its value.
pub fn y_axis(
    scale: &Scale,
    ticks: &[f64],
    left: f64,
    right: f64,
    label: &dyn Fn(f64) -> String,
) -> Markup {
    html! {
        g.axis.y data-scale=(if scale.log { "log" } else { "linear" }) {
            @for &t in ticks {
                @let y = scale.map(t);
                g.tick data-value=(exact(t)) data-position=(px(y)) {
                    line.grid x1=(px(left)) x2=(px(right)) y1=(px(y)) y2=(px(y)) stroke="currentColor" stroke-width="1" {}
                    text.muted x=(px(left - 6.0)) y=(px(y + 4.0)) text-anchor="end" font-size=(SMALL_FONT) fill="currentColor" { (label(t)) }
                }
            }
        }
    }
}

/// Vertical grid lines with labels under (and, for tall charts, over) the plot.
pub fn x_axis(
    scale: &Scale,
    ticks: &[(f64, String)],
    top: f64,
    bottom: f64,
    labels_above: bool,
) -> Markup {
    // Labels that would overlap the one before are left out; the grid line stays.
    let mut last_end = f64::NEG_INFINITY;
    let mut shown = Vec::new();
    for (value, text) in ticks {
        let x = scale.map(*value);
        let half = text_width(text, SMALL_FONT) / 2.0;
        let show = x - half > last_end + 4.0;
        if show {
            last_end = x + half;
        }
        shown.push((*value, x, text, show));
    }
    html! {
        g.axis.x data-scale=(if scale.log { "log" } else { "linear" }) {
            @for (value, x, text, show) in &shown {
                g.tick data-value=(exact(*value)) data-position=(px(*x)) {
                    line.grid x1=(px(*x)) x2=(px(*x)) y1=(px(top)) y2=(px(bottom)) stroke="currentColor" stroke-width="1" {}
                    @if *show {
                        text.muted x=(px(*x)) y=(px(bottom + 15.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" { (text) }
                        @if labels_above {
                            text.muted x=(px(*x)) y=(px(top - 6.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" { (text) }
                        }
                    }
                }
            }
        }
    }
}

/// A marker centred on (0, 0): circle, square, triangle or diamond.
pub fn marker_path(shape: usize, r: f64) -> String {
    match shape % SHAPES {
        0 => format!(
            "M{} 0a{r} {r} 0 1 0 {} 0a{r} {r} 0 1 0 {} 0z",
            px(-r),
            px(2.0 * r),
            px(-2.0 * r)
        ),
        1 => {
            let s = r * 0.9;
            format!(
                "M{} {}h{}v{}h{}z",
                px(-s),
                px(-s),
                px(2.0 * s),
                px(2.0 * s),
                px(-2.0 * s)
            )
        }
        2 => {
            let s = r * 1.25;
            format!(
                "M0 {}L{} {}L{} {}z",
                px(-s),
                px(s),
                px(s * 0.8),
                px(-s),
                px(s * 0.8)
            )
        }
        _ => {
            let s = r * 1.25;
            format!("M0 {}L{} 0L0 {}L{} 0z", px(-s), px(s), px(s), px(-s))
        }
    }
}

/// A chart: its size, text alternative and marks.
pub struct Chart {
    /// Names the chart's ids (`{id}-title`, `{id}-desc`); unique in a page.
    pub id: String,
    pub width: f64,
    pub height: f64,
    pub title: String,
    pub desc: String,
    pub body: Markup,
}

impl Chart {
    /// The chart inside an HTML page: scales to the column, styled by the page.
    pub fn inline(&self) -> Markup {
        html! {
            svg.chart id=(self.id) viewBox=(format!("0 0 {} {}", px(self.width), px(self.height)))
                width=(px(self.width)) height=(px(self.height))
                role="img" aria-labelledby=(format!("{0}-title {0}-desc", self.id)) {
                title id=(format!("{}-title", self.id)) { (self.title) }
                desc id=(format!("{}-desc", self.id)) { (self.desc) }
                rect.bg x="0" y="0" width=(px(self.width)) height=(px(self.height)) fill="currentColor" {}
                (self.body)
            }
        }
    }

    /// A standalone SVG file: the stylesheet inside, and a visible title line
    /// (in the page, the heading above the figure says it).
    pub fn standalone(&self) -> String {
        const HEADER: f64 = 30.0;
        let height = self.height + HEADER;
        let svg = html! {
            svg.chart xmlns="http://www.w3.org/2000/svg" id=(self.id)
                viewBox=(format!("0 0 {} {}", px(self.width), px(height)))
                width=(px(self.width)) height=(px(height))
                role="img" aria-labelledby=(format!("{0}-title {0}-desc", self.id)) {
                style { (PreEscaped(CHART_CSS)) }
                title id=(format!("{}-title", self.id)) { (self.title) }
                desc id=(format!("{}-desc", self.id)) { (self.desc) }
                rect.bg x="0" y="0" width=(px(self.width)) height=(px(height)) fill="currentColor" {}
                text.fg x="12" y="20" font-size=(TITLE_FONT) font-weight="600" fill="currentColor" { (self.title) }
                g transform=(format!("translate(0 {HEADER})")) { (self.body) }
            }
        };
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
            svg.into_string()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_two_five_rounding() {
        assert_eq!(nice_floor(730.0), 500.0);
        assert_eq!(nice_ceil(730.0), 1000.0);
        assert_eq!(nice_ceil(1000.0), 1000.0);
        assert_eq!(nice_floor(1000.0), 1000.0);
        assert_eq!(nice_ceil(0.013), 0.02);
        assert_eq!(nice_floor(2.5), 2.0);
        assert_eq!(
            log_ticks(100.0, 5000.0),
            vec![100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0]
        );
        assert_eq!(
            log_ticks(1.0, 1e6),
            vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]
        );
        let (top, ticks) = linear_ticks(43_000.0, 5);
        assert_eq!(top, 50_000.0);
        assert_eq!(ticks.len(), 6);
    }

    #[test]
    fn scales_map_ends_and_middles() {
        let s = Scale::log(10.0, 1000.0, 0.0, 200.0);
        assert!((s.map(100.0) - 100.0).abs() < 1e-9);
        let l = Scale::linear(0.0, 10.0, 100.0, 0.0);
        assert!((l.map(2.5) - 75.0).abs() < 1e-9);
    }
}
