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
use std::sync::atomic::AtomicPtr;
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::calls::{new, one_shot_call, resolved_once};
use crate::guard::{guarded, positional_count};
use crate::hash_type::{free_object, new_object_of, sealed_type_spec, type_made_once};
use crate::made::{Made, Output};

/// What a function made per algorithm does.
#[derive(Clone, Copy)]
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
    let function_name = crate::calls::leaked_c_string(name.clone());
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
    let state = state_object(py, state)?;
    // SAFETY: a method table that outlives the function, and its `self`.
    unsafe {
        let function = ffi::PyCFunction_NewEx(method, state.as_ptr(), std::ptr::null_mut());
        Bound::from_owned_ptr_or_err(py, function)
    }
}

/// The `self` of a function made here: a Python object holding a pointer to
/// the function's state. It is a type of its own rather than a capsule
/// because its layout is then this crate's, and the pointer one load away;
/// `PyCapsule_GetPointer` is a call into libpython that checks the capsule's
/// name, 1 ns of a 60 ns call.
#[repr(C)]
struct StateObject {
    header: ffi::PyObject,
    state: &'static FastFunction,
}

static STATE_TYPE: AtomicPtr<ffi::PyTypeObject> = AtomicPtr::new(std::ptr::null_mut());

fn state_object<'py>(py: Python<'py>, state: &'static FastFunction) -> PyResult<Bound<'py, PyAny>> {
    let state_type = type_made_once(py, &STATE_TYPE, state_type_spec)?;
    // SAFETY: the type's objects are StateObjects, freed by `dealloc_state`.
    unsafe {
        new_object_of(py, state_type, state, |o: *mut StateObject| {
            std::ptr::addr_of_mut!((*o).state)
        })
    }
}

fn state_type_spec() -> *mut ffi::PyType_Spec {
    let slots = Box::leak(Box::new([
        ffi::PyType_Slot {
            slot: ffi::Py_tp_dealloc,
            pfunc: dealloc_state as *mut c_void,
        },
        ffi::PyType_Slot::default(),
    ]));
    // Seen only as a function's `__self__`; nothing makes one from Python.
    sealed_type_spec(
        c"hashlab.FunctionState",
        std::mem::size_of::<StateObject>(),
        slots,
    )
}

unsafe extern "C" fn dealloc_state(object: *mut ffi::PyObject) {
    // SAFETY: once, at the last reference; the state itself is leaked (a
    // function's, as a C extension's statics), so there is nothing to drop.
    unsafe { free_object(object) }
}

/// The C entry point: `slf` is the function's state object, `args` the
/// positional arguments followed by the keyword values, and `kwnames` the
/// keywords' names (NULL when there are none).
unsafe extern "C" fn call_fast_function(
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: `slf` is the state object made with this function.
    let function = unsafe { (*(slf as *const StateObject)).state };
    guarded(|py| {
        // The common call, `xxh3_64_intdigest(data)` of a bytes object
        // once the name is resolved, touches no Python object but its
        // argument and its result, and takes no reference.
        if let (Kind::OneShot(output), Some(made), true, 1) = (
            function.kind,
            function.made.get(),
            kwnames.is_null(),
            positional_count(nargs),
        ) {
            // SAFETY: one positional argument, borrowed for the call.
            if let Some(value) = unsafe { made.quick_output(py, *args, output) } {
                return value;
            }
        }
        // SAFETY: CPython passes `nargs` positional arguments and one value
        // per keyword name.
        unsafe { function.call_general(py, args, nargs, kwnames) }
    })
}

impl FastFunction {
    /// The call in all its forms, out of line: inlined, its frame (half a
    /// KiB of stack, six saved registers) was paid by the quick path too.
    ///
    /// # Safety
    /// As for [`FastFunction::call`].
    #[inline(never)]
    unsafe fn call_general(
        &self,
        py: Python<'_>,
        args: *const *mut ffi::PyObject,
        nargs: ffi::Py_ssize_t,
        kwnames: *mut ffi::PyObject,
    ) -> PyResult<*mut ffi::PyObject> {
        // SAFETY: passed on from the caller.
        Ok(unsafe { self.call(py, args, nargs, kwnames)? }.into_ptr())
    }

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
