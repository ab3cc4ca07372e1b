//! A Python `Manifest` brought up to date by the integrity crate's update,
//! the one `hashlab sum --update` runs: the manifest's lines and sidecar go
//! in, the rewritten lines, sidecar and report come out. `update_tree` walks,
//! stats and reads local files as the CLI does; `PendingUpdate` sorts files
//! seen elsewhere (`hashlab.dask`'s listing of local trees and object stores)
//! and, once the caller has hashed what it asks for, writes the result.

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use hashlab::Digest;
use hashlab_integrity::{
    own_files, update_tree_with, Cancel, FileDigests, Framing, HeldRules, Listing, Pending,
    PlanError, Seen, Sidecar, Stamp, SumPlan, SumRequest, TreeUpdate, UpdateError, UpdateReport,
    Updated, WalkOptions,
};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::calls::{checked_choice, params};
use crate::files::{io_message, path_of};
use crate::interrupt::interruptible;
use crate::names::{registry, value_error};

/// The name errors give the manifest, which here is a value, not a file.
const SHOWN: &str = "manifest";

/// (manifest lines, sidecar bytes, report) after an update.
type Outcome<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyDict>);

/// (name, size, mtime_ns, inode, ctime_ns, etag): a file seen now. Times
/// are signed, as `os.stat` gives them.
type SeenRow = (
    Vec<u8>,
    Option<u64>,
    Option<i64>,
    Option<u64>,
    Option<i64>,
    Option<String>,
);

fn refused(e: UpdateError) -> PyErr {
    PyValueError::new_err(format!("{SHOWN}: {e}"))
}

fn plan_refused(e: PlanError) -> PyErr {
    match e {
        PlanError::Hash(e) => value_error(e),
        PlanError::TooManyJobs { .. } => PyValueError::new_err(format!("threads: {e}")),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// The manifest's lines as the library reads them for an update, with the
/// sidecar's stamps on them and the rules of a manifest held in memory,
/// and the plan that writes its new lines in its style.
fn prepared(
    lines: &[u8],
    sidecar: Option<&[u8]>,
    algorithm: &str,
    length: usize,
    base: &SumRequest,
) -> PyResult<(Listing, SumPlan)> {
    let registry = registry();
    let canonical = registry
        .algorithm(algorithm)
        .map_err(value_error)?
        .name
        .clone();
    let mut listing = match Listing::read(registry, lines, SHOWN, Framing::Lines) {
        Ok(listing) => listing,
        Err(UpdateError::Empty) => Listing::empty(vec![(canonical, length)]),
        Err(e) => return Err(refused(e)),
    };
    if let Some(sidecar) = sidecar.and_then(Sidecar::parse) {
        sidecar.apply(&mut listing);
    }
    listing.held = HeldRules {
        may_empty: true,
        only_files_exist: true,
    };
    let request = listing.sum_request(registry, base).map_err(refused)?;
    let plan = SumPlan::new(registry, &request, &[]).map_err(plan_refused)?;
    if listing.files.is_empty() {
        // No line to take the style from: `sum`'s own, as the lines were written.
        return Ok((listing, plan));
    }
    listing.settle_style(&plan).map_err(refused)?;
    let plan = listing.styled(&plan).map_err(plan_refused)?;
    Ok((listing, plan))
}

/// The request `hashlab sum` makes from these arguments (the algorithms
/// and lengths come from the manifest).
fn base_request(
    algorithm: &str,
    threads: Option<usize>,
    key: Option<&Bound<'_, PyAny>>,
    length: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
) -> PyResult<SumRequest> {
    // Bad names, keys and lengths fail here, before any file is touched.
    checked_choice(algorithm, backend, key, length, None)?;
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads: must be at least 1"));
    }
    Ok(SumRequest {
        backend: backend.map(str::to_string),
        params: params(key, length, None)?,
        jobs: threads,
        allow_mmap: true,
        ..SumRequest::default()
    })
}

fn outcome<'py>(py: Python<'py>, updated: Updated) -> PyResult<Outcome<'py>> {
    let UpdateReport {
        added,
        changed,
        removed,
        missing,
        rehashed,
        unchanged,
        outside,
        unreadable,
        not_read,
        skipped,
    } = updated.report;
    let report = PyDict::new(py);
    report.set_item("added", added)?;
    report.set_item("changed", changed)?;
    report.set_item("removed", removed)?;
    report.set_item("missing", missing)?;
    report.set_item("rehashed", rehashed)?;
    report.set_item("unchanged", unchanged)?;
    report.set_item("outside", outside)?;
    report.set_item("unreadable", unreadable)?;
    report.set_item("not_read", not_read)?;
    report.set_item("skipped", skipped)?;
    Ok((
        PyBytes::new(py, &updated.manifest),
        PyBytes::new(py, updated.sidecar.as_deref().unwrap_or_default()),
        report,
    ))
}

/// Brings the manifest `lines` (entries only, as `format_manifest` writes
/// them) up to date with the files under `paths` (none: the files it
/// lists), as `hashlab sum --update` does: walks, stats, reads what is new
/// or moved on `threads` threads, the GIL released. `manifest`, the file the
/// lines are kept in, is left out of the walk with its sidecar. Returns
/// (lines, sidecar, report); the report holds `UpdateReport`'s fields.
#[pyfunction]
#[pyo3(signature = (lines, sidecar, algorithm, length, paths, *, prune=false, manifest=None, threads=None, key=None, length_argument=None, backend=None))]
#[allow(clippy::too_many_arguments)]
pub fn update_tree<'py>(
    py: Python<'py>,
    lines: &[u8],
    sidecar: Option<&[u8]>,
    algorithm: &str,
    length: usize,
    paths: Vec<Bound<'_, PyBytes>>,
    prune: bool,
    manifest: Option<Bound<'_, PyBytes>>,
    threads: Option<usize>,
    key: Option<&Bound<'_, PyAny>>,
    length_argument: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
) -> PyResult<Outcome<'py>> {
    let base = base_request(algorithm, threads, key, length_argument, backend)?;
    let (listing, plan) = prepared(lines, sidecar, algorithm, length, &base)?;
    let paths: Vec<PathBuf> = paths.iter().map(|p| path_of(p.as_bytes())).collect();
    let manifest = manifest.map(|m| path_of(m.as_bytes()));
    let tree = TreeUpdate {
        manifest: manifest.as_deref().unwrap_or(Path::new("")),
        paths: &paths,
        // As `hashlab.walk` and `sum -r` walk.
        walk: WalkOptions {
            recursive: true,
            follow_symlinks: false,
            exclude: None,
        },
        prune,
        known: None,
    };
    let job = plan.job(Cancel::new());
    let updated = interruptible(py, &job.cancel, true, || match &manifest {
        Some(file) => update_tree_with(&listing, &plan, &job, &tree, &own_files(file)),
        None => update_tree_with(&listing, &plan, &job, &tree, &|_| false),
    })?;
    match updated {
        Ok(updated) => outcome(py, updated.map_err(refused)?),
        Err(e) => Err(PyOSError::new_err((e.raw_os_error(), io_message(&e)))),
    }
}

/// (size, mtime_ns, inode, ctime_ns, etag): `hashlab.Stamp`'s fields.
type StampRow = (
    Option<u64>,
    Option<i64>,
    Option<u64>,
    Option<i64>,
    Option<String>,
);

/// A time before 1970 is no time the library records (as `mtime_ns`
/// reads a file's), so it proves nothing unchanged.
fn stamp((size, mtime_ns, inode, ctime_ns, etag): StampRow) -> Stamp {
    let since_1970 = |ns: Option<i64>| ns.and_then(|ns| u64::try_from(ns).ok());
    Stamp {
        size,
        mtime_ns: since_1970(mtime_ns),
        inode,
        ctime_ns: since_1970(ctime_ns),
        etag,
    }
}

/// Whether a file stamped `now` is the one stamped `recorded`, as an
/// update decides it (`Stamp.unchanged`).
#[pyfunction]
pub fn stamp_unchanged(recorded: StampRow, now: StampRow) -> bool {
    stamp(recorded).unchanged(&stamp(now))
}

/// An update of files seen by the caller (listed in object stores, stat'ed
/// on a cluster's client): `wanted` says which of them to hash, `finish`
/// writes the manifest from their digests.
#[pyclass(module = "hashlab._hashlab")]
pub struct PendingUpdate {
    listing: Listing,
    plan: SumPlan,
    pending: Option<Pending>,
    seen: Vec<Stamp>,
}

/// A stamp's modification time as the time a file was read.
fn system_time(ns: Option<u64>) -> Option<std::time::SystemTime> {
    ns.map(|ns| UNIX_EPOCH + Duration::from_nanos(ns))
}

#[pymethods]
impl PendingUpdate {
    /// Sorts `seen` (what is there now under `roots`) against the manifest
    /// `lines`: new files and files whose stamp moved are `wanted`; listed
    /// files not seen under `roots` are gone (dropped with `prune`), unless
    /// under a path of `problems` ((path, message): could not be listed).
    #[new]
    #[pyo3(signature = (lines, sidecar, algorithm, length, seen, roots, *, prune=false, problems=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        lines: &[u8],
        sidecar: Option<&[u8]>,
        algorithm: &str,
        length: usize,
        seen: Vec<SeenRow>,
        roots: Vec<Vec<u8>>,
        prune: bool,
        problems: Vec<(Vec<u8>, String)>,
    ) -> PyResult<Self> {
        let base = base_request(algorithm, None, None, None, None)?;
        let (listing, plan) = prepared(lines, sidecar, algorithm, length, &base)?;
        let cwd = std::env::current_dir()
            .map_err(|e| PyOSError::new_err((e.raw_os_error(), io_message(&e))))?;
        let seen: Vec<Seen> = seen
            .into_iter()
            .map(|(name, size, mtime_ns, inode, ctime_ns, etag)| Seen {
                name,
                stamp: stamp((size, mtime_ns, inode, ctime_ns, etag)),
            })
            .collect();
        let stamps = seen.iter().map(|s| s.stamp.clone()).collect();
        let roots: Vec<PathBuf> = roots.iter().map(|r| path_of(r)).collect();
        let unread: Vec<(PathBuf, String)> = problems
            .into_iter()
            .map(|(path, message)| (path_of(&path), message))
            .collect();
        // Every file under a root was listed: one not seen is gone, unless
        // what holds it could not be listed.
        let exists = |name: &[u8]| {
            let name = path_of(name);
            match unread.iter().find(|(path, _)| name.starts_with(path)) {
                Some((path, _)) => Err(format!(
                    "not found, and {} could not be read",
                    path.display()
                )),
                None => Ok(false),
            }
        };
        let pending = listing.pending(seen, Some(&roots), &cwd, prune, &exists);
        Ok(PendingUpdate {
            listing,
            plan,
            pending: Some(pending),
            seen: stamps,
        })
    }

    /// The indices (into `seen`) of the files to hash, in order.
    #[getter]
    fn wanted(&self) -> Vec<usize> {
        self.pending
            .as_ref()
            .map(|p| p.to_hash.clone())
            .unwrap_or_default()
    }

    /// The manifest written from (hex digest or None, message) for each of
    /// `wanted`, in its order: (lines, sidecar, report), as `update_tree`.
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
        outcomes: Vec<(Option<String>, String)>,
    ) -> PyResult<Outcome<'py>> {
        let pending = self
            .pending
            .take()
            .ok_or_else(|| PyValueError::new_err("this update is finished already"))?;
        if outcomes.len() != pending.to_hash.len() {
            return Err(PyValueError::new_err(format!(
                "{} outcomes for {} files wanted",
                outcomes.len(),
                pending.to_hash.len()
            )));
        }
        let mut results = Vec::with_capacity(outcomes.len());
        for (&i, (hex, message)) in pending.to_hash.iter().zip(outcomes) {
            let result = match hex {
                None => Err(message),
                Some(hex) => {
                    let digest = hashlab::hex::decode(&hex)
                        .map_err(|_| PyValueError::new_err(format!("{hex:?}: not hex digits")))?;
                    // The stamp taken before the read is the one recorded:
                    // a file changed since is read again next time.
                    let stamp = &self.seen[i];
                    Ok(FileDigests {
                        digests: vec![Digest(digest)],
                        bytes: stamp.size.unwrap_or_default(),
                        modified: system_time(stamp.mtime_ns),
                        inode: stamp.inode,
                        ctime_ns: stamp.ctime_ns,
                    })
                }
            };
            results.push((i, result));
        }
        let cwd = std::env::current_dir()
            .map_err(|e| PyOSError::new_err((e.raw_os_error(), io_message(&e))))?;
        let updated = pending
            .finish(&self.listing, &self.plan, &cwd, results)
            .map_err(refused)?;
        outcome(py, updated)
    }
}
