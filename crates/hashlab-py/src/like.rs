//! `hashlab.bench(like=PATH)`: every candidate hash measured on the shape of
//! the caller's own data, returning the report `hashlab bench --like PATH
//! --format json` prints (the same serde value, through JSON).

use std::path::PathBuf;

use hashlab_bench::like::{like, verify, LikeError, LikeRequest, ReplicaError, ShapeError};
use hashlab_bench::limits::time_budget;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyInt;

use hashlab::Registry;
use hashlab_integrity::io_message;

/// What `bench(like=...)` was given, checked.
pub struct LikeArgs {
    pub path: PathBuf,
    pub algorithms: Vec<String>,
    pub budget: Option<f64>,
    pub seed: u64,
    pub workers: Option<Vec<usize>>,
    pub verify: Vec<String>,
}

/// Dask cluster sizes: an int or a list of ints, each at least 1.
pub fn worker_counts(value: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let given: Vec<i64> = if value.is_instance_of::<PyInt>() {
        vec![value.extract()?]
    } else {
        value
            .extract()
            .map_err(|_| PyTypeError::new_err("workers: an int or a list of ints is required"))?
    };
    if given.is_empty() {
        return Err(PyValueError::new_err("workers: no cluster size given"));
    }
    given
        .into_iter()
        .map(|n| {
            usize::try_from(n).ok().filter(|&n| n >= 1).ok_or_else(|| {
                PyValueError::new_err(format!("workers: {n} is not a number of workers"))
            })
        })
        .collect()
}

fn os_error(path: &std::path::Path, error: &std::io::Error) -> PyErr {
    let name = path.display().to_string();
    match error.raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, io_message(error), name)),
        None => PyOSError::new_err(format!("{name}: {error}")),
    }
}

/// A path that cannot be read is the OSError of that path, as Python's own
/// file functions raise; the rest is a ValueError naming what was wrong.
fn like_error(e: LikeError) -> PyErr {
    match &e {
        LikeError::Shape(ShapeError::Io { path, error }) => os_error(path, error),
        LikeError::Replica(
            ReplicaError::Io { path, error } | ReplicaError::Hash { path, error },
        ) => os_error(path, error),
        _ => PyValueError::new_err(e.to_string()),
    }
}

pub fn bench_like<'py>(
    py: Python<'py>,
    registry: &Registry,
    args: LikeArgs,
) -> PyResult<Bound<'py, PyAny>> {
    let mut request = LikeRequest::new(args.path);
    request.algorithms = args.algorithms;
    request.seed = args.seed;
    if let Some(seconds) = args.budget {
        request.budget =
            time_budget(seconds).map_err(|e| PyValueError::new_err(format!("budget: {e}")))?;
    }
    if let Some(workers) = args.workers {
        request.workers = workers;
    }
    // Named algorithms that cannot be verified fail before the minute of measuring.
    for name in &args.verify {
        registry
            .algorithm(name)
            .map_err(|e| PyValueError::new_err(format!("verify: {e}")))?;
    }
    let verify_names = args.verify;
    let report = py
        .detach(|| {
            let mut report = like(registry, &request)?;
            if !verify_names.is_empty() {
                report.verified = verify(registry, &request, &report, &verify_names, false)?;
            }
            Ok::<_, LikeError>(report)
        })
        .map_err(like_error)?;
    let json = serde_json::to_string(&report)
        .map_err(|e| PyRuntimeError::new_err(format!("the report did not serialize: {e}")))?;
    py.import("json")?.call_method1("loads", (json,))
}
