//! `hashlab check` against the tools whose manifests it reads: byte-identical
//! stdout, the same stderr (after the program name) and the same exit code as
//! coreutils' `-c`, and OK/FAILED on manifests b3sum, xxhsum, b2sum, rhash and
//! openssl write.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{peer, Scratch};

fn hashlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
}

fn run(mut cmd: Command, dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    cmd.current_dir(dir).args(args);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let input = stdin.unwrap_or(b"").to_vec();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

const FILES: &[&str] = &[
    "a",
    "sp ace",
    "back\\slash",
    "new\nline",
    "cr\rname",
    "-dash",
    "b\\a\nc",
    " lead",
    "trail ",
    "ünïcödé",
];

/// The digest `tool` prints for the file `name` in `dir`.
fn digest_of(tool: &str, dir: &Path, name: &str) -> String {
    let o = Command::new(tool)
        .current_dir(dir)
        .arg("--")
        .arg(name)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    text.trim_start_matches('\\')
        .split(' ')
        .next()
        .unwrap()
        .to_string()
}

/// Manifests full of edge cases, written by the tool itself where it can.
fn manifests(tool: &str, dir: &Path, foreign_tag: bool) -> Vec<(String, Vec<u8>)> {
    let mut listed = Command::new(tool);
    listed.current_dir(dir).arg("--");
    for f in FILES {
        listed.arg(if *f == "-dash" { "./-dash" } else { f });
    }
    let good = listed.output().unwrap().stdout;
    let tagged = Command::new(tool)
        .current_dir(dir)
        .args(["--tag", "a", "sp ace", "back\\slash", "new\nline"])
        .output()
        .unwrap()
        .stdout;
    let a = digest_of(tool, dir, "a");
    let other = digest_of(tool, dir, "sp ace");

    let mut mixed = good.clone();
    mixed.extend_from_slice(b"bad line\n\n# comment\n   \n");
    mixed.extend_from_slice(format!("{a} *a\n").as_bytes());
    mixed.extend_from_slice(format!("{a}  dir\n").as_bytes());
    mixed.extend_from_slice(format!("{a}  missing\n").as_bytes());
    mixed.extend_from_slice(format!("{a}  missing too\n").as_bytes());
    mixed.extend_from_slice(format!("{other}  a\n").as_bytes());
    mixed.extend_from_slice(format!("{a}  a\r\n").as_bytes());
    mixed.extend_from_slice(format!("   {a}  a\n").as_bytes());
    mixed.extend_from_slice(format!("{}  a\n", a.to_uppercase()).as_bytes());
    mixed.extend_from_slice(format!("\\{a}  a\\tb\n").as_bytes());
    mixed.extend_from_slice(format!("{a} a\n").as_bytes());
    mixed.extend_from_slice(format!("{a}\t a\n{a}\t*a\n{a}\ta\n").as_bytes());
    // `-` is standard input (empty here), and improperly formatted when the manifest is.
    mixed.extend_from_slice(format!("{a}  -\n").as_bytes());
    mixed.extend_from_slice(format!("{}  a\n", &a[..a.len() - 1]).as_bytes());
    mixed.extend_from_slice(format!("{}  a\n", &a[..a.len() - 2]).as_bytes());
    mixed.extend_from_slice(format!("{a}  ").as_bytes());
    mixed.extend_from_slice(&tagged);
    // coreutils reads its tag in its own case only; `sha256 (a) = ...` is
    // improperly formatted.
    let tag = String::from_utf8_lossy(&tagged)
        .split(" (")
        .next()
        .unwrap()
        .to_string();
    let swapped: String = tag
        .chars()
        .map(|c| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect();
    for other in [tag.to_lowercase(), tag.to_uppercase(), swapped] {
        if other != tag {
            mixed.extend_from_slice(format!("{other} (a) = {a}\n").as_bytes());
        }
    }
    mixed.extend_from_slice(b"\x00\xff\xfe junk\n");
    if foreign_tag {
        // Another algorithm's tag: coreutils and `hashlab check -a` call it malformed.
        mixed.extend_from_slice(b"CRC32C (a) = 364b3fb7\n");
    }
    mixed.extend_from_slice(format!("{a}  a").as_bytes());

    let crlf: Vec<u8> = good
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .flat_map(|l| [l, b"\r\n"].concat())
        .collect();
    let one_mismatch = format!("{a}  a\n{other}  a\n").into_bytes();
    let all_missing = format!("{a}  gone\n{a}  gone too\n").into_bytes();
    // BSD `md5 -r` form: the first such line settles the reading for the run.
    let reversed = format!("{a} a\n{a}  a\n{other} sp ace\n{a} *a\n{a}  \n").into_bytes();
    let some_missing = format!("{a}  gone\n{a}  a\n").into_bytes();
    vec![
        ("good".into(), good),
        ("tagged".into(), tagged),
        ("mixed".into(), mixed),
        ("crlf".into(), crlf),
        ("one-mismatch".into(), one_mismatch),
        ("all-missing".into(), all_missing),
        ("some-missing".into(), some_missing),
        ("reversed".into(), reversed),
        ("empty".into(), Vec::new()),
        ("blank".into(), b"\n\n\r\n# only a comment\n".to_vec()),
        ("junk".into(), b"not a checksum\n".to_vec()),
    ]
}

/// stderr with the program name at line starts made `PROG`.
fn normalized(stderr: &[u8], program: &str) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(|l| match l.strip_prefix(&format!("{program}: ")) {
            Some(rest) => format!("PROG: {rest}"),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn compare(dir: &Path, tool: &str, theirs: &[&str], ours: &[&str], stdin: Option<&[u8]>) {
    let Some(cmd) = peer(tool) else { return };
    let t = run(cmd, dir, theirs, stdin);
    let o = run(hashlab(), dir, ours, stdin);
    let what = format!("{tool} {theirs:?} / hashlab {ours:?}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&t.stdout),
        "stdout: {what}"
    );
    assert_eq!(
        normalized(&o.stderr, "hashlab"),
        normalized(&t.stderr, tool),
        "stderr: {what}"
    );
    assert_eq!(o.status.code(), t.status.code(), "exit code: {what}");
}

#[test]
fn check_matches_coreutils_byte_for_byte() {
    let s = Scratch::new("check-coreutils");
    for f in FILES {
        s.write(f, f.as_bytes());
    }
    std::fs::create_dir(s.path().join("dir")).unwrap();
    let option_sets: &[&[&str]] = &[
        &[],
        &["--quiet"],
        &["--status"],
        &["--strict"],
        &["--warn"],
        &["--ignore-missing"],
        &["--quiet", "--strict", "--warn", "--ignore-missing"],
        &["--status", "--ignore-missing"],
        // Of --quiet, --status and --warn the last one wins.
        &["--status", "--warn"],
        &["--warn", "--quiet"],
        &["--quiet", "--status"],
    ];
    for (tool, algorithm, extension) in [
        ("sha256sum", "sha256", "sha256"),
        ("md5sum", "md5", "md5"),
        ("b2sum", "blake2b", "b2"),
    ] {
        if peer(tool).is_none() {
            continue;
        }
        for (label, content) in manifests(tool, s.path(), true) {
            let manifest = format!("{label}.{extension}");
            s.write(&manifest, &content);
            for options in option_sets {
                let mut theirs = vec!["-c"];
                theirs.extend_from_slice(options);
                theirs.push(&manifest);
                let mut ours = vec!["check", "-a", algorithm];
                ours.extend_from_slice(options);
                ours.push(&manifest);
                compare(s.path(), tool, &theirs, &ours, None);
            }
            // From standard input, named "standard input" in messages.
            compare(
                s.path(),
                tool,
                &["-c", "--warn"],
                &["check", "-a", algorithm, "--warn"],
                Some(&content),
            );
        }
        // The reading the first manifest settles holds for the next.
        for (first, second) in [("reversed", "good"), ("good", "reversed")] {
            let first = format!("{first}.{extension}");
            let second = format!("{second}.{extension}");
            compare(
                s.path(),
                tool,
                &["-c", "--warn", &first, &second],
                &["check", "-a", algorithm, "--warn", &first, &second],
                None,
            );
        }
        // Without -a the manifest's extension chooses; several manifests, one missing.
        for (label, content) in manifests(tool, s.path(), false) {
            let manifest = format!("{label}.{extension}");
            s.write(&manifest, &content);
            compare(
                s.path(),
                tool,
                &["-c", "--warn", &manifest, "no such manifest", "dir"],
                &["check", "--warn", &manifest, "no such manifest", "dir"],
                None,
            );
        }
    }
}

#[test]
fn manifests_of_other_tools_check_ok_and_corruption_fails() {
    let s = Scratch::new("check-interop");
    s.write("a.txt", b"abc");
    s.write(
        "b.bin",
        &(0..100_000u32).map(|i| (i % 251) as u8).collect::<Vec<_>>(),
    );
    let cases: &[(&str, &[&str], &str)] = &[
        ("b3sum", &[], "m.b3"),
        ("xxhsum", &["-H0"], "m.xxh32"),
        ("xxhsum", &["-H1"], "m.xxh64"),
        ("xxhsum", &["-H2"], "m.xxh128"),
        ("xxhsum", &["-H3"], "m.txt"),
        ("xxhsum", &["--tag", "-H0"], "m.txt"),
        ("xxhsum", &["--tag", "-H1"], "m.txt"),
        ("xxhsum", &["--tag", "-H2"], "m.txt"),
        ("b2sum", &["-l", "256", "--tag"], "m.txt"),
        ("b2sum", &["-l", "128"], "m.b2"),
        ("rhash", &["--sha3-256", "--bsd"], "m.txt"),
        ("rhash", &["--crc32c", "--bsd"], "m.txt"),
        ("openssl", &["dgst", "-sha256"], "m.txt"),
        ("openssl", &["dgst", "-sha1"], "m.txt"),
        ("openssl", &["dgst", "-md5"], "m.txt"),
        ("openssl", &["dgst", "-sha512-256"], "m.txt"),
        ("openssl", &["dgst", "-sha3-512"], "m.txt"),
        ("openssl", &["dgst", "-blake2b512"], "m.txt"),
        ("openssl", &["dgst", "-blake2s256"], "m.txt"),
        ("openssl", &["dgst", "-shake128"], "m.txt"),
        ("sha512sum", &["--tag"], "m.txt"),
        ("sha1sum", &[], "SHA1SUMS"),
    ];
    for (tool, args, manifest) in cases {
        let version_flag_works = if *tool == "openssl" {
            Command::new("openssl").arg("version").output().is_ok()
        } else {
            peer(tool).is_some()
        };
        if !version_flag_works {
            hashlab_testkit::skip(&format!(
                "{tool} is not installed (scripts/setup installs it)"
            ));
            continue;
        }
        s.write("a.txt", b"abc");
        let written = Command::new(tool)
            .current_dir(s.path())
            .args(*args)
            .args(["a.txt", "b.bin"])
            .output()
            .unwrap();
        assert!(written.status.success(), "{tool} {args:?}");
        s.write(manifest, &written.stdout);
        let what = format!(
            "{tool} {args:?}:\n{}",
            String::from_utf8_lossy(&written.stdout)
        );
        let o = run(hashlab(), s.path(), &["check", manifest], None);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "a.txt: OK\nb.bin: OK\n",
            "{what}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.status.code(), Some(0), "{what}");

        s.write("a.txt", b"abd");
        let o = run(hashlab(), s.path(), &["check", manifest], None);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "a.txt: FAILED\nb.bin: OK\n",
            "{what}"
        );
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "hashlab: WARNING: 1 computed checksum did NOT match\n",
            "{what}"
        );
        assert_eq!(o.status.code(), Some(1), "{what}");
    }
}

#[test]
fn mixed_algorithms_in_one_tagged_manifest() {
    let s = Scratch::new("check-mixed");
    s.write("f", b"abc");
    let m = "MD5 (f) = 900150983cd24fb0d6963f7d28e17f72\n\
             SHA256 (f) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\
             XXH3 (f) = 78af5f94892f3950\n\
             BLAKE2b-256 (f) = bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319\n\
             SHA2-256(f)= ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n";
    s.write("mixed.txt", m.as_bytes());
    let o = run(hashlab(), s.path(), &["check", "mixed.txt"], None);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: OK\n".repeat(5));
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn undecidable_algorithm_and_bad_options() {
    let s = Scratch::new("check-undecided");
    s.write("f", b"abc");
    // 16 hex digits and no hint: xxh64? crc64nvme? Not guessed: tried on the file.
    s.write("list", b"44bc2cf5ad770999  f\n");
    let o = run(hashlab(), s.path(), &["check", "list"], None);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: OK\n");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "hashlab: list: read as xxh64: the lines' length and the first file; give -a to choose\n"
    );
    assert_eq!(o.status.code(), Some(0));
    // A length no tool writes untagged is still not guessed.
    s.write("odd", b"44bc2cf5ad  f\n");
    let o = run(hashlab(), s.path(), &["check", "odd"], None);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "hashlab: odd: no properly formatted checksum lines found\n"
    );
    assert_eq!(o.status.code(), Some(1));
    let o = run(hashlab(), s.path(), &["check", "-a", "xxh64", "list"], None);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: OK\n");
    assert_eq!(o.status.code(), Some(0));
    // Keyed: HMAC with the right key passes, with another key fails.
    let mac = run(
        hashlab(),
        s.path(),
        &["sum", "-a", "hmac-sha256", "--key", "0102", "--tag", "f"],
        None,
    );
    s.write("mac.txt", &mac.stdout);
    let o = run(
        hashlab(),
        s.path(),
        &["check", "--key", "0102", "mac.txt"],
        None,
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: OK\n");
    let o = run(
        hashlab(),
        s.path(),
        &["check", "--key", "0103", "mac.txt"],
        None,
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: FAILED\n");
    // Bad options are usage errors, one line, exit 2.
    for args in [
        &["check", "-a", "nosuch", "list"][..],
        &["check", "-a", "sha256", "--key", "zz", "list"],
        &["check", "-a", "sha256", "-l", "3", "list"],
        &["check", "-a", "sha256", "-b", "nosuch", "list"],
    ] {
        let o = run(hashlab(), s.path(), args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("hashlab: ") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn every_algorithm_round_trips_through_sum_and_check() {
    let s = Scratch::new("check-roundtrip");
    s.write("f", b"round trip");
    s.write("odd\\name", b"odd");
    let list = run(hashlab(), s.path(), &["list", "--json"], None);
    let algorithms: Vec<serde_json::Value> = serde_json::from_slice(&list.stdout).unwrap();
    assert!(algorithms.len() > 20);
    for algorithm in &algorithms {
        let name = algorithm["name"].as_str().unwrap();
        if algorithm["stable"] == false {
            // Never in a manifest: sum refuses it, with the reason.
            let o = run(hashlab(), s.path(), &["sum", "-a", name, "f"], None);
            assert_eq!(o.status.code(), Some(2), "{name}");
            assert!(String::from_utf8_lossy(&o.stderr).contains("not stable"));
            continue;
        }
        // The tag carries the algorithm; a non-default length rides in `-BITS`.
        for extra in [&[][..], &["-l", "24"][..]] {
            let mut args = vec!["sum", "--tag", "-a", name];
            args.extend_from_slice(extra);
            args.extend_from_slice(&["f", "odd\\name"]);
            let written = run(hashlab(), s.path(), &args, None);
            if !written.status.success() {
                // A fixed-length algorithm refuses -l; that is `sum`'s business.
                assert!(!extra.is_empty(), "{args:?}");
                continue;
            }
            s.write("m.txt", &written.stdout);
            let o = run(hashlab(), s.path(), &["check", "m.txt"], None);
            assert_eq!(
                String::from_utf8_lossy(&o.stdout),
                "f: OK\nodd\\name: OK\n",
                "{args:?}: {}{}",
                String::from_utf8_lossy(&written.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    // A keyed manifest fails without its key.
    let written = run(
        hashlab(),
        s.path(),
        &[
            "sum",
            "--tag",
            "-a",
            "siphash-2-4",
            "--key",
            &"07".repeat(16),
            "f",
        ],
        None,
    );
    s.write("m.txt", &written.stdout);
    let o = run(hashlab(), s.path(), &["check", "m.txt"], None);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "f: FAILED\n");
    assert_eq!(o.status.code(), Some(1));
}
