//! `hashlab audit`: the arguments become one of three runs once
//! (`request`): a manifest against its tree (here, with `--update` in
//! `rebaseline`), a directory against a store (`store`), a manifest against
//! a batch report (`report`). The library compares; these print.

mod rebaseline;
mod report;
mod request;
mod rows;
mod store;

use std::process::ExitCode;

use hashlab::Registry;
use hashlab_integrity::{expand, AuditReport, ChangedPieces, PieceOnly, WalkOptions};
use hashlab_objects::{
    audit as objects_audit, AuditOptions, AuditOutcome, EtagSummary, EtagVerdict, ObjectReader,
    Settings as ObjectSettings,
};
use serde::Serialize;

use self::request::{audit_refusal, AuditRun, ManifestRun};
use self::rows::{escape_row_names, human_name, json, marked, rows, with_ranges};
use crate::cli::{AuditArgs, Format};
use crate::failure::Failure;
use crate::output::render;

#[derive(Serialize)]
struct AuditJson<'a> {
    passed: bool,
    counts: Counts,
    #[serde(flatten)]
    report: &'a AuditReport,
    /// The manifest's lines that could not be read ("line 9: ..."), as warned on stderr.
    manifest_problems: Vec<String>,
    /// Where each changed file whose manifest entry has pieces changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    changed_pieces: Vec<hashlab_integrity::ChangedPieces>,
}

#[derive(Serialize)]
struct Counts {
    matched: usize,
    changed: usize,
    missing: usize,
    new: usize,
    moved: usize,
    unreadable: usize,
    skipped: usize,
    assumed: usize,
}

pub fn run(args: &AuditArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    match request::request(&registry, args)? {
        AuditRun::Report(run) => {
            let report = args.batch_report.as_deref().expect("a report run has one");
            report::run(args, report, run)
        }
        AuditRun::Store(run) => store::run(args, &args.manifest, run),
        AuditRun::Manifest(run) => audit_manifest(&registry, args, run),
    }
}

/// The manifest against its directories and prefixes, printed; then, with
/// `--update`, rewritten to what was found.
fn audit_manifest(
    registry: &Registry,
    args: &AuditArgs,
    run: ManifestRun,
) -> Result<ExitCode, Failure> {
    let ManifestRun {
        read,
        local,
        urls,
        jobs,
    } = run;
    let mut recorded = read.entries;
    let mut tree = expand(
        &local,
        &WalkOptions {
            recursive: true,
            ..Default::default()
        },
    );
    let reader = object_reader(&urls)?;
    let piece_only =
        PieceOnly::take(&mut recorded, &mut tree).map_err(|e| Failure::Runtime(e.to_string()))?;
    let options = AuditOptions {
        jobs,
        skip: Some(&args.manifest),
        changed_only: args.changed_only,
        verify_etag: args.verify_etag,
        keep_digests: args.update,
    };
    let shown = args.manifest.display().to_string();
    let AuditOutcome { mut report, etags } =
        objects_audit(reader.as_ref(), registry, &recorded, &tree, &urls, &options)
            .map_err(|e| audit_refusal(&shown, e))?;
    let changed_pieces = hashlab_integrity::audit_pieces(
        registry,
        &recorded,
        piece_only,
        jobs,
        args.changed_only,
        &mut report,
    )
    .map_err(|e| Failure::Runtime(e.to_string()))?;
    let etags_passed = say_etags(args, &etags);
    if args.changed_only {
        errln!(
            "hashlab: audit --changed-only: {} files with the recorded size and times were not re-hashed; bitrot changes none of them, so only a full audit finds it there",
            report.assumed.len()
        );
    }
    let problems = read.problems.iter().map(|p| p.to_string()).collect();
    crate::stdio::write_out(&rendered(args, &report, problems, changed_pieces)?)?;
    if args.update {
        rebaseline::rebaseline(registry, args, &local, &report, jobs)?;
    }
    Ok(if report.passed() && etags_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A runtime and its threads only when there are objects to read.
fn object_reader(urls: &[String]) -> Result<Option<ObjectReader>, Failure> {
    if urls.is_empty() {
        return Ok(None);
    }
    ObjectReader::new(ObjectSettings::default())
        .map(Some)
        .map_err(|e| Failure::Runtime(format!("object-store client: {e}")))
}

/// Each object whose ETag did not match, and with `--verify-etag` the
/// tally: whether every ETag checked matched.
fn say_etags(args: &AuditArgs, etags: &[(String, EtagVerdict)]) -> bool {
    let mut summary = EtagSummary::default();
    for (name, verdict) in etags {
        summary.add(verdict);
        if *verdict != EtagVerdict::Matches {
            errln!("hashlab: {name}: {}", verdict.describe());
        }
    }
    if args.verify_etag {
        errln!("hashlab: --verify-etag: {}", summary.describe());
    }
    summary.passed()
}

fn counts(report: &AuditReport) -> Counts {
    Counts {
        matched: report.matched.len(),
        changed: report.changed.len(),
        missing: report.missing.len(),
        new: report.new.len(),
        moved: report.moved.len(),
        unreadable: report.unreadable.len(),
        skipped: report.skipped.len(),
        assumed: report.assumed.len(),
    }
}

/// The report in the format asked for.
fn rendered(
    args: &AuditArgs,
    report: &AuditReport,
    manifest_problems: Vec<String>,
    changed_pieces: Vec<ChangedPieces>,
) -> Result<Vec<u8>, Failure> {
    Ok(match args.format.chosen() {
        Some(Format::Json) => json(&AuditJson {
            passed: report.passed(),
            counts: counts(report),
            report,
            manifest_problems,
            changed_pieces,
        })?,
        Some(format) => {
            let mut rows = with_ranges(rows(report), &changed_pieces);
            if format != Format::Csv {
                escape_row_names(&mut rows);
            }
            render(&rows, format)?
        }
        None => text(args, report, &changed_pieces).into_bytes(),
    })
}

/// Like hashdeep: what differs, then one summary line; matches only count.
fn text(args: &AuditArgs, report: &AuditReport, changed_pieces: &[ChangedPieces]) -> String {
    let mut text = String::new();
    for r in rows(report)
        .into_iter()
        .filter(|r| r.status != "matched" && r.status != "assumed")
    {
        let (name, escaped) = human_name(&r.name);
        let (line, escaped) = match r.status {
            "moved" => {
                let (to, to_escaped) = human_name(&r.detail);
                (format!("moved: {name} -> {to}\n"), escaped || to_escaped)
            }
            "unreadable" | "skipped" => (format!("{}: {name}: {}\n", r.status, r.detail), escaped),
            status => (format!("{status}: {name}\n"), escaped),
        };
        text.push_str(&marked(line, escaped));
        if r.status == "changed" {
            if let Some(pieces) = changed_pieces.iter().find(|c| c.name == r.name) {
                let line = format!("{name}: {}\n", pieces.comparison.describe());
                text.push_str(&marked(line, escaped));
            }
        }
    }
    text.push_str(&summary(args, &counts(report), report.passed()));
    text.push('\n');
    text
}

/// `audit passed: 3 matched, ...`
fn summary(args: &AuditArgs, counts: &Counts, passed: bool) -> String {
    format!(
        "{}: {} matched, {} changed, {} missing, {} new, {} moved, {} unreadable{}{}",
        if passed {
            "audit passed"
        } else {
            "audit FAILED"
        },
        counts.matched,
        counts.changed,
        counts.missing,
        counts.new,
        counts.moved,
        counts.unreadable,
        if counts.skipped > 0 {
            format!(", {} skipped (not files audit reads)", counts.skipped)
        } else {
            String::new()
        },
        if args.changed_only {
            format!(", {} assumed (not re-hashed)", counts.assumed)
        } else {
            String::new()
        }
    )
}
