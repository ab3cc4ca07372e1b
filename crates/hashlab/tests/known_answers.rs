//! Known-answer and differential vectors (tests/vectors/, format in its README):
//! every record runs on every available backend of its algorithm that supports
//! its parameters. The loader is strict, and an algorithm that ran no vector
//! fails the run, so an emptied or corrupted file cannot pass silently.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use hashlab::{hex, HashError, HashParams, Registry};

#[derive(Debug, Clone, PartialEq)]
enum Message {
    Hex(Vec<u8>),
    Repeat(Vec<u8>, usize),
    Pattern(usize),
    Prng(u64, usize),
}

impl Message {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Message::Hex(b) => b.clone(),
            Message::Repeat(b, n) => b.repeat(*n),
            Message::Pattern(n) => (0..*n).map(|i| (i % 251) as u8).collect(),
            Message::Prng(seed, n) => splitmix64(*seed, *n),
        }
    }
}

/// The vector files' pseudo-random messages (the generator script has the same function).
fn splitmix64(seed: u64, len: usize) -> Vec<u8> {
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

#[derive(Debug, Clone)]
struct Record {
    line: usize,
    alg: String,
    message: Message,
    key: Option<Vec<u8>>,
    custom: Option<Vec<u8>>,
    len: Option<usize>,
    /// Expected bytes, and whether they are only the tail of the output.
    expected: Vec<u8>,
    tail_only: bool,
}

#[derive(Debug)]
struct VectorFile {
    sources: Vec<String>,
    oracles: BTreeMap<String, String>,
    records: Vec<Record>,
}

fn parse(text: &str, registry: &Registry) -> Result<VectorFile, String> {
    let mut sources = Vec::new();
    let mut oracles = BTreeMap::new();
    let mut records = Vec::new();
    let mut block: Vec<(usize, String, String)> = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    for (i, raw) in lines.iter().enumerate() {
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

fn record(
    block: &[(usize, String, String)],
    registry: &Registry,
    oracles: &BTreeMap<String, String>,
) -> Result<Record, String> {
    let line = block[0].0;
    let mut fields: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for (n, field, value) in block {
        const KNOWN: [&str; 10] = [
            "alg",
            "msg",
            "msg_repeat",
            "msg_ptn",
            "msg_prng",
            "key",
            "custom",
            "len",
            "digest",
            "digest_tail",
        ];
        if !KNOWN.contains(&field.as_str()) {
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
    let len = fields
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
    let out_len = len.unwrap_or(algorithm.output.default_len());
    if tail_only && (len.is_none() || expected.len() > out_len) {
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
        alg: alg.to_string(),
        message,
        key: hex_field("key")?,
        custom: hex_field("custom")?,
        len,
        expected,
        tail_only,
    })
}

fn vector_files(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "vec"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no .vec files", dir.display());
    files
}

#[derive(Default)]
struct Tally {
    /// Vectors checked, per algorithm.
    per_algorithm: BTreeMap<String, usize>,
    /// Vectors checked, per (algorithm, backend).
    per_backend: BTreeMap<(String, String), usize>,
}

/// Runs every record of every file of `kind` on every backend that takes its parameters.
fn run(kind: &str) -> Tally {
    let registry = Registry::default();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for path in vector_files(kind) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let file = parse(&text, &registry).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!file.sources.is_empty());
        for record in &file.records {
            let message = record.message.bytes();
            let params = HashParams {
                key: record.key.clone(),
                length: record.len,
                customization: record.custom.clone(),
                parallel: false,
            };
            let algorithm = registry.algorithm(&record.alg).unwrap();
            let config = algorithm
                .resolve(&params)
                .unwrap_or_else(|e| panic!("{name}:{}: {e}", record.line));
            let mut ran = 0;
            for backend in registry.backends_of(&record.alg).unwrap() {
                if !backend.is_available() || backend.check_supports(algorithm, &config).is_err() {
                    continue;
                }
                let mut hasher =
                    match registry.hasher_with_config(&record.alg, &backend.name, &config) {
                        Ok(h) => h,
                        Err(HashError::NotSupportedByBackend { .. }) => continue,
                        Err(e) => panic!(
                            "{name}:{}: {} {}: {e}",
                            record.line, record.alg, backend.name
                        ),
                    };
                hasher.update(&message);
                let out = hasher.finalize_reset();
                let got = if record.tail_only {
                    &out.as_bytes()[out.as_bytes().len() - record.expected.len()..]
                } else {
                    out.as_bytes()
                };
                if got != record.expected.as_slice() {
                    failures.push(format!(
                        "{name}:{}: {} on {}: got {}, expected {}",
                        record.line,
                        record.alg,
                        backend.name,
                        hex::encode(got),
                        hex::encode(&record.expected)
                    ));
                }
                ran += 1;
                *tally
                    .per_backend
                    .entry((record.alg.clone(), backend.name.clone()))
                    .or_default() += 1;
            }
            assert!(
                ran > 0,
                "{name}:{}: no backend could run this record",
                record.line
            );
            *tally.per_algorithm.entry(record.alg.clone()).or_default() += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    tally
}

#[test]
fn published_vectors() {
    let registry = Registry::default();
    let tally = run("published");
    for alg in registry.algorithms() {
        assert!(
            tally.per_algorithm.get(&alg.name).copied().unwrap_or(0) > 0,
            "{}: ran no published vector",
            alg.name
        );
    }
}

#[test]
fn differential_vectors() {
    let registry = Registry::default();
    let tally = run("differential");
    for alg in registry.algorithms() {
        let ran = tally.per_algorithm.get(&alg.name).copied().unwrap_or(0);
        assert!(ran >= 300, "{}: only {ran} differential vectors", alg.name);
        for backend in registry.backends_of(&alg.name).unwrap() {
            if backend.is_available() {
                let n = tally
                    .per_backend
                    .get(&(alg.name.clone(), backend.name.clone()))
                    .copied()
                    .unwrap_or(0);
                assert!(
                    n >= 300,
                    "{} / {}: only {n} differential vectors",
                    alg.name,
                    backend.name
                );
            }
        }
    }
}

#[test]
fn every_differential_file_names_its_oracle() {
    let registry = Registry::default();
    let mut covered = BTreeSet::new();
    for path in vector_files("differential") {
        let file = parse(&std::fs::read_to_string(&path).unwrap(), &registry).unwrap();
        for (alg, oracle) in &file.oracles {
            assert!(
                !oracle.is_empty(),
                "{}: empty oracle for {alg}",
                path.display()
            );
            covered.insert(alg.clone());
        }
    }
    for alg in registry.algorithms() {
        assert!(
            covered.contains(&alg.name),
            "no differential oracle for {}",
            alg.name
        );
    }
}

#[test]
fn loader_rejects_malformed_files() {
    let registry = Registry::default();
    let good = "@source test\n@oracle sha256 test\n\nalg = sha256\nmsg = 616263\ndigest = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n";
    assert_eq!(parse(good, &registry).unwrap().records.len(), 1);
    let bad = [
        ("", "no @source"),
        ("@source x\n@oracle sha256 t\n", "no records"),
        (&good.replace("@oracle sha256 test\n", ""), "no @oracle"),
        (&good.replace("msg = 616263", "msg = 61626"), "odd number"),
        (
            &good.replace("msg = 616263", "msg = 6162zz"),
            "not a hex digit",
        ),
        (&good.replace("msg = 616263\n", ""), "exactly one message"),
        (
            &good.replace("alg = sha256", "alg = sha265"),
            "unknown algorithm",
        ),
        (&good.replace("alg = sha256", "alg = SHA-256"), "canonical"),
        (&good.replace("digest = ba78", "digest = "), "digest has"),
        (&good.replace("digest =", "digets ="), "unknown field"),
        (&good.replace("msg = 616263", "msg = 61\nmsg = 62"), "twice"),
        (&good.replace("msg = 616263", "msg_prng = 1"), "two values"),
        (&format!("{good}@source late\n"), "directive after"),
        (&good.replace('\n', "\r\n"), "CR line end"),
    ];
    for (text, why) in bad {
        let err = parse(text, &registry).expect_err(why);
        assert!(err.contains(why), "expected '{why}', got '{err}'");
    }
}

#[test]
fn splitmix64_matches_its_definition() {
    // First output of splitmix64 seeded with 0, a widely published value.
    assert_eq!(splitmix64(0, 8), 0xE220_A839_7B1D_CDAFu64.to_le_bytes());
    assert_eq!(splitmix64(5, 3), splitmix64(5, 16)[..3]);
}
