//! The two charts of a `bench --like` page: the size histogram (files and
//! bytes per band, one panel each) and horizontal bars of the projected time
//! per algorithm, the bound named at the end of each bar. Drawn as the bench
//! charts are: marks in `currentColor` with a colour class, exact values in
//! `data-` attributes keyed to the table cells beside them.

use hashlab_bench::like::tables::{bytes, seconds};
use hashlab_bench::like::{Bound, LikeReport, Projection, Shape, Source};
use maud::{html, Markup};

use crate::format::{exact, px, text_width};
use crate::svg::{colour_class, linear_ticks, x_axis, y_axis, Chart, Scale, FONT, SMALL_FONT};
use crate::ReportError;

/// The key tying a mark to its table cell: `like-METRIC:WHAT`.
pub fn key(metric: &str, what: &str) -> String {
    format!("like-{metric}:{what}")
}

/// A band's name, `4 KiB - 16 KiB` or `64 MiB and more`.
pub fn band_name(low: u64, high: Option<u64>) -> String {
    match high {
        Some(h) => format!("{} - {}", bytes(low as f64), bytes(h as f64)),
        None => format!("{} and more", bytes(low as f64)),
    }
}

/// A count as the tables print it: whole when exact, one decimal when estimated.
pub fn count_text(count: f64) -> String {
    if count.fract() == 0.0 {
        format!("{count:.0}")
    } else {
        format!("{count:.1}")
    }
}

const HIST_PANEL_H: f64 = 150.0;
const HIST_HEAD: f64 = 30.0;
const HIST_FOOT: f64 = 52.0;
const HIST_LEFT: f64 = 78.0;
const HIST_COLUMN: f64 = 86.0;

/// One panel of the histogram: a column per band.
fn hist_panel(
    shape: &Shape,
    top: f64,
    title: &str,
    metric: &str,
    class: usize,
    value: &dyn Fn(&hashlab_bench::like::Band) -> f64,
    text: &dyn Fn(f64) -> String,
) -> Markup {
    let max = shape.bands.iter().map(value).fold(0.0, f64::max);
    // Ticks at round numbers of the unit the labels print in (16 MiB, not 16.8 MB).
    let unit = if metric == "bytes" {
        let mut unit = 1.0;
        while max / unit >= 1024.0 {
            unit *= 1024.0;
        }
        unit
    } else {
        1.0
    };
    let (upper, ticks) = linear_ticks(max / unit, 4);
    let (upper, ticks): (f64, Vec<f64>) = (upper * unit, ticks.iter().map(|t| t * unit).collect());
    let plot_top = top + HIST_HEAD;
    let bottom = plot_top + HIST_PANEL_H;
    let y = Scale::linear(0.0, upper, bottom, plot_top);
    let right = HIST_LEFT + shape.bands.len() as f64 * HIST_COLUMN;
    html! {
        g.panel data-panel=(metric) {
            text.fg x="8" y=(px(top + 18.0)) font-size=(FONT + 1.0) font-weight="600" fill="currentColor" { (title) }
            (y_axis(&y, &ticks, HIST_LEFT, right, &|t| text(t)))
            g.muted {
                line x1=(px(HIST_LEFT)) x2=(px(right)) y1=(px(bottom)) y2=(px(bottom)) stroke="currentColor" {}
            }
            @for (i, band) in shape.bands.iter().enumerate() {
                @let v = value(band);
                @let x0 = HIST_LEFT + i as f64 * HIST_COLUMN;
                @let top_y = y.map(v);
                @let name = band_name(band.low, band.high);
                g class=(colour_class(class)) {
                    rect.bar x=(px(x0 + 10.0)) y=(px(top_y.min(bottom - 0.5))) width=(px(HIST_COLUMN - 20.0))
                        height=(px((bottom - top_y).max(0.5))) fill="currentColor"
                        data-band=(band.low) data-key=(key(metric, &band.low.to_string())) data-value=(exact(v)) {
                        title { (name) ": " (text(v)) }
                    }
                }
                text.fg x=(px(x0 + HIST_COLUMN / 2.0)) y=(px(top_y.min(bottom) - 4.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" { (text(v)) }
                text.muted x=(px(x0 + HIST_COLUMN / 2.0)) y=(px(bottom + 15.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" {
                    (bytes(band.low as f64))
                }
                text.muted x=(px(x0 + HIST_COLUMN / 2.0)) y=(px(bottom + 29.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" {
                    @match band.high { Some(h) => { "to " (bytes(h as f64)) }, None => { "and more" } }
                }
            }
        }
    }
}

/// Files and bytes per size band, smallest band first.
pub fn histogram(id: &str, report: &LikeReport) -> Result<Chart, ReportError> {
    let shape = &report.shape;
    if shape.bands.is_empty() {
        return Err(ReportError::new(format!(
            "{}: the shape has no size band to chart",
            shape.path
        )));
    }
    let what = hashlab_bench::like::tables::noun(shape.source);
    let panel_h = HIST_HEAD + HIST_PANEL_H + HIST_FOOT;
    let count_title = format!("{} per size band", capitalised(what));
    let body = html! {
        (hist_panel(shape, 0.0, &count_title, "count", 0, &|b| b.count, &count_text))
        (hist_panel(shape, panel_h, "Bytes per size band", "bytes", 1, &|b| b.bytes, &|v| if v == 0.0 { "0".into() } else { bytes(v) }))
    };
    let width = (HIST_LEFT + shape.bands.len() as f64 * HIST_COLUMN + 16.0).max(420.0);
    let biggest = shape
        .bands
        .iter()
        .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
        .expect("bands are not empty");
    let most = shape
        .bands
        .iter()
        .max_by(|a, b| a.count.total_cmp(&b.count))
        .expect("bands are not empty");
    let desc = format!(
        "Two column charts over the same {n} size bands (linear scales from zero): the number of {what} in each band, then their bytes. {total} {what} of {bytes_total} in all{sampled}; most {what} are in {most_band} ({most_count}), most bytes in {big_band} ({big_bytes}).",
        n = shape.bands.len(),
        total = count_text(shape.files),
        bytes_total = bytes(shape.bytes),
        sampled = if shape.exact { "" } else { ", estimated from a sample" },
        most_band = band_name(most.low, most.high),
        most_count = count_text(most.count),
        big_band = band_name(biggest.low, biggest.high),
        big_bytes = bytes(biggest.bytes),
    );
    Ok(Chart {
        id: id.to_string(),
        width,
        height: 2.0 * panel_h,
        title: format!("Size distribution of {}", shape.path),
        desc,
        body,
    })
}

pub fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The bars of one algorithm: (metric, label, seconds, bound).
pub fn bars_of(
    p: &Projection,
    cores: usize,
    source: Source,
) -> Vec<(&'static str, String, f64, Option<Bound>)> {
    let state = hashlab_bench::like::tables::state(source);
    let mut out = vec![
        (
            "cached-one",
            format!("{state}, 1 thread"),
            p.cached_one,
            None,
        ),
        (
            "cached-all",
            format!("{state}, {cores} threads"),
            p.cached_all,
            Some(p.bound_cached),
        ),
    ];
    if let Some(s) = p.uncached_all {
        out.push((
            "uncached-all",
            format!("uncached, {cores} threads"),
            s,
            p.bound_uncached,
        ));
    }
    out
}

const PLOT_W: f64 = 520.0;
const BAR_H: f64 = 13.0;
const BAR_GAP: f64 = 2.0;
const ROW_GAP: f64 = 9.0;
const VALUE_SPACE: f64 = 200.0;

/// Projected seconds for all of PATH per algorithm, fastest first.
pub fn projected(id: &str, report: &LikeReport) -> Result<Chart, ReportError> {
    let ps = &report.projections;
    if ps.is_empty() {
        return Err(ReportError::new(format!(
            "{}: no algorithm was projected",
            report.shape.path
        )));
    }
    let label_w = ps
        .iter()
        .map(|p| text_width(&p.algorithm, FONT))
        .fold(0.0, f64::max)
        + 14.0;
    let left = 8.0 + label_w.max(60.0);
    let kinds = bars_of(&ps[0], report.cores, report.shape.source);
    let legend_h = kinds.len() as f64 * 18.0 + 10.0;
    let per_row = kinds.len() as f64;
    let row_h = per_row * (BAR_H + BAR_GAP) - BAR_GAP + ROW_GAP;
    let plot_top = legend_h + 26.0;
    let plot_h = ps.len() as f64 * row_h + ROW_GAP;
    let max = ps
        .iter()
        .flat_map(|p| bars_of(p, report.cores, report.shape.source))
        .map(|b| b.2)
        .fold(0.0, f64::max);
    let (upper, ticks) = linear_ticks(max, 6);
    let x = Scale::linear(0.0, upper, left, left + PLOT_W);
    let x_ticks: Vec<(f64, String)> = ticks
        .iter()
        .map(|&t| (t, if t == 0.0 { "0".into() } else { seconds(t) }))
        .collect();
    let body = html! {
        g.legend {
            @for (i, (_, label, _, _)) in kinds.iter().enumerate() {
                @let ly = 8.0 + i as f64 * 18.0;
                g class=(colour_class(i)) {
                    rect x=(px(left)) y=(px(ly)) width="12" height="12" fill="currentColor" {}
                    text.fg x=(px(left + 18.0)) y=(px(ly + 10.0)) font-size=(FONT) fill="currentColor" { (label) }
                }
            }
        }
        (x_axis(&x, &x_ticks, plot_top, plot_top + plot_h, true))
        g.muted {
            line x1=(px(left)) x2=(px(left)) y1=(px(plot_top)) y2=(px(plot_top + plot_h)) stroke="currentColor" {}
            text x=(px(left + PLOT_W / 2.0)) y=(px(plot_top + plot_h + 34.0)) text-anchor="middle" font-size=(SMALL_FONT) fill="currentColor" {
                "projected seconds for all of it; after each bar: what bounds it"
            }
        }
        @for (r, p) in ps.iter().enumerate() {
            @let row_top = plot_top + ROW_GAP + r as f64 * row_h;
            g.row data-algorithm=(p.algorithm) data-backend=(p.backend) {
                text.fg x=(px(left - 8.0)) y=(px(row_top + (row_h - ROW_GAP) / 2.0 + 4.0)) text-anchor="end" font-size=(FONT) fill="currentColor" {
                    (p.algorithm)
                }
                @for (i, (metric, label, v, bound)) in bars_of(p, report.cores, report.shape.source).into_iter().enumerate() {
                    @let y = row_top + i as f64 * (BAR_H + BAR_GAP);
                    @let end = x.map(v);
                    g class=(colour_class(i)) {
                        rect.bar x=(px(left)) y=(px(y)) width=(px((end - left).max(0.5))) height=(px(BAR_H)) fill="currentColor"
                            data-algorithm=(p.algorithm) data-bound=[bound.map(bound_name)]
                            data-key=(key(metric, &p.algorithm)) data-value=(exact(v)) {
                            title {
                                (p.algorithm) " (" (p.backend) "), " (label) ": " (seconds(v))
                                @if let Some(b) = bound { ", bound by " (b.words()) }
                            }
                        }
                    }
                    text.fg x=(px(end + 5.0)) y=(px(y + BAR_H - 2.5)) font-size=(SMALL_FONT) fill="currentColor" {
                        (seconds(v))
                        @if let Some(b) = bound { tspan.muted fill="currentColor" { " " (b.words()) } }
                    }
                }
            }
        }
    };
    let fastest = &ps[0];
    let slowest = ps
        .iter()
        .max_by(|a, b| a.cached_all.total_cmp(&b.cached_all))
        .expect("projections are not empty");
    let desc = format!(
        "Horizontal bars of the projected time to hash all of {path} ({files} {what}, {total}) with each of {n} algorithms, fastest first (linear scale from zero): {read} on one thread and on {cores} threads{uncached}. Each bar on {cores} threads names what bounds it. Fastest: {fa} at {ft} ({fb}); slowest: {sa} at {st} ({sb}).",
        path = report.shape.path,
        files = count_text(report.shape.files),
        what = hashlab_bench::like::tables::noun(report.shape.source),
        total = bytes(report.shape.bytes),
        n = ps.len(),
        cores = report.cores,
        read = if report.shape.source == Source::Objects {
            "fetched from the store as `sum` fetches them"
        } else {
            "files in the page cache"
        },
        uncached = if report.projections.iter().any(|p| p.uncached_all.is_some()) {
            ", and read from the storage at the speed measured for it"
        } else {
            ""
        },
        fa = fastest.algorithm,
        ft = seconds(fastest.cached_all),
        fb = fastest.bound_cached.words(),
        sa = slowest.algorithm,
        st = seconds(slowest.cached_all),
        sb = slowest.bound_cached.words(),
    );
    Ok(Chart {
        id: id.to_string(),
        width: left + PLOT_W + VALUE_SPACE,
        height: plot_top + plot_h + 44.0,
        title: format!("Projected time per algorithm for {}", report.shape.path),
        desc,
        body,
    })
}

/// The bound as serde names it, for `data-bound`.
fn bound_name(b: Bound) -> &'static str {
    match b {
        Bound::Cpu => "cpu",
        Bound::PerFile => "per_file",
        Bound::Reading => "reading",
        Bound::Disk => "disk",
        Bound::Store => "store",
    }
}
