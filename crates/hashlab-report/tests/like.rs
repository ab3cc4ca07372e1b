//! The page of a `bench --like` report, from the real reports committed in
//! fixtures/results: every mark carries the report's own number, sits at a
//! length proportional to it, and has the table cell of the same key and value.

use std::collections::HashMap;

use hashlab_bench::like::LikeReport;
use hashlab_report::{like_page, parse_like};
use roxmltree::{Document, Node};

fn fixture_bytes(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../fixtures/results/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fixture(name: &str) -> LikeReport {
    parse_like(&fixture_bytes(name))
        .unwrap()
        .unwrap_or_else(|| panic!("{name} is not read as a like report"))
}

/// The inline SVG chart of `id` out of the page, as XML.
fn chart_xml(page: &str, id: &str) -> String {
    let start = page
        .find(&format!("<svg class=\"chart\" id=\"{id}\""))
        .unwrap_or_else(|| panic!("no chart {id}"));
    let end = start + page[start..].find("</svg>").unwrap() + "</svg>".len();
    page[start..end].to_string()
}

/// The `data-key` -> `data-value` of the page's table cells.
fn table_cells(page: &str) -> HashMap<String, f64> {
    let mut out = HashMap::new();
    for td in page.split("<td").skip(1) {
        let head = &td[..td.find('>').unwrap()];
        let attr = |name: &str| {
            let at = head.find(&format!(" {name}=\""))? + name.len() + 3;
            Some(head[at..at + head[at..].find('"')?].to_string())
        };
        if let (Some(key), Some(value)) = (attr("data-key"), attr("data-value")) {
            out.insert(key, value.parse().unwrap());
        }
    }
    out
}

fn marks<'a>(doc: &'a Document<'a>) -> Vec<Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("data-key").is_some())
        .collect()
}

fn value(n: Node) -> f64 {
    n.attribute("data-value").unwrap().parse().unwrap()
}

fn key<'a>(n: Node<'a, 'a>) -> &'a str {
    n.attribute("data-key").unwrap()
}

#[test]
fn the_histogram_holds_every_band_and_sums_to_the_totals() {
    for name in ["like-tree", "like-git"] {
        let report = fixture(name);
        let page = like_page(&report);
        let xml = chart_xml(&page, "like-shape");
        let doc = Document::parse(&xml).unwrap();
        let marks = marks(&doc);
        let cells = table_cells(&page);
        let shape = &report.shape;
        assert_eq!(marks.len(), 2 * shape.bands.len(), "{name}");
        for band in &shape.bands {
            let count = marks
                .iter()
                .find(|m| key(**m) == format!("like-count:{}", band.low))
                .unwrap();
            let bytes = marks
                .iter()
                .find(|m| key(**m) == format!("like-bytes:{}", band.low))
                .unwrap();
            assert_eq!(value(*count), band.count);
            assert_eq!(value(*bytes), band.bytes);
        }
        let counted: f64 = marks
            .iter()
            .filter(|m| key(**m).starts_with("like-count:"))
            .map(|m| value(*m))
            .sum();
        let bytes: f64 = marks
            .iter()
            .filter(|m| key(**m).starts_with("like-bytes:"))
            .map(|m| value(*m))
            .sum();
        assert!((counted - shape.files).abs() < 1e-6 * shape.files, "{name}");
        assert!((bytes - shape.bytes).abs() < 1e-6 * shape.bytes, "{name}");
        // Column heights are proportional to the values, per panel (printed
        // to a tenth of a pixel, and at least half a pixel).
        for metric in ["count", "bytes"] {
            let panel: Vec<(f64, f64)> = marks
                .iter()
                .filter(|m| key(**m).starts_with(&format!("like-{metric}:")))
                .map(|m| (value(*m), m.attribute("height").unwrap().parse().unwrap()))
                .collect();
            let (top_value, top_height) = panel
                .iter()
                .copied()
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .unwrap();
            for (v, h) in &panel {
                let expected = (v * top_height / top_value).max(0.5);
                assert!((h - expected).abs() <= 0.15, "{name} {metric}: {panel:?}");
            }
        }
        for m in &marks {
            assert_eq!(cells.get(key(*m)), Some(&value(*m)), "{name}: {}", key(*m));
        }
    }
}

#[test]
fn every_algorithm_has_its_bars_with_the_bound_named() {
    for name in ["like-tree", "like-git"] {
        let report = fixture(name);
        let page = like_page(&report);
        let xml = chart_xml(&page, "like-projected");
        let doc = Document::parse(&xml).unwrap();
        let marks = marks(&doc);
        let cells = table_cells(&page);
        let uncached = report.storage.is_some();
        assert_eq!(
            marks.len(),
            report.projections.len() * if uncached { 3 } else { 2 },
            "{name}"
        );
        let mut width_per_second = Vec::new();
        for p in &report.projections {
            let bar = |metric: &str| {
                marks
                    .iter()
                    .find(|m| key(**m) == format!("like-{metric}:{}", p.algorithm))
                    .copied()
            };
            let one = bar("cached-one").unwrap();
            let all = bar("cached-all").unwrap();
            assert_eq!(value(one), p.cached_one);
            assert_eq!(value(all), p.cached_all);
            assert_eq!(
                all.attribute("data-bound"),
                Some(
                    serde_json::to_value(p.bound_cached)
                        .unwrap()
                        .as_str()
                        .unwrap()
                )
            );
            match (bar("uncached-all"), p.uncached_all) {
                (Some(m), Some(s)) => {
                    assert_eq!(value(m), s);
                    let bound = p.bound_uncached.unwrap();
                    assert_eq!(
                        m.attribute("data-bound"),
                        Some(serde_json::to_value(bound).unwrap().as_str().unwrap())
                    );
                    // The bound is written beside the bar too.
                    let row_text: String = m
                        .parent()
                        .unwrap()
                        .parent()
                        .unwrap()
                        .descendants()
                        .filter(|n| n.is_text())
                        .map(|n| n.text().unwrap())
                        .collect();
                    assert!(row_text.contains(bound.words()), "{row_text}");
                }
                (None, None) => {}
                (m, s) => panic!("{name} {}: bar {m:?}, projection {s:?}", p.algorithm),
            }
            for m in [one, all] {
                let w: f64 = m.attribute("width").unwrap().parse().unwrap();
                if w > 20.0 {
                    width_per_second.push(w / value(m));
                }
            }
        }
        // One scale for every bar.
        for r in &width_per_second {
            assert!(
                (r / width_per_second[0] - 1.0).abs() < 0.02,
                "{name}: {width_per_second:?}"
            );
        }
        for m in &marks {
            assert_eq!(cells.get(key(*m)), Some(&value(*m)), "{name}: {}", key(*m));
        }
        // Fastest first, as the report orders them.
        let order: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("g") && n.attribute("data-algorithm").is_some())
            .map(|n| n.attribute("data-algorithm").unwrap())
            .collect();
        let expected: Vec<&str> = report
            .projections
            .iter()
            .map(|p| p.algorithm.as_str())
            .collect();
        assert_eq!(order, expected);
    }
}

#[test]
fn the_page_has_the_scaling_the_storage_and_the_real_runs() {
    let report = fixture("like-tree");
    let page = like_page(&report);
    assert!(page.contains("id=\"scaling\"") && page.contains("Dask, 16 workers"));
    assert!(!report.verified.is_empty());
    assert!(page.contains("Projected against a real run"));
    assert!(page.contains("sampled files"));
    let git = like_page(&fixture("like-git"));
    assert!(git.contains("was not measured"));
    assert!(!git.contains("uncached, ") && !git.contains("reading alone"));
    assert!(page.contains("reading alone"));
    assert!(!git.contains("<script"));
}

#[test]
fn bench_results_are_not_like_reports_and_broken_ones_say_why() {
    let bench = fixture_bytes("zen4-plain");
    assert_eq!(parse_like(&bench), Ok(None));
    let err = parse_like(br#"{"shape": {"files": 1}, "projections": []}"#).unwrap_err();
    assert!(
        err.starts_with("not a hashlab bench --like report: "),
        "{err}"
    );
    assert!(parse_like(b"{").unwrap_err().starts_with("not valid JSON"));
}
