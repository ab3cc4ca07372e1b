//! Files through the integrity crate: the same walk, reading strategy and
//! manifest lines as `hashlab sum`, so a manifest made from Python is the one
//! the CLI would write and `hashlab check` reads.

use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use hashlab_integrity::{
    escaping_for, expand, gnu_line_as, hash_inputs, tag_line, Cancel, FileDigests, Input,
    PlanError, SumPlan, SumRequest, WalkOptions,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::calls::{checked_choice, params};
use crate::hash::length_argument;
use crate::interrupt::interruptible;
use crate::names::{registry, value_error};

pub(crate) fn path_of(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(bytes))
}

/// The system's message without Rust's " (os error N)" suffix; the number
/// travels separately, as OSError's errno.
pub(crate) use hashlab_integrity::io_message;

/// One file's outcome: (hex digest, bytes read, errno, message); the digest
/// and size are None on an error, the errno None when the system gave none.
type Outcome = (Option<String>, Option<u64>, Option<i32>, Option<String>);

fn outcome(result: io::Result<FileDigests>) -> Outcome {
    match result {
        Ok(FileDigests { digests, bytes, .. }) => {
            (Some(digests[0].to_hex()), Some(bytes), None, None)
        }
        Err(e) => (None, None, e.raw_os_error(), Some(io_message(&e))),
    }
}

/// Hashes files (paths as bytes, as `os.fsencode` gives them) on `threads`
/// threads (default: every core), with the read strategy `hashlab sum` uses,
/// and returns one outcome per path, in order. The GIL is released meanwhile.
/// `read_ahead=False` keeps large files from being read on a second thread,
/// for a caller that already runs a hashing thread on every core (several
/// Dask workers on one machine); None decides as `hashlab sum` does.
#[pyfunction]
#[pyo3(signature = (paths, algorithm, *, threads=None, key=None, length=None, backend=None, customization=None, read_ahead=None))]
#[allow(clippy::too_many_arguments)]
pub fn hash_paths(
    py: Python<'_>,
    paths: Vec<Bound<'_, PyBytes>>,
    algorithm: &str,
    threads: Option<usize>,
    key: Option<&Bound<'_, PyAny>>,
    length: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
    customization: Option<&Bound<'_, PyAny>>,
    read_ahead: Option<bool>,
) -> PyResult<Vec<Outcome>> {
    let inputs: Vec<Input> = paths
        .iter()
        .map(|p| Input::File(path_of(p.as_bytes())))
        .collect();
    let how = HowToHash {
        algorithm,
        threads,
        key,
        length,
        backend,
        customization,
        read_ahead,
    };
    let results = hash_files(py, &inputs, &how)?;
    Ok(results.into_iter().map(outcome).collect())
}

/// The arguments every function that hashes files takes, as Python gave them.
pub(crate) struct HowToHash<'a, 'py> {
    pub algorithm: &'a str,
    pub threads: Option<usize>,
    pub key: Option<&'a Bound<'py, PyAny>>,
    pub length: Option<&'a Bound<'py, PyAny>>,
    pub backend: Option<&'a str>,
    pub customization: Option<&'a Bound<'py, PyAny>>,
    pub read_ahead: Option<bool>,
}

/// Hashes `inputs` with the plan `hashlab sum` makes, the GIL released: one
/// result per input, in order.
pub(crate) fn hash_files(
    py: Python<'_>,
    inputs: &[Input],
    how: &HowToHash<'_, '_>,
) -> PyResult<Vec<io::Result<FileDigests>>> {
    // Bad names, keys and lengths fail here, before any file is touched.
    checked_choice(
        how.algorithm,
        how.backend,
        how.key,
        how.length,
        how.customization,
    )?;
    if how.threads == Some(0) {
        return Err(PyValueError::new_err("threads: must be at least 1"));
    }
    let sample: Vec<&std::path::Path> = inputs
        .iter()
        .take(8)
        .filter_map(|i| match i {
            Input::File(p) => Some(p.as_path()),
            _ => None,
        })
        .collect();
    // The plan `hashlab sum` makes: the same reading, threads and hashers.
    let request = SumRequest {
        algorithms: vec![how.algorithm.to_string()],
        backend: how.backend.map(str::to_string),
        params: params(how.key, how.length, how.customization)?,
        jobs: how.threads,
        allow_mmap: true,
        ..SumRequest::default()
    };
    let refused = |e: PlanError| match e {
        PlanError::Hash(e) => value_error(e),
        PlanError::TooManyJobs { .. } => PyValueError::new_err(format!("threads: {e}")),
        other => PyValueError::new_err(other.to_string()),
    };
    let mut plan = SumPlan::new(registry(), &request, &sample).map_err(refused)?;
    if let Some(read_ahead) = how.read_ahead {
        plan = plan.with_read_ahead(read_ahead).map_err(refused)?;
    }
    let job = plan.job(Cancel::new());
    let jobs = plan.jobs;
    // Ctrl-C raises KeyboardInterrupt within a fraction of a second, even in
    // the middle of a large file.
    let long = may_take_long(inputs);
    interruptible(py, &job.cancel, long, || {
        let make = || plan.fanout();
        let mut results = Vec::with_capacity(inputs.len());
        let finished =
            hash_inputs::<std::convert::Infallible>(inputs, &make, jobs, &job, &mut |_, result| {
                results.push(result);
                Ok(())
            });
        match finished {
            Ok(()) => results,
            Err(never) => match never {},
        }
    })
}

/// Whether hashing `inputs` may take long enough that Ctrl-C must be
/// watched for: many files, much data, or a file that may make us wait (a
/// FIFO, a device). A few small files take less time than starting the
/// thread that watches (`interruptible`).
fn may_take_long(inputs: &[Input]) -> bool {
    const FEW: usize = 16;
    const SMALL: u64 = 16 << 20;
    if inputs.len() > FEW {
        return true;
    }
    let mut total = 0u64;
    for input in inputs {
        let Input::File(path) = input else {
            return true;
        };
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => total += m.len(),
            // Fails at once when opened.
            Ok(m) if m.is_dir() => {}
            Ok(_) => return true,
            Err(_) => {}
        }
    }
    total >= SMALL
}

/// The files under `roots` as `hashlab sum -r` walks them: directories
/// recursively in byte order of names, symbolic links met while walking
/// skipped, paths in the form given. Returns (path, errno, message) with the
/// error fields set for what could not be listed, and for a directory met
/// again inside itself (a bind mount), which is not entered.
#[pyfunction]
pub fn walk(
    py: Python<'_>,
    roots: Vec<Bound<'_, PyBytes>>,
) -> Vec<(Vec<u8>, Option<i32>, Option<String>)> {
    let roots: Vec<PathBuf> = roots.iter().map(|r| path_of(r.as_bytes())).collect();
    py.detach(|| {
        let options = WalkOptions {
            recursive: true,
            follow_symlinks: false,
            exclude: None,
        };
        expand(&roots, &options)
            .into_iter()
            .filter_map(|input| match input {
                Input::File(p) => Some((p.into_os_string().into_vec(), None, None)),
                Input::Problem(p, e) => Some((
                    p.into_os_string().into_vec(),
                    e.raw_os_error(),
                    Some(io_message(&e)),
                )),
                Input::Stdin => None,
            })
            .collect()
    })
}

/// Manifest lines for (name, hex) entries, exactly as `hashlab sum -a
/// ALGORITHM` writes them: GNU lines (`<hex>  <name>`, coreutils escaping),
/// except XXH3 lines, which carry their tag as xxhsum writes them (xxhsum
/// reads an untagged 16-digit line as XXH64).
#[pyfunction]
#[pyo3(signature = (algorithm, entries, *, length=None))]
pub fn format_manifest<'py>(
    py: Python<'py>,
    algorithm: &str,
    entries: Vec<(Bound<'py, PyBytes>, String)>,
    length: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let algorithm = registry().algorithm(algorithm).map_err(value_error)?;
    let length = length_argument(length)?.unwrap_or(algorithm.output.default_len());
    let tagged = algorithm.lines == hashlab::LineForm::Tagged;
    let tag = algorithm.tag_for_length(length);
    let mut out = Vec::new();
    for (name, hex) in &entries {
        let line = if tagged {
            tag_line(&tag, name.as_bytes(), hex)
        } else {
            gnu_line_as(hex, name.as_bytes(), escaping_for(algorithm.lines))
        };
        out.extend_from_slice(&line);
    }
    Ok(PyBytes::new(py, &out))
}

/// Reads a manifest in any form `hashlab audit` reads (GNU, BSD tags,
/// openssl dgst lines, SFV, hashdeep, `sum --json`): (name, algorithm, hex) per
/// entry. `manifest_name` helps guess the algorithm as `x.sha256` does;
/// `algorithm` overrides the guess. A line that cannot be read raises
/// ValueError naming it: a manifest object holds every entry or none.
#[pyfunction]
#[pyo3(signature = (data, manifest_name, algorithm=None))]
pub fn read_manifest(
    data: &Bound<'_, PyBytes>,
    manifest_name: &str,
    algorithm: Option<&str>,
) -> PyResult<Vec<(Vec<u8>, String, String)>> {
    let options = hashlab_integrity::ReadOptions {
        algorithm,
        ..Default::default()
    };
    let manifest =
        hashlab_integrity::read_manifest(registry(), data.as_bytes(), manifest_name, &options)
            .map_err(|e| PyValueError::new_err(format!("{manifest_name}: {e}")))?;
    if let Some(problem) = manifest.problems.first() {
        return Err(PyValueError::new_err(format!("{manifest_name}: {problem}")));
    }
    if let Some(piecewise) = manifest.entries.iter().find(|r| r.digest.is_empty()) {
        return Err(PyValueError::new_err(format!(
            "{manifest_name}: {}: pieces only (hashdeep -p), no whole-file digest; a Manifest holds whole-file digests",
            String::from_utf8_lossy(&piecewise.name)
        )));
    }
    Ok(manifest
        .entries
        .into_iter()
        .map(|r| (r.name, r.algorithm, hashlab::hex::encode(&r.digest)))
        .collect())
}

/// Writes `data` as the whole content of `path` as `hashlab sum -o` does: a
/// regular file is replaced by a temporary file (random name, created
/// exclusively, never through a planted link) renamed over it, keeping its
/// mode and owner; a link is followed to its target; a device or FIFO is
/// written through. On any error the old file is left whole and no
/// temporary file remains; raises OSError with the errno and the path.
#[pyfunction]
pub fn write_file(py: Python<'_>, path: Bound<'_, PyBytes>, data: &[u8]) -> PyResult<()> {
    let target = path_of(path.as_bytes());
    py.detach(|| hashlab_integrity::write_file(&target, data))
        .map_err(|e| {
            let errno = e.io_error().raw_os_error();
            let message = io_message(e.io_error());
            let filename = PyBytes::new(py, path.as_bytes()).into_any().unbind();
            match errno {
                Some(n) => pyo3::exceptions::PyOSError::new_err((n, message, filename)),
                None => pyo3::exceptions::PyOSError::new_err(format!("{e}")),
            }
        })
}

/// One file of a sidecar: (name, size, mtime_ns, inode, ctime_ns, etag, check).
type SidecarRow = (
    Vec<u8>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<String>,
    Vec<u8>,
);

/// The sidecar `hashlab sum --update` keeps beside a manifest
/// (`MANIFEST.hashlab-stat`): a row per file, `check` being the first 8
/// bytes of its digest then. None when the bytes are not a sidecar this
/// version reads (every file is then read again).
#[pyfunction]
pub fn read_sidecar(data: &[u8]) -> Option<Vec<SidecarRow>> {
    let sidecar = hashlab_integrity::Sidecar::parse(data)?;
    Some(
        sidecar
            .files
            .into_iter()
            .map(|e| {
                let s = e.stamp;
                (
                    e.name,
                    s.size,
                    s.mtime_ns,
                    s.inode,
                    s.ctime_ns,
                    s.etag,
                    e.check.to_vec(),
                )
            })
            .collect(),
    )
}

/// A sidecar's bytes from rows as [`read_sidecar`] gives them.
#[pyfunction]
pub fn format_sidecar<'py>(
    py: Python<'py>,
    rows: Vec<SidecarRow>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut files = Vec::with_capacity(rows.len());
    for (name, size, mtime_ns, inode, ctime_ns, etag, check) in rows {
        let check: [u8; 8] = check
            .as_slice()
            .try_into()
            .map_err(|_| PyValueError::new_err("a sidecar check is 8 bytes"))?;
        files.push(hashlab_integrity::SidecarEntry {
            name,
            stamp: hashlab_integrity::Stamp {
                size,
                mtime_ns,
                inode,
                ctime_ns,
                etag,
            },
            check,
        });
    }
    Ok(PyBytes::new(
        py,
        &hashlab_integrity::Sidecar { files }.to_bytes(),
    ))
}
