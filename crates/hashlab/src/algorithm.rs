use serde::Serialize;

use crate::{Config, HashError, HashParams};

/// What an algorithm is for; decides where it may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Collision- and preimage-resistant hash.
    Cryptographic,
    /// Message authentication code: needs a secret key to mean anything.
    Mac,
    /// Keyed hash for hash tables (SipHash, HighwayHash): a PRF for short inputs, not a MAC standard.
    Keyed,
    /// Fast hash with no security claim.
    NonCryptographic,
    /// Error-detecting code.
    Checksum,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Cryptographic => "cryptographic",
            Class::Mac => "MAC",
            Class::Keyed => "keyed",
            Class::NonCryptographic => "non-cryptographic",
            Class::Checksum => "checksum",
        }
    }
}

/// Output length rule, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum OutputRule {
    Fixed {
        bytes: usize,
    },
    /// The length is a parameter of the function (BLAKE2): a shorter output is a different hash, not a prefix.
    Variable {
        default: usize,
        min: usize,
        max: usize,
    },
    /// Extendable output; `max` is this library's cap, not the function's.
    Xof {
        default: usize,
        max: usize,
    },
}

/// The most output an XOF hands out here: enough for every published vector and
/// any key-derivation use, small enough that a typo cannot allocate gigabytes.
pub const XOF_MAX_OUTPUT: usize = 1 << 20;

impl OutputRule {
    pub fn default_len(&self) -> usize {
        match *self {
            OutputRule::Fixed { bytes } => bytes,
            OutputRule::Variable { default, .. } | OutputRule::Xof { default, .. } => default,
        }
    }
    pub fn range(&self) -> (usize, usize) {
        match *self {
            OutputRule::Fixed { bytes } => (bytes, bytes),
            OutputRule::Variable { min, max, .. } => (min, max),
            OutputRule::Xof { max, .. } => (1, max),
        }
    }
    pub fn is_xof(&self) -> bool {
        matches!(self, OutputRule::Xof { .. })
    }
}

/// How an algorithm takes a key, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum KeyRule {
    None,
    /// Unkeyed unless a key is given (BLAKE2, BLAKE3).
    Optional {
        min: usize,
        max: usize,
    },
    /// Always keyed; an all-zero key of `default` bytes when none is given
    /// (SipHash, HighwayHash, HMAC, KMAC), so an unkeyed run is still well defined.
    Defaulted {
        min: usize,
        max: usize,
        default: usize,
    },
}

impl KeyRule {
    fn describe(&self) -> String {
        let (min, max) = match *self {
            KeyRule::None => return "absent".into(),
            KeyRule::Optional { min, max } | KeyRule::Defaulted { min, max, .. } => (min, max),
        };
        if min == max {
            format!("exactly {min} bytes")
        } else if max == usize::MAX {
            format!("at least {min} bytes")
        } else {
            format!("{min}..={max} bytes")
        }
    }
}

/// One entry of an algorithm's default-backend preference list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preference {
    pub backend: String,
    /// Preferred only on a CPU with this feature (a `cpu::has` name, e.g. "sha"
    /// for SHA-NI); `None`: whatever the CPU.
    pub requires: Option<String>,
    pub reason: String,
}

impl Preference {
    /// An unconditional preference.
    pub fn new(backend: &str, reason: &str) -> Preference {
        Preference {
            backend: backend.to_string(),
            requires: None,
            reason: reason.to_string(),
        }
    }
}

/// Everything known about one algorithm that does not depend on the implementation.
#[derive(Debug, Clone, Serialize)]
pub struct Algorithm {
    /// Canonical name: lower case, as `hashlab list` prints it.
    pub name: String,
    pub aliases: Vec<String>,
    pub family: String,
    pub class: Class,
    pub output: OutputRule,
    pub key: KeyRule,
    /// Takes a customization string (KMAC, KangarooTwelve).
    pub customizable: bool,
    /// Internal block (or rate) size in bytes, as hashlib reports `block_size`.
    pub block_size: usize,
    /// Tag for BSD-style lines (`TAG (file) = hex`), as the tools users know write it.
    pub tag: String,
    /// A known answer at default parameters: (message, expected hex digest).
    /// Lets a caller check any backend before trusting it (`Registry::self_test`).
    pub self_test: Option<(Vec<u8>, String)>,
    /// Backends in order of preference for the default choice.
    /// The first available one wins: deterministic, no timing at start-up.
    pub preference: Vec<Preference>,
}

impl Algorithm {
    pub fn output_bits(&self) -> usize {
        self.output.default_len() * 8
    }

    /// The BSD tag for an output of `len` bytes: the plain tag at the default
    /// length, `TAG-BITS` otherwise (b2sum's `BLAKE2b-256` convention).
    pub fn tag_for_length(&self, len: usize) -> String {
        if len == self.output.default_len() {
            self.tag.clone()
        } else {
            format!("{}-{}", self.tag, len * 8)
        }
    }

    /// Checks `params` against this algorithm's rules and fills in defaults.
    pub fn resolve(&self, params: &HashParams) -> Result<Config, HashError> {
        let name = || self.name.clone();
        let key = match (self.key, &params.key) {
            (KeyRule::None, None) => None,
            (KeyRule::None, Some(_)) => {
                return Err(HashError::KeyNotAccepted { algorithm: name() })
            }
            (KeyRule::Optional { .. }, None) => None,
            (KeyRule::Defaulted { default, .. }, None) => Some(vec![0u8; default]),
            (KeyRule::Optional { min, max } | KeyRule::Defaulted { min, max, .. }, Some(key)) => {
                if key.len() < min || key.len() > max {
                    return Err(HashError::BadKeyLength {
                        algorithm: name(),
                        got: key.len(),
                        expected: self.key.describe(),
                    });
                }
                Some(key.clone())
            }
        };
        let output_len = match (self.output, params.length) {
            (rule, None) => rule.default_len(),
            (OutputRule::Fixed { bytes }, Some(len)) if len == bytes => bytes,
            (OutputRule::Fixed { bytes }, Some(_)) => {
                return Err(HashError::LengthNotAccepted {
                    algorithm: name(),
                    fixed: bytes,
                })
            }
            (rule, Some(len)) => {
                let (min, max) = rule.range();
                if len < min || len > max {
                    return Err(HashError::LengthOutOfRange {
                        algorithm: name(),
                        got: len,
                        min,
                        max,
                    });
                }
                len
            }
        };
        let customization = match &params.customization {
            None => Vec::new(),
            Some(c) if self.customizable => c.clone(),
            Some(c) if c.is_empty() => Vec::new(),
            Some(_) => return Err(HashError::CustomizationNotAccepted { algorithm: name() }),
        };
        Ok(Config {
            key,
            output_len,
            customization,
            parallel: params.parallel,
        })
    }

    /// True when `query` names this algorithm (canonical name or alias, any case,
    /// ignoring `-`, `_`, `/` and spaces).
    pub fn is_named(&self, query: &str) -> bool {
        let q = squash(query);
        std::iter::once(&self.name)
            .chain(self.aliases.iter())
            .any(|n| squash(n) == q)
    }
}

/// Name form used for matching: lower case without separators, so `SHA3_256`,
/// `sha3-256` and `Sha3/256` meet.
pub(crate) fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '/' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Edit distance, for "did you mean" suggestions.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
