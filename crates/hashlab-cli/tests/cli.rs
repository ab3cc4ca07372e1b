//! The `hashlab` binary end to end: exact bytes on stdout, messages on stderr,
//! exit codes, and manifests that the peer tools accept.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{peer, Scratch};

fn hashlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    hashlab()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run hashlab")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A scratch directory with a few files, removed on drop.
/// A scratch directory with abc.txt, an empty file and 300,000 bytes of noise.
fn scratch(name: &str) -> Scratch {
    let big: Vec<u8> = (0..300_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    Scratch::with_files(
        &format!("cli-{name}"),
        &[("abc.txt", b"abc"), ("empty", b""), ("big.bin", &big)],
    )
}

const ABC_SHA256: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

#[test]
fn gnu_lines_by_default() {
    let s = scratch("gnu");
    let o = run_in(s.path(), &["sum", "abc.txt", "empty"]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        format!("{ABC_SHA256}  abc.txt\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty\n")
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn tag_lines_use_the_tools_tags() {
    let s = scratch("tag");
    let cases: &[(&[&str], &str)] = &[
        (&["-a", "md5"], "MD5 (abc.txt) = 900150983cd24fb0d6963f7d28e17f72\n"),
        (&["-a", "sha1"], "SHA1 (abc.txt) = a9993e364706816aba3e25717850c26c9cd0d89d\n"),
        (&[], &format!("SHA256 (abc.txt) = {ABC_SHA256}\n")),
        (
            &["-a", "sha3-256"],
            "SHA3-256 (abc.txt) = 3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532\n",
        ),
        (
            &["-a", "blake2b", "-l", "32"],
            "BLAKE2b-256 (abc.txt) = bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319\n",
        ),
        (
            &["-a", "blake2s"],
            "BLAKE2s (abc.txt) = 508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982\n",
        ),
        (
            &["-a", "blake3"],
            "BLAKE3 (abc.txt) = 6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85\n",
        ),
        (&["-a", "xxh32"], "XXH32 (abc.txt) = 32d153ff\n"),
        (&["-a", "xxh64"], "XXH64 (abc.txt) = 44bc2cf5ad770999\n"),
        (&["-a", "xxh3"], "XXH3 (abc.txt) = 78af5f94892f3950\n"),
        (&["-a", "xxh128"], "XXH128 (abc.txt) = 06b05ab6733a618578af5f94892f3950\n"),
        (&["-a", "crc32c"], "CRC32C (abc.txt) = 364b3fb7\n"),
        (
            &["-a", "sha512-256"],
            "SHA512-256 (abc.txt) = 53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23\n",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["sum", "--tag"];
        all.extend_from_slice(args);
        all.push("abc.txt");
        let o = run_in(s.path(), &all);
        assert!(o.status.success(), "{all:?}: {}", stderr(&o));
        assert_eq!(&stdout(&o), expected, "{all:?}");
    }
}

#[test]
fn xxh3_lines_always_carry_their_tag() {
    let s = scratch("xxh3");
    let o = run_in(s.path(), &["sum", "-a", "xxh3-64", "abc.txt"]);
    assert_eq!(stdout(&o), "XXH3 (abc.txt) = 78af5f94892f3950\n");
}

#[test]
fn odd_names_are_escaped_like_coreutils() {
    let s = scratch("escape");
    for name in ["back\\slash", "new\nline", "carriage\rreturn"] {
        std::fs::write(s.path().join(name), b"abc").unwrap();
    }
    let o = run_in(
        s.path(),
        &["sum", "back\\slash", "new\nline", "carriage\rreturn"],
    );
    assert_eq!(
        stdout(&o),
        format!("\\{ABC_SHA256}  back\\\\slash\n\\{ABC_SHA256}  new\\nline\n\\{ABC_SHA256}  carriage\\rreturn\n")
    );
    let o = run_in(s.path(), &["sum", "--tag", "-a", "md5", "new\nline"]);
    assert_eq!(
        stdout(&o),
        "\\MD5 (new\\nline) = 900150983cd24fb0d6963f7d28e17f72\n"
    );
}

#[test]
fn standard_input_when_no_file_or_dash() {
    for args in [vec!["sum"], vec!["sum", "-"]] {
        let mut child = hashlab()
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"abc").unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success());
        assert_eq!(stdout(&o), format!("{ABC_SHA256}  -\n"));
    }
}

#[test]
fn keys_lengths_and_customization() {
    let s = scratch("params");
    std::fs::write(s.path().join("key.bin"), [0x0bu8; 20]).unwrap();
    std::fs::write(s.path().join("hi"), b"Hi There").unwrap();
    // RFC 4231 test case 1, key from a file and as hex.
    let expected = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7  hi\n";
    let o = run_in(
        s.path(),
        &["sum", "-a", "hmac-sha256", "--key-file", "key.bin", "hi"],
    );
    assert_eq!(stdout(&o), expected);
    let o = run_in(
        s.path(),
        &["sum", "-a", "hmac-sha256", "--key", &"0b".repeat(20), "hi"],
    );
    assert_eq!(stdout(&o), expected);
    // SHAKE128 of "abc", 16 bytes: a prefix of the longer output.
    let o = run_in(s.path(), &["sum", "-a", "shake128", "-l", "16", "abc.txt"]);
    assert_eq!(stdout(&o), "5881092dd818bf5cf8a3ddb793fbcba7  abc.txt\n");
    // Every backend of an algorithm prints the same line.
    for backend in ["rustcrypto", "xkcp"] {
        let o = run_in(
            s.path(),
            &[
                "sum", "-a", "k12", "-b", backend, "--custom", "ctx", "-l", "40", "big.bin",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let reference = run_in(
            s.path(),
            &[
                "sum",
                "-a",
                "k12",
                "--custom-hex",
                "637478",
                "-l",
                "40",
                "big.bin",
            ],
        );
        assert_eq!(stdout(&o), stdout(&reference), "{backend}");
    }
}

#[test]
fn every_backend_agrees_through_the_cli() {
    let s = scratch("backends");
    let list = run_in(s.path(), &["list", "--json"]);
    let algorithms: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    for alg in algorithms.as_array().unwrap() {
        let name = alg["name"].as_str().unwrap();
        if alg["stable"] == false {
            // sum refuses it (check.rs shows how); its backends are held to
            // one another by the conformance routine instead.
            continue;
        }
        let mut lines = Vec::new();
        for backend in alg["backends"].as_array().unwrap() {
            if !backend["available"].as_bool().unwrap() {
                continue;
            }
            let b = backend["name"].as_str().unwrap();
            let o = run_in(
                s.path(),
                &["sum", "-a", name, "-b", b, "big.bin", "abc.txt", "empty"],
            );
            assert!(o.status.success(), "{name}/{b}: {}", stderr(&o));
            lines.push((b.to_string(), stdout(&o)));
        }
        assert!(!lines.is_empty(), "{name}: no available backend");
        for pair in lines.windows(2) {
            assert_eq!(
                pair[0].1, pair[1].1,
                "{name}: {} vs {}",
                pair[0].0, pair[1].0
            );
        }
    }
}

#[test]
fn file_errors_name_the_file_and_the_rest_still_run() {
    let s = scratch("errors");
    std::fs::create_dir(s.path().join("dir")).unwrap();
    let o = run_in(s.path(), &["sum", "missing", "abc.txt", "dir"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), format!("{ABC_SHA256}  abc.txt\n"));
    assert_eq!(
        stderr(&o),
        "hashlab: missing: No such file or directory\nhashlab: dir: Is a directory\n"
    );
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let s = scratch("unreadable");
    let p = s.path().join("secret");
    std::fs::write(&p, b"x").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut sum = hashlab();
    sum.current_dir(s.path()).args(["sum", "secret"]);
    if std::fs::read(&p).is_ok() {
        // Root reads anything: the run drops to nobody, whom the mode stops.
        use std::os::unix::process::CommandExt;
        sum.uid(65534).gid(65534);
    }
    let o = sum.output().expect("run hashlab");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "hashlab: secret: Permission denied\n");
}

#[test]
fn usage_errors_exit_2_with_one_clear_line() {
    let s = scratch("usage");
    let cases: &[(&[&str], &str)] = &[
        (&["-a", "sha265"], "hashlab: unknown algorithm 'sha265'; did you mean: sha224, sha256?\n"),
        (
            &["-b", "nope"],
            "hashlab: --backend: unknown backend 'nope' for sha256; its backends are: rustcrypto, openssl, ring, aws-lc\n",
        ),
        (&["--key", "0g"], "hashlab: --key: 'g' at position 2 is not a hex digit\n"),
        (&["--key", "abc"], "hashlab: --key: odd number of hex digits (3): hex needs two digits per byte\n"),
        (&["--key", "00"], "hashlab: --key: sha256 takes no key\n"),
        (
            &["-a", "siphash", "--key", "0011"],
            "hashlab: --key: siphash-2-4 key must be exactly 16 bytes, got 2 bytes\n",
        ),
        (
            &["-a", "blake3", "--key", "00"],
            "hashlab: --key: blake3 key must be exactly 32 bytes, got 1 byte\n",
        ),
        (
            &["-a", "blake2b", "-l", "65"],
            "hashlab: --length: blake2b output length must be 1..=64 bytes, got 65\n",
        ),
        (
            &["-a", "shake256", "-l", "0"],
            "hashlab: --length: shake256 output length must be 1..=1048576 bytes, got 0\n",
        ),
        (
            &["-l", "16"],
            "hashlab: --length: sha256 has a fixed output of 32 bytes; no other length is accepted\n",
        ),
        (&["--custom", "x"], "hashlab: --custom: sha256 takes no customization string\n"),
        (
            &["-a", "hmac-sha256", "--key-file", "no-such-key"],
            "hashlab: --key-file: no-such-key: No such file or directory\n",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["sum"];
        all.extend_from_slice(args);
        all.push("abc.txt");
        let o = run_in(s.path(), &all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert_eq!(stdout(&o), "", "{all:?}");
        assert_eq!(&stderr(&o), expected, "{all:?}");
    }
    // clap's own usage errors exit 2 as well.
    let o = run_in(s.path(), &["sum", "--no-such-flag"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn closed_pipe_ends_quietly_by_sigpipe() {
    let s = scratch("pipe");
    let names: Vec<&str> = std::iter::repeat_n("big.bin", 200).collect();
    let mut child = hashlab()
        .current_dir(s.path())
        .arg("sum")
        .args(&names)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then hang up, as `| head -1` does.
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    std::io::Read::read_exact(&mut out, &mut first).unwrap();
    drop(out);
    let o = child.wait_with_output().unwrap();
    assert_eq!(stderr(&o), "", "no complaint about the closed pipe");
    // As coreutils ends: by SIGPIPE (141 in a shell), not with exit 0, so a
    // pipeline with pipefail sees that the output was not all taken.
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(o.status.signal(), Some(13), "{:?}", o.status);
    }
}

#[test]
fn data_formats() {
    let s = scratch("formats");
    let o = run_in(s.path(), &["sum", "--json", "abc.txt"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["file"], "abc.txt");
    assert_eq!(v[0]["algorithm"], "sha256");
    assert_eq!(v[0]["bytes"], 3);
    assert_eq!(v[0]["digest"], ABC_SHA256);
    let o = run_in(
        s.path(),
        &["sum", "--format", "csv", "-b", "rustcrypto", "abc.txt"],
    );
    assert_eq!(
        stdout(&o),
        format!("file,algorithm,backend,bytes,digest,file_base64\nabc.txt,sha256,rustcrypto,3,{ABC_SHA256},\n")
    );
    let o = run_in(
        s.path(),
        &["sum", "--format", "md", "-b", "ring", "abc.txt"],
    );
    assert!(stdout(&o).starts_with("| file | algorithm | backend | bytes | digest |\n| --- |"));
    let o = run_in(s.path(), &["list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sha256 = v
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "sha256")
        .unwrap();
    for field in [
        "name",
        "aliases",
        "output_bits",
        "class",
        "tag",
        "default_backend",
        "backends",
    ] {
        assert!(!sha256[field].is_null(), "list --json lacks {field}");
    }
    for b in sha256["backends"].as_array().unwrap() {
        for field in ["name", "available", "reason"] {
            assert!(b.get(field).is_some(), "backend lacks {field}");
        }
    }
    for format in ["table", "csv", "md"] {
        let o = run_in(s.path(), &["list", "--format", format]);
        assert!(o.status.success());
        assert!(stdout(&o).contains("blake2bp"), "{format}");
    }
}

/// Failed on b4b9c33: `--format csv` wrote each invalid byte of a name as
/// U+FFFD, so `a\xff` and `a\xfe` became one row twice. The last column,
/// `file_base64`, holds the exact bytes of every name that is not UTF-8.
#[test]
fn csv_keeps_names_that_are_not_utf8_apart() {
    use std::os::unix::ffi::OsStrExt;
    let s = scratch("csv-bytes");
    for name in [&b"a\xff"[..], &b"a\xfe"[..]] {
        std::fs::write(s.path().join(std::ffi::OsStr::from_bytes(name)), b"x").unwrap();
    }
    let o = run_in(
        s.path(),
        &[
            "sum",
            "--format",
            "csv",
            "-a",
            "sha256",
            "-b",
            "rustcrypto",
            "-r",
            ".",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let x = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881";
    for (b64, name) in [("Li9h/w==", "./a\u{fffd}"), ("Li9h/g==", "./a\u{fffd}")] {
        let row = format!("{name},sha256,rustcrypto,1,{x},{b64}\n");
        assert!(out.contains(&row), "no row {row:?} in\n{out}");
    }
}

#[test]
fn peer_tools_accept_our_manifests() {
    let s = scratch("peers");
    std::fs::write(s.path().join("odd\\name"), b"odd").unwrap();
    let files = ["abc.txt", "empty", "big.bin", "odd\\name"];
    let cases: &[(&str, &[&str], &str, &[&str])] = &[
        ("sha256sum", &[], "m.sha256", &["-c"]),
        ("md5sum", &["-a", "md5"], "m.md5", &["-c"]),
        ("sha1sum", &["-a", "sha1", "--tag"], "m.sha1", &["-c"]),
        ("sha512sum", &["-a", "sha512"], "m.sha512", &["-c"]),
        ("b2sum", &["-a", "blake2b"], "m.b2", &["-c"]),
        (
            "b2sum",
            &["-a", "blake2b", "-l", "32", "--tag"],
            "m.b2-256",
            &["-c"],
        ),
        ("b3sum", &["-a", "blake3"], "m.b3", &["-c"]),
        ("xxhsum", &["-a", "xxh32"], "m.xxh32", &["-c"]),
        ("xxhsum", &["-a", "xxh64"], "m.xxh64", &["-c"]),
        ("xxhsum", &["-a", "xxh3-64"], "m.xxh3", &["-c"]),
        ("xxhsum", &["-a", "xxh3-128"], "m.xxh128", &["-c"]),
    ];
    for (tool, args, manifest, check) in cases {
        let Some(mut cmd) = peer(tool) else { continue };
        // b3sum and xxhsum do not all read escaped names: give them plain ones.
        let names: Vec<&str> = if tool.starts_with("b3") || tool.starts_with("xxh") {
            files[..3].to_vec()
        } else {
            files.to_vec()
        };
        let mut all = vec!["sum"];
        all.extend_from_slice(args);
        all.extend_from_slice(&names);
        let o = run_in(s.path(), &all);
        assert!(o.status.success(), "{all:?}: {}", stderr(&o));
        std::fs::write(s.path().join(manifest), &o.stdout).unwrap();
        let checked = cmd
            .current_dir(s.path())
            .args(*check)
            .arg(manifest)
            .output()
            .unwrap();
        assert!(
            checked.status.success(),
            "{tool} {check:?} {manifest} rejected:\n{}\n{}{}",
            stdout(&o),
            String::from_utf8_lossy(&checked.stdout),
            String::from_utf8_lossy(&checked.stderr)
        );
    }
}

#[test]
fn sum_output_is_byte_identical_to_coreutils() {
    let s = scratch("coreutils");
    for name in [
        "plain",
        "sp ace",
        "back\\slash",
        "new\nline",
        "cr\rname",
        "-dash",
        "ünïcödé",
    ] {
        std::fs::write(s.path().join(name), name.as_bytes()).unwrap();
    }
    let names = [
        "plain",
        "sp ace",
        "back\\slash",
        "new\nline",
        "cr\rname",
        "./-dash",
        "ünïcödé",
        "empty",
    ];
    for (tool, alg) in [
        ("md5sum", "md5"),
        ("sha1sum", "sha1"),
        ("sha256sum", "sha256"),
        ("sha512sum", "sha512"),
        ("b2sum", "blake2b"),
    ] {
        for tag in [false, true] {
            let Some(mut cmd) = peer(tool) else { continue };
            if tag {
                cmd.arg("--tag");
            }
            let theirs = cmd.current_dir(s.path()).args(names).output().unwrap();
            let mut ours = vec!["sum", "-a", alg];
            if tag {
                ours.push("--tag");
            }
            ours.extend_from_slice(&names);
            let o = run_in(s.path(), &ours);
            assert_eq!(
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&theirs.stdout),
                "{tool} tag={tag}"
            );
        }
    }
}

/// Whether this CPU has the features the README's default backends were
/// chosen with (SHA-NI and AVX-512F), asked as the registry asks when it
/// picks a default.
fn readme_cpu() -> bool {
    hashlab::cpu::has("sha") && hashlab::cpu::has("avx512f")
}

#[test]
fn readme_algorithm_table_is_in_sync() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let begin = "<!-- hashlab list --format md: begin -->\n";
    let end = "<!-- hashlab list --format md: end -->";
    let start = readme.find(begin).expect("README lacks the begin marker") + begin.len();
    let stop = readme.find(end).expect("README lacks the end marker");
    let in_readme = &readme[start..stop];
    let o = hashlab().args(["list", "--format", "md"]).output().unwrap();
    let generated = stdout(&o);
    if generated.contains("(unavailable)") {
        // The README shows a machine where every backend runs; here some cannot,
        // so compare everything but the backend column.
        eprintln!("NOTE: some backends are unavailable here; comparing the README table without availability marks");
        let strip = |t: &str| {
            t.lines()
                .map(|l| l.rsplitn(3, '|').nth(2).unwrap_or("").to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(in_readme), strip(&generated));
    } else if !readme_cpu() {
        // Which backend is the default depends on the CPU for SHA-1/SHA-256
        // (SHA-NI) and XXH3 (AVX-512F); the README shows a CPU with both.
        eprintln!("NOTE: this CPU lacks SHA-NI or AVX-512F; comparing the README table without default marks");
        assert_eq!(in_readme.replace('*', ""), generated.replace('*', ""));
    } else {
        assert_eq!(
            in_readme, generated,
            "run: hashlab list --format md, and paste it into README.md"
        );
    }
}

#[test]
fn completions_and_manual_page() {
    for shell in ["bash", "zsh", "fish"] {
        let o = hashlab().args(["completions", shell]).output().unwrap();
        assert!(o.status.success(), "{shell}");
        let script = stdout(&o);
        assert!(
            script.contains("hashlab") && script.contains("--files-from"),
            "{shell}"
        );
    }
    let o = hashlab().arg("man").output().unwrap();
    assert!(o.status.success());
    let page = stdout(&o);
    assert!(
        page.starts_with(".ie") || page.contains(".TH hashlab"),
        "roff: {}",
        &page[..80.min(page.len())]
    );
    assert!(page.contains("bench") && page.contains("sum"));

    // The build wrote a page per command into target/<profile>/man, and
    // `man --dir` writes the same pages.
    let built = Path::new(env!("HASHLAB_BUILT_MAN_DIR"));
    let s = scratch("man-pages");
    let o = run_in(s.path(), &["man", "--dir", "pages"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for command in [
        "hashlab",
        "hashlab-sum",
        "hashlab-check",
        "hashlab-audit",
        "hashlab-bench",
    ] {
        let written = std::fs::read_to_string(s.path().join(format!("pages/{command}.1"))).unwrap();
        assert!(written.contains(&format!(".TH {command} 1")), "{command}");
        let from_build = std::fs::read_to_string(built.join(format!("{command}.1")))
            .unwrap_or_else(|e| panic!("{}: {e}", built.join(command).display()));
        assert_eq!(from_build, written, "{command}");
    }
    assert!(stdout(&o).contains("hashlab-sum.1"));
    let o = run_in(s.path(), &["man", "--dir", "abc.txt"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("abc.txt"), "{}", stderr(&o));

    let o = hashlab()
        .args(["completions", "tcsh-of-the-future"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// `--base64`, `--raw` and `--no-names` against the tools that define them:
/// b3sum's `--raw` and `--no-names` run here; coreutils gained `--base64` and
/// `--raw` in 9.2, whose manual defines them as `openssl dgst -binary` and its
/// base64, so openssl is the oracle where the installed coreutils is older.
#[test]
fn digest_forms_match_b3sum_and_openssl() {
    let s = scratch("forms");
    let dir = s.path();
    for file in ["abc.txt", "empty", "big.bin"] {
        if let Some(mut b3) = peer("b3sum") {
            let ours = run_in(dir, &["sum", "-a", "blake3", "--no-names", file]);
            let theirs = b3
                .current_dir(dir)
                .args(["--no-names", file])
                .output()
                .unwrap();
            assert!(ours.status.success(), "{}", stderr(&ours));
            assert_eq!(ours.stdout, theirs.stdout, "b3sum --no-names {file}");
        }
        if let Some(mut b3) = peer("b3sum") {
            let ours = run_in(dir, &["sum", "-a", "blake3", "--raw", file]);
            let theirs = b3.current_dir(dir).args(["--raw", file]).output().unwrap();
            assert_eq!(ours.stdout, theirs.stdout, "b3sum --raw {file}");
        }
        for (ours_name, openssl_name, tag) in [
            ("sha256", "sha256", "SHA256"),
            ("md5", "md5", "MD5"),
            ("sha512", "sha512", "SHA512"),
        ] {
            let Some(mut openssl) = peer("openssl") else {
                continue;
            };
            let binary = openssl
                .current_dir(dir)
                .args(["dgst", &format!("-{openssl_name}"), "-binary", file])
                .output()
                .unwrap()
                .stdout;
            let raw = run_in(dir, &["sum", "-a", ours_name, "--raw", file]);
            assert_eq!(raw.stdout, binary, "--raw {ours_name} {file}");
            use base64::Engine;
            let b64 = base64::engine::general_purpose::STANDARD.encode(&binary);
            let tagged = run_in(dir, &["sum", "-a", ours_name, "--base64", "--tag", file]);
            assert_eq!(stdout(&tagged), format!("{tag} ({file}) = {b64}\n"));
            let untagged = run_in(dir, &["sum", "-a", ours_name, "--base64", file]);
            assert_eq!(stdout(&untagged), format!("{b64}  {file}\n"));
        }
    }
}

#[test]
fn base64_manifests_check_in_both_line_forms() {
    let s = scratch("b64check");
    let dir = s.path();
    for form in [&["--base64"][..], &["--base64", "--tag"]] {
        let mut args = vec!["sum", "-a", "sha384", "-o", "m.b64"];
        args.extend_from_slice(form);
        args.extend(["abc.txt", "empty", "big.bin"]);
        assert!(run_in(dir, &args).status.success());
        let o = run_in(dir, &["check", "-a", "sha384", "m.b64"]);
        assert!(o.status.success(), "{form:?}: {}{}", stdout(&o), stderr(&o));
        assert_eq!(stdout(&o).matches(": OK").count(), 3, "{form:?}");
        std::fs::write(dir.join("abc.txt"), b"abd").unwrap();
        let o = run_in(dir, &["check", "-a", "sha384", "m.b64"]);
        assert_eq!(o.status.code(), Some(1), "{form:?}");
        assert!(stdout(&o).contains("abc.txt: FAILED"), "{form:?}");
        std::fs::write(dir.join("abc.txt"), b"abc").unwrap();
    }
}

#[test]
fn raw_output_refuses_what_it_cannot_separate() {
    let s = scratch("rawrefuse");
    let dir = s.path();
    for args in [
        &["sum", "--raw", "abc.txt", "empty"][..],
        &["sum", "--raw", "-a", "sha256,md5", "abc.txt"],
        &["sum", "--raw", "-r", "."],
        &["sum", "--base64", "--format", "hashdeep", "abc.txt"],
    ] {
        let o = run_in(dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr(&o).lines().count().min(1), 1, "{args:?}");
    }
}

/// `--derive-key` as b3sum runs it; BLAKE2 salt and personalization as
/// Python's hashlib computes them; each parameter refused, naming its option,
/// where the algorithm has no such parameter or the value is out of range.
#[test]
fn parameters_match_b3sum_and_hashlib_and_are_refused_by_name() {
    let s = scratch("params");
    let dir = s.path();
    for file in ["abc.txt", "empty", "big.bin"] {
        for context in ["", "hashlab 2026-11-24 example context", "é ctx"] {
            let Some(mut b3) = peer("b3sum") else { break };
            let ours = run_in(dir, &["sum", "-a", "blake3", "--derive-key", context, file]);
            let theirs = b3
                .current_dir(dir)
                .args(["--derive-key", context, file])
                .output()
                .unwrap();
            assert!(ours.status.success(), "{}", stderr(&ours));
            assert_eq!(
                stdout(&ours),
                String::from_utf8(theirs.stdout).unwrap(),
                "{context:?} {file}"
            );
        }
        for (alg, salt, personal) in [
            ("blake2b", "00112233445566778899aabbccddeeff", "6162"),
            ("blake2s", "0102", "0102030405060708"),
        ] {
            let Some(mut python) = peer("python3") else {
                break;
            };
            let script = format!(
                "import hashlib,sys; d=open(sys.argv[1],'rb').read(); print(hashlib.{alg}(d, salt=bytes.fromhex('{salt}'), person=bytes.fromhex('{personal}')).hexdigest())"
            );
            let want = python
                .current_dir(dir)
                .args(["-c", &script, file])
                .output()
                .unwrap();
            let ours = run_in(
                dir,
                &[
                    "sum",
                    "-a",
                    alg,
                    "--salt",
                    salt,
                    "--personal",
                    personal,
                    file,
                ],
            );
            assert!(ours.status.success(), "{}", stderr(&ours));
            let want = String::from_utf8(want.stdout).unwrap();
            assert_eq!(
                stdout(&ours),
                format!("{}  {file}\n", want.trim()),
                "{alg} {file}"
            );
        }
    }
    for (args, option) in [
        (
            &["sum", "-a", "sha256", "--salt", "00", "abc.txt"][..],
            "--salt: ",
        ),
        (
            &[
                "sum",
                "-a",
                "blake2s",
                "--salt",
                "000102030405060708",
                "abc.txt",
            ],
            "--salt: ",
        ),
        (
            &["sum", "-a", "blake2b", "--personal", "zz", "abc.txt"],
            "--personal: ",
        ),
        (
            &["sum", "-a", "xxh32", "--seed", "4294967296", "abc.txt"],
            "--seed: ",
        ),
        (&["sum", "-a", "xxh64", "--seed=-1", "abc.txt"], "--seed: "),
        (
            &["sum", "-a", "sha256", "--seed", "1", "abc.txt"],
            "--seed: ",
        ),
        (
            &["sum", "-a", "turboshake128", "--domain", "0x80", "abc.txt"],
            "--domain: ",
        ),
        (
            &["sum", "-a", "turboshake128", "--domain", "0x00", "abc.txt"],
            "--domain: ",
        ),
        (
            &["sum", "-a", "sha3-256", "--domain", "0x06", "abc.txt"],
            "--domain: ",
        ),
        (
            &["sum", "-a", "sha256", "--derive-key", "c", "abc.txt"],
            "--derive-key: ",
        ),
        (
            &[
                "sum",
                "-a",
                "blake2b",
                "-b",
                "rustcrypto",
                "--salt",
                "00",
                "abc.txt",
            ],
            "--backend: ",
        ),
        (
            &["check", "-a", "xxh32", "--seed", "4294967296", "abc.txt"],
            "--seed: ",
        ),
    ] {
        let o = run_in(dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(option), "{args:?}: {err}");
    }
    // A seed or domain byte changes the digest; the default spelled out does not.
    let plain = stdout(&run_in(dir, &["sum", "-a", "turboshake128", "abc.txt"]));
    let default = stdout(&run_in(
        dir,
        &["sum", "-a", "turboshake128", "--domain", "0x1F", "abc.txt"],
    ));
    let other = stdout(&run_in(
        dir,
        &["sum", "-a", "turboshake128", "--domain", "0x06", "abc.txt"],
    ));
    assert_eq!(plain, default);
    assert_ne!(plain, other);
    let seeded = stdout(&run_in(
        dir,
        &["sum", "-a", "xxh3-64", "--seed", "0x2a", "abc.txt"],
    ));
    let decimal = stdout(&run_in(
        dir,
        &["sum", "-a", "xxh3-64", "--seed", "42", "abc.txt"],
    ));
    assert_eq!(seeded, decimal);
    // What sum writes with a seed, check reads with the same seed, and only with it.
    assert!(run_in(
        dir,
        &["sum", "-a", "xxh64", "--seed", "7", "-o", "m.xxh", "abc.txt", "big.bin"]
    )
    .status
    .success());
    let o = run_in(dir, &["check", "-a", "xxh64", "--seed", "7", "m.xxh"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let o = run_in(dir, &["check", "-a", "xxh64", "m.xxh"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "unseeded check of a seeded manifest"
    );
}

/// `sum -a crc32-posix` prints what `cksum` prints, byte for byte, files and
/// standard input alike; `--format cksum -a crc32` prints CRC-32 in the same
/// form (as `cksum -a crc32b`, whose value is zlib's crc32).
#[test]
fn crc32_posix_lines_are_cksums() {
    let s = scratch("cksum");
    let dir = s.path();
    let files = ["abc.txt", "empty", "big.bin"];
    if let Some(mut cksum) = peer("cksum") {
        let ours = run_in(dir, &[&["sum", "-a", "crc32-posix"][..], &files].concat());
        let theirs = cksum.current_dir(dir).args(files).output().unwrap();
        assert!(ours.status.success(), "{}", stderr(&ours));
        assert_eq!(stdout(&ours), String::from_utf8(theirs.stdout).unwrap());
        let ours = hashlab()
            .current_dir(dir)
            .args(["sum", "-a", "cksum"])
            .stdin(std::fs::File::open(dir.join("big.bin")).unwrap())
            .output()
            .unwrap();
        let theirs = Command::new("cksum")
            .stdin(std::fs::File::open(dir.join("big.bin")).unwrap())
            .output()
            .unwrap();
        assert_eq!(
            stdout(&ours),
            String::from_utf8(theirs.stdout).unwrap(),
            "stdin"
        );
    }
    if let Some(mut python) = peer("python3") {
        let want = python
            .current_dir(dir)
            .args(["-c", "import os,sys,zlib\nfor f in sys.argv[1:]: print(zlib.crc32(open(f,'rb').read()), os.path.getsize(f), f)"])
            .args(files)
            .output()
            .unwrap();
        let ours = run_in(
            dir,
            &[&["sum", "-a", "crc32", "--format", "cksum"][..], &files].concat(),
        );
        assert_eq!(stdout(&ours), String::from_utf8(want.stdout).unwrap());
    }
    let o = run_in(
        dir,
        &["sum", "-a", "sha256", "--format", "cksum", "abc.txt"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("hashlab: --format cksum: "),
        "{}",
        stderr(&o)
    );
}
