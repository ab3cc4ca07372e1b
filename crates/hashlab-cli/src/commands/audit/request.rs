//! `audit`'s arguments turned into one of its three runs, once: a
//! manifest against directories and prefixes, a directory against a store
//! prefix, or a manifest against a batch report. Usage errors are raised
//! here, and so are the words for the ones only the library finds later
//! (an algorithm or a prefix it refuses once it reads what they name).

use std::path::PathBuf;

use hashlab::Registry;
use hashlab_integrity::{
    read_manifest, records_size_or_time, AuditError, Framing, Manifest, ManifestError, ReadOptions,
    DEFAULT_ALGORITHM, MAX_JOBS,
};
use hashlab_objects::batch_report::{read_report, ReportEntry, ReportPrefix};
use hashlab_objects::compare::{CompareError, Mode};
use hashlab_objects::is_object_url;

use crate::cli::AuditArgs;
use crate::failure::Failure;
use crate::shared::args::{jobs_over_limit, usage};

pub(super) enum AuditRun {
    /// A manifest against local directories and object-store prefixes.
    Manifest(ManifestRun),
    /// `audit DIR s3://bucket/prefix`.
    Store(StoreRun),
    /// `audit MANIFEST s3://bucket/prefix --batch-report REPORT`.
    Report(ReportRun),
}

/// What the arguments ask for, checked without reading any file: the run
/// but for the manifest and the report, which [`request`] reads.
pub(super) enum Plan {
    Manifest(Places),
    Store(StoreRun),
    /// The report's prefix, and as given.
    Report(ReportPrefix, String),
}

/// The local directories and object-store prefixes a manifest is audited
/// against.
pub(super) struct Places {
    pub(super) local: Vec<PathBuf>,
    pub(super) urls: Vec<String>,
    pub(super) jobs: usize,
}

pub(super) struct ManifestRun {
    /// The manifest as read, its unreadable lines already said.
    pub(super) read: Manifest,
    pub(super) places: Places,
}

pub(super) struct StoreRun {
    pub(super) prefix: String,
    pub(super) mode: Mode,
    pub(super) jobs: usize,
}

pub(super) struct ReportRun {
    pub(super) manifest: Manifest,
    pub(super) entries: Vec<ReportEntry>,
    pub(super) prefix: ReportPrefix,
    pub(super) prefix_url: String,
}

/// The run `audit`'s arguments ask for: every option checked ([`plan`])
/// before the manifest (and report) are read, then what needs them read.
pub(super) fn request(registry: &Registry, args: &AuditArgs) -> Result<AuditRun, Failure> {
    Ok(match plan(registry, args)? {
        Plan::Store(run) => AuditRun::Store(run),
        Plan::Manifest(places) => {
            let read = read_audit_manifest(registry, args)?;
            if args.changed_only && !records_size_or_time(&read.entries) {
                return Err(Failure::Usage(format!(
                    "--changed-only: {} records no sizes or modification times (write it with `sum --format hashdeep` or `sum --json`)",
                    args.manifest.display()
                )));
            }
            AuditRun::Manifest(ManifestRun { read, places })
        }
        Plan::Report(prefix, prefix_url) => {
            let manifest = read_audit_manifest(registry, args)?;
            let report = args.batch_report.as_deref().expect("a report run has one");
            let entries =
                read_report(registry, report).map_err(|e| Failure::Runtime(e.to_string()))?;
            AuditRun::Report(ReportRun {
                manifest,
                entries,
                prefix,
                prefix_url,
            })
        }
    })
}

/// Every refusal of `audit`'s arguments that needs no file read (whether
/// the first argument is a directory is asked, not read): what validation
/// runs.
pub(super) fn plan(registry: &Registry, args: &AuditArgs) -> Result<Plan, Failure> {
    if let Some(name) = &args.algorithm {
        registry
            .algorithm(name)
            .map_err(|e| Failure::Usage(format!("-a: {e}")))?;
    }
    let jobs = match args.jobs {
        Some(0) => return Err(Failure::Usage("--jobs: must be at least 1".into())),
        Some(n) if n > MAX_JOBS => return Err(jobs_over_limit(n)),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if args.batch_report.is_some() {
        return report_plan(args);
    }
    if args.manifest.is_dir() {
        return store_request(args, jobs).map(Plan::Store);
    }
    if args.download {
        return Err(Failure::Usage(
            "--download: only `audit DIR s3://bucket/prefix` compares a directory with a store"
                .into(),
        ));
    }
    places(args, jobs).map(Plan::Manifest)
}

fn places(args: &AuditArgs, jobs: usize) -> Result<Places, Failure> {
    let dirs = if args.dirs.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.dirs.clone()
    };
    let (urls, local): (Vec<PathBuf>, Vec<PathBuf>) = dirs
        .into_iter()
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
    Ok(Places { local, urls, jobs })
}

/// `audit DIR URL`: one prefix, none of a manifest's options, and `-a`
/// only to choose `--download`'s hash.
fn store_request(args: &AuditArgs, jobs: usize) -> Result<StoreRun, Failure> {
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
    let mode = if args.download {
        Mode::Download {
            algorithm: args
                .algorithm
                .clone()
                .unwrap_or_else(|| DEFAULT_ALGORITHM.to_string()),
        }
    } else if args.algorithm.is_some() {
        return Err(Failure::Usage(
            "-a: a directory is compared with the checksums the store recorded, whatever their algorithm; -a chooses the hash of --download".into(),
        ));
    } else {
        Mode::Recorded
    };
    Ok(StoreRun {
        prefix: url.to_string(),
        mode,
        jobs,
    })
}

/// `--batch-report`: one prefix, an S3 one, and no option that reads.
fn report_plan(args: &AuditArgs) -> Result<Plan, Failure> {
    let prefix_url = match args.dirs.as_slice() {
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
    let prefix = ReportPrefix::parse(prefix_url).map_err(|e| Failure::Usage(e.to_string()))?;
    Ok(Plan::Report(prefix, prefix_url.to_string()))
}

/// The library's audit refusing what the manifest holds (more algorithms
/// or longer digests than an audit takes): a usage error naming it.
pub(super) fn audit_refusal(shown: &str, e: AuditError) -> Failure {
    match e {
        e @ (AuditError::TooManyAlgorithms { .. } | AuditError::DigestTooLong { .. }) => {
            Failure::Usage(format!("{shown}: {e}"))
        }
        e => Failure::Runtime(e.to_string()),
    }
}

/// A store comparison refusing what the arguments named: `-a`'s hash, a
/// directory that is none, a URL whose listing shows it is no prefix.
pub(super) fn store_refusal(e: CompareError) -> Failure {
    match e {
        CompareError::Hash(e) => Failure::Usage(format!("-a: {e}")),
        CompareError::NotADirectory(_) | CompareError::NotAPrefix(_) => {
            Failure::Usage(e.to_string())
        }
        CompareError::Listing(e) => Failure::Runtime(e.to_string()),
    }
}

fn read_audit_manifest(
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
