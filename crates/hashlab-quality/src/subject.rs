//! The hash under test: one (algorithm, backend) pair of a registry, how wide
//! its output is for each kind of test, and cheap per-thread hashing.

use std::sync::Mutex;

use hashlab::{Algorithm, Config, HashError, HashParams, Hasher, KeyRule, Registry};

/// Avalanche tests count flips for every (input bit, output bit) cell; past
/// 256 output bits the counts grow without finding anything new in a hash
/// whose bits are alike (SHA-512 and BLAKE2b are tested on their first 256 bits).
pub const AVALANCHE_OUTPUT_BITS: usize = 256;
/// Keyset, collision and bit-independence tests read the first 64 output bits
/// as one integer (fewer for a narrower hash): what a hash table uses.
pub const KEYSET_BITS: u32 = 64;

pub(crate) struct Subject<'r> {
    registry: &'r Registry,
    pub algorithm: Algorithm,
    pub backend: String,
    /// Why this backend.
    pub backend_reason: String,
    config: Config,
    /// Hashers are `Send`, not `Sync`: threads share this one through a lock
    /// and each works on its own copy.
    prototype: Mutex<Box<dyn Hasher>>,
    pub output_len: usize,
    /// Key length used by the key-sensitivity tests; `None` when they do not apply.
    pub key_len: Option<usize>,
    /// Why the key-sensitivity tests do not apply, when they do not.
    pub unkeyed_reason: Option<String>,
}

impl<'r> Subject<'r> {
    /// The hash under test: `backend`, or when none is named the backend that
    /// hashes short keys fastest here (every backend computes the same
    /// function, as the conformance tests check, so the choice changes the
    /// time of a run, never its findings).
    pub fn new(
        registry: &'r Registry,
        algorithm: &str,
        backend: Option<&str>,
    ) -> Result<Subject<'r>, HashError> {
        let algorithm = registry.algorithm(algorithm)?.clone();
        let config = algorithm.resolve(&HashParams::default())?;
        let key_len = match algorithm.key {
            KeyRule::None => None,
            KeyRule::Defaulted { default, .. } => Some(default),
            // Optional keys (BLAKE2, BLAKE3): 32 bytes where the rule allows it.
            KeyRule::Optional { min, max } => Some(32.clamp(min, max)),
        };
        let keyed_config = key_len.map(|len| Config {
            key: Some(vec![0x5a; len]),
            ..config.clone()
        });
        let (backend, backend_reason, prototype) = match backend {
            Some(name) => {
                let name = registry.backend(&algorithm.name, name)?.name.clone();
                let prototype = registry.hasher_with_config(&algorithm.name, &name, &config)?;
                (name, "named by the caller".to_string(), prototype)
            }
            None => fastest_backend(registry, &algorithm, &config, keyed_config.as_ref())?,
        };
        let output_len = prototype.output_len();
        let mut subject = Subject {
            registry,
            algorithm,
            backend,
            backend_reason,
            config,
            prototype: Mutex::new(prototype),
            output_len,
            key_len,
            unkeyed_reason: None,
        };
        match &keyed_config {
            None => {
                subject.unkeyed_reason = Some(format!("{} takes no key", subject.algorithm.name))
            }
            // Find out now, not in a worker thread, whether the backend takes keys.
            Some(keyed) => {
                if let Err(error) =
                    registry.hasher_with_config(&subject.algorithm.name, &subject.backend, keyed)
                {
                    subject.key_len = None;
                    subject.unkeyed_reason = Some(error.to_string());
                }
            }
        }
        Ok(subject)
    }

    pub fn output_bits(&self) -> usize {
        self.output_len * 8
    }

    pub fn keyset_bits(&self) -> u32 {
        (self.output_bits() as u32).min(KEYSET_BITS)
    }

    pub fn avalanche_bits(&self) -> usize {
        self.output_bits().min(AVALANCHE_OUTPUT_BITS)
    }

    /// A hasher for one worker thread, at default parameters.
    pub fn worker(&self) -> Worker {
        let prototype = self
            .prototype
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Worker::new(prototype.box_clone())
    }

    /// A hasher under `key`.
    pub fn keyed(&self, key: &[u8]) -> Result<Box<dyn Hasher>, HashError> {
        let config = Config {
            key: Some(key.to_vec()),
            ..self.config.clone()
        };
        self.registry
            .hasher_with_config(&self.algorithm.name, &self.backend, &config)
    }
}

/// Among the available backends that take the key tests' keys (when there
/// are such keys), the one that hashes 8-byte keys fastest, by a short timing.
/// Backends differ most on short inputs (OpenSSL's per-message set-up costs
/// 1-2 µs for a MAC), which are what the tests hash.
fn fastest_backend(
    registry: &Registry,
    algorithm: &Algorithm,
    config: &Config,
    keyed: Option<&Config>,
) -> Result<(String, String, Box<dyn Hasher>), HashError> {
    let mut candidates = Vec::new();
    for backend in registry.backends_of(&algorithm.name)? {
        if !backend.is_available() {
            continue;
        }
        let Ok(hasher) = registry.hasher_with_config(&algorithm.name, &backend.name, config) else {
            continue;
        };
        let takes_keys = keyed.is_none_or(|keyed| {
            registry
                .hasher_with_config(&algorithm.name, &backend.name, keyed)
                .is_ok()
        });
        candidates.push((backend.name.clone(), hasher, takes_keys));
    }
    if candidates.iter().any(|c| c.2) {
        candidates.retain(|c| c.2);
    }
    if candidates.len() <= 1 {
        return match candidates.pop() {
            Some((name, hasher, _)) => Ok((name, "the only backend here".into(), hasher)),
            // Nothing runs: the default-backend lookup says why.
            None => {
                let (backend, _) = registry.default_backend(&algorithm.name)?;
                let hasher = registry.hasher_with_config(&algorithm.name, &backend.name, config)?;
                Ok((backend.name.clone(), "the default backend".into(), hasher))
            }
        };
    }
    let mut timed: Vec<(f64, String, Box<dyn Hasher>)> = candidates
        .into_iter()
        .map(|(name, hasher, _)| {
            let mut worker = Worker::new(hasher);
            let mut key = [0u8; 8];
            let mut time = |count: u64| {
                let start = std::time::Instant::now();
                for i in 0..count {
                    key[..].copy_from_slice(&i.to_le_bytes());
                    std::hint::black_box(worker.hash(&key));
                }
                start.elapsed().as_secs_f64() / count as f64
            };
            time(256);
            let seconds = time(2048);
            (seconds, name, worker.hasher)
        })
        .collect();
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let times: Vec<String> = timed
        .iter()
        .map(|(seconds, name, _)| format!("{name} {:.0} ns", seconds * 1e9))
        .collect();
    let (_, name, hasher) = timed.swap_remove(0);
    let reason = format!(
        "fastest here on 8-byte keys ({}); every backend computes the same function",
        times.join(", ")
    );
    Ok((name, reason, hasher))
}

/// One thread's hasher and output buffer, reused for every key.
pub(crate) struct Worker {
    hasher: Box<dyn Hasher>,
    out: Vec<u8>,
}

impl Worker {
    pub fn new(hasher: Box<dyn Hasher>) -> Worker {
        let out = vec![0u8; hasher.output_len()];
        Worker { hasher, out }
    }

    pub fn hash(&mut self, key: &[u8]) -> &[u8] {
        self.hasher.update(key);
        self.hasher.finalize_into_reset(&mut self.out);
        &self.out
    }

    /// The first 64 output bits as an integer (bit i = bit i%8 of byte i/8);
    /// a narrower output fills only its low bits.
    pub fn hash64(&mut self, key: &[u8]) -> u64 {
        first_u64(self.hash(key))
    }

    /// The first `AVALANCHE_OUTPUT_BITS` bits as four words.
    pub fn hash256(&mut self, key: &[u8]) -> [u64; 4] {
        first_words(self.hash(key))
    }
}

pub(crate) fn first_u64(digest: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = digest.len().min(8);
    bytes[..n].copy_from_slice(&digest[..n]);
    u64::from_le_bytes(bytes)
}

pub(crate) fn first_words(digest: &[u8]) -> [u64; 4] {
    let mut words = [0u64; 4];
    for (i, word) in words.iter_mut().enumerate() {
        let start = i * 8;
        if start < digest.len() {
            *word = first_u64(&digest[start..]);
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_numbered_from_the_first_byte() {
        assert_eq!(
            first_u64(&[1, 0, 0, 0, 0, 0, 0, 0x80, 0xff]),
            0x8000_0000_0000_0001
        );
        assert_eq!(first_u64(&[0x12, 0x34, 0x56, 0x78]), 0x7856_3412);
        let words = first_words(&[0xaa; 20]);
        assert_eq!(words, [u64::MAX / 3 * 2, u64::MAX / 3 * 2, 0xaaaa_aaaa, 0]);
    }

    #[test]
    fn widths_follow_the_output() {
        let registry = Registry::default();
        let crc = Subject::new(&registry, "crc32c", None).unwrap();
        assert_eq!((crc.keyset_bits(), crc.avalanche_bits()), (32, 32));
        assert_eq!(crc.key_len, None);
        let sha512 = Subject::new(&registry, "sha512", None).unwrap();
        assert_eq!((sha512.keyset_bits(), sha512.avalanche_bits()), (64, 256));
        let siphash = Subject::new(&registry, "siphash-2-4", None).unwrap();
        assert_eq!(siphash.key_len, Some(16));
        let blake3 = Subject::new(&registry, "blake3", None).unwrap();
        assert_eq!(blake3.key_len, Some(32));
    }
}
