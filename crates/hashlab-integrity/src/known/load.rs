//! Loading a known set from a file: sniffing its form (SQLite, hashdeep,
//! JSON, checksum lines) and feeding its digests to a [`KnownBuilder`].

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use hashlab::Registry;

use super::nsrl::NsrlError;
use super::sets::{Group, KnownBuilder};
use super::{
    KnownError, SetForm, SetOptions, SetReport, HASHDEEP_BATCH_LINES, MAX_LINE,
    NSRL_DEFAULT_ALGORITHM,
};
use crate::check::{manifest_hint, LineReader, Unread};
use crate::manifest::{Framing, GnuReading};
use crate::recorded::{
    read_manifest, LineFault, LineProblem, ManifestError, Place, ReadOptions, Recorded,
    MAX_DIGEST_BYTES,
};

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
pub(super) fn next_record(
    reader: &mut impl BufRead,
    end: u8,
    out: &mut Vec<u8>,
) -> io::Result<Option<bool>> {
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
    let read = super::nsrl::read_nsrl(registry, path, wanted, keep_names, |digest, name| {
        builder.add(&wanted.name, digest, name).map(drop)
    })
    .map_err(|e| match e {
        super::nsrl::NsrlFailure::Nsrl(e) => KnownError::Nsrl(e),
        super::nsrl::NsrlFailure::Sink(e) => e,
    })?;
    Ok(SetReport {
        form: SetForm::Nsrl,
        digests: read.digests,
        problems: Vec::new(),
        without_digest: read.without_digest,
    })
}
