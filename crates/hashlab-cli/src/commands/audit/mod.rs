//! `hashlab audit`: the arguments become one of three runs once
//! (`request`): a manifest against its tree (with `--update`, rewritten in
//! `rebaseline`), a directory against a store, a manifest against a batch
//! report. The libraries compare and word the rows; these print.

mod rebaseline;
mod request;

use std::process::ExitCode;

use hashlab::Registry;
use hashlab_integrity::AuditRow;
use hashlab_objects::batch_report::compare_under;
use hashlab_objects::compare::compare_tree;
use hashlab_objects::{
    audit as objects_audit, default_reader, AuditOptions, AuditOutcome, EtagSummary, EtagVerdict,
    ReportAudit, StoreAudit,
};
use serde::Serialize;

use self::request::{audit_refusal, store_refusal, AuditRun, ManifestRun, ReportRun, StoreRun};
use crate::cli::{AuditArgs, Format};
use crate::failure::Failure;
use crate::output::{render, render_json, Tabular};

impl Tabular for AuditRow {
    fn headers() -> &'static [&'static str] {
        &["status", "name", "detail"]
    }
    fn cells(&self) -> Vec<String> {
        let status = self.status.as_str().to_string();
        vec![status, self.name.clone(), self.detail.clone()]
    }
}

pub fn run(args: &AuditArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let passed = match request::request(&registry, args)? {
        AuditRun::Report(run) => audit_report(&registry, args, run)?,
        AuditRun::Store(run) => audit_store(&registry, args, run)?,
        AuditRun::Manifest(run) => audit_manifest(&registry, args, run)?,
    };
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Checks the arguments as `run` does before it reads any file.
pub fn validate(registry: &Registry, args: &AuditArgs) -> Result<(), Failure> {
    request::plan(registry, args).map(|_| ())
}

/// The manifest against its directories and prefixes, printed; then, with
/// `--update`, rewritten to what was found. Whether it passed.
fn audit_manifest(
    registry: &Registry,
    args: &AuditArgs,
    run: ManifestRun,
) -> Result<bool, Failure> {
    let ManifestRun { read, places } = run;
    // A runtime and its threads only when there are objects to read.
    let reader = if places.urls.is_empty() {
        None
    } else {
        Some(default_reader().map_err(|e| Failure::Runtime(e.to_string()))?)
    };
    let options = AuditOptions {
        jobs: places.jobs,
        skip: Some(&args.manifest),
        changed_only: args.changed_only,
        verify_etag: args.verify_etag,
        keep_digests: args.update,
    };
    let (local, urls) = (&places.local, &places.urls);
    let AuditOutcome { audit, etags } =
        objects_audit(reader.as_ref(), registry, read, local, urls, &options)
            .map_err(|e| audit_refusal(&args.manifest.display().to_string(), e))?;
    let etags_passed = say_etags(args, &etags);
    if args.changed_only {
        errln!(
            "hashlab: audit --changed-only: {} files with the recorded size and times were not re-hashed; bitrot changes none of them, so only a full audit finds it there",
            audit.counts().assumed
        );
    }
    write(args, &audit, || audit.rows(), || audit.text())?;
    if args.update {
        rebaseline::rebaseline(registry, args, local, audit.report(), places.jobs)?;
    }
    Ok(audit.passed() && etags_passed)
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

/// `audit DIR s3://bucket/prefix`: a local tree against a store prefix,
/// with no manifest; what the comparison proves on stderr.
fn audit_store(registry: &Registry, args: &AuditArgs, run: StoreRun) -> Result<bool, Failure> {
    let StoreRun { prefix, mode, jobs } = run;
    let reader = default_reader().map_err(|e| Failure::Runtime(e.to_string()))?;
    let dir = &args.manifest;
    let found =
        compare_tree(&reader, registry, dir, &prefix, &mode, jobs).map_err(store_refusal)?;
    let audit = StoreAudit::new(&found, dir, &prefix, &mode);
    write(
        args,
        &audit,
        || audit.rows.clone(),
        || {
            errln!("hashlab: audit: {}", audit.proves);
            audit.text()
        },
    )?;
    Ok(audit.passed)
}

/// `audit MANIFEST s3://bucket/prefix --batch-report REPORT`: a manifest
/// against an S3 Batch Operations Compute checksum report; what a report
/// proves on stderr.
fn audit_report(registry: &Registry, args: &AuditArgs, run: ReportRun) -> Result<bool, Failure> {
    let found = compare_under(&run.entries, &run.manifest.entries, &run.prefix, registry);
    let report = args.batch_report.as_deref().expect("a report run has one");
    let audit = ReportAudit::new(&found, &args.manifest, &run.prefix_url, report);
    write(
        args,
        &audit,
        || audit.rows.clone(),
        || {
            errln!("hashlab: audit: {}", audit.proves);
            audit.text()
        },
    )?;
    Ok(audit.passed)
}

/// An audit on stdout in the format asked for: its document as JSON, its
/// rows as a table (names escaped for people, in every format but CSV),
/// else its text.
fn write<D: Serialize>(
    args: &AuditArgs,
    document: &D,
    rows: impl FnOnce() -> Vec<AuditRow>,
    text: impl FnOnce() -> String,
) -> Result<(), Failure> {
    let bytes = match args.format.chosen() {
        Some(Format::Json) => render_json(document)?,
        Some(Format::Csv) => render(&rows(), Format::Csv)?,
        Some(format) => {
            let rows: Vec<AuditRow> = rows().into_iter().map(AuditRow::for_people).collect();
            render(&rows, format)?
        }
        None => text().into_bytes(),
    };
    crate::stdio::write_out(&bytes)
}
