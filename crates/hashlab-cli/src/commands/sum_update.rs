//! `hashlab sum --update MANIFEST [PATHS...]`: the manifest brought up to
//! date with its tree (`hashlab_integrity::update` decides; this file reads,
//! writes and reports).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_integrity::update::{Form, Pending, Seen};
use hashlab_integrity::{
    is_url_name, lock_manifest, sidecar_path, update_tree, write_file, Cancel, FileDigests,
    Framing, Listing, ManifestLock, Sidecar, Stamp, SumPlan, SumRequest, TreeUpdate, UpdateError,
    UpdateReport, Updated,
};
use hashlab_objects::{is_object_url, ObjectReader, Settings as ObjectSettings};
use serde::Serialize;

use crate::cli::{SumArgs, SumFormat};
use crate::commands::sum::{names, params, planned, refused, request};
use crate::failure::{io_message, Failure};
use crate::output::render_json;

#[derive(Serialize)]
struct UpdateJson<'a> {
    manifest: String,
    /// Whether the manifest was rewritten (false: it already described the tree).
    written: bool,
    #[serde(flatten)]
    report: &'a UpdateReport,
}

pub(crate) fn run(args: &SumArgs, manifest: &Path) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let shown = manifest.display().to_string();
    let json = match (args.json, args.format) {
        (true, _) | (false, Some(SumFormat::Json)) => true,
        (false, None) => false,
        (false, Some(_)) => return Err(Failure::Usage(
            "--update keeps the manifest's own form; --format takes only json there (the report)"
                .into(),
        )),
    };
    let params = params(&registry, args)?;
    let framing = if args.zero {
        Framing::Nul
    } else {
        Framing::Lines
    };
    let _lock = lock(manifest)?;
    let end = if args.zero { b'\0' } else { b'\n' };
    let old = hashlab_integrity::bounded::read_file(manifest, end)
        .map_err(|e| Failure::Runtime(format!("{shown}: {e}")))?;
    let refused = |e: UpdateError| refusal(&shown, e);
    let mut listing =
        Listing::read(&registry, &old, &manifest.to_string_lossy(), framing).map_err(refused)?;
    if let Some(asked) = &args.algorithm {
        let mut canonical = Vec::new();
        for name in asked.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let algorithm = registry
                .algorithm(name)
                .map_err(crate::shared::args::usage)?;
            canonical.push(algorithm.name.clone());
        }
        listing
            .require_algorithms(&canonical)
            .map_err(|e| Failure::Usage(format!("-a: {shown}: {e}")))?;
    }
    let base = request(&registry, args, &params);
    let (plan, old_sidecar) = prepare(&registry, manifest, &mut listing, &base)?;
    let paths = names(args, false)?;
    let urls: Vec<&PathBuf> = paths
        .iter()
        .filter(|p| p.to_str().is_some_and(is_object_url))
        .collect();
    let job = plan.job(Cancel::new());
    {
        // An interrupt leaves the manifest as it was: the read in progress
        // stops at its next chunk and nothing is written.
        let cancel = job.cancel.clone();
        let _ = ctrlc::set_handler(move || cancel.cancel());
    }
    let updated = if urls.is_empty() {
        let tree = TreeUpdate {
            manifest,
            paths: &paths,
            walk: crate::commands::sum::walk_options(args)?,
            prune: args.prune,
            known: None,
        };
        match update_tree(&listing, &plan, &job, &tree) {
            Ok(updated) => updated.map_err(refused)?,
            Err(e) if hashlab_integrity::is_interrupted(&e) => {
                errln!("hashlab: interrupted; {shown} is untouched");
                return Ok(ExitCode::from(130));
            }
            Err(e) => return Err(Failure::Runtime(io_message(&e))),
        }
    } else if urls.len() == paths.len() {
        update_objects(&listing, &plan, &paths, args.prune)?.map_err(refused)?
    } else {
        return Err(Failure::Usage(
            "--update: give files or object-store URLs, not both (a manifest describes one tree)"
                .into(),
        ));
    };
    if job.cancel.is_cancelled() {
        errln!("hashlab: interrupted; {shown} is untouched");
        return Ok(ExitCode::from(130));
    }
    let Updated {
        manifest: new,
        sidecar: new_sidecar,
        report,
    } = updated;
    let written = write_updated(manifest, &old, old_sidecar.as_deref(), new, new_sidecar)?;
    if json {
        crate::stdio::write_out(&render_json(&UpdateJson {
            manifest: shown.clone(),
            written,
            report: &report,
        })?)?;
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

/// How long an update waits for another update of the same manifest.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// The manifest locked for its read, update and write (its sidecar is
/// written only under this lock too), waiting a bounded time for another
/// update to end.
pub(crate) fn lock(manifest: &Path) -> Result<Option<ManifestLock>, Failure> {
    let shown = manifest.display().to_string();
    lock_manifest(manifest, LOCK_WAIT, &mut || {
        errln!(
            "hashlab: {shown}: another update of it is running; waiting up to {} s",
            LOCK_WAIT.as_secs()
        )
    })
    .map_err(|e| Failure::Runtime(format!("{shown}: {e}")))
}

/// A refusal to update, naming the manifest.
pub(crate) fn refusal(shown: &str, e: UpdateError) -> Failure {
    match e {
        e @ (UpdateError::OtherAlgorithms { .. } | UpdateError::TwoLengths { .. }) => {
            Failure::Usage(format!("{shown}: {e}"))
        }
        e => Failure::Runtime(format!("{shown}: {e}")),
    }
}

/// Puts the sidecar's stamps on the listing (where it has one) and plans
/// the hashing in the manifest's algorithms and style; the sidecar's bytes
/// as they were.
pub(crate) fn prepare(
    registry: &Registry,
    manifest: &Path,
    listing: &mut Listing,
    base: &SumRequest,
) -> Result<(SumPlan, Option<Vec<u8>>), Failure> {
    let shown = manifest.display().to_string();
    let sidecar = sidecar_path(manifest);
    let old_sidecar = match listing.form {
        Form::Json => None,
        // Bounded as the manifest is: a sidecar that is not one reads as none.
        _ => hashlab_integrity::bounded::read_file(&sidecar, b'\n').ok(),
    };
    if let Some(bytes) = &old_sidecar {
        match Sidecar::parse(bytes) {
            Some(s) => s.apply(listing),
            None => errln!(
                "hashlab: {}: not a sidecar this version reads; every listed file is read again",
                sidecar.display()
            ),
        }
    }
    let request = listing
        .sum_request(registry, base)
        .map_err(|e| refusal(&shown, e))?;
    // One plan: the styles the manifest's first line may be in are tried on it.
    let plan = planned(registry, &request)?;
    listing
        .settle_style(&plan)
        .map_err(|e| refusal(&shown, e))?;
    Ok((listing.styled(&plan).map_err(refused)?, old_sidecar))
}

/// Writes what changed of the manifest and its sidecar, each atomically,
/// the manifest first (a sidecar entry counts only for the digests the
/// manifest has, so either left alone by a crash is safe). Whether the
/// manifest was rewritten.
pub(crate) fn write_updated(
    manifest: &Path,
    old: &[u8],
    old_sidecar: Option<&[u8]>,
    new: Vec<u8>,
    new_sidecar: Option<Vec<u8>>,
) -> Result<bool, Failure> {
    let written = new != old;
    if written {
        write_file(manifest, &new)?;
    }
    if let Some(bytes) = new_sidecar {
        if old_sidecar != Some(bytes.as_slice()) {
            write_file(sidecar_path(manifest), &bytes)?;
        }
    }
    Ok(written)
}

/// What changed, one line per file, then the counts (stderr: stdout stays
/// free for the manifest lines `sum` prints without --update).
pub(crate) fn describe(shown: &str, report: &UpdateReport, prune: bool) {
    for name in &report.added {
        errln!("added: {name}");
    }
    for name in &report.changed {
        errln!("changed: {name}");
    }
    for name in &report.removed {
        errln!("removed: {name}");
    }
    for name in &report.missing {
        errln!("missing: {name} (kept; --prune drops it)");
    }
    for (name, why) in &report.unreadable {
        errln!("unreadable: {name}: {why} (kept as it was)");
    }
    for (name, why) in &report.skipped {
        errln!("skipped: {name}: {why} (kept as it was)");
    }
    for (name, why) in &report.not_read {
        errln!("unreadable: {name}: {why} (no entry under it is dropped)");
    }
    let outside = if report.outside.is_empty() {
        String::new()
    } else {
        format!(
            ", {} outside the paths given (kept, not read; first: {})",
            report.outside.len(),
            report.outside[0]
        )
    };
    errln!(
        "hashlab: {shown}: {} added, {} changed, {} {}, {} re-read unchanged, {} unchanged (not read){outside}",
        report.added.len(),
        report.changed.len(),
        if prune {
            report.removed.len()
        } else {
            report.missing.len()
        },
        if prune { "removed" } else { "missing" },
        report.rehashed.len(),
        report.unchanged,
    );
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
