//! Comparisons in words: the labels, size ranges and ranking-flip sentences
//! that `hashlab compare` prints and `hashlab report` puts in its page, written
//! once here so the terminal and the page say the same thing.

use crate::plan::Mode;
use crate::sizes::size_label;

use super::{Comparison, Entry, Flip, Order, Row};

/// The thread mode of a cell, as the `threads` column shows it.
pub fn mode_label(mode: &Mode) -> String {
    match *mode {
        Mode::Streams { threads: 1 } => "1".into(),
        Mode::Streams { threads } => format!("{threads} streams"),
        Mode::OneStream { threads } => format!("{threads}, one message"),
        Mode::Latency => "latency".into(),
        Mode::File { cold: false } => "file".into(),
        Mode::File { cold: true } => "file, cold".into(),
        Mode::Keys { chained: false } => "short keys".into(),
        Mode::Keys { chained: true } => "short keys, chained".into(),
        Mode::Table { .. } => "hash table".into(),
    }
}

pub fn mode_title(mode: &Mode) -> String {
    match *mode {
        Mode::Streams { threads: 1 } => "1 thread".into(),
        Mode::Streams { threads } => format!("{threads} threads, one stream each"),
        Mode::OneStream { threads } => format!("{threads} threads on one message"),
        Mode::Latency => "latency".into(),
        Mode::File { cold: false } => "file".into(),
        Mode::File { cold: true } => "file, cold".into(),
        Mode::Keys { chained: false } => "short keys (1 to 32 bytes)".into(),
        Mode::Keys { chained: true } => "short keys (1 to 32 bytes), chained".into(),
        Mode::Table { .. } => "hash table over a word list".into(),
    }
}

/// "A", "B", ... for column headers; the legend says which input each is.
pub fn letter(i: usize) -> String {
    if i < 26 {
        ((b'A' + i as u8) as char).to_string()
    } else {
        format!("#{}", i + 1)
    }
}

pub fn backend_cell(row: &Row) -> String {
    let names: Vec<&str> = row
        .sides
        .iter()
        .map(|s| s.as_ref().map_or("-", |s| s.backend.as_str()))
        .collect();
    if names.iter().all(|n| *n == names[0]) {
        names[0].to_string()
    } else {
        names.join(" / ")
    }
}

/// Sizes as ranges over the sizes compared: "16 B..4 KiB, 1 MiB", or "all sizes".
pub fn size_ranges(sizes: &[usize], all: &[usize]) -> String {
    if sizes.len() == all.len() && all.len() > 1 {
        return "all sizes".into();
    }
    let positions: Vec<usize> = sizes
        .iter()
        .filter_map(|s| all.iter().position(|a| a == s))
        .collect();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < positions.len() {
        let start = i;
        while i + 1 < positions.len() && positions[i + 1] == positions[i] + 1 {
            i += 1;
        }
        let (a, b) = (all[positions[start]], all[positions[i]]);
        parts.push(match i - start {
            0 => size_label(a),
            1 => format!("{}, {}", size_label(a), size_label(b)),
            _ => format!("{}..{}", size_label(a), size_label(b)),
        });
        i += 1;
    }
    parts.join(", ")
}

pub fn backends_note(backends: &[Option<String>]) -> String {
    let present: Vec<&String> = backends.iter().flatten().collect();
    if present.iter().all(|b| *b == present[0]) {
        return String::new();
    }
    let parts: Vec<String> = backends
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.as_ref().map(|b| format!("{}: {b}", letter(i))))
        .collect();
    format!(" ({})", parts.join(", "))
}

pub fn order_text(order: &[Order]) -> String {
    order
        .iter()
        .enumerate()
        .filter_map(|(i, o)| match o {
            Order::FirstAhead => Some(format!("ahead on {}", letter(i))),
            Order::SecondAhead => Some(format!("behind on {}", letter(i))),
            Order::Tie => Some(format!("level on {}", letter(i))),
            Order::Absent => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn feature_note(c: &Comparison, features: &[String]) -> String {
    let parts: Vec<String> = c
        .feature_differences
        .iter()
        .filter(|d| features.contains(&d.feature))
        .map(|d| {
            let without: Vec<String> = (0..c.inputs.len())
                .filter(|&i| !d.usable[i])
                .map(|i| {
                    if d.masked[i] {
                        format!("masked on {}", letter(i))
                    } else {
                        format!("absent on {}", letter(i))
                    }
                })
                .collect();
            format!("{} ({})", d.label, without.join(", "))
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("; usable CPU features differ: {}", parts.join(", "))
    }
}

pub fn explanation(c: &Comparison, flip: &Flip) -> String {
    if !flip.explaining_features.is_empty() {
        return feature_note(c, &flip.explaining_features);
    }
    if flip.differing_features.is_empty() {
        return String::new();
    }
    let labels: Vec<&str> = c
        .feature_differences
        .iter()
        .filter(|d| flip.differing_features.contains(&d.feature))
        .map(|d| d.label.as_str())
        .collect();
    format!(
        "; no code path of either uses {} (run-to-run noise?)",
        labels.join(", ")
    )
}

/// Every message size in the comparison, ascending.
pub fn compared_sizes(c: &Comparison) -> Vec<usize> {
    let mut sizes: Vec<usize> = c.rows.iter().map(|r| r.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Flips grouped by the entry that was ahead first and how the order went:
/// one heading per group, one line per entry it passed or fell behind.
pub fn flip_lines(c: &Comparison) -> Vec<String> {
    let sizes = compared_sizes(c);
    let mut groups: Vec<(&Mode, &Entry, &[Order], Vec<&Flip>)> = Vec::new();
    for f in &c.flips {
        match groups.iter_mut().find(|g| {
            *g.0 == f.mode
                && *g.1 == f.first
                && g.2 == f.order.as_slice()
                && g.3[0].explaining_features == f.explaining_features
        }) {
            Some(g) => g.3.push(f),
            None => groups.push((&f.mode, &f.first, &f.order, vec![f])),
        }
    }
    let mut lines = Vec::new();
    for (mode, first, order, flips) in groups {
        lines.push(format!(
            "{}: {}{} {}{}",
            mode_title(mode),
            first.name(),
            backends_note(&flips[0].first_backends),
            order_text(order),
            explanation(c, flips[0]),
        ));
        for f in flips {
            lines.push(format!(
                "    {}{} at {}",
                f.second.name(),
                backends_note(&f.second_backends),
                size_ranges(&f.sizes, &sizes)
            ));
        }
    }
    lines
}

/// "A = plain: AMD EPYC ..., hashlab 0.1.0 (abc123), 2026-..., CPU mask sha".
pub fn input_line(c: &Comparison, i: usize) -> String {
    let input = &c.inputs[i];
    let mut line = format!(
        "{} = {}: {}, hashlab {}",
        letter(i),
        input.label,
        input.cpu_model,
        input.version
    );
    if let Some(commit) = &input.git_commit {
        line.push_str(&format!(" ({commit})"));
    }
    line.push_str(&format!(", {}", input.timestamp));
    if !input.cpu_mask.is_empty() {
        line.push_str(&format!(", CPU mask {}", input.cpu_mask.join(",")));
    }
    if input.partial {
        line.push_str(" (PARTIAL: interrupted run)");
    }
    line
}

/// Which usable CPU features differ between the inputs, in one sentence.
pub fn features_line(c: &Comparison) -> String {
    if c.feature_differences.is_empty() {
        return "The inputs could use the same CPU features.".into();
    }
    let all: Vec<String> = c
        .feature_differences
        .iter()
        .map(|d| d.feature.clone())
        .collect();
    format!(
        "Usable CPU features that differ: {}",
        feature_note(c, &all).trim_start_matches("; usable CPU features differ: ")
    )
}

/// What the table's columns and marks mean.
pub fn legend(c: &Comparison) -> String {
    format!(
        "MB/s = 10^6 bytes/s at the median; # = rank among the algorithms at that size and thread mode; \
         ratios are throughput against {}; ~ = within the noise or under {:.0} % (95 % bootstrap interval, the bench's significance test)",
        letter(0),
        c.min_effect * 100.0
    )
}

/// A ratio as the table prints it: `0.28`, or `0.98 ~` inside the noise.
pub fn ratio_text(ratio: &super::Ratio) -> String {
    if ratio.significant {
        format!("{:.2}", ratio.ratio)
    } else {
        format!("{:.2} ~", ratio.ratio)
    }
}

/// Entries measured on some inputs only: "blake2sp: only on A (rustcrypto)".
pub fn unmatched_lines(c: &Comparison) -> Vec<String> {
    c.unmatched
        .iter()
        .map(|u| {
            let on: Vec<String> = u
                .backends
                .iter()
                .enumerate()
                .filter_map(|(i, b)| b.as_ref().map(|b| format!("{} ({b})", letter(i))))
                .collect();
            format!("{}: only on {}", u.entry.name(), on.join(", "))
        })
        .collect()
}

/// The table's columns: algorithm, backend, size, threads, then MB/s and rank per input, then each input's ratio to the first.
pub fn column_headers(c: &Comparison) -> Vec<String> {
    let mut h: Vec<String> = ["algorithm", "backend", "size", "threads"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for i in 0..c.inputs.len() {
        h.push(format!("{} MB/s", letter(i)));
        h.push(format!("{} #", letter(i)));
    }
    for i in 1..c.inputs.len() {
        h.push(format!("{}/{}", letter(i), letter(0)));
    }
    h
}

/// The comparison as `compare` prints it: who was compared, the side-by-side
/// table, the ranking flips and what only some inputs measured; the flat
/// table (one line per row and input) is what a spreadsheet gets.
pub fn document(c: &Comparison) -> hashlab_table::Document {
    use hashlab_table::{Document, Table};
    let mut preamble: Vec<String> = (0..c.inputs.len()).map(|i| input_line(c, i)).collect();
    preamble.push(features_line(c));
    preamble.push(legend(c));
    let mut doc = Document {
        preamble,
        flat: Some(flat_table(c)),
        ..Document::default()
    };
    doc.push_table(Table {
        title: String::new(),
        ..throughput_table(c)
    });
    let flips = flip_lines(c);
    if flips.is_empty() {
        doc.push_list(
            "Ranking flips",
            vec!["none: no two algorithms swap places significantly between the inputs".into()],
        );
    } else {
        doc.push_lines(
            "Ranking flips (each order significant on its input, by the same test)",
            flips,
        );
    }
    doc.push_list("Measured on some inputs only", unmatched_lines(c));
    doc
}

/// One line per row and input, raw numbers, for spreadsheets.
fn flat_table(c: &Comparison) -> hashlab_table::Table {
    use hashlab_table::{Cell, Table};
    let mut table = Table::new(
        "",
        &[
            "algorithm",
            "backend",
            "size",
            "mode",
            "threads",
            "input",
            "mb_per_s",
            "rank",
            "ratio_to_first",
            "ratio_low",
            "ratio_high",
            "significant",
        ],
    );
    let opt = |x: Option<f64>| x.map_or_else(|| Cell::text(""), |v| Cell::number(v.to_string(), v));
    for row in &c.rows {
        for (i, side) in row.sides.iter().enumerate() {
            let Some(side) = side else { continue };
            let ratio = row.versus_first[i].as_ref();
            table.rows.push(vec![
                Cell::text(&row.entry.algorithm),
                Cell::text(&side.backend),
                Cell::count(row.size),
                Cell::text(crate::tables::mode_name(&row.mode)),
                Cell::count(row.mode.threads()),
                Cell::text(&c.inputs[i].label),
                opt(side.mb_per_s),
                side.rank.map_or_else(|| Cell::text(""), Cell::count),
                opt(ratio.map(|r| r.ratio)),
                opt(ratio.map(|r| r.low)),
                opt(ratio.map(|r| r.high)),
                Cell::text(ratio.map(|r| r.significant.to_string()).unwrap_or_default()),
            ]);
        }
    }
    table
}

/// MB/s, rank and ratio to the first input, per row: the side-by-side table of
/// `compare` and of the report.
pub fn throughput_table(c: &Comparison) -> hashlab_table::Table {
    use hashlab_table::{Cell, Table};
    let missing = || Cell::missing("-");
    let rows = c
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![
                Cell::text(&row.entry.algorithm),
                Cell::text(backend_cell(row)),
                Cell::number(size_label(row.size), row.size as f64),
                Cell::text(mode_label(&row.mode)),
            ];
            for side in &row.sides {
                let side = side.as_ref();
                cells.push(
                    side.and_then(|s| s.mb_per_s)
                        .map_or_else(missing, Cell::speed),
                );
                cells.push(side.and_then(|s| s.rank).map_or_else(missing, Cell::count));
            }
            for ratio in row.versus_first.iter().skip(1) {
                cells.push(
                    ratio
                        .as_ref()
                        .map_or_else(missing, |r| Cell::number(ratio_text(r), r.ratio)),
                );
            }
            cells
        })
        .collect();
    Table {
        title: "Throughput side by side".into(),
        columns: column_headers(c),
        rows,
        when_empty: None,
    }
}

/// One row per ranking flip (the report's form; the terminal groups them,
/// see [`flip_lines`]).
pub fn flips_table(c: &Comparison) -> hashlab_table::Table {
    use hashlab_table::{Cell, Table};
    let sizes = compared_sizes(c);
    let mut table = Table::new(
        "Ranking flips (each order significant on its input, by the same test)",
        &[
            "threads",
            "algorithm",
            "order",
            "against",
            "at sizes",
            "why (usable CPU features that differ)",
        ],
    );
    table.rows = c
        .flips
        .iter()
        .map(|f| {
            vec![
                Cell::text(mode_title(&f.mode)),
                Cell::text(format!(
                    "{}{}",
                    f.first.name(),
                    backends_note(&f.first_backends)
                )),
                Cell::text(order_text(&f.order)),
                Cell::text(format!(
                    "{}{}",
                    f.second.name(),
                    backends_note(&f.second_backends)
                )),
                Cell::text(size_ranges(&f.sizes, &sizes)),
                Cell::text(
                    explanation(c, f)
                        .trim_start_matches("; ")
                        .trim_start_matches("usable CPU features differ: ")
                        .to_string(),
                ),
            ]
        })
        .collect();
    table
}
