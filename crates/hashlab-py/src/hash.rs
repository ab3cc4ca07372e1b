//! The hash object, shaped like hashlib's: what it has absorbed and its digest.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use hashlab::{Hasher, XOF_MAX_OUTPUT};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyString};

use crate::made::{hex_string, int_of, Made};
use crate::names::python_names;

/// Inputs up to this many bytes in all are kept in the object itself and
/// hashed in one call when the digest is asked for: `new(name, data).digest()`
/// on a short message then builds no streaming state and copies none, and
/// reaches the backend's one-shot function (XXH3's), which is what made
/// hashlab's objects slower than hashlib's and xxhash's on short messages.
pub(crate) const SHORT_MAX: usize = 256;

/// What a hash object has absorbed.
// Inline on purpose: a boxed short buffer would be the allocation per object
// this state exists to avoid.
#[allow(clippy::large_enum_variant)]
enum State {
    /// Fewer than [`SHORT_MAX`] bytes so far, not yet hashed. Only the first
    /// `len` bytes are written: an object is made and dropped per message,
    /// and zeroing the whole buffer each time showed in the profile.
    Short {
        len: usize,
        bytes: [MaybeUninit<u8>; SHORT_MAX],
    },
    /// A `bytes` object given whole as the first input, longer than the
    /// short buffer: referenced instead of copied into a streaming state,
    /// and hashed in one call when the digest is asked for, as a short
    /// message is. `xxh3_64(data).digest()` of 8 KiB cost 339 ns that way
    /// against the one-shot function's 225 (xxhash's object: 257).
    Held(HeldBytes),
    Streaming(Box<dyn Hasher>),
}

/// A reference to an immutable `bytes` object and where its bytes lie.
/// Only inputs hashed with the GIL held (shorter than `gil_release_min`,
/// at most 32 KiB) are held, so an object keeps no more than that alive.
struct HeldBytes {
    owner: Py<PyBytes>,
    data: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: `data` points into `owner`'s buffer, which is immutable and lives
// as long as `owner`; a `Py` may be sent between threads.
unsafe impl Send for HeldBytes {}

impl HeldBytes {
    fn bytes(&self) -> &[u8] {
        // SAFETY: see the `Send` impl: `len` bytes at `data`, alive while `owner` is.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr(), self.len) }
    }

    /// A hasher that has absorbed the held bytes, for a state that streams on.
    fn streamed(&self, made: &Made) -> Box<dyn Hasher> {
        let mut hasher = made.take_hasher();
        hasher.update(self.bytes());
        hasher
    }
}

impl State {
    fn empty() -> State {
        State::Short {
            len: 0,
            bytes: [MaybeUninit::uninit(); SHORT_MAX],
        }
    }

    /// The bytes of a short state.
    fn short(len: usize, bytes: &[MaybeUninit<u8>; SHORT_MAX]) -> &[u8] {
        // SAFETY: the first `len` bytes have been written (`absorb` keeps
        // `len` to what it copied in), and u8 has no invalid values.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<u8>(), len) }
    }

    fn absorb(&mut self, data: &[u8], made: &Made) {
        match self {
            State::Short { len, bytes } if data.len() <= SHORT_MAX - *len => {
                // SAFETY: `data.len()` bytes fit after the `len` written ones.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        data.as_ptr(),
                        bytes.as_mut_ptr().add(*len).cast::<u8>(),
                        data.len(),
                    );
                }
                *len += data.len();
            }
            State::Short { len, bytes } => {
                let mut hasher = made.take_hasher();
                hasher.update(State::short(*len, bytes));
                hasher.update(data);
                *self = State::Streaming(hasher);
            }
            State::Held(held) => {
                let mut hasher = held.streamed(made);
                hasher.update(data);
                // Callers release a held reference first, with the GIL
                // (`release`); one left here would go through PyO3's pool.
                *self = State::Streaming(hasher);
            }
            State::Streaming(hasher) => hasher.update(data),
        }
    }

    /// The whole message, unless it is being streamed.
    fn whole(&self) -> Option<&[u8]> {
        match self {
            State::Short { len, bytes } => Some(State::short(*len, bytes)),
            State::Held(held) => Some(held.bytes()),
            State::Streaming(_) => None,
        }
    }

    /// The digest at the configured length; the state is left as it was.
    fn finish_into(&mut self, py: Python<'_>, made: &Made, out: &mut [u8]) {
        match self {
            State::Streaming(hasher) => hasher.finalize_copy_into(out),
            whole => made.one_shot_attached(py, whole.whole().expect("not streaming"), out),
        }
    }

    /// `out.len()` bytes of an extendable output, if the function has one
    /// (see [`Hasher::finalize_extendable_into_reset`]); the state is left as it was.
    fn extend_into(&self, made: &Made, out: &mut [u8]) -> bool {
        if let State::Streaming(hasher) = self {
            return hasher.box_clone().finalize_extendable_into_reset(out);
        }
        let whole = self.whole().expect("not streaming");
        let mut hasher = made.take_hasher();
        hasher.update(whole);
        let extended = hasher.finalize_extendable_into_reset(out);
        if !extended {
            hasher.reset();
        }
        made.give_back(hasher);
        extended
    }

    fn copy(&self, py: Python<'_>) -> State {
        match self {
            State::Short { len, bytes } => State::Short {
                len: *len,
                bytes: *bytes,
            },
            State::Held(held) => State::Held(HeldBytes {
                owner: held.owner.clone_ref(py),
                data: held.data,
                len: held.len,
            }),
            State::Streaming(hasher) => State::Streaming(hasher.box_clone()),
        }
    }

    /// Gives up a held `bytes` object's reference now (with the GIL), for
    /// the streaming state or the initial one.
    fn release(&mut self, py: Python<'_>, made: &Made) {
        if let State::Held(_) = self {
            if let State::Held(held) = std::mem::replace(self, State::empty()) {
                *self = State::Streaming(held.streamed(made));
                held.owner.drop_ref(py);
            }
        }
    }

    /// Back to the initial state; a streaming hasher goes back to the pool
    /// the next object of this name takes from (an OpenSSL context or a large
    /// XXH3 state is then not allocated and set up again per object).
    ///
    /// Without `py` (a drop that has no token) a held reference goes through
    /// PyO3's pool of pending decrements; `hashlab.Hash`'s dealloc clears
    /// with the GIL first.
    fn clear(&mut self, py: Option<Python<'_>>, made: &Made) {
        match std::mem::replace(self, State::empty()) {
            State::Streaming(mut hasher) => {
                hasher.reset();
                made.give_back(hasher);
            }
            State::Held(held) => match py {
                Some(py) => held.owner.drop_ref(py),
                None => drop(held),
            },
            State::Short { .. } => {}
        }
    }
}

/// The state of a running hash, the payload of a `hashlab.Hash` object
/// (the type is in `hash_type.rs`): `update`, `digest`, `hexdigest`, `copy`,
/// as hashlib's objects.
///
/// The GIL guards the state, as hashlib's objects are guarded: a mutex
/// locked and unlocked per call was two atomic read-modify-writes, about a
/// quarter of `xxh3_64(data).digest()` of 64 bytes beyond xxhash's cost.
/// The one exception is `update` on a large input, which hashes without
/// the GIL: that thread sets `busy` (holding the GIL, having seen it clear)
/// and holds `work` until it has cleared it again; any other call that
/// finds `busy` set waits for `work` with the GIL released. The scheme
/// needs a GIL, which the wheel can count on: it is abi3, and CPython's
/// free-threaded builds do not load abi3 extensions.
pub(crate) struct Hash {
    state: UnsafeCell<State>,
    busy: AtomicBool,
    work: Mutex<()>,
    /// The algorithm, backend and parameters, resolved once when the first
    /// object of this name was made; copies share it.
    made: Arc<Made>,
}

// SAFETY: the state is reached only through `with_state` (the GIL held and
// `busy` clear) and `absorb_detached` (by the one thread that set `busy`),
// as the struct's comment explains.
unsafe impl Sync for Hash {}

impl Drop for Hash {
    fn drop(&mut self) {
        self.state.get_mut().clear(None, &self.made);
    }
}

impl Hash {
    pub(crate) fn new(made: Arc<Made>) -> Hash {
        Hash {
            state: UnsafeCell::new(State::empty()),
            busy: AtomicBool::new(false),
            work: Mutex::new(()),
            made,
        }
    }

    pub(crate) fn made(&self) -> &Arc<Made> {
        &self.made
    }

    /// Waits, with the GIL released, while another thread hashes into this
    /// object without the GIL.
    fn wait_while_busy(&self, py: Python<'_>) {
        while self.busy.load(Ordering::Acquire) {
            py.detach(|| drop(self.work.lock()));
        }
    }

    /// `f` on the state, with the GIL held throughout: `f` must not call
    /// into Python (which could release the GIL), and only drops exact
    /// `bytes` objects, whose deallocation runs no Python code.
    fn with_state<R>(&self, py: Python<'_>, f: impl FnOnce(&mut State) -> R) -> R {
        self.wait_while_busy(py);
        // SAFETY: the GIL is held and `busy` is clear, so no other thread
        // reaches the state until `f` returns (see the struct's comment).
        f(unsafe { &mut *self.state.get() })
    }

    /// Absorbs `bytes` with the GIL released.
    fn absorb_detached(&self, py: Python<'_>, bytes: &[u8]) {
        self.with_state(py, |state| state.release(py, &self.made));
        self.busy.store(true, Ordering::Release);
        py.detach(|| {
            let work = self.work.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: this thread set `busy` holding the GIL, having seen it
            // clear; every other thread waits until it is clear again.
            unsafe { &mut *self.state.get() }.absorb(bytes, &self.made);
            self.busy.store(false, Ordering::Release);
            drop(work);
        });
    }

    /// Absorbs more data (any C-contiguous buffer).
    pub(crate) fn absorb(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut borrowed = None;
        let bytes = crate::buffer::bytes_of(data, &mut borrowed, "data")?;
        // Only an exact bytes object is held: a subclass may have a __del__
        // (see with_state).
        let owner = data.cast_exact::<PyBytes>().ok();
        self.absorb_bytes(py, bytes, owner);
        Ok(())
    }

    /// `owner`: the exact `bytes` object `bytes` lies in, if it is one.
    pub(crate) fn absorb_bytes(
        &self,
        py: Python<'_>,
        bytes: &[u8],
        owner: Option<&Bound<'_, PyBytes>>,
    ) {
        if bytes.len() >= self.made.gil_release_min {
            return self.absorb_detached(py, bytes);
        }
        self.with_state(py, |state| match owner {
            Some(owner)
                if bytes.len() > SHORT_MAX && matches!(state, State::Short { len: 0, .. }) =>
            {
                *state = State::Held(HeldBytes {
                    owner: owner.clone().unbind(),
                    data: std::ptr::NonNull::from(bytes).cast(),
                    len: bytes.len(),
                });
            }
            _ => {
                state.release(py, &self.made);
                state.absorb(bytes, &self.made);
            }
        })
    }

    fn finish(&self, py: Python<'_>) -> Vec<u8> {
        let mut out = vec![0u8; self.made.choice.output_len()];
        self.with_state(py, |state| state.finish_into(py, &self.made, &mut out));
        out
    }

    /// `digest()` without a length.
    pub(crate) fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        if self.made.length_required {
            return Ok(PyBytes::new(py, &self.output(py, "digest", None)?));
        }
        let len = self.made.output_len;
        let mut small = [0u8; 64];
        if len <= small.len() {
            // On the stack, then copied: PyBytes::new_with would zero its buffer first.
            let out = &mut small[..len];
            self.with_state(py, |state| state.finish_into(py, &self.made, out));
            return Ok(PyBytes::new(py, &small[..len]));
        }
        Ok(PyBytes::new(py, &self.finish(py)))
    }

    pub(crate) fn hexdigest<'py>(
        &self,
        py: Python<'py>,
        length: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyString>> {
        Ok(hex_string(py, &self.output(py, "hexdigest", length)?))
    }

    /// xxhash's `intdigest()`: the digest as an unsigned big-endian int.
    pub(crate) fn intdigest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let len = self.made.output_len;
        if self.made.length_required || !self.made.small_integer {
            return int_of(py, &self.made, &self.output(py, "intdigest", None)?);
        }
        let mut wide = [0u8; 8];
        let out = &mut wide[8 - len..];
        self.with_state(py, |state| state.finish_into(py, &self.made, out));
        Ok(u64::from_be_bytes(wide).into_pyobject(py)?.into_any())
    }

    /// Takes `other`'s state (for `copy()`, into a new object).
    pub(crate) fn copy_state_from(&self, py: Python<'_>, other: &Hash) {
        let copied = other.with_state(py, |state| state.copy(py));
        // The initial state of a new object: nothing to give back.
        self.with_state(py, |state| *state = copied);
    }

    /// Back to the initial state, giving up what the state holds with the
    /// GIL (`reset()`, and before a drop).
    pub(crate) fn reset(&self, py: Python<'_>) {
        self.with_state(py, |state| state.clear(Some(py), &self.made));
    }

    pub(crate) fn python_name(&self) -> &str {
        python_names().python(self.made.choice.name())
    }

    pub(crate) fn backend_name(&self) -> &str {
        self.made.choice.backend_name()
    }

    /// 0 for `shake_128()` and `shake_256()` made without a length, as hashlib says.
    pub(crate) fn digest_size(&self) -> usize {
        if self.made.length_required {
            0
        } else {
            self.made.choice.output_len()
        }
    }

    pub(crate) fn block_size(&self) -> usize {
        self.made.choice.algorithm().block_size
    }

    /// The FIPS 202 sponge's first padding byte and rate in bits (SHA-3,
    /// SHAKE), or `None` for any other algorithm.
    pub(crate) fn fips202_sponge(&self) -> Option<(u8, usize)> {
        let algorithm = self.made.choice.algorithm();
        Some((algorithm.fips202_suffix?, algorithm.block_size * 8))
    }

    pub(crate) fn repr(&self) -> String {
        format!(
            "<hashlab.Hash {} ({}), {} bytes>",
            self.made.choice.name(),
            self.made.choice.backend_name(),
            self.made.choice.output_len()
        )
    }

    /// The output `digest(length)` or `hexdigest(length)` (`method`) returns.
    pub(crate) fn output(
        &self,
        py: Python<'_>,
        method: &str,
        length: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<u8>> {
        // Only the errors name the algorithm: a lookup per digest() was a
        // tenth of a short message's cost.
        let name = || self.python_name();
        let Some(length) = length else {
            if self.made.length_required {
                // hashlib's message for its shake objects.
                return Err(PyTypeError::new_err(format!(
                    "{method}() missing required argument 'length' (pos 1)"
                )));
            }
            return Ok(self.finish(py));
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
            return Ok(self.finish(py));
        };
        if length > XOF_MAX_OUTPUT {
            return Err(PyValueError::new_err(format!(
                "length: {length} bytes is more than the {XOF_MAX_OUTPUT} an extendable output \
                 gives here"
            )));
        }
        if length == self.made.choice.output_len() {
            return Ok(self.finish(py));
        }
        let mut out = vec![0u8; length];
        if length == 0 || self.with_state(py, |state| state.extend_into(&self.made, &mut out)) {
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
