//! What every C entry point CPython calls needs (the functions made per
//! algorithm, the hash type's slots, the parameterized types): a panic
//! turned into an exception, and the count of a fast call's arguments.

use std::panic::AssertUnwindSafe;

use pyo3::exceptions::PySystemError;
use pyo3::ffi;
use pyo3::prelude::*;

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
