//! Known-hash sets, as `hashdeep -k` loads them for its matching modes:
//! the digests of manifests in every form `audit` reads, and of NSRL's
//! Reference Data Set version 3 (an SQLite database), kept so that millions
//! of them cost little more than their bytes and a lookup costs less than
//! hashing the smallest file.
//!
//! A set's digests go into one table per (algorithm, digest length), and a
//! hashdeep set of several columns into tables of its own, each of which
//! must hold a file's digest for a match. A table is one
//! flat buffer of fixed-width binary digests, sorted and without repeats,
//! with an index of where each run of digests sharing their leading bits
//! starts, about eight digests a run (so a lookup is one index read and a
//! binary search within a few cache lines). Ten million SHA-256 digests
//! take 320 MB and the index 8 MiB; names are kept only when asked for
//! (hashdeep's `-w`), in one buffer with an offset each.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use hashlab::{HashError, Registry};

use crate::check::{manifest_hint, LineReader, Unread};
use crate::manifest::{Framing, GnuReading};
mod nsrl;
mod sort;

pub use nsrl::{NsrlBound, NsrlError, MAX_ROWS as MAX_NSRL_ROWS};
use sort::{dedup_records, prefix, sort_records, PREFIX_BITS};

use crate::recorded::{
    read_manifest, LineFault, LineProblem, ManifestError, Place, ReadOptions, Recorded,
    MAX_ALGORITHMS, MAX_DIGEST_BYTES,
};

/// The algorithm of an NSRL set when none is asked for: RDS v3 publishes
/// SHA-256 for every file, and it is the strongest of its columns.
pub const NSRL_DEFAULT_ALGORITHM: &str = "sha256";

/// The most entries (names, and digests of one table) a run keeps: a
/// name's place is a `u32`, which halves what `-w` costs per entry.
pub const MAX_ENTRIES: u64 = u32::MAX as u64;

/// A manifest line longer than this is not a checksum line (the longest
/// digest in hex and a path of the longest length Linux allows take under
/// 5 KiB); it is skipped without being kept, so a file with no line ends
/// costs no more memory than this.
const MAX_LINE: usize = 1 << 20;

/// Lines of a hashdeep set read at once: each batch becomes a `Vec` of
/// entries for [`read_manifest`], so a set of millions of lines never does.
const HASHDEEP_BATCH_LINES: usize = 1 << 16;

/// Why a known set cannot be loaded. Names neither the set's file (the
/// caller knows which it was reading) nor any option.
#[derive(Debug)]
pub enum KnownError {
    /// The set's file cannot be read.
    Io(io::Error),
    /// The algorithm asked for is unknown.
    Algorithm(HashError),
    /// A manifest that cannot be read, or that holds no entry.
    Manifest(ManifestError),
    /// An SQLite file that is not a usable NSRL database.
    Nsrl(NsrlError),
    /// More (algorithm, digest length) pairs than [`MAX_ALGORITHMS`] over
    /// every set: each is a pass of hashing over every input.
    TooManyAlgorithms { limit: usize },
    /// More entries than [`MAX_ENTRIES`].
    TooManyEntries { limit: u64 },
    /// A JSON set read whole passed a bound of [`crate::bounded`].
    Bound(crate::bounded::LineError),
}

impl fmt::Display for KnownError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnownError::Io(e) => write!(f, "{}", crate::outfile::io_message(e)),
            KnownError::Algorithm(e) => write!(f, "{e}"),
            KnownError::Manifest(e) => write!(f, "{e}"),
            KnownError::Nsrl(e) => write!(f, "{e}"),
            KnownError::TooManyAlgorithms { limit } => write!(
                f,
                "the known sets hold more than {limit} algorithm and length pairs; every input is hashed with each, and at most {limit} are taken"
            ),
            KnownError::TooManyEntries { limit } => {
                write!(f, "more than {limit} known entries")
            }
            KnownError::Bound(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for KnownError {}

impl From<NsrlError> for KnownError {
    fn from(e: NsrlError) -> KnownError {
        KnownError::Nsrl(e)
    }
}

/// The forms a known set comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetForm {
    /// Checksum lines (GNU, BSD tags, openssl, SFV), as `check` reads them.
    Lines,
    /// hashdeep's `%%%% HASHDEEP-1.0` file: every column hashlab knows.
    Hashdeep,
    /// `hashlab sum --json`'s array.
    Json,
    /// NSRL's RDS v3: its FILE table's column of the algorithm.
    Nsrl,
}

/// What loading one set found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetReport {
    pub form: SetForm,
    /// Digests taken, repeats included (a hashdeep line gives one per column).
    pub digests: u64,
    /// Lines of a manifest that could not be read (the rest were).
    pub problems: Vec<LineProblem>,
    /// NSRL rows whose digest column is empty or NULL, skipped.
    pub without_digest: u64,
}

/// How to read a set.
#[derive(Debug, Clone, Copy, Default)]
pub struct SetOptions<'a> {
    /// The algorithm of every entry (any name the registry knows): for a
    /// manifest, over what its lines say; for hashdeep and NSRL sets, the
    /// column to read (NSRL: [`NSRL_DEFAULT_ALGORITHM`] without it;
    /// hashdeep: every column hashlab knows).
    pub algorithm: Option<&'a str>,
}

/// The bytes SQLite starts every database with.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
const HASHDEEP_MAGIC: &[u8] = b"%%%% HASHDEEP-1.0";

/// Loads the set at `path` into `builder`, telling its form by its first
/// bytes. On an error, what was already taken stays in `builder`: a caller
/// that goes on without the set must start a new builder.
pub fn load_set(
    builder: &mut KnownBuilder,
    registry: &Registry,
    path: &Path,
    options: &SetOptions<'_>,
) -> Result<SetReport, KnownError> {
    let algorithm = match options.algorithm {
        Some(name) => Some(
            registry
                .algorithm(name)
                .map_err(KnownError::Algorithm)?
                .name
                .as_str(),
        ),
        None => None,
    };
    let mut file = std::fs::File::open(path).map_err(KnownError::Io)?;
    let prefix = sniff(&mut file).map_err(KnownError::Io)?;
    let meta = file.metadata().map_err(KnownError::Io)?;
    if prefix.starts_with(SQLITE_MAGIC) && meta.is_file() {
        drop(file);
        return load_nsrl(builder, registry, path, algorithm);
    }
    let name = path.to_string_lossy();
    // Only a JSON set is read whole: a regular file as large as it is, a
    // pipe or a device up to the bound for streams.
    let whole = crate::bounded::whole_bound(&meta);
    load_read(builder, registry, prefix, file, &name, algorithm, whole)
}

/// Loads a manifest set (checksum lines, hashdeep's or `sum --json`'s
/// form, told by its first bytes) from `reader`; `name` is its name for
/// the algorithm hints a manifest's name gives (`SHA256SUMS`). An SQLite
/// database is refused: SQLite reads a file in place ([`load_set`]).
pub fn load_set_from(
    builder: &mut KnownBuilder,
    registry: &Registry,
    mut reader: impl Read,
    name: &str,
    options: &SetOptions<'_>,
) -> Result<SetReport, KnownError> {
    let algorithm = match options.algorithm {
        Some(a) => Some(
            registry
                .algorithm(a)
                .map_err(KnownError::Algorithm)?
                .name
                .as_str(),
        ),
        None => None,
    };
    let prefix = sniff(&mut reader).map_err(KnownError::Io)?;
    let whole = crate::bounded::MAX_STREAM_BYTES;
    load_read(builder, registry, prefix, reader, name, algorithm, whole)
}

fn load_read(
    builder: &mut KnownBuilder,
    registry: &Registry,
    prefix: Vec<u8>,
    rest: impl Read,
    name: &str,
    algorithm: Option<&str>,
    whole: u64,
) -> Result<SetReport, KnownError> {
    if prefix.starts_with(SQLITE_MAGIC) {
        return Err(NsrlError::NotAFile.into());
    }
    let reader = BufReader::with_capacity(1 << 20, io::Cursor::new(prefix.clone()).chain(rest));
    if prefix.starts_with(HASHDEEP_MAGIC) {
        load_hashdeep(builder, registry, reader, name, algorithm)
    } else if prefix.trim_ascii_start().starts_with(b"[") {
        load_json(builder, registry, reader, name, algorithm, whole)
    } else {
        load_lines(builder, registry, reader, name, algorithm)
    }
}

/// The first bytes of a set: enough for SQLite's and hashdeep's magic, and
/// up to the first byte that is not white space (a JSON array's `[`),
/// within 1 MiB. Read without seeking, so that a pipe (`-k <(...)`) works.
fn sniff(file: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut prefix: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let decided =
            prefix.len() >= SQLITE_MAGIC.len() && prefix.iter().any(|b| !b.is_ascii_whitespace());
        if decided || prefix.len() >= 1 << 20 {
            return Ok(prefix);
        }
        match file.read(&mut chunk) {
            Ok(0) => return Ok(prefix),
            Ok(n) => prefix.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// One record of `reader` ended by `end` (the end kept) into `out`.
/// `Ok(None)` at the end of the input; `Ok(Some(false))` for a record longer
/// than [`MAX_LINE`], which is skipped to its end and not kept.
fn next_record(reader: &mut impl BufRead, end: u8, out: &mut Vec<u8>) -> io::Result<Option<bool>> {
    out.clear();
    let mut any = false;
    let mut too_long = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(any.then_some(!too_long));
        }
        any = true;
        let (take, done) = match buf.iter().position(|b| *b == end) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if !too_long {
            if out.len() + take > MAX_LINE {
                too_long = true;
                out.clear();
            } else {
                out.extend_from_slice(&buf[..take]);
            }
        }
        reader.consume(take);
        if done {
            return Ok(Some(!too_long));
        }
    }
}

/// Checksum lines, read one at a time through the reader `check` and
/// `audit` use, its state (SFV or not, GNU or reversed lines) kept over the
/// whole file as `read_manifest` keeps it: a set of millions of lines
/// would otherwise be a `Vec` of millions of entries (a name, an algorithm
/// and a digest allocated each) before its first digest is stored.
fn load_lines(
    builder: &mut KnownBuilder,
    registry: &Registry,
    mut reader: impl BufRead,
    manifest_name: &str,
    algorithm: Option<&str>,
) -> Result<SetReport, KnownError> {
    let hint = manifest_hint(registry, manifest_name);
    let mut lines = LineReader {
        registry,
        chosen: algorithm,
        length: None,
        hint: hint.algorithm.as_deref(),
        framing: Framing::Lines,
        form: hint.form,
    };
    let mut reading = GnuReading::Undecided;
    let mut report = SetReport {
        form: SetForm::Lines,
        digests: 0,
        problems: Vec::new(),
        without_digest: 0,
    };
    let mut raw = Vec::new();
    let mut number = 0u64;
    while let Some(whole) = next_record(&mut reader, b'\n', &mut raw).map_err(KnownError::Io)? {
        number += 1;
        let place = Place::Line(number);
        let fault = if !whole {
            LineFault::NotAChecksumLine
        } else {
            match lines.read(&raw, &mut reading) {
                Ok(None) => continue,
                Ok(Some((entry, algorithm, _))) => {
                    if entry.expected.len() > MAX_DIGEST_BYTES {
                        LineFault::DigestTooLong {
                            bytes: entry.expected.len(),
                            limit: MAX_DIGEST_BYTES,
                        }
                    } else {
                        builder.add(&algorithm.name, &entry.expected, &entry.name)?;
                        report.digests += 1;
                        continue;
                    }
                }
                Err(Unread::NotAChecksumLine) => LineFault::NotAChecksumLine,
                Err(Unread::Unsettled(why)) => LineFault::Unsettled(why),
            }
        };
        report.problems.push(LineProblem { place, fault });
    }
    if report.digests == 0 {
        return Err(KnownError::Manifest(ManifestError::NoEntries {
            problems: report.problems,
        }));
    }
    Ok(report)
}

/// `hashlab sum --json`'s array, read whole by [`read_manifest`] (JSON has
/// no lines to read one at a time).
fn load_json(
    builder: &mut KnownBuilder,
    registry: &Registry,
    reader: impl BufRead,
    manifest_name: &str,
    algorithm: Option<&str>,
    whole: u64,
) -> Result<SetReport, KnownError> {
    let bytes = crate::bounded::read_to_end_within(reader, b'\n', whole).map_err(|e| match e {
        crate::bounded::LineError::Io(e) => KnownError::Io(e),
        e => KnownError::Bound(e),
    })?;
    let options = ReadOptions {
        algorithm,
        framing: Framing::Lines,
    };
    let manifest =
        read_manifest(registry, &bytes, manifest_name, &options).map_err(KnownError::Manifest)?;
    let mut digests = 0u64;
    for entry in &manifest.entries {
        for (name, digest) in known_digests(entry) {
            builder.add(&entry.algorithm, digest, &name)?;
            digests += 1;
        }
    }
    Ok(SetReport {
        form: SetForm::Json,
        digests,
        problems: manifest.problems,
        without_digest: 0,
    })
}

/// A hashdeep file, by batches of lines under its two header lines, each
/// read by [`read_manifest`] once per column: every column hashlab knows
/// (hashdeep hashes every input with each of its known file's algorithms,
/// and a match must agree on all), or the one of the algorithm asked for.
fn load_hashdeep(
    builder: &mut KnownBuilder,
    registry: &Registry,
    mut reader: impl BufRead,
    manifest_name: &str,
    algorithm: Option<&str>,
) -> Result<SetReport, KnownError> {
    let mut header = Vec::new();
    let mut raw = Vec::new();
    for _ in 0..2 {
        if next_record(&mut reader, b'\n', &mut raw).map_err(KnownError::Io)? == Some(true) {
            header.extend_from_slice(&raw);
        }
    }
    if !header.ends_with(b"\n") {
        header.push(b'\n');
    }
    // The header's own complaint (`read_manifest`'s) comes from reading it
    // without a column; with one, only the algorithms among its columns.
    let columns = hashdeep_columns(registry, &header, algorithm);
    let set = HashdeepSet {
        group: if columns.len() > 1 {
            builder.group_of_every_digest()
        } else {
            builder.pool()
        },
        columns,
        manifest_name,
    };
    let mut report = SetReport {
        form: SetForm::Hashdeep,
        digests: 0,
        problems: Vec::new(),
        without_digest: 0,
    };
    let mut batch = header.clone();
    let mut first_line = 3u64;
    let mut number = 2u64;
    let mut in_batch = 0usize;
    let mut read_any_column = false;
    loop {
        let next = next_record(&mut reader, b'\n', &mut raw).map_err(KnownError::Io)?;
        if let Some(whole) = next {
            number += 1;
            in_batch += 1;
            if whole {
                batch.extend_from_slice(&raw);
                if !raw.ends_with(b"\n") {
                    batch.push(b'\n');
                }
            } else {
                // An empty line keeps the batch's numbering; the line is reported here.
                batch.push(b'\n');
                report.problems.push(LineProblem {
                    place: Place::Line(number),
                    fault: LineFault::NotAChecksumLine,
                });
            }
        }
        let full = in_batch >= HASHDEEP_BATCH_LINES;
        if next.is_none() || full {
            // The first batch is read even without lines, so that a bad header is reported.
            if in_batch > 0 || first_line == 3 {
                read_any_column |=
                    hashdeep_batch(builder, registry, &set, &batch, first_line, &mut report)?;
            }
            first_line = number + 1;
            in_batch = 0;
            batch.truncate(header.len());
        }
        if next.is_none() {
            break;
        }
    }
    report.problems.sort_by_key(|p| match p.place {
        Place::Line(n) | Place::Entry(n) => n,
    });
    report.problems.dedup();
    if report.digests == 0 {
        if !read_any_column {
            // No column could be read: `read_manifest` says why, as audit would.
            let options = ReadOptions {
                algorithm,
                framing: Framing::Lines,
            };
            read_manifest(registry, &header, manifest_name, &options)
                .map_err(KnownError::Manifest)?;
        }
        return Err(KnownError::Manifest(ManifestError::NoEntries {
            problems: report.problems,
        }));
    }
    Ok(report)
}

/// The algorithms of a hashdeep header's columns that the registry knows,
/// in the header's order (hashdeep's own order of them: md5, sha1, sha256);
/// only `wanted`'s when given.
fn hashdeep_columns(registry: &Registry, header: &[u8], wanted: Option<&str>) -> Vec<String> {
    let Some(line) = header.split(|b| *b == b'\n').nth(1) else {
        return Vec::new();
    };
    let line = String::from_utf8_lossy(line);
    let Some(columns) = line.trim_end().strip_prefix("%%%% ") else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for column in columns.split(',') {
        let Ok(algorithm) = registry.algorithm(column.trim()) else {
            continue;
        };
        if wanted.is_some_and(|w| w != algorithm.name) || out.contains(&algorithm.name) {
            continue;
        }
        out.push(algorithm.name.clone());
    }
    out
}

/// A hashdeep set being read: its columns' algorithms and their group.
struct HashdeepSet<'a> {
    manifest_name: &'a str,
    columns: Vec<String>,
    group: Group,
}

/// One batch of a hashdeep set (its header, then lines from file line
/// `first_line`): each column's digests, a name once per line where the
/// columns agree on the lines they read. Whether any column could be read.
fn hashdeep_batch(
    builder: &mut KnownBuilder,
    registry: &Registry,
    set: &HashdeepSet<'_>,
    batch: &[u8],
    first_line: u64,
    report: &mut SetReport,
) -> Result<bool, KnownError> {
    let (group, manifest_name) = (set.group, set.manifest_name);
    let mut read_any = false;
    let mut first: Option<Vec<(Vec<u8>, u32)>> = None;
    for column in &set.columns {
        let options = ReadOptions {
            algorithm: Some(column),
            framing: Framing::Lines,
        };
        let (entries, problems) = match read_manifest(registry, batch, manifest_name, &options) {
            Ok(m) => (m.entries, m.problems),
            Err(ManifestError::NoEntries { problems }) => (Vec::new(), problems),
            // A column hashlab knows as an algorithm but not as a hashdeep column.
            Err(ManifestError::NoHashdeepColumn { .. }) => continue,
            Err(e) => return Err(KnownError::Manifest(e)),
        };
        read_any = true;
        for problem in problems {
            let place = match problem.place {
                // read_manifest numbers the batch's lines from 3, after the header.
                Place::Line(n) => Place::Line(n - 3 + first_line),
                other => other,
            };
            report.problems.push(LineProblem { place, ..problem });
        }
        let known: Vec<(&str, Vec<u8>, &[u8])> = entries
            .iter()
            .flat_map(|e| {
                known_digests(e)
                    .into_iter()
                    .map(|(name, digest)| (e.algorithm.as_str(), name, digest))
            })
            .collect();
        let names: Vec<(Vec<u8>, u32)> = match &first {
            Some(first)
                if first.len() == known.len()
                    && first.iter().zip(&known).all(|((n, _), k)| *n == k.1) =>
            {
                for ((_, origin), (algorithm, _, digest)) in first.iter().zip(&known) {
                    builder.add_to(group, algorithm, digest, *origin)?;
                }
                report.digests += known.len() as u64;
                continue;
            }
            _ => {
                let mut names = Vec::with_capacity(known.len());
                for (algorithm, name, digest) in known {
                    let origin = builder.name(&name)?;
                    builder.add_to(group, algorithm, digest, origin)?;
                    report.digests += 1;
                    names.push((name, origin));
                }
                names
            }
        };
        if first.is_none() {
            first = Some(names);
        }
    }
    Ok(read_any)
}

/// The digests an entry makes known, each with the name it is known by:
/// its digest of the whole file (none where a manifest records pieces
/// only, as `hashdeep -p` writes them), and each piece's digest under
/// `NAME offset FIRST-LAST`, as hashdeep loads and names a piecewise set:
/// a file whose bytes are one piece's matches that piece.
fn known_digests(entry: &Recorded) -> Vec<(Vec<u8>, &[u8])> {
    let mut known = Vec::new();
    if !entry.digest.is_empty() {
        known.push((entry.name.clone(), entry.digest.as_slice()));
    }
    if let Some(pieces) = &entry.pieces {
        let count = pieces.digests.len() as u64;
        let len = entry
            .size
            .unwrap_or_else(|| pieces.size.saturating_mul(count));
        for (index, digest) in (0u64..).zip(&pieces.digests) {
            if digest.is_empty() {
                continue;
            }
            let (start, end) = crate::pieces::piece_range(len, pieces.size, index);
            let last = if end > start { end - 1 } else { start };
            let mut name = entry.name.clone();
            name.extend_from_slice(format!(" offset {start}-{last}").as_bytes());
            known.push((name, digest.as_slice()));
        }
    }
    known
}

/// NSRL's RDS v3: the digests of the FILE table's (or view's) column of
/// the algorithm, and with names kept, its `file_name`s ([`nsrl`] says
/// how the database is opened and bounded).
fn load_nsrl(
    builder: &mut KnownBuilder,
    registry: &Registry,
    path: &Path,
    algorithm: Option<&str>,
) -> Result<SetReport, KnownError> {
    let wanted = registry
        .algorithm(algorithm.unwrap_or(NSRL_DEFAULT_ALGORITHM))
        .map_err(KnownError::Algorithm)?;
    let keep_names = builder.keeps_names();
    let read = nsrl::read_nsrl(registry, path, wanted, keep_names, |digest, name| {
        builder.add(&wanted.name, digest, name).map(drop)
    })
    .map_err(|e| match e {
        nsrl::NsrlFailure::Nsrl(e) => KnownError::Nsrl(e),
        nsrl::NsrlFailure::Sink(e) => e,
    })?;
    Ok(SetReport {
        form: SetForm::Nsrl,
        digests: read.digests,
        problems: Vec::new(),
        without_digest: read.without_digest,
    })
}

/// The known names, kept only when asked for: one buffer of every name's
/// bytes and where each ends, so a name costs its length and eight bytes.
#[derive(Debug, Default)]
struct NameStore {
    bytes: Vec<u8>,
    ends: Vec<u64>,
}

impl NameStore {
    fn push(&mut self, name: &[u8]) -> Result<u32, KnownError> {
        let index = u32::try_from(self.ends.len())
            .map_err(|_| KnownError::TooManyEntries { limit: MAX_ENTRIES })?;
        self.bytes.extend_from_slice(name);
        self.ends.push(self.bytes.len() as u64);
        Ok(index)
    }

    fn get(&self, index: u32) -> &[u8] {
        let i = index as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }
}

/// One hash every input is hashed with: an algorithm (canonical name) at a
/// digest length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownHash {
    pub algorithm: String,
    pub width: usize,
}

/// Where a digest goes, for [`KnownBuilder::add_to`]: the pool of entries
/// of one digest each, where any table holding an input's digest makes a
/// match, or a set whose entries record several digests each (hashdeep's
/// columns), where each of its tables must hold the input's digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group(usize);

#[derive(Debug)]
struct GroupTables {
    /// Indices into the tables.
    tables: Vec<usize>,
    /// Every table must hold the input's digest (else any).
    every: bool,
}

/// Collects the digests of one or more sets; [`KnownBuilder::finish`]
/// makes the tables lookups use.
#[derive(Debug)]
pub struct KnownBuilder {
    hashes: Vec<KnownHash>,
    tables: Vec<TableBuilder>,
    groups: Vec<GroupTables>,
    pool: Option<Group>,
    names: Option<NameStore>,
}

impl KnownBuilder {
    /// `keep_names`: keep each entry's name, for [`KnownSets::name`]; that
    /// costs the names' bytes and twelve bytes an entry.
    pub fn new(keep_names: bool) -> KnownBuilder {
        KnownBuilder {
            hashes: Vec::new(),
            tables: Vec::new(),
            groups: Vec::new(),
            pool: None,
            names: keep_names.then(NameStore::default),
        }
    }

    pub fn keeps_names(&self) -> bool {
        self.names.is_some()
    }

    /// The group of entries of one digest each (manifest lines, NSRL rows).
    pub fn pool(&mut self) -> Group {
        *self.pool.get_or_insert_with(|| {
            self.groups.push(GroupTables {
                tables: Vec::new(),
                every: false,
            });
            Group(self.groups.len() - 1)
        })
    }

    /// A new group for a set whose entries record several digests of one
    /// file: an input matches it only when each of its tables holds the
    /// input's digest of that algorithm, as hashdeep checks a match's other
    /// columns (an MD5 found whose SHA-256 is not is a collision, no match).
    /// The tables are checked apart, not entry by entry: an input whose MD5
    /// is one entry's and SHA-256 another's would need both collisions.
    pub fn group_of_every_digest(&mut self) -> Group {
        self.groups.push(GroupTables {
            tables: Vec::new(),
            every: true,
        });
        Group(self.groups.len() - 1)
    }

    /// Keeps a known name (when names are kept) and returns its place for
    /// [`KnownBuilder::add_to`]; 0 when names are not kept.
    pub fn name(&mut self, name: &[u8]) -> Result<u32, KnownError> {
        match &mut self.names {
            Some(names) => names.push(name),
            None => Ok(0),
        }
    }

    /// Adds one known digest of `algorithm` (a canonical name) to the pool,
    /// with the name it was recorded under; returns the name's place.
    pub fn add(&mut self, algorithm: &str, digest: &[u8], name: &[u8]) -> Result<u32, KnownError> {
        let pool = self.pool();
        let origin = self.name(name)?;
        self.add_to(pool, algorithm, digest, origin)?;
        Ok(origin)
    }

    /// Adds a digest to `group` under a name already kept (`origin`, from
    /// [`KnownBuilder::name`] or [`KnownBuilder::add`]).
    pub fn add_to(
        &mut self,
        group: Group,
        algorithm: &str,
        digest: &[u8],
        origin: u32,
    ) -> Result<(), KnownError> {
        if digest.is_empty() {
            // No file's digest is empty: nothing could match it (and a table
            // of records zero bytes wide has no length).
            return Ok(());
        }
        let hash = match self
            .hashes
            .iter()
            .position(|h| h.algorithm == algorithm && h.width == digest.len())
        {
            Some(hash) => hash,
            None => {
                if self.hashes.len() >= MAX_ALGORITHMS {
                    return Err(KnownError::TooManyAlgorithms {
                        limit: MAX_ALGORITHMS,
                    });
                }
                self.hashes.push(KnownHash {
                    algorithm: algorithm.to_string(),
                    width: digest.len(),
                });
                self.hashes.len() - 1
            }
        };
        let tables = &mut self.groups[group.0].tables;
        let table = match tables.iter().find(|&&t| self.tables[t].hash == hash) {
            Some(&t) => t,
            None => {
                self.tables.push(TableBuilder::new(
                    algorithm.to_string(),
                    digest.len(),
                    hash,
                    self.names.is_some(),
                ));
                tables.push(self.tables.len() - 1);
                self.tables.len() - 1
            }
        };
        self.tables[table].push(digest, origin)
    }

    /// The tables, sorted and indexed, in the order their first digest came.
    pub fn finish(self) -> KnownSets {
        KnownSets {
            hashes: self.hashes,
            tables: self.tables.into_iter().map(TableBuilder::finish).collect(),
            groups: self.groups,
            names: self.names,
        }
    }
}

/// Records are compacted (sorted, repeats dropped) once this many have come
/// out of order, and again each time the count doubles, so that a set of
/// many repeats (NSRL lists a file once per package holding it) never holds
/// more than twice its distinct digests.
const COMPACT_MIN: usize = 1 << 20;

#[derive(Debug)]
struct TableBuilder {
    algorithm: String,
    width: usize,
    /// Which of the run's hashes its digests are compared with.
    hash: usize,
    records: Vec<u8>,
    /// The name of each record, parallel to `records` (empty without names).
    origins: Vec<u32>,
    carry_origins: bool,
    /// Every record so far is in ascending order without repeats (sets
    /// written in digest order need no sort at all).
    in_order: bool,
    /// Records after the last compaction.
    settled: usize,
}

impl TableBuilder {
    fn new(algorithm: String, width: usize, hash: usize, carry_origins: bool) -> TableBuilder {
        TableBuilder {
            algorithm,
            width,
            hash,
            records: Vec::new(),
            origins: Vec::new(),
            carry_origins,
            in_order: true,
            settled: 0,
        }
    }

    fn len(&self) -> usize {
        self.records.len() / self.width
    }

    fn push(&mut self, digest: &[u8], origin: u32) -> Result<(), KnownError> {
        let n = self.len();
        if self.in_order && n > 0 {
            match digest.cmp(&self.records[(n - 1) * self.width..]) {
                // A repeat: the first name it was recorded under stays.
                std::cmp::Ordering::Equal => return Ok(()),
                std::cmp::Ordering::Less => self.in_order = false,
                std::cmp::Ordering::Greater => {}
            }
        }
        if n as u64 >= MAX_ENTRIES {
            return Err(KnownError::TooManyEntries { limit: MAX_ENTRIES });
        }
        self.records.extend_from_slice(digest);
        if self.carry_origins {
            self.origins.push(origin);
        }
        if !self.in_order && n + 1 >= COMPACT_MIN.max(2 * self.settled) {
            self.compact();
        }
        Ok(())
    }

    fn compact(&mut self) {
        sort_records(&mut self.records, self.width, &mut self.origins);
        dedup_records(&mut self.records, self.width, &mut self.origins);
        self.in_order = true;
        self.settled = self.len();
    }

    fn finish(mut self) -> DigestTable {
        if !self.in_order {
            self.compact();
        }
        self.records.shrink_to_fit();
        self.origins.shrink_to_fit();
        let n = self.len();
        // A bucket for about every eight records: a lookup's binary search
        // then touches two or three cache lines where one of 2^16 buckets
        // (150 records of a 10-million table) took eight misses, for half a
        // byte of index a record.
        let bits = (usize::BITS - n.saturating_sub(1).leading_zeros()).saturating_sub(3);
        let bits = bits.min(PREFIX_BITS).min(8 * self.width as u32);
        let shift = PREFIX_BITS - bits;
        let mut starts = vec![0u32; (1usize << bits) + 1];
        for record in self.records.chunks_exact(self.width) {
            starts[(prefix(record) >> shift) as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        DigestTable {
            algorithm: self.algorithm,
            width: self.width,
            hash: self.hash,
            used: vec![0u64; n.div_ceil(64)],
            records: self.records,
            origins: self.origins,
            starts,
            shift,
        }
    }
}

/// The distinct known digests of one algorithm and length, sorted, with
/// which of them an input has matched.
#[derive(Debug)]
pub struct DigestTable {
    algorithm: String,
    width: usize,
    hash: usize,
    records: Vec<u8>,
    origins: Vec<u32>,
    /// Where each bucket of records sharing their leading bits starts:
    /// bucket `prefix >> shift` is `starts[b]..starts[b + 1]`.
    starts: Vec<u32>,
    shift: u32,
    /// One bit per record: matched by an input.
    used: Vec<u64>,
}

impl DigestTable {
    /// The algorithm's canonical name.
    pub fn algorithm(&self) -> &str {
        &self.algorithm
    }

    /// The digests' length in bytes.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Which of [`KnownSets::hashes`] its digests are compared with.
    pub fn hash(&self) -> usize {
        self.hash
    }

    /// Distinct digests.
    pub fn len(&self) -> usize {
        self.records.len() / self.width
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Bytes held: digests, index, names' places and used bits.
    pub fn heap_bytes(&self) -> usize {
        self.records.capacity()
            + self.origins.capacity() * 4
            + self.starts.capacity() * 4
            + self.used.capacity() * 8
    }

    /// The `i`-th distinct digest, in ascending order.
    pub fn record(&self, i: usize) -> &[u8] {
        &self.records[i * self.width..(i + 1) * self.width]
    }

    /// Where `digest` is among the table's records, if it is there.
    pub fn find(&self, digest: &[u8]) -> Option<usize> {
        if digest.len() != self.width || self.records.is_empty() {
            return None;
        }
        let bucket = (prefix(digest) >> self.shift) as usize;
        let (mut lo, mut hi) = (
            self.starts[bucket] as usize,
            self.starts[bucket + 1] as usize,
        );
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.record(mid).cmp(digest) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    fn mark(&mut self, i: usize) {
        self.used[i / 64] |= 1 << (i % 64);
    }

    /// Distinct digests no input has matched.
    pub fn unused(&self) -> usize {
        self.len()
            - self
                .used
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum::<usize>()
    }
}

/// Where a digest was found: the table and the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub table: usize,
    pub record: usize,
}

/// What the known sets say of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// A match: the first table (in the order sets came) that holds one of
    /// its digests, for [`KnownSets::name`].
    Known(Hit),
    /// No match, but a set whose entries hold several digests has some of
    /// the input's and not others (indices into [`KnownSets::hashes`]):
    /// a collision of the weaker algorithm, or a damaged entry.
    Partial {
        known: Vec<usize>,
        unknown: Vec<usize>,
    },
    Unknown,
}

/// Every known set of a run: one table per group and hash.
#[derive(Debug)]
pub struct KnownSets {
    hashes: Vec<KnownHash>,
    tables: Vec<DigestTable>,
    groups: Vec<GroupTables>,
    names: Option<NameStore>,
}

impl KnownSets {
    /// The hashes each input is to be hashed with, in the order the sets
    /// first named them: [`KnownSets::lookup`] takes one digest of each.
    pub fn hashes(&self) -> &[KnownHash] {
        &self.hashes
    }

    pub fn tables(&self) -> &[DigestTable] {
        &self.tables
    }

    /// Looks up an input's digests, `digests[i]` of `hashes()[i]`, and marks
    /// what matched as used (every table of a match: a file matched by
    /// its SHA-256 uses its MD5 of the same hashdeep set too).
    pub fn lookup<D: AsRef<[u8]>>(&mut self, digests: &[D]) -> Lookup {
        let mut first = None;
        let mut partial = None;
        for group in &self.groups {
            let found: Vec<Option<usize>> = group
                .tables
                .iter()
                .map(|&t| {
                    let table = &self.tables[t];
                    digests.get(table.hash).and_then(|d| table.find(d.as_ref()))
                })
                .collect();
            let matched = if group.every {
                found.iter().all(Option::is_some)
            } else {
                found.iter().any(Option::is_some)
            };
            if matched {
                for (&table, record) in group.tables.iter().zip(&found) {
                    if let Some(record) = *record {
                        self.tables[table].mark(record);
                        first.get_or_insert(Hit { table, record });
                    }
                }
            } else if found.iter().any(Option::is_some) && partial.is_none() {
                let (known, unknown): (Vec<_>, Vec<_>) = group
                    .tables
                    .iter()
                    .zip(&found)
                    .partition(|(_, f)| f.is_some());
                let hashes = |of: Vec<(&usize, &Option<usize>)>| -> Vec<usize> {
                    of.into_iter().map(|(&t, _)| self.tables[t].hash).collect()
                };
                partial = Some(Lookup::Partial {
                    known: hashes(known),
                    unknown: hashes(unknown),
                });
            }
        }
        match (first, partial) {
            (Some(hit), _) => Lookup::Known(hit),
            (None, Some(partial)) => partial,
            (None, None) => Lookup::Unknown,
        }
    }

    /// The name the matched digest was first recorded under, when names are kept.
    pub fn name(&self, hit: Hit) -> Option<&[u8]> {
        let names = self.names.as_ref()?;
        let origin = *self.tables.get(hit.table)?.origins.get(hit.record)?;
        Some(names.get(origin))
    }

    /// Distinct known digests that no input matched, over every table.
    pub fn unused(&self) -> usize {
        self.tables.iter().map(DigestTable::unused).sum()
    }

    /// Bytes held by the tables and names.
    pub fn heap_bytes(&self) -> usize {
        self.tables
            .iter()
            .map(DigestTable::heap_bytes)
            .sum::<usize>()
            + self
                .names
                .as_ref()
                .map_or(0, |n| n.bytes.capacity() + n.ends.capacity() * 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hit(lookup: Lookup) -> Option<Hit> {
        match lookup {
            Lookup::Known(hit) => Some(hit),
            _ => None,
        }
    }

    fn sets(entries: &[(&str, &[u8], &str)], names: bool) -> KnownSets {
        let mut b = KnownBuilder::new(names);
        for (alg, digest, name) in entries {
            b.add(alg, digest, name.as_bytes()).unwrap();
        }
        b.finish()
    }

    #[test]
    fn lookups_hit_and_miss_and_mark_what_was_used() {
        let mut k = sets(
            &[
                ("sha256", &[3u8; 32], "c"),
                ("sha256", &[1u8; 32], "a"),
                ("sha256", &[2u8; 32], "b"),
            ],
            true,
        );
        assert_eq!(k.tables().len(), 1);
        assert_eq!(k.unused(), 3);
        let hit = hit(k.lookup(&[[2u8; 32]])).unwrap();
        assert_eq!(k.name(hit), Some(&b"b"[..]));
        assert_eq!(k.lookup(&[[4u8; 32]]), Lookup::Unknown);
        assert_eq!(k.lookup(&[[0u8; 32]]), Lookup::Unknown);
        // A digest of another length is no match, whatever its bytes.
        assert_eq!(k.lookup(&[[2u8; 16]]), Lookup::Unknown);
        assert_eq!(k.unused(), 2);
        k.lookup(&[[2u8; 32]]);
        assert_eq!(k.unused(), 2, "a digest is used once however often matched");
    }

    #[test]
    fn repeats_are_one_digest_under_the_first_name() {
        // In order, out of order, and through a compaction.
        for order in [[0usize, 1, 2], [2, 0, 1], [1, 2, 0]] {
            let all: [(&str, &[u8], &str); 3] = [
                ("md5", &[9u8; 16], "first"),
                ("md5", &[9u8; 16], "second"),
                ("md5", &[5u8; 16], "other"),
            ];
            let mut b = KnownBuilder::new(true);
            // Names are numbered as added, so "first" must be added first.
            b.add(all[0].0, all[0].1, all[0].2.as_bytes()).unwrap();
            for &i in order.iter().filter(|&&i| i != 0) {
                b.add(all[i].0, all[i].1, all[i].2.as_bytes()).unwrap();
            }
            let mut k = b.finish();
            assert_eq!(k.tables()[0].len(), 2, "{order:?}");
            let hit = hit(k.lookup(&[[9u8; 16]])).unwrap();
            assert_eq!(k.name(hit), Some(&b"first"[..]), "{order:?}");
        }
    }

    #[test]
    fn algorithms_and_lengths_get_tables_of_their_own() {
        let mut k = sets(
            &[
                ("sha256", &[7u8; 32], "s"),
                ("shake128", &[7u8; 16], "x16"),
                ("shake128", &[7u8; 32], "x32"),
                ("blake3", &[7u8; 32], "b"),
            ],
            true,
        );
        let shapes: Vec<(&str, usize)> = k
            .tables()
            .iter()
            .map(|t| (t.algorithm(), t.width()))
            .collect();
        assert_eq!(
            shapes,
            [
                ("sha256", 32),
                ("shake128", 16),
                ("shake128", 32),
                ("blake3", 32)
            ]
        );
        // Same bytes, another table: only the table of the input's algorithm answers.
        let none: [&[u8]; 4] = [&[0u8; 32], &[0u8; 16], &[7u8; 32], &[0u8; 32]];
        let hit = hit(k.lookup(&none)).unwrap();
        assert_eq!((hit.table, k.name(hit)), (2, Some(&b"x32"[..])));
        assert_eq!(k.unused(), 3);
        let mut b = KnownBuilder::new(false);
        for n in 0..=MAX_ALGORITHMS {
            let r = b.add("shake128", &vec![1u8; n + 1], b"f");
            assert_eq!(r.is_err(), n == MAX_ALGORITHMS, "{n}");
        }
        assert!(sets(&[("sha256", &[1u8; 32], "x")], false)
            .name(Hit {
                table: 0,
                record: 0
            })
            .is_none());
    }

    /// A set whose entries hold several digests (hashdeep's columns)
    /// matches only when each is known: an MD5 known with an unknown
    /// SHA-256 is a collision. The pool beside it matches on any.
    #[test]
    fn a_set_of_several_digests_an_entry_needs_them_all() {
        let mut b = KnownBuilder::new(true);
        let hd = b.group_of_every_digest();
        let origin = b.name(b"both").unwrap();
        b.add_to(hd, "md5", &[1u8; 16], origin).unwrap();
        b.add_to(hd, "sha256", &[1u8; 32], origin).unwrap();
        b.add("sha1", &[2u8; 20], b"pooled").unwrap();
        let mut k = b.finish();
        let hashes: Vec<(&str, usize)> = k
            .hashes()
            .iter()
            .map(|h| (h.algorithm.as_str(), h.width))
            .collect();
        assert_eq!(hashes, [("md5", 16), ("sha256", 32), ("sha1", 20)]);
        let file =
            |md5: u8, sha256: u8, sha1: u8| (vec![md5; 16], vec![sha256; 32], vec![sha1; 20]);
        let ask = |k: &mut KnownSets, (a, b, c): (Vec<u8>, Vec<u8>, Vec<u8>)| k.lookup(&[a, b, c]);
        assert_eq!(
            ask(&mut k, file(1, 9, 9)),
            Lookup::Partial {
                known: vec![0],
                unknown: vec![1]
            }
        );
        assert_eq!(k.unused(), 3, "a partial match uses nothing");
        let both = hit(ask(&mut k, file(1, 1, 9))).unwrap();
        assert_eq!(k.name(both), Some(&b"both"[..]));
        assert_eq!(k.unused(), 1);
        let pooled = hit(ask(&mut k, file(9, 1, 2))).unwrap();
        assert_eq!(k.name(pooled), Some(&b"pooled"[..]));
        assert_eq!(k.unused(), 0);
        assert_eq!(ask(&mut k, file(9, 9, 9)), Lookup::Unknown);
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let k = KnownBuilder::new(false).finish();
        assert!(k.tables().is_empty());
        let t = TableBuilder::new("sha1".into(), 20, 0, false).finish();
        assert_eq!(t.find(&[0u8; 20]), None);
        assert_eq!(t.unused(), 0);
    }

    #[test]
    fn long_lines_are_skipped_without_being_kept() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\nshort\nlast");
        let mut reader = BufReader::with_capacity(4096, &input[..]);
        let mut out = Vec::new();
        assert_eq!(
            next_record(&mut reader, b'\n', &mut out).unwrap(),
            Some(false)
        );
        assert!(out.is_empty());
        assert_eq!(
            next_record(&mut reader, b'\n', &mut out).unwrap(),
            Some(true)
        );
        assert_eq!(out, b"short\n");
        assert_eq!(
            next_record(&mut reader, b'\n', &mut out).unwrap(),
            Some(true)
        );
        assert_eq!(out, b"last");
        assert_eq!(next_record(&mut reader, b'\n', &mut out).unwrap(), None);
    }

    /// Many records sharing long prefixes (every radix level, the small
    /// buckets, a parallel top level), against std's sort and dedup.
    #[test]
    fn a_large_table_is_sorted_and_found_whole() {
        let mut b = KnownBuilder::new(true);
        let mut expected = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..(COMPACT_MIN + 70_000) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Few distinct first bytes, and repeats, to reach every path.
            let mut d = [0u8; 20];
            d[0] = (x % 3) as u8;
            d[1..9].copy_from_slice(&(x % 500_000).to_be_bytes());
            d[12..20].copy_from_slice(&(x % 500_000).to_le_bytes());
            b.add("sha1", &d, format!("{i}").as_bytes()).unwrap();
            expected.push((d, i));
        }
        let mut k = b.finish();
        expected.sort();
        expected.dedup_by(|later, first| later.0 == first.0);
        let t = &k.tables()[0];
        assert_eq!(t.len(), expected.len());
        for (i, (d, _)) in expected.iter().enumerate() {
            assert_eq!(t.record(i), d, "{i}");
        }
        for (d, first) in expected.iter().step_by(997) {
            let hit = hit(k.lookup(&[d])).expect("found");
            assert_eq!(k.name(hit), Some(format!("{first}").as_bytes()));
        }
        assert_eq!(k.lookup(&[[3u8; 20]]), Lookup::Unknown);
    }

    proptest! {
        #[test]
        fn sorting_and_dedup_agree_with_std(
            width in 1usize..40,
            seeds in proptest::collection::vec(any::<u64>(), 0..300),
            repeats in 0usize..3,
        ) {
            let mut records = Vec::new();
            let mut expected: Vec<(Vec<u8>, u32)> = Vec::new();
            for (i, s) in seeds.iter().enumerate() {
                for r in 0..=repeats {
                    // Narrow byte values make long shared prefixes.
                    let d: Vec<u8> = (0..width).map(|k| ((s >> (k % 60)) % 3) as u8).collect();
                    records.extend_from_slice(&d);
                    expected.push((d, (i * (repeats + 1) + r) as u32));
                }
            }
            let mut origins: Vec<u32> = (0..expected.len() as u32).collect();
            sort_records(&mut records, width, &mut origins);
            dedup_records(&mut records, width, &mut origins);
            expected.sort();
            expected.dedup_by(|later, first| later.0 == first.0);
            let got: Vec<(Vec<u8>, u32)> = records
                .chunks_exact(width)
                .map(|c| c.to_vec())
                .zip(origins)
                .collect();
            prop_assert_eq!(got, expected);
        }

        #[test]
        fn every_added_digest_is_found_and_no_other(
            width in 1usize..33,
            digests in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 32), 1..200),
            probes in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 32), 0..50),
        ) {
            let mut b = KnownBuilder::new(false);
            for d in &digests {
                b.add("sha256", &d[..width], b"").unwrap();
            }
            let k = b.finish();
            let t = &k.tables()[0];
            for d in &digests {
                prop_assert!(t.find(&d[..width]).is_some());
            }
            for p in &probes {
                let present = digests.iter().any(|d| d[..width] == p[..width]);
                prop_assert_eq!(t.find(&p[..width]).is_some(), present);
            }
        }
    }
}
