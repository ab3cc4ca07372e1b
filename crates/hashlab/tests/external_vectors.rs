//! Known answers published by other projects (tests/vectors/external/, one
//! `.jsonl` file per project, sources and record fields in its README): every
//! record runs on every available backend of its algorithm that takes its
//! parameters. A record no backend runs fails the test unless its algorithm is
//! one hashlab does not mean to offer (`OUTSIDE_SCOPE`), so a file that shrank,
//! a field that stopped being understood or a backend that stopped taking a
//! parameter cannot pass by checking less.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hashlab::{hex, HashError, HashParams, Hasher, OutputRule, Registry};
use serde::Deserialize;

/// Algorithms whose published records are kept as data but that hashlab does
/// not mean to offer, with the reason.
const OUTSIDE_SCOPE: [(&str, &str); 3] = [
    (
        "md5-sha1",
        "TLS 1.0/1.1's internal MD5 || SHA-1 concatenation",
    ),
    ("siphash-4-8", "a non-standard SipHash variant"),
    ("siphash-4-8-128", "the same with a 128-bit output"),
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/external")
}

/// One record; unknown fields are an error, so a file written with a field
/// this test does not read cannot run as something else.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    id: String,
    alg: String,
    out: String,
    msg: Option<String>,
    msg_parts: Option<Vec<(String, u64)>>,
    msg_ptn: Option<u64>,
    msg_loop: Option<u64>,
    key: Option<String>,
    custom: Option<String>,
    salt: Option<String>,
    personal: Option<String>,
    domain: Option<u8>,
    seed: Option<u64>,
    len: Option<usize>,
    #[serde(rename = "match")]
    part: Option<Part>,
    expect: Option<Expect>,
    kind: Option<Kind>,
    md_lens: Option<Vec<usize>>,
    in_lens: Option<Vec<usize>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Part {
    /// A tag truncated by its protocol (Wycheproof's short HMAC tags).
    Prefix,
    /// The last bytes of a `len`-byte output.
    Suffix,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Expect {
    /// A modified tag: the output must not match it.
    Differ,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
enum Kind {
    /// RFC 7693 Appendix E: one digest over the unkeyed and keyed digests of
    /// every (output length, input length).
    #[serde(rename = "rfc7693-selftest")]
    Rfc7693SelfTest,
}

/// The message, produced in pieces so the 1 GiB ones are never held whole.
enum Message {
    Bytes(Vec<u8>),
    Parts(Vec<(Vec<u8>, u64)>),
    /// Byte i = i mod `modulus`, `len` bytes.
    Counting {
        modulus: usize,
        len: u64,
    },
}

impl Message {
    fn of(r: &Record) -> Result<Message, String> {
        let given = [
            r.msg.is_some(),
            r.msg_parts.is_some(),
            r.msg_ptn.is_some(),
            r.msg_loop.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err("needs exactly one of msg, msg_parts, msg_ptn, msg_loop".into());
        }
        Ok(if let Some(m) = &r.msg {
            Message::Bytes(unhex("msg", m)?)
        } else if let Some(parts) = &r.msg_parts {
            let parts = parts
                .iter()
                .map(|(h, n)| Ok((unhex("msg_parts", h)?, *n)))
                .collect::<Result<Vec<_>, String>>()?;
            Message::Parts(parts)
        } else if let Some(len) = r.msg_ptn {
            Message::Counting { modulus: 251, len }
        } else {
            Message::Counting {
                modulus: 256,
                len: r.msg_loop.unwrap_or_default(),
            }
        })
    }

    /// Feeds the message to `hasher` in pieces of at most about 1 MiB.
    fn feed(&self, hasher: &mut dyn Hasher) {
        const PIECE: usize = 1 << 20;
        match self {
            Message::Bytes(b) => hasher.update(b),
            Message::Parts(parts) => {
                for (bytes, count) in parts.iter().filter(|(b, _)| !b.is_empty()) {
                    let per = ((PIECE / bytes.len()).max(1) as u64).min((*count).max(1));
                    let block = bytes.repeat(per as usize);
                    let mut left = *count;
                    while left >= per {
                        hasher.update(&block);
                        left -= per;
                    }
                    hasher.update(&block[..bytes.len() * left as usize]);
                }
            }
            Message::Counting { modulus, len } => {
                // A whole number of periods, so every piece starts at byte 0
                // (or the whole message, when shorter).
                let period = modulus * (PIECE / modulus);
                let unit: Vec<u8> = (0..period.min(*len as usize))
                    .map(|i| (i % modulus) as u8)
                    .collect();
                let mut left = *len;
                while left > 0 {
                    let n = left.min(unit.len() as u64) as usize;
                    hasher.update(&unit[..n]);
                    left -= n as u64;
                }
            }
        }
    }
}

fn unhex(field: &str, text: &str) -> Result<Vec<u8>, String> {
    hex::decode(text).map_err(|e| format!("{field}: {e}"))
}

/// What one source file ran.
#[derive(Default)]
struct Tally {
    /// Checks per (algorithm, backend).
    ran: BTreeMap<(String, String), usize>,
    failures: Vec<String>,
}

impl Tally {
    fn fail(&mut self, file: &str, r: &Record, what: String) {
        self.failures.push(format!("{file} {}: {what}", r.id));
    }
}

fn load(name: &str) -> Vec<Record> {
    let path = dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let records: Vec<Record> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect();
    assert!(!records.is_empty(), "{}: no records", path.display());
    records
}

/// The record's parameters as hashlab takes them, or why no backend can run it.
fn params(registry: &Registry, r: &Record) -> Result<HashParams, String> {
    let alg = registry.algorithm(&r.alg).map_err(|e| e.to_string())?;
    let bytes = |field: &str, v: &Option<String>| v.as_deref().map(|h| unhex(field, h)).transpose();
    // A fixed-size output given as a length is the default one, or not this algorithm.
    let length = match (alg.output, r.len) {
        (OutputRule::Fixed { bytes }, Some(len)) if len == bytes => None,
        (_, len) => len,
    };
    Ok(HashParams {
        key: bytes("key", &r.key)?,
        length,
        // An empty customization string is the absent one (check.py's rule).
        customization: bytes("custom", &r.custom)?.filter(|c| !c.is_empty() || alg.customizable),
        salt: bytes("salt", &r.salt)?,
        personal: bytes("personal", &r.personal)?,
        seed: r.seed,
        domain: r.domain,
        ..HashParams::default()
    })
}

fn available(registry: &Registry, alg: &str) -> Vec<String> {
    registry
        .backends_of(alg)
        .unwrap_or_default()
        .into_iter()
        .filter(|b| b.is_available())
        .map(|b| b.name.clone())
        .collect()
}

fn matches(r: &Record, got: &[u8]) -> bool {
    let got = hex::encode(got);
    let same = match r.part {
        Some(Part::Prefix) => got.starts_with(&r.out),
        Some(Part::Suffix) => got.ends_with(&r.out),
        None => got == r.out,
    };
    same != (r.expect == Some(Expect::Differ))
}

/// Runs one record on one backend: `Ok(None)` when the backend does not take
/// its parameters (another backend must), `Ok(Some(ok))` when it ran.
fn run_one(
    registry: &Registry,
    r: &Record,
    message: &Message,
    params: &HashParams,
    backend: &str,
) -> Result<Option<(bool, String)>, String> {
    let choice = match registry.resolve(&r.alg, Some(backend), params) {
        Ok(choice) => choice,
        Err(HashError::NotSupportedByBackend { .. }) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let mut hasher = choice.hasher();
    message.feed(hasher.as_mut());
    let got = hasher.finalize_reset();
    Ok(Some((matches(r, got.as_bytes()), got.to_hex())))
}

/// RFC 7693 Appendix E's input and key generator.
fn selftest_seq(len: usize, seed: u32) -> Vec<u8> {
    let (mut a, mut b) = (0xDEAD_4BADu32.wrapping_mul(seed), 1u32);
    (0..len)
        .map(|_| {
            let t = a.wrapping_add(b);
            (a, b) = (b, t);
            (t >> 24) as u8
        })
        .collect()
}

fn rfc7693(registry: &Registry, r: &Record, backend: &str) -> Result<bool, HashError> {
    let (Some(md_lens), Some(in_lens)) = (&r.md_lens, &r.in_lens) else {
        return Ok(false);
    };
    let digest = |key: Option<Vec<u8>>, length: usize, message: &[u8]| {
        let params = HashParams {
            key,
            length: Some(length),
            ..HashParams::default()
        };
        let mut hasher = registry.resolve(&r.alg, Some(backend), &params)?.hasher();
        hasher.update(message);
        Ok::<_, HashError>(hasher.finalize_reset().as_bytes().to_vec())
    };
    let mut all = Vec::new();
    for &outlen in md_lens {
        for &inlen in in_lens {
            let input = selftest_seq(inlen, inlen as u32);
            all.extend(digest(None, outlen, &input)?);
            let key = selftest_seq(outlen, outlen as u32);
            all.extend(digest(Some(key), outlen, &input)?);
        }
    }
    Ok(hex::encode(&digest(None, 32, &all)?) == r.out)
}

/// Runs every record of one file; panics with every failure.
fn check_file(name: &str) -> Tally {
    let registry = Registry::default();
    let mut tally = Tally::default();
    for r in load(name) {
        if let Some((_, why)) = OUTSIDE_SCOPE.iter().find(|(alg, _)| *alg == r.alg) {
            assert!(
                registry.algorithm(&r.alg).is_err(),
                "{} is in hashlab now ({why}): take it out of OUTSIDE_SCOPE",
                r.alg
            );
            continue;
        }
        let canonical = match registry.algorithm(&r.alg) {
            Ok(alg) => alg.name.clone(),
            Err(e) => {
                tally.fail(name, &r, format!("algorithm not in hashlab: {e}"));
                continue;
            }
        };
        let backends = available(&registry, &canonical);
        let mut ran = 0;
        if r.kind == Some(Kind::Rfc7693SelfTest) {
            for backend in &backends {
                match rfc7693(&registry, &r, backend) {
                    Ok(true) => {}
                    Ok(false) => tally.fail(
                        name,
                        &r,
                        format!("{canonical} -b {backend}: wrong grand hash"),
                    ),
                    Err(HashError::NotSupportedByBackend { .. }) => continue,
                    Err(e) => tally.fail(name, &r, format!("{canonical} -b {backend}: {e}")),
                }
                ran += 1;
                *tally
                    .ran
                    .entry((canonical.clone(), backend.clone()))
                    .or_default() += 1;
            }
        } else {
            let parsed = Message::of(&r).and_then(|m| params(&registry, &r).map(|p| (m, p)));
            let (message, params) = match parsed {
                Ok(both) => both,
                Err(e) => {
                    tally.fail(name, &r, e);
                    continue;
                }
            };
            for backend in &backends {
                match run_one(&registry, &r, &message, &params, backend) {
                    Ok(None) => continue,
                    Ok(Some((true, _))) => {}
                    Ok(Some((false, got))) => tally.fail(
                        name,
                        &r,
                        format!(
                            "{canonical} -b {backend}: expected {}{}, got {got}",
                            if r.expect.is_some() { "NOT " } else { "" },
                            r.out
                        ),
                    ),
                    Err(e) => tally.fail(name, &r, format!("{canonical} -b {backend}: {e}")),
                }
                ran += 1;
                *tally
                    .ran
                    .entry((canonical.clone(), backend.clone()))
                    .or_default() += 1;
            }
        }
        if ran == 0 {
            tally.fail(
                name,
                &r,
                format!("no available backend of {canonical} takes this record ({backends:?})"),
            );
        }
    }
    println!(
        "{name}: {} checks on {} (algorithm, backend) pairs",
        tally.ran.values().sum::<usize>(),
        tally.ran.len()
    );
    assert!(
        tally.failures.is_empty(),
        "{} failures:\n{}",
        tally.failures.len(),
        tally
            .failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    tally
}

/// The files this test runs; `every_file_is_run` holds the folder to it.
const FILES: [&str; 13] = [
    "ascon-kat.jsonl",
    "boost-hash2.jsonl",
    "boringssl.jsonl",
    "golang-go.jsonl",
    "golang-x-crypto.jsonl",
    "google-crc32c.jsonl",
    "libsodium.jsonl",
    "nimcrypto.jsonl",
    "nimsha2.jsonl",
    "openhft.jsonl",
    "openssl.jsonl",
    "wycheproof.jsonl",
    "xkcp.jsonl",
];

macro_rules! files {
    ($($test:ident => $file:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                assert!(FILES.contains(&$file));
                check_file($file);
            }
        )*
    };
}

// One test per file, so the harness runs them side by side.
files! {
    ascon_kat => "ascon-kat.jsonl",
    boost_hash2 => "boost-hash2.jsonl",
    boringssl => "boringssl.jsonl",
    golang_go => "golang-go.jsonl",
    golang_x_crypto => "golang-x-crypto.jsonl",
    google_crc32c => "google-crc32c.jsonl",
    libsodium => "libsodium.jsonl",
    nimcrypto => "nimcrypto.jsonl",
    nimsha2 => "nimsha2.jsonl",
    openhft => "openhft.jsonl",
    openssl => "openssl.jsonl",
    wycheproof => "wycheproof.jsonl",
    xkcp => "xkcp.jsonl",
}

#[test]
fn every_file_is_run() {
    let mut found: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    found.sort();
    assert_eq!(
        found, FILES,
        "every .jsonl file needs its test in files! above"
    );
}

/// The authors' own C outputs for the hash-table hashes (`fasthash-ref.json`):
/// over messages SHAKE128("hashlab fasthash <n>") truncated to n bytes, the
/// version hashlab implements must give every value, and each other version
/// kept beside it must differ somewhere (so the file tells them apart).
#[test]
fn fasthash_reference_outputs() {
    #[derive(Deserialize)]
    struct Published {
        msg: String,
        seed: u64,
        value: String,
    }
    #[derive(Deserialize)]
    struct Entry {
        alg: String,
        version: String,
        seed: u64,
        values: BTreeMap<usize, String>,
        #[serde(default)]
        published: Vec<Published>,
        /// A later commit that gives the same outputs as this version.
        same_as: Option<String>,
    }
    // The version of each algorithm that hashlab's catalog implements.
    const IMPLEMENTED: [(&str, &str); 3] = [
        ("wyhash", "final4"),
        ("rapidhash", "v3"),
        ("komihash", "5.29"),
    ];

    let registry = Registry::default();
    let path = dir().join("fasthash-ref.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let entries: Vec<Entry> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let message = |n: usize| -> Vec<u8> {
        if n == 0 {
            return Vec::new();
        }
        let params = HashParams {
            length: Some(n),
            ..HashParams::default()
        };
        let mut shake = registry
            .resolve("shake128", None, &params)
            .unwrap()
            .hasher();
        shake.update(format!("hashlab fasthash {n}").as_bytes());
        shake.finalize_reset().as_bytes().to_vec()
    };
    let mut messages = BTreeMap::new();
    let mut checked = 0;
    for entry in &entries {
        let implemented = [Some(&entry.version), entry.same_as.as_ref()]
            .into_iter()
            .flatten()
            .any(|version| IMPLEMENTED.contains(&(entry.alg.as_str(), version.as_str())));
        let alg = &registry.algorithm(&entry.alg).unwrap().name;
        let mut differs = false;
        for backend in available(&registry, alg) {
            let digest = |seed: u64, msg: &[u8]| {
                let params = HashParams {
                    seed: (seed != 0).then_some(seed),
                    ..HashParams::default()
                };
                let mut h = registry
                    .resolve(alg, Some(backend.as_str()), &params)
                    .unwrap()
                    .hasher();
                h.update(msg);
                h.finalize_reset().to_hex()
            };
            for (n, value) in &entry.values {
                let msg = messages.entry(*n).or_insert_with(|| message(*n));
                let got = digest(entry.seed, msg);
                if implemented {
                    assert_eq!(
                        &got, value,
                        "{} {} -b {backend}, {n}-byte message",
                        entry.alg, entry.version
                    );
                    checked += 1;
                } else {
                    differs |= got != *value;
                }
            }
            for p in &entry.published {
                let got = digest(p.seed, &hex::decode(&p.msg).unwrap());
                assert_eq!(
                    got, p.value,
                    "{} {} -b {backend}, published msg={} seed={}",
                    entry.alg, entry.version, p.msg, p.seed
                );
                checked += 1;
            }
        }
        assert!(
            implemented || differs,
            "{} {} gives the same outputs as hashlab's",
            entry.alg,
            entry.version
        );
    }
    for (alg, version) in IMPLEMENTED {
        assert!(
            entries.iter().any(|e| e.alg == alg && e.version == version),
            "fasthash-ref.json lacks {alg} {version}"
        );
    }
    assert!(checked >= 3 * 321, "only {checked} checks");
}
