//! Object stores (`s3://`, `gs://`, `az://`, `file://`) through
//! hashlab-objects: the listing and the ranged, parallel reads `hashlab sum`
//! does on a URL, for `hashlab.dask` to spread over workers.

use std::collections::HashMap;

use hashlab_integrity::Fanout;
use hashlab_objects::{ObjectError, ObjectReader, Problem, Settings};
use pyo3::exceptions::{
    PyConnectionError, PyFileNotFoundError, PyOSError, PyPermissionError, PyValueError,
};
use pyo3::prelude::*;

use crate::hash::checked_choice;

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
