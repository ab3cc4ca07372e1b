//! The functions made per algorithm, the named constructors (`sha256(data)`)
//! and the one-shot functions (`xxh3_64_intdigest(data)`, `sha256_digest`),
//! as C functions called with METH_FASTCALL, written against the C API by
//! hand because PyO3 makes a function built at run time (one per algorithm,
//! from the catalog) a closure called through a tuple and a dict of keywords:
//! 112 ns for XXH3-64 of 64 bytes, against 37 ns for the xxhash package's
//! C function. A fast call hands over the arguments as an array, and the
//! common call, one positional argument and no keywords, goes straight to
//! the algorithm's one-shot function (docs/python.md has the measurements).

use std::ffi::c_void;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::{PySystemError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::hash::{new, one_shot_call, resolved_once, Made, Output};

/// What a function made per algorithm does.
pub(crate) enum Kind {
    /// `python(data=b'', **keywords)`: `hashlab.new(python, data, **keywords)`.
    Constructor,
    /// `name(data, **keywords)`: that object's digest in `Output`'s form.
    OneShot(Output),
}

/// One function: the algorithm's Python name, the function's own name (for
/// errors), what it does, and the resolved choice once made.
struct FastFunction {
    python: &'static str,
    name: String,
    kind: Kind,
    made: OnceLock<Arc<Made>>,
}

/// The function `name` doing `kind` for the algorithm `python`, as a builtin
/// function object.
pub(crate) fn fast_function<'py>(
    py: Python<'py>,
    python: &'static str,
    name: String,
    kind: Kind,
    doc: &'static std::ffi::CStr,
) -> PyResult<Bound<'py, PyAny>> {
    // The function lives as long as the module, which is never unloaded:
    // its state and method table are leaked, as a C extension's are static.
    let function_name = crate::hash::leaked_c_string(name.clone());
    let state: &'static FastFunction = Box::leak(Box::new(FastFunction {
        python,
        name,
        kind,
        made: OnceLock::new(),
    }));
    let method: &'static mut ffi::PyMethodDef = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: function_name.as_ptr(),
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunctionFastWithKeywords: call_fast_function,
        },
        ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
        ml_doc: doc.as_ptr(),
    }));
    // SAFETY: the capsule holds a pointer to a leaked, immutable-but-for-its-
    // OnceLock state that outlives every call; it has no name and no destructor.
    let capsule = unsafe {
        let capsule = ffi::PyCapsule_New(
            state as *const FastFunction as *mut c_void,
            std::ptr::null(),
            None,
        );
        Bound::from_owned_ptr_or_err(py, capsule)?
    };
    // SAFETY: a method table that outlives the function, and its `self`.
    unsafe {
        let function = ffi::PyCFunction_NewEx(method, capsule.as_ptr(), std::ptr::null_mut());
        Bound::from_owned_ptr_or_err(py, function)
    }
}

/// The C entry point: `slf` is the capsule holding the function's state,
/// `args` the positional arguments followed by the keyword values, and
/// `kwnames` the keywords' names (NULL when there are none).
unsafe extern "C" fn call_fast_function(
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    guarded(|py| {
        // SAFETY: `slf` is the nameless capsule made with this function.
        let state = unsafe { ffi::PyCapsule_GetPointer(slf, std::ptr::null()) };
        if state.is_null() {
            return Err(PyErr::fetch(py));
        }
        // SAFETY: the capsule points to a leaked `FastFunction`, and CPython
        // passes `nargs` positional arguments and one value per keyword name.
        let value = unsafe { (*(state as *const FastFunction)).call(py, args, nargs, kwnames)? };
        Ok(value.into_ptr())
    })
}

/// The body of a C entry point called by CPython (with the interpreter
/// attached): its value, or NULL with the error set. A panic becomes a
/// SystemError rather than unwinding into C.
pub(crate) fn guarded(
    body: impl FnOnce(Python<'_>) -> PyResult<*mut ffi::PyObject>,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls functions, methods and slots with the interpreter attached.
    let py = unsafe { Python::assume_attached() };
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| body(py))).unwrap_or_else(|_| {
        Err(PySystemError::new_err(
            "hashlab: a function panicked (a bug: please report it)",
        ))
    });
    result.unwrap_or_else(|e| {
        e.restore(py);
        std::ptr::null_mut()
    })
}

/// The positional arguments of a fast call (PY_VECTORCALL_ARGUMENTS_OFFSET
/// may be set in `nargs`).
pub(crate) fn positional_count(nargs: ffi::Py_ssize_t) -> usize {
    // The flag is the top bit; pyo3's ffi names it only outside the limited API.
    (nargs as usize) & !(1usize << (usize::BITS - 1))
}

impl FastFunction {
    /// # Safety
    /// `args` holds `nargs` positional arguments followed by one value per
    /// name in `kwnames` (a tuple, or NULL), all alive for the call.
    unsafe fn call<'py>(
        &self,
        py: Python<'py>,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> PyResult<Bound<'py, PyAny>> {
        let positional = positional_count(nargs);
        // SAFETY: `positional` arguments, alive for the call.
        let argument = |i: usize| unsafe { Bound::from_borrowed_ptr(py, *args.add(i)) };
        let keywords = if kwnames.is_null() {
            None
        } else {
            // SAFETY: a tuple CPython passes for the call.
            let names = unsafe { Bound::from_borrowed_ptr(py, kwnames) };
            let dict = PyDict::new(py);
            for (i, name) in names.try_iter()?.enumerate() {
                // The keyword values follow the positional arguments.
                dict.set_item(name?, argument(positional + i))?;
            }
            Some(dict).filter(|d| !d.is_empty())
        };
        let made = || resolved_once(&self.made, py, self.python);
        match self.kind {
            Kind::OneShot(output) => {
                if positional != 1 {
                    return Err(PyTypeError::new_err(format!(
                        "{}() takes exactly 1 positional argument, data ({positional} given)",
                        self.name
                    )));
                }
                let data = argument(0);
                match keywords {
                    None => made()?.output_of(py, &data, output),
                    Some(keywords) => {
                        one_shot_call(py, self.python, &data, Some(&keywords), output, || {
                            made().map(Arc::clone)
                        })
                    }
                }
            }
            Kind::Constructor => {
                if positional > 1 {
                    return Err(PyTypeError::new_err(format!(
                        "{}() takes at most 1 positional argument ({positional} given)",
                        self.python
                    )));
                }
                let mut data = (positional == 1).then(|| argument(0));
                let Some(keywords) = keywords else {
                    return Arc::clone(made()?).hash(py, data.as_ref());
                };
                if let Some(given) = keywords.get_item("data")? {
                    if data.is_some() {
                        return Err(PyTypeError::new_err(format!(
                            "argument for {}() given by name ('data') and position (1)",
                            self.python
                        )));
                    }
                    keywords.del_item("data")?;
                    data = Some(given);
                }
                new(py, self.python, data.as_ref(), Some(&keywords))
            }
        }
    }
}
