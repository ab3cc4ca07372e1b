//! What `sum --update` and `audit --update` share around the library's
//! update: the manifest's lock (said while waiting), its plan with the
//! sidecar's stamps on it, and the report of what changed.

use std::path::Path;
use std::time::Duration;

use hashlab::Registry;
use hashlab_integrity::{
    lock_manifest, Framing, Listing, ManifestLock, PrepareError, SidecarRead, SumPlan, SumRequest,
    UpdateReport,
};

use crate::failure::Failure;
use crate::shared::args::{refusal, refused};

/// How long an update waits for another update of the same manifest.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// The manifest locked for its read, update and write (its sidecar is
/// written only under this lock too), waiting a bounded time for another
/// update to end.
pub fn lock(manifest: &Path) -> Result<Option<ManifestLock>, Failure> {
    let shown = manifest.display().to_string();
    lock_manifest(manifest, LOCK_WAIT, &mut || {
        errln!(
            "hashlab: {shown}: another update of it is running; waiting up to {} s",
            LOCK_WAIT.as_secs()
        )
    })
    .map_err(|e| Failure::Runtime(format!("{shown}: {e}")))
}

/// The manifest locked, then read (its bytes, and the listing an update
/// revises);
/// `label` starts the error messages (the manifest's name, and the flag
/// that asked for the update where another command does).
pub fn locked_listing(
    registry: &Registry,
    manifest: &Path,
    zero: bool,
    label: &str,
) -> Result<(Option<ManifestLock>, Vec<u8>, Listing), Failure> {
    let (framing, end) = if zero {
        (Framing::Nul, b'\0')
    } else {
        (Framing::Lines, b'\n')
    };
    let lock = lock(manifest)?;
    let old = hashlab_integrity::bounded::read_file(manifest, end)
        .map_err(|e| Failure::Runtime(format!("{label}: {e}")))?;
    let listing = Listing::read(registry, &old, &manifest.to_string_lossy(), framing)
        .map_err(|e| refusal(label, e))?;
    Ok((lock, old, listing))
}

/// Puts the sidecar's stamps on the listing (where it has one) and plans
/// the hashing in the manifest's algorithms and style; the sidecar's bytes
/// as they were. Refusals name the manifest as `shown`.
pub fn prepare(
    registry: &Registry,
    manifest: &Path,
    shown: &str,
    listing: &mut Listing,
    base: &SumRequest,
) -> Result<(SumPlan, Option<Vec<u8>>), Failure> {
    let SidecarRead { old, unreadable } = listing.apply_sidecar(manifest);
    if let Some(sidecar) = unreadable {
        errln!(
            "hashlab: {}: not a sidecar this version reads; every listed file is read again",
            sidecar.display()
        );
    }
    let plan = listing.plan_update(registry, base).map_err(|e| match e {
        PrepareError::Update(e) => refusal(shown, e),
        PrepareError::Plan(e) => refused(e),
    })?;
    Ok((plan, old))
}

/// What changed, one line per file, then the counts (stderr: stdout stays
/// free for the manifest lines `sum` prints without --update).
pub fn describe(shown: &str, report: &UpdateReport, prune: bool) {
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
