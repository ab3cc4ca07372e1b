//! `hashlab.bench()`: the measurement engine of `hashlab bench`, returning the
//! same report the CLI prints with `--json` (same schema, same serde code).

use hashlab_bench::limits::{time_budget, MAX_THREADS};
use hashlab_bench::report::{measure, Request};
use hashlab_bench::runtimes::Runtime;
use hashlab_bench::selection::{Algorithms, Backends, Selection};
use hashlab_bench::sizes::parse_size;
use hashlab_bench::words::{WordList, WordListError, SYSTEM_WORDS};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString, PyTuple};
use std::path::PathBuf;

use crate::names::registry;

/// The CLI's seed, so a call with no arguments measures what the command does.
const DEFAULT_SEED: u64 = hashlab_bench::report::DEFAULT_SEED;

/// A str (comma-separated) or a list/tuple of str, as a list of words.
fn words(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(text
            .to_str()?
            .split(',')
            .map(|w| w.trim().to_string())
            .filter(|w| !w.is_empty())
            .collect());
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value
            .try_iter()?
            .map(|item| {
                item?
                    .extract::<String>()
                    .map_err(|_| PyTypeError::new_err(format!("{what}: every item must be a str")))
            })
            .collect();
    }
    Err(PyTypeError::new_err(format!(
        "{what}: a str or a list of str is required"
    )))
}

/// Sizes as ints, size strings ("8K", "1MiB"), a list of either, or a
/// comma-separated string, as `bench --sizes` reads them.
fn sizes(value: Option<&Bound<'_, PyAny>>, defaults: &[usize]) -> PyResult<Vec<usize>> {
    let bad = |e: String| PyValueError::new_err(format!("sizes: {e}"));
    let Some(value) = value else {
        return Ok(defaults.to_vec());
    };
    let one = |item: &Bound<'_, PyAny>| -> PyResult<usize> {
        if item.is_instance_of::<PyInt>() {
            match item.extract::<i64>() {
                Ok(n) if n >= 1 => Ok(n as usize),
                _ => Err(bad(format!("{item} is not a size of at least 1 byte"))),
            }
        } else if let Ok(text) = item.cast::<PyString>() {
            parse_size(text.to_str()?).map_err(bad)
        } else {
            Err(PyTypeError::new_err("sizes: each size is an int or a str"))
        }
    };
    let out: Vec<usize> = if value.is_instance_of::<PyInt>() {
        vec![one(value)?]
    } else if let Ok(text) = value.cast::<PyString>() {
        text.to_str()?
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| parse_size(s).map_err(bad))
            .collect::<PyResult<_>>()?
    } else {
        value
            .try_iter()
            .map_err(|_| PyTypeError::new_err("sizes: an int, a str or a list of them"))?
            .map(|item| one(&item?))
            .collect::<PyResult<_>>()?
    };
    if out.is_empty() {
        return Err(bad("no size given".into()));
    }
    Ok(out)
}

fn thread_counts(value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<usize>> {
    let mut counts = vec![1];
    let Some(value) = value else {
        return Ok(counts);
    };
    let given: Vec<i64> = if value.is_instance_of::<PyInt>() {
        vec![value.extract()?]
    } else {
        value
            .extract()
            .map_err(|_| PyTypeError::new_err("threads: an int or a list of ints is required"))?
    };
    for n in given {
        let n = usize::try_from(n)
            .ok()
            .filter(|n| (1..=MAX_THREADS).contains(n))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "threads: {n} is not a thread count (1 to {MAX_THREADS})"
                ))
            })?;
        if !counts.contains(&n) {
            counts.push(n);
        }
    }
    Ok(counts)
}

/// The word list of `bench(table=...)`: None or False for none, True for
/// the system's, else a path. A list that cannot be read is the OSError of
/// its file, as Python's own file functions raise.
fn word_list(table: Option<&Bound<'_, PyAny>>) -> PyResult<Option<WordList>> {
    let path = match table {
        None => return Ok(None),
        Some(value) if value.is_instance_of::<pyo3::types::PyBool>() => {
            if !value.extract::<bool>()? {
                return Ok(None);
            }
            std::path::PathBuf::from(SYSTEM_WORDS)
        }
        Some(value) => value.extract::<std::path::PathBuf>().map_err(|_| {
            PyTypeError::new_err(format!(
                "table: a path or True, not {}",
                value
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".into(), |n| n.to_string())
            ))
        })?,
    };
    WordList::read(&path).map(Some).map_err(|e| match e {
        WordListError::Read { path, error } => {
            let name = path.display().to_string();
            match error.raw_os_error() {
                Some(errno) => pyo3::exceptions::PyOSError::new_err((
                    errno,
                    crate::files::io_message(&error),
                    name,
                )),
                None => pyo3::exceptions::PyOSError::new_err(format!("{name}: {error}")),
            }
        }
        other => PyValueError::new_err(format!("table: {other}")),
    })
}

/// Measures hash speed as `hashlab bench --json` does and returns its report
/// as a dict (the same schema: `schema_version`, `environment`, `cells`, ...).
///
/// `algorithms`: None for the CLI's default set, "all", "crypto", "fast", or
/// names (a list or a comma-separated str). `backends`: None for each
/// algorithm's default, "all", or names. `quick=True` is `bench --quick`.
/// `latency`, `keys` and `table` are the CLI's `--latency`, `--keys` and
/// `--table [WORDS]`: `table=True` for the system word list, or a path.
/// `runtimes` is the CLI's `--runtime`: "all" or names ("go", "python",
/// "node", "java", "c"; a list or a comma-separated str), measured beside the
/// Rust backends; the report's `runtimes` says what each offered or why not.
///
/// `like=PATH` (a tree, a manifest with sizes, or a git repository) is
/// `hashlab bench --like PATH --format json`: the shape of what PATH holds,
/// every candidate measured on a replica of it, and the projected time for
/// all of it per algorithm (`shape`, `projections`, ...). Its arguments are
/// `algorithms` (names; None for the default candidates), `budget` (seconds
/// for the replica's measurements), `seed`, `workers` (the Dask cluster
/// sizes to project to) and `verify` (names to run for real over PATH, in
/// the report's `verified`); the speed-bench arguments are refused with it.
/// The GIL is released while measuring.
#[pyfunction]
#[pyo3(signature = (algorithms=None, *, backends=None, sizes=None, threads=None, quick=None, max_time=None, seed=DEFAULT_SEED, baseline=None, latency=false, keys=false, table=None, runtimes=None, like=None, budget=None, workers=None, verify=None))]
#[allow(clippy::too_many_arguments)]
pub fn bench<'py>(
    py: Python<'py>,
    algorithms: Option<&Bound<'py, PyAny>>,
    backends: Option<&Bound<'py, PyAny>>,
    sizes: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    quick: Option<bool>,
    max_time: Option<f64>,
    seed: u64,
    baseline: Option<&str>,
    latency: bool,
    keys: bool,
    table: Option<&Bound<'py, PyAny>>,
    runtimes: Option<&Bound<'py, PyAny>>,
    like: Option<PathBuf>,
    budget: Option<f64>,
    workers: Option<&Bound<'py, PyAny>>,
    verify: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let speed_only = [
        ("backends", backends.is_some()),
        ("sizes", sizes.is_some()),
        ("threads", threads.is_some()),
        ("quick", quick.is_some()),
        ("max_time", max_time.is_some()),
        ("baseline", baseline.is_some()),
        ("latency", latency),
        ("keys", keys),
        ("table", table.is_some()),
        ("runtimes", runtimes.is_some()),
    ];
    let like_only = [
        ("budget", budget.is_some()),
        ("workers", workers.is_some()),
        ("verify", verify.is_some()),
    ];
    if let Some(path) = like {
        if let Some((name, _)) = speed_only.iter().find(|(_, given)| *given) {
            return Err(PyTypeError::new_err(format!(
                "bench(like=...) measures the shape of a path: {name} is not one of its arguments"
            )));
        }
        let algorithms = match algorithms {
            None => Vec::new(),
            Some(a) => words(a, "algorithms")?,
        };
        let verify = match verify {
            None => Vec::new(),
            Some(v) => words(v, "verify")?,
        };
        let workers = workers.map(crate::like::worker_counts).transpose()?;
        return crate::like::bench_like(
            py,
            registry(),
            crate::like::LikeArgs {
                path,
                algorithms,
                budget,
                seed,
                workers,
                verify,
            },
        );
    }
    if let Some((name, _)) = like_only.iter().find(|(_, given)| *given) {
        return Err(PyTypeError::new_err(format!(
            "{name} is an argument of bench(like=PATH), and no like was given"
        )));
    }
    let quick = quick.unwrap_or(true);
    let baseline = baseline.unwrap_or("sha256");
    let registry = registry();
    let runtimes = match runtimes {
        None => Vec::new(),
        Some(r) => Runtime::parse_list(&words(r, "runtimes")?.join(","))
            .map_err(|e| PyValueError::new_err(format!("runtimes: {e}")))?,
    };
    let table = word_list(table)?;
    let algorithms = match algorithms {
        None => Algorithms::Default,
        Some(a) => {
            let names = words(a, "algorithms")?;
            match names.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["all"] => Algorithms::All,
                ["crypto"] => Algorithms::Crypto,
                ["fast"] => Algorithms::Fast,
                [] => return Err(PyValueError::new_err("algorithms: no algorithm given")),
                _ => Algorithms::Named(names),
            }
        }
    };
    let backends = match backends {
        None => Backends::Default,
        Some(b) => {
            let names = words(b, "backends")?;
            if names == ["all"] {
                Backends::All
            } else {
                Backends::Named(names)
            }
        }
    };
    let baseline = registry
        .algorithm(baseline)
        .map_err(|e| PyValueError::new_err(format!("baseline: {e}")))?
        .name
        .clone();
    // The CLI's defaults (`hashlab bench`, `bench --quick`).
    let defaults = if quick {
        Request::quick()
    } else {
        Request::standard()
    };
    let mut budget = defaults.budget.clone();
    if let Some(seconds) = max_time {
        budget.max_time =
            time_budget(seconds).map_err(|e| PyValueError::new_err(format!("max_time: {e}")))?;
    }
    let sizes = self::sizes(sizes, &defaults.selection.sizes)?;
    let threads = thread_counts(threads)?;
    let command_line = vec![
        "python".to_string(),
        "hashlab.bench".to_string(),
        format!("algorithms={algorithms:?}"),
        format!("backends={backends:?}"),
        format!("sizes={sizes:?}"),
        format!("threads={threads:?}"),
        format!("quick={quick}"),
        format!("latency={latency}"),
        format!("keys={keys}"),
        format!("table={:?}", table.as_ref().map(WordList::path)),
        format!(
            "runtimes={:?}",
            runtimes.iter().map(|r| r.name()).collect::<Vec<_>>()
        ),
    ];
    let request = Request {
        selection: Selection {
            algorithms,
            backends,
            sizes,
            threads,
            latency,
            keys,
            table,
            also: vec![baseline],
            ..defaults.selection
        },
        budget,
        seed,
        command_line,
        runtimes,
        ..defaults
    };
    let stop = hashlab_integrity::Cancel::new();
    let report = py
        .detach(|| measure(registry, &request, &stop, &mut |_| {}))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let json = serde_json::to_string(&report)
        .map_err(|e| PyRuntimeError::new_err(format!("the report did not serialize: {e}")))?;
    py.import("json")?.call_method1("loads", (json,))
}

/// The project's significance test (`hashlab_bench::stats::compare`): the
/// ratio of medians median(b) / median(a) of two sets of samples (seconds)
/// with its 95 % bootstrap interval, after outlier rejection; `significant`
/// when the whole interval lies beyond 1 ± `min_effect`. None when either
/// set is empty (after outliers) or a's median is zero.
#[pyfunction]
#[pyo3(signature = (a, b, *, min_effect=0.02, seed=DEFAULT_SEED))]
pub fn compare<'py>(
    py: Python<'py>,
    a: Vec<f64>,
    b: Vec<f64>,
    min_effect: f64,
    seed: u64,
) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
    if a.iter().chain(&b).any(|x| !x.is_finite()) {
        return Err(PyValueError::new_err("samples must be finite numbers"));
    }
    let Some(c) = hashlab_bench::stats::compare(&a, &b, min_effect, seed) else {
        return Ok(None);
    };
    let out = pyo3::types::PyDict::new(py);
    out.set_item("ratio", c.ratio)?;
    out.set_item("low", c.low)?;
    out.set_item("high", c.high)?;
    out.set_item("significant", c.significant)?;
    Ok(Some(out))
}
