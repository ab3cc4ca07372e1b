//! `hashlab.new()` and the hash object, shaped like hashlib's.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use hashlab::{Choice, FileBound, HashParams, Hasher, KeyRule, XOF_MAX_OUTPUT};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyString};

use crate::buffer::Borrowed;
use crate::remembered::{default_made, remember_default_made};
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

/// Inputs up to this many bytes in all are kept in the object itself and
/// hashed in one call when the digest is asked for: `new(name, data).digest()`
/// on a short message then builds no streaming state and copies none, and
/// reaches the backend's one-shot function (XXH3's), which is what made
/// hashlab's objects slower than hashlib's and xxhash's on short messages.
const SHORT_MAX: usize = 256;

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
    fn absorb_bytes(&self, py: Python<'_>, bytes: &[u8], owner: Option<&Bound<'_, PyBytes>>) {
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
fn made_for(
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
        && crate::HASHLIB_GUARANTEED.contains(&name.to_ascii_lowercase().as_str());
    let made = Arc::new(Made::new(choice, length_required));
    if let Some(length) = remembered(&params) {
        remember_default_made(name, length, &made);
    }
    Ok(made)
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
    fn method(self) -> &'static str {
        match self {
            Output::Bytes => "digest",
            Output::Hex => "hexdigest",
            Output::Int => "intdigest",
        }
    }
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

/// A digest in lowercase hex, as a str (on the stack up to 64 bytes).
fn hex_string<'py>(py: Python<'py>, digest: &[u8]) -> Bound<'py, PyString> {
    let mut hex = [0u8; 128];
    if digest.len() * 2 <= hex.len() {
        return PyString::new(py, hashlab::hex::encode_into(digest, &mut hex));
    }
    PyString::new(py, &hashlab::hex::encode(digest))
}

/// An integer digest as a Python int; an error for the digests that are not numbers.
fn int_of<'py>(py: Python<'py>, made: &Made, digest: &[u8]) -> PyResult<Bound<'py, PyAny>> {
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

/// `hashlab.digest(name, data, **keywords)`: `new(name, data, **keywords).digest()`
/// in one call, as xxhash's `xxh3_64_digest(data)`; the hasher is reused
/// between calls and the backend's one-shot function does the work.
#[pyfunction]
#[pyo3(signature = (name, data, **keywords))]
pub fn digest<'py>(
    py: Python<'py>,
    name: &str,
    data: &Bound<'py, PyAny>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    one_shot_call(py, name, data, keywords, Output::Bytes, || {
        made_for(py, name, None, None)
    })
}

/// `hashlab.hexdigest(name, data, **keywords)`: as `digest()`, in hex.
#[pyfunction]
#[pyo3(signature = (name, data, **keywords))]
pub fn hexdigest<'py>(
    py: Python<'py>,
    name: &str,
    data: &Bound<'py, PyAny>,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    one_shot_call(py, name, data, keywords, Output::Hex, || {
        made_for(py, name, None, None)
    })
}

/// The functions made per algorithm: hashlib's named constructor
/// (`sha256(data=b"", *, usedforsecurity=True, ...)`) and xxhash's one-shot
/// functions (`xxh3_64_digest`, `_hexdigest`, and `_intdigest` where the
/// digest is a number), as (name, function) pairs. Built in Rust so a call
/// costs no Python frame; each resolves its algorithm at its first call.
#[pyfunction]
pub fn named_functions(py: Python<'_>) -> PyResult<Vec<(String, Bound<'_, PyAny>)>> {
    let mut functions = Vec::new();
    for (python_name, canonical) in python_names().pairs(registry()) {
        let python: &'static str = Box::leak(python_name.clone().into_boxed_str());
        let algorithm = registry().algorithm(&canonical).map_err(value_error)?;
        // An algorithm with a salt (BLAKE2) takes hashlib's BLAKE2 keywords
        // (digest_size, person, ...): the package's Python constructor does them.
        if algorithm.salt.is_none() {
            functions.push((python_name.clone(), constructor(py, python)?));
        }
        let integer = algorithm.integer_digest;
        for output in [Output::Bytes, Output::Hex, Output::Int] {
            if output == Output::Int && !integer {
                continue;
            }
            let name = format!("{python_name}_{}", output.method());
            functions.push((name.clone(), one_shot_function(py, python, name, output)?));
        }
    }
    Ok(functions)
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

fn constructor<'py>(py: Python<'py>, python: &'static str) -> PyResult<Bound<'py, PyAny>> {
    let doc = leaked_c_string(format!(
        "{python}(data=b'', *, usedforsecurity=True, string=None, key=None, length=None, \
         backend=None, customization=None, ...)\n--\n\nA new {python} hash object, as \
         hashlab.new('{python}', data, ...)."
    ));
    crate::fastcall::fast_function(
        py,
        python,
        python.to_string(),
        crate::fastcall::Kind::Constructor,
        doc,
    )
}

fn one_shot_function<'py>(
    py: Python<'py>,
    python: &'static str,
    name: String,
    output: Output,
) -> PyResult<Bound<'py, PyAny>> {
    let what = match output {
        Output::Int => "digest() as an unsigned big-endian int (xxhash's intdigest)".to_string(),
        _ => format!("{}()", output.method()),
    };
    let doc = leaked_c_string(format!(
        "{name}(data, **keywords)\n--\n\nhashlab.new('{python}', data, **keywords).{what}, \
         in one call."
    ));
    crate::fastcall::fast_function(
        py,
        python,
        name,
        crate::fastcall::Kind::OneShot(output),
        doc,
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

/// What `new()` decided for a name and its parameters, shared by the hash
/// objects made from it and their copies.
pub(crate) struct Made {
    choice: Choice,
    /// Inputs at least this long are hashed with the GIL released.
    gil_release_min: usize,
    /// hashlib's own XOFs asked for by hashlib's names (shake_128,
    /// shake_256) without `length=`: as hashlib's, `digest()` needs a length
    /// and `digest_size` is 0.
    length_required: bool,
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
    output_len: usize,
    small_integer: bool,
}

// SAFETY: `attached` is reached only with the GIL held (see
// `one_shot_attached`); the rest is Sync.
unsafe impl Sync for Made {}

/// Spare hashers kept per name: enough for the objects a loop has alive at
/// once, few enough that an OpenSSL context each costs nothing to keep.
const SPARE_MAX: usize = 4;

impl Made {
    fn new(choice: Choice, length_required: bool) -> Made {
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
    fn one_shot_attached(&self, _py: Python<'_>, data: &[u8], out: &mut [u8]) {
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
    fn take_hasher(&self) -> Box<dyn Hasher> {
        let spare = self.spare.lock().ok().and_then(|mut spare| spare.pop());
        spare.unwrap_or_else(|| self.choice.hasher())
    }

    /// Keeps `hasher`, which must be in its initial state, for the next taker.
    fn give_back(&self, hasher: Box<dyn Hasher>) {
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
