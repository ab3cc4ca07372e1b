//! `sum --piece`: hashdeep's piecewise lines byte for byte, JSON pieces,
//! and `check` and `audit` naming the byte ranges that changed, against
//! hashdeep 4.4 both ways (its `-p` manifests read here, ours loaded there).

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{hashlab_in, text, Scratch};

/// hashdeep when installed (it answers `-V`, not `--version`); where it is
/// not, says so, and under CI (`HASHLAB_CI`), where scripts/setup installs
/// it, fails instead.
fn hashdeep(dir: &Path) -> Option<Command> {
    let answers = Command::new("hashdeep")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !answers {
        hashlab_testkit::skip("hashdeep is not installed (scripts/setup installs it)");
        return None;
    }
    let mut command = Command::new("hashdeep");
    command.current_dir(dir);
    Some(command)
}

fn run(mut command: Command, args: &[&str]) -> Output {
    command.args(args).output().expect("run hashdeep")
}

/// Bytes no two pieces share.
fn data(len: usize, seed: u32) -> Vec<u8> {
    (0..len as u32)
        .map(|i| {
            (i.wrapping_mul(2_654_435_761)
                .wrapping_add(seed.wrapping_mul(97))
                >> 11) as u8
        })
        .collect()
}

/// The lines of a hashdeep manifest after its header.
fn body(manifest: &str) -> Vec<&str> {
    manifest
        .lines()
        .filter(|l| !l.starts_with("%%%%") && !l.starts_with('#'))
        .collect()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\n{}{}",
        o.status.code(),
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

/// Files around the piece size: shorter, exactly one and two pieces, one
/// past, empty, and one of several mebibytes (read on several threads).
fn tree(name: &str) -> Scratch {
    let s = Scratch::new(name);
    for (file, len) in [
        ("a", 3000usize),
        ("b", 2048),
        ("c", 1024),
        ("d", 1025),
        ("e", 0),
        ("f", 7),
        ("g", (3 << 20) + 5),
    ] {
        s.write(file, &data(len, len as u32));
    }
    s
}

const FILES: [&str; 7] = ["a", "b", "c", "d", "e", "f", "g"];

#[test]
fn piecewise_lines_are_hashdeeps_byte_for_byte() {
    let s = tree("hd-lines");
    let Some(_) = hashdeep(s.path()) else {
        return;
    };
    for (ours, theirs) in [("1k", "1k"), ("1K", "1k"), ("1M", "1m"), ("1000", "1000")] {
        let mut args = vec![
            "sum",
            "-a",
            "md5,sha256",
            "--format",
            "hashdeep",
            "--piece",
            ours,
        ];
        args.extend(FILES);
        let manifest = ok(&hashlab_in(s.path(), &args));
        // hashdeep with several threads may interleave files; one keeps its order.
        let mut hd = vec!["-c", "md5,sha256", "-j", "1", "-p", theirs];
        hd.extend(FILES);
        let pieces = ok(&run(hashdeep(s.path()).unwrap(), &hd));
        let mut hd = vec!["-c", "md5,sha256", "-j", "1"];
        hd.extend(FILES);
        let wholes = ok(&run(hashdeep(s.path()).unwrap(), &hd));
        // The same two column lines, and per file its whole line (which
        // hashdeep -p leaves out) then hashdeep's piece lines, in its order.
        assert_eq!(
            manifest.lines().take(2).collect::<Vec<_>>(),
            pieces.lines().take(2).collect::<Vec<_>>()
        );
        let mut expected = Vec::new();
        for file in FILES {
            let named = |l: &&str| {
                l.rsplit_once(',').is_some_and(|(_, n)| {
                    n.strip_prefix(&format!("{}/{file}", s.path().display()))
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with(" offset "))
                })
            };
            expected.extend(body(&wholes).into_iter().filter(named));
            expected.extend(body(&pieces).into_iter().filter(named));
        }
        assert!(body(&manifest) == expected, "--piece {ours}: {manifest}");
        // Every line hashdeep writes is there, and ours differ only by the wholes.
        assert_eq!(
            body(&manifest).len(),
            body(&pieces).len() + FILES.len(),
            "--piece {ours}"
        );
        // One thread, or one file at a time, writes the same.
        for jobs in ["1", "3"] {
            let mut args = args.clone();
            args.extend(["-j", jobs]);
            let again = ok(&hashlab_in(s.path(), &args));
            assert!(body(&again) == body(&manifest), "--piece {ours} -j {jobs}");
        }
    }
}

#[test]
fn hashdeep_loads_our_piecewise_manifest() {
    let s = tree("hd-loads");
    let Some(_) = hashdeep(s.path()) else {
        return;
    };
    let mut args = vec![
        "sum",
        "-a",
        "md5,sha256",
        "--format",
        "hashdeep",
        "--piece",
        "1k",
        "-o",
        "m.hd",
    ];
    args.extend(FILES);
    ok(&hashlab_in(s.path(), &args));
    let matched = |files: &[&str], flag: &str| {
        let mut hd = vec!["-c", "md5,sha256", "-k", "m.hd", flag];
        hd.extend(files);
        let o = run(hashdeep(s.path()).unwrap(), &hd);
        // hashdeep warns of a manifest it cannot read, and reads none of it.
        assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
        let mut got: Vec<String> = text(&o.stdout)
            .lines()
            .map(|l| l.rsplit('/').next().unwrap().to_string())
            .collect();
        got.sort();
        got
    };
    // Each file matches its whole line; none is unknown.
    assert_eq!(matched(&FILES, "-m"), FILES);
    assert!(matched(&FILES, "-x").is_empty());
    // A byte of the second piece changed: the whole line no longer matches.
    let mut a = data(3000, 3000);
    a[1500] ^= 0x40;
    s.write("a", &a);
    assert_eq!(matched(&FILES, "-x"), ["a"]);
    // Its first piece does, which is all hashdeep -p matches (see docs/cli.md).
    let o = run(
        hashdeep(s.path()).unwrap(),
        &["-c", "md5,sha256", "-p", "1k", "-k", "m.hd", "-M", "a"],
    );
    let ours = std::fs::read_to_string(s.path().join("m.hd")).unwrap();
    let first_piece = body(&ours)
        .into_iter()
        .find(|l| l.ends_with("/a offset 0-1023"))
        .unwrap()
        .to_string();
    assert_eq!(body(&text(&o.stdout)), [first_piece.as_str()]);
}

#[test]
fn hashdeeps_piecewise_manifests_are_checked_and_audited() {
    let s = tree("hd-read");
    let Some(_) = hashdeep(s.path()) else {
        return;
    };
    let mut hd = vec!["-c", "md5,sha256", "-p", "1k"];
    hd.extend(FILES);
    let manifest = ok(&run(hashdeep(s.path()).unwrap(), &hd));
    s.write("hd.txt", manifest.as_bytes());
    let check = ok(&hashlab_in(s.path(), &["check", "hd.txt"]));
    assert_eq!(check.matches(": OK\n").count(), FILES.len(), "{check}");
    let audit = hashlab_in(s.path(), &["audit", "hd.txt", "."]);
    assert!(
        text(&audit.stdout).ends_with(
            "audit passed: 7 matched, 0 changed, 0 missing, 0 new, 0 moved, 0 unreadable\n"
        ),
        "{}{}",
        text(&audit.stdout),
        text(&audit.stderr)
    );

    // Two bytes of `a` in adjacent pieces, one of `d`'s last piece, `b` cut short.
    let mut a = data(3000, 3000);
    a[1500] ^= 1;
    a[2048] ^= 1;
    s.write("a", &a);
    let mut d = data(1025, 1025);
    d[1024] ^= 1;
    s.write("d", &d);
    s.write("b", &data(2048, 2048)[..1500]);
    let root = s.path().display();
    let check = hashlab_in(s.path(), &["check", "hd.txt"]);
    assert_eq!(check.status.code(), Some(1));
    let out = text(&check.stdout);
    for line in [
        format!("{root}/a: FAILED\n{root}/a: bytes 1024-2999 changed\n"),
        format!(
            "{root}/b: FAILED\n{root}/b: bytes 1024-2047 changed (1500 bytes now, 2048 recorded)\n"
        ),
        format!("{root}/c: OK\n"),
        format!("{root}/d: FAILED\n{root}/d: bytes 1024-1024 changed\n"),
    ] {
        assert!(out.contains(&line), "{line}\n---\n{out}");
    }
    assert!(text(&check.stderr).contains("WARNING: 3 computed checksums did NOT match"));

    let audit = hashlab_in(s.path(), &["audit", "hd.txt", "."]);
    assert_eq!(audit.status.code(), Some(1));
    let out = text(&audit.stdout);
    assert!(
        out.contains("changed: ./a\n./a: bytes 1024-2999 changed\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "audit FAILED: 4 matched, 3 changed, 0 missing, 0 new, 0 moved, 0 unreadable\n"
        ),
        "{out}"
    );
    // A file gone is missing, a file not listed is new, as for whole digests.
    std::fs::remove_file(s.path().join("c")).unwrap();
    s.write("new", b"n");
    let audit = hashlab_in(s.path(), &["audit", "--format", "json", "hd.txt", "."]);
    let json: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert_eq!(json["missing"][0], format!("{root}/c"));
    assert_eq!(json["new"][0], "./new");
    let a = json["changed_pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "./a")
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(a["changed"], serde_json::json!([[1024, 2999]]));
    assert_eq!(
        (a["bytes"].as_u64(), a["recorded_bytes"].as_u64()),
        (Some(3000), Some(3000))
    );
}

#[test]
fn json_pieces_are_written_read_back_and_compared() {
    let s = tree("json");
    let mut plain = vec!["sum", "--json", "-a", "sha256,blake3"];
    plain.extend(FILES);
    let mut pieced = plain.clone();
    pieced.extend(["--piece", "1k", "-o", "m.json"]);
    ok(&hashlab_in(s.path(), &pieced));
    let rows: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.path().join("m.json")).unwrap()).unwrap();
    let plain: serde_json::Value =
        serde_json::from_str(&ok(&hashlab_in(s.path(), &plain))).unwrap();
    for (row, plain) in rows
        .as_array()
        .unwrap()
        .iter()
        .zip(plain.as_array().unwrap())
    {
        // sum --json's row, whole digest included, and `pieces` beside it.
        for (key, value) in plain.as_object().unwrap() {
            assert_eq!(&row[key], value, "{key}");
        }
        let bytes = row["bytes"].as_u64().unwrap() as usize;
        let pieces = row["pieces"]["digests"].as_array().unwrap();
        assert_eq!(row["pieces"]["size"], 1024);
        assert_eq!(pieces.len(), bytes.div_ceil(1024).max(1));
        // Each piece is the digest of its bytes, as `sum` of the piece alone gives.
        let file = row["file"].as_str().unwrap();
        let content = std::fs::read(s.path().join(file)).unwrap();
        for (i, digest) in pieces.iter().enumerate().step_by(97) {
            let end = ((i + 1) * 1024).min(bytes);
            s.write("piece", &content[i * 1024..end]);
            let one = ok(&hashlab_in(
                s.path(),
                &[
                    "sum",
                    "--json",
                    "-a",
                    row["algorithm"].as_str().unwrap(),
                    "piece",
                ],
            ));
            let one: serde_json::Value = serde_json::from_str(&one).unwrap();
            assert_eq!(&one[0]["digest"], digest, "{file} piece {i}");
        }
    }
    std::fs::remove_file(s.path().join("piece")).unwrap();
    let check = ok(&hashlab_in(s.path(), &["check", "m.json"]));
    assert_eq!(check.matches(": OK\n").count(), 2 * FILES.len(), "{check}");

    // A byte in the middle of the large file: one piece, in both algorithms.
    let mut g = data((3 << 20) + 5, (3 << 20) + 5);
    g[(2 << 20) + 10] ^= 0xff;
    s.write("g", &g);
    let check = hashlab_in(s.path(), &["check", "m.json"]);
    assert_eq!(check.status.code(), Some(1));
    let expected = "g: FAILED\ng: bytes 2097152-2098175 changed\n";
    assert_eq!(
        text(&check.stdout).matches(expected).count(),
        2,
        "{}",
        text(&check.stdout)
    );
    let audit = hashlab_in(s.path(), &["audit", "m.json", "."]);
    assert!(
        text(&audit.stdout).starts_with("changed: ./g\n./g: bytes 2097152-2098175 changed\n"),
        "{}",
        text(&audit.stdout)
    );
    let table = text(&hashlab_in(s.path(), &["audit", "--format", "csv", "m.json", "."]).stdout);
    assert!(
        table.contains("changed,./g,bytes 2097152-2098175 changed"),
        "{table}"
    );
}

#[test]
fn bad_sizes_and_bad_combinations_are_usage_errors() {
    let s = tree("usage");
    for (args, wanted) in [
        (
            &["--json", "--piece", "0"][..],
            "--piece: '0': a piece must be at least 1 byte",
        ),
        (&["--json", "--piece", "x"], "--piece: 'x' is not a size"),
        (
            &["--json", "--piece", "1.5k"],
            "--piece: '1.5k' is not a size",
        ),
        (
            &["--json", "--piece", "4q"],
            "--piece: '4q': unknown suffix 'q'",
        ),
        (
            &["--piece", "1k"],
            "--piece: pieces are written in --format hashdeep or --json",
        ),
        (
            &["--format", "sfv", "--piece", "1k"],
            "--piece: pieces are written in",
        ),
        (
            &["--json", "-a", "tuplehash128", "--piece", "1k"],
            "--piece: tuplehash128 hashes an input's length",
        ),
        (
            &["--json", "--piece", "1k", "s3://bucket/x"],
            "--piece: s3://bucket/x: pieces are hashed of local files",
        ),
    ] {
        let mut all = vec!["sum"];
        all.extend(args);
        all.push("a");
        let o = hashlab_in(s.path(), &all);
        assert_eq!(o.status.code(), Some(2), "{all:?}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{all:?}: {err}");
        assert!(err.contains(wanted), "{all:?}: {err}");
        assert!(o.stdout.is_empty());
    }
    let o = hashlab_in(s.path(), &["sum", "--git", "--json", "--piece", "1k", "a"]);
    assert_eq!(o.status.code(), Some(2));
    // A file that cannot be read is one line; the others are written.
    let o = hashlab_in(
        s.path(),
        &["sum", "--json", "--piece", "1k", "a", "nope", "f"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "hashlab: nope: No such file or directory\n"
    );
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 2);
}

/// A name hashdeep's lines cannot hold with its pieces (a newline) is one
/// error and no line, the other files written; JSON holds it. A name that
/// ends as a piece line's does is itself, read back.
#[cfg(unix)]
#[test]
fn names_hashdeeps_piece_lines_cannot_hold() {
    let s = Scratch::with_files(
        "odd-names",
        &[("new\nline", b"abc"), ("x offset 0-2", b"xyz"), ("y", b"y")],
    );
    let o = hashlab_in(
        s.path(),
        &[
            "sum",
            "--format",
            "hashdeep",
            "--piece",
            "2",
            "-o",
            "m.hd",
            "new\nline",
            "x offset 0-2",
            "y",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "hashlab: 'new'$'\\n''line': hashdeep's piece lines cannot hold a name with a newline or a final carriage return (JSON can)\n"
    );
    let audit = hashlab_in(s.path(), &["audit", "m.hd", "x offset 0-2", "y"]);
    assert!(
        text(&audit.stdout).ends_with(
            "audit passed: 2 matched, 0 changed, 0 missing, 0 new, 0 moved, 0 unreadable\n"
        ),
        "{}{}",
        text(&audit.stdout),
        text(&audit.stderr)
    );
    ok(&hashlab_in(
        s.path(),
        &["sum", "--json", "--piece", "2", "-o", "m.json", "new\nline"],
    ));
    s.write("new\nline", b"abd");
    let check = hashlab_in(s.path(), &["check", "m.json"]);
    assert_eq!(
        text(&check.stdout),
        "\\new\\nline: FAILED\n\\new\\nline: bytes 2-2 changed\n"
    );
}

/// Pieces that overlap, leave a gap, come out of order or disagree with the
/// file's length: one line naming the manifest line, the file and the
/// problem, and the check fails; the other files are still checked.
#[test]
fn incoherent_piecewise_manifests_are_refused_line_by_line() {
    let s = tree("incoherent");
    let o = hashlab_in(
        s.path(),
        &[
            "sum", "--format", "hashdeep", "-a", "md5", "--piece", "1k", "a", "f",
        ],
    );
    let manifest = ok(&o);
    let root = s.path().display().to_string();
    let lines: Vec<&str> = manifest.lines().collect();
    // Line 6 is a's whole line, 7-9 its pieces, 10-11 f's.
    assert!(lines[6].ends_with("/a offset 0-1023") && lines[8].ends_with("/a offset 2048-2999"));
    let with = |edit: &dyn Fn(&mut Vec<String>)| {
        let mut l: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        edit(&mut l);
        l.join("\n") + "\n"
    };
    let cases: [(String, String); 5] = [
        (
            with(&|l| l.swap(6, 7)),
            format!("hashlab: m.hd: line 7: {root}/a: its first piece starts at byte 1024, not 0"),
        ),
        (
            with(&|l| l[7] = l[7].replace("offset 1024-2047", "offset 1000-2023")),
            format!("hashlab: m.hd: line 8: {root}/a: overlapping pieces (offset 1000 inside offset 0-1023)"),
        ),
        (
            with(&|l| {
                l.remove(7);
            }),
            format!("hashlab: m.hd: line 8: {root}/a: no piece holds bytes 1024-2047"),
        ),
        (
            with(&|l| {
                let first = l[6].clone();
                l.insert(9, first);
            }),
            format!("hashlab: m.hd: line 10: {root}/a: pieces listed out of order (offset 0 after offset 2048-2999)"),
        ),
        (
            with(&|l| l[5] = l[5].replacen("3000,", "3001,", 1)),
            format!("hashlab: m.hd: line 7: {root}/a: its pieces hold 3000 bytes, and its own line says 3001"),
        ),
    ];
    for (manifest, problem) in cases {
        s.write("m.hd", manifest.as_bytes());
        let check = hashlab_in(s.path(), &["check", "m.hd"]);
        assert_eq!(check.status.code(), Some(1), "{manifest}");
        let err = text(&check.stderr);
        assert_eq!(err.lines().next(), Some(problem.as_str()), "{err}");
        assert!(
            text(&check.stdout).contains(&format!("{root}/f: OK")),
            "{}",
            text(&check.stdout)
        );
        let audit = hashlab_in(s.path(), &["audit", "m.hd", "a", "f"]);
        assert_eq!(text(&audit.stderr).lines().next(), Some(problem.as_str()));
    }
    // JSON whose pieces do not make up the file.
    let json = ok(&hashlab_in(
        s.path(),
        &["sum", "--json", "--piece", "1k", "a"],
    ));
    let broken = json.replacen("\"size\": 1024", "\"size\": 512", 1);
    s.write("m.json", broken.as_bytes());
    let check = hashlab_in(s.path(), &["check", "m.json"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        text(&check.stderr).starts_with(
            "hashlab: m.json: entry 1: a: 3 pieces, where its length and piece size make 6\n"
        ),
        "{}",
        text(&check.stderr)
    );
}
