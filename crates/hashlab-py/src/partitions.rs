//! The per-file work of `hashlab.dask.sum` on local files, done here rather
//! than in Python. On 20,000 files of 64 KiB the client's Python spent about
//! 7 µs a file (listing, assigning partitions, pickling lists of names,
//! merging and sorting entries) against 51 µs of hashing, so one Dask worker
//! reached only 86-88 % of a single `hashlab sum`.
//!
//! Names travel *packed*: one `bytes` per partition, each name followed by a
//! NUL (no path holds one), so a task ships one object instead of thousands
//! of strings, and names become Python strings once, at the end, sorted.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use hashlab::HashParams;
use hashlab_integrity::{expand, Input, WalkOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::files::{hash_files, io_message, HowToHash};
use crate::names::registry;

const END: u8 = 0;

/// The hash that spreads names over partitions; `partition_of` in
/// python/hashlab/_manifest.py defines the same split with hashlib.
const PARTITION_HASH: &str = "sha256";

fn names_in(packed: &[u8]) -> impl Iterator<Item = &[u8]> {
    // The last name's NUL leaves an empty piece after it; no name is empty.
    packed.split(|&b| b == END).filter(|name| !name.is_empty())
}

fn push_name(packed: &mut Vec<u8>, name: &[u8]) {
    packed.extend_from_slice(name);
    packed.push(END);
}

/// (problem name, message) pairs, names decoded as `os.fsdecode` does.
type Problems = Vec<(OsString, String)>;

/// The files under `roots` as `hashlab sum -r` walks them (see `walk`),
/// each once: (packed names, how many, problems), a problem being what could
/// not be listed.
#[pyfunction]
pub fn walk_packed<'py>(
    py: Python<'py>,
    roots: Vec<Bound<'py, PyBytes>>,
) -> (Bound<'py, PyBytes>, usize, Problems) {
    let roots: Vec<PathBuf> = roots
        .iter()
        .map(|r| PathBuf::from(OsStr::from_bytes(r.as_bytes())))
        .collect();
    let (packed, count, problems) = py.detach(|| {
        let options = WalkOptions {
            recursive: true,
            follow_symlinks: false,
            exclude: None,
        };
        let inputs = expand(&roots, &options);
        let mut seen: HashSet<&[u8]> = HashSet::with_capacity(inputs.len());
        let mut packed = Vec::new();
        let mut count = 0;
        let mut problems = Vec::new();
        for input in &inputs {
            match input {
                Input::File(path) => {
                    let name = path.as_os_str().as_bytes();
                    if seen.insert(name) {
                        push_name(&mut packed, name);
                        count += 1;
                    }
                }
                Input::Problem(path, error) => {
                    if seen.insert(path.as_os_str().as_bytes()) {
                        problems.push((path.as_os_str().to_os_string(), io_message(error)));
                    }
                }
                Input::Stdin => {}
            }
        }
        (packed, count, problems)
    });
    (PyBytes::new(py, &packed), count, problems)
}

/// Packed names split into `partitions` packed parts by the first 8 bytes
/// of each name's SHA-256, big-endian, modulo the count (a manifest's
/// partitions, python/hashlab/_manifest.py).
#[pyfunction]
pub fn split_packed<'py>(
    py: Python<'py>,
    packed: &Bound<'py, PyBytes>,
    partitions: usize,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    if partitions == 0 {
        return Err(PyValueError::new_err("partitions: must be at least 1"));
    }
    let choice = registry()
        .resolve(PARTITION_HASH, None, &HashParams::default())
        .map_err(crate::names::value_error)?;
    let packed = packed.as_bytes();
    let parts = py.detach(|| {
        let mut hasher = choice.hasher();
        let mut digest = vec![0u8; choice.output_len()];
        let mut parts = vec![Vec::new(); partitions];
        for name in names_in(packed) {
            hasher.hash_message_into(name, &mut digest);
            let first: [u8; 8] = digest[..8].try_into().expect("a SHA-256 has 32 bytes");
            let index = u64::from_be_bytes(first) % partitions as u64;
            push_name(&mut parts[index as usize], name);
        }
        parts
    });
    Ok(parts.iter().map(|part| PyBytes::new(py, part)).collect())
}

/// Hashes a partition's packed names on this worker, one file after another
/// on `threads` threads, with `hashlab sum`'s reading. A relative name is
/// read under `base` (the client's directory: a worker's own differs) and
/// recorded as given. Returns (packed entries: name NUL hex NUL..., the
/// (name, message) of files that could not be read, bytes hashed).
#[pyfunction]
#[pyo3(signature = (packed, base, algorithm, *, threads=None, key=None, length=None, backend=None, customization=None, read_ahead=None))]
#[allow(clippy::too_many_arguments)]
pub fn hash_packed<'py>(
    py: Python<'py>,
    packed: &Bound<'py, PyBytes>,
    base: &Bound<'py, PyBytes>,
    algorithm: &str,
    threads: Option<usize>,
    key: Option<&Bound<'py, PyAny>>,
    length: Option<&Bound<'py, PyAny>>,
    backend: Option<&str>,
    customization: Option<&Bound<'py, PyAny>>,
    read_ahead: Option<bool>,
) -> PyResult<(Bound<'py, PyBytes>, Problems, u64)> {
    let names: Vec<&[u8]> = names_in(packed.as_bytes()).collect();
    let base = base.as_bytes();
    let inputs: Vec<Input> = names
        .iter()
        .map(|name| {
            let mut path = Vec::with_capacity(base.len() + 1 + name.len());
            if !name.starts_with(b"/") {
                path.extend_from_slice(base);
                if !base.ends_with(b"/") {
                    path.push(b'/');
                }
            }
            path.extend_from_slice(name);
            Input::File(PathBuf::from(OsString::from_vec(path)))
        })
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
    let mut entries = Vec::with_capacity(names.len() * 80);
    let mut problems = Vec::new();
    let mut total = 0;
    for (name, result) in names.iter().zip(results) {
        match result {
            Ok(file) => {
                push_name(&mut entries, name);
                entries.extend_from_slice(file.digests[0].to_hex().as_bytes());
                entries.push(END);
                total += file.bytes;
            }
            Err(error) => {
                problems.push((OsStr::from_bytes(name).to_os_string(), io_message(&error)))
            }
        }
    }
    Ok((PyBytes::new(py, &entries), problems, total))
}

/// The packed entries of every partition as one list of (name, hex) pairs
/// sorted by the bytes of the names, names decoded as `os.fsdecode` does: a
/// manifest's entries.
#[pyfunction]
pub fn merge_packed<'py>(
    py: Python<'py>,
    parts: Vec<Bound<'py, PyBytes>>,
) -> PyResult<Vec<(Bound<'py, PyString>, Bound<'py, PyString>)>> {
    let mut entries: Vec<(&[u8], &str)> = Vec::new();
    for part in &parts {
        let mut fields = names_in(part.as_bytes());
        while let Some(name) = fields.next() {
            let hex = fields
                .next()
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .ok_or_else(|| {
                    PyValueError::new_err("packed entries: a name without its digest")
                })?;
            entries.push((name, hex));
        }
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
        .into_iter()
        .map(|(name, hex)| {
            Ok((
                OsStr::from_bytes(name).into_pyobject(py)?,
                PyString::new(py, hex),
            ))
        })
        .collect()
}
