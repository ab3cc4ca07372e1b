//! `hashlab sum --update MANIFEST [PATHS...]`: the manifest brought up to
//! date with its tree (`hashlab_integrity::update_tree` decides; this file reads,
//! writes and reports).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_integrity::{
    is_url_name, update_tree, write_updated, Cancel, FileDigests, Listing, Pending, Seen, Stamp,
    SumPlan, TreeUpdate, UpdateError, UpdateReport, Updated,
};
use hashlab_objects::{ObjectReader, Settings as ObjectSettings};
use serde::Serialize;

use super::request::{update_request, UpdateRun};
use crate::cli::SumArgs;
use crate::failure::{io_message, Failure};
use crate::output::render_json;
use crate::shared::args::refusal;
use crate::shared::update::describe;

#[derive(Serialize)]
struct UpdateJson<'a> {
    manifest: String,
    /// Whether the manifest was rewritten (false: it already described the tree).
    written: bool,
    #[serde(flatten)]
    report: &'a UpdateReport,
}

pub(super) fn run(args: &SumArgs, manifest: &Path) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let shown = manifest.display().to_string();
    let UpdateRun {
        _lock,
        old,
        old_sidecar,
        listing,
        plan,
        paths,
        walk,
        json,
    } = update_request(&registry, args, manifest, &shown)?;
    let job = plan.job(Cancel::new());
    {
        // An interrupt leaves the manifest as it was: the read in progress
        // stops at its next chunk and nothing is written.
        let cancel = job.cancel.clone();
        let _ = ctrlc::set_handler(move || cancel.cancel());
    }
    let updated = match walk {
        Some(walk) => {
            let tree = TreeUpdate {
                manifest,
                paths: &paths,
                walk,
                prune: args.prune,
                known: None,
            };
            match update_tree(&listing, &plan, &job, &tree) {
                Ok(updated) => updated,
                Err(e) if hashlab_integrity::is_interrupted(&e) => return Ok(interrupted(&shown)),
                Err(e) => return Err(Failure::Runtime(io_message(&e))),
            }
        }
        None => update_objects(&listing, &plan, &paths, args.prune)?,
    }
    .map_err(|e| refusal(&shown, e))?;
    if job.cancel.is_cancelled() {
        return Ok(interrupted(&shown));
    }
    write_and_report(
        args,
        manifest,
        shown,
        &old,
        old_sidecar.as_deref(),
        updated,
        json,
    )
}

/// The update written where it changed anything, and reported.
fn write_and_report(
    args: &SumArgs,
    manifest: &Path,
    shown: String,
    old: &[u8],
    old_sidecar: Option<&[u8]>,
    updated: Updated,
    json: bool,
) -> Result<ExitCode, Failure> {
    let Updated {
        manifest: new,
        sidecar,
        report,
    } = updated;
    let written = write_updated(manifest, old, old_sidecar, &new, sidecar.as_deref())?;
    if json {
        let json = UpdateJson {
            manifest: shown,
            written,
            report: &report,
        };
        crate::stdio::write_out(&render_json(&json)?)?;
    } else {
        describe(&shown, &report, args.prune);
    }
    Ok(
        if report.unreadable.is_empty() && report.not_read.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

/// An interrupted update: the manifest as it was, exit 130.
fn interrupted(shown: &str) -> ExitCode {
    errln!("hashlab: interrupted; {shown} is untouched");
    ExitCode::from(130)
}

/// Lists each prefix and reads the objects that are new or whose ETag,
/// size or time moved.
fn update_objects(
    listing: &Listing,
    plan: &SumPlan,
    urls: &[PathBuf],
    prune: bool,
) -> Result<Result<Updated, UpdateError>, Failure> {
    let reader = ObjectReader::new(ObjectSettings::default())
        .map_err(|e| Failure::Runtime(format!("object-store client: {e}")))?;
    let mut objects = Vec::new();
    for url in urls {
        let url = url.to_string_lossy();
        let listed = reader
            .list(&url)
            .map_err(|e| Failure::Runtime(format!("{url}: {e}")))?;
        objects.extend(listed);
    }
    let seen: Vec<Seen> = objects
        .iter()
        .map(|o| Seen {
            name: o.name.as_bytes().to_vec(),
            stamp: Stamp {
                size: Some(o.size),
                mtime_ns: o.modified.and_then(hashlab_integrity::mtime_ns),
                inode: None,
                ctime_ns: None,
                etag: o.e_tag.clone(),
            },
        })
        .collect();
    let cwd = std::env::current_dir().map_err(|e| Failure::Runtime(io_message(&e)))?;
    let roots: Vec<PathBuf> = urls.to_vec();
    // A listing names every object under a prefix: one it lacks is gone.
    let exists = |name: &[u8]| Ok(!is_url_name(name));
    let pending: Pending = listing.pending(seen, Some(&roots), &cwd, prune, &exists);
    let wanted: Vec<_> = pending
        .to_hash
        .iter()
        .map(|&i| objects[i].clone())
        .collect();
    let mut results: Vec<(usize, Result<FileDigests, String>)> = Vec::new();
    let make = || plan.fanout_for_ranges();
    reader.hash(&wanted, &make, false, &mut |n, result| {
        results.push((
            pending.to_hash[n],
            result.map(|d| d.digests).map_err(|e| e.to_string()),
        ));
        Ok::<(), Failure>(())
    })?;
    Ok(pending.finish(listing, plan, &cwd, results))
}
