//! `bench --like`'s answer laid out once as a table document.

use hashlab_table::{format, printable, Cell, Document, Table};

use super::{LikeReport, Source};

/// Seconds as a person reads them, down to microseconds.
pub fn seconds(s: f64) -> String {
    if !s.is_finite() {
        "-".into()
    } else if s >= 60.0 {
        format::duration(s)
    } else if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{} ms", format::speed(s * 1e3))
    } else {
        format!("{} µs", format::speed(s * 1e6))
    }
}

/// Bytes with a binary unit.
pub fn bytes(b: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{v:.0} B")
    } else {
        format!("{} {}", format::speed(v), UNITS[unit])
    }
}

fn band_name(low: u64, high: Option<u64>) -> String {
    match high {
        Some(h) => format!("{} - {}", bytes(low as f64), bytes(h as f64)),
        None => format!("{} and more", bytes(low as f64)),
    }
}

/// What a shape counts, in words.
pub fn what(source: Source) -> &'static str {
    match source {
        Source::Tree => "files",
        Source::Manifest => "files (from the manifest's sizes)",
        Source::Git => "git objects (with their headers)",
        Source::Objects => "objects",
    }
}

/// "files" or "objects".
pub fn noun(source: Source) -> &'static str {
    match source {
        Source::Tree | Source::Manifest => "files",
        Source::Git | Source::Objects => "objects",
    }
}

/// How the data are read in the first projected times: from the page
/// cache, or, for a store's objects, as the store answers.
pub fn state(source: Source) -> &'static str {
    match source {
        Source::Objects => "from the store",
        _ => "cached",
    }
}

/// What names a bound, in one sentence.
pub fn bound_note(source: Source) -> &'static str {
    match source {
        Source::Objects => "bound: object store when fetching the objects with no hash takes longer than hashing them, else CPU",
        _ => "bound: per-file overhead when reading with no hash takes at least half the time (reading, where the files average 64 KiB or more); disk when the storage's speed measured here is slower than the hash; else CPU",
    }
}

/// The storage's (or store's) measured speed, in one sentence.
pub fn storage_line(report: &LikeReport) -> Option<String> {
    let s = report.storage.as_ref()?;
    Some(if report.shape.source == Source::Objects {
        format!(
            "{} sampled objects ({}) fetched with no hash, as `sum` fetches them: {}/s and {:.0} objects/s",
            s.files,
            bytes(s.bytes as f64),
            bytes(s.bytes_per_second),
            s.files_per_second,
        )
    } else {
        format!(
            "{} sampled files ({}) read {}: {}/s and {:.0} files/s on one thread, {}/s and {:.0} files/s on {} cores; {} of the sample was in the page cache before",
            s.files,
            bytes(s.bytes as f64),
            if s.uncached { "uncached (pages dropped first)" } else { "possibly cached" },
            bytes(s.bytes_per_second),
            s.files_per_second,
            bytes(s.bytes_per_second_all),
            s.files_per_second_all,
            report.cores,
            format::percent(s.resident_before),
        )
    })
}

/// The shape, the projections, the storage and the real runs.
pub fn document(report: &LikeReport) -> Document {
    let shape = &report.shape;
    let mut doc = Document::default();
    let estimate = if shape.exact {
        "exact".to_string()
    } else {
        format!("sampled, ±{} bytes (95 %)", bytes(shape.bytes_error))
    };
    doc.preamble.push(format!(
        "{}: {:.0} {} of {} in total ({estimate}), found in {}; {} cores here",
        printable(&shape.path),
        shape.files,
        what(shape.source),
        bytes(shape.bytes),
        seconds(shape.seconds),
        report.cores
    ));
    let mut sizes = Table::new(
        "Shape: count and bytes per size band",
        &["size", "count", "bytes", "share of bytes", "replica"],
    );
    for (band, replica) in shape.bands.iter().zip(&report.replica) {
        let count = if band.count_error > 0.0 {
            format!("{:.0} ±{:.0}", band.count, band.count_error)
        } else {
            format!("{:.0}", band.count)
        };
        sizes.rows.push(vec![
            Cell::text(band_name(band.low, band.high)),
            Cell::number(count, band.count),
            Cell::number(bytes(band.bytes), band.bytes),
            Cell::percent(band.bytes / shape.bytes.max(1.0)),
            Cell::text(format!(
                "{} × {}",
                replica.files,
                bytes(replica.size as f64)
            )),
        ]);
    }
    doc.push_table(sizes);

    let all = format!("{} cores", report.cores);
    let uncached_column = format!("uncached, {all}");
    // A store's objects are neither cached nor not here: they come as it answers.
    let state = state(shape.source);
    let one_column = format!("{state}, 1 core");
    let cached_column = format!("{state}, {all}");
    let mut columns = vec![
        "algorithm",
        "backend",
        one_column.as_str(),
        cached_column.as_str(),
        uncached_column.as_str(),
        "bound",
    ];
    let core_columns: Vec<String> = super::CORE_COUNTS
        .iter()
        .map(|&n| {
            if n == 1 {
                "1 core".to_string()
            } else {
                format!("{n} cores")
            }
        })
        .collect();
    let dask_columns: Vec<String> = report
        .projections
        .first()
        .map(|p| {
            p.dask
                .iter()
                .map(|d| format!("Dask, {} workers", d.cores))
                .collect()
        })
        .unwrap_or_default();
    columns.extend(core_columns.iter().map(String::as_str));
    columns.extend(dask_columns.iter().map(String::as_str));
    let mut projected = Table::new(
        "Projected time for all of it, fastest first (cores: cached, from one core's time and the per-core efficiency measured here)",
        &columns,
    );
    for p in &report.projections {
        let bound = match p.bound_uncached {
            Some(b) if b != p.bound_cached => {
                format!("{} (cached: {})", b.words(), p.bound_cached.words())
            }
            _ => p.bound_cached.words().to_string(),
        };
        let mut row = vec![
            Cell::text(p.algorithm.clone()),
            Cell::text(p.backend.clone()),
            Cell::number(seconds(p.cached_one), p.cached_one),
            Cell::number(seconds(p.cached_all), p.cached_all),
            match p.uncached_all {
                Some(s) => Cell::number(seconds(s), s),
                None => Cell::missing("-"),
            },
            Cell::text(bound),
        ];
        row.extend(
            p.cores
                .iter()
                .map(|c| Cell::number(seconds(c.seconds), c.seconds)),
        );
        row.extend(
            p.dask
                .iter()
                .map(|c| Cell::number(seconds(c.seconds), c.seconds)),
        );
        projected.rows.push(row);
    }
    doc.push_table(projected);

    if let Some(line) = storage_line(report) {
        let title = if shape.source == Source::Objects {
            "Object store"
        } else {
            "Storage"
        };
        doc.push_list(title, vec![line]);
    }
    if !report.verified.is_empty() {
        let mut table = Table::new(
            "Projected against a real run",
            &[
                "algorithm",
                "files",
                "bytes",
                "threads",
                "measured (cached)",
                "projected (cached)",
                "measured / projected",
                "first run",
                "cached before it",
                "projected (uncached)",
            ],
        );
        for v in &report.verified {
            table.rows.push(vec![
                Cell::text(v.algorithm.clone()),
                Cell::count(v.files as usize),
                Cell::number(bytes(v.bytes as f64), v.bytes as f64),
                Cell::count(v.jobs),
                Cell::number(seconds(v.measured), v.measured),
                Cell::number(seconds(v.projected_cached), v.projected_cached),
                Cell::number(
                    format::times(v.measured / v.projected_cached.max(1e-12)),
                    v.measured / v.projected_cached.max(1e-12),
                ),
                Cell::number(seconds(v.measured_first), v.measured_first),
                Cell::percent(v.resident_before),
                match v.projected_uncached {
                    Some(s) => Cell::number(seconds(s), s),
                    None => Cell::missing("-"),
                },
            ]);
        }
        doc.push_table(table);
    }
    let mut notes = report.notes.clone();
    notes.push(format!(
        "Dask columns: one single-threaded worker per core at {} of `sum -j1`'s speed (docs/scale.md), files parallel up to the worker count; the storage is assumed to keep up",
        format::percent(report.dask_worker_efficiency)
    ));
    notes.push(bound_note(shape.source).into());
    if let Some(p) = report.projections.iter().find(|p| p.walk > 0.0) {
        let step = if shape.source == Source::Objects {
            "the listing of the prefix that `sum URL` makes before it hashes"
        } else {
            "the walk of PATH that `sum -r` makes before it hashes"
        };
        notes.push(format!("every time includes {step}: {}", seconds(p.walk)));
    }
    doc.push_list("Notes", notes);
    doc
}
