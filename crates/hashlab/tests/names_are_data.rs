//! What an algorithm is, is data in its catalog entry: no code outside this
//! crate's catalog and backends decides anything by matching an algorithm's
//! or family's name. This test reads the other crates' sources and fails on a
//! comparison of a string literal that is a registered name, alias or family
//! (`== "sha256"`, `matches!(family, "xxHash" | ...)`, a `"CRC" =>` arm,
//! `["xxh3-64", ...].contains(...)`). Tables that merely list names (what
//! another ecosystem calls an algorithm) and defaults are not decisions.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hashlab::Registry;

/// Signs that a line decides something by the literal on it.
const DECISIONS: [&str; 8] = [
    "==",
    "!=",
    "matches!",
    "=>",
    ".contains(",
    "starts_with(",
    "ends_with(",
    "eq_ignore_ascii_case(",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A `tests.rs` that its parent module declares as `#[cfg(test)] mod
/// tests;`: unit tests moved out of a long file, which may name what they
/// test as the end of a file may.
fn is_unit_test_module(file: &Path) -> bool {
    if file.file_name().is_none_or(|n| n != "tests.rs") {
        return false;
    }
    let dir = file.parent().expect("a file has a folder");
    let parents = [
        dir.with_extension("rs"),
        dir.join("lib.rs"),
        dir.join("mod.rs"),
    ];
    parents.iter().any(|parent| {
        std::fs::read_to_string(parent).is_ok_and(|text| {
            let lines: Vec<&str> = text.lines().map(str::trim).collect();
            lines
                .windows(2)
                .any(|w| w[0] == "#[cfg(test)]" && w[1] == "mod tests;")
        })
    })
}

#[test]
fn no_crate_decides_by_an_algorithm_name() {
    let registry = Registry::default();
    let mut names = BTreeSet::new();
    for alg in registry.algorithms() {
        names.insert(alg.name.clone());
        names.insert(alg.family.clone());
        names.extend(alg.aliases.iter().cloned());
    }
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap().flatten() {
        let src = entry.path().join("src");
        // This crate's catalog and backends are where names belong.
        if entry.file_name() != "hashlab" {
            rust_files(&src, &mut files);
        }
    }
    assert!(files.len() > 20, "found only {} source files", files.len());
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !is_unit_test_module(f)) {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            // Unit tests at the end of a file may name what they test.
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            if !DECISIONS.iter().any(|d| code.contains(d)) {
                continue;
            }
            for name in &names {
                if code.contains(&format!("\"{name}\"")) {
                    found.push(format!(
                        "{}:{}: \"{name}\": {}",
                        file.strip_prefix(&crates).unwrap_or(file).display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "decisions by algorithm name outside the catalog (make the trait a catalog field):\n{}",
        found.join("\n")
    );
}
