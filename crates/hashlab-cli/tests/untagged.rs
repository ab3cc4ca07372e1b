//! Untagged lines that nothing names the algorithm of (no `-a`, no tag, no
//! telling manifest name): `check` finds the algorithm out on the first
//! file, never guesses. Every candidate of every length several algorithms
//! share, written by `sum`, read from a file and from standard input.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{text, Scratch};
use hashlab::Registry;
use hashlab_integrity::untagged_candidates;

fn hashlab(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hashlab");
    let input = stdin.unwrap_or(b"").to_vec();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Untagged lines of `algorithm` at `bytes` for `files`, as `sum` writes them.
fn untagged(dir: &Path, algorithm: &str, bytes: usize, default: bool, files: &[&str]) -> Vec<u8> {
    let length = bytes.to_string();
    let mut args = vec!["sum", "-a", algorithm];
    if !default {
        args.extend_from_slice(&["-l", &length]);
    }
    args.extend_from_slice(files);
    let o = hashlab(dir, &args, None);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    assert!(
        !text(&o.stdout).contains(" ("),
        "untagged: {}",
        text(&o.stdout)
    );
    o.stdout
}

/// The digest lengths of several candidates, each with its candidates.
fn ambiguous_lengths() -> Vec<(usize, Vec<(String, bool)>)> {
    let registry = Registry::default();
    (1..=64)
        .filter_map(|bytes| {
            let candidates: Vec<(String, bool)> = untagged_candidates(&registry, bytes)
                .into_iter()
                .map(|a| (a.name.clone(), a.output.default_len() == bytes))
                .collect();
            (candidates.len() > 1).then_some((bytes, candidates))
        })
        .collect()
}

#[test]
fn every_candidate_of_every_ambiguous_length_checks_ok() {
    let s = Scratch::new("untagged-all");
    s.write("one", b"the first file\n");
    s.write(
        "two words",
        &(0..5000u32).map(|i| i as u8).collect::<Vec<_>>(),
    );
    let lengths = ambiguous_lengths();
    // coreutils' lengths, xxhsum's 4 and 8, and no others without a default-length candidate.
    let found: Vec<usize> = lengths.iter().map(|(b, _)| *b).collect();
    for bytes in [4, 8, 16, 20, 28, 32, 48, 64] {
        assert!(found.contains(&bytes), "{bytes}: {found:?}");
    }
    let mut checked = 0;
    for (bytes, candidates) in &lengths {
        for (algorithm, default) in candidates {
            let manifest = untagged(s.path(), algorithm, *bytes, *default, &["one", "two words"]);
            let what = format!("{algorithm} at {bytes} bytes:\n{}", text(&manifest));
            s.write("list", &manifest);
            for (args, stdin, shown) in [
                (&["check", "list"][..], None, "list"),
                (
                    &["check"][..],
                    Some(manifest.as_slice()),
                    "'standard input'",
                ),
            ] {
                let o = hashlab(s.path(), args, stdin);
                assert_eq!(
                    text(&o.stdout),
                    "one: OK\ntwo words: OK\n",
                    "{what}{}",
                    text(&o.stderr)
                );
                assert_eq!(o.status.code(), Some(0), "{what}");
                let err = text(&o.stderr);
                assert!(
                    err.starts_with(&format!("hashlab: {shown}: read as "))
                        && err.ends_with(
                            ": the lines' length and the first file; give -a to choose\n"
                        )
                        && err.lines().count() == 1,
                    "{what}{err}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 40, "{checked}");
}

#[test]
fn the_issue_s_xxh128_manifest_and_xxhsum_s_short_lines() {
    let s = Scratch::new("untagged-xxh");
    s.write("f", b"hello\n");
    for (algorithm, name) in [
        ("xxh3-128", "m.txt"),
        ("xxh64", "m.xxh"),
        ("xxh32", "SUMS"),
        ("blake3", "SUMS"),
    ] {
        let manifest = untagged(s.path(), algorithm, 0, true, &["f"]);
        s.write(name, &manifest);
        let o = hashlab(s.path(), &["check", name], None);
        assert_eq!(
            text(&o.stdout),
            "f: OK\n",
            "{algorithm}: {}",
            text(&o.stderr)
        );
        let expected = if algorithm == "xxh3-128" {
            format!(
                "hashlab: {name}: read as xxh3-128 (no security claim: md5, md4 did not match): \
                 the lines' length and the first file; give -a to choose\n"
            )
        } else {
            format!(
                "hashlab: {name}: read as {algorithm}: the lines' length and the first file; give -a to choose\n"
            )
        };
        assert_eq!(text(&o.stderr), expected);
        assert_eq!(o.status.code(), Some(0));
        // --status says nothing.
        let o = hashlab(s.path(), &["check", "--status", name], None);
        assert_eq!(
            (text(&o.stdout), text(&o.stderr)),
            (String::new(), String::new())
        );
        assert_eq!(o.status.code(), Some(0));
    }
}

#[test]
fn a_real_mismatch_fails_naming_the_candidates() {
    let s = Scratch::new("untagged-mismatch");
    s.write("a", b"alpha\n");
    s.write("b", b"beta\n");
    let manifest = untagged(s.path(), "xxh3-128", 0, true, &["a", "b"]);
    s.write("list", &manifest);
    s.write("a", b"alphA\n");
    let o = hashlab(s.path(), &["check", "list"], None);
    assert_eq!(text(&o.stdout), "a: FAILED\nb: OK\n");
    let err = text(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].starts_with(
            "hashlab: list: 1: no algorithm of a 16-byte digest matched the file (tried md5, md4, xxh3-128, blake2b,"
        ) && lines[0].ends_with("); give -a to choose"),
        "{err}"
    );
    assert!(
        lines[1].starts_with("hashlab: list: read as xxh3-128 ("),
        "{err}"
    );
    assert_eq!(
        lines[2],
        "hashlab: WARNING: 1 computed checksum did NOT match"
    );
    assert_eq!(o.status.code(), Some(1));
    // Every file changed: every line fails, none is read as a guess.
    s.write("b", b"betA\n");
    let o = hashlab(s.path(), &["check", "list"], None);
    assert_eq!(text(&o.stdout), "a: FAILED\nb: FAILED\n");
    assert_eq!(o.status.code(), Some(1));
    // A missing first file settles nothing; the next one does.
    let manifest = untagged(s.path(), "sha256", 0, true, &["a"]);
    let mut with_missing = manifest.clone();
    with_missing.splice(0..0, [&manifest[..64], b"  gone\n"].concat());
    s.write("list", &with_missing);
    let o = hashlab(s.path(), &["check", "list"], None);
    assert_eq!(text(&o.stdout), "gone: FAILED open or read\na: OK\n");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn mixed_lengths_settle_each_length() {
    let s = Scratch::new("untagged-mixed");
    s.write("a", b"alpha\n");
    s.write("b", b"beta\n");
    let mut manifest = untagged(s.path(), "blake3", 0, true, &["a"]);
    manifest.extend(untagged(s.path(), "xxh64", 0, true, &["a"]));
    manifest.extend(untagged(s.path(), "blake3", 0, true, &["b"]));
    manifest.extend(untagged(s.path(), "xxh64", 0, true, &["b"]));
    s.write("list", &manifest);
    let o = hashlab(s.path(), &["check", "list"], None);
    assert_eq!(text(&o.stdout), "a: OK\n".repeat(2) + &"b: OK\n".repeat(2));
    assert_eq!(
        text(&o.stderr),
        "hashlab: list: read as blake3: the lines' length and the first file; give -a to choose\n\
         hashlab: list: read as xxh64: the lines' length and the first file; give -a to choose\n"
    );
    // -a, a tag or the manifest's name decide without trying anything.
    // (The other length's lines are then improperly formatted.)
    let o = hashlab(s.path(), &["check", "-a", "xxh64", "list"], None);
    assert_eq!(text(&o.stdout), "a: OK\nb: OK\n");
    assert_eq!(
        text(&o.stderr),
        "hashlab: WARNING: 2 lines are improperly formatted\n"
    );
    s.write("list.xxh64", &manifest);
    let o = hashlab(s.path(), &["check", "list.xxh64"], None);
    assert_eq!(text(&o.stdout), "a: OK\nb: OK\n");
    assert!(!text(&o.stderr).contains("read as"));
    // A listed `-` cannot be tried several ways: improperly formatted until settled.
    let line = untagged(s.path(), "blake3", 0, true, &["a"]);
    let mut dash = [&line[..64], b"  -\n"].concat();
    dash.extend_from_slice(&line);
    dash.extend_from_slice(&[&line[..64], b"  -\n"].concat());
    s.write("dash", &dash);
    let o = hashlab(s.path(), &["check", "--warn", "dash"], Some(b"alpha\n"));
    assert_eq!(text(&o.stdout), "a: OK\n-: OK\n", "{}", text(&o.stderr));
    assert!(text(&o.stderr).starts_with("hashlab: dash: 1: improperly formatted checksum line\n"));
    assert_eq!(o.status.code(), Some(0));
}
