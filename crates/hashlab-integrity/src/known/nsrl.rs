//! NSRL's Reference Data Set version 3, an SQLite database, read as a
//! known set: its FILE table's (or view's) column of one algorithm, and
//! the `file_name`s when asked for.
//!
//! A database is a program as much as data (a view is a query SQLite runs),
//! so one that a user downloads is read as SQLite advises for untrusted
//! files (sqlite.org/security.html): FILE must be an ordinary table, or a
//! view over ordinary tables that recurses nowhere and calls only plain
//! text functions (refused before a row is read); the schema is not
//! trusted (`trusted_schema=OFF`), cells are checked, nothing is mapped;
//! and the read is bounded in rows, in time (a progress handler) and in
//! the memory SQLite takes, each with a message saying which bound held.

use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hashlab::{Algorithm, Registry};
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;

/// Why an SQLite file is not a usable NSRL RDS v3 database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NsrlError {
    /// An SQLite database in a pipe or device: SQLite reads a file in place.
    NotAFile,
    /// SQLite's header is there, but SQLite cannot read the file as a
    /// database (it is encrypted, or its first page is damaged).
    NotADatabase(String),
    /// SQLite found the file damaged: truncated, or its pages corrupt.
    Damaged(String),
    /// No table or view named FILE, where RDS v3 keeps its file records.
    NoFileTable,
    /// FILE is not what RDS v3 publishes: a virtual table, or a view that
    /// recurses, reads something other than tables or calls a function
    /// that is not plain text handling. Says what was found.
    NotRdsSchema(String),
    /// FILE has no column of the algorithm asked for. `available` lists
    /// the columns that name an algorithm.
    NoDigestColumn {
        algorithm: String,
        available: Vec<String>,
    },
    /// FILE has no `file_name` column (needed for the known names).
    NoNameColumn,
    /// A row whose digest is not hex of the algorithm's length. `row`
    /// counts from 1 in the order SQLite returns them.
    BadDigest {
        row: u64,
        column: String,
        value: String,
        hex_digits: usize,
    },
    /// FILE has no row with a digest in the column.
    Empty { column: String },
    /// Rows committed to the write-ahead log (`-wal`) and not yet copied
    /// into the database, which SQLite reads only through a `-shm` index
    /// beside it: there is none and SQLite could not make one.
    WalUnreadable { wal: PathBuf, why: String },
    /// The read went over one of its bounds.
    Bound(NsrlBound),
    /// Any other error SQLite reports.
    Sqlite(String),
}

/// The bound a read of FILE went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NsrlBound {
    /// More rows than [`MAX_ROWS`].
    Rows(u64),
    /// Longer than the time allowed a database of its size.
    Time(Duration),
    /// SQLite's memory grew by more than this many bytes.
    Memory(u64),
}

impl fmt::Display for NsrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NsrlError::NotAFile => write!(
                f,
                "an SQLite database, which SQLite reads in place: give its file, not a pipe"
            ),
            NsrlError::NotADatabase(why) => {
                write!(f, "SQLite cannot read it as a database ({why})")
            }
            NsrlError::Damaged(why) => {
                write!(f, "damaged SQLite database, truncated or corrupt ({why})")
            }
            NsrlError::NoFileTable => write!(
                f,
                "no FILE table: not an NSRL RDS v3 database (its file records are in FILE)"
            ),
            NsrlError::NotRdsSchema(why) => write!(
                f,
                "not an NSRL RDS v3 database: FILE {why} (RDS v3's FILE is a table, or a view joining tables)"
            ),
            NsrlError::NoDigestColumn {
                algorithm,
                available,
            } if available.is_empty() => {
                write!(f, "FILE has no {algorithm} column, nor any digest column")
            }
            NsrlError::NoDigestColumn {
                algorithm,
                available,
            } => write!(
                f,
                "FILE has no {algorithm} column (its digest columns: {})",
                available.join(", ")
            ),
            NsrlError::NoNameColumn => write!(f, "FILE has no file_name column"),
            NsrlError::BadDigest {
                row,
                column,
                value,
                hex_digits,
            } => write!(
                f,
                "FILE row {row}: {column} is {value}, not {hex_digits} hex digits"
            ),
            NsrlError::Empty { column } => write!(f, "FILE has no row with a {column} digest"),
            NsrlError::WalUnreadable { wal, why } => write!(
                f,
                "rows committed to {} are not yet in the database, and SQLite reads them only through an index file beside it, which it cannot create here ({why}); checkpoint the database as its owner (sqlite3 DB 'PRAGMA wal_checkpoint') or copy it with its -wal file to a directory you can write",
                wal.display()
            ),
            NsrlError::Bound(NsrlBound::Rows(limit)) => {
                write!(f, "FILE has more than {limit} rows")
            }
            NsrlError::Bound(NsrlBound::Time(limit)) => write!(
                f,
                "reading FILE took more than {} s, the most a database of this size is given",
                limit.as_secs()
            ),
            NsrlError::Bound(NsrlBound::Memory(limit)) => write!(
                f,
                "reading FILE took SQLite more than {} MiB of memory",
                limit >> 20
            ),
            NsrlError::Sqlite(why) => write!(f, "SQLite: {why}"),
        }
    }
}

impl std::error::Error for NsrlError {}

impl From<rusqlite::Error> for NsrlError {
    fn from(e: rusqlite::Error) -> NsrlError {
        use rusqlite::ErrorCode;
        let text = e.to_string();
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => NsrlError::NotADatabase(text),
            Some(ErrorCode::DatabaseCorrupt) => NsrlError::Damaged(text),
            _ => NsrlError::Sqlite(text),
        }
    }
}

/// The most rows of FILE read: NSRL's largest published sets hold a few
/// hundred million; past this a FILE is a generator, not a data set.
pub const MAX_ROWS: u64 = 1 << 34;

/// The most SQLite's own memory may grow during a read: its page cache
/// (set well under this) and what a view's join needs. The known set's
/// tables are ours, bounded by [`super::MAX_ENTRIES`].
pub const MAX_SQLITE_MEMORY: u64 = 1 << 30;

/// The time a read may take: a base, and a rate far below what SQLite
/// reads (10 million rows of a 3.8 GiB set take 6.5 s, 600 MB/s): a disk
/// 100 times slower still finishes; a FILE that computes rows out of
/// nothing is stopped.
fn time_allowed(database_bytes: u64) -> Duration {
    const BASE: Duration = Duration::from_secs(10);
    const BYTES_PER_SECOND: u64 = 4 << 20;
    BASE + Duration::from_secs(database_bytes / BYTES_PER_SECOND)
}

/// Virtual-machine steps between checks of the time and memory bounds
/// (about a millisecond of work).
const PROGRESS_STEPS: i32 = 10_000;

/// Functions a view of FILE may call: text handling, whose output is no
/// longer than its input. Anything else (`randomblob`, `zeroblob`,
/// `printf`'s widths, extensions) is refused.
const VIEW_FUNCTIONS: &[&str] = &[
    "upper",
    "lower",
    "trim",
    "ltrim",
    "rtrim",
    "substr",
    "substring",
    "coalesce",
    "ifnull",
    "nullif",
    "length",
    "replace",
    "instr",
    "hex",
];

/// What reading FILE gave, beside the digests handed on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NsrlRead {
    /// The column read (as FILE spells it).
    pub column: String,
    /// Digests handed on.
    pub digests: u64,
    /// Rows whose digest is empty or NULL, skipped.
    pub without_digest: u64,
}

/// A failure of [`read_nsrl`]: the database's, or the one `each` returned.
#[derive(Debug)]
pub enum NsrlFailure<E> {
    Nsrl(NsrlError),
    Sink(E),
}

impl<E> From<NsrlError> for NsrlFailure<E> {
    fn from(e: NsrlError) -> NsrlFailure<E> {
        NsrlFailure::Nsrl(e)
    }
}

impl<E> From<rusqlite::Error> for NsrlFailure<E> {
    fn from(e: rusqlite::Error) -> NsrlFailure<E> {
        NsrlFailure::Nsrl(e.into())
    }
}

/// Reads FILE's column of `wanted` (and with `keep_names` its
/// `file_name`), handing each row's digest and name to `each`.
///
/// Rows committed to the database's write-ahead log and not yet
/// checkpointed are read: SQLite reads a `-wal` file through a `-shm`
/// index beside the database, which it makes if there is none. Without
/// such rows (no `-wal`, or an empty one) the database is opened immutable:
/// SQLite then takes no lock and writes nothing beside it.
pub fn read_nsrl<E>(
    registry: &Registry,
    path: &Path,
    wanted: &Algorithm,
    keep_names: bool,
    mut each: impl FnMut(&[u8], &[u8]) -> Result<(), E>,
) -> Result<NsrlRead, NsrlFailure<E>> {
    let width = wanted.output.default_len();
    let (db, bytes) = open(path)?;
    let columns: Vec<String> = {
        let mut statement = db.prepare("SELECT name FROM pragma_table_info('FILE')")?;
        let names = statement.query_map([], |row| row.get::<_, String>(0))?;
        names.collect::<Result<_, _>>()?
    };
    if columns.is_empty() {
        return Err(NsrlError::NoFileTable.into());
    }
    let digest_columns: Vec<(&String, &str)> = columns
        .iter()
        .filter_map(|c| registry.algorithm(c).ok().map(|a| (c, a.name.as_str())))
        .collect();
    let Some(column) = digest_columns
        .iter()
        .find(|(_, name)| *name == wanted.name)
        .map(|(c, _)| (*c).clone())
    else {
        return Err(NsrlError::NoDigestColumn {
            algorithm: wanted.name.clone(),
            available: digest_columns.iter().map(|(c, _)| (*c).clone()).collect(),
        }
        .into());
    };
    // The column the RDS v3 schema names; compared as SQLite compares names.
    let name_column = columns.iter().find(|c| c.eq_ignore_ascii_case("file_name"));
    let sql = match (keep_names, name_column) {
        (false, _) => format!("SELECT {} FROM FILE", quote_identifier(&column)),
        (true, Some(name)) => format!(
            "SELECT {}, {} FROM FILE",
            quote_identifier(&column),
            quote_identifier(name)
        ),
        (true, None) => return Err(NsrlError::NoNameColumn.into()),
    };
    let mut db = db;
    prepare_checked(&mut db, &sql)?;
    let bounds = Bounds::install(&mut db, time_allowed(bytes), MAX_SQLITE_MEMORY)?;
    let mut statement = db.prepare(&sql)?;
    let mut rows = statement.query([])?;
    let mut read = NsrlRead {
        column,
        digests: 0,
        without_digest: 0,
    };
    let mut digest = vec![0u8; width];
    let mut row_number = 0u64;
    loop {
        let row = match rows.next() {
            Ok(Some(row)) => row,
            Ok(None) => break,
            Err(e) => return Err(bounds.explain(e).into()),
        };
        use rusqlite::types::ValueRef;
        row_number += 1;
        if row_number > MAX_ROWS {
            return Err(NsrlError::Bound(NsrlBound::Rows(MAX_ROWS)).into());
        }
        let value = row.get_ref(0)?;
        let shown = match value {
            ValueRef::Null | ValueRef::Text([]) => {
                read.without_digest += 1;
                continue;
            }
            ValueRef::Text(text) => {
                if decode_hex(text, &mut digest) {
                    let name: &[u8] = if keep_names {
                        match row.get_ref(1)? {
                            ValueRef::Text(name) | ValueRef::Blob(name) => name,
                            _ => b"",
                        }
                    } else {
                        b""
                    };
                    each(&digest, name).map_err(NsrlFailure::Sink)?;
                    read.digests += 1;
                    continue;
                }
                let text = String::from_utf8_lossy(text);
                let mut shown: String = text.chars().take(80).collect();
                if shown.len() < text.len() {
                    shown.push_str("...");
                }
                format!("'{shown}'")
            }
            ValueRef::Integer(n) => format!("the integer {n}"),
            ValueRef::Real(x) => format!("the number {x}"),
            ValueRef::Blob(b) => format!("a {}-byte BLOB", b.len()),
        };
        return Err(NsrlError::BadDigest {
            row: row_number,
            column: read.column,
            value: shown,
            hex_digits: 2 * width,
        }
        .into());
    }
    if read.digests == 0 {
        return Err(NsrlError::Empty {
            column: read.column,
        }
        .into());
    }
    Ok(read)
}

/// The database at `path`, opened read-only as [`read_nsrl`] says and
/// hardened for an untrusted file; and its size with its `-wal`.
fn open(path: &Path) -> Result<(rusqlite::Connection, u64), NsrlError> {
    let io = |e: io::Error| NsrlError::Sqlite(crate::outfile::io_message(&e));
    let absolute = std::fs::canonicalize(path).map_err(io)?;
    let mut wal = absolute.clone().into_os_string();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    let bytes = std::fs::metadata(&absolute).map_err(io)?.len();
    // Frames follow the log's 32-byte header: a log of no more holds no row.
    let wal_bytes = match std::fs::metadata(&wal) {
        Ok(m) if m.is_file() => m.len(),
        _ => 0,
    };
    let wal_bytes = if wal_bytes > 0 && in_wal_mode(&absolute).map_err(io)? {
        wal_bytes
    } else {
        0
    };
    let pending = wal_bytes > 32;
    let uri = sqlite_uri(&absolute, !pending);
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
        | rusqlite::OpenFlags::SQLITE_OPEN_URI
        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = rusqlite::Connection::open_with_flags(uri, flags)?;
    harden(&db)?;
    if pending {
        // SQLite opens the log (and its index) at the first read.
        if let Err(e) = db.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(())) {
            return Err(match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly) => {
                    NsrlError::WalUnreadable {
                        wal,
                        why: e.to_string(),
                    }
                }
                _ => e.into(),
            });
        }
    }
    Ok((db, bytes + wal_bytes))
}

/// Whether the database's header says write-ahead logging (its read and
/// write versions, bytes 18 and 19, are 2).
fn in_wal_mode(path: &Path) -> io::Result<bool> {
    let mut header = Vec::with_capacity(20);
    std::fs::File::open(path)?
        .take(20)
        .read_to_end(&mut header)?;
    Ok(header.len() == 20 && (header[18] == 2 || header[19] == 2))
}

/// SQLite's advice for a database file from elsewhere: a view may call
/// only functions safe in any context, cells are checked as read, no
/// file is mapped, and every length SQLite handles has a limit.
fn harden(db: &rusqlite::Connection) -> Result<(), NsrlError> {
    use rusqlite::config::DbConfig;
    db.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    db.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    db.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
    // A read-only connection never checkpoints; said again so that no
    // future flag makes it write into a database it only reads.
    db.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    // Temporary tables (a view's sort, an automatic index) are kept in
    // memory, where the memory bound sees them, rather than in files of the
    // temporary directory that grow unseen.
    db.execute_batch(
        "PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0; PRAGMA cache_size = -65536;
         PRAGMA temp_store = MEMORY;",
    )?;
    for (limit, value) in [
        // A digest or a name: far over any path Linux allows.
        (Limit::SQLITE_LIMIT_LENGTH, 1 << 20),
        (Limit::SQLITE_LIMIT_SQL_LENGTH, 1 << 20),
        (Limit::SQLITE_LIMIT_COLUMN, 1000),
        (Limit::SQLITE_LIMIT_EXPR_DEPTH, 100),
        (Limit::SQLITE_LIMIT_COMPOUND_SELECT, 8),
        (Limit::SQLITE_LIMIT_VDBE_OP, 100_000),
        (Limit::SQLITE_LIMIT_FUNCTION_ARG, 8),
        (Limit::SQLITE_LIMIT_ATTACHED, 0),
        (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100),
        (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, 1),
    ] {
        db.set_limit(limit, value)?;
    }
    Ok(())
}

/// Prepares `sql` while an authorizer watches what FILE makes SQLite do:
/// read ordinary tables, call [`VIEW_FUNCTIONS`], and nothing recursive.
fn prepare_checked(db: &mut rusqlite::Connection, sql: &str) -> Result<(), NsrlError> {
    let tables: Vec<String> = {
        let mut statement = db.prepare(
            // Views too: preparing a read of FILE reports a read of the view
            // itself, and what a view reads or calls is authorized in turn.
            "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND sql NOT LIKE 'CREATE VIRTUAL%'",
        )?;
        let names = statement.query_map([], |row| row.get::<_, String>(0))?;
        names.collect::<Result<_, _>>()?
    };
    let refused: Arc<Mutex<Option<String>>> = Arc::default();
    let seen = Arc::clone(&refused);
    db.authorizer(Some(move |context: AuthContext<'_>| {
        let why = match context.action {
            AuthAction::Select => return Authorization::Allow,
            AuthAction::Read { table_name, .. } => {
                if tables.iter().any(|t| t.eq_ignore_ascii_case(table_name)) {
                    return Authorization::Allow;
                }
                format!("reads {table_name}, which is not a table")
            }
            AuthAction::Function { function_name } => {
                if VIEW_FUNCTIONS
                    .iter()
                    .any(|f| f.eq_ignore_ascii_case(function_name))
                {
                    return Authorization::Allow;
                }
                format!("calls {function_name}()")
            }
            AuthAction::Recursive => "is a recursive view".to_string(),
            other => format!("asks SQLite for {other:?}"),
        };
        let mut first = seen.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(why);
        Authorization::Deny
    }))?;
    // The authorizer is asked while preparing, never while stepping: the
    // statement read from is prepared again without it.
    let prepared = db.prepare(sql).map(drop);
    let refusal = refused.lock().unwrap_or_else(|e| e.into_inner()).take();
    db.authorizer(None::<fn(AuthContext<'_>) -> Authorization>)?;
    if let Some(why) = refusal {
        return Err(NsrlError::NotRdsSchema(why));
    }
    Ok(prepared?)
}

/// The time and memory bounds of one read: a progress handler that
/// interrupts SQLite past either, and remembers which.
struct Bounds {
    tripped: Arc<AtomicU8>,
    time: Duration,
    memory: u64,
}

const WITHIN: u8 = 0;
const PAST_TIME: u8 = 1;
const PAST_MEMORY: u8 = 2;

impl Bounds {
    fn install(
        db: &mut rusqlite::Connection,
        time: Duration,
        memory: u64,
    ) -> Result<Bounds, NsrlError> {
        let tripped = Arc::new(AtomicU8::new(WITHIN));
        let flag = Arc::clone(&tripped);
        let deadline = Instant::now() + time;
        let baseline = sqlite_memory();
        db.progress_handler(
            PROGRESS_STEPS,
            Some(move || {
                let past = if Instant::now() > deadline {
                    PAST_TIME
                } else if sqlite_memory().saturating_sub(baseline) > memory {
                    PAST_MEMORY
                } else {
                    return false;
                };
                flag.store(past, Ordering::Relaxed);
                true
            }),
        )?;
        Ok(Bounds {
            tripped,
            time,
            memory,
        })
    }

    /// An error of the read, as the bound that stopped it if one did.
    fn explain(&self, e: rusqlite::Error) -> NsrlError {
        match self.tripped.load(Ordering::Relaxed) {
            PAST_TIME => NsrlError::Bound(NsrlBound::Time(self.time)),
            PAST_MEMORY => NsrlError::Bound(NsrlBound::Memory(self.memory)),
            _ => e.into(),
        }
    }
}

/// The bytes SQLite has allocated in this process. (A reading of SQLite's
/// counter; rusqlite has no safe call for it.)
fn sqlite_memory() -> u64 {
    // SAFETY: sqlite3_memory_used takes no argument and only reads a counter.
    let used = unsafe { rusqlite::ffi::sqlite3_memory_used() };
    u64::try_from(used).unwrap_or(0)
}

/// `file:` URI of a database, read-only, and immutable when asked (see
/// [`read_nsrl`]). `absolute` has every byte that a URI gives a meaning to
/// (`?`, `#`, `%`...) escaped.
fn sqlite_uri(absolute: &Path, immutable: bool) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        absolute.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = absolute.to_string_lossy().into_owned().into_bytes();
    let mut uri = String::from("file:");
    for &b in bytes.iter() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str(if immutable {
        "?mode=ro&immutable=1"
    } else {
        "?mode=ro"
    });
    uri
}

/// An SQL identifier, quoted (a column name from the database itself).
fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Decodes hex of exactly `out.len()` bytes (either case: NSRL writes
/// upper case) without allocating; false for anything else.
fn decode_hex(text: &[u8], out: &mut [u8]) -> bool {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    if text.len() != 2 * out.len() {
        return false;
    }
    for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        match (nibble(pair[0]), nibble(pair[1])) {
            (Some(hi), Some(lo)) => *byte = hi << 4 | lo,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_decoded_in_either_case_and_only_at_its_length() {
        let mut out = [0u8; 2];
        assert!(decode_hex(b"aBcD", &mut out));
        assert_eq!(out, [0xab, 0xcd]);
        assert!(!decode_hex(b"abc", &mut out));
        assert!(!decode_hex(b"abcdef", &mut out));
        assert!(!decode_hex(b"zzzz", &mut out));
        assert!(!decode_hex(" abc".as_bytes(), &mut out));
    }

    #[test]
    fn uris_escape_what_sqlite_would_read_as_query_or_escape() {
        let uri = sqlite_uri(Path::new("/d/a ?#%b.db"), true);
        assert_eq!(uri, "file:/d/a%20%3F%23%25b.db?mode=ro&immutable=1");
        assert!(sqlite_uri(Path::new("/d/x"), false).ends_with("/d/x?mode=ro"));
    }

    /// A query that computes rows out of nothing, as a hostile view would,
    /// is stopped by the time bound and said to be.
    #[test]
    fn the_time_bound_stops_a_query_that_never_ends() {
        let mut db = rusqlite::Connection::open_in_memory().unwrap();
        harden(&db).unwrap();
        let bounds = Bounds::install(&mut db, Duration::from_millis(200), 1 << 30).unwrap();
        let started = Instant::now();
        let e = db
            .query_row(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n",
                [],
                |row| row.get::<_, i64>(0),
            )
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(
            bounds.explain(e),
            NsrlError::Bound(NsrlBound::Time(Duration::from_millis(200)))
        );
    }

    /// Rows kept by a query (a recursive view's UNION keeps every row it
    /// made, to drop repeats) are stopped by the memory bound.
    #[test]
    fn the_memory_bound_stops_a_query_that_grows() {
        let mut db = rusqlite::Connection::open_in_memory().unwrap();
        harden(&db).unwrap();
        let bounds = Bounds::install(&mut db, Duration::from_secs(60), 32 << 20).unwrap();
        let e = db
            .query_row(
                "WITH RECURSIVE n(i, pad) AS (SELECT 1, randomblob(10000) UNION SELECT i + 1, pad FROM n) SELECT count(*) FROM n",
                [],
                |row| row.get::<_, i64>(0),
            )
            .unwrap_err();
        assert_eq!(
            bounds.explain(e),
            NsrlError::Bound(NsrlBound::Memory(32 << 20))
        );
    }
}
