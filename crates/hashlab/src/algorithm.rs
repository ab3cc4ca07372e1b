use serde::Serialize;

use crate::{Config, HashError, HashParams, Parameter};

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

/// Lengths a byte-string parameter may have, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ByteRange {
    pub min: usize,
    pub max: usize,
}

/// The domain-separation bytes an algorithm takes, and the one it uses when
/// none is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DomainRule {
    pub min: u8,
    pub max: u8,
    pub default: u8,
}

/// The bounds of BLAKE2's tree parameters that differ between BLAKE2b and BLAKE2s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TreeRule {
    pub node_offset_bits: u32,
    pub inner_max: usize,
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

/// What sets the pace when a cached file is hashed on one core: the hash
/// itself, or the copy of its bytes out of the page cache. A hash faster than
/// the page cache (xxHash, CRC, HighwayHash: 10-40 GB/s against 5-10 GB/s
/// per core for read()) gains nothing from one thread reading ahead of it:
/// its files are copied by every core in turns instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileBound {
    Hash,
    Reading,
}

/// How an algorithm's manifest lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineForm {
    /// `DIGEST  NAME`, as coreutils writes it, unless a tagged form is asked for.
    Gnu,
    /// Always `TAG (NAME) = DIGEST`: the GNU form would be misread by the tool
    /// that checks it (xxhsum reads a 16-digit GNU line as XXH64, not XXH3).
    Tagged,
    /// `DIGEST  NAME` with names escaped as b3sum, which checks these lines,
    /// reads them (a carriage return inside a name is written as it is).
    B3sum,
    /// `VALUE SIZE NAME`: the digest as a decimal number and the file's size,
    /// as `cksum` prints its CRC (the name left out for standard input).
    Cksum,
    /// `VALUE BLOCKS NAME` as `sum -r` and `cksum -a bsd` print it: the value
    /// zero-padded to 5 digits, the size in 1 KiB blocks right-aligned in 5
    /// columns.
    BsdSum,
    /// `VALUE BLOCKS NAME` as `sum -s` and `cksum -a sysv` print it: the size
    /// in 512-byte blocks, neither field padded.
    SysvSum,
}

impl LineForm {
    /// The count a `VALUE COUNT NAME` line records for a file of `bytes`
    /// bytes: the blocks the BSD and System V sums print (a part block
    /// counts, as coreutils rounds up), the bytes everywhere else (cksum).
    pub fn recorded_size(self, bytes: u64) -> u64 {
        match self {
            LineForm::BsdSum => bytes.div_ceil(1024),
            LineForm::SysvSum => bytes.div_ceil(512),
            LineForm::Gnu | LineForm::Tagged | LineForm::B3sum | LineForm::Cksum => bytes,
        }
    }

    /// `VALUE COUNT` as the line form prints it, for a file of `bytes` bytes.
    pub fn cksum_fields(self, value: u128, bytes: u64) -> String {
        let count = self.recorded_size(bytes);
        match self {
            LineForm::BsdSum => format!("{value:05} {count:>5}"),
            _ => format!("{value} {count}"),
        }
    }

    /// Lines of `VALUE COUNT NAME`: cksum's and the two sums'.
    pub fn is_cksum_like(self) -> bool {
        matches!(self, LineForm::Cksum | LineForm::BsdSum | LineForm::SysvSum)
    }
}

/// The design an algorithm descends from, which is how charts group the
/// cryptographic hashes so that no panel holds more lines than a reader can tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lineage {
    /// Merkle-Damgard hashes: MD5, SHA-1, SHA-2.
    MerkleDamgard,
    /// Keccak sponges: SHA-3, SHAKE, KangarooTwelve, TurboSHAKE, KMAC.
    Keccak,
    /// BLAKE2 and BLAKE3.
    Blake,
    Other,
}

/// A tag another tool writes for an algorithm (OpenSSL's `SHA2-256`,
/// `BLAKE2b512`), and the output length in bytes it implies, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForeignTag {
    pub tag: String,
    pub length: Option<usize>,
}

/// Everything known about one algorithm that does not depend on the
/// implementation. Every trait that code elsewhere acts on is a field here, so
/// no other crate decides anything from an algorithm's or family's name.
#[derive(Debug, Clone, Serialize)]
pub struct Algorithm {
    /// Canonical name: lower case, as `hashlab list` prints it.
    pub name: String,
    pub aliases: Vec<String>,
    pub family: String,
    pub class: Class,
    pub lineage: Lineage,
    pub output: OutputRule,
    pub key: KeyRule,
    /// Takes a customization string (KMAC, KangarooTwelve).
    pub customizable: bool,
    /// Salt lengths it takes (BLAKE2); `None`: no salt.
    pub salt: Option<ByteRange>,
    /// Personalization lengths it takes (BLAKE2); `None`: none.
    pub personal: Option<ByteRange>,
    /// Width in bits of its seeds (32 for XXH32, 64 for XXH64); `None`: unseeded.
    pub seed: Option<u32>,
    /// The domain-separation bytes it takes (TurboSHAKE); `None`: none.
    pub domain: Option<DomainRule>,
    /// A FIPS 202 sponge (SHA-3, SHAKE): Keccak-f[1600] with `block_size`
    /// as its rate, and this byte as the first of its padding (the domain
    /// bits and the pad's first 1: 0x06 for SHA-3, 0x1F for SHAKE), which
    /// hashlib's objects show as `_suffix` beside `_rate_bits` and
    /// `_capacity_bits`. `None` for any other construction.
    pub fips202_suffix: Option<u8>,
    /// Has a key-derivation mode with a context string (BLAKE3).
    pub derive_key: bool,
    /// Takes BLAKE2's tree parameters; `None`: no tree mode.
    pub tree: Option<TreeRule>,
    /// Internal block (or rate) size in bytes, as hashlib reports `block_size`.
    pub block_size: usize,
    /// Tag for BSD-style lines (`TAG (file) = hex`), as the tools users know write it.
    pub tag: String,
    /// Other tags that name it in manifests other tools write.
    pub foreign_tags: Vec<ForeignTag>,
    /// A prefix another tool writes before the digest of an untagged line,
    /// naming the algorithm (xxhsum 0.8.2 and later: `XXH3_<hex>  name`).
    pub digest_prefix: Option<String>,
    /// A bare GNU line whose digest has this algorithm's length means this
    /// algorithm, as it does for coreutils' md5sum..sha512sum.
    pub bare_gnu_default: bool,
    /// Whether, and in which order, this algorithm is a candidate for an
    /// untagged line that nothing else settles (no `-a`, no tag, no telling
    /// manifest name): `check` tries the candidates of the digest's length on
    /// the manifest's first readable file, lowest rank first, and keeps the
    /// one that matches. `None`: such a line is never read as this algorithm's
    /// (keyed hashes and MACs, and algorithms whose lines are always tagged).
    pub untagged_rank: Option<u8>,
    /// `cksum` prints its value as `VALUE SIZE NAME` (coreutils' `-a crc`,
    /// `-a crc32b`): such a line is tried as this algorithm's, lowest rank
    /// first, as an untagged line is (see `untagged_rank`).
    pub cksum_rank: Option<u8>,
    pub lines: LineForm,
    pub file_bound: FileBound,
    /// Its output is the same on every machine and in every version, so it may
    /// be written to a manifest (a per-process or per-version hash may not).
    pub stable: bool,
    /// Measured by `hashlab bench` when no algorithm is named.
    pub default_bench: bool,
    /// git can name objects with it (`git hash-object`'s object formats).
    pub git_object_format: bool,
    /// The column name hashdeep gives it, when hashdeep computes it.
    pub hashdeep_column: Option<String>,
    /// The digest is an unsigned integer written big-endian (the CRCs,
    /// xxHash's canonical form), so it has a decimal value, which is what
    /// `cksum` prints for its CRCs: see [`Algorithm::integer_value`].
    pub integer_digest: bool,
    /// The checksum SFV files record (CRC-32, as rhash and cfv write them):
    /// `sum --format sfv` writes it and `check` verifies an SFV file's lines with it.
    pub sfv: bool,
    /// A known answer at default parameters: (message, expected hex digest).
    /// Lets a caller check any backend before trusting it (`Registry::self_test`).
    pub self_test: Option<(Vec<u8>, String)>,
    /// Backends in order of preference for the default choice.
    /// The first available one wins: deterministic, no timing at start-up.
    pub preference: Vec<Preference>,
}

impl Algorithm {
    /// An algorithm with the traits of most: no key, no customization, GNU
    /// lines, hash-bound, stable, outside the default bench set. Callers
    /// registering their own set the rest with struct-update syntax.
    pub fn new(name: &str, family: &str, class: Class, output: OutputRule) -> Algorithm {
        Algorithm {
            name: name.to_string(),
            aliases: Vec::new(),
            family: family.to_string(),
            class,
            lineage: Lineage::Other,
            output,
            key: KeyRule::None,
            customizable: false,
            salt: None,
            personal: None,
            seed: None,
            domain: None,
            fips202_suffix: None,
            derive_key: false,
            tree: None,
            block_size: 1,
            tag: name.to_ascii_uppercase(),
            foreign_tags: Vec::new(),
            digest_prefix: None,
            bare_gnu_default: false,
            untagged_rank: None,
            cksum_rank: None,
            lines: LineForm::Gnu,
            file_bound: FileBound::Hash,
            stable: true,
            default_bench: false,
            git_object_format: false,
            hashdeep_column: None,
            integer_digest: false,
            sfv: false,
            self_test: None,
            preference: Vec::new(),
        }
    }

    /// The value of a digest that is a big-endian integer (`integer_digest`)
    /// of at most 128 bits: `cksum`'s decimal CRC. `None` for other digests.
    pub fn integer_value(&self, digest: &[u8]) -> Option<u128> {
        if !self.integer_digest || digest.len() > 16 {
            return None;
        }
        // One load of the bytes, right-aligned: a fold over them, byte by
        // byte in 128-bit arithmetic, was a third of the cost of Python's
        // `xxh3_64_intdigest` beyond the hash itself (65 instructions).
        let mut wide = [0u8; 16];
        wide[16 - digest.len()..].copy_from_slice(digest);
        Some(u128::from_be_bytes(wide))
    }

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
        let salt = self.byte_parameter(Parameter::Salt, self.salt, &params.salt)?;
        let personal = self.byte_parameter(Parameter::Personal, self.personal, &params.personal)?;
        let seed = match (self.seed, params.seed) {
            (_, None) => 0,
            (None, Some(_)) => {
                return Err(HashError::ParameterNotAccepted {
                    algorithm: name(),
                    parameter: Parameter::Seed,
                })
            }
            (Some(bits), Some(seed)) if bits < 64 && seed >> bits != 0 => {
                return Err(HashError::SeedOutOfRange {
                    algorithm: name(),
                    bits,
                })
            }
            (Some(_), Some(seed)) => seed,
        };
        let domain = match (self.domain, params.domain) {
            (None, None) => None,
            (None, Some(_)) => {
                return Err(HashError::ParameterNotAccepted {
                    algorithm: name(),
                    parameter: Parameter::Domain,
                })
            }
            (Some(rule), None) => Some(rule.default),
            (Some(rule), Some(d)) if d < rule.min || d > rule.max => {
                return Err(HashError::DomainOutOfRange {
                    algorithm: name(),
                    got: d,
                    min: rule.min,
                    max: rule.max,
                })
            }
            (Some(_), Some(d)) => Some(d),
        };
        let context = match &params.context {
            None => None,
            Some(_) if !self.derive_key => {
                return Err(HashError::ParameterNotAccepted {
                    algorithm: name(),
                    parameter: Parameter::Context,
                })
            }
            Some(_) if params.key.is_some() => {
                return Err(HashError::KeyAndContext { algorithm: name() })
            }
            Some(c) => Some(c.clone()),
        };
        let tree = match (self.tree, params.tree) {
            (_, None) => None,
            (_, Some(t)) if t == crate::Blake2Tree::default() => None,
            (None, Some(_)) => {
                return Err(HashError::ParameterNotAccepted {
                    algorithm: name(),
                    parameter: Parameter::Tree,
                })
            }
            (Some(rule), Some(t)) => {
                let fail = |what: String| HashError::TreeOutOfRange {
                    algorithm: name(),
                    what,
                };
                if t.depth == 0 {
                    return Err(fail("the depth must be 1 to 255".into()));
                }
                if usize::from(t.inner_size) > rule.inner_max {
                    return Err(fail(format!(
                        "the inner hash length must be 0 to {} bytes",
                        rule.inner_max
                    )));
                }
                if rule.node_offset_bits < 64 && t.node_offset >> rule.node_offset_bits != 0 {
                    return Err(fail(format!(
                        "the node offset must fit in {} bits",
                        rule.node_offset_bits
                    )));
                }
                Some(t)
            }
        };
        // An offset other than 0 is asked of an extendable output only; which
        // backends can start one there, each says (`Backend::supports_seek`).
        let seek = match params.seek {
            None | Some(0) => 0,
            Some(_) if !self.output.is_xof() => {
                return Err(HashError::ParameterNotAccepted {
                    algorithm: name(),
                    parameter: Parameter::Seek,
                })
            }
            Some(offset) => offset,
        };
        Ok(Config {
            key,
            output_len,
            seek,
            customization,
            tree,
            salt,
            personal,
            seed,
            domain,
            context,
            parallel: params.parallel,
        })
    }

    /// A salt or personalization: empty when none is given, else checked
    /// against the lengths the algorithm takes.
    fn byte_parameter(
        &self,
        parameter: Parameter,
        rule: Option<ByteRange>,
        given: &Option<Vec<u8>>,
    ) -> Result<Vec<u8>, HashError> {
        match (rule, given) {
            (_, None) => Ok(Vec::new()),
            (None, Some(_)) => Err(HashError::ParameterNotAccepted {
                algorithm: self.name.clone(),
                parameter,
            }),
            (Some(range), Some(bytes)) if bytes.len() < range.min || bytes.len() > range.max => {
                Err(HashError::ParameterLength {
                    algorithm: self.name.clone(),
                    parameter,
                    got: bytes.len(),
                    min: range.min,
                    max: range.max,
                })
            }
            (Some(_), Some(bytes)) => Ok(bytes.clone()),
        }
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

// Beside `Algorithm::resolve`, whose defaults it compares with: hasher.rs,
// which defines `Config`, then needs nothing of this module.
impl Config {
    /// True when these are `algorithm`'s default parameters (the ones its
    /// known answer is for), whatever the multi-threaded mode.
    pub fn is_default_for(&self, algorithm: &Algorithm) -> bool {
        algorithm.resolve(&HashParams::default()).is_ok_and(|d| {
            d.key == self.key
                && d.output_len == self.output_len
                && d.customization == self.customization
                && d.salt == self.salt
                && d.personal == self.personal
                && d.seed == self.seed
                && d.domain == self.domain
                && d.context == self.context
                && d.tree == self.tree
                && d.seek == self.seek
        })
    }
}
