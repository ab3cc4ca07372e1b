//! `hashlab.new()` and the hash object, shaped like hashlib's.

use std::sync::{Mutex, MutexGuard};

use hashlab::{Choice, FileBound, HashParams, Hasher, KeyRule, XOF_MAX_OUTPUT};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt};

use crate::buffer::Borrowed;
use crate::{python_names, registry, value_error};

/// Inputs at least this long are hashed with the GIL released, so other
/// Python threads run meanwhile. hashlib draws the line at the same place
/// (HASHLIB_GIL_MINSIZE, 2048 bytes): about 2 µs of hashing at 1 GB/s, where
/// releasing and retaking the GIL (about 0.1 µs) stops mattering.
pub const GIL_RELEASE_MIN: usize = 2048;

/// The same 2 µs for the hashes faster than the page cache (10-55 GB/s,
/// those hashlab-integrity also reads without a second thread): at 2 KiB
/// they would spend longer releasing the GIL than hashing.
pub const FAST_GIL_RELEASE_MIN: usize = 32 * 1024;

fn gil_release_min(choice: &Choice) -> usize {
    match choice.algorithm().file_bound {
        FileBound::Reading => FAST_GIL_RELEASE_MIN,
        FileBound::Hash => GIL_RELEASE_MIN,
    }
}

/// A running hash: `update`, `digest`, `hexdigest`, `copy`, as hashlib's objects.
///
/// The state sits behind a mutex because `update` on a large input runs
/// without the GIL: two threads updating one object take turns instead of
/// racing. The mutex is only ever waited for with the GIL released or by a
/// thread that holds it while the other side never needs the GIL before
/// unlocking, so it cannot deadlock with the GIL.
#[pyclass(module = "hashlab", name = "Hash", frozen)]
pub struct Hash {
    state: Mutex<Box<dyn Hasher>>,
    /// The algorithm, backend and parameters, resolved once when the object
    /// was made; copies share it.
    choice: Choice,
    /// Inputs at least this long are hashed with the GIL released.
    gil_release_min: usize,
    /// hashlib's own XOFs asked for by hashlib's names (shake_128,
    /// shake_256) without `length=`: as hashlib's, `digest()` needs a length
    /// and `digest_size` is 0.
    length_required: bool,
}

impl Hash {
    fn state(&self) -> MutexGuard<'_, Box<dyn Hasher>> {
        // A panic while hashing cannot leave the state half-updated in a way
        // that matters more than the exception Python already saw.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn absorb(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        // bytes, the common case, are immutable and need no buffer export
        // (which costs an allocation and two calls into Python).
        if let Ok(bytes) = data.cast::<PyBytes>() {
            self.absorb_bytes(py, bytes.as_bytes());
            return Ok(());
        }
        let borrowed = Borrowed::get(data, "data")?;
        self.absorb_bytes(py, borrowed.as_bytes());
        Ok(())
    }

    fn absorb_bytes(&self, py: Python<'_>, bytes: &[u8]) {
        if bytes.len() >= self.gil_release_min {
            py.detach(|| self.state().update(bytes));
        } else {
            self.state().update(bytes);
        }
    }

    fn finish(&self) -> Vec<u8> {
        // hashlib's digest() does not end the hash: finalize a copy.
        let mut copy = self.state().box_clone();
        copy.finalize_reset().0
    }

    /// The output `digest(length)` or `hexdigest(length)` (`method`) returns.
    fn output(&self, method: &str, length: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<u8>> {
        let name = python_names().python(self.choice.name());
        let Some(length) = length else {
            if self.length_required {
                // hashlib's message for its shake objects.
                return Err(PyTypeError::new_err(format!(
                    "{method}() missing required argument 'length' (pos 1)"
                )));
            }
            return Ok(self.finish());
        };
        if !self.choice.algorithm().output.is_xof() {
            return Err(PyTypeError::new_err(format!(
                "{method}() takes no length: {name} is not an extendable-output function \
                 (its {} bytes are set when the object is made)",
                self.choice.output_len()
            )));
        }
        let Some(length) = length_argument(Some(length))? else {
            return Ok(self.finish());
        };
        if length > XOF_MAX_OUTPUT {
            return Err(PyValueError::new_err(format!(
                "length: {length} bytes is more than the {XOF_MAX_OUTPUT} an extendable output \
                 gives here"
            )));
        }
        if length == self.choice.output_len() {
            return Ok(self.finish());
        }
        let mut out = vec![0u8; length];
        if length == 0
            || self
                .state()
                .box_clone()
                .finalize_extendable_into_reset(&mut out)
        {
            return Ok(out);
        }
        Err(PyValueError::new_err(format!(
            "length: {name} encodes its output length into the hash, so this object gives \
             {} bytes only; pass length={length} when making it",
            self.choice.output_len()
        )))
    }
}

#[pymethods]
impl Hash {
    /// Hash objects come from `new()` and the named constructors, as
    /// hashlib's do (with hashlib's message).
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn py_new(_args: &Bound<'_, PyAny>, _kwargs: Option<&Bound<'_, PyAny>>) -> PyResult<Hash> {
        Err(PyTypeError::new_err(
            "cannot create 'hashlab.Hash' instances",
        ))
    }

    /// Absorbs more data (any C-contiguous buffer).
    fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.absorb(py, data)
    }

    /// The digest of everything absorbed so far; the object can go on
    /// absorbing. An extendable-output function gives `length` bytes, any
    /// number (hashlib's `shake_128().digest(length)`).
    #[pyo3(signature = (length=None))]
    fn digest<'py>(
        &self,
        py: Python<'py>,
        length: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.output("digest", length)?))
    }

    #[pyo3(signature = (length=None))]
    fn hexdigest(&self, length: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        Ok(hashlab::hex::encode(&self.output("hexdigest", length)?))
    }

    /// An independent copy in the same state.
    fn copy(&self) -> Hash {
        Hash {
            state: Mutex::new(self.state().box_clone()),
            choice: self.choice.clone(),
            gil_release_min: self.gil_release_min,
            length_required: self.length_required,
        }
    }

    /// The algorithm's name as hashlib spells it (`sha3_256`, `shake_128`),
    /// or for those hashlib lacks the canonical name with `-` as `_` (`xxh3_64`).
    #[getter]
    fn name(&self) -> &str {
        python_names().python(self.choice.name())
    }

    /// The implementation that computes it (`openssl`, `rustcrypto`, ...).
    #[getter]
    fn backend(&self) -> &str {
        self.choice.backend_name()
    }

    /// Output length in bytes; 0 for `shake_128()` and `shake_256()` made
    /// without a length, as hashlib says.
    #[getter]
    fn digest_size(&self) -> usize {
        if self.length_required {
            0
        } else {
            self.choice.output_len()
        }
    }

    /// Internal block (or rate) size in bytes, as hashlib reports it.
    #[getter]
    fn block_size(&self) -> usize {
        self.choice.algorithm().block_size
    }

    fn __repr__(&self) -> String {
        format!(
            "<hashlab.Hash {} ({}), {} bytes>",
            self.choice.name(),
            self.choice.backend_name(),
            self.choice.output_len()
        )
    }
}

/// An output length from Python: a non-negative int, else an exception.
pub fn length_argument(length: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    let Some(length) = length else {
        return Ok(None);
    };
    if !length.is_instance_of::<PyInt>() {
        let kind = length
            .get_type()
            .name()
            .map_or_else(|_| "?".to_string(), |n| n.to_string());
        return Err(PyTypeError::new_err(format!(
            "length: an int is required, not '{kind}'"
        )));
    }
    match length.extract::<i64>() {
        Ok(n) if n >= 0 => Ok(Some(n as usize)),
        _ => Err(PyValueError::new_err(format!(
            "length: {length} is not a number of bytes"
        ))),
    }
}

/// The key, output length and customization string a caller passed.
pub fn params(
    key: Option<&Bound<'_, PyAny>>,
    length: Option<&Bound<'_, PyAny>>,
    customization: Option<&Bound<'_, PyAny>>,
) -> PyResult<HashParams> {
    Ok(HashParams {
        key: key
            .map(|k| Borrowed::get(k, "key").map(|b| b.to_vec()))
            .transpose()?,
        length: length_argument(length)?,
        customization: customization
            .map(|c| Borrowed::get(c, "customization").map(|b| b.to_vec()))
            .transpose()?,
        ..HashParams::default()
    })
}

/// The algorithm, backend and parameters a caller asked for, resolved and
/// checked (a hasher is built): a bad name, key or length fails here, before
/// any data, file or object is read.
pub fn resolve(name: &str, backend: Option<&str>, params: &HashParams) -> PyResult<Choice> {
    if name.contains('\0') || backend.is_some_and(|b| b.contains('\0')) {
        return Err(PyValueError::new_err(
            "a name cannot contain a NUL character",
        ));
    }
    registry()
        .resolve(name, backend, params)
        .map_err(value_error)
}

/// [`resolve`] of the keyword arguments Python callers pass.
pub fn checked_choice(
    algorithm: &str,
    backend: Option<&str>,
    key: Option<&Bound<'_, PyAny>>,
    length: Option<&Bound<'_, PyAny>>,
    customization: Option<&Bound<'_, PyAny>>,
) -> PyResult<Choice> {
    resolve(algorithm, backend, &params(key, length, customization)?)
}

/// A new hash object: `hashlab.new("blake3", b"abc").hexdigest()`.
///
/// `name` is a name or alias of `hashlab list`, or its Python name
/// (`sha3_256`, `shake_128`, `xxh3_64`) in any case, as hashlib.new takes.
/// `key` keys the algorithms that take one (BLAKE2, BLAKE3, HMAC, KMAC,
/// SipHash, ...); `length` is the output length in bytes for those whose
/// output length is a parameter or extendable; `backend` picks an
/// implementation instead of the default. `usedforsecurity` is taken and
/// changes nothing: hashlab has no FIPS mode that would refuse an algorithm.
/// `string` is hashlib's older name for `data`.
#[pyfunction]
#[pyo3(signature = (name, data=None, *, usedforsecurity=None, string=None, key=None, length=None, backend=None, customization=None, salt=None, personal=None, seed=None, domain=None, derive_key=None, tree=None))]
#[allow(clippy::too_many_arguments)] // hashlib's keywords and hashlab's
pub fn new(
    py: Python<'_>,
    name: &str,
    data: Option<&Bound<'_, PyAny>>,
    usedforsecurity: Option<&Bound<'_, PyAny>>,
    string: Option<&Bound<'_, PyAny>>,
    key: Option<&Bound<'_, PyAny>>,
    length: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
    customization: Option<&Bound<'_, PyAny>>,
    salt: Option<&Bound<'_, PyAny>>,
    personal: Option<&Bound<'_, PyAny>>,
    seed: Option<u64>,
    domain: Option<u8>,
    derive_key: Option<String>,
    tree: Option<(u8, u8, u32, u64, u8, u8, bool)>,
) -> PyResult<Hash> {
    let _ = usedforsecurity;
    let data = match (data, string) {
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(
                "new(): 'data' and 'string' are the same argument; pass one",
            ))
        }
        (data, string) => data.or(string),
    };
    let canonical = python_names().canonical(name).unwrap_or(name);
    // The registry keeps each backend's hasher at default parameters, so a
    // name resolved again copies it instead of building one.
    let bytes = |value: Option<&Bound<'_, PyAny>>, what: &str| {
        value
            .map(|v| Borrowed::get(v, what).map(|b| b.to_vec()))
            .transpose()
    };
    let params = HashParams {
        salt: bytes(salt, "salt")?,
        personal: bytes(personal, "personal")?,
        seed,
        domain,
        context: derive_key,
        tree: tree.map(
            |(fanout, depth, leaf_size, node_offset, node_depth, inner_size, last_node)| {
                hashlab::Blake2Tree {
                    fanout,
                    depth,
                    leaf_size,
                    node_offset,
                    node_depth,
                    inner_size,
                    last_node,
                }
            },
        ),
        ..params(key, length, customization)?
    };
    let choice = resolve(canonical, backend, &params).map_err(|e| {
        if e.is_instance_of::<PyValueError>(py) && registry().algorithm(canonical).is_err() {
            // hashlib's message, which code matches on, then hashlab's suggestions.
            PyValueError::new_err(format!("unsupported hash type {name}: {}", e.value(py)))
        } else {
            e
        }
    })?;
    // Asked for by hashlib's name (`shake_128`), an XOF behaves as hashlib's;
    // by hashlab's (`shake128`), as `hashlab sum` (its default length).
    let length_required = choice.algorithm().output.is_xof()
        && params.length.is_none()
        && crate::HASHLIB_GUARANTEED.contains(&name.to_ascii_lowercase().as_str());
    let hash = Hash {
        state: Mutex::new(choice.hasher()),
        gil_release_min: gil_release_min(&choice),
        length_required,
        choice,
    };
    if let Some(data) = data {
        hash.absorb(py, data)?;
    }
    Ok(hash)
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
