//! `match -k` on sets that once broke it: hashdeep's piecewise files
//! (`hashdeep -p`), NSRL databases with rows still in their write-ahead log,
//! and databases whose FILE is a program rather than a table.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{hashlab_in, text};

fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("hashlab-known-{name}-"))
        .tempdir()
        .unwrap()
}

fn write(dir: &Path, name: &str, content: &[u8]) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn status(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed by a signal")
}

/// hashlab under `timeout`: a set that makes it hang fails the test
/// instead of stalling the suite.
fn bounded(dir: &Path, args: &[&str]) -> Output {
    Command::new("timeout")
        .arg("60")
        .arg(env!("CARGO_BIN_EXE_hashlab"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// (md5, sha256) of each file, as `sum --json` gives them.
fn digests(dir: &Path, files: &[&str]) -> Vec<(String, String)> {
    let mut args = vec!["sum", "-a", "md5,sha256", "--json"];
    args.extend(files);
    let o = hashlab_in(dir, &args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let digest = |i: usize| rows[i]["digest"].as_str().unwrap().to_string();
    (0..files.len())
        .map(|i| (digest(2 * i), digest(2 * i + 1)))
        .collect()
}

/// A 3000-byte file in 1 KiB pieces, as `hashdeep -p 1k -c md5,sha256`
/// writes it: one line a piece and none for the whole file. A file whose
/// bytes are one piece's matches it, named as hashdeep names it. This set
/// once aborted match (a table of zero-byte digests: divide by zero).
#[test]
fn a_piecewise_hashdeep_set_matches_by_its_pieces() {
    let s = scratch("pieces");
    let bytes: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 251) as u8).collect();
    write(s.path(), "k/f", &bytes);
    write(s.path(), "t/first", &bytes[..1024]);
    write(s.path(), "t/last", &bytes[2048..]);
    write(s.path(), "t/whole", &bytes);
    write(s.path(), "p/1", &bytes[1024..2048]);
    let d = digests(s.path(), &["t/first", "p/1", "t/last"]);
    let mut set = String::from(
        "%%%% HASHDEEP-1.0\n%%%% size,md5,sha256,filename\n## Invoked from: /x\n## $ hashdeep -p 1k -c md5,sha256 k/f\n##\n",
    );
    for (i, (range, size)) in [("0-1023", 1024), ("1024-2047", 1024), ("2048-2999", 952)]
        .into_iter()
        .enumerate()
    {
        set.push_str(&format!(
            "{size},{},{},k/f offset {range}\n",
            d[i].0, d[i].1
        ));
    }
    write(s.path(), "known.hd", set.as_bytes());
    let o = hashlab_in(s.path(), &["match", "-k", "known.hd", "-w", "-r", "t"]);
    assert_eq!(
        text(&o.stdout),
        "t/first matches k/f offset 0-1023\nt/last matches k/f offset 2048-2999\n",
        "{}",
        text(&o.stderr)
    );
    // An unmatched input (the whole file) and an unused piece: 1 | 2.
    assert_eq!(status(&o), 3, "{}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    // As `sum --piece --json` writes pieces: the same digests known.
    let o = hashlab_in(
        s.path(),
        &[
            "sum", "--piece", "1K", "--json", "-a", "sha256", "-o", "k.json", "k/f",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = hashlab_in(s.path(), &["match", "-k", "k.json", "-r", "t"]);
    assert_eq!(
        text(&o.stdout),
        "t/first\nt/last\nt/whole\n",
        "{}",
        text(&o.stderr)
    );

    // hashdeep's own -p output, when hashdeep is here, matches as hashdeep matches it.
    let made = Command::new("hashdeep")
        .current_dir(s.path())
        .args(["-j0", "-p", "1k", "-c", "md5,sha256", "-l", "k/f"])
        .output();
    match made {
        Ok(made) if made.status.success() => {
            write(s.path(), "theirs.hd", &made.stdout);
            let theirs = Command::new("hashdeep")
                .current_dir(s.path())
                .args(["-j0", "-l", "-k", "theirs.hd", "-m", "-w", "-r", "t"])
                .output()
                .unwrap();
            let ours = hashlab_in(s.path(), &["match", "-k", "theirs.hd", "-w", "-r", "t"]);
            let sorted = |b: &[u8]| {
                let mut l: Vec<String> = text(b).lines().map(str::to_string).collect();
                l.sort();
                l
            };
            assert_eq!(sorted(&ours.stdout), sorted(&theirs.stdout));
            assert_eq!(sorted(&ours.stdout).len(), 2);
        }
        _ => assert!(
            std::env::var_os("HASHLAB_CI").is_none_or(|v| v.is_empty()),
            "HASHLAB_CI is set and hashdeep is missing"
        ),
    }
}

/// The FILE table of NSRL's RDS v3 (the minimal sets), with the columns
/// `match` reads.
const FILE_TABLE: &str = "CREATE TABLE FILE (
 sha256 VARCHAR NOT NULL, sha1 VARCHAR NOT NULL, md5 VARCHAR NOT NULL, crc32 VARCHAR NOT NULL,
 file_name VARCHAR NOT NULL, file_size INTEGER NOT NULL, package_id INTEGER NOT NULL);";

fn sha256_upper(dir: &Path, file: &str) -> String {
    digests(dir, &[file])[0].1.to_uppercase()
}

fn insert(db: &rusqlite::Connection, sha256: &str, name: &str) {
    db.execute(
        "INSERT INTO FILE VALUES (?1, '', '', '', ?2, 1, 1)",
        rusqlite::params![sha256, name],
    )
    .unwrap();
}

fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Rows committed to a WAL database's `-wal` file and not yet checkpointed
/// into it are rows of the set (they were ignored: the database was opened
/// immutable). The database and its log are left as they were; without the
/// `-shm` index (a copy of the two files, say) SQLite makes one beside it.
#[test]
fn rows_still_in_the_write_ahead_log_are_read() {
    let s = scratch("wal");
    write(s.path(), "t/a", b"alpha");
    write(s.path(), "t/b", b"bravo");
    write(s.path(), "t/c", b"charlie");
    let dir = s.path().join("db");
    std::fs::create_dir(&dir).unwrap();
    {
        let db = rusqlite::Connection::open(dir.join("rds.db")).unwrap();
        db.pragma_update(None, "journal_mode", "WAL").unwrap();
        db.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        db.execute_batch(FILE_TABLE).unwrap();
        insert(&db, &sha256_upper(s.path(), "t/a"), "a.dll");
        db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        insert(&db, &sha256_upper(s.path(), "t/b"), "b.dll");
        db.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .unwrap();
    }
    let wal = std::fs::metadata(dir.join("rds.db-wal")).unwrap().len();
    assert!(wal > 32, "the second row is in the log only: {wal} bytes");
    let db = dir.join("rds.db");
    let db = db.to_str().unwrap();
    for shm in [true, false] {
        if !shm {
            std::fs::remove_file(dir.join("rds.db-shm")).unwrap();
        }
        let before = listing(&dir);
        let o = hashlab_in(s.path(), &["match", "-k", db, "-w", "-r", "t"]);
        assert_eq!(
            text(&o.stdout),
            "t/a matches a.dll\nt/b matches b.dll\n",
            "-shm present: {shm}: {}",
            text(&o.stderr)
        );
        assert_eq!(status(&o), 2, "{}", text(&o.stderr));
        let after = listing(&dir);
        let unchanged = |name: &str| {
            let find = |l: &[(String, Vec<u8>)]| l.iter().find(|(n, _)| n == name).cloned();
            assert_eq!(find(&after), find(&before), "{name}");
        };
        unchanged("rds.db");
        unchanged("rds.db-wal");
        let names: Vec<&str> = after.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["rds.db", "rds.db-shm", "rds.db-wal"]);
    }
}

/// One line naming the set, and 64: what a refused set gives.
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

/// A 4 KB database whose FILE computes rows without end (a recursive view)
/// grew without bound or hung; it, and every FILE that is not a table or a
/// view joining tables with plain text functions, is refused before a row
/// is read. A view as the full RDS v3 sets have is read.
#[test]
fn a_file_that_is_a_program_is_refused() {
    let s = scratch("hostile");
    write(s.path(), "t/a", b"alpha");
    let sha = sha256_upper(s.path(), "t/a");
    let make = |name: &str, sql: &str| {
        let db = rusqlite::Connection::open(s.path().join(name)).unwrap();
        db.execute_batch(sql).unwrap();
    };
    make(
        "recursive.db",
        "CREATE VIEW FILE AS WITH RECURSIVE n(i) AS (SELECT 1 UNION SELECT i + 1 FROM n)
         SELECT printf('%064X', i) AS sha256, 'x' AS file_name FROM n;",
    );
    assert!(
        std::fs::metadata(s.path().join("recursive.db"))
            .unwrap()
            .len()
            <= 8192
    );
    let o = bounded(s.path(), &["match", "-k", "recursive.db", "t/a"]);
    refused(
        &o,
        "recursive.db",
        // The first thing the authorizer refuses names it: here printf(),
        // before the recursion.
        "not an NSRL RDS v3 database: FILE ",
    );
    make(
        "random.db",
        "CREATE TABLE T (n INTEGER); INSERT INTO T VALUES (1);
         CREATE VIEW FILE AS SELECT hex(randomblob(32)) AS sha256, 'x' AS file_name FROM T;",
    );
    let o = bounded(s.path(), &["match", "-k", "random.db", "t/a"]);
    refused(&o, "random.db", "FILE calls randomblob()");
    // The full sets' FILE: a view joining tables, digests in upper case.
    make(
        "full.db",
        &format!(
            "CREATE TABLE METADATA (object_id INTEGER, sha256 VARCHAR, file_name VARCHAR);
             CREATE TABLE PACKAGE_OBJECT (package_id INTEGER, object_id INTEGER);
             INSERT INTO METADATA VALUES (1, '{}', 'a.dll');
             INSERT INTO PACKAGE_OBJECT VALUES (7, 1);
             CREATE VIEW FILE AS SELECT UPPER(m.sha256) AS sha256, m.file_name AS file_name,
               p.package_id AS package_id FROM METADATA AS m JOIN PACKAGE_OBJECT AS p
               ON m.object_id = p.object_id;",
            sha.to_lowercase()
        ),
    );
    let o = bounded(s.path(), &["match", "-k", "full.db", "-w", "t/a"]);
    assert_eq!(
        text(&o.stdout),
        "t/a matches a.dll\n",
        "{}",
        text(&o.stderr)
    );
    assert_eq!(status(&o), 0);
}
