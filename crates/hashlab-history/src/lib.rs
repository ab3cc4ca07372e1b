//! The history of benchmark runs: an SQLite file holding every saved run's full
//! results (the `Report` JSON, exactly as `hashlab bench --json` writes it) and,
//! beside it, the columns runs are found by (date, machine, version, command).
//!
//! A run is written in one transaction, so a process killed mid-write leaves the
//! database as it was before (SQLite's rollback journal undoes the partial write
//! on the next open). The schema is versioned with `PRAGMA user_version` and
//! upgraded by numbered migrations; a file written by a newer hashlab is refused
//! rather than guessed at. The library prints nothing and holds no global state.

mod since;
mod summary;

pub use since::{since_last, SinceLast};

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hashlab_bench::report::Report;
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

/// Marks the file as ours (`PRAGMA application_id`), so another program's
/// SQLite database is not mistaken for an empty history: "hlab" in ASCII.
const APPLICATION_ID: i32 = 0x686c_6162;

/// The schema, one step per version: `MIGRATIONS[n]` takes a database from
/// `user_version` n to n + 1. Steps are only ever appended.
const MIGRATIONS: &[&str] = &["
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        saved_at TEXT NOT NULL,
        run_date TEXT NOT NULL,
        machine TEXT NOT NULL,
        cpu_model TEXT NOT NULL,
        cpu_mask TEXT NOT NULL,
        version TEXT NOT NULL,
        git_commit TEXT,
        command TEXT NOT NULL,
        cells INTEGER NOT NULL,
        partial INTEGER NOT NULL,
        report TEXT NOT NULL
    );
    CREATE INDEX runs_by_machine ON runs (machine, cpu_mask, id);
    CREATE INDEX runs_by_date ON runs (run_date);
"];

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// How long a writer waits for another process's lock before giving up.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A saved run's number, as `hashlab history` lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub i64);

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What a run is found by, without its samples.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSummary {
    pub id: RunId,
    /// When the run was made (the report's timestamp), UTC RFC 3339.
    pub date: String,
    /// When it was saved, UTC RFC 3339.
    pub saved_at: String,
    /// `Machine::fingerprint`.
    pub machine: String,
    pub cpu_model: String,
    pub cpu_mask: Vec<String>,
    pub version: String,
    pub git_commit: Option<String>,
    /// The command line, words joined by spaces.
    pub command: String,
    pub cells: usize,
    pub partial: bool,
}

/// The machine a run was made on, and the CPU mask it ran under: runs with the
/// same of both are comparable cell by cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// A digest of the hardware as the run saw it: CPU vendor and model,
    /// thread and core counts, caches, features, OS and target. Not the host
    /// name (a rebuilt CI runner of the same type is the same machine) and not
    /// the kernel or the compiler (their effect is what a regression check is for).
    pub fingerprint: String,
    pub cpu_model: String,
    pub cpu_mask: Vec<String>,
}

impl Machine {
    pub fn of(report: &Report) -> Machine {
        let env = &report.environment;
        let mut features = env.cpu_features.clone();
        features.sort();
        let caches = &env.caches;
        let text = format!(
            "vendor={}\nmodel={}\nthreads={}\ncores={:?}\ncaches={:?},{:?},{:?},{:?}\nfeatures={}\nos={}\ntarget={}\n",
            env.cpu_vendor,
            env.cpu_model,
            env.logical_threads,
            env.physical_cores,
            caches.l1d,
            caches.l1i,
            caches.l2,
            caches.l3,
            features.join(","),
            env.os,
            env.target,
        );
        Machine {
            fingerprint: fingerprint(text.as_bytes()),
            cpu_model: env.cpu_model.clone(),
            cpu_mask: mask_of(report),
        }
    }
}

/// The first 16 hex digits of the text's SHA-256, by the project's own registry.
fn fingerprint(text: &[u8]) -> String {
    let registry = hashlab::Registry::default();
    let mut hasher = registry
        .hasher("sha256", None, &hashlab::HashParams::default())
        .expect("sha256 has an available backend on every platform");
    hasher.update(text);
    let mut hex = hasher.finalize_reset().to_hex();
    hex.truncate(16);
    hex
}

fn mask_of(report: &Report) -> Vec<String> {
    let mut mask: Vec<String> = report
        .environment
        .cpu_mask
        .iter()
        .chain(&report.settings.mask)
        .map(|m| m.to_ascii_lowercase())
        .collect();
    mask.sort();
    mask.dedup();
    mask
}

/// Why the history could not be used. Every message names the file.
#[derive(Debug)]
pub enum HistoryError {
    /// Not an SQLite database, or a damaged one.
    Corrupt {
        path: PathBuf,
        detail: String,
    },
    /// An empty file or an SQLite database hashlab did not write: left as it is.
    NotHistory {
        path: PathBuf,
    },
    /// Written by a newer hashlab, with a schema this one does not know.
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// Another process held the lock longer than the busy timeout.
    Locked {
        path: PathBuf,
        waited: Duration,
    },
    NoSuchRun {
        path: PathBuf,
        id: RunId,
    },
    /// A stored run that no longer reads as a `Report`.
    BadRecord {
        path: PathBuf,
        id: RunId,
        detail: String,
    },
    /// The file or its directory could not be opened or created.
    Io {
        path: PathBuf,
        detail: String,
    },
    Other {
        path: PathBuf,
        detail: String,
    },
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryError::Corrupt { path, detail } => write!(
                f,
                "{}: the history database is damaged or not a database ({detail})",
                path.display()
            ),
            HistoryError::NotHistory { path } => write!(
                f,
                "{}: not a hashlab history (an empty file, or another program's database); only a path where nothing exists yet is made into one",
                path.display()
            ),
            HistoryError::TooNew {
                path,
                found,
                supported,
            } => write!(
                f,
                "{}: history schema version {found} was written by a newer hashlab (this one reads up to {supported})",
                path.display()
            ),
            HistoryError::Locked { path, waited } => write!(
                f,
                "{}: the history database is locked by another process (waited {:.1} s)",
                path.display(),
                waited.as_secs_f64()
            ),
            HistoryError::NoSuchRun { path, id } => {
                write!(f, "{}: no run {id} in the history", path.display())
            }
            HistoryError::BadRecord { path, id, detail } => write!(
                f,
                "{}: run {id} cannot be read back ({detail})",
                path.display()
            ),
            HistoryError::Io { path, detail } | HistoryError::Other { path, detail } => {
                write!(f, "{}: {detail}", path.display())
            }
        }
    }
}

impl std::error::Error for HistoryError {}

pub type Result<T> = std::result::Result<T, HistoryError>;

/// An open history file.
pub struct History {
    conn: Connection,
    path: PathBuf,
    busy_timeout: Duration,
}

impl History {
    /// `history.sqlite` in hashlab's folder of the platform's data directory
    /// (`~/.local/share/hashlab` on Linux, `~/Library/Application Support/hashlab`
    /// on macOS, `%APPDATA%\hashlab` on Windows); `None` where there is none.
    pub fn default_path() -> Option<PathBuf> {
        dirs::data_dir().map(|d| d.join("hashlab").join("history.sqlite"))
    }

    /// Opens the history at `path`, upgrading its schema; where nothing is
    /// at `path` yet, creates a new history there. An existing file is only
    /// ever opened, never made into a history: an empty file or another
    /// program's database (a wrong `--db`) is refused untouched.
    pub fn open(path: impl AsRef<Path>) -> Result<History> {
        History::open_with_timeout(path, DEFAULT_BUSY_TIMEOUT)
    }

    /// As `open`, but `None` where there is no file: never creates one.
    pub fn open_existing(path: impl AsRef<Path>) -> Result<Option<History>> {
        let path = path.as_ref();
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            _ => History::open(path).map(Some),
        }
    }

    /// As `open`, waiting at most `busy_timeout` for another process's lock.
    pub fn open_with_timeout(path: impl AsRef<Path>, busy_timeout: Duration) -> Result<History> {
        let path = path.as_ref().to_path_buf();
        let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(dir) => dir.to_path_buf(),
            None => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(HistoryError::Io {
                path,
                detail: "its directory does not exist".into(),
            });
        }
        match std::fs::metadata(&path) {
            Ok(meta) if meta.len() == 0 && meta.is_file() => {
                return Err(HistoryError::NotHistory { path })
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                create(&path, &dir, busy_timeout)?
            }
            Err(e) => {
                return Err(HistoryError::Io {
                    path,
                    detail: e.to_string(),
                })
            }
        }
        // Never SQLite's create flag: a file that vanished since is not remade here.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&path, flags)
            .map_err(|e| classify(&path, busy_timeout, e))?;
        let mut history = History {
            conn,
            path,
            busy_timeout,
        };
        history
            .conn
            .busy_timeout(busy_timeout)
            .map_err(|e| history.error(e))?;
        history.migrate(MIGRATIONS)?;
        Ok(history)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, e: rusqlite::Error) -> HistoryError {
        classify(&self.path, self.busy_timeout, e)
    }

    /// Brings the schema to `steps.len()`, one transaction per step, each
    /// re-reading the version under the write lock (another process may have
    /// migrated meanwhile).
    fn migrate(&mut self, steps: &[&str]) -> Result<()> {
        self.migrate_file(steps, false)
    }

    fn migrate_file(&mut self, steps: &[&str], fresh: bool) -> Result<()> {
        let latest = steps.len() as i64;
        let (version, application_id, tables) = self.header()?;
        if version > latest {
            return Err(HistoryError::TooNew {
                path: self.path.clone(),
                found: version,
                supported: latest,
            });
        }
        // A new history is made whole before it takes its name (`create`), so
        // every file found here must already be one.
        let ours =
            application_id == APPLICATION_ID || (fresh && application_id == 0 && tables == 0);
        if !ours || version < 0 {
            return Err(HistoryError::NotHistory {
                path: self.path.clone(),
            });
        }
        if version == latest {
            return Ok(());
        }
        let path = self.path.clone();
        let timeout = self.busy_timeout;
        let fail = |e| classify(&path, timeout, e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        let mut current: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(fail)?;
        while current < latest {
            // Re-read under the lock: another writer may have set any version.
            let step = usize::try_from(current)
                .ok()
                .and_then(|i| steps.get(i))
                .ok_or_else(|| HistoryError::NotHistory { path: path.clone() })?;
            tx.execute_batch(step).map_err(fail)?;
            current += 1;
        }
        // PRAGMA takes no bound parameters; both values are integers we made.
        tx.execute_batch(&format!(
            "PRAGMA user_version = {current}; PRAGMA application_id = {APPLICATION_ID};"
        ))
        .map_err(fail)?;
        tx.commit().map_err(fail)
    }

    /// (user_version, application_id, number of tables). Reading these is the
    /// first thing that touches the file, so a non-database fails here.
    fn header(&self) -> Result<(i64, i32, i64)> {
        let read = || -> rusqlite::Result<(i64, i32, i64)> {
            let version = self
                .conn
                .query_row("PRAGMA user_version", [], |r| r.get(0))?;
            let app = self
                .conn
                .query_row("PRAGMA application_id", [], |r| r.get(0))?;
            let tables = self.conn.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )?;
            Ok((version, app, tables))
        };
        read().map_err(|e| self.error(e))
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self.header()?.0)
    }

    /// Stores the run, in one transaction; returns its number.
    pub fn save(&mut self, report: &Report) -> Result<RunId> {
        let json = serde_json::to_string(report).map_err(|e| HistoryError::Other {
            path: self.path.clone(),
            detail: format!("cannot encode the run: {e}"),
        })?;
        let machine = Machine::of(report);
        let env = &report.environment;
        let path = self.path.clone();
        let timeout = self.busy_timeout;
        let fail = |e| classify(&path, timeout, e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        tx.execute(
            "INSERT INTO runs (saved_at, run_date, machine, cpu_model, cpu_mask, version,
                               git_commit, command, cells, partial, report)
             VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                env.timestamp,
                machine.fingerprint,
                machine.cpu_model,
                machine.cpu_mask.join(","),
                report.version,
                env.git_commit,
                env.command_line.join(" "),
                report.cells.len() as i64,
                report.run.partial,
                json,
            ],
        )
        .map_err(fail)?;
        let id = RunId(tx.last_insert_rowid());
        tx.commit().map_err(fail)?;
        Ok(id)
    }

    /// Every run, oldest first.
    pub fn list(&self) -> Result<Vec<RunSummary>> {
        self.summaries("", [])
    }

    fn summaries<P: rusqlite::Params>(&self, filter: &str, params: P) -> Result<Vec<RunSummary>> {
        let sql = format!(
            "SELECT id, run_date, saved_at, machine, cpu_model, cpu_mask, version, git_commit,
                    command, cells, partial
             FROM runs {filter} ORDER BY id"
        );
        let read = || -> rusqlite::Result<Vec<(RunSummary, i64)>> {
            let mut stmt = self.conn.prepare(&sql)?;
            let rows = stmt.query_map(params, |r| {
                let mask: String = r.get(5)?;
                let summary = RunSummary {
                    id: RunId(r.get(0)?),
                    date: r.get(1)?,
                    saved_at: r.get(2)?,
                    machine: r.get(3)?,
                    cpu_model: r.get(4)?,
                    cpu_mask: mask
                        .split(',')
                        .filter(|m| !m.is_empty())
                        .map(str::to_string)
                        .collect(),
                    version: r.get(6)?,
                    git_commit: r.get(7)?,
                    command: r.get(8)?,
                    cells: 0,
                    partial: r.get(10)?,
                };
                Ok((summary, r.get::<_, i64>(9)?))
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        };
        let rows = read().map_err(|e| self.error(e))?;
        // A count below zero is a damaged row, not a count to wrap around.
        rows.into_iter()
            .map(|(mut summary, cells)| {
                summary.cells = usize::try_from(cells).map_err(|_| HistoryError::BadRecord {
                    path: self.path.clone(),
                    id: summary.id,
                    detail: format!("its cell count is {cells}"),
                })?;
                Ok(summary)
            })
            .collect()
    }

    /// The full results of a run.
    pub fn load(&self, id: RunId) -> Result<Report> {
        let json: Option<String> = self
            .conn
            .query_row("SELECT report FROM runs WHERE id = ?1", [id.0], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.error(e))?;
        let json = json.ok_or_else(|| HistoryError::NoSuchRun {
            path: self.path.clone(),
            id,
        })?;
        serde_json::from_str(&json).map_err(|e| HistoryError::BadRecord {
            path: self.path.clone(),
            id,
            detail: e.to_string(),
        })
    }

    /// The latest complete (not interrupted) run on `machine` under the same
    /// CPU mask, with its results.
    pub fn last_on_machine(&self, machine: &Machine) -> Result<Option<(RunSummary, Report)>> {
        let found = self.summaries(
            "WHERE machine = ?1 AND cpu_mask = ?2 AND partial = 0",
            params![machine.fingerprint, machine.cpu_mask.join(",")],
        )?;
        match found.into_iter().last() {
            Some(summary) => {
                let report = self.load(summary.id)?;
                Ok(Some((summary, report)))
            }
            None => Ok(None),
        }
    }

    /// SQLite's own consistency check of the whole file: `Ok(())` or what it found.
    pub fn integrity_check(&self) -> Result<()> {
        let found: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.error(e))?;
        if found == "ok" {
            Ok(())
        } else {
            Err(HistoryError::Corrupt {
                path: self.path.clone(),
                detail: found,
            })
        }
    }
}

/// Makes a new history at `path`: built under a temporary name beside it
/// and linked into place only when whole, so a process killed meanwhile
/// leaves no half-made file where the history goes (which a later run could
/// not tell from a wrong `--db`). Another process creating the same file at
/// the same time wins; its history is then opened.
fn create(path: &Path, dir: &Path, busy_timeout: Duration) -> Result<()> {
    let io = |e: std::io::Error| HistoryError::Io {
        path: path.to_path_buf(),
        detail: e.to_string(),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".hashlab-history.").suffix(".tmp");
    #[cfg(unix)]
    {
        // The mode SQLite gives a database it creates (0644 less the umask).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let temp = builder.tempfile_in(dir).map_err(io)?;
    let conn = Connection::open(temp.path()).map_err(|e| classify(path, busy_timeout, e))?;
    let mut fresh = History {
        conn,
        path: path.to_path_buf(),
        busy_timeout,
    };
    fresh.migrate_file(MIGRATIONS, true)?;
    drop(fresh);
    match temp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io(e.error)),
    }
}

/// Sorts SQLite's errors into the ones a person can act on.
fn classify(path: &Path, waited: Duration, error: rusqlite::Error) -> HistoryError {
    let path = path.to_path_buf();
    let code = match &error {
        rusqlite::Error::SqliteFailure(e, _) => Some(e.code),
        _ => None,
    };
    let detail = error.to_string();
    match code {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            HistoryError::Locked { path, waited }
        }
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            HistoryError::Corrupt { path, detail }
        }
        Some(
            ErrorCode::CannotOpen
            | ErrorCode::PermissionDenied
            | ErrorCode::ReadOnly
            | ErrorCode::SystemIoFailure
            | ErrorCode::DiskFull,
        ) => HistoryError::Io { path, detail },
        _ => HistoryError::Other { path, detail },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_run_step_by_step_and_only_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let mut h = History::open(&path).unwrap();
        assert_eq!(h.schema_version().unwrap(), SCHEMA_VERSION);
        // A later build's second step: applied once, on top of the first.
        let steps = [
            MIGRATIONS[0],
            "CREATE TABLE notes (run INTEGER, text TEXT);",
        ];
        h.migrate(&steps).unwrap();
        assert_eq!(h.schema_version().unwrap(), 2);
        h.migrate(&steps).unwrap();
        let tables: i64 = h
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 2);
        // That file is now too new for this build.
        drop(h);
        match History::open(&path) {
            Err(HistoryError::TooNew {
                found: 2,
                supported,
                ..
            }) => assert_eq!(supported, SCHEMA_VERSION),
            other => panic!("{:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn a_failing_step_leaves_the_version_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let mut h = History::open(dir.path().join("h.sqlite")).unwrap();
        let steps = [MIGRATIONS[0], "CREATE TABLE ok (x); THIS IS NOT SQL;"];
        assert!(h.migrate(&steps).is_err());
        assert_eq!(h.schema_version().unwrap(), SCHEMA_VERSION);
        let ok_tables: i64 = h
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'ok'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(ok_tables, 0, "the step's first statement was rolled back");
    }

    #[test]
    fn fingerprints_ignore_the_host_and_kernel_but_not_the_cpu() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/results/zen4-plain.json"
        );
        let report: Report = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let base = Machine::of(&report);
        assert_eq!(base.fingerprint.len(), 16);
        let mut other = report.clone();
        other.environment.kernel = Some("9.9.9".into());
        other.environment.command_line = vec!["x".into()];
        other.environment.timestamp = "2030-01-01T00:00:00Z".into();
        assert_eq!(Machine::of(&other), base);
        other.environment.cpu_features.retain(|f| f != "avx512f");
        assert_ne!(Machine::of(&other).fingerprint, base.fingerprint);
        let mut masked = report.clone();
        masked.environment.cpu_mask = vec!["SHA".into()];
        let m = Machine::of(&masked);
        assert_eq!(m.fingerprint, base.fingerprint);
        assert_eq!(m.cpu_mask, vec!["sha".to_string()]);
    }
}
