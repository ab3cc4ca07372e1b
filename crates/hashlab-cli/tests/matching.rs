//! `match`: hashdeep's matching modes (-m, -x, -M, -X, -w) checked against
//! hashdeep itself, NSRL's RDS v3 database (made here with its published
//! schema, damaged in each way a download can be), the exit status's bits
//! as hashdeep's manual gives them, and several sets of mixed forms at once.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use common::{hashlab_in, text};

fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("hashlab-match-{name}-"))
        .tempdir()
        .unwrap()
}

fn write(dir: &Path, name: &str, content: &[u8]) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// hashdeep, when installed; under CI (`HASHLAB_CI`), where scripts/setup
/// installs it, a missing hashdeep fails the test. (It answers `-V`, not
/// `--version`, so `common::peer` does not find it.)
fn hashdeep() -> Option<Command> {
    if Command::new("hashdeep")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(Command::new("hashdeep"));
    }
    let why = "hashdeep is not installed (scripts/setup installs it)";
    hashlab_testkit::skip(why);
    None
}

fn run_hashdeep(dir: &Path, args: &[&str]) -> Output {
    // -j0: one thread, so that a failure's output is in a readable order.
    hashdeep()
        .expect("checked by the caller")
        .current_dir(dir)
        .arg("-j0")
        .args(args)
        .output()
        .unwrap()
}

fn lines(bytes: &[u8]) -> BTreeSet<String> {
    text(bytes)
        .lines()
        .filter(|l| !l.starts_with('%') && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn status(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed by a signal")
}

/// One line on stderr, naming `file`, and status 64: what every bad set gives.
fn refused(o: &Output, file: &str, says: &str) {
    let err = text(&o.stderr);
    assert_eq!(status(o), 64, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("hashlab: {file}: ")) && err.contains(says),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}

/// A tree to match, and a tree whose hashdeep file is the known set: some
/// contents in both (under other names too), some in one only. Names with a
/// space and a comma (hashdeep's separator, last on its lines) included.
fn trees(dir: &Path) {
    for (name, content) in [
        ("t/a", &b"alpha"[..]),
        ("t/b", b"bravo"),
        ("t/sub/c", b"charlie"),
        ("t/copy of a", b"alpha"),
        ("t/new,file", b"not known"),
        ("t/empty", b""),
        ("t/sub/other", b"also not known"),
        ("k/a", b"alpha"),
        ("k/b", b"bravo"),
        ("k/c, renamed", b"charlie"),
        ("k/only known", b"never input"),
    ] {
        write(dir, name, content);
    }
}

#[test]
fn names_and_lines_are_hashdeeps() {
    if hashdeep().is_none() {
        return;
    }
    let s = scratch("hashdeep");
    trees(s.path());
    // hashdeep's own known file (md5 and sha256 columns, relative names).
    let made = run_hashdeep(s.path(), &["-l", "-r", "k"]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    std::fs::write(s.path().join("known.hd"), &made.stdout).unwrap();
    for mode in ["-m", "-x", "-M", "-X"] {
        let theirs = run_hashdeep(s.path(), &["-l", "-k", "known.hd", mode, "-r", "t"]);
        let ours = hashlab_in(s.path(), &["match", "-k", "known.hd", mode, "-r", "t"]);
        assert!(theirs.stderr.is_empty(), "{mode}: {}", text(&theirs.stderr));
        assert!(ours.stderr.is_empty(), "{mode}: {}", text(&ours.stderr));
        let (theirs, ours) = (lines(&theirs.stdout), lines(&ours.stdout));
        assert!(!ours.is_empty(), "{mode}");
        assert_eq!(ours, theirs, "{mode}");
        if mode.starts_with("-M") || mode.starts_with("-X") {
            // Both sets' columns, as hashdeep prints them: size,md5,sha256,name.
            assert!(
                ours.iter().all(|l| l.splitn(4, ',').count() == 4),
                "{ours:?}"
            );
        }
    }
    // -w: the name each match was recorded under.
    let theirs = run_hashdeep(s.path(), &["-l", "-k", "known.hd", "-m", "-w", "-r", "t"]);
    let ours = hashlab_in(s.path(), &["match", "-k", "known.hd", "-w", "-r", "t"]);
    assert_eq!(lines(&ours.stdout), lines(&theirs.stdout));
    assert!(lines(&ours.stdout).contains("t/sub/c matches k/c, renamed"));
    // An entry whose MD5 is a file's and whose SHA-256 is not: hashdeep's
    // "partial hash match", a collision, matches nothing (in either tool).
    let tampered: String = text(&std::fs::read(s.path().join("known.hd")).unwrap())
        .lines()
        .map(|l| match l.strip_suffix(",k/a") {
            Some(start) => format!("{},{},k/a\n", &start[..start.len() - 65], "0".repeat(64)),
            None => format!("{l}\n"),
        })
        .collect();
    assert!(tampered.contains(&"0".repeat(64)));
    std::fs::write(s.path().join("tampered.hd"), tampered).unwrap();
    for mode in ["-m", "-x"] {
        let theirs = run_hashdeep(s.path(), &["-l", "-k", "tampered.hd", mode, "-r", "t"]);
        let ours = hashlab_in(s.path(), &["match", "-k", "tampered.hd", mode, "-r", "t"]);
        assert_eq!(lines(&ours.stdout), lines(&theirs.stdout), "{mode}");
        let warned = |o: &Output, says: &str| {
            let err = text(&o.stderr);
            let files: BTreeSet<&str> = err
                .lines()
                .map(|l| {
                    assert!(l.contains(says), "{l}");
                    l.split(": ").find(|f| f.starts_with("t/")).unwrap()
                })
                .collect();
            assert_eq!(files, ["t/a", "t/copy of a"].into(), "{err}");
        };
        warned(&theirs, "partial hash match");
        warned(&ours, "its md5 is a known entry's and its sha256 is not");
    }
    // The header above -M's lines is hashdeep's: its known file reads back.
    let ours = hashlab_in(s.path(), &["match", "-k", "known.hd", "-M", "-r", "t"]);
    std::fs::write(s.path().join("matched.hd"), &ours.stdout).unwrap();
    let again = run_hashdeep(s.path(), &["-l", "-k", "matched.hd", "-m", "-r", "t"]);
    assert!(again.stderr.is_empty(), "{}", text(&again.stderr));
    assert_eq!(
        lines(&again.stdout),
        lines(&hashlab_in(s.path(), &["match", "-k", "known.hd", "-r", "t"]).stdout)
    );
}

#[test]
fn the_exit_status_has_hashdeeps_bits() {
    let s = scratch("bits");
    trees(s.path());
    let sum = hashlab_in(s.path(), &["sum", "-r", "-o", "k.sha256", "k"]);
    assert!(sum.status.success(), "{}", text(&sum.stderr));
    let cases: [(&[&str], i32); 8] = [
        // Every input known, every known digest met.
        (&["t/a", "t/b", "t/sub/c", "k/only known"], 0),
        // Known digests unused.
        (&["t/a"], 1),
        // An input matching nothing, every known digest used.
        (&["t/a", "t/b", "t/sub/c", "k/only known", "t/empty"], 2),
        (&["t/new,file"], 3),
        // An unreadable input: an error, not an unmatched input.
        (
            &["t/a", "t/b", "t/sub/c", "k/only known", "no such file"],
            64,
        ),
        (&["t/a", "no such file"], 65),
        (&["t/sub"], 65),
        (&["-r", "t"], 3),
    ];
    for mode in ["-m", "-x", "-M", "-X"] {
        for (inputs, expected) in cases {
            let mut args = vec!["match", "-k", "k.sha256", mode];
            args.extend_from_slice(inputs);
            let o = hashlab_in(s.path(), &args);
            assert_eq!(status(&o), expected, "{args:?}: {}", text(&o.stderr));
            let err = text(&o.stderr);
            if expected & 64 != 0 {
                let bad = if inputs.contains(&"t/sub") {
                    "hashlab: t/sub: Is a directory"
                } else {
                    "hashlab: no such file: No such file or directory"
                };
                assert_eq!(err.trim_end(), bad, "{args:?}");
            } else {
                assert!(err.is_empty(), "{args:?}: {err}");
            }
        }
    }
    // Usage errors are 64, clap's own included (2 would say "unmatched input").
    for args in [
        &["match", "-k", "k.sha256", "-m", "-x", "t/a"][..],
        &["match", "t/a"],
        &["match", "-k", "k.sha256", "-x", "-w", "t/a"],
        &["match", "-k", "k.sha256", "--bogus", "t/a"],
        &["match", "-k", "k.sha256", "-a", "nosuch", "t/a"],
        &["match", "-k", "k.sha256", "-j", "0", "t/a"],
        &["match", "-k", "k.sha256", "--exclude", "[", "t/a"],
    ] {
        let o = hashlab_in(s.path(), args);
        assert_eq!(status(&o), 64, "{args:?}: {}", text(&o.stderr));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // Output that cannot be written: 128, hashdeep's internal error.
    let o = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(s.path())
        .args(["match", "-k", "k.sha256", "t/a"])
        .stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(status(&o), 128, "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        "hashlab: write error: No space left on device\n"
    );
    let o = hashlab_in(s.path(), &["match", "--help"]);
    assert_eq!(status(&o), 0);
    assert!(text(&o.stdout).contains("--known"));
}

#[test]
fn which_names_the_known_entry() {
    let s = scratch("which");
    trees(s.path());
    let sum = hashlab_in(s.path(), &["sum", "-r", "-o", "k.sha256", "k"]);
    assert!(sum.status.success());
    let o = hashlab_in(
        s.path(),
        &[
            "match",
            "-k",
            "k.sha256",
            "-w",
            "t/copy of a",
            "t/sub/c",
            "t/empty",
        ],
    );
    assert_eq!(
        text(&o.stdout),
        "t/copy of a matches k/a\nt/sub/c matches k/c, renamed\n"
    );
    assert_eq!(status(&o), 3);
    // With -M, after hashdeep's line (as the manual says; hashdeep 4.4 ignores -w there).
    let o = hashlab_in(s.path(), &["match", "-k", "k.sha256", "-M", "-w", "t/a"]);
    let out = text(&o.stdout);
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with("5,") && last.ends_with(",t/a matches k/a"),
        "{out}"
    );
    assert!(out.starts_with("%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n"));
    // Standard input is `-`.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(s.path())
        .args(["match", "-k", "k.sha256", "-w"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"bravo").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(text(&o.stdout), "- matches k/b\n");
}

#[test]
fn a_name_with_a_newline_stays_on_its_line() {
    let s = scratch("newline");
    write(s.path(), "t/two\nlines", b"alpha");
    write(s.path(), "k/a", b"alpha");
    let sum = hashlab_in(s.path(), &["sum", "-r", "-o", "k.sha256", "k"]);
    assert!(sum.status.success());
    let o = hashlab_in(s.path(), &["match", "-k", "k.sha256", "-r", "t"]);
    assert_eq!(text(&o.stdout), "\\t/two\\nlines\n");
    assert_eq!(status(&o), 0);
}

/// NSRL's RDS v3 schema as published (RDS_2024.12.1_modern_minimal.schema.sql).
const RDS_V3_SCHEMA: &str = "CREATE TABLE FILE (
 sha256     VARCHAR NOT NULL,
 sha1       VARCHAR NOT NULL,
 md5        VARCHAR NOT NULL,
 crc32      VARCHAR NOT NULL,
 file_name  VARCHAR NOT NULL,
 file_size  INTEGER NOT NULL,
 package_id INTEGER NOT NULL,
 CONSTRAINT PK_FILE__FILE PRIMARY KEY (sha256, sha1, md5, crc32, file_name, file_size, package_id)
);
CREATE TABLE MFG (
 manufacturer_id INTEGER NOT NULL,
 name            VARCHAR NOT NULL,
 CONSTRAINT PK_MFG__MFG_ID PRIMARY KEY (manufacturer_id)
);
CREATE TABLE OS (
 operating_system_id INTEGER NOT NULL,
 name                VARCHAR NOT NULL,
 version             VARCHAR NOT NULL,
 manufacturer_id     INTEGER NOT NULL,
 CONSTRAINT PK_OS__OS_ID PRIMARY KEY (operating_system_id, manufacturer_id)
);
CREATE TABLE PKG (
 package_id          INTEGER NOT NULL,
 name                VARCHAR NOT NULL,
 version             VARCHAR NOT NULL,
 operating_system_id INTEGER NOT NULL,
 manufacturer_id     INTEGER NOT NULL,
 language            VARCHAR NOT NULL,
 application_type    VARCHAR NOT NULL,
 CONSTRAINT PK_PGK__PKG_ID PRIMARY KEY (package_id, operating_system_id, manufacturer_id, language, application_type)
);
CREATE TABLE VERSION (
 version      VARCHAR UNIQUE NOT NULL,
 build_set    VARCHAR NOT NULL,
 build_date   TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,
 release_date TIMESTAMP NOT NULL,
 description  VARCHAR NOT NULL,
 CONSTRAINT PK_VERSION__VERSION PRIMARY KEY (version)
);
CREATE VIEW DISTINCT_HASH AS
 SELECT DISTINCT
  sha256,
  sha1,
  md5,
  crc32
 FROM
  FILE
;
";

/// Each algorithm's digest of `file`, by hashlab sum (checked against the
/// coreutils by the other tests), upper case as NSRL writes them.
fn nsrl_digests(dir: &Path, file: &str) -> [String; 4] {
    let o = hashlab_in(dir, &["sum", "-a", "sha256,sha1,md5,crc32", "--json", file]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let digest = |i: usize| rows[i]["digest"].as_str().unwrap().to_uppercase();
    [digest(0), digest(1), digest(2), digest(3)]
}

/// An RDS v3 database at `dir/name` holding these files' digests under
/// these names (a file in two packages is two rows), plus `others` rows of
/// files that are not in any tree.
fn nsrl(dir: &Path, name: &str, rows: &[(&str, &str, i64)], others: i64, wal: bool) {
    let db = rusqlite::Connection::open(dir.join(name)).unwrap();
    if wal {
        db.pragma_update(None, "journal_mode", "WAL").unwrap();
    }
    db.execute_batch(RDS_V3_SCHEMA).unwrap();
    db.execute(
        "INSERT INTO VERSION (version, build_set, release_date, description) VALUES ('2024.12.1', 'Modern', '2024-12-01', 'test set')",
        [],
    )
    .unwrap();
    let mut insert = db
        .prepare("INSERT INTO FILE VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
        .unwrap();
    for (file, known_as, package) in rows {
        let [sha256, sha1, md5, crc32] = nsrl_digests(dir, file);
        let size = std::fs::metadata(dir.join(file)).unwrap().len() as i64;
        insert
            .execute(rusqlite::params![
                sha256, sha1, md5, crc32, known_as, size, package
            ])
            .unwrap();
    }
    // From 1: a zero CRC-32 is the empty file's.
    for i in 1..=others {
        insert
            .execute(rusqlite::params![
                format!("{i:064X}"),
                format!("{i:040X}"),
                format!("{i:032X}"),
                format!("{i:08X}"),
                format!("other{i}.dll"),
                i,
                7
            ])
            .unwrap();
    }
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn nsrl_rds_v3_is_a_known_set() {
    let s = scratch("nsrl");
    trees(s.path());
    let rows = [
        ("k/a", "ALPHA.DLL", 1),
        ("k/a", "alpha-copy.dll", 2),
        ("k/b", "bravo.exe", 1),
    ];
    for wal in [false, true] {
        let db = if wal { "wal.db" } else { "rds.db" };
        nsrl(s.path(), db, &rows, 50, wal);
        let before = listing(s.path());
        for algorithm in [
            None,
            Some("md5"),
            Some("sha1"),
            Some("SHA-256"),
            Some("crc32"),
        ] {
            let mut args = vec!["match", "-k", db, "-r", "t"];
            if let Some(a) = algorithm {
                args.extend(["-a", a]);
            }
            let o = hashlab_in(s.path(), &args);
            assert_eq!(
                text(&o.stdout),
                "t/a\nt/b\nt/copy of a\n",
                "{algorithm:?}: {}",
                text(&o.stderr)
            );
            // Unused: the 50 other rows; unmatched: c, new, empty, other.
            assert_eq!(status(&o), 3, "{algorithm:?}");
            assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
        }
        let o = hashlab_in(s.path(), &["match", "-k", db, "-w", "-x", "t/a"]);
        assert_eq!(status(&o), 64);
        let o = hashlab_in(s.path(), &["match", "-k", db, "-w", "t/a", "t/b"]);
        assert_eq!(
            text(&o.stdout),
            "t/a matches ALPHA.DLL\nt/b matches bravo.exe\n"
        );
        let o = hashlab_in(s.path(), &["match", "-k", db, "-X", "t/sub/c"]);
        let out = text(&o.stdout);
        assert!(
            out.starts_with("%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n")
                && out.ends_with(",t/sub/c\n"),
            "{out}"
        );
        // Read-only and immutable: no journal, WAL or lock file beside it.
        assert_eq!(listing(s.path()), before, "{db}");
    }
}

#[test]
fn a_damaged_nsrl_database_is_one_line_and_64() {
    let s = scratch("nsrl-damaged");
    trees(s.path());
    nsrl(s.path(), "good.db", &[("k/a", "a", 1)], 50, false);
    let good = std::fs::read(s.path().join("good.db")).unwrap();
    assert!(good.len() > 8192, "{}", good.len());

    // Truncated mid-download: SQLite's header says more pages than there are.
    write(s.path(), "truncated.db", &good[..good.len() / 2]);
    let o = hashlab_in(s.path(), &["match", "-k", "truncated.db", "t/a"]);
    refused(&o, "truncated.db", "damaged");
    // Pages overwritten.
    let mut corrupt = good.clone();
    for b in &mut corrupt[4096..] {
        *b ^= 0x5a;
    }
    write(s.path(), "corrupt.db", &corrupt);
    let o = hashlab_in(s.path(), &["match", "-k", "corrupt.db", "t/a"]);
    refused(&o, "corrupt.db", "database");
    // SQLite's magic, then nothing SQLite can read.
    let mut header_only = b"SQLite format 3\0".to_vec();
    header_only.extend_from_slice(&[0xff; 200]);
    write(s.path(), "header.db", &header_only);
    let o = hashlab_in(s.path(), &["match", "-k", "header.db", "t/a"]);
    refused(&o, "header.db", "database");
    // Not SQLite at all, nor a manifest.
    write(s.path(), "junk.db", &[0x89, b'P', b'N', b'G', 0, 1, 2, 3]);
    let o = hashlab_in(s.path(), &["match", "-k", "junk.db", "t/a"]);
    assert_eq!(status(&o), 64);
    assert!(
        text(&o.stderr).ends_with("hashlab: junk.db: no properly formatted checksum lines found (1 improperly formatted)\n"),
        "{}",
        text(&o.stderr)
    );

    let other = |name: &str, sql: &str| {
        let db = rusqlite::Connection::open(s.path().join(name)).unwrap();
        db.execute_batch(sql).unwrap();
    };
    other("nofile.db", "CREATE TABLE PKG (package_id INTEGER);");
    let o = hashlab_in(s.path(), &["match", "-k", "nofile.db", "t/a"]);
    refused(&o, "nofile.db", "no FILE table");
    other(
        "badhex.db",
        &format!(
            "{RDS_V3_SCHEMA} INSERT INTO FILE VALUES ('{}', 'A', 'B', 'C', 'x', 1, 1), ('NOT HEX', 'A', 'B', 'C', 'y', 1, 1);",
            "AB".repeat(32)
        ),
    );
    let o = hashlab_in(s.path(), &["match", "-k", "badhex.db", "t/a"]);
    refused(
        &o,
        "badhex.db",
        "FILE row 2: sha256 is 'NOT HEX', not 64 hex digits",
    );
    let o = hashlab_in(s.path(), &["match", "-k", "badhex.db", "-a", "md5", "t/a"]);
    refused(&o, "badhex.db", "FILE row 1: md5 is 'B', not 32 hex digits");
    other("empty.db", RDS_V3_SCHEMA);
    let o = hashlab_in(s.path(), &["match", "-k", "empty.db", "t/a"]);
    refused(&o, "empty.db", "FILE has no row with a sha256 digest");
    let o = hashlab_in(s.path(), &["match", "-k", "good.db", "-a", "blake3", "t/a"]);
    refused(
        &o,
        "good.db",
        "FILE has no blake3 column (its digest columns: sha256, sha1, md5, crc32)",
    );
    other(
        "noname.db",
        "CREATE TABLE FILE (sha256 VARCHAR); INSERT INTO FILE VALUES ('00');",
    );
    let o = hashlab_in(s.path(), &["match", "-k", "noname.db", "-w", "t/a"]);
    refused(&o, "noname.db", "FILE has no file_name column");
    let o = hashlab_in(s.path(), &["match", "-k", "no such.db", "t/a"]);
    refused(&o, "no such.db", "No such file or directory");
    // A database through a pipe (`-k <(cat x.db)`): SQLite reads files in place.
    let o = Command::new("bash")
        .current_dir(s.path())
        .arg("-c")
        .arg(format!(
            "exec {} match -k <(cat good.db) t/a",
            env!("CARGO_BIN_EXE_hashlab")
        ))
        .output()
        .unwrap();
    assert_eq!(status(&o), 64);
    assert!(
        text(&o.stderr).ends_with(
            ": an SQLite database, which SQLite reads in place: give its file, not a pipe\n"
        ),
        "{}",
        text(&o.stderr)
    );
    // The good one still is.
    let o = hashlab_in(s.path(), &["match", "-k", "good.db", "t/a"]);
    assert_eq!((status(&o), text(&o.stdout)), (1, "t/a\n".to_string()));
}

#[test]
fn bad_manifests_and_algorithms() {
    let s = scratch("bad-sets");
    trees(s.path());
    write(s.path(), "empty", b"");
    let o = hashlab_in(s.path(), &["match", "-k", "empty", "t/a"]);
    refused(&o, "empty", "no properly formatted checksum lines found");
    // Bad lines are warnings; the good ones are the set.
    let sum = hashlab_in(s.path(), &["sum", "k/a"]);
    let mut set = b"not a line\n".to_vec();
    set.extend_from_slice(&sum.stdout);
    set.extend_from_slice(&[b'x'; 2 << 20]);
    set.extend_from_slice(b"\n");
    write(s.path(), "mixed.sha256", &set);
    let o = hashlab_in(s.path(), &["match", "-k", "mixed.sha256", "t/a"]);
    assert_eq!(status(&o), 0, "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "t/a\n");
    assert_eq!(
        text(&o.stderr),
        "hashlab: mixed.sha256: line 1: improperly formatted checksum line\n\
         hashlab: mixed.sha256: line 3: improperly formatted checksum line\n"
    );
    // -a that a set's lines contradict.
    let o = hashlab_in(
        s.path(),
        &["match", "-k", "mixed.sha256", "-a", "md5", "t/a"],
    );
    assert_eq!(status(&o), 64);
    assert!(text(&o.stderr).ends_with("hashlab: mixed.sha256: no properly formatted checksum lines found (3 improperly formatted)\n"), "{}", text(&o.stderr));
    // A hashdeep set without the column asked for.
    let hd = hashlab_in(
        s.path(),
        &["sum", "--format", "hashdeep", "-a", "md5", "k/a"],
    );
    std::fs::write(s.path().join("k.hd"), &hd.stdout).unwrap();
    let o = hashlab_in(s.path(), &["match", "-k", "k.hd", "-a", "sha1", "t/a"]);
    refused(&o, "k.hd", "hashdeep manifest: no sha1 column");
    // More algorithm and length pairs than every input can be hashed with.
    let many: String = (1..=17)
        .map(|n| format!("SHAKE128 (f{n}) = {}\n", "ab".repeat(n)))
        .collect();
    write(s.path(), "many", many.as_bytes());
    let o = hashlab_in(s.path(), &["match", "-k", "many", "t/a"]);
    refused(&o, "many", "more than 16 algorithm and length pairs");
}

#[test]
fn several_sets_of_mixed_forms_are_one() {
    let s = scratch("mixed");
    trees(s.path());
    nsrl(s.path(), "rds.db", &[("k/a", "ALPHA.DLL", 1)], 0, false);
    let made = [
        ("b.sha1", &["sum", "--tag", "-a", "sha1", "k/b"][..]),
        (
            "c.hd",
            &[
                "sum",
                "--format",
                "hashdeep",
                "-a",
                "md5,sha256",
                "k/c, renamed",
            ],
        ),
        (
            "known.json",
            &["sum", "--json", "-a", "blake3", "k/only known"],
        ),
        (
            "other.b2",
            &["sum", "--tag", "-a", "blake2b", "-l", "32", "t/sub/other"],
        ),
    ];
    for (file, args) in made {
        let o = hashlab_in(s.path(), args);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        std::fs::write(s.path().join(file), &o.stdout).unwrap();
    }
    let mut args = vec!["match", "-M", "-w", "-r", "t", "k/only known"];
    for (file, _) in made {
        args.extend(["-k", file]);
    }
    args.extend(["-k", "rds.db"]);
    let o = hashlab_in(s.path(), &args);
    let out = text(&o.stdout);
    // One column per set's algorithm (hashdeep's two), in the order the sets came.
    assert!(
        out.starts_with("%%%% HASHDEEP-1.0\n%%%% size,sha1,md5,sha256,blake3,blake2b,filename\n"),
        "{out}"
    );
    let matched: Vec<String> = out
        .lines()
        .filter(|l| !l.starts_with(['%', '#']))
        .map(|l| {
            let fields: Vec<&str> = l.splitn(7, ',').collect();
            assert_eq!(fields.len(), 7, "{l}");
            fields[6].to_string()
        })
        .collect();
    assert_eq!(
        matched,
        [
            "t/a matches ALPHA.DLL",
            "t/b matches k/b",
            "t/copy of a matches ALPHA.DLL",
            "t/sub/c matches /c, renamed",
            "t/sub/other matches t/sub/other",
            "k/only known matches k/only known",
        ]
        .map(|m| {
            // hashdeep's manifest names files by absolute path.
            m.replace(" /c,", &format!(" {}/k/c,", s.path().display()))
        })
    );
    // Every known digest used; new,file and empty matched nothing.
    assert_eq!(status(&o), 2, "{}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
}
