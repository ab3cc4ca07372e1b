//! `hashlab audit MANIFEST s3://bucket/prefix --batch-report REPORT`: a
//! manifest against an S3 Batch Operations Compute checksum report. The
//! library reads and compares; this prints.

use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_objects::batch_report::{compare_report, read_report};
use hashlab_objects::compare::{TreeComparison, Verdict};
use serde::Serialize;

use crate::cli::{AuditArgs, Format};
use crate::commands::audit::AuditRow;
use crate::commands::audit_store::{comparison_rows, RowWords};
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

pub fn run(args: &AuditArgs, report: &Path) -> Result<ExitCode, Failure> {
    let prefix = match args.dirs.as_slice() {
        [url] => url.to_str().unwrap_or_default(),
        _ => {
            return Err(Failure::Usage(
                "--batch-report: give the bucket and prefix the report's keys are under: hashlab audit MANIFEST s3://bucket/prefix --batch-report REPORT".into(),
            ))
        }
    };
    for (given, flag) in [
        (args.changed_only, "--changed-only"),
        (args.verify_etag, "--verify-etag"),
        (args.update, "--update"),
        (args.download, "--download"),
        (args.jobs.is_some(), "--jobs"),
    ] {
        if given {
            return Err(Failure::Usage(format!(
                "{flag}: --batch-report reads no object and no file"
            )));
        }
    }
    let registry = Registry::default();
    if let Some(name) = &args.algorithm {
        registry
            .algorithm(name)
            .map_err(|e| Failure::Usage(format!("-a: {e}")))?;
    }
    let manifest = crate::commands::audit::read_audit_manifest(&registry, args)?;
    let shown = args.manifest.display();
    let entries = read_report(&registry, report).map_err(|e| Failure::Runtime(e.to_string()))?;
    let found = compare_report(&entries, &manifest.entries, prefix, &registry)
        .map_err(|e| Failure::Usage(e.to_string()))?;
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
        Some(Format::Json) => {
            let mut json = serde_json::to_vec_pretty(&Json {
                passed,
                manifest: shown.to_string(),
                prefix,
                report: report.display().to_string(),
                mode: "batch-report",
                proves: PROVES,
                counts,
                rows: rows(&found),
            })
            .map_err(|e| Failure::Runtime(e.to_string()))?;
            json.push(b'\n');
            json
        }
        Some(format) => {
            let mut rows = rows(&found);
            if format != Format::Csv {
                crate::commands::audit::escape_row_names(&mut rows);
            }
            render(&rows, format)?
        }
        None => {
            let mut text = String::new();
            for r in rows(&found).into_iter().filter(|r| r.status != "matched") {
                text.push_str(&crate::commands::audit::row_line(
                    r.status, &r.name, &r.detail,
                ));
            }
            text.push_str(&format!(
                "{}: {} matched, {} changed, {} missing, {} new, {} not comparable, {} unreadable\n",
                if passed { "audit passed" } else { "audit FAILED" },
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
    };
    crate::stdio::write_out(&out)?;
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
