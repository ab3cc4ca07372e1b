//! The module's functions over `new()`: `digest()`, `hexdigest()`,
//! `algorithm_info()`, and the functions made per algorithm.

use hashlab::KeyRule;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::calls::{leaked_c_string, made_for, one_shot_call};
use crate::made::Output;
use crate::names::{python_names, registry, value_error};

/// `hashlab.digest(name, data, **keywords)`: `new(name, data, **keywords).digest()`
/// in one call, as xxhash's `xxh3_64_digest(data)`; the hasher is reused
/// between calls and the backend's one-shot function does the work.
#[pyfunction]
#[pyo3(signature = (name, data, **keywords))]
pub fn digest<'py>(
    py: Python<'py>,
    name: &str,
    data: &Bound<'py, PyAny>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    one_shot_call(py, name, data, keywords, Output::Bytes, || {
        made_for(py, name, None, None)
    })
}

/// `hashlab.hexdigest(name, data, **keywords)`: as `digest()`, in hex.
#[pyfunction]
#[pyo3(signature = (name, data, **keywords))]
pub fn hexdigest<'py>(
    py: Python<'py>,
    name: &str,
    data: &Bound<'py, PyAny>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    one_shot_call(py, name, data, keywords, Output::Hex, || {
        made_for(py, name, None, None)
    })
}

/// The functions made per algorithm: hashlib's named constructor
/// (`sha256(data=b"", *, usedforsecurity=True, ...)`) and xxhash's one-shot
/// functions (`xxh3_64_digest`, `_hexdigest`, and `_intdigest` where the
/// digest is a number), as (name, function) pairs. Built in Rust so a call
/// costs no Python frame; each resolves its algorithm at its first call.
#[pyfunction]
pub fn named_functions(py: Python<'_>) -> PyResult<Vec<(String, Bound<'_, PyAny>)>> {
    let mut functions = Vec::new();
    for (python_name, canonical) in python_names().pairs(registry()) {
        let python: &'static str = Box::leak(python_name.clone().into_boxed_str());
        let algorithm = registry().algorithm(&canonical).map_err(value_error)?;
        // An algorithm with a salt (BLAKE2) takes hashlib's BLAKE2 keywords
        // (digest_size, person, ...): the package's Python constructor does them.
        if algorithm.salt.is_none() {
            functions.push((python_name.clone(), constructor(py, python)?));
        }
        let integer = algorithm.integer_digest;
        for output in [Output::Bytes, Output::Hex, Output::Int] {
            if output == Output::Int && !integer {
                continue;
            }
            let name = format!("{python_name}_{}", output.method());
            functions.push((name.clone(), one_shot_function(py, python, name, output)?));
        }
    }
    Ok(functions)
}

fn constructor<'py>(py: Python<'py>, python: &'static str) -> PyResult<Bound<'py, PyAny>> {
    let doc = leaked_c_string(format!(
        "{python}(data=b'', *, usedforsecurity=True, string=None, key=None, length=None, \
         backend=None, customization=None, ...)\n--\n\nA new {python} hash object, as \
         hashlab.new('{python}', data, ...)."
    ));
    crate::fastcall::fast_function(
        py,
        python,
        python.to_string(),
        crate::fastcall::Kind::Constructor,
        doc,
    )
}

fn one_shot_function<'py>(
    py: Python<'py>,
    python: &'static str,
    name: String,
    output: Output,
) -> PyResult<Bound<'py, PyAny>> {
    let what = match output {
        Output::Int => "digest() as an unsigned big-endian int (xxhash's intdigest)".to_string(),
        _ => format!("{}()", output.method()),
    };
    let doc = leaked_c_string(format!(
        "{name}(data, **keywords)\n--\n\nhashlab.new('{python}', data, **keywords).{what}, \
         in one call."
    ));
    crate::fastcall::fast_function(
        py,
        python,
        name,
        crate::fastcall::Kind::OneShot(output),
        doc,
    )
}

/// What the registry knows about one algorithm (by any of its names), as a
/// dict: canonical name, Python name, aliases, family, class, default and allowed output lengths, key rule,
/// block size, backends (with availability) and the default backend.
#[pyfunction]
pub fn algorithm_info<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let registry = registry();
    let name = python_names().canonical(name).unwrap_or(name);
    let algorithm = registry.algorithm(name).map_err(value_error)?;
    let info = PyDict::new(py);
    info.set_item("name", &algorithm.name)?;
    info.set_item("python_name", python_names().python(&algorithm.name))?;
    info.set_item("aliases", &algorithm.aliases)?;
    info.set_item("family", &algorithm.family)?;
    info.set_item("class", algorithm.class.as_str())?;
    info.set_item("digest_size", algorithm.output.default_len())?;
    let (min, max) = algorithm.output.range();
    info.set_item("length_range", (min, max))?;
    info.set_item("xof", algorithm.output.is_xof())?;
    info.set_item("block_size", algorithm.block_size)?;
    let key = match algorithm.key {
        KeyRule::None => None,
        KeyRule::Optional { min, max } => Some(("optional", min, max, 0)),
        KeyRule::Defaulted { min, max, default } => Some(("defaulted", min, max, default)),
    };
    info.set_item("key", key)?;
    info.set_item("customizable", algorithm.customizable)?;
    let backends: Vec<(String, bool)> = registry
        .backends_of(&algorithm.name)
        .map_err(value_error)?
        .iter()
        .map(|b| (b.name.clone(), b.is_available()))
        .collect();
    info.set_item("backends", backends)?;
    let default = registry
        .default_backend(&algorithm.name)
        .ok()
        .map(|(b, _)| b.name.clone());
    info.set_item("default_backend", default)?;
    Ok(info)
}
