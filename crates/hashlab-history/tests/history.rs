//! The history file under the things that go wrong: damage, locks, a newer
//! schema, and a writer killed at a random moment.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hashlab_bench::report::Report;
use hashlab_bench::stats::SplitMix64;
use hashlab_history::{History, HistoryError, Machine, RunId, SCHEMA_VERSION};

fn fixture(name: &str) -> Report {
    let path = format!(
        "{}/../../fixtures/results/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn db(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("history.sqlite")
}

#[test]
fn runs_round_trip_and_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let plain = fixture("zen4-plain");
    let masked = fixture("zen4-mask-sha");
    let mut h = History::open(db(&dir)).unwrap();
    assert!(h.list().unwrap().is_empty());
    let a = h.save(&plain).unwrap();
    let b = h.save(&masked).unwrap();
    assert!(b > a);
    drop(h);

    let h = History::open(db(&dir)).unwrap();
    assert_eq!(h.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(
        h.load(a).unwrap(),
        plain,
        "the full report comes back as saved"
    );
    assert_eq!(h.load(b).unwrap(), masked);
    let runs = h.list().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].id, a);
    assert_eq!(runs[0].date, plain.environment.timestamp);
    assert_eq!(runs[0].cpu_model, plain.environment.cpu_model);
    assert_eq!(runs[0].cells, plain.cells.len());
    assert!(runs[0].command.contains("bench --all"));
    assert!(runs[1].cpu_mask == vec!["sha".to_string()]);
    assert_eq!(runs[0].machine, runs[1].machine, "same machine, other mask");
    assert!(runs[0].saved_at.ends_with('Z') && runs[0].saved_at.len() == 20);

    // The last run on the machine is the one with the same mask.
    let (found, report) = h.last_on_machine(&Machine::of(&plain)).unwrap().unwrap();
    assert_eq!((found.id, &report), (a, &plain));
    let (found, _) = h.last_on_machine(&Machine::of(&masked)).unwrap().unwrap();
    assert_eq!(found.id, b);
    let mut elsewhere = plain.clone();
    elsewhere.environment.cpu_model = "Another CPU".into();
    assert!(h
        .last_on_machine(&Machine::of(&elsewhere))
        .unwrap()
        .is_none());

    match h.load(RunId(99)) {
        Err(e @ HistoryError::NoSuchRun { .. }) => {
            assert!(e.to_string().contains("no run 99"), "{e}")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn interrupted_runs_are_not_a_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::open(db(&dir)).unwrap();
    let complete = fixture("zen4-plain");
    let mut partial = complete.clone();
    partial.run.partial = true;
    let first = h.save(&complete).unwrap();
    h.save(&partial).unwrap();
    let (found, _) = h.last_on_machine(&Machine::of(&complete)).unwrap().unwrap();
    assert_eq!(found.id, first);
}

#[test]
fn random_bytes_are_a_clear_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let mut bytes = vec![0u8; 64 * 1024];
    SplitMix64(7).fill(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    match History::open(&path) {
        Err(e @ HistoryError::Corrupt { .. }) => {
            let text = e.to_string();
            assert!(text.starts_with(&path.display().to_string()), "{text}");
            assert!(text.contains("damaged or not a database"), "{text}");
            assert!(!text.contains('\n'));
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "left as it was");
}

#[test]
fn a_damaged_page_is_reported_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let mut h = History::open(&path).unwrap();
    let report = fixture("zen4-plain");
    let id = h.save(&report).unwrap();
    drop(h);
    // Overwrite pages in the middle of the file (the stored JSON's overflow pages and b-tree).
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    SplitMix64(3).fill(&mut bytes[4096..len / 2]);
    std::fs::write(&path, &bytes).unwrap();
    let outcome = History::open(&path).and_then(|h| {
        h.integrity_check()?;
        h.list()?;
        h.load(id)
    });
    match outcome {
        Err(HistoryError::Corrupt { .. } | HistoryError::BadRecord { .. }) => {}
        other => panic!("damage went unnoticed: {:?}", other.map(|_| ())),
    }
}

#[test]
fn another_programs_database_is_not_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);")
        .unwrap();
    drop(conn);
    match History::open(&path) {
        Err(e @ HistoryError::NotHistory { .. }) => {
            assert!(e.to_string().contains("not a hashlab history"))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn a_future_schema_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    History::open(&path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&format!("PRAGMA user_version = {};", SCHEMA_VERSION + 5))
        .unwrap();
    drop(conn);
    let e = History::open(&path).err().expect("refused");
    let text = e.to_string();
    assert!(
        text.contains(&format!("schema version {}", SCHEMA_VERSION + 5))
            && text.contains("newer hashlab"),
        "{text}"
    );
}

#[test]
fn a_missing_directory_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/dir/h.sqlite");
    let e = History::open(&path).err().expect("refused");
    assert!(e.to_string().contains("directory does not exist"), "{e}");
}

#[test]
fn a_lock_held_elsewhere_times_out_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let mut h = History::open_with_timeout(&path, Duration::from_millis(300)).unwrap();
    let report = fixture("zen4-mask-sha");
    h.save(&report).unwrap();

    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let started = Instant::now();
    match h.save(&report) {
        Err(e @ HistoryError::Locked { .. }) => {
            assert!(e.to_string().contains("locked by another process"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "it waited for the lock"
    );
    // A new opener meets the same lock.
    assert!(matches!(
        History::open_with_timeout(&path, Duration::from_millis(100)),
        Err(HistoryError::Locked { .. })
    ));
    holder.execute_batch("COMMIT;").unwrap();
    // Once the lock is gone the same handle works, and nothing half-written is there.
    h.save(&report).unwrap();
    assert_eq!(h.list().unwrap().len(), 2);
}

#[test]
fn a_short_lock_is_waited_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let mut h = History::open(&path).unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        holder.execute_batch("COMMIT;").unwrap();
    });
    h.save(&fixture("zen4-plain")).unwrap();
    release.join().unwrap();
    assert_eq!(h.list().unwrap().len(), 1);
}

/// Set in the child process of `killed_mid_write`: the database it writes to.
const CHILD_DB: &str = "HASHLAB_HISTORY_TEST_CHILD_DB";
/// What the child prints once it has opened the database (libtest may put its
/// own words before it on the line).
const READY: &str = "child-writer-ready";

/// Not a test of its own: the writer `killed_mid_write` starts and kills. It
/// saves the largest real run over and over until it is killed (bounded, so
/// that a parent that fails to kill it cannot fill the disk).
#[test]
fn child_writer() {
    let Some(path) = std::env::var_os(CHILD_DB) else {
        return;
    };
    let report = fixture("zen4-plain");
    let mut h = History::open(Path::new(&path)).unwrap();
    println!("{READY}");
    std::io::stdout().flush().unwrap();
    for _ in 0..500 {
        h.save(&report).unwrap();
    }
}

#[test]
fn killed_mid_write_leaves_only_complete_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let journal = dir.path().join("history.sqlite-journal");
    let report = fixture("zen4-plain");
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut rng = SplitMix64(seed);
    let (mut iterations, mut caught_mid_transaction) = (0, 0);
    let mut previous = 0;
    // At least 6 kills, and on until 3 of them landed inside a transaction
    // (SQLite's journal still there), with a bound.
    while iterations < 6 || (caught_mid_transaction < 3 && iterations < 40) {
        iterations += 1;
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_writer", "--nocapture", "--test-threads=1"])
            .env(CHILD_DB, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        loop {
            let line = lines
                .next()
                .expect("the child said ready")
                .expect("readable");
            if line.contains(READY) {
                break;
            }
        }
        let delay = Duration::from_micros(rng.below(400_000) as u64);
        std::thread::sleep(delay);
        child.kill().unwrap(); // SIGKILL: no destructor, no rollback by the child
        child.wait().unwrap();
        if journal.exists() {
            caught_mid_transaction += 1;
        }

        let h = History::open(&path)
            .unwrap_or_else(|e| panic!("seed {seed}, iteration {iterations}: {e}"));
        h.integrity_check()
            .unwrap_or_else(|e| panic!("seed {seed}, iteration {iterations}: {e}"));
        let runs = h.list().unwrap();
        assert!(
            runs.len() >= previous,
            "seed {seed}: a committed run vanished"
        );
        previous = runs.len();
        for run in &runs {
            assert_eq!(run.cells, report.cells.len());
            let back = h.load(run.id).unwrap();
            assert!(back == report, "seed {seed}: run {} is not whole", run.id);
        }
    }
    assert!(
        caught_mid_transaction >= 1,
        "seed {seed}: no kill in {iterations} landed inside a write"
    );
    eprintln!(
        "killed {iterations} writers ({caught_mid_transaction} mid-transaction), {previous} complete runs kept"
    );
}

#[test]
fn an_existing_file_that_is_not_a_history_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // An empty file (a `--db` given by mistake, `touch`ed, or a SQL dump's
    // target) and a database another program made but has not filled yet.
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, b"").unwrap();
    let bare = dir.path().join("bare.db");
    rusqlite::Connection::open(&bare)
        .unwrap()
        .execute_batch("PRAGMA user_version = 0; VACUUM;")
        .unwrap();
    let bare_bytes = std::fs::read(&bare).unwrap();
    assert!(!bare_bytes.is_empty());
    for (path, bytes) in [(&empty, Vec::new()), (&bare, bare_bytes)] {
        for outcome in [
            History::open(path).map(|_| ()),
            History::open_existing(path).map(|_| ()),
        ] {
            match outcome {
                Err(e @ HistoryError::NotHistory { .. }) => {
                    let text = e.to_string();
                    assert!(text.starts_with(&path.display().to_string()), "{text}");
                    assert!(text.contains("not a hashlab history"), "{text}");
                }
                other => panic!("{}: {other:?}", path.display()),
            }
        }
        assert_eq!(std::fs::read(path).unwrap(), bytes, "never initialized");
    }
}

#[test]
fn only_a_missing_path_is_created_and_open_existing_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    assert!(History::open_existing(&path).unwrap().is_none());
    assert!(!path.exists());
    History::open(&path).unwrap();
    assert!(History::open_existing(&path).unwrap().is_some());
    // Made whole under another name, then linked: nothing else is left.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [path.file_name().unwrap()]);
}

#[test]
fn a_negative_count_is_damage_not_a_huge_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let mut h = History::open(&path).unwrap();
    let id = h.save(&fixture("zen4-plain")).unwrap();
    drop(h);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE runs SET cells = -5 WHERE id = ?1", [id.0])
        .unwrap();
    match History::open(&path).unwrap().list() {
        Err(e @ HistoryError::BadRecord { .. }) => {
            let text = e.to_string();
            assert!(text.contains(&format!("run {id}")), "{text}");
            assert!(text.contains("-5"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}
