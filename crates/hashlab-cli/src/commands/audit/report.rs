//! `hashlab audit MANIFEST s3://bucket/prefix --batch-report REPORT`: a
//! manifest against an S3 Batch Operations Compute checksum report. The
//! library compares; this prints.

use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_objects::batch_report::compare_under;
use hashlab_objects::compare::{TreeComparison, Verdict};
use serde::Serialize;

use super::request::ReportRun;
use super::rows::{comparison_rows, escape_row_names, json, row_line, AuditRow, RowWords};
use crate::cli::{AuditArgs, Format};
use crate::failure::Failure;
use crate::output::render;

/// What a match against a report shows.
const PROVES: &str = "compared with the checksums S3 computed of the stored bytes when the Batch Operations job ran, reading no object: this shows the objects were intact then";

const REPORT_WORDS: RowWords = RowWords {
    local: "manifest",
    store: "report",
    only_local: ("missing", "no object with this key in the report"),
    only_in_store: ("new", "in the report, not in the manifest"),
};

fn rows(found: &TreeComparison) -> Vec<AuditRow> {
    comparison_rows(found, &REPORT_WORDS)
}

#[derive(Serialize)]
struct Counts {
    matched: usize,
    changed: usize,
    missing: usize,
    new: usize,
    not_comparable: usize,
    unreadable: usize,
}

#[derive(Serialize)]
struct Json<'a> {
    passed: bool,
    manifest: String,
    prefix: &'a str,
    report: String,
    mode: &'static str,
    proves: &'static str,
    counts: Counts,
    rows: Vec<AuditRow>,
}

pub(super) fn run(args: &AuditArgs, report: &Path, run: ReportRun) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let found = compare_under(&run.entries, &run.manifest.entries, &run.prefix, &registry);
    let counts = Counts {
        matched: found.count(|v| matches!(v, Verdict::Matched { .. })),
        changed: found.count(|v| matches!(v, Verdict::Changed { .. })),
        missing: found.only_local.len(),
        new: found.only_in_store.len(),
        not_comparable: found.count(|v| matches!(v, Verdict::NotComparable { .. })),
        unreadable: found.errors.len(),
    };
    let passed = found.passed();
    let out = match args.format.chosen() {
        Some(Format::Json) => json(&Json {
            passed,
            manifest: args.manifest.display().to_string(),
            prefix: &run.prefix_url,
            report: report.display().to_string(),
            mode: "batch-report",
            proves: PROVES,
            counts,
            rows: rows(&found),
        })?,
        Some(format) => {
            let mut rows = rows(&found);
            if format != Format::Csv {
                escape_row_names(&mut rows);
            }
            render(&rows, format)?
        }
        None => text(&found, &counts, passed),
    };
    crate::stdio::write_out(&out)?;
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What differs, one line each, then the counts; what a report proves on stderr.
fn text(found: &TreeComparison, counts: &Counts, passed: bool) -> Vec<u8> {
    let mut text = String::new();
    for r in rows(found).into_iter().filter(|r| r.status != "matched") {
        text.push_str(&row_line(r.status, &r.name, &r.detail));
    }
    text.push_str(&format!(
        "{}: {} matched, {} changed, {} missing, {} new, {} not comparable, {} unreadable\n",
        if passed {
            "audit passed"
        } else {
            "audit FAILED"
        },
        counts.matched,
        counts.changed,
        counts.missing,
        counts.new,
        counts.not_comparable,
        counts.unreadable,
    ));
    errln!("hashlab: audit: {PROVES}");
    text.into_bytes()
}
