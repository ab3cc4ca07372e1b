//! Known-answer and differential vectors (tests/vectors/, format in its README):
//! every record runs on every available backend of its algorithm that supports
//! its parameters, through the public `hashlab::conformance` checks. The
//! loader is strict, and an algorithm that ran no vector fails the run, so an
//! emptied or corrupted file cannot pass silently.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hashlab::conformance::{self, parse_vectors as parse, Report, VectorFile};
use hashlab::Registry;

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

/// Runs every record of every file of `kind` on every backend that takes its parameters.
fn run(kind: &str) -> Report {
    let registry = Registry::default();
    let files: Vec<VectorFile> = vector_files(kind)
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let file =
                parse(&text, &registry).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!file.sources.is_empty());
            file
        })
        .collect();
    let report = conformance::check_vectors(&registry, &files, None);
    assert!(
        report.passed(),
        "{} failures:\n{}",
        report.failures.len(),
        report
            .failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    report
}

/// `published/unpublished.txt`: the algorithms no published known answer
/// was found for, with the reason (they still need differential vectors).
fn unpublished() -> Vec<(String, String)> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/published/unpublished.txt");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, why) = l.split_once(':').unwrap_or((l, ""));
            (name.trim().to_string(), why.trim().to_string())
        })
        .collect()
}

#[test]
fn published_vectors() {
    let registry = Registry::default();
    let tally = run("published");
    let unpublished = unpublished();
    for (name, why) in &unpublished {
        let alg = registry
            .algorithm(name)
            .unwrap_or_else(|_| panic!("unpublished.txt: {name} is not an algorithm"));
        assert_eq!(alg.name, *name, "unpublished.txt: {name} is not canonical");
        assert!(!why.is_empty(), "unpublished.txt: {name} gives no reason");
        assert_eq!(
            tally.ran_for(name),
            0,
            "{name} has published vectors now: take it out of unpublished.txt"
        );
    }
    for alg in registry.algorithms() {
        // No answer exists for an output its authors do not fix (foldhash).
        if !alg.stable || unpublished.iter().any(|(name, _)| *name == alg.name) {
            continue;
        }
        assert!(
            tally.ran_for(&alg.name) > 0,
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
        let ran = tally.ran_for(&alg.name);
        // An algorithm whose output its authors do not fix (foldhash) has no
        // answer another implementation could give: its tests are the
        // properties every hasher keeps (conformance.rs), not vectors.
        if !alg.stable {
            assert_eq!(ran, 0, "{}: vectors for an unstable output", alg.name);
            continue;
        }
        assert!(ran >= 300, "{}: only {ran} differential vectors", alg.name);
        for backend in registry.backends_of(&alg.name).unwrap() {
            if backend.is_available() {
                let n = tally.ran_on(&alg.name, &backend.name);
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
    for alg in registry.algorithms().iter().filter(|alg| alg.stable) {
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
