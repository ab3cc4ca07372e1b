//! The checks every built-in backend passes, for a backend of your own (as
//! RustCrypto's `digest::dev` does for its crates). Enable the `conformance`
//! feature, register your backend, and run:
//!
//! ```
//! # #[cfg(feature = "conformance")] {
//! use hashlab::{conformance, Registry};
//!
//! let registry = Registry::default(); // plus your register_backend(...)
//! let text = "@source RFC 6234\n@oracle sha256 hashlib\n\nalg = sha256\nmsg = 616263\n\
//!             digest = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n";
//! let vectors = conformance::parse_vectors(text, &registry).unwrap();
//! let report = conformance::check_backend(&registry, "sha256", "rustcrypto", &[vectors]);
//! assert!(report.passed(), "{}", report.failures.join("\n"));
//! # }
//! ```
//!
//! Three checks, each returning what failed as one-line messages:
//! - [`check_vectors`]: known answers (the `.vec` format of the repository's
//!   `crates/hashlab/tests/vectors/README.md`) on every available backend
//!   that takes the record's parameters;
//! - [`check_agreement`]: every available backend of an algorithm gives the
//!   same answer as every other, on messages of awkward lengths and every kind
//!   of parameter the algorithm takes;
//! - [`check_streaming`]: one backend against itself: chunked input, finalize
//!   resets, `reset` forgets, and a clone taken mid-stream finishes alone.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::{hex, Algorithm, HashError, HashParams, KeyRule, OutputRule, Registry};

/// A vector's message, as the `.vec` format describes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Hex(Vec<u8>),
    /// Those bytes repeated this many times.
    Repeat(Vec<u8>, usize),
    /// Byte i = i mod 251 (BLAKE3's and RFC 9861's input pattern).
    Pattern(usize),
    /// [`splitmix64`] of (seed, length).
    Prng(u64, usize),
}

impl Message {
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Message::Hex(b) => b.clone(),
            Message::Repeat(b, n) => b.repeat(*n),
            Message::Pattern(n) => (0..*n).map(|i| (i % 251) as u8).collect(),
            Message::Prng(seed, n) => splitmix64(*seed, *n),
        }
    }
}

/// The vector files' pseudo-random bytes (the generator script has the same
/// function): splitmix64's outputs, little-endian, truncated to `len`.
pub fn splitmix64(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// One known answer.
#[derive(Debug, Clone)]
pub struct Record {
    /// Line of the record's first field, for messages.
    pub line: usize,
    /// Canonical algorithm name.
    pub algorithm: String,
    pub message: Message,
    pub key: Option<Vec<u8>>,
    pub customization: Option<Vec<u8>>,
    pub length: Option<usize>,
    /// BLAKE2's salt and personalization.
    pub salt: Option<Vec<u8>>,
    pub personal: Option<Vec<u8>>,
    pub seed: Option<u64>,
    /// TurboSHAKE's domain byte.
    pub domain: Option<u8>,
    /// BLAKE3's key-derivation context (text).
    pub context: Option<String>,
    /// Expected bytes; only the tail of the output when `tail_only`.
    pub expected: Vec<u8>,
    pub tail_only: bool,
}

impl Record {
    pub fn params(&self) -> HashParams {
        HashParams {
            key: self.key.clone(),
            length: self.length,
            customization: self.customization.clone(),
            salt: self.salt.clone(),
            personal: self.personal.clone(),
            seed: self.seed,
            domain: self.domain,
            context: self.context.clone(),
            tree: None,
            seek: None,
            parallel: false,
        }
    }
}

/// A parsed `.vec` file.
#[derive(Debug, Clone)]
pub struct VectorFile {
    pub sources: Vec<String>,
    /// Per algorithm, the independent implementation that produced or checked its digests.
    pub oracles: BTreeMap<String, String>,
    pub records: Vec<Record>,
}

/// Parses a `.vec` file strictly: any field, directive or value it does not
/// understand is an error naming the line, so a damaged file cannot pass by
/// running fewer vectors.
pub fn parse_vectors(text: &str, registry: &Registry) -> Result<VectorFile, String> {
    let mut sources = Vec::new();
    let mut oracles = BTreeMap::new();
    let mut records = Vec::new();
    let mut block: Vec<(usize, String, String)> = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let n = i + 1;
        if raw.ends_with('\r') {
            return Err(format!("line {n}: CR line end"));
        }
        let line = raw.trim_end();
        if line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('@') {
            if !block.is_empty() || !records.is_empty() {
                return Err(format!("line {n}: directive after the first record"));
            }
            let (word, value) = rest
                .split_once(' ')
                .ok_or(format!("line {n}: directive without a value"))?;
            match word {
                "source" => sources.push(value.trim().to_string()),
                "oracle" => {
                    let (alg, what) = value.trim().split_once(' ').ok_or(format!(
                        "line {n}: @oracle needs an algorithm and a description"
                    ))?;
                    let canonical = registry
                        .algorithm(alg)
                        .map_err(|e| format!("line {n}: {e}"))?
                        .name
                        .clone();
                    if canonical != alg {
                        return Err(format!(
                            "line {n}: @oracle must use the canonical name {canonical}"
                        ));
                    }
                    oracles.insert(canonical, what.trim().to_string());
                }
                other => return Err(format!("line {n}: unknown directive @{other}")),
            }
            continue;
        }
        if line.is_empty() {
            if !block.is_empty() {
                records.push(record(&std::mem::take(&mut block), registry, &oracles)?);
            }
            continue;
        }
        let (field, value) = line
            .split_once('=')
            .ok_or(format!("line {n}: expected 'field = value'"))?;
        block.push((n, field.trim().to_string(), value.trim().to_string()));
    }
    if !block.is_empty() {
        records.push(record(&block, registry, &oracles)?);
    }
    if sources.is_empty() {
        return Err("no @source line".into());
    }
    if records.is_empty() {
        return Err("no records".into());
    }
    Ok(VectorFile {
        sources,
        oracles,
        records,
    })
}

const FIELDS: [&str; 15] = [
    "alg",
    "msg",
    "msg_repeat",
    "msg_ptn",
    "msg_prng",
    "key",
    "custom",
    "len",
    "salt",
    "personal",
    "seed",
    "domain",
    "context",
    "digest",
    "digest_tail",
];

fn record(
    block: &[(usize, String, String)],
    registry: &Registry,
    oracles: &BTreeMap<String, String>,
) -> Result<Record, String> {
    let line = block[0].0;
    let mut fields: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (n, field, value) in block {
        if !FIELDS.contains(&field.as_str()) {
            return Err(format!("line {n}: unknown field '{field}'"));
        }
        if fields
            .insert(field.as_str(), (*n, value.as_str()))
            .is_some()
        {
            return Err(format!("line {n}: field '{field}' given twice"));
        }
    }
    let hex_field = |name: &str| -> Result<Option<Vec<u8>>, String> {
        fields
            .get(name)
            .map(|(n, v)| hex::decode(v).map_err(|e| format!("line {n}: {name}: {e}")))
            .transpose()
    };
    let int = |n: usize, v: &str, what: &str| -> Result<u64, String> {
        v.parse::<u64>()
            .map_err(|_| format!("line {n}: {what}: '{v}' is not a number"))
    };
    let (_, alg) = fields
        .get("alg")
        .ok_or(format!("line {line}: record without alg"))?;
    let algorithm = registry
        .algorithm(alg)
        .map_err(|e| format!("line {line}: {e}"))?;
    if algorithm.name != *alg {
        return Err(format!(
            "line {line}: use the canonical name {}",
            algorithm.name
        ));
    }
    if !oracles.contains_key(*alg) {
        return Err(format!("line {line}: no @oracle line for {alg}"));
    }
    let messages: Vec<_> = ["msg", "msg_repeat", "msg_ptn", "msg_prng"]
        .iter()
        .filter(|f| fields.contains_key(*f))
        .collect();
    if messages.len() != 1 {
        return Err(format!(
            "line {line}: a record needs exactly one message field"
        ));
    }
    let (n, v) = fields[*messages[0]];
    let two = |v: &str| -> Result<(String, String), String> {
        let mut parts = v.split_whitespace();
        match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), None) => Ok((a.into(), b.into())),
            _ => Err(format!("line {n}: expected two values")),
        }
    };
    let message = match *messages[0] {
        "msg" => Message::Hex(hex_field("msg")?.unwrap_or_default()),
        "msg_repeat" => {
            let (h, count) = two(v)?;
            let bytes = hex::decode(&h).map_err(|e| format!("line {n}: {e}"))?;
            if bytes.is_empty() {
                return Err(format!("line {n}: msg_repeat of nothing"));
            }
            Message::Repeat(bytes, int(n, &count, "count")? as usize)
        }
        "msg_ptn" => Message::Pattern(int(n, v, "msg_ptn")? as usize),
        _ => {
            let (seed, len) = two(v)?;
            Message::Prng(int(n, &seed, "seed")?, int(n, &len, "length")? as usize)
        }
    };
    let length = fields
        .get("len")
        .map(|(n, v)| int(*n, v, "len").map(|l| l as usize))
        .transpose()?;
    let (expected, tail_only) = match (hex_field("digest")?, hex_field("digest_tail")?) {
        (Some(d), None) => (d, false),
        (None, Some(t)) => (t, true),
        _ => {
            return Err(format!(
                "line {line}: a record needs exactly one of digest, digest_tail"
            ))
        }
    };
    let out_len = length.unwrap_or(algorithm.output.default_len());
    if tail_only && (length.is_none() || expected.len() > out_len) {
        return Err(format!(
            "line {line}: digest_tail needs a len at least as long"
        ));
    }
    if !tail_only && expected.len() != out_len {
        return Err(format!(
            "line {line}: digest has {} bytes, expected {out_len}",
            expected.len()
        ));
    }
    Ok(Record {
        line,
        algorithm: alg.to_string(),
        message,
        key: hex_field("key")?,
        customization: hex_field("custom")?,
        length,
        salt: hex_field("salt")?,
        personal: hex_field("personal")?,
        seed: fields
            .get("seed")
            .map(|(n, v)| int(*n, v, "seed"))
            .transpose()?,
        domain: fields
            .get("domain")
            .map(|(n, v)| {
                let byte = v.strip_prefix("0x").unwrap_or(v);
                u8::from_str_radix(byte, 16)
                    .map_err(|_| format!("line {n}: domain: '{v}' is not a byte (0xNN)"))
            })
            .transpose()?,
        context: fields
            .get("context")
            .map(|(n, v)| {
                let bytes = hex::decode(v).map_err(|e| format!("line {n}: context: {e}"))?;
                String::from_utf8(bytes).map_err(|_| format!("line {n}: context: not UTF-8"))
            })
            .transpose()?,
        expected,
        tail_only,
    })
}

/// What a check ran and what failed.
#[derive(Debug, Default, Clone)]
pub struct Report {
    /// Checks that ran, per (algorithm, backend).
    pub ran: BTreeMap<(String, String), usize>,
    /// One line per failure.
    pub failures: Vec<String>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// Checks run on one (algorithm, backend).
    pub fn ran_on(&self, algorithm: &str, backend: &str) -> usize {
        self.ran
            .get(&(algorithm.to_string(), backend.to_string()))
            .copied()
            .unwrap_or(0)
    }

    /// Checks run on any backend of one algorithm.
    pub fn ran_for(&self, algorithm: &str) -> usize {
        self.ran
            .iter()
            .filter(|((a, _), _)| a == algorithm)
            .map(|(_, n)| n)
            .sum()
    }

    fn count(&mut self, algorithm: &str, backend: &str) {
        *self
            .ran
            .entry((algorithm.to_string(), backend.to_string()))
            .or_default() += 1;
    }

    fn merge(&mut self, other: Report) {
        for (k, n) in other.ran {
            *self.ran.entry(k).or_default() += n;
        }
        self.failures.extend(other.failures);
    }
}

/// Runs every record of `files` on every available backend of its algorithm
/// that takes its parameters (only on `backend` when given). A record no
/// backend could run is a failure: a vector that checks nothing is a bug.
pub fn check_vectors(registry: &Registry, files: &[VectorFile], backend: Option<&str>) -> Report {
    let mut report = Report::default();
    for file in files {
        for record in &file.records {
            let message = record.message.bytes();
            let params = record.params();
            let algorithm = match registry.algorithm(&record.algorithm) {
                Ok(a) => a,
                Err(e) => {
                    report.failures.push(format!("line {}: {e}", record.line));
                    continue;
                }
            };
            let mut ran = 0;
            for candidate in available(registry, algorithm) {
                if backend.is_some_and(|b| b != candidate) {
                    continue;
                }
                let choice = match registry.resolve(&algorithm.name, Some(&candidate), &params) {
                    Ok(choice) => choice,
                    Err(HashError::NotSupportedByBackend { .. }) => continue,
                    Err(e) => {
                        report.failures.push(format!(
                            "line {}: {} on {candidate}: {e}",
                            record.line, algorithm.name
                        ));
                        continue;
                    }
                };
                let mut hasher = choice.hasher();
                hasher.update(&message);
                let out = hasher.finalize_reset();
                let got = if record.tail_only {
                    &out.as_bytes()[out.as_bytes().len() - record.expected.len()..]
                } else {
                    out.as_bytes()
                };
                if got != record.expected.as_slice() {
                    report.failures.push(format!(
                        "line {}: {} on {candidate}: got {}, expected {}",
                        record.line,
                        algorithm.name,
                        hex::encode(got),
                        hex::encode(&record.expected)
                    ));
                }
                ran += 1;
                report.count(&algorithm.name, &candidate);
            }
            if ran == 0 {
                report.failures.push(format!(
                    "line {}: no available backend of {} takes this record's parameters",
                    record.line, algorithm.name
                ));
            }
        }
    }
    report
}

fn available(registry: &Registry, algorithm: &Algorithm) -> Vec<String> {
    registry
        .backends_of(&algorithm.name)
        .unwrap_or_default()
        .into_iter()
        .filter(|b| b.is_available())
        .map(|b| b.name.clone())
        .collect()
}

/// Parameter sets worth trying for an algorithm: the defaults, and each
/// option it takes at its extremes and between.
pub fn parameter_sets(algorithm: &Algorithm, seed: u64) -> Vec<HashParams> {
    let mut sets = vec![HashParams::default()];
    let bytes = |n: usize, salt: u64| splitmix64(seed ^ salt, n);
    match algorithm.key {
        KeyRule::None => {}
        KeyRule::Optional { min, max } | KeyRule::Defaulted { min, max, .. } => {
            let (short, long) = (min.max(4).min(max), max.min(64));
            for (i, len) in [short, long, (short + long) / 2].into_iter().enumerate() {
                sets.push(HashParams {
                    key: Some(bytes(len, i as u64 + 1)),
                    ..Default::default()
                });
            }
        }
    }
    match algorithm.output {
        OutputRule::Fixed { .. } => {}
        OutputRule::Variable { min, max, .. } => {
            for len in [min, max / 2 + 1, max] {
                sets.push(HashParams {
                    length: Some(len),
                    ..Default::default()
                });
            }
        }
        OutputRule::Xof { .. } => {
            for len in [1, 17, 200, 1000] {
                sets.push(HashParams {
                    length: Some(len),
                    ..Default::default()
                });
            }
        }
    }
    if algorithm.customizable {
        sets.push(HashParams {
            customization: Some(b"hashlab customization".to_vec()),
            ..Default::default()
        });
    }
    if let (Some(salt), Some(personal)) = (algorithm.salt, algorithm.personal) {
        sets.push(HashParams {
            salt: Some(bytes(salt.max, 11)),
            personal: Some(bytes(personal.max.min(5), 12)),
            key: matches!(algorithm.key, KeyRule::Optional { min, max } if min <= 8 && 8 <= max)
                .then(|| bytes(8, 13)),
            ..Default::default()
        });
    }
    if let Some(bits) = algorithm.seed {
        for seed in [1u64, 0x9E37_79B9, u64::MAX] {
            let seed = if bits < 64 {
                seed & ((1 << bits) - 1)
            } else {
                seed
            };
            sets.push(HashParams {
                seed: Some(seed),
                ..Default::default()
            });
        }
    }
    if let Some(rule) = algorithm.domain {
        for domain in [rule.min, 0x06, rule.max] {
            sets.push(HashParams {
                domain: Some(domain),
                length: Some(64),
                ..Default::default()
            });
        }
    }
    if let Some(rule) = algorithm.tree {
        sets.push(HashParams {
            tree: Some(crate::Blake2Tree {
                fanout: 4,
                depth: 2,
                leaf_size: 4096,
                node_offset: 3,
                node_depth: 0,
                inner_size: u8::try_from(rule.inner_max).unwrap_or(u8::MAX),
                last_node: true,
            }),
            ..Default::default()
        });
    }
    if algorithm.derive_key {
        sets.push(HashParams {
            context: Some("hashlab 2026-11-24 conformance context".into()),
            ..Default::default()
        });
    }
    sets
}

/// Lengths around block, lane and buffer edges.
const AWKWARD_LENGTHS: [usize; 13] = [0, 1, 3, 63, 64, 65, 127, 128, 129, 1000, 1024, 4097, 70_000];

/// Every available backend of `algorithm` against every other, for every
/// parameter set of [`parameter_sets`] they take, on [`AWKWARD_LENGTHS`].
pub fn check_agreement(registry: &Registry, algorithm: &str) -> Report {
    let mut report = Report::default();
    let alg = match registry.algorithm(algorithm) {
        Ok(a) => Arc::clone(a),
        Err(e) => {
            report.failures.push(e.to_string());
            return report;
        }
    };
    let backends = available(registry, &alg);
    if backends.is_empty() {
        report
            .failures
            .push(format!("{}: no backend available", alg.name));
        return report;
    }
    for (p, params) in parameter_sets(&alg, 7).into_iter().enumerate() {
        let choices: Vec<_> = backends
            .iter()
            .filter_map(|b| match registry.resolve(&alg.name, Some(b), &params) {
                Ok(c) => Some(Ok(c)),
                Err(HashError::NotSupportedByBackend { .. }) => None,
                Err(e) => Some(Err(format!("{} on {b}: {e}", alg.name))),
            })
            .collect();
        for (i, &len) in AWKWARD_LENGTHS.iter().enumerate() {
            let message = splitmix64((p * 100 + i) as u64, len);
            let mut first: Option<(String, String)> = None;
            for choice in &choices {
                let choice = match choice {
                    Ok(c) => c,
                    Err(e) => {
                        if i == 0 {
                            report.failures.push(e.clone());
                        }
                        continue;
                    }
                };
                let mut h = choice.hasher();
                h.update(&message);
                let answer = h.finalize_reset().to_hex();
                report.count(&alg.name, choice.backend_name());
                match &first {
                    None => first = Some((choice.backend_name().to_string(), answer)),
                    Some((who, expected)) if *expected != answer => {
                        report.failures.push(format!(
                            "{} {params:?} length {len}: {who} and {} disagree",
                            alg.name,
                            choice.backend_name()
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    report
}

/// One backend against itself, for every parameter set it takes: a message
/// fed in random chunks, finalize resetting, `reset` forgetting, a clone
/// taken mid-stream finishing independently.
pub fn check_streaming(registry: &Registry, algorithm: &str, backend: &str) -> Report {
    let mut report = Report::default();
    let alg = match registry.algorithm(algorithm) {
        Ok(a) => Arc::clone(a),
        Err(e) => {
            report.failures.push(e.to_string());
            return report;
        }
    };
    for (p, params) in parameter_sets(&alg, 11).into_iter().enumerate() {
        let choice = match registry.resolve(&alg.name, Some(backend), &params) {
            Ok(c) => c,
            Err(HashError::NotSupportedByBackend { .. }) => continue,
            Err(e) => {
                report
                    .failures
                    .push(format!("{} on {backend}: {e}", alg.name));
                continue;
            }
        };
        let who = format!("{} / {backend} / {params:?}", alg.name);
        let randoms = splitmix64(p as u64 + 1000, 64);
        let len = u32::from_le_bytes(randoms[..4].try_into().expect("4 bytes")) as usize % 20_000;
        let message = splitmix64(p as u64, len);
        let mut h = choice.hasher();
        h.update(&message);
        let one_shot = h.finalize_reset();
        let mut fail = |what: &str| report.failures.push(format!("{who}: {what}"));
        if one_shot.as_bytes().len() != h.output_len() {
            fail("output length differs from output_len()");
        }
        h.update(&message);
        if h.finalize_reset() != one_shot {
            fail("finalize did not reset");
        }
        let mut rest = &message[..];
        let mut cuts = randoms[4..].iter().cycle();
        while !rest.is_empty() {
            let n = (usize::from(*cuts.next().expect("cycle")) * 13).min(rest.len());
            h.update(&rest[..n]);
            rest = &rest[n..];
        }
        if h.finalize_reset() != one_shot {
            fail("chunked input differs from one update");
        }
        // The one-shot path (a backend's one-shot function where it has one),
        // on this message and on every short key a hash table would hash.
        let mut whole = vec![0u8; h.output_len()];
        h.hash_message_into(&message, &mut whole);
        if whole != one_shot.as_bytes() {
            fail("hash_message_into differs from update and finalize");
        }
        for key_len in 0..=40.min(message.len()) {
            h.update(&message[..key_len]);
            let streamed = h.finalize_reset();
            h.hash_message_into(&message[..key_len], &mut whole);
            if whole != streamed.as_bytes() {
                fail(&format!("hash_message_into differs at {key_len} bytes"));
                break;
            }
        }
        let (front, back) = message.split_at(message.len() / 2);
        h.update(front);
        h.hash_message_into(back, &mut whole);
        if whole != one_shot.as_bytes() {
            fail("hash_message_into after an update ignores the pending input");
        }
        h.update(b"garbage that must be forgotten");
        h.reset();
        h.update(&message);
        if h.finalize_reset() != one_shot {
            fail("reset did not forget");
        }
        let half = message.len() / 2;
        h.update(&message[..half]);
        let mut copy = h.box_clone();
        h.update(&message[half..]);
        copy.update(&message[half..]);
        if h.finalize_reset() != one_shot {
            fail("the original differs after a clone");
        }
        if copy.finalize_reset() != one_shot {
            fail("a clone taken mid-stream differs");
        }
        // A state that reads any length must give what a hasher configured
        // for that length gives, and reset after it.
        for len in [1, one_shot.as_bytes().len() + 1, 1000] {
            let mut out = vec![0u8; len];
            h.update(&message);
            if !h.finalize_extendable_into_reset(&mut out) {
                h.reset();
                break;
            }
            let expected = HashParams {
                length: Some(len),
                ..params.clone()
            };
            match choice.with_params(&expected) {
                Ok(sized) => {
                    let mut sized = sized.hasher();
                    sized.update(&message);
                    if sized.finalize_reset().as_bytes() != out {
                        fail(&format!(
                            "{len} bytes read from the state differ from length={len}"
                        ));
                    }
                }
                Err(e) => fail(&format!("reads {len} bytes but refuses length={len}: {e}")),
            }
            h.update(&message);
            if h.finalize_reset() != one_shot {
                fail("reading another length did not reset");
            }
        }
        report.count(&alg.name, backend);
    }
    report
}

/// All three checks for one backend of one algorithm: its known answers in
/// `vectors`, agreement with the algorithm's other backends, and streaming.
pub fn check_backend(
    registry: &Registry,
    algorithm: &str,
    backend: &str,
    vectors: &[VectorFile],
) -> Report {
    let mut report = Report::default();
    let only_this: Vec<VectorFile> = vectors
        .iter()
        .map(|f| VectorFile {
            records: f
                .records
                .iter()
                .filter(|r| {
                    registry
                        .algorithm(algorithm)
                        .is_ok_and(|a| a.name == r.algorithm)
                })
                .cloned()
                .collect(),
            ..f.clone()
        })
        .collect();
    report.merge(check_vectors(registry, &only_this, Some(backend)));
    report.merge(check_agreement(registry, algorithm));
    report.merge(check_streaming(registry, algorithm, backend));
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_its_definition() {
        // First output of splitmix64 seeded with 0, a widely published value.
        assert_eq!(splitmix64(0, 8), 0xE220_A839_7B1D_CDAFu64.to_le_bytes());
        assert_eq!(splitmix64(5, 3), splitmix64(5, 16)[..3]);
    }
}
