//! Reads the plotted values back out of the SVG (data attributes and marks'
//! positions against the axes' ticks) and checks them against the JSON results
//! they were drawn from: real runs committed in fixtures/results.

use hashlab::Registry;
use hashlab_bench::plan::{Mode, NULL_ALGORITHM};
use hashlab_bench::report::Report;
use hashlab_bench::results::CellResult;
use hashlab_report::{chart_svg, html_report, parse_results, ChartKind, Input, Options};
use roxmltree::{Document, Node};

fn fixture(name: &str) -> Input {
    let path = format!(
        "{}/../../fixtures/results/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Input {
        label: name.to_string(),
        report: parse_results(&bytes).unwrap_or_else(|e| panic!("{path}: {e}")),
    }
}

fn chart(kind: ChartKind, inputs: &[Input], size: Option<usize>) -> String {
    let registry = Registry::default();
    chart_svg(
        kind,
        inputs,
        &Options {
            registry: &registry,
            size,
        },
    )
    .unwrap()
}

fn attr(node: Node, name: &str) -> String {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> has no {name}", node.tag_name().name()))
        .to_string()
}

fn number(node: Node, name: &str) -> f64 {
    attr(node, name).parse().unwrap()
}

fn has_class(node: Node, class: &str) -> bool {
    node.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|x| x == class))
}

fn single_cells(report: &Report) -> Vec<&CellResult> {
    report
        .cells
        .iter()
        .filter(|c| {
            c.mode == Mode::Streams { threads: 1 }
                && c.algorithm != NULL_ALGORITHM
                && c.throughput.is_some()
        })
        .collect()
}

fn single<'a>(report: &'a Report, algorithm: &str, backend: &str, size: usize) -> &'a CellResult {
    single_cells(report)
        .into_iter()
        .find(|c| c.algorithm == algorithm && c.backend == backend && c.size == size)
        .unwrap_or_else(|| panic!("{algorithm}/{backend} at {size} is not in the results"))
}

fn mbps(c: &CellResult) -> f64 {
    c.throughput.as_ref().unwrap().mb_per_s
}

/// (x, y) of a `translate(x y)`.
fn translate(node: Node) -> (f64, f64) {
    let t = attr(node, "transform");
    let inner = t
        .strip_prefix("translate(")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap();
    let mut parts = inner.split(' ').map(|p| p.parse::<f64>().unwrap());
    (parts.next().unwrap(), parts.next().unwrap())
}

/// An axis's ticks: (value, pixel position).
fn ticks(axis: Node) -> Vec<(f64, f64)> {
    axis.children()
        .filter(|n| has_class(*n, "tick"))
        .map(|t| (number(t, "data-value"), number(t, "data-position")))
        .collect()
}

fn axis<'a, 'i>(scope: Node<'a, 'i>, which: &str) -> Node<'a, 'i> {
    scope
        .descendants()
        .find(|n| has_class(*n, "axis") && has_class(*n, which))
        .unwrap_or_else(|| panic!("no {which} axis"))
}

/// Where `value` falls on an axis, interpolated between its first and last tick.
fn position(ticks: &[(f64, f64)], value: f64, log: bool) -> f64 {
    let (v0, p0) = ticks[0];
    let (v1, p1) = ticks[ticks.len() - 1];
    let f = |v: f64| if log { v.ln() } else { v };
    p0 + (f(value) - f(v0)) / (f(v1) - f(v0)) * (p1 - p0)
}

/// Pixel values are written to a tenth of a pixel; ticks and marks each round once.
const PIXEL: f64 = 0.15;

#[test]
fn size_chart_plots_every_single_thread_cell_at_its_value() {
    let input = fixture("zen4-plain");
    let svg = chart(ChartKind::Size, std::slice::from_ref(&input), None);
    let doc = Document::parse(&svg).expect("well-formed SVG");
    let mut plotted = 0;
    for panel in doc.descendants().filter(|n| has_class(*n, "panel")) {
        let y_ticks = ticks(axis(panel, "y"));
        let x_ticks = ticks(axis(panel, "x"));
        assert!(y_ticks.len() >= 3 && x_ticks.len() == 9);
        for series in panel.descendants().filter(|n| has_class(*n, "series")) {
            let (alg, backend) = (attr(series, "data-algorithm"), attr(series, "data-backend"));
            assert_eq!(attr(series, "data-input"), "zen4-plain");
            let marks: Vec<Node> = series
                .children()
                .filter(|n| has_class(*n, "mark"))
                .collect();
            assert_eq!(marks.len(), 9, "{alg}: one mark per size");
            for mark in marks {
                let size: usize = attr(mark, "data-size").parse().unwrap();
                let value = number(mark, "data-value");
                let cell = single(&input.report, &alg, &backend, size);
                assert_eq!(value, mbps(cell), "{alg}/{backend} at {size}");
                assert_eq!(
                    attr(mark, "data-key"),
                    format!("mbps:zen4-plain:{alg}:{backend}:{size}")
                );
                let title = mark.children().find(|n| n.has_tag_name("title")).unwrap();
                assert!(title.text().unwrap().contains(&alg));
                let (x, y) = translate(mark);
                let tick_x = x_ticks.iter().find(|t| t.0 == size as f64).unwrap().1;
                assert!(
                    (x - tick_x).abs() <= PIXEL,
                    "{alg} at {size}: x {x} vs tick {tick_x}"
                );
                let expected_y = position(&y_ticks, value, true);
                assert!(
                    (y - expected_y).abs() <= 2.0 * PIXEL,
                    "{alg} at {size}: y {y}, {value} MB/s belongs at {expected_y}"
                );
                plotted += 1;
            }
        }
    }
    assert_eq!(plotted, single_cells(&input.report).len());
    assert_eq!(plotted, 36 * 9);
}

#[test]
fn overlaid_size_chart_keeps_each_input_apart() {
    let inputs = [fixture("zen4-plain"), fixture("zen4-mask-sha")];
    let svg = chart(ChartKind::Size, &inputs, None);
    let doc = Document::parse(&svg).unwrap();
    for input in &inputs {
        let series: Vec<Node> = doc
            .descendants()
            .filter(|n| has_class(*n, "series") && n.attribute("data-input") == Some(&input.label))
            .collect();
        assert_eq!(series.len(), 36, "{}", input.label);
        for s in series {
            for mark in s.children().filter(|n| has_class(*n, "mark")) {
                let size: usize = attr(mark, "data-size").parse().unwrap();
                let c = single(
                    &input.report,
                    &attr(s, "data-algorithm"),
                    &attr(s, "data-backend"),
                    size,
                );
                assert_eq!(number(mark, "data-value"), mbps(c));
            }
        }
    }
    // sha256 runs another backend when SHA-NI is masked; its two lines share a legend entry.
    let sha256: Vec<String> = doc
        .descendants()
        .filter(|n| has_class(*n, "series") && n.attribute("data-algorithm") == Some("sha256"))
        .map(|n| attr(n, "data-backend"))
        .collect();
    assert_eq!(sha256, ["rustcrypto", "openssl"]);
    let text = svg.to_lowercase();
    assert!(text.contains("zen4-mask-sha: amd epyc without sha-ni"));
}

#[test]
fn bars_are_as_long_as_their_values_fastest_first() {
    let input = fixture("zen4-plain");
    let size = 1 << 20;
    let svg = chart(ChartKind::Bars, std::slice::from_ref(&input), Some(size));
    let doc = Document::parse(&svg).unwrap();
    let blocks: Vec<Node> = doc
        .descendants()
        .filter(|n| has_class(*n, "block"))
        .collect();
    let titles: Vec<String> = blocks.iter().map(|b| attr(*b, "data-block")).collect();
    assert_eq!(
        titles,
        [
            "Cryptographic hashes and MACs",
            "Keyed, non-cryptographic hashes and checksums"
        ]
    );
    let registry = Registry::default();
    let mut drawn = 0;
    for block in blocks {
        let x_ticks = ticks(axis(block, "x"));
        assert_eq!(x_ticks[0].0, 0.0);
        let mut previous = f64::INFINITY;
        for bar in block.descendants().filter(|n| has_class(*n, "bar")) {
            let alg = attr(bar, "data-algorithm");
            let crypto = matches!(
                registry.algorithm(&alg).unwrap().class,
                hashlab::Class::Cryptographic | hashlab::Class::Mac
            );
            assert_eq!(
                crypto,
                attr(block, "data-block").starts_with("Crypto"),
                "{alg}"
            );
            let cell = single(&input.report, &alg, &attr(bar, "data-backend"), size);
            let value = number(bar, "data-value");
            assert_eq!(value, mbps(cell));
            let (slow, fast) = cell.mb_per_s_iqr.unwrap();
            assert_eq!(number(bar, "data-iqr-low-mbps"), slow);
            assert_eq!(number(bar, "data-iqr-high-mbps"), fast);
            assert!(value <= previous, "fastest first");
            previous = value;
            let end = number(bar, "x") + number(bar, "width");
            assert!(
                (number(bar, "x") - x_ticks[0].1).abs() <= PIXEL,
                "bars start at zero"
            );
            let expected = position(&x_ticks, value, false);
            assert!(
                (end - expected).abs() <= 2.0 * PIXEL,
                "{value} MB/s ends at {end}, not {expected}"
            );
            drawn += 1;
        }
    }
    assert_eq!(drawn, 36);
}

#[test]
fn bars_of_two_inputs_pair_up_by_algorithm() {
    let inputs = [fixture("zen4-plain"), fixture("zen4-mask-sha")];
    let svg = chart(ChartKind::Bars, &inputs, None);
    let doc = Document::parse(&svg).unwrap();
    let rows: Vec<Node> = doc.descendants().filter(|n| has_class(*n, "row")).collect();
    assert_eq!(
        rows.len(),
        36,
        "one row per algorithm, whatever backend each input ran"
    );
    let sha256 = rows
        .iter()
        .find(|r| r.attribute("data-algorithm") == Some("sha256"))
        .unwrap();
    let bars: Vec<(String, String, f64)> = sha256
        .descendants()
        .filter(|n| has_class(*n, "bar"))
        .map(|b| {
            (
                attr(b, "data-input"),
                attr(b, "data-backend"),
                number(b, "data-value"),
            )
        })
        .collect();
    let plain = mbps(single(&inputs[0].report, "sha256", "rustcrypto", 16 << 20));
    let masked = mbps(single(&inputs[1].report, "sha256", "openssl", 16 << 20));
    assert_eq!(
        bars,
        [
            ("zen4-plain".to_string(), "rustcrypto".to_string(), plain),
            ("zen4-mask-sha".to_string(), "openssl".to_string(), masked)
        ]
    );
    assert!(plain > 2.0 * masked, "SHA-NI shows: {plain} vs {masked}");
}

#[test]
fn box_plots_carry_every_raw_sample_in_mb_per_s() {
    let input = fixture("zen4-mask-sha");
    let size = 16 << 20;
    let svg = chart(ChartKind::Box, std::slice::from_ref(&input), None);
    let doc = Document::parse(&svg).unwrap();
    let x_ticks = ticks(axis(doc.root(), "x"));
    let boxes: Vec<Node> = doc.descendants().filter(|n| has_class(*n, "box")).collect();
    assert_eq!(boxes.len(), 36);
    let mut rejected_seen = 0;
    for b in boxes {
        let cell = single(
            &input.report,
            &attr(b, "data-algorithm"),
            &attr(b, "data-backend"),
            size,
        );
        let summary = cell.summary.as_ref().unwrap();
        let to_mbps = |seconds: f64| size as f64 / seconds / 1e6;
        assert_eq!(number(b, "data-value"), mbps(cell));
        assert_eq!(
            number(b, "data-low-quartile-mbps"),
            cell.mb_per_s_iqr.unwrap().0
        );
        assert_eq!(
            number(b, "data-high-quartile-mbps"),
            cell.mb_per_s_iqr.unwrap().1
        );
        assert_eq!(number(b, "data-slowest-mbps"), to_mbps(summary.max));
        assert_eq!(number(b, "data-fastest-mbps"), to_mbps(summary.min));
        assert_eq!(number(b, "data-kept"), summary.n as f64);
        assert_eq!(number(b, "data-outliers"), summary.outliers as f64);
        let dots: Vec<Node> = b.children().filter(|n| has_class(*n, "sample")).collect();
        assert_eq!(dots.len(), cell.samples.len(), "every raw sample is drawn");
        for (dot, seconds) in dots.iter().zip(&cell.samples) {
            let v = number(*dot, "data-mbps");
            assert_eq!(v, to_mbps(*seconds));
            let rejected = *seconds < summary.min || *seconds > summary.max;
            assert_eq!(has_class(*dot, "outlier"), rejected);
            rejected_seen += rejected as usize;
            let cx = number(*dot, "cx");
            assert!((cx - position(&x_ticks, v, true)).abs() <= 2.0 * PIXEL);
        }
        let quartiles = b.children().find(|n| has_class(*n, "quartiles")).unwrap();
        let left = number(quartiles, "x");
        assert!(
            (left - position(&x_ticks, cell.mb_per_s_iqr.unwrap().0, true)).abs() <= 2.0 * PIXEL
        );
    }
    let outliers_in_json: usize = single_cells(&input.report)
        .iter()
        .filter(|c| c.size == size)
        .map(|c| c.summary.as_ref().unwrap().outliers)
        .sum();
    assert_eq!(rejected_seen, outliers_in_json);
}

#[test]
fn scaling_bars_show_the_efficiencies_of_the_results() {
    let input = fixture("zen4-plain");
    let size = 16 << 20;
    let svg = chart(ChartKind::Scaling, std::slice::from_ref(&input), None);
    let doc = Document::parse(&svg).unwrap();
    let x_ticks = ticks(axis(doc.root(), "x"));
    let bars: Vec<Node> = doc.descendants().filter(|n| has_class(*n, "bar")).collect();
    let mut expected = 0;
    for row in input
        .report
        .scaling
        .iter()
        .filter(|s| s.size == size && s.algorithm != NULL_ALGORITHM)
    {
        for (mode, mb, efficiency) in [
            ("streams", row.streams_mb_per_s, row.streams_efficiency),
            (
                "one-stream",
                row.one_stream_mb_per_s,
                row.one_stream_efficiency,
            ),
        ] {
            let bar = bars.iter().find(|b| {
                b.attribute("data-algorithm") == Some(&row.algorithm)
                    && b.attribute("data-backend") == Some(&row.backend)
                    && b.attribute("data-mode") == Some(mode)
                    && number(**b, "data-threads") == row.threads as f64
            });
            match (bar, efficiency) {
                (Some(bar), Some(e)) => {
                    assert_eq!(number(*bar, "data-value"), e);
                    assert_eq!(number(*bar, "data-mbps"), mb.unwrap());
                    assert_eq!(
                        number(*bar, "data-single-mbps"),
                        row.single_mb_per_s.unwrap()
                    );
                    let end = number(*bar, "x") + number(*bar, "width");
                    assert!((end - position(&x_ticks, e, false)).abs() <= 2.0 * PIXEL);
                    expected += 1;
                }
                (None, None) => {}
                (bar, e) => panic!(
                    "{}/{mode}: bar {} but efficiency {e:?}",
                    row.algorithm,
                    bar.is_some()
                ),
            }
        }
    }
    assert_eq!(bars.len(), expected);
    assert!(
        expected >= 36,
        "streams for every pair, one-stream where parallel"
    );
}

/// The `<svg>` and `<table>` elements of a page, each parsed as XML.
fn fragments(html: &str, tag: &str) -> Vec<String> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find(&open) {
        let end = rest[start..].find(&close).expect("closed") + start + close.len();
        found.push(rest[start..end].to_string());
        rest = &rest[end..];
    }
    found
}

#[test]
fn page_tables_carry_the_numbers_of_its_charts() {
    let inputs = [fixture("zen4-plain"), fixture("zen4-mask-sha")];
    let registry = Registry::default();
    let html = html_report(
        &inputs,
        &Options {
            registry: &registry,
            size: None,
        },
        &[],
    )
    .unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for outside in ["<script", "<link", "url(", "@import", "http:", "https:"] {
        assert!(
            !html.contains(outside),
            "the page must work offline: {outside}"
        );
    }
    let mut cells = std::collections::HashMap::new();
    for table in fragments(&html, "table") {
        let doc = Document::parse(&table).expect("a table is well-formed");
        for td in doc.descendants().filter(|n| n.has_tag_name("td")) {
            if let Some(key) = td.attribute("data-key") {
                let value = number(td, "data-value");
                let previous = cells.insert(key.to_string(), value);
                assert!(
                    previous.is_none_or(|p| p == value),
                    "{key} differs between tables"
                );
            }
        }
    }
    let svgs = fragments(&html, "svg");
    assert_eq!(
        svgs.len(),
        2 + 2 * 4,
        "overview size and bars; per input size, bars, box, scaling"
    );
    let mut marks = 0;
    for svg in svgs {
        let doc = Document::parse(&svg).expect("an inline chart is well-formed");
        let root = doc.root_element();
        assert!(root.children().any(|n| n.has_tag_name("title")));
        assert!(root.children().any(|n| n.has_tag_name("desc")));
        for mark in doc
            .descendants()
            .filter(|n| n.attribute("data-key").is_some())
        {
            let key = attr(mark, "data-key");
            let cell = cells
                .get(&key)
                .unwrap_or_else(|| panic!("no table cell for {key}"));
            assert_eq!(*cell, number(mark, "data-value"), "{key}");
            marks += 1;
        }
    }
    assert!(marks > 2 * (36 * 9 + 36 * 2), "{marks}");
    // Every input's own section, and the inputs named with their masks.
    assert!(html.contains("id=\"input-0\"") && html.contains("id=\"input-1\""));
    assert!(html.contains("as if without SHA-NI"));
}

#[test]
fn standalone_charts_are_svg_files_with_their_text_alternative() {
    let input = fixture("zen4-plain");
    for kind in [
        ChartKind::Size,
        ChartKind::Bars,
        ChartKind::Box,
        ChartKind::Scaling,
    ] {
        let svg = chart(kind, std::slice::from_ref(&input), None);
        assert!(svg.starts_with("<?xml"));
        let doc = Document::parse(&svg).unwrap();
        let root = doc.root_element();
        assert_eq!(
            root.tag_name().namespace(),
            Some("http://www.w3.org/2000/svg")
        );
        assert!(root.children().any(|n| n.has_tag_name("style")));
        let title = root.children().find(|n| n.has_tag_name("title")).unwrap();
        assert!(!title.text().unwrap().is_empty());
        let desc = root.children().find(|n| n.has_tag_name("desc")).unwrap();
        assert!(
            desc.text().unwrap().contains("MB/s") || desc.text().unwrap().contains("efficiency")
        );
        assert_eq!(attr(root, "role"), "img");
    }
}

#[test]
fn what_cannot_be_drawn_is_said_not_faked() {
    let input = fixture("zen4-plain");
    let registry = Registry::default();
    let options = |size| Options {
        registry: &registry,
        size,
    };
    let one = std::slice::from_ref(&input);
    let err = chart_svg(ChartKind::Backends, one, &options(None)).unwrap_err();
    assert!(err.to_string().contains("--all-backends"), "{err}");
    let err = chart_svg(ChartKind::Bars, one, &options(Some(8000))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "8 KB: not measured in zen4-plain (measured: 16 B, 64 B, 256 B, 1 KiB, 4 KiB, 16 KiB, 64 KiB, 1 MiB, 16 MiB)"
    );
    let two = [fixture("zen4-plain"), fixture("zen4-mask-sha")];
    assert!(chart_svg(ChartKind::Box, &two, &options(None)).is_err());
    let html = html_report(one, &options(None), &[]).unwrap();
    assert!(html.contains("no algorithm was measured with more than one backend"));
}

#[test]
fn bad_results_are_named_in_one_line() {
    let problem = |bytes: &[u8]| parse_results(bytes).unwrap_err();
    assert!(problem(b"{\"schema_version\": 1,").starts_with("not valid JSON: "));
    assert!(problem(b"[1, 2]").starts_with("not hashlab bench results"));
    assert_eq!(
        problem(b"{\"schema_version\": 99}"),
        "results schema version 99, but this hashlab reads version 1"
    );
    let missing = problem(b"{\"schema_version\": 1, \"tool\": \"hashlab\"}");
    assert!(
        missing.starts_with("not hashlab bench results: missing field"),
        "{missing}"
    );
    for p in [problem(b"{\"schema_version\": 1,"), missing] {
        assert!(!p.contains('\n'));
    }
}

#[test]
fn backends_of_one_algorithm_are_drawn_as_shares_of_the_fastest() {
    let input = fixture("zen4-backends");
    let size = 1 << 20;
    let svg = chart(ChartKind::Backends, std::slice::from_ref(&input), None);
    let doc = Document::parse(&svg).unwrap();
    let x_ticks = ticks(axis(doc.root(), "x"));
    let groups: Vec<Node> = doc
        .descendants()
        .filter(|n| has_class(*n, "group"))
        .collect();
    let algorithms: Vec<String> = groups.iter().map(|g| attr(*g, "data-algorithm")).collect();
    let mut expected: Vec<String> = Vec::new();
    for c in single_cells(&input.report)
        .into_iter()
        .filter(|c| c.size == size)
    {
        let backends = single_cells(&input.report)
            .into_iter()
            .filter(|d| d.size == size && d.algorithm == c.algorithm)
            .count();
        if backends > 1 && !expected.contains(&c.algorithm) {
            expected.push(c.algorithm.clone());
        }
    }
    assert_eq!(algorithms, expected);
    assert!(algorithms.len() >= 6, "{algorithms:?}");
    for group in groups {
        let bars: Vec<Node> = group
            .descendants()
            .filter(|n| has_class(*n, "bar"))
            .collect();
        let alg = attr(group, "data-algorithm");
        let in_json: Vec<&CellResult> = single_cells(&input.report)
            .into_iter()
            .filter(|c| c.size == size && c.algorithm == alg)
            .collect();
        assert_eq!(bars.len(), in_json.len(), "{alg}: a bar per backend");
        let fastest = in_json.iter().map(|c| mbps(c)).fold(0.0, f64::max);
        for bar in bars {
            let cell = single(&input.report, &alg, &attr(bar, "data-backend"), size);
            assert_eq!(number(bar, "data-value"), mbps(cell));
            let share = number(bar, "data-share");
            assert_eq!(share, mbps(cell) / fastest);
            let end = number(bar, "x") + number(bar, "width");
            assert!((end - position(&x_ticks, share, false)).abs() <= 2.0 * PIXEL);
        }
    }
}

#[test]
fn sections_made_elsewhere_join_the_page_after_the_overview() {
    use hashlab_report::{Cell, Section, Table};
    let inputs = [fixture("zen4-plain"), fixture("zen4-mask-sha")];
    let registry = Registry::default();
    let extra = Section {
        id: "elsewhere".into(),
        title: "A section from another crate".into(),
        paragraphs: vec!["Its words & numbers are escaped <here>.".into()],
        tables: vec![Table {
            rows: vec![vec![Cell::text("x"), Cell::number("1.50", 1.5)]],
            ..Table::new("One row", &["name", "value"])
        }],
    };
    let html = html_report(
        &inputs,
        &Options {
            registry: &registry,
            size: None,
        },
        std::slice::from_ref(&extra),
    )
    .unwrap();
    let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(at("href=\"#elsewhere\"") < at("<section id=\"overview\""));
    assert!(at("<section id=\"overview\"") < at("<section id=\"elsewhere\""));
    assert!(at("<section id=\"elsewhere\"") < at("<section id=\"input-0\""));
    assert!(html.contains("Its words &amp; numbers are escaped &lt;here&gt;."));
    assert!(html.contains("<td class=\"num\" data-value=\"1.5\">1.50</td>"));
}
