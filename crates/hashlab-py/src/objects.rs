//! Object stores (`s3://`, `gs://`, `az://`, `file://`) through
//! hashlab-objects: the listing and the ranged, parallel reads `hashlab sum`
//! does on a URL, for `hashlab.dask` to spread over workers.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use hashlab_integrity::Fanout;
use hashlab_objects::compare::{
    compare_pairs as compare_pairs_in, local_keys as local_keys_of, pair_range, pair_tree,
    CompareError, Mode, Pair, Verdict,
};
use hashlab_objects::{ObjectError, ObjectReader, Problem, Settings};
use pyo3::exceptions::{
    PyConnectionError, PyFileNotFoundError, PyNotADirectoryError, PyOSError, PyPermissionError,
    PyValueError,
};
use pyo3::prelude::*;

use crate::calls::checked_choice;
use crate::names::registry;

/// An object-store failure as the OSError subclass Python code expects.
fn object_error(error: ObjectError) -> PyErr {
    let text = error.to_string();
    match error.problem {
        Problem::Usage => PyValueError::new_err(text),
        Problem::NotFound | Problem::NoSuchBucket => PyFileNotFoundError::new_err(text),
        Problem::AccessDenied => PyPermissionError::new_err(text),
        Problem::Unreachable => PyConnectionError::new_err(text),
        Problem::Changed | Problem::NotRecorded | Problem::Other => PyOSError::new_err(text),
    }
}

fn reader(
    storage_options: Option<HashMap<String, String>>,
    requests: Option<usize>,
    range_size: Option<u64>,
) -> PyResult<ObjectReader> {
    let mut options: Vec<(String, String)> =
        storage_options.unwrap_or_default().into_iter().collect();
    options.sort();
    let settings = Settings {
        requests: requests.unwrap_or(Settings::DEFAULT_REQUESTS),
        range_size: range_size.unwrap_or(Settings::DEFAULT_RANGE_SIZE),
        from_env: true,
        options,
    };
    ObjectReader::new(settings).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The objects under each URL (a prefix, or one object), as `hashlab sum
/// URL` lists them: (name, size, ETag) sorted by key within each URL, names
/// being the URL as given followed by the key below it. Credentials and the
/// endpoint come from the environment (`AWS_*`...) and `storage_options`
/// (object_store's keys, such as `aws_endpoint`). The GIL is released.
/// Raises FileNotFoundError (no such bucket, nothing under the prefix),
/// PermissionError, ConnectionError or OSError, naming the URL.
#[pyfunction]
#[pyo3(signature = (urls, *, storage_options=None))]
pub fn list_objects(
    py: Python<'_>,
    urls: Vec<String>,
    storage_options: Option<HashMap<String, String>>,
) -> PyResult<Vec<(String, u64, Option<String>)>> {
    let reader = reader(storage_options, None, None)?;
    py.detach(|| {
        let mut out = Vec::new();
        for url in &urls {
            for object in reader.list(url)? {
                out.push((object.name, object.size, object.e_tag));
            }
        }
        Ok(out)
    })
    .map_err(object_error)
}

/// One object's outcome: (hex digest, bytes, error message, ETag verdict);
/// the digest and size are None on an error; the verdict ("matches",
/// "MISMATCH ...", "not comparable ...") only with `verify_etag`.
type ObjectOutcome = (Option<String>, Option<u64>, Option<String>, Option<String>);

/// Hashes objects known by (name, size, ETag), as `list_objects` gives them,
/// with `requests` ranged reads of `range_size` bytes in flight (defaults: 8
/// of 8 MiB): one outcome per object, in order. The GIL is released.
#[pyfunction]
#[pyo3(signature = (objects, algorithm, *, key=None, length=None, backend=None, customization=None, storage_options=None, requests=None, range_size=None, verify_etag=false))]
#[allow(clippy::too_many_arguments)]
pub fn hash_objects(
    py: Python<'_>,
    objects: Vec<(String, u64, Option<String>)>,
    algorithm: &str,
    key: Option<&Bound<'_, PyAny>>,
    length: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
    customization: Option<&Bound<'_, PyAny>>,
    storage_options: Option<HashMap<String, String>>,
    requests: Option<usize>,
    range_size: Option<u64>,
    verify_etag: bool,
) -> PyResult<Vec<ObjectOutcome>> {
    let choice = checked_choice(algorithm, backend, key, length, customization)?;
    if requests == Some(0) || range_size == Some(0) {
        return Err(PyValueError::new_err(
            "requests and range_size must be at least 1",
        ));
    }
    let reader = reader(storage_options, requests, range_size)?;
    let infos = objects
        .iter()
        .map(|(name, size, e_tag)| reader.object(name, *size, e_tag.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(object_error)?;
    let outcomes = py.detach(|| {
        let make = || Fanout::new(vec![choice.hasher()]);
        let mut outcomes = Vec::with_capacity(infos.len());
        let finished = reader.hash::<std::convert::Infallible>(
            &infos,
            &make,
            verify_etag,
            &mut |_, result| {
                outcomes.push(match result {
                    Ok(d) => (
                        Some(d.digests.digests[0].to_hex()),
                        Some(d.digests.bytes),
                        None,
                        d.etag.map(|v| v.describe()),
                    ),
                    Err(e) => (None, None, Some(e.message), None),
                });
                Ok(())
            },
        );
        match finished {
            Ok(()) => outcomes,
            Err(never) => match never {},
        }
    });
    Ok(outcomes)
}

/// A file and its object, as `pair_store` gives them and `compare_pairs`
/// takes them: (key below the prefix, file path as bytes, object name,
/// object size, ETag).
type PairTuple = (String, Vec<u8>, String, u64, Option<String>);

/// One pair's verdict: (status, detail, file's value, store's value), status
/// being "matched" (detail: what was compared), "changed" (with both
/// values), "not-comparable" (detail: why) or "unreadable" (detail: why).
type VerdictTuple = (&'static str, String, Option<String>, Option<String>);

fn compare_error(error: CompareError) -> PyErr {
    match error {
        CompareError::Listing(e) => object_error(e),
        CompareError::NotADirectory(path) => PyNotADirectoryError::new_err((
            20,
            "Not a directory",
            path.to_string_lossy().into_owned(),
        )),
        e @ (CompareError::NotAPrefix(_) | CompareError::Hash(_)) => {
            PyValueError::new_err(e.to_string())
        }
    }
}

fn mode(download: bool, algorithm: &str) -> Mode {
    if download {
        Mode::Download {
            algorithm: algorithm.to_string(),
        }
    } else {
        Mode::Recorded
    }
}

fn verdict_tuple(verdict: Result<Verdict, String>) -> VerdictTuple {
    match verdict {
        Ok(Verdict::Matched { by }) => ("matched", by, None, None),
        Ok(Verdict::Changed { by, local, store }) => ("changed", by, Some(local), Some(store)),
        Ok(Verdict::NotComparable { reason }) => ("not-comparable", reason, None, None),
        Err(message) => ("unreadable", message, None, None),
    }
}

/// The files under `directory` paired with the objects under `prefix`, as
/// `hashlab audit DIR URL` pairs them, with only the listing asked:
/// (pairs, keys only local, keys only in the store, (name, message) of what
/// could not be walked). The GIL is released.
#[pyfunction]
#[pyo3(signature = (directory, prefix, *, storage_options=None))]
#[allow(clippy::type_complexity)]
pub fn pair_store(
    py: Python<'_>,
    directory: Vec<u8>,
    prefix: String,
    storage_options: Option<HashMap<String, String>>,
) -> PyResult<(
    Vec<PairTuple>,
    Vec<String>,
    Vec<String>,
    Vec<(String, String)>,
)> {
    let reader = reader(storage_options, None, None)?;
    let dir = PathBuf::from(OsString::from_vec(directory));
    let (pairs, found) = py
        .detach(|| pair_tree(&reader, &dir, &prefix))
        .map_err(compare_error)?;
    Ok((
        pair_tuples(pairs),
        found.only_local,
        found.only_in_store,
        found.errors,
    ))
}

/// The files under `directory` with the keys they pair with, sorted by key,
/// for a client that shards the listing: (pairs of key and path, names no
/// key can hold (only local), (name, message) of what could not be walked).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn local_keys(
    py: Python<'_>,
    directory: Vec<u8>,
) -> PyResult<(Vec<(String, Vec<u8>)>, Vec<String>, Vec<(String, String)>)> {
    let dir = PathBuf::from(OsString::from_vec(directory));
    let (files, found) = py.detach(|| local_keys_of(&dir)).map_err(compare_error)?;
    let files = files
        .into_iter()
        .map(|(key, path)| (key, path.into_os_string().into_vec()))
        .collect();
    Ok((files, found.only_local, found.errors))
}

/// One shard of `pair_store`: `files` (key, path) whose keys lie after
/// `after` and up to `until`, paired with the objects of that key range
/// under `prefix`, which this call lists: (pairs, keys only local, keys
/// only in the store). The GIL is released.
#[pyfunction]
#[pyo3(signature = (prefix, files, after=None, until=None, *, storage_options=None))]
#[allow(clippy::type_complexity)]
pub fn pair_store_range(
    py: Python<'_>,
    prefix: String,
    files: Vec<(String, Vec<u8>)>,
    after: Option<String>,
    until: Option<String>,
    storage_options: Option<HashMap<String, String>>,
) -> PyResult<(Vec<PairTuple>, Vec<String>, Vec<String>)> {
    let reader = reader(storage_options, None, None)?;
    let files = files
        .into_iter()
        .map(|(key, path)| (key, PathBuf::from(OsString::from_vec(path))))
        .collect();
    let (pairs, found) = py
        .detach(|| pair_range(&reader, &prefix, files, after.as_deref(), until.as_deref()))
        .map_err(compare_error)?;
    Ok((pair_tuples(pairs), found.only_local, found.only_in_store))
}

fn pair_tuples(pairs: Vec<Pair>) -> Vec<PairTuple> {
    pairs
        .into_iter()
        .map(|(key, path, object)| {
            (
                key,
                path.into_os_string().into_vec(),
                object.name,
                object.size,
                object.e_tag,
            )
        })
        .collect()
}

/// Each pair's verdict, in order: by what the store recorded (no object
/// read), or with `download` by `algorithm` over the object's bytes and the
/// file's; `jobs` files hashed at once (default: every core); and what the
/// comparison shows, in words. The GIL is released.
#[pyfunction]
#[pyo3(signature = (pairs, *, download=false, algorithm="sha256", jobs=None, storage_options=None))]
pub fn compare_pairs(
    py: Python<'_>,
    pairs: Vec<PairTuple>,
    download: bool,
    algorithm: &str,
    jobs: Option<usize>,
    storage_options: Option<HashMap<String, String>>,
) -> PyResult<(Vec<VerdictTuple>, &'static str)> {
    if jobs == Some(0) {
        return Err(PyValueError::new_err("jobs: must be at least 1"));
    }
    let reader = reader(storage_options, None, None)?;
    let pairs = pairs
        .into_iter()
        .map(|(key, path, name, size, e_tag)| {
            let object = reader.object(&name, size, e_tag)?;
            Ok((key, PathBuf::from(OsString::from_vec(path)), object))
        })
        .collect::<Result<Vec<Pair>, ObjectError>>()
        .map_err(object_error)?;
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mode = mode(download, algorithm);
    let verdicts = py
        .detach(|| compare_pairs_in(&reader, registry(), &pairs, &mode, jobs))
        .map_err(compare_error)?;
    Ok((
        verdicts.into_iter().map(verdict_tuple).collect(),
        mode.proves(),
    ))
}
