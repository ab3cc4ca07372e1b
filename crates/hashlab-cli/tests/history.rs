//! `bench --save`, `--check-regression`, `history` and `compare --runs` end to
//! end, and a damaged or locked database never costing a run its results.
//! Speeds are never asserted: regressions are made by scaling a real run's samples.

use std::path::Path;
use std::process::{Command, Output};

use hashlab_bench::report::Report;
use hashlab_history::{History, RunId};

const QUICK: &[&str] = &[
    "bench",
    "-a",
    "crc32c,md5",
    "--sizes",
    "64,1K",
    "--quick",
    "--max-time",
    "0.3",
];

fn hashlab(args: &[&str], db: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hashlab"));
    cmd.args(args).env_remove("HASHLAB_DB");
    if let Some(db) = db {
        cmd.env("HASHLAB_DB", db);
    }
    cmd.output().expect("run hashlab")
}

fn bench(extra: &[&str], db: &Path) -> Output {
    let mut args = QUICK.to_vec();
    args.extend(extra);
    hashlab(&args, Some(db))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn saved_runs_are_listed_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let out = dir.path().join("run.json");
    let o = bench(&["--save", "-o", out.to_str().unwrap()], &db);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("saved as run 1 in"),
        "{}",
        text(&o.stderr)
    );
    let o = bench(&["--save", "--json"], &db);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let printed: Report = serde_json::from_slice(&o.stdout).unwrap();

    // The stored run is exactly what was printed.
    let history = History::open(&db).unwrap();
    assert_eq!(history.load(RunId(2)).unwrap(), printed);
    let written: Report = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(history.load(RunId(1)).unwrap(), written);

    let o = hashlab(&["history"], Some(&db));
    let table = text(&o.stdout);
    assert!(o.status.success());
    let header = table.lines().next().unwrap();
    for column in [
        "id", "date", "machine", "mask", "version", "cells", "command",
    ] {
        assert!(header.contains(column), "{header}");
    }
    let runs = table.lines().filter(|l| l.starts_with(['1', '2'])).count();
    assert_eq!(runs, 2, "{table}");
    assert!(table.contains("bench -a crc32c,md5"));

    // --db beats HASHLAB_DB.
    let o = hashlab(
        &["history", "--json", "--db", db.to_str().unwrap()],
        Some(&dir.path().join("other.sqlite")),
    );
    let runs: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["id"], 2);

    let o = hashlab(&["compare", "--runs", "1", "2", "--json"], Some(&db));
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).expect("comparison JSON");
    assert_eq!(c["inputs"][0]["label"], "run 1");
    assert_eq!(c["inputs"][1]["label"], "run 2");
    assert!(!c["rows"].as_array().unwrap().is_empty());

    let o = hashlab(&["compare", "--runs", "1", "9"], Some(&db));
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("no run 9 in the history"));
}

#[test]
fn the_default_database_is_in_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .args(QUICK)
        .arg("--save")
        .env_remove("HASHLAB_DB")
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let expected = dir.path().join("hashlab").join("history.sqlite");
    assert!(expected.is_file(), "{}", text(&o.stderr));
    assert_eq!(History::open(&expected).unwrap().list().unwrap().len(), 1);
}

#[test]
fn an_empty_history_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.sqlite");
    let o = hashlab(&["history"], Some(&db));
    assert!(o.status.success());
    assert!(text(&o.stderr).contains("no history yet"));
    assert!(!db.exists(), "listing does not create the file");
}

/// Stores a copy of `run` whose samples are scaled by `factor` (times per
/// message: below 1 is faster), as if an earlier run on this machine.
fn save_scaled(db: &Path, run: &Report, factor: f64) {
    let mut earlier = run.clone();
    for cell in &mut earlier.cells {
        for s in &mut cell.samples {
            *s *= factor;
        }
    }
    History::open(db).unwrap().save(&earlier).unwrap();
}

#[test]
fn check_regression_exits_3_on_a_slowdown_and_0_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");

    let o = bench(&["--check-regression", "--json"], &db);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("no earlier run on this machine"));
    let run: Report = serde_json::from_slice(&o.stdout).unwrap();

    // An earlier run five times as fast: this machine's next run is a
    // regression (margins wide enough for a loaded machine's noise).
    save_scaled(&db, &run, 0.2);
    let o = bench(&["--check-regression"], &db);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("Regression check against run 1"), "{err}");
    assert!(err.contains("SLOWER (regressions):"), "{err}");
    assert!(err.contains("crc32c"), "{err}");
    assert!(!o.stdout.is_empty(), "the results are printed all the same");
    // A quarter more time per message is not a regression to someone who
    // only counts 150 % more.
    save_scaled(&db, &run, 0.8);
    let o = bench(
        &["--check-regression", "--regression-threshold", "150"],
        &db,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("under 150 % in time per message"));

    // An earlier run five times slower: faster now, not a regression.
    save_scaled(&db, &run, 5.0);
    let o = bench(&["--check-regression"], &db);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("against run 3") && err.contains("faster:"),
        "{err}"
    );
    assert!(!err.contains("SLOWER"));
}

#[test]
fn a_damaged_database_costs_no_results() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("junk.sqlite");
    let mut junk = vec![0u8; 8192];
    hashlab_bench::stats::SplitMix64(5).fill(&mut junk);
    std::fs::write(&db, &junk).unwrap();
    let out = dir.path().join("r.json");
    let o = bench(&["--save", "-o", out.to_str().unwrap()], &db);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "hashlab: {}: the history database is damaged",
            db.display()
        )) && err.contains("this run was not saved"),
        "{err}"
    );
    assert!(text(&o.stdout).contains("crc32c"), "the table was printed");
    let written: Report = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(!written.cells.is_empty(), "-o was written");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        junk,
        "the damaged file is left alone"
    );

    for args in [&["history"][..], &["compare", "--runs", "1", "2"][..]] {
        let o = hashlab(args, Some(&db));
        assert_eq!(o.status.code(), Some(1));
        assert!(text(&o.stderr).contains("damaged or not a database"));
    }
}

#[test]
fn a_locked_database_costs_no_results() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    History::open(&db).unwrap();
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let o = bench(&["--save", "--json"], &db);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("locked by another process (waited 5.0 s)"),
        "{err}"
    );
    assert!(err.contains("this run was not saved"), "{err}");
    let printed: Report = serde_json::from_slice(&o.stdout).expect("results printed");
    holder.execute_batch("COMMIT;").unwrap();
    assert!(History::open(&db).unwrap().list().unwrap().is_empty());
    assert!(!printed.cells.is_empty());
}

fn fixture() -> Report {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/results/zen4-plain.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn stored_control_characters_are_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let mut report = fixture();
    // A title change, a bell, a colour and a right-to-left override, as a
    // hand-edited or hostile database could hold them.
    report.environment.command_line = vec![
        "hashlab".into(),
        "\x1b]0;owned\x07bench".into(),
        "\x1b[31mred\u{202e}".into(),
    ];
    report.environment.cpu_model = "CPU\x1b[2J\r".into();
    History::open(&db).unwrap().save(&report).unwrap();
    for format in ["table", "md", "csv"] {
        let o = hashlab(&["history", "--format", format], Some(&db));
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        for raw in ['\x1b', '\x07', '\r', '\u{202e}'] {
            assert!(!out.contains(raw), "{format}: {raw:?} printed raw: {out:?}");
        }
        assert!(out.contains("\\x1b]0;owned\\x07bench"), "{format}: {out}");
        assert!(out.contains("\\u{202e}"), "{format}: {out}");
    }
    // JSON escapes them its own way.
    let o = hashlab(&["history", "--json"], Some(&db));
    assert!(!text(&o.stdout).contains('\x1b'));
    assert!(text(&o.stdout).contains("\\u001b"));
}

#[test]
fn an_empty_or_foreign_file_as_db_is_refused_and_never_initialized() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, b"").unwrap();
    for args in [
        &["history"][..],
        &["compare", "--runs", "1", "2"],
        &QUICK
            .iter()
            .copied()
            .chain(["--save", "--json"])
            .collect::<Vec<_>>(),
        &QUICK
            .iter()
            .copied()
            .chain(["--check-regression", "--json"])
            .collect::<Vec<_>>(),
    ] {
        let o = hashlab(args, Some(&empty));
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(&format!("{}: not a hashlab history", empty.display())),
            "{args:?}: {}",
            text(&o.stderr)
        );
        assert_eq!(
            std::fs::read(&empty).unwrap(),
            b"",
            "{args:?}: written into"
        );
    }
}

#[test]
fn a_regression_check_alone_creates_no_history() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let o = bench(&["--check-regression", "--json"], &db);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("no history yet"),
        "{}",
        text(&o.stderr)
    );
    assert!(!db.exists(), "only --save makes a history");
}

#[test]
fn a_negative_cell_count_is_reported_as_damage() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    History::open(&db).unwrap().save(&fixture()).unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("UPDATE runs SET cells = -5;")
        .unwrap();
    let o = hashlab(&["history"], Some(&db));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(!text(&o.stdout).contains("18446744073709551611"));
    assert_eq!(
        text(&o.stderr),
        format!(
            "hashlab: {}: run 1 cannot be read back (its cell count is -5)\n",
            db.display()
        )
    );
}
