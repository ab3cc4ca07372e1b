//! `hashlab audit`: the library compares; this prints.

use std::path::PathBuf;
use std::process::ExitCode;

use hashlab::{HashParams, Registry};
use hashlab_integrity::many::MAX_JOBS;
use hashlab_integrity::{
    expand, read_manifest, records_size_or_time, update_tree, AuditError, AuditReport, Cancel,
    DigestForm, Framing, Known, Listing, ManifestError, ReadOptions, SumRequest, TreeUpdate,
    Updated, WalkOptions,
};
use hashlab_objects::{
    audit as objects_audit, is_object_url, AuditOptions, AuditOutcome, EtagSummary, EtagVerdict,
    ObjectReader, Settings as ObjectSettings,
};
use serde::Serialize;

use crate::cli::{AuditArgs, Format};
use crate::failure::{io_message, Failure};
use crate::output::{render, Tabular};
use crate::shared::args::refusal;
use crate::shared::args::usage;
use crate::shared::update::{describe, lock, prepare};

/// One name's outcome, a row of every audit's table, CSV and JSON.
#[derive(Serialize)]
pub(crate) struct AuditRow {
    pub status: &'static str,
    pub name: String,
    pub detail: String,
}

impl Tabular for AuditRow {
    fn headers() -> &'static [&'static str] {
        &["status", "name", "detail"]
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.status.to_string(),
            self.name.clone(),
            self.detail.clone(),
        ]
    }
}

fn rows(report: &AuditReport) -> Vec<AuditRow> {
    let row = |status, name: &str, detail: &str| AuditRow {
        status,
        name: name.to_string(),
        detail: detail.to_string(),
    };
    let mut out = Vec::new();
    out.extend(
        report
            .changed
            .iter()
            .map(|n| row("changed", n, "content differs from the manifest")),
    );
    out.extend(report.missing.iter().map(|n| row("missing", n, "")));
    out.extend(report.moved.iter().map(|(from, to)| row("moved", from, to)));
    out.extend(
        report
            .new
            .iter()
            .map(|n| row("new", n, "not in the manifest")),
    );
    out.extend(
        report
            .unreadable
            .iter()
            .map(|(n, why)| row("unreadable", n, why)),
    );
    out.extend(
        report
            .skipped
            .iter()
            .map(|(n, what)| row("skipped", n, what)),
    );
    out.extend(report.matched.iter().map(|n| row("matched", n, "")));
    out.extend(
        report
            .assumed
            .iter()
            .map(|n| row("assumed", n, "size and mtime as recorded; not re-hashed")),
    );
    out
}

/// A name as audit's human output shows it (escaped as coreutils escapes
/// names), and whether it was escaped.
fn human_name(name: &str) -> (String, bool) {
    let (bytes, escaped) = hashlab_integrity::escape_name(name.as_bytes());
    (String::from_utf8_lossy(&bytes).into_owned(), escaped)
}

/// Rows as a table for people shows them (every format but CSV and JSON,
/// which programs read): names escaped, the destination of a move too, so
/// that no name starts a line of its own.
pub(crate) fn escape_row_names(rows: &mut [AuditRow]) {
    for r in rows {
        r.name = human_name(&r.name).0;
        if r.status == "moved" {
            r.detail = human_name(&r.detail).0;
        }
    }
}

/// `line` (naming a file) as audit's text prints it: starting with a
/// backslash where a name in it was escaped, as coreutils marks such
/// lines, so that a name holding a newline cannot forge a line (a
/// verdict) of its own.
fn marked(line: String, escaped: bool) -> String {
    if escaped {
        format!("\\{line}")
    } else {
        line
    }
}

/// `STATUS: NAME: DETAIL` as the store audits print a row, the name
/// escaped ([`marked`]).
pub(crate) fn row_line(status: &str, name: &str, detail: &str) -> String {
    let (name, escaped) = human_name(name);
    marked(format!("{status}: {name}: {detail}\n"), escaped)
}

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
    if let Some(name) = &args.algorithm {
        registry
            .algorithm(name)
            .map_err(|e| Failure::Usage(format!("-a: {e}")))?;
    }
    let jobs = match args.jobs {
        Some(0) => return Err(Failure::Usage("--jobs: must be at least 1".into())),
        Some(n) if n > MAX_JOBS => return Err(crate::shared::args::jobs_over_limit(n)),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if let Some(report) = &args.batch_report {
        return crate::commands::audit_report::run(args, report);
    }
    if args.manifest.is_dir() {
        let url = match args.dirs.as_slice() {
            [url] => url.to_str().filter(|u| is_object_url(u)),
            _ => None,
        };
        let Some(url) = url else {
            return Err(Failure::Usage(format!(
                "{}: a directory, not a manifest; to compare it with a store, give one prefix after it: hashlab audit DIR s3://bucket/prefix",
                args.manifest.display()
            )));
        };
        for (given, flag) in [
            (args.changed_only, "--changed-only"),
            (args.verify_etag, "--verify-etag"),
            (args.zero, "-z"),
            (args.update, "--update"),
        ] {
            if given {
                return Err(Failure::Usage(format!(
                    "{flag}: a manifest's option; `audit DIR URL` compares with what the store recorded"
                )));
            }
        }
        return crate::commands::audit_store::run(args, &args.manifest, url, jobs);
    }
    if args.download {
        return Err(Failure::Usage(
            "--download: only `audit DIR s3://bucket/prefix` compares a directory with a store"
                .into(),
        ));
    }
    let read = read_audit_manifest(&registry, args)?;
    let shown = args.manifest.display();
    let mut recorded = read.entries;
    if args.changed_only && !records_size_or_time(&recorded) {
        return Err(Failure::Usage(format!(
            "--changed-only: {} records no sizes or modification times (write it with `sum --format hashdeep` or `sum --json`)",
            args.manifest.display()
        )));
    }
    let dirs = if args.dirs.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.dirs.clone()
    };
    let (urls, local): (Vec<&PathBuf>, Vec<&PathBuf>) = dirs
        .iter()
        .partition(|d| d.to_str().is_some_and(is_object_url));
    let urls: Vec<String> = urls.iter().map(|u| u.display().to_string()).collect();
    if args.update && !urls.is_empty() {
        return Err(Failure::Usage(
            "--update: local directories only (a manifest of objects is brought up to date with `sum --update MANIFEST URL`)"
                .into(),
        ));
    }
    if args.verify_etag && urls.is_empty() {
        return Err(Failure::Usage(
            "--verify-etag: no object-store URL given (ETags are what stores such as S3 give objects)"
                .into(),
        ));
    }
    let local: Vec<PathBuf> = local.into_iter().cloned().collect();
    let mut tree = expand(
        &local,
        &WalkOptions {
            recursive: true,
            ..Default::default()
        },
    );
    // A runtime and its threads only when there are objects to read.
    let reader = if urls.is_empty() {
        None
    } else {
        Some(
            ObjectReader::new(ObjectSettings::default())
                .map_err(|e| Failure::Runtime(format!("object-store client: {e}")))?,
        )
    };
    let piece_only = hashlab_integrity::PieceOnly::take(&mut recorded, &mut tree)
        .map_err(|e| Failure::Runtime(e.to_string()))?;
    let AuditOutcome { mut report, etags } = objects_audit(
        reader.as_ref(),
        &registry,
        &recorded,
        &tree,
        &urls,
        &AuditOptions {
            jobs,
            skip: Some(&args.manifest),
            changed_only: args.changed_only,
            verify_etag: args.verify_etag,
            keep_digests: args.update,
        },
    )
    .map_err(|e| match e {
        e @ (AuditError::TooManyAlgorithms { .. } | AuditError::DigestTooLong { .. }) => {
            Failure::Usage(format!("{shown}: {e}"))
        }
        e => Failure::Runtime(e.to_string()),
    })?;
    let changed_pieces = hashlab_integrity::audit_pieces(
        &registry,
        &recorded,
        piece_only,
        jobs,
        args.changed_only,
        &mut report,
    )
    .map_err(|e| Failure::Runtime(e.to_string()))?;
    let mut etag_summary = EtagSummary::default();
    for (name, verdict) in &etags {
        etag_summary.add(verdict);
        if *verdict != EtagVerdict::Matches {
            errln!("hashlab: {name}: {}", verdict.describe());
        }
    }
    if args.verify_etag {
        errln!("hashlab: --verify-etag: {}", etag_summary.describe());
    }
    if args.changed_only {
        errln!(
            "hashlab: audit --changed-only: {} files with the recorded size and times were not re-hashed; bitrot changes none of them, so only a full audit finds it there",
            report.assumed.len()
        );
    }
    let counts = Counts {
        matched: report.matched.len(),
        changed: report.changed.len(),
        missing: report.missing.len(),
        new: report.new.len(),
        moved: report.moved.len(),
        unreadable: report.unreadable.len(),
        skipped: report.skipped.len(),
        assumed: report.assumed.len(),
    };
    let summary = format!(
        "{}: {} matched, {} changed, {} missing, {} new, {} moved, {} unreadable{}{}",
        if report.passed() {
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
    );
    let bytes = match args.format.chosen() {
        Some(Format::Json) => {
            let mut v = serde_json::to_vec_pretty(&AuditJson {
                passed: report.passed(),
                counts,
                report: &report,
                manifest_problems: read.problems.iter().map(|p| p.to_string()).collect(),
                changed_pieces,
            })
            .map_err(|e| Failure::Runtime(e.to_string()))?;
            v.push(b'\n');
            v
        }
        Some(format) => {
            let mut rows = with_ranges(rows(&report), &changed_pieces);
            if format != Format::Csv {
                escape_row_names(&mut rows);
            }
            render(&rows, format)?
        }
        None => {
            // Like hashdeep: what differs, then one summary line; matches only count.
            let mut text = String::new();
            for r in rows(&report)
                .into_iter()
                .filter(|r| r.status != "matched" && r.status != "assumed")
            {
                let (name, escaped) = human_name(&r.name);
                let (line, escaped) = match r.status {
                    "moved" => {
                        let (to, to_escaped) = human_name(&r.detail);
                        (format!("moved: {name} -> {to}\n"), escaped || to_escaped)
                    }
                    "unreadable" | "skipped" => {
                        (format!("{}: {name}: {}\n", r.status, r.detail), escaped)
                    }
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
            text.push_str(&summary);
            text.push('\n');
            text.into_bytes()
        }
    };
    crate::stdio::write_out(&bytes)?;
    if args.update {
        rebaseline(&registry, args, &local, &report, jobs)?;
    }
    Ok(if report.passed() && etag_summary.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The manifest `audit` compares with (`args.manifest`, read bounded as
/// `-z` frames it), its unreadable lines said on stderr, each problem one
/// line naming it; shared with `--batch-report`.
pub(crate) fn read_audit_manifest(
    registry: &Registry,
    args: &AuditArgs,
) -> Result<hashlab_integrity::Manifest, Failure> {
    let end = if args.zero { b'\0' } else { b'\n' };
    let manifest = hashlab_integrity::bounded::read_file(&args.manifest, end)
        .map_err(|e| Failure::Runtime(format!("{}: {e}", args.manifest.display())))?;
    let shown = args.manifest.display();
    let warn = |problem: &dyn std::fmt::Display| errln!("hashlab: {shown}: {problem}");
    let options = ReadOptions {
        algorithm: args.algorithm.as_deref(),
        framing: if args.zero {
            Framing::Nul
        } else {
            Framing::Lines
        },
    };
    let read = read_manifest(
        registry,
        &manifest,
        &args.manifest.to_string_lossy(),
        &options,
    )
    .map_err(|e| {
        if let ManifestError::NoEntries { problems } = &e {
            for problem in problems {
                warn(problem);
            }
        }
        match e {
            ManifestError::Algorithm(e) => usage(e),
            e @ ManifestError::TooManyAlgorithms { .. } => Failure::Usage(format!("{shown}: {e}")),
            e => Failure::Runtime(format!("{shown}: {e}")),
        }
    })?;
    for problem in &read.problems {
        warn(problem);
    }
    Ok(read)
}

/// `--update`: the manifest rewritten to describe the tree as the audit
/// found it, reusing the digests the audit read.
fn rebaseline(
    registry: &Registry,
    args: &AuditArgs,
    dirs: &[PathBuf],
    report: &AuditReport,
    jobs: usize,
) -> Result<(), Failure> {
    let manifest = args.manifest.as_path();
    let shown = manifest.display().to_string();
    let framing = if args.zero {
        Framing::Nul
    } else {
        Framing::Lines
    };
    // Read again under the lock: another update may have written it since
    // the audit read it, and the update starts from what is there now.
    let _lock = lock(manifest)?;
    let end = if framing == Framing::Nul {
        b'\0'
    } else {
        b'\n'
    };
    let current = hashlab_integrity::bounded::read_file(manifest, end)
        .map_err(|e| Failure::Runtime(format!("--update: {shown}: {e}")))?;
    let old = current.as_slice();
    let mut listing = Listing::read(registry, old, &manifest.to_string_lossy(), framing)
        .map_err(|e| refusal(&format!("--update: {shown}"), e))?;
    let base = SumRequest {
        algorithms: Vec::new(),
        backend: None,
        params: HashParams::default(),
        tagged: false,
        zero_terminated: args.zero,
        git_blob: false,
        hashdeep: false,
        jobs: Some(jobs),
        allow_mmap: true,
        digest_form: DigestForm::Hex,
        no_names: false,
        cksum_lines: false,
        sfv: false,
        binary_marker: false,
        name_standard_input: false,
        little_endian: false,
        digest_prefix: false,
    };
    let (plan, old_sidecar) = prepare(registry, manifest, &shown, &mut listing, &base)?;
    let tree = TreeUpdate {
        manifest,
        paths: dirs,
        walk: WalkOptions {
            recursive: true,
            ..Default::default()
        },
        prune: true,
        known: Some(Known {
            columns: &report.columns,
            files: &report.hashed,
        }),
    };
    let updated = update_tree(&listing, &plan, &plan.job(Cancel::new()), &tree)
        .map_err(|e| Failure::Runtime(io_message(&e)))?
        .map_err(|e| refusal(&format!("--update: {shown}"), e))?;
    let Updated {
        manifest: new,
        sidecar,
        report: update,
    } = updated;
    hashlab_integrity::update::write_updated(
        manifest,
        old,
        old_sidecar.as_deref(),
        &new,
        sidecar.as_deref(),
    )?;
    describe(&format!("audit --update: {shown}"), &update, true);
    if !update.unreadable.is_empty() || !update.not_read.is_empty() {
        return Err(Failure::Runtime(format!(
            "--update: {shown}: {} files or directories could not be read; the entries they hold are kept as they were",
            update.unreadable.len() + update.not_read.len()
        )));
    }
    Ok(())
}

/// `audit`'s rows with, for each changed file whose pieces say where, the
/// ranges in place of the bare "content differs".
fn with_ranges(
    mut rows: Vec<AuditRow>,
    changed: &[hashlab_integrity::ChangedPieces],
) -> Vec<AuditRow> {
    for row in &mut rows {
        if row.status == "changed" {
            if let Some(c) = changed.iter().find(|c| c.name == row.name) {
                row.detail = c.comparison.describe();
            }
        }
    }
    rows
}
