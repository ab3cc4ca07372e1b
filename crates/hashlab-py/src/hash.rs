//! `hashlab.new()` and the hash object, shaped like hashlib's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

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
    /// The algorithm, backend and parameters, resolved once when the first
    /// object of this name was made; copies share it.
    made: Arc<Made>,
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
        if bytes.len() >= self.made.gil_release_min {
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
        // Only the errors name the algorithm: a lookup per digest() was a
        // tenth of a short message's cost.
        let name = || python_names().python(self.made.choice.name());
        let Some(length) = length else {
            if self.made.length_required {
                // hashlib's message for its shake objects.
                return Err(PyTypeError::new_err(format!(
                    "{method}() missing required argument 'length' (pos 1)"
                )));
            }
            return Ok(self.finish());
        };
        if !self.made.choice.algorithm().output.is_xof() {
            return Err(PyTypeError::new_err(format!(
                "{method}() takes no length: {} is not an extendable-output function \
                 (its {} bytes are set when the object is made)",
                name(),
                self.made.choice.output_len()
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
        if length == self.made.choice.output_len() {
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
            "length: {} encodes its output length into the hash, so this object gives \
             {} bytes only; pass length={length} when making it",
            name(),
            self.made.choice.output_len()
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
            made: Arc::clone(&self.made),
        }
    }

    /// The algorithm's name as hashlib spells it (`sha3_256`, `shake_128`),
    /// or for those hashlib lacks the canonical name with `-` as `_` (`xxh3_64`).
    #[getter]
    fn name(&self) -> &str {
        python_names().python(self.made.choice.name())
    }

    /// The implementation that computes it (`openssl`, `rustcrypto`, ...).
    #[getter]
    fn backend(&self) -> &str {
        self.made.choice.backend_name()
    }

    /// Output length in bytes; 0 for `shake_128()` and `shake_256()` made
    /// without a length, as hashlib says.
    #[getter]
    fn digest_size(&self) -> usize {
        if self.made.length_required {
            0
        } else {
            self.made.choice.output_len()
        }
    }

    /// Internal block (or rate) size in bytes, as hashlib reports it.
    #[getter]
    fn block_size(&self) -> usize {
        self.made.choice.algorithm().block_size
    }

    fn __repr__(&self) -> String {
        format!(
            "<hashlab.Hash {} ({}), {} bytes>",
            self.made.choice.name(),
            self.made.choice.backend_name(),
            self.made.choice.output_len()
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

/// A new hash object: `new("sha256", b"abc").hexdigest()`, as hashlib.new.
///
/// `name` is a name or alias of `hashlab list`, or its Python name
/// (`sha3_256`, `shake_128`, `xxh3_64`) in any case, as hashlib.new takes.
/// Keywords: hashlib's `usedforsecurity` (taken; hashlab has no FIPS mode
/// that would refuse an algorithm) and `string` (its older name for `data`),
/// and hashlab's `key` (BLAKE2, BLAKE3, HMAC, KMAC, SipHash, ...), `length`
/// (output bytes where the length is a parameter or extendable), `backend`
/// (an implementation other than the default), `customization` (KMAC, K12),
/// `salt`/`personal`/`tree` (BLAKE2), `seed` (xxHash, wyhash, ...), `domain`
/// (TurboSHAKE) and `derive_key` (BLAKE3's key-derivation context). BLAKE2's
/// hashlib keywords (`digest_size`, `person`, ...) go to `blake2b()` and
/// `blake2s()`, as hashlib.new passes them on.
#[pyfunction]
#[pyo3(signature = (name, data=None, **keywords))]
pub fn new<'py>(
    py: Python<'py>,
    name: &str,
    data: Option<&Bound<'py, PyAny>>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    // Keywords are read here rather than declared: a call without any (the
    // usual one) then skips converting fourteen absent arguments, and one
    // with hashlib's BLAKE2 keywords can go to the package's blake2b().
    let keywords = match keywords.filter(|k| !k.is_empty()) {
        None => NewKeywords::default(),
        Some(dict) => match NewKeywords::read(dict)? {
            Ok(keywords) => keywords,
            Err(unexpected) => {
                return py
                    .import("hashlab")?
                    .getattr("_new_with_hashlib_keywords")?
                    .call1((name, data, unexpected, dict))
            }
        },
    };
    let data = match (data, keywords.string) {
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(
                "new(): 'data' and 'string' are the same argument; pass one",
            ))
        }
        (data, string) => data.cloned().or(string),
    };
    if keywords.parameters.is_none() && keywords.backend.is_none() {
        if let Some(made) = default_made(name) {
            return made.hash(py, data.as_ref());
        }
    }
    let canonical = python_names().canonical(name).unwrap_or(name);
    let params = keywords.parameters.unwrap_or_default();
    let choice = resolve(canonical, keywords.backend.as_deref(), &params).map_err(|e| {
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
    let made = Arc::new(Made {
        gil_release_min: gil_release_min(&choice),
        length_required,
        choice,
    });
    if params == HashParams::default() && keywords.backend.is_none() {
        remember_default_made(name, &made);
    }
    made.hash(py, data.as_ref())
}

/// The keywords of `new()` that hashlab reads itself.
#[derive(Default)]
struct NewKeywords<'py> {
    string: Option<Bound<'py, PyAny>>,
    backend: Option<String>,
    /// `None` when no parameter was passed.
    parameters: Option<HashParams>,
}

impl<'py> NewKeywords<'py> {
    /// The keywords of `dict`, or the first that is not hashlab's (hashlib's
    /// BLAKE2 keywords, or a mistake). This match is the one list of them.
    fn read(dict: &Bound<'py, PyDict>) -> PyResult<Result<NewKeywords<'py>, String>> {
        let mut keywords = NewKeywords::default();
        let (mut key, mut length, mut customization) = (None, None, None);
        let mut extra = HashParams::default();
        let mut any_parameter = false;
        for (name, value) in dict.iter() {
            let name: String = name.extract()?;
            // None is an absent keyword, as the defaults of hashlib's signatures.
            let value = (!value.is_none()).then_some(value);
            let typed = |e: PyErr| {
                PyTypeError::new_err(format!("new() argument '{name}': {}", e.value(dict.py())))
            };
            let bytes = |value: Option<Bound<'py, PyAny>>, what: &str| {
                value
                    .map(|v| Borrowed::get(&v, what).map(|b| b.to_vec()))
                    .transpose()
            };
            let parameter = match name.as_str() {
                "usedforsecurity" => false,
                "string" => {
                    keywords.string = value;
                    false
                }
                "backend" => {
                    keywords.backend = value.map(|v| v.extract()).transpose().map_err(typed)?;
                    false
                }
                "key" => {
                    key = value;
                    key.is_some()
                }
                "length" => {
                    length = value;
                    length.is_some()
                }
                "customization" => {
                    customization = value;
                    customization.is_some()
                }
                "salt" => {
                    extra.salt = bytes(value, "salt")?;
                    extra.salt.is_some()
                }
                "personal" => {
                    extra.personal = bytes(value, "personal")?;
                    extra.personal.is_some()
                }
                "seed" => {
                    extra.seed = value.map(|v| v.extract()).transpose().map_err(typed)?;
                    extra.seed.is_some()
                }
                "domain" => {
                    extra.domain = value.map(|v| v.extract()).transpose().map_err(typed)?;
                    extra.domain.is_some()
                }
                "derive_key" => {
                    extra.context = value.map(|v| v.extract()).transpose().map_err(typed)?;
                    extra.context.is_some()
                }
                "tree" => {
                    let Some(value) = value else { continue };
                    let (fanout, depth, leaf_size, node_offset, node_depth, inner_size, last_node) =
                        value.extract().map_err(typed)?;
                    extra.tree = Some(hashlab::Blake2Tree {
                        fanout,
                        depth,
                        leaf_size,
                        node_offset,
                        node_depth,
                        inner_size,
                        last_node,
                    });
                    true
                }
                _ => return Ok(Err(name)),
            };
            any_parameter |= parameter;
        }
        if any_parameter {
            keywords.parameters = Some(HashParams {
                salt: extra.salt,
                personal: extra.personal,
                seed: extra.seed,
                domain: extra.domain,
                context: extra.context,
                tree: extra.tree,
                ..params(key.as_ref(), length.as_ref(), customization.as_ref())?
            });
        }
        Ok(Ok(keywords))
    }
}

/// What `new()` decided for a name and its parameters, shared by the hash
/// objects made from it and their copies.
struct Made {
    choice: Choice,
    /// Inputs at least this long are hashed with the GIL released.
    gil_release_min: usize,
    /// hashlib's own XOFs asked for by hashlib's names (shake_128,
    /// shake_256) without `length=`: as hashlib's, `digest()` needs a length
    /// and `digest_size` is 0.
    length_required: bool,
}

impl Made {
    /// A hash object in the initial state, fed `data` if any.
    fn hash<'py>(
        self: Arc<Self>,
        py: Python<'py>,
        data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let hash = Hash {
            state: Mutex::new(self.choice.hasher()),
            made: self,
        };
        if let Some(data) = data {
            hash.absorb(py, data)?;
        }
        Ok(Bound::new(py, hash)?.into_any())
    }
}

/// The names `new()` was called with and no parameters, each with what it
/// decided: a short-message caller makes an object per message (hashlib's
/// `new(name, data).digest()` idiom), and going from the name again each
/// time (Python name, registry name, cached default) doubled the cost of a
/// small hash.
fn default_made_by_name() -> &'static Mutex<HashMap<Box<str>, Arc<Made>>> {
    static MADE: OnceLock<Mutex<HashMap<Box<str>, Arc<Made>>>> = OnceLock::new();
    MADE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Spellings differ only in case (`SHA256`, `sha256`), so this bounds the
/// memory a caller trying every casing could make the map take.
const DEFAULT_MADE_MAX: usize = 1024;

fn default_made(name: &str) -> Option<Arc<Made>> {
    let made = default_made_by_name()
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    made.get(name).cloned()
}

fn remember_default_made(name: &str, made: &Arc<Made>) {
    let mut by_name = default_made_by_name()
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if by_name.len() < DEFAULT_MADE_MAX {
        by_name.insert(name.into(), Arc::clone(made));
    }
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
