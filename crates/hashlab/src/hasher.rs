use std::fmt;

/// A streaming hash, MAC or checksum computation.
///
/// Every backend implements this one trait, so callers choose algorithms and
/// implementations at run time. `finalize_*` also resets: the hasher is ready
/// for the next message with the same key, length and customization, which is
/// what a benchmark loop and a multi-file `sum` want.
pub trait Hasher: Send {
    /// Absorbs more input.
    fn update(&mut self, data: &[u8]);

    /// Writes the output into `out` (exactly [`Hasher::output_len`] bytes) and
    /// resets to the initial (keyed) state.
    ///
    /// # Panics
    /// If `out.len() != self.output_len()`: that is a programming error.
    fn finalize_into_reset(&mut self, out: &mut [u8]);

    /// Hashes `data` as one whole message into `out` and resets: what
    /// `update` then `finalize_into_reset` give, through a backend's one-shot
    /// function where it has one (a hash table's call on a short key).
    fn hash_message_into(&mut self, data: &[u8], out: &mut [u8]) {
        self.update(data);
        self.finalize_into_reset(out);
    }

    /// Forgets all input, keeping key, output length and customization.
    fn reset(&mut self);

    /// Whether this function's encoding of a message begins with the
    /// message's length (TupleHash's `encode_string`), so a reader that knows
    /// the length should [`announce_length`](Hasher::announce_length) it
    /// before the bytes. Without it such a hasher holds the message in memory
    /// until it ends; a reader of input of unknown length learns the length
    /// first (spooling it) rather than letting memory grow with the input.
    fn needs_length_first(&self) -> bool {
        false
    }

    /// Says that the next `len` bytes given to `update` are one whole input
    /// string. Hashes that do not encode lengths ignore it. For TupleHash
    /// each announcement begins one element of the tuple, streamed as it
    /// arrives; bytes past the announced count begin an element whose length
    /// is learned when it ends, so a caller must give exactly `len` bytes.
    fn announce_length(&mut self, len: u64) {
        let _ = len;
    }

    /// Output length in bytes.
    fn output_len(&self) -> usize;

    /// An independent copy in the same state (hashlib's `copy()`).
    fn box_clone(&self) -> Box<dyn Hasher>;

    /// For an extendable-output function whose every output is a prefix of a
    /// longer one (SHAKE, BLAKE3, KangarooTwelve, TurboSHAKE): writes
    /// `out.len()` bytes, whatever the configured length, and resets, as
    /// hashlib's `shake_128().digest(length)` reads any length from one
    /// state. Returns false and leaves the state as it was where the output
    /// length is fixed or is an input of the function (KMAC encodes it), so
    /// no other length can be read from this state.
    fn finalize_extendable_into_reset(&mut self, out: &mut [u8]) -> bool {
        let _ = out;
        false
    }

    /// A function that hashes one whole message with this hasher's
    /// parameters and keeps no state (xxHash's seeded one-shot functions),
    /// for a caller hashing a message per call without a hasher of its own;
    /// `None` where the hasher's state is needed. Asked of a hasher that has
    /// absorbed nothing.
    fn stateless(&self) -> Option<Stateless> {
        None
    }

    /// Writes the digest of everything absorbed so far into `out` (exactly
    /// [`Hasher::output_len`] bytes) and leaves the state as it was, so more
    /// input may follow: hashlib's `digest()`. The default finalizes a boxed
    /// copy; adapters whose state is a plain value finalize one on the stack.
    fn finalize_copy_into(&mut self, out: &mut [u8]) {
        self.box_clone().finalize_into_reset(out)
    }

    /// Finalizes into a new [`Digest`] and resets.
    fn finalize_reset(&mut self) -> Digest {
        let mut out = vec![0u8; self.output_len()];
        self.finalize_into_reset(&mut out);
        Digest(out)
    }
}

impl Clone for Box<dyn Hasher> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

/// See [`Hasher::stateless`]: `function(seed, message, out)` writes the
/// digest, `out` being the hasher's output length.
#[derive(Clone, Copy, Debug)]
pub struct Stateless {
    pub function: fn(u64, &[u8], &mut [u8]),
    pub seed: u64,
}

impl Stateless {
    pub fn hash_into(&self, message: &[u8], out: &mut [u8]) {
        (self.function)(self.seed, message, out)
    }
}

/// A finished hash value, as bytes in the order the algorithm's tools print them.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Digest(pub Vec<u8>);

impl Digest {
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
    pub fn to_hex(&self) -> String {
        crate::hex::encode(&self.0)
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.to_hex())
    }
}

/// What a caller asks for. `None` means "the algorithm's default".
#[derive(Clone, Default, PartialEq, Eq)]
pub struct HashParams {
    pub key: Option<Vec<u8>>,
    /// Output length in bytes.
    pub length: Option<usize>,
    /// Customization string (KMAC's S, KangarooTwelve's C).
    pub customization: Option<Vec<u8>>,
    /// BLAKE2's salt.
    pub salt: Option<Vec<u8>>,
    /// BLAKE2's personalization.
    pub personal: Option<Vec<u8>>,
    /// The seed of a seeded hash (xxHash).
    pub seed: Option<u64>,
    /// TurboSHAKE's domain-separation byte.
    pub domain: Option<u8>,
    /// BLAKE3's key-derivation context: the mode `b3sum --derive-key` runs.
    pub context: Option<String>,
    /// BLAKE2's tree parameters (a node of a tree hash, as hashlib's
    /// `blake2b(fanout=..., ...)`); `None`: the sequential mode.
    pub tree: Option<Blake2Tree>,
    /// Where an extendable output starts, in bytes (`b3sum --seek`).
    pub seek: Option<u64>,
    /// Let a backend with a multi-threaded mode use it (blake3, XKCP K12).
    pub parallel: bool,
}

impl fmt::Debug for HashParams {
    // Keys are secrets: never print them, even in debug output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashParams")
            .field(
                "key",
                &self.key.as_ref().map(|k| format!("<{} bytes>", k.len())),
            )
            .field("length", &self.length)
            .field("customization", &self.customization)
            .field("salt", &self.salt)
            .field("personal", &self.personal)
            .field("seed", &self.seed)
            .field("domain", &self.domain)
            .field("context", &self.context)
            .field("tree", &self.tree)
            .field("seek", &self.seek)
            .field("parallel", &self.parallel)
            .finish()
    }
}

/// BLAKE2's tree parameters (RFC 7693 section 2.8's parameter block).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Blake2Tree {
    /// Children per node; 0: unlimited.
    pub fanout: u8,
    /// Maximal depth; 255: unlimited. At least 1.
    pub depth: u8,
    /// Maximal bytes of a leaf; 0: unlimited.
    pub leaf_size: u32,
    /// This node's offset in its level.
    pub node_offset: u64,
    /// This node's depth; 0 for leaves.
    pub node_depth: u8,
    /// Inner hash length in bytes; 0 for the sequential mode.
    pub inner_size: u8,
    pub last_node: bool,
}

impl Default for Blake2Tree {
    /// The sequential mode: what BLAKE2 is without a tree.
    fn default() -> Self {
        Blake2Tree {
            fanout: 1,
            depth: 1,
            leaf_size: 0,
            node_offset: 0,
            node_depth: 0,
            inner_size: 0,
            last_node: false,
        }
    }
}

/// Parameters after validation against the algorithm's rules, defaults filled
/// in: this is what a backend's constructor receives.
#[derive(Clone)]
pub struct Config {
    /// `Some` for keyed use; algorithms whose key defaults to zeros get that key here.
    pub key: Option<Vec<u8>>,
    pub output_len: usize,
    /// Empty when none was given.
    pub customization: Vec<u8>,
    /// Empty when none was given (BLAKE2 pads both with zeros).
    pub salt: Vec<u8>,
    pub personal: Vec<u8>,
    /// 0 when none was given, as xxHash's unseeded functions are seed 0.
    pub seed: u64,
    /// The algorithm's default where it has a domain byte; `None` otherwise.
    pub domain: Option<u8>,
    /// A key-derivation context: BLAKE3 in its derive-key mode.
    pub context: Option<String>,
    /// `None` for the sequential mode (a tree equal to it is `None` too).
    pub tree: Option<Blake2Tree>,
    /// The offset of an extendable output's first byte; 0 when none was given.
    pub seek: u64,
    pub parallel: bool,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field(
                "key",
                &self.key.as_ref().map(|k| format!("<{} bytes>", k.len())),
            )
            .field("output_len", &self.output_len)
            .field("customization_len", &self.customization.len())
            .field("salt", &self.salt)
            .field("personal", &self.personal)
            .field("seed", &self.seed)
            .field("domain", &self.domain)
            .field("context", &self.context)
            .field("tree", &self.tree)
            .field("seek", &self.seek)
            .field("parallel", &self.parallel)
            .finish()
    }
}
