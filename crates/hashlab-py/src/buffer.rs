//! Bytes out of any Python object with the buffer protocol (bytes, bytearray,
//! memoryview, array.array, numpy arrays, mmap), read in place.

use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// A Python buffer held exported for as long as this value lives. While a
/// buffer is exported its memory can be neither freed nor resized (bytearray
/// and numpy refuse to resize, mmap to close), so the slice stays valid even
/// when the GIL is released.
pub struct Borrowed {
    buffer: PyUntypedBuffer,
}

impl Borrowed {
    /// The object's bytes. `what` names the argument in error messages.
    pub fn get(object: &Bound<'_, PyAny>, what: &str) -> PyResult<Borrowed> {
        if object.is_instance_of::<PyString>() {
            // The same message as hashlib: the encoding is the caller's choice.
            return Err(PyTypeError::new_err(format!(
                "{what}: strings must be encoded before hashing"
            )));
        }
        let buffer = PyUntypedBuffer::get(object).map_err(|_| {
            let kind = object
                .get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string());
            PyTypeError::new_err(format!(
                "{what}: a bytes-like object is required, not '{kind}'"
            ))
        })?;
        if !buffer.is_c_contiguous() {
            return Err(PyValueError::new_err(format!(
                "{what}: the buffer is not C-contiguous (a strided view or a Fortran-ordered \
                 array); hashing its memory would skip or reorder bytes, so pass a contiguous \
                 copy, e.g. numpy.ascontiguousarray(x)"
            )));
        }
        Ok(Borrowed { buffer })
    }

    pub fn as_bytes(&self) -> &[u8] {
        let buffer = &self.buffer;
        let len = buffer.len_bytes();
        if len == 0 {
            return &[];
        }
        // SAFETY: the exporter guarantees `len_bytes()` contiguous bytes at
        // `buf_ptr()` (checked C-contiguous above) for as long as the export
        // is held, which `self` does. Another thread may still write into a
        // writable buffer while it is hashed without the GIL; every bit
        // pattern is a valid u8, and the result is then as undefined as
        // hashlib's in the same race (it releases the GIL the same way).
        unsafe { std::slice::from_raw_parts(buffer.buf_ptr() as *const u8, len) }
    }

    /// The bytes as an owned vector (keys and customization strings, which are short).
    pub fn to_vec(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
}

/// Where an exact `bytes` object's data starts, measured at import; 0 until
/// then, or if the measurement disagreed with the API.
static BYTES_DATA_OFFSET: AtomicUsize = AtomicUsize::new(0);

/// Finds where `bytes` keeps its data, for [`exact_bytes`]. Under the
/// limited API `PyBytes_AsString` and `PyBytes_Size` are calls into
/// libpython (and the type check a third): 4-5 ns of a 64-byte XXH3 call of
/// about 60. The layout they read is CPython's own business, so it is
/// measured here on objects of two lengths and used only if it agrees.
pub fn measure_bytes_layout(py: Python<'_>) {
    let agrees = |length: usize| -> Option<usize> {
        let object = PyBytes::new(py, &vec![0x5a; length]);
        let pointer = object.as_ptr();
        // SAFETY: a live bytes object; the reads stay within its header,
        // whose PyVarObject part (ob_size) is in the stable ABI.
        unsafe {
            let data = ffi::PyBytes_AsString(pointer) as usize;
            let offset = data.checked_sub(pointer as usize)?;
            let size = (*(pointer as *const ffi::PyVarObject)).ob_size;
            (size == length as ffi::Py_ssize_t
                && ffi::PyBytes_Size(pointer) == size
                && offset >= std::mem::size_of::<ffi::PyVarObject>()
                && offset <= 64)
                .then_some(offset)
        }
    };
    if let (Some(a), Some(b)) = (agrees(3), agrees(1000)) {
        if a == b {
            BYTES_DATA_OFFSET.store(a, Ordering::Relaxed);
        }
    }
}

/// The data of `object` if it is exactly `bytes` (not a subclass), read in
/// place; `None` for anything else.
pub fn exact_bytes<'a>(object: &'a Bound<'_, PyAny>) -> Option<&'a [u8]> {
    // SAFETY: a live object, borrowed for as long as the result.
    unsafe { exact_bytes_at(object.as_ptr()) }
}

/// As [`exact_bytes`], for a borrowed pointer (no reference taken).
///
/// # Safety
/// `pointer` is a live object that stays alive, unchanged, for `'a`.
pub unsafe fn exact_bytes_at<'a>(pointer: *mut ffi::PyObject) -> Option<&'a [u8]> {
    // SAFETY: PyBytes_Type is a static of libpython; a type compared equal
    // to it means a bytes object, immutable and alive while `pointer` is.
    unsafe {
        if ffi::Py_TYPE(pointer) != std::ptr::addr_of_mut!(ffi::PyBytes_Type) {
            return None;
        }
        let offset = BYTES_DATA_OFFSET.load(Ordering::Relaxed);
        let size = (*(pointer as *const ffi::PyVarObject)).ob_size as usize;
        let data = if offset == 0 {
            ffi::PyBytes_AsString(pointer) as *const u8
        } else {
            pointer.cast::<u8>().add(offset)
        };
        Some(std::slice::from_raw_parts(data, size))
    }
}

/// The bytes of `object`: a `bytes` object's read in place, anything else's
/// through its buffer, which `borrowed` then keeps exported. `what` names the
/// argument in error messages.
pub fn bytes_of<'a>(
    object: &'a Bound<'_, PyAny>,
    borrowed: &'a mut Option<Borrowed>,
    what: &str,
) -> PyResult<&'a [u8]> {
    if let Some(bytes) = exact_bytes(object) {
        return Ok(bytes);
    }
    // A subclass of bytes is as immutable, and needs no export either (which
    // costs an allocation and two calls into Python).
    if let Ok(bytes) = object.cast::<PyBytes>() {
        return Ok(bytes.as_bytes());
    }
    Ok(borrowed.insert(Borrowed::get(object, what)?).as_bytes())
}
