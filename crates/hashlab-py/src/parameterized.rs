//! hashlib's `blake2b` and `blake2s` constructors: types made here, as
//! hashlib's are types, so they carry the class attributes code reads
//! (`blake2b.SALT_SIZE`, `MAX_DIGEST_SIZE`, ...), which a builtin function
//! cannot. The package's Python constructor does hashlib's whole signature
//! and its checks; calling it for every message cost `blake2b(data)` of 64
//! bytes 5 µs against hashlib's 250 ns (a Python frame, a dozen checks, and
//! a `length=` that sent every call through the registry). A call with the
//! data alone, the usual one, goes to the algorithm's default instead, as
//! the named constructors' calls do (`fastcall.rs`); any other is the
//! Python constructor's.
//!
//! A type's call reaches `tp_new` with a tuple and a dict, where a fast
//! call would have an array: the stable ABI of Python 3.11 has no way for a
//! type to be called with vectorcall, and hashlib's own `blake2b` is called
//! through a tuple too.

use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::{PySystemError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};

use crate::calls::resolved_once;
use crate::guard::guarded;
use crate::made::Made;

/// One type: the algorithm's Python name, its default once resolved, and
/// the Python constructor that takes every other call.
struct Parameterized {
    type_object: *mut ffi::PyTypeObject,
    python: &'static str,
    made: OnceLock<Arc<Made>>,
    general: Py<PyAny>,
}

/// The types made so far (one per algorithm with a salt: BLAKE2b and
/// BLAKE2s), each made once per process and leaked, as a C extension's
/// types are static. `tp_new` finds its own by the type it is called for.
static MADE: [AtomicPtr<Parameterized>; 4] = [
    AtomicPtr::new(std::ptr::null_mut()),
    AtomicPtr::new(std::ptr::null_mut()),
    AtomicPtr::new(std::ptr::null_mut()),
    AtomicPtr::new(std::ptr::null_mut()),
];

fn made_types() -> impl Iterator<Item = &'static Parameterized> {
    MADE.iter()
        .map(|slot| slot.load(Ordering::Acquire))
        .take_while(|p| !p.is_null())
        // SAFETY: a non-null entry points to a leaked, never-changed value.
        .map(|p| unsafe { &*p })
}

/// `hashlab.<python_name>`: a type whose call with the data alone (and
/// perhaps `usedforsecurity=`) is a hash object of the algorithm's default,
/// and any other call is `general(*args, **kwargs)`. `attributes` become
/// the type's (hashlib's SALT_SIZE, ...); `doc` is its docstring, a text
/// signature first. Made once: a later import gets the same type.
#[pyfunction]
pub fn parameterized_type<'py>(
    py: Python<'py>,
    python_name: &str,
    general: Bound<'py, PyAny>,
    attributes: &Bound<'py, PyDict>,
    doc: &str,
) -> PyResult<Bound<'py, PyType>> {
    let type_of = |found: &Parameterized| {
        // SAFETY: a live type, kept alive by the leaked entry's reference.
        unsafe { Bound::from_borrowed_ptr(py, found.type_object.cast()).cast_into_unchecked() }
    };
    if let Some(found) = made_types().find(|m| m.python == python_name) {
        return Ok(type_of(found));
    }
    let Some(slot) = MADE
        .iter()
        .find(|slot| slot.load(Ordering::Acquire).is_null())
    else {
        return Err(PySystemError::new_err(format!(
            "hashlab: no room for a constructor type for {python_name} (a bug: please report it)"
        )));
    };
    let nul = |_| PyTypeError::new_err("a name or docstring cannot contain a NUL character");
    let name: &'static std::ffi::CStr = Box::leak(
        CString::new(format!("hashlab.{python_name}"))
            .map_err(nul)?
            .into_boxed_c_str(),
    );
    let doc: &'static std::ffi::CStr =
        Box::leak(CString::new(doc).map_err(nul)?.into_boxed_c_str());
    let slots = Box::leak(Box::new([
        ffi::PyType_Slot {
            slot: ffi::Py_tp_new,
            pfunc: new_parameterized as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_doc,
            pfunc: doc.as_ptr() as *mut c_void,
        },
        ffi::PyType_Slot::default(),
    ]));
    // Not a base type and not immutable: the attributes are set below, as
    // they were on the Python function this type replaces.
    let spec = Box::leak(Box::new(ffi::PyType_Spec {
        name: name.as_ptr(),
        basicsize: std::mem::size_of::<ffi::PyObject>() as i32,
        itemsize: 0,
        flags: ffi::Py_TPFLAGS_DEFAULT as _,
        slots: slots.as_mut_ptr(),
    }));
    // SAFETY: a spec and tables leaked for the life of the process.
    let object = unsafe { ffi::PyType_FromSpec(spec) };
    if object.is_null() {
        return Err(PyErr::fetch(py));
    }
    let entry: &'static Parameterized = Box::leak(Box::new(Parameterized {
        type_object: object.cast(),
        python: Box::leak(python_name.to_string().into_boxed_str()),
        made: OnceLock::new(),
        general: general.unbind(),
    }));
    slot.store(std::ptr::from_ref(entry).cast_mut(), Ordering::Release);
    let made = type_of(entry);
    for (key, value) in attributes.iter() {
        made.setattr(key.cast_into::<pyo3::types::PyString>()?, value)?;
    }
    Ok(made)
}

/// The type's `tp_new`: `args` is the call's tuple, `kwds` its dict of
/// keywords or NULL.
unsafe extern "C" fn new_parameterized(
    subtype: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwds: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    guarded(|py| {
        let Some(this) = made_types().find(|m| m.type_object == subtype) else {
            return Err(PyTypeError::new_err(
                "not a hashlab constructor type (a subclass cannot be made)",
            ));
        };
        // SAFETY: CPython passes the call's tuple, and its dict or NULL.
        let positional = unsafe { ffi::PyTuple_Size(args) };
        if positional <= 1 && unsafe { plain_keywords(kwds) } {
            let made = resolved_once(&this.made, py, this.python)?;
            if positional == 0 {
                return Ok(Arc::clone(made).hash(py, None)?.into_ptr());
            }
            // SAFETY: item 0 of a tuple of one, borrowed for the call.
            let data = unsafe { ffi::PyTuple_GetItem(args, 0) };
            if let Some(object) = unsafe { made.quick_hash(py, data) } {
                return object;
            }
            // SAFETY: as above.
            let data = unsafe { Bound::from_borrowed_ptr(py, data) };
            return Ok(Arc::clone(made).hash(py, Some(&data))?.into_ptr());
        }
        // SAFETY: as above.
        let args = unsafe { Bound::from_borrowed_ptr(py, args).cast_into::<PyTuple>()? };
        let kwds = (!kwds.is_null())
            .then(|| unsafe { Bound::from_borrowed_ptr(py, kwds).cast_into::<PyDict>() })
            .transpose()?;
        Ok(this.general.bind(py).call(args, kwds.as_ref())?.into_ptr())
    })
}

/// Whether `kwds` (a dict or NULL) holds nothing that changes the hash:
/// no keywords, or hashlib's `usedforsecurity` alone (hashlab has no FIPS
/// mode that would refuse an algorithm, so its value does not matter).
///
/// # Safety
/// `kwds` is NULL or a live dict.
unsafe fn plain_keywords(kwds: *mut ffi::PyObject) -> bool {
    if kwds.is_null() {
        return true;
    }
    // SAFETY: a live dict; the lookup neither raises nor takes a reference.
    unsafe {
        match ffi::PyDict_Size(kwds) {
            0 => true,
            1 => !ffi::PyDict_GetItemString(kwds, c"usedforsecurity".as_ptr()).is_null(),
            _ => false,
        }
    }
}
