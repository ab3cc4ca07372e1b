//! `hashlab sum --update MANIFEST [PATHS...]`: the manifest brought up to
//! date with its tree (`hashlab_integrity::update` decides; this file reads,
//! writes and reports).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_integrity::update::{write_updated, Pending, Seen};
use hashlab_integrity::{
    is_url_name, update_tree, Cancel, FileDigests, Framing, Listing, ManifestLock, Stamp, SumPlan,
    TreeUpdate, UpdateError, UpdateReport, Updated, WalkOptions,
};
use hashlab_objects::{is_object_url, ObjectReader, Settings as ObjectSettings};
use serde::Serialize;

use super::request::{names, sum_request, walk_options};
use crate::cli::{SumArgs, SumFormat};
use crate::failure::{io_message, Failure};
use crate::output::render_json;
use crate::shared::args::{refusal, secret_params, usage};
use crate::shared::update::{describe, lock, prepare};

#[derive(Serialize)]
struct UpdateJson<'a> {
    manifest: String,
    /// Whether the manifest was rewritten (false: it already described the tree).
    written: bool,
    #[serde(flatten)]
    report: &'a UpdateReport,
}

/// An update as its arguments and the manifest ask for it: the manifest
/// locked and read, its plan, and what to read.
struct UpdateRun {
    _lock: Option<ManifestLock>,
    old: Vec<u8>,
    old_sidecar: Option<Vec<u8>>,
    listing: Listing,
    plan: SumPlan,
    paths: Vec<PathBuf>,
    /// How to walk the paths; `None`: they are object-store URLs.
    walk: Option<WalkOptions>,
    json: bool,
}

/// The update's request: `--format` checked, the manifest locked, read and
/// planned in its own algorithms and style (`-a` must name them), the
/// paths all local or all URLs.
fn update_request(
    registry: &Registry,
    args: &SumArgs,
    manifest: &Path,
    shown: &str,
) -> Result<UpdateRun, Failure> {
    let json = match (args.json, args.format) {
        (true, _) | (false, Some(SumFormat::Json)) => true,
        (false, None) => false,
        (false, Some(_)) => return Err(Failure::Usage(
            "--update keeps the manifest's own form; --format takes only json there (the report)"
                .into(),
        )),
    };
    let params = hashlab::HashParams {
        length: args.length,
        ..secret_params(registry, &args.secret)?
    };
    let (framing, end) = if args.zero {
        (Framing::Nul, b'\0')
    } else {
        (Framing::Lines, b'\n')
    };
    let lock = lock(manifest)?;
    let old = hashlab_integrity::bounded::read_file(manifest, end)
        .map_err(|e| Failure::Runtime(format!("{shown}: {e}")))?;
    let mut listing = Listing::read(registry, &old, &manifest.to_string_lossy(), framing)
        .map_err(|e| refusal(shown, e))?;
    if let Some(asked) = &args.algorithm {
        let mut canonical = Vec::new();
        for name in asked.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            canonical.push(registry.algorithm(name).map_err(usage)?.name.clone());
        }
        listing
            .require_algorithms(&canonical)
            .map_err(|e| Failure::Usage(format!("-a: {shown}: {e}")))?;
    }
    let base = sum_request(registry, args, &params);
    let (plan, old_sidecar) = prepare(registry, manifest, shown, &mut listing, &base)?;
    let paths = names(args, false)?;
    let urls = paths
        .iter()
        .filter(|p| p.to_str().is_some_and(is_object_url))
        .count();
    let walk = if urls == 0 {
        Some(walk_options(args)?)
    } else if urls == paths.len() {
        None
    } else {
        return Err(Failure::Usage(
            "--update: give files or object-store URLs, not both (a manifest describes one tree)"
                .into(),
        ));
    };
    Ok(UpdateRun {
        _lock: lock,
        old,
        old_sidecar,
        listing,
        plan,
        paths,
        walk,
        json,
    })
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
    let Updated {
        manifest: new,
        sidecar,
        report,
    } = updated;
    let written = write_updated(
        manifest,
        &old,
        old_sidecar.as_deref(),
        &new,
        sidecar.as_deref(),
    )?;
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
