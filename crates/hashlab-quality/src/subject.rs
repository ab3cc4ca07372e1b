//! The hash under test: one (algorithm, backend) pair of a registry, how wide
//! its output is for each kind of test, and cheap per-thread hashing.

use hashlab::{Choice, HashError, HashParams, Hasher, KeyRule, Registry};

/// Avalanche tests count flips for every (input bit, output bit) cell; past
/// 256 output bits the counts grow without finding anything new in a hash
/// whose bits are alike (SHA-512 and BLAKE2b are tested on their first 256 bits).
pub const AVALANCHE_OUTPUT_BITS: usize = 256;
/// Keyset, collision and bit-independence tests read the first 64 output bits
/// as one integer (fewer for a narrower hash): what a hash table uses.
pub const KEYSET_BITS: u32 = 64;

pub(crate) struct Subject {
    /// The resolved (algorithm, backend, default parameters): every worker
    /// and every keyed hasher is built from it, with no name lookup.
    pub choice: Choice,
    pub output_len: usize,
    /// Key length used by the key-sensitivity tests; `None` when they do not apply.
    pub key_len: Option<usize>,
    /// Why the key-sensitivity tests do not apply, when they do not.
    pub unkeyed_reason: Option<String>,
    /// Seed bytes (4 for a 32-bit seed, 8 for a 64-bit one) of the seed
    /// tests; `None` when they do not apply.
    pub seed_len: Option<usize>,
    /// Why the seed tests do not apply, when they do not.
    pub unseeded_reason: Option<String>,
}

/// What the key- and seed-sensitivity tests vary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Secret {
    Key,
    Seed,
}

impl Subject {
    /// The hash under test: `backend`, or when none is named the backend that
    /// hashes short keys fastest here (every backend computes the same
    /// function, as the conformance tests check, so the choice changes the
    /// time of a run, never its findings).
    pub fn new(
        registry: &Registry,
        algorithm: &str,
        backend: Option<&str>,
    ) -> Result<Subject, HashError> {
        let alg = registry.algorithm(algorithm)?;
        let key_len = match alg.key {
            KeyRule::None => None,
            KeyRule::Defaulted { default, .. } => Some(default),
            // Optional keys (BLAKE2, BLAKE3): 32 bytes where the rule allows it.
            KeyRule::Optional { min, max } => Some(32.clamp(min, max)),
        };
        let test_key = key_len.map(|len| HashParams {
            key: Some(vec![0x5a; len]),
            ..HashParams::default()
        });
        let test_seed = alg.seed.map(|_| HashParams {
            seed: Some(1),
            ..HashParams::default()
        });
        let choice = match backend {
            Some(name) => registry.resolve(&alg.name, Some(name), &HashParams::default())?,
            None => fastest_backend(
                registry,
                &alg.name,
                &[test_key.as_ref(), test_seed.as_ref()],
            )?,
        };
        let mut subject = Subject {
            output_len: choice.output_len(),
            choice,
            key_len,
            unkeyed_reason: None,
            seed_len: alg.seed.map(|bits| bits as usize / 8),
            unseeded_reason: None,
        };
        match alg.seed {
            None => subject.unseeded_reason = Some(format!("{} takes no seed", alg.name)),
            Some(_) => {
                let seeded = HashParams {
                    seed: Some(1),
                    ..HashParams::default()
                };
                if let Err(error) = subject.choice.with_params(&seeded) {
                    subject.seed_len = None;
                    subject.unseeded_reason = Some(error.to_string());
                }
            }
        }
        match &test_key {
            None => subject.unkeyed_reason = Some(format!("{} takes no key", alg.name)),
            // Find out now, not in a worker thread, whether the backend takes keys.
            Some(keyed) => {
                if let Err(error) = subject.choice.with_params(keyed) {
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
        Worker::new(self.choice.hasher())
    }

    /// The bytes of a `secret` the tests vary, if this hash has one.
    pub fn secret_len(&self, secret: Secret) -> Option<usize> {
        match secret {
            Secret::Key => self.key_len,
            Secret::Seed => self.seed_len,
        }
    }

    /// A hasher under a key, or under the seed whose little-endian bytes
    /// are `secret`.
    pub fn with_secret(&self, secret: Secret, bytes: &[u8]) -> Result<Box<dyn Hasher>, HashError> {
        match secret {
            Secret::Key => self.keyed(bytes),
            Secret::Seed => {
                let params = HashParams {
                    seed: Some(first_u64(bytes)),
                    ..HashParams::default()
                };
                Ok(self.choice.with_params(&params)?.hasher())
            }
        }
    }

    /// A hasher under `key`.
    pub fn keyed(&self, key: &[u8]) -> Result<Box<dyn Hasher>, HashError> {
        let params = HashParams {
            key: Some(key.to_vec()),
            ..HashParams::default()
        };
        Ok(self.choice.with_params(&params)?.hasher())
    }
}

/// Among the available backends that take the key tests' keys and the seed
/// tests' seeds (when the algorithm has them), the one that hashes 8-byte
/// keys fastest, by a short timing.
/// Backends differ most on short inputs (OpenSSL's per-message set-up costs
/// 1-2 µs for a MAC), which are what the tests hash.
fn fastest_backend(
    registry: &Registry,
    algorithm: &str,
    secrets: &[Option<&HashParams>],
) -> Result<Choice, HashError> {
    let mut candidates = Vec::new();
    for backend in registry.backends_of(algorithm)? {
        if !backend.is_available() {
            continue;
        }
        let Ok(choice) = registry.resolve(algorithm, Some(&backend.name), &HashParams::default())
        else {
            continue;
        };
        let takes_secrets = secrets
            .iter()
            .flatten()
            .all(|params| choice.with_params(params).is_ok());
        candidates.push((choice, takes_secrets));
    }
    if candidates.iter().any(|c| c.1) {
        candidates.retain(|c| c.1);
    }
    if candidates.len() <= 1 {
        return match candidates.pop() {
            Some((choice, _)) => Ok(choice.with_reason("the only backend here")),
            // Nothing runs: resolving the default backend says why.
            None => registry.resolve(algorithm, None, &HashParams::default()),
        };
    }
    let mut timed: Vec<(f64, Choice)> = candidates
        .into_iter()
        .map(|(choice, _)| {
            let mut worker = Worker::new(choice.hasher());
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
            (time(2048), choice)
        })
        .collect();
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let times: Vec<String> = timed
        .iter()
        .map(|(seconds, choice)| format!("{} {:.0} ns", choice.backend_name(), seconds * 1e9))
        .collect();
    let (_, choice) = timed.swap_remove(0);
    Ok(choice.with_reason(&format!(
        "fastest here on 8-byte keys ({}); every backend computes the same function",
        times.join(", ")
    )))
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
