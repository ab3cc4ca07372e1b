//! Bytes out of any Python object with the buffer protocol (bytes, bytearray,
//! memoryview, array.array, numpy arrays, mmap), read in place.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

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
