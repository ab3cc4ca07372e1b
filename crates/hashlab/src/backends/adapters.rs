//! Adapters from the libraries' hashing states to [`Hasher`]: one per way a
//! library finalizes (resets natively, consumes its state, squeezes any
//! length, has a one-shot function).

use crate::Hasher;

/// Adapter for state types with a native "finalize and reset" (RustCrypto's
/// `FixedOutputReset`, blake3's `reset`, ...): no copy of the initial state per message.
// The adapters and key_of are unused only in builds with few backends.
#[allow(dead_code)]
#[derive(Clone)]
pub(crate) struct Native<T> {
    pub state: T,
    pub out_len: usize,
    pub update: fn(&mut T, &[u8]),
    pub finish_reset: fn(&mut T, &mut [u8]),
    pub reset: fn(&mut T),
}

impl<T: Clone + Send + 'static> Hasher for Native<T> {
    fn update(&mut self, data: &[u8]) {
        (self.update)(&mut self.state, data)
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        assert_eq!(out.len(), self.out_len, "output buffer length");
        (self.finish_reset)(&mut self.state, out)
    }
    fn finalize_copy_into(&mut self, out: &mut [u8]) {
        assert_eq!(out.len(), self.out_len, "output buffer length");
        (self.finish_reset)(&mut self.state.clone(), out)
    }
    fn reset(&mut self) {
        (self.reset)(&mut self.state)
    }
    fn output_len(&self) -> usize {
        self.out_len
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

/// A streaming hasher (a [`Native`] or [`Snapshot`]) whose library also has
/// a one-shot function, which is what a hash table calls on a short key and
/// what [`Hasher::hash_message_into`] uses when no input is pending
/// (xxHash's streaming state costs more to set up and reset than a short
/// key costs to hash).
#[allow(dead_code)]
#[derive(Clone)]
pub(crate) struct WithOneShot<H> {
    pub inner: H,
    pub seed: u64,
    pub one_shot: fn(u64, &[u8], &mut [u8]),
    /// True while input is absorbed and not yet finalized.
    pub pending: bool,
}

impl<H: Hasher + Clone + 'static> WithOneShot<H> {
    #[allow(dead_code)]
    pub fn new(inner: H, seed: u64, one_shot: fn(u64, &[u8], &mut [u8])) -> Self {
        WithOneShot {
            inner,
            seed,
            one_shot,
            pending: false,
        }
    }
}

/// [`Hasher::hash_message_into`] for a hasher with a faster one-shot
/// function: that function while nothing is absorbed (`idle`: the digest is
/// the same), else the absorbed prefix goes first, through update and
/// finalize, as the trait's default does.
#[allow(dead_code)] // used by the xxh and fasthash features' backends
pub(crate) fn one_shot_when_idle<H: Hasher>(
    hasher: &mut H,
    idle: bool,
    data: &[u8],
    out: &mut [u8],
    one_shot: impl FnOnce(&H, &[u8], &mut [u8]),
) {
    if idle {
        one_shot(hasher, data, out)
    } else {
        hasher.update(data);
        hasher.finalize_into_reset(out);
    }
}

impl<H: Hasher + Clone + 'static> Hasher for WithOneShot<H> {
    fn update(&mut self, data: &[u8]) {
        self.pending = true;
        self.inner.update(data)
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        self.pending = false;
        self.inner.finalize_into_reset(out)
    }
    fn finalize_copy_into(&mut self, out: &mut [u8]) {
        self.inner.finalize_copy_into(out)
    }
    fn stateless(&self) -> Option<crate::Stateless> {
        (!self.pending).then_some(crate::Stateless {
            function: self.one_shot,
            seed: self.seed,
        })
    }
    fn hash_message_into(&mut self, data: &[u8], out: &mut [u8]) {
        one_shot_when_idle(self, !self.pending, data, out, |h, data, out| {
            assert_eq!(out.len(), h.inner.output_len(), "output buffer length");
            (h.one_shot)(h.seed, data, out)
        })
    }
    fn reset(&mut self) {
        self.pending = false;
        self.inner.reset()
    }
    fn output_len(&self) -> usize {
        self.inner.output_len()
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

/// A [`Native`] or [`Snapshot`] of an extendable-output function whose finish
/// function squeezes whatever length it is given and whose shorter outputs
/// are prefixes of longer ones, so any length can be read from one state
/// ([`Hasher::finalize_extendable_into_reset`]). Not for KMAC, whose finish
/// encodes the length it writes.
#[allow(dead_code)]
#[derive(Clone)]
pub(crate) struct Extendable<H>(pub H);

impl<T: Clone + Send + 'static> Hasher for Extendable<Native<T>> {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data)
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        self.0.finalize_into_reset(out)
    }
    fn finalize_copy_into(&mut self, out: &mut [u8]) {
        self.0.finalize_copy_into(out)
    }
    fn finalize_extendable_into_reset(&mut self, out: &mut [u8]) -> bool {
        (self.0.finish_reset)(&mut self.0.state, out);
        true
    }
    fn reset(&mut self) {
        self.0.reset()
    }
    fn output_len(&self) -> usize {
        self.0.output_len()
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

impl<T: Clone + Send + 'static> Hasher for Extendable<Snapshot<T>> {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data)
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        self.0.finalize_into_reset(out)
    }
    fn finalize_copy_into(&mut self, out: &mut [u8]) {
        self.0.finalize_copy_into(out)
    }
    fn finalize_extendable_into_reset(&mut self, out: &mut [u8]) -> bool {
        let done = std::mem::replace(&mut self.0.state, self.0.initial.clone());
        (self.0.finish)(done, out);
        true
    }
    fn reset(&mut self) {
        self.0.reset()
    }
    fn output_len(&self) -> usize {
        self.0.output_len()
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

/// Adapter for state types whose finalization consumes them or leaves them
/// unusable: a pristine copy of the initial (keyed) state is kept and restored.
#[allow(dead_code)]
#[derive(Clone)]
pub(crate) struct Snapshot<T> {
    pub state: T,
    pub initial: T,
    pub out_len: usize,
    pub update: fn(&mut T, &[u8]),
    pub finish: fn(T, &mut [u8]),
}

impl<T: Clone + Send + 'static> Snapshot<T> {
    #[allow(dead_code)] // unused with every backend feature off
    pub fn new(
        initial: T,
        out_len: usize,
        update: fn(&mut T, &[u8]),
        finish: fn(T, &mut [u8]),
    ) -> Self {
        Snapshot {
            state: initial.clone(),
            initial,
            out_len,
            update,
            finish,
        }
    }
}

impl<T: Clone + Send + 'static> Hasher for Snapshot<T> {
    fn update(&mut self, data: &[u8]) {
        (self.update)(&mut self.state, data)
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        assert_eq!(out.len(), self.out_len, "output buffer length");
        let done = std::mem::replace(&mut self.state, self.initial.clone());
        (self.finish)(done, out)
    }
    fn finalize_copy_into(&mut self, out: &mut [u8]) {
        assert_eq!(out.len(), self.out_len, "output buffer length");
        (self.finish)(self.state.clone(), out)
    }
    fn reset(&mut self) {
        self.state = self.initial.clone();
    }
    fn output_len(&self) -> usize {
        self.out_len
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

/// The key bytes of a config whose algorithm always has one (defaulted keys).
#[allow(dead_code)]
pub(crate) fn key_of(config: &crate::Config) -> &[u8] {
    config.key.as_deref().unwrap_or(&[])
}
