//! `hashlab.new()` and the one-shot call: a name and its keywords resolved
//! (once per function made for a name), and a hash object or digest made.
//! Below the functions made per algorithm (fastcall.rs), which call these.

use std::sync::{Arc, OnceLock};

use hashlab::{Choice, HashParams};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::buffer::Borrowed;
use crate::hash::{length_argument, SHORT_MAX};
use crate::made::{Made, Output};
use crate::names::{python_names, registry, value_error};
use crate::remembered::{default_made, remember_default_made};

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
    made_for(py, name, keywords.parameters, keywords.backend)?.hash(py, data.as_ref())
}

/// What a name, its parameters (`None`: none passed) and a backend resolve
/// to; remembered per spelling when nothing else was passed.
pub(crate) fn made_for(
    py: Python<'_>,
    name: &str,
    parameters: Option<HashParams>,
    backend: Option<String>,
) -> PyResult<Arc<Made>> {
    // Remembered: no parameter, or a length alone (`blake2b(digest_size=32)`,
    // `new("shake_128", length=32)`), which also need no resolving again.
    let remembered = |params: &HashParams| {
        (backend.is_none()
            && *params
                == HashParams {
                    length: params.length,
                    ..HashParams::default()
                })
        .then_some(params.length)
    };
    let length = match &parameters {
        None => backend.is_none().then_some(None),
        Some(params) => remembered(params),
    };
    if let Some(made) = length.and_then(|length| default_made(name, length)) {
        return Ok(made);
    }
    let canonical = python_names().canonical(name).unwrap_or(name);
    let params = parameters.unwrap_or_default();
    let choice = resolve(canonical, backend.as_deref(), &params).map_err(|e| {
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
        && crate::names::HASHLIB_GUARANTEED.contains(&name.to_ascii_lowercase().as_str());
    let made = Arc::new(Made::new(choice, length_required));
    if let Some(length) = remembered(&params) {
        remember_default_made(name, length, &made);
    }
    Ok(made)
}

/// `name`'s digest of `data`, with keywords as `new()` takes them: exactly
/// `new(name, data, **keywords).digest()` (or `hexdigest()`, or the digest
/// as an int), without the object in between when no keyword is passed.
pub(crate) fn one_shot_call<'py>(
    py: Python<'py>,
    name: &str,
    data: &Bound<'py, PyAny>,
    keywords: Option<&Bound<'py, PyDict>>,
    output: Output,
    made: impl FnOnce() -> PyResult<Arc<Made>>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(keywords) = keywords.filter(|k| !k.is_empty()) {
        let hash = new(py, name, Some(data), Some(keywords))?;
        return match output {
            Output::Int => {
                let hash = crate::hash_type::hash_of(&hash)
                    .ok_or_else(|| PyTypeError::new_err("new() made no hashlab.Hash"))?;
                hash.intdigest(py)
            }
            _ => hash.call_method0(output.method()),
        };
    }
    made()?.output_of(py, data, output)
}

/// What `python` resolves to without parameters, decided at the first call
/// of a function made for it and kept in `cell` from then on.
pub(crate) fn resolved_once<'a>(
    cell: &'a OnceLock<Arc<Made>>,
    py: Python<'_>,
    python: &str,
) -> PyResult<&'a Arc<Made>> {
    if let Some(made) = cell.get() {
        return Ok(made);
    }
    let resolved = made_for(py, python, None, None)?;
    Ok(cell.get_or_init(|| resolved))
}

pub(crate) fn leaked_c_string(text: String) -> &'static std::ffi::CStr {
    Box::leak(
        std::ffi::CString::new(text)
            .expect("names and docs hold no NUL")
            .into_boxed_c_str(),
    )
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

impl Made {
    /// [`Made::hash`] for the common call of a type's `tp_new` (BLAKE2's
    /// constructors), one exact `bytes` object short enough for the
    /// object's inline buffer, on raw pointers: the new object (or NULL
    /// with the error set), or `None` when the call needs the general path.
    /// Not for the fast-call functions' quick path: inlined there (with LTO),
    /// its frame made `xxh3_64(data).digest()` 1.11x xxhash's object go to
    /// 0.92x.
    ///
    /// # Safety
    /// `data` is a live object, borrowed for the call.
    pub(crate) unsafe fn quick_hash(
        self: &Arc<Self>,
        py: Python<'_>,
        data: *mut ffi::PyObject,
    ) -> Option<PyResult<*mut ffi::PyObject>> {
        // SAFETY: the caller's borrowed argument outlives this call.
        let bytes = unsafe { crate::buffer::exact_bytes_at(data) }?;
        if bytes.len() > SHORT_MAX {
            return None;
        }
        let object = match crate::hash_type::new_object(py, Arc::clone(self)) {
            Ok(object) => object,
            Err(e) => return Some(Err(e)),
        };
        crate::hash_type::hash_of(&object)
            .expect("new_object makes a hashlab.Hash")
            .absorb_bytes(py, bytes, None);
        Some(Ok(object.into_ptr()))
    }

    /// A hash object in the initial state, fed `data` if any.
    pub(crate) fn hash<'py>(
        self: Arc<Self>,
        py: Python<'py>,
        data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let object = crate::hash_type::new_object(py, self)?;
        if let Some(data) = data {
            crate::hash_type::hash_of(&object)
                .expect("new_object makes a hashlab.Hash")
                .absorb(py, data)?;
        }
        Ok(object)
    }
}
