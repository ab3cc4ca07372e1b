//! `audit --update`: the manifest rewritten to describe the tree as the
//! audit found it, reusing the digests the audit read.

use std::path::{Path, PathBuf};

use hashlab::Registry;
use hashlab_integrity::{
    update_tree, write_updated, AuditReport, Cancel, Known, Listing, ManifestLock, SumPlan,
    SumRequest, TreeUpdate, Updated, WalkOptions,
};

use crate::cli::AuditArgs;
use crate::failure::{io_message, Failure};
use crate::shared::args::refusal;
use crate::shared::update::{describe, locked_listing, prepare};

/// The update's request, made after the audit: the manifest locked and
/// read again (another update may have written it since the audit read it,
/// and the update starts from what is there now), planned in its own
/// algorithms and style.
struct Rebaseline {
    _lock: Option<ManifestLock>,
    old: Vec<u8>,
    old_sidecar: Option<Vec<u8>>,
    listing: Listing,
    plan: SumPlan,
}

fn rebaseline_request(
    registry: &Registry,
    args: &AuditArgs,
    jobs: usize,
) -> Result<Rebaseline, Failure> {
    let manifest = args.manifest.as_path();
    let shown = manifest.display().to_string();
    let (lock, old, mut listing) =
        locked_listing(registry, manifest, args.zero, &format!("--update: {shown}"))?;
    let base = SumRequest {
        zero_terminated: args.zero,
        jobs: Some(jobs),
        allow_mmap: true,
        ..SumRequest::default()
    };
    let (plan, old_sidecar) = prepare(registry, manifest, &shown, &mut listing, &base)?;
    Ok(Rebaseline {
        _lock: lock,
        old,
        old_sidecar,
        listing,
        plan,
    })
}

/// `--update` of the manifest after its audit of `dirs` found `report`.
pub(super) fn rebaseline(
    registry: &Registry,
    args: &AuditArgs,
    dirs: &[PathBuf],
    report: &AuditReport,
    jobs: usize,
) -> Result<(), Failure> {
    let manifest: &Path = args.manifest.as_path();
    let shown = manifest.display().to_string();
    let run = rebaseline_request(registry, args, jobs)?;
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
    let Updated {
        manifest: new,
        sidecar,
        report: update,
    } = update_tree(&run.listing, &run.plan, &run.plan.job(Cancel::new()), &tree)
        .map_err(|e| Failure::Runtime(io_message(&e)))?
        .map_err(|e| refusal(&format!("--update: {shown}"), e))?;
    let old_sidecar = run.old_sidecar.as_deref();
    write_updated(manifest, &run.old, old_sidecar, &new, sidecar.as_deref())?;
    describe(&format!("audit --update: {shown}"), &update, true);
    if !update.unreadable.is_empty() || !update.not_read.is_empty() {
        return Err(Failure::Runtime(format!(
            "--update: {shown}: {} files or directories could not be read; the entries they hold are kept as they were",
            update.unreadable.len() + update.not_read.len()
        )));
    }
    Ok(())
}
