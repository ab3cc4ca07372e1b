//! What `new()` decides for a name and its parameters, shared by the hash
//! objects made from it and by the one-shot functions, and how a digest is
//! handed to Python.

use std::cell::UnsafeCell;
use std::sync::Mutex;

use hashlab::{Choice, FileBound, Hasher};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::names::python_names;

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

/// What a one-shot function returns.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    Bytes,
    Hex,
    /// The digest as an unsigned big-endian integer (xxhash's `intdigest`).
    Int,
}

impl Output {
    pub(crate) fn method(self) -> &'static str {
        match self {
            Output::Bytes => "digest",
            Output::Hex => "hexdigest",
            Output::Int => "intdigest",
        }
    }
}

/// A digest in lowercase hex, as a str (on the stack up to 64 bytes).
pub(crate) fn hex_string<'py>(py: Python<'py>, digest: &[u8]) -> Bound<'py, PyString> {
    let mut hex = [0u8; 128];
    if digest.len() * 2 <= hex.len() {
        return PyString::new(py, hashlab::hex::encode_into(digest, &mut hex));
    }
    PyString::new(py, &hashlab::hex::encode(digest))
}

/// An integer digest as a Python int; an error for the digests that are not numbers.
pub(crate) fn int_of<'py>(
    py: Python<'py>,
    made: &Made,
    digest: &[u8],
) -> PyResult<Bound<'py, PyAny>> {
    let algorithm = made.choice.algorithm();
    let Some(value) = algorithm.integer_value(digest) else {
        return Err(PyValueError::new_err(format!(
            "{}'s digest is a byte string, not a number: use digest() or hexdigest()",
            python_names().python(&algorithm.name)
        )));
    };
    // Under abi3 a u128 becomes an int through Python-level arithmetic; a
    // 64-bit value (XXH3-64, the CRCs) through one C call.
    match u64::try_from(value) {
        Ok(small) if digest.len() <= 8 => Ok(small.into_pyobject(py)?.into_any()),
        _ => Ok(value.into_pyobject(py)?.into_any()),
    }
}

/// What `new()` decided for a name and its parameters, shared by the hash
/// objects made from it and their copies.
pub(crate) struct Made {
    pub(crate) choice: Choice,
    /// Inputs at least this long are hashed with the GIL released.
    pub(crate) gil_release_min: usize,
    /// hashlib's own XOFs asked for by hashlib's names (shake_128,
    /// shake_256) without `length=`: as hashlib's, `digest()` needs a length
    /// and `digest_size` is 0.
    pub(crate) length_required: bool,
    /// Hashers in their initial state, left by objects that were dropped
    /// and by one-shot calls, for the next to take.
    spare: Mutex<Vec<Box<dyn Hasher>>>,
    /// The hasher of the messages hashed with the GIL held (a short
    /// message's `digest()`, a one-shot call), guarded by the GIL as a
    /// hash object's state is: taking one from `spare` and giving it back
    /// was two locks of its mutex per message, a fifth of a 64-byte
    /// `blake2b(data).digest()`.
    attached: UnsafeCell<Option<Box<dyn Hasher>>>,
    /// The backend's one-shot function, where it has one that needs no
    /// state: a message per call then touches no hasher at all.
    stateless: Option<hashlab::Stateless>,
    /// The output length, and whether the digest is a number of at most 64
    /// bits (XXH3-64, the CRCs): read per call, so kept here rather than
    /// looked up through the choice.
    pub(crate) output_len: usize,
    pub(crate) small_integer: bool,
}

// SAFETY: `attached` is reached only with the GIL held (see
// `one_shot_attached`); the rest is Sync.
unsafe impl Sync for Made {}

/// Spare hashers kept per name: enough for the objects a loop has alive at
/// once, few enough that an OpenSSL context each costs nothing to keep.
const SPARE_MAX: usize = 4;

impl Made {
    pub(crate) fn new(choice: Choice, length_required: bool) -> Made {
        let first = choice.hasher();
        let output_len = choice.output_len();
        Made {
            output_len,
            small_integer: choice.algorithm().integer_digest && output_len <= 8,
            gil_release_min: gil_release_min(&choice),
            length_required,
            stateless: first.stateless(),
            spare: Mutex::new(vec![first]),
            attached: UnsafeCell::new(None),
            choice,
        }
    }

    /// [`Made::one_shot`] with the GIL held: the hasher is the one `attached`
    /// keeps, no lock taken.
    pub(crate) fn one_shot_attached(&self, _py: Python<'_>, data: &[u8], out: &mut [u8]) {
        if let Some(stateless) = &self.stateless {
            return stateless.hash_into(data, out);
        }
        // SAFETY: only reached with the GIL held, which the wheel always has
        // (abi3; CPython's free-threaded builds do not load abi3
        // extensions), and the hasher is moved out while in use: nothing in
        // between calls into Python, and another taker would find `None`.
        let cell = unsafe { &mut *self.attached.get() };
        let mut hasher = cell.take().unwrap_or_else(|| self.take_hasher());
        hasher.hash_message_into(data, out);
        *cell = Some(hasher);
    }

    /// A hasher in its initial state.
    pub(crate) fn take_hasher(&self) -> Box<dyn Hasher> {
        let spare = self.spare.lock().ok().and_then(|mut spare| spare.pop());
        spare.unwrap_or_else(|| self.choice.hasher())
    }

    /// Keeps `hasher`, which must be in its initial state, for the next taker.
    pub(crate) fn give_back(&self, hasher: Box<dyn Hasher>) {
        if let Ok(mut spare) = self.spare.lock() {
            if spare.len() < SPARE_MAX {
                spare.push(hasher);
            }
        }
    }

    /// The digest of `data` as one message, at the configured length.
    fn one_shot(&self, data: &[u8], out: &mut [u8]) {
        if let Some(stateless) = &self.stateless {
            return stateless.hash_into(data, out);
        }
        let mut hasher = self.take_hasher();
        hasher.hash_message_into(data, out);
        self.give_back(hasher);
    }

    /// The digest of `data` in one call, as `output` says; the GIL is
    /// released for long inputs, as for `update`.
    pub(crate) fn output_of<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        output: Output,
    ) -> PyResult<Bound<'py, PyAny>> {
        if self.length_required {
            return Err(PyTypeError::new_err(format!(
                "{}() of {} needs length=, as its digest() does",
                output.method(),
                python_names().python(self.choice.name())
            )));
        }
        let mut borrowed = None;
        let bytes = crate::buffer::bytes_of(data, &mut borrowed, "data")?;
        self.output_of_bytes(py, bytes, output)
    }

    /// The digest of `bytes` in `output`'s form, for a choice that needs no
    /// length; the GIL is released for long inputs, as for `update`.
    #[inline]
    fn output_of_bytes<'py>(
        &self,
        py: Python<'py>,
        bytes: &[u8],
        output: Output,
    ) -> PyResult<Bound<'py, PyAny>> {
        let hash = |out: &mut [u8]| {
            if bytes.len() >= self.gil_release_min {
                py.detach(|| self.one_shot(bytes, out));
            } else {
                self.one_shot_attached(py, bytes, out);
            }
        };
        let len = self.output_len;
        if output == Output::Int && self.small_integer {
            // Right-aligned in a u64: a variable-length copy into a u128 (a
            // call to memcpy) was an eighth of a 64-byte intdigest call.
            let mut wide = [0u8; 8];
            hash(&mut wide[8 - len..]);
            return Ok(u64::from_be_bytes(wide).into_pyobject(py)?.into_any());
        }
        // Written on the stack and copied into the result: PyBytes::new_with
        // zeroes its buffer first, a call to memset per digest.
        let mut small = [0u8; 64];
        let mut large = Vec::new();
        let out = if len <= small.len() {
            &mut small[..len]
        } else {
            large.resize(len, 0);
            &mut large[..]
        };
        hash(out);
        match output {
            Output::Bytes => Ok(PyBytes::new(py, out).into_any()),
            Output::Hex => Ok(hex_string(py, out).into_any()),
            _ => int_of(py, self, out),
        }
    }

    /// [`Made::output_of`] for the common call, one exact `bytes` object,
    /// on raw pointers: the result (or NULL with the error set), or `None`
    /// when the call needs the general path. Taking and dropping a reference
    /// to the argument is two calls into libpython under abi3, and a 64-byte
    /// XXH3 call is 60 ns.
    ///
    /// # Safety
    /// `data` is a live object, borrowed for the call.
    pub(crate) unsafe fn quick_output(
        &self,
        py: Python<'_>,
        data: *mut ffi::PyObject,
        output: Output,
    ) -> Option<PyResult<*mut ffi::PyObject>> {
        // SAFETY: the caller's borrowed argument outlives this call.
        let bytes = unsafe { crate::buffer::exact_bytes_at(data) }?;
        if self.length_required {
            return None;
        }
        Some(self.output_of_bytes(py, bytes, output).map(Bound::into_ptr))
    }
}
