//! Piecewise digests, as `hashdeep -p` makes them: a digest of every piece
//! of a file (and of the whole file), so that a later comparison tells which
//! byte ranges of a large file changed, not only that it did.
//!
//! Here: the piece size as users write it; hashing files in pieces (the
//! pieces of one file on several threads, files on several threads); the
//! pieces a manifest records (hashdeep's `offset START-END` lines, `sum
//! --json`'s `pieces`), checked for gaps, overlaps and order; and comparing a
//! file with them, for `check` and `audit`.

use std::collections::HashMap;
use std::fmt;
use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::SystemTime;

use hashlab::{Choice, Digest, HashError, HashParams, Hasher, OutputRule, Registry};
use serde::{Deserialize, Serialize};

use crate::audit::{key, path_of, AuditError, AuditReport};
use crate::cancel::Cancel;
use crate::lines::hashdeep_line;
use crate::many::{inode_and_ctime_ns, Fanout, FileDigests, HashJob, MAX_JOBS};
use crate::read::{hash_open_file, hash_reader, size_is_length, ReadBuffer, ReadStrategy};
use crate::recorded::{LineFault, LineProblem, Manifest, Place, Recorded};
use crate::walk::Input;

/// The most pieces one file is cut into. Every piece keeps a digest per
/// algorithm until the file's lines are written, so the count bounds the
/// memory a file costs (about 100 bytes a piece and algorithm); a manifest
/// of a million lines for one file is past what anyone reads anyway.
pub const MAX_PIECES: u64 = 1 << 20;

/// Pieces smaller than this are hashed in runs of consecutive pieces, one run
/// per task, so that a task's setup (fresh hashers, a buffer) stays noise
/// beside its hashing.
const RUN_MIN_BYTES: u64 = 8 << 20;

/// Why a piece size was refused. Names no flag: the caller says which option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PieceSizeError {
    NotASize(String),
    UnknownSuffix { text: String, suffix: String },
    Zero(String),
    TooLarge(String),
}

impl fmt::Display for PieceSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PieceSizeError::NotASize(text) => write!(
                f,
                "'{text}' is not a size (a whole number of bytes, or one with a suffix: 4k, 1m, 64K, 1MiB, 10MB)"
            ),
            PieceSizeError::UnknownSuffix { text, suffix } => write!(
                f,
                "'{text}': unknown suffix '{suffix}' (b, k, m, g, t, p, e as hashdeep takes them, each 1024 times the one before; KiB, MiB, GiB, TiB; KB, MB, GB, TB for powers of 1000)"
            ),
            PieceSizeError::Zero(text) => write!(f, "'{text}': a piece must be at least 1 byte"),
            PieceSizeError::TooLarge(text) => write!(f, "'{text}' is too large"),
        }
    }
}

impl std::error::Error for PieceSizeError {}

/// A piece size as `hashdeep -p` takes one (`4k`, `1m`: b, k, m, g, t, p, e,
/// each 1024 times the one before) and as `bench --sizes` does (`64K`,
/// `1MiB`; `KB`, `MB` for powers of 1000), case-insensitive. Where hashdeep
/// reads `1.5k` as `1k` and an unknown suffix as none, these are refused:
/// a manifest cut at another size than asked would be wrong silently.
pub fn parse_piece_size(text: &str) -> Result<u64, PieceSizeError> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    if digits.is_empty() || suffix.starts_with(['.', ',']) {
        return Err(PieceSizeError::NotASize(text.to_string()));
    }
    let multiplier: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "p" | "pib" => 1 << 50,
        "e" | "eib" => 1 << 60,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => {
            return Err(PieceSizeError::UnknownSuffix {
                text: text.to_string(),
                suffix: suffix.to_string(),
            })
        }
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| PieceSizeError::TooLarge(text.to_string()))?;
    let bytes = n
        .checked_mul(multiplier)
        .ok_or_else(|| PieceSizeError::TooLarge(text.to_string()))?;
    if bytes == 0 {
        return Err(PieceSizeError::Zero(text.to_string()));
    }
    Ok(bytes)
}

/// How many pieces of `size` bytes a file of `len` bytes is cut into: an
/// empty file has one, of no bytes, as hashdeep writes `offset 0-0` for it.
pub fn piece_count(len: u64, size: u64) -> u64 {
    len.div_ceil(size.max(1)).max(1)
}

/// Piece `index` of a file of `len` bytes cut every `size`: (start, end), the
/// end exclusive.
pub fn piece_range(len: u64, size: u64, index: u64) -> (u64, u64) {
    let start = index.saturating_mul(size).min(len);
    (start, start + size.min(len - start))
}

/// A file's digests piece by piece, by one algorithm, as a manifest records
/// them; the file's length is the entry's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pieces {
    /// Bytes in every piece but the last, which holds what is left.
    pub size: u64,
    /// One digest per piece, in file order.
    pub digests: Vec<Vec<u8>>,
}

/// Byte ranges, first and last byte as hashdeep writes them (`offset
/// 0-1023`), in order, with ranges that touch merged into one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Ranges(pub Vec<(u64, u64)>);

impl Ranges {
    /// Adds the bytes from `start` to `end` (exclusive), at or after every
    /// range added so far.
    fn add(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        match self.0.last_mut() {
            Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end - 1),
            _ => self.0.push((start, end - 1)),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Ranges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bytes ")?;
        for (i, (first, last)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{first}-{last}")?;
        }
        Ok(())
    }
}

/// A file set against the pieces a manifest records of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// The file's length now.
    pub bytes: u64,
    /// Its length when the manifest was written.
    pub recorded_bytes: u64,
    /// Whether its whole digest is the recorded one, where one is recorded
    /// (hashdeep's own `-p` records pieces only).
    pub whole_matches: Option<bool>,
    /// The bytes whose pieces differ: a piece past the end of a file that
    /// shrank is changed, and so are the bytes past the recorded end of one
    /// that grew. Left empty when the whole digest matches (nothing changed,
    /// and the pieces are then not read).
    pub changed: Ranges,
}

impl Comparison {
    /// The file is as recorded.
    pub fn intact(&self) -> bool {
        self.whole_matches != Some(false)
            && self.changed.is_empty()
            && self.bytes == self.recorded_bytes
    }

    /// What changed, in one line: `bytes 1048576-2097151 changed`, with the
    /// lengths where they differ.
    pub fn describe(&self) -> String {
        let mut out = if self.changed.is_empty() {
            // The pieces agree and the whole does not: the file changed
            // between the two reads, or the manifest's digests disagree.
            "no piece differs, but the whole-file digest does".to_string()
        } else {
            format!("{} changed", self.changed)
        };
        if self.bytes != self.recorded_bytes {
            out.push_str(&format!(
                " ({} bytes now, {} recorded)",
                self.bytes, self.recorded_bytes
            ));
        }
        out
    }
}

/// One file's digests (one per algorithm) and those of its pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceDigests {
    pub file: FileDigests,
    /// The piece size it was cut at.
    pub size: u64,
    /// Per piece, in file order, one digest per algorithm.
    pub pieces: Vec<Vec<Digest>>,
}

fn changed_while_read() -> io::Error {
    io::Error::other("changed while it was being read; its digest would describe neither version")
}

fn too_many_pieces(len: u64, size: u64) -> io::Error {
    io::Error::other(format!(
        "{len} bytes in pieces of {size} would be {} pieces, more than the {MAX_PIECES} one file may have; use larger pieces",
        piece_count(len, size)
    ))
}

fn is_a_directory() -> io::Error {
    io::Error::from_raw_os_error(libc::EISDIR)
}

fn stamp(meta: &Metadata) -> (u64, Option<SystemTime>) {
    (meta.len(), meta.modified().ok())
}

/// A hasher that feeds everything to `whole` and cuts the same bytes into
/// pieces for `piece`: one read gives both, for inputs that cannot be read
/// twice (a pipe) or should not be (one thread on a rotating disk).
struct Splitter {
    whole: Box<dyn Hasher>,
    piece: Box<dyn Hasher>,
    size: u64,
    /// Bytes after which pieces stop (a recorded length, when comparing).
    limit: u64,
    /// Bytes fed so far.
    at: u64,
    /// Bytes of the piece in progress.
    filled: u64,
    done: Vec<Digest>,
    /// More pieces than [`MAX_PIECES`] came; the digests past it were dropped.
    overflowed: bool,
}

impl Splitter {
    fn new(whole: Box<dyn Hasher>, piece: Box<dyn Hasher>, size: u64, limit: u64) -> Splitter {
        Splitter {
            whole,
            piece,
            size: size.max(1),
            limit,
            at: 0,
            filled: 0,
            done: Vec::new(),
            overflowed: false,
        }
    }

    fn close_piece(&mut self) {
        let digest = self.piece.finalize_reset();
        if (self.done.len() as u64) < MAX_PIECES {
            self.done.push(digest);
        } else {
            self.overflowed = true;
        }
        self.filled = 0;
    }
}

impl Hasher for Splitter {
    fn update(&mut self, data: &[u8]) {
        self.whole.update(data);
        let mut rest =
            &data[..(self.limit.saturating_sub(self.at)).min(data.len() as u64) as usize];
        self.at += data.len() as u64;
        while !rest.is_empty() {
            let take = (self.size - self.filled).min(rest.len() as u64) as usize;
            self.piece.update(&rest[..take]);
            self.filled += take as u64;
            rest = &rest[take..];
            if self.filled == self.size {
                self.close_piece();
            }
        }
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        self.whole.finalize_into_reset(out);
        // The last, shorter piece; or the one empty piece of an empty input.
        if self.filled > 0 || (self.done.is_empty() && !self.overflowed) {
            self.close_piece();
        }
        self.at = 0;
    }
    fn reset(&mut self) {
        self.whole.reset();
        self.piece.reset();
        self.at = 0;
        self.filled = 0;
        self.done.clear();
        self.overflowed = false;
    }
    fn output_len(&self) -> usize {
        self.whole.output_len()
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(Splitter {
            whole: self.whole.box_clone(),
            piece: self.piece.box_clone(),
            done: self.done.clone(),
            ..*self
        })
    }
}

/// pread() of exactly `buf.len()` bytes at `offset`; a file that ends
/// sooner changed while it was read (its size was taken first).
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => return Err(changed_while_read()),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The digest (all of `fanout`'s, joined) of bytes `start..end` of `file`.
#[cfg(unix)]
fn hash_range(
    file: &File,
    (start, end): (u64, u64),
    fanout: &mut Fanout,
    buffer: &mut ReadBuffer,
    cancel: &Cancel,
) -> io::Result<Digest> {
    let buf = buffer.as_mut_slice();
    let mut at = start;
    while at < end {
        if let Err(e) = cancel.check() {
            fanout.reset();
            return Err(e);
        }
        let n = (end - at).min(buf.len() as u64) as usize;
        if let Err(e) = read_exact_at(file, &mut buf[..n], at) {
            fanout.reset();
            return Err(e);
        }
        fanout.update(&buf[..n]);
        at += n as u64;
    }
    Ok(fanout.finalize_reset())
}

/// The digests of `ranges` of `file`, in order, hashed on the current rayon
/// pool: runs of consecutive ranges are tasks that idle threads take, each
/// reading with pread() at its own offsets (the file's position is left to
/// whoever reads it sequentially meanwhile).
#[cfg(unix)]
fn hash_ranges(
    file: &File,
    ranges: &[(u64, u64)],
    make: &(dyn Fn() -> Fanout + Sync),
    cancel: &Cancel,
) -> io::Result<Vec<Digest>> {
    use rayon::prelude::*;
    let widest = ranges.iter().map(|(s, e)| e - s).max().unwrap_or(0).max(1);
    let per_run = (RUN_MIN_BYTES / widest).max(1) as usize;
    let buffer_len = (widest.min(ReadBuffer::DEFAULT_SIZE as u64)) as usize;
    let runs: Vec<io::Result<Vec<Digest>>> = ranges
        .par_chunks(per_run)
        .map_init(
            || (make().sequential(), ReadBuffer::new(buffer_len)),
            |(fanout, buffer), run| {
                run.iter()
                    .map(|&range| hash_range(file, range, fanout, buffer, cancel))
                    .collect()
            },
        )
        .collect();
    let mut out = Vec::with_capacity(ranges.len());
    for run in runs {
        out.extend(run?);
    }
    Ok(out)
}

/// How one file is read.
#[derive(Clone, Copy)]
struct Reading<'a> {
    make: &'a (dyn Fn() -> Fanout + Sync),
    strategy: &'a ReadStrategy,
    cancel: &'a Cancel,
    /// Pieces read with pread() on other threads while this one reads the
    /// whole; otherwise one read gives both.
    parallel: bool,
}

/// Hashes one input whole and in pieces of `size`.
fn hash_in_pieces(input: &Input, size: u64, how: Reading<'_>) -> io::Result<PieceDigests> {
    how.cancel.check()?;
    let template = (how.make)();
    let split = |joined: &Digest| template.split(joined);
    let one_pass = |hashed: crate::read::Hashed, splitter: Splitter| {
        if splitter.overflowed {
            return Err(too_many_pieces(hashed.bytes, size));
        }
        let pieces = splitter.done.iter().map(&split).collect();
        Ok((hashed, pieces))
    };
    let splitter = || {
        Splitter::new(
            Box::new((how.make)()),
            // Pieces are small beside a file: their algorithms take turns
            // rather than a core each.
            Box::new((how.make)().sequential()),
            size,
            u64::MAX,
        )
    };
    let mut buffer = ReadBuffer::new(how.strategy.chunk);
    let (hashed, pieces, before) = match input {
        Input::Problem(_, e) => return Err(io::Error::new(e.kind(), e.to_string())),
        Input::Stdin => {
            let mut splitter = splitter();
            let stdin = io::stdin();
            #[cfg(unix)]
            let mut reader = crate::read::Waiting::new(&stdin, how.cancel);
            #[cfg(not(unix))]
            let mut reader = stdin.lock();
            let hashed = hash_reader(&mut reader, &mut splitter, &mut buffer, how.cancel)?;
            let (hashed, pieces) = one_pass(hashed, splitter)?;
            (hashed, pieces, None)
        }
        Input::File(path) => {
            let file = File::open(path)?;
            let before = file.metadata()?;
            if before.is_dir() {
                return Err(is_a_directory());
            }
            let len = before.len();
            let seekable = how.parallel && size_is_length(&file, &before);
            if before.is_file() && piece_count(len, size) > MAX_PIECES {
                return Err(too_many_pieces(len, size));
            }
            let (hashed, pieces) = if seekable {
                hash_whole_and_ranges(&file, &before, size, how, &mut buffer)?
            } else {
                let mut splitter = splitter();
                let hashed = hash_open_file(
                    file.try_clone()?,
                    &before,
                    &mut splitter,
                    &mut buffer,
                    how.strategy,
                    how.cancel,
                )?;
                one_pass(hashed, splitter)?
            };
            let after = file.metadata()?;
            if before.is_file() && stamp(&before) != stamp(&after) {
                return Err(changed_while_read());
            }
            (hashed, pieces, Some(before))
        }
    };
    let (inode, ctime_ns) = before.as_ref().map_or((None, None), inode_and_ctime_ns);
    Ok(PieceDigests {
        file: FileDigests {
            digests: split(&hashed.digest),
            bytes: hashed.bytes,
            modified: before.and_then(|m| m.modified().ok()),
            inode,
            ctime_ns,
        },
        size,
        pieces,
    })
}

/// The whole file on this thread (as `sum` reads it, so its digest is what
/// `sum` gives) while the other threads of the pool take the pieces.
#[cfg(unix)]
fn hash_whole_and_ranges(
    file: &File,
    before: &Metadata,
    size: u64,
    how: Reading<'_>,
    buffer: &mut ReadBuffer,
) -> io::Result<(crate::read::Hashed, Vec<Vec<Digest>>)> {
    let len = before.len();
    let ranges: Vec<(u64, u64)> = (0..piece_count(len, size))
        .map(|i| piece_range(len, size, i))
        .collect();
    let whole_file = file.try_clone()?;
    let mut whole = (how.make)();
    let (hashed, pieces) = rayon::join(
        || {
            hash_open_file(
                whole_file,
                before,
                &mut whole,
                buffer,
                how.strategy,
                how.cancel,
            )
        },
        || hash_ranges(file, &ranges, how.make, how.cancel),
    );
    let hashed = hashed?;
    let pieces = pieces?;
    if hashed.bytes != len {
        return Err(changed_while_read());
    }
    let template = (how.make)();
    Ok((hashed, pieces.iter().map(|d| template.split(d)).collect()))
}

#[cfg(not(unix))]
fn hash_whole_and_ranges(
    _: &File,
    _: &Metadata,
    _: u64,
    _: Reading<'_>,
    _: &mut ReadBuffer,
) -> io::Result<(crate::read::Hashed, Vec<Vec<Digest>>)> {
    unreachable!("pieces are read in parallel only where pread() is")
}

/// A pool of `jobs` threads for piece hashing; `None` where one cannot be
/// made (then everything runs on the calling thread).
fn pool(jobs: usize) -> Option<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("hashlab-pieces-{i}"))
        .build()
        .ok()
}

/// Hashes every input whole and in pieces of `size` bytes, handing the
/// results to `emit` in input order; `emit` returning an error stops the
/// work. With one job each file is read once, the pieces cut from the same
/// read (a rotating disk is read by one thread). With more, `jobs` threads
/// take files in order, and a thread with no file left takes pieces of the
/// files still being read: each file is read whole on one thread (so its
/// digest is `sum`'s) and its pieces with pread() on any, so one large file
/// keeps every core busy and many small ones are hashed side by side.
pub fn hash_inputs_in_pieces<E>(
    inputs: &[Input],
    make: &(dyn Fn() -> Fanout + Sync),
    size: u64,
    jobs: usize,
    job: &HashJob,
    emit: &mut dyn FnMut(usize, io::Result<PieceDigests>) -> Result<(), E>,
) -> Result<(), E> {
    let size = size.max(1);
    let jobs = jobs.clamp(1, MAX_JOBS);
    let threads = if jobs > 1 && cfg!(unix) {
        pool(jobs)
    } else {
        None
    };
    let Some(threads) = threads else {
        let how = Reading {
            make,
            strategy: &job.strategy,
            cancel: &job.cancel,
            parallel: false,
        };
        for (i, input) in inputs.iter().enumerate() {
            emit(i, hash_in_pieces(input, size, how))?;
        }
        return Ok(());
    };
    // Several files at once: each read plainly, as `hash_inputs` reads them,
    // since the other threads are busy with files (or pieces) of their own.
    let per_file = if inputs.len() > 1 {
        ReadStrategy {
            read_ahead: false,
            parallel_hash: false,
            mmap: false,
            chunk: ReadBuffer::DEFAULT_SIZE,
            hashers_share_cores: false,
            reads_in_turns: false,
            cores: 1,
        }
    } else {
        job.strategy
    };
    let how = Reading {
        make,
        strategy: &per_file,
        cancel: &job.cancel,
        parallel: true,
    };
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, io::Result<PieceDigests>)>();
    std::thread::scope(|scope| {
        let (next, stop) = (&next, &stop);
        scope.spawn(move || {
            threads.scope(|workers| {
                for _ in 0..jobs.min(inputs.len()) {
                    let tx = tx.clone();
                    workers.spawn(move |_| loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= inputs.len() || stop.load(Ordering::Relaxed) {
                            break;
                        }
                        if tx.send((i, hash_in_pieces(&inputs[i], size, how))).is_err() {
                            break;
                        }
                    });
                }
                drop(tx);
            });
        });
        let mut waiting = std::collections::BTreeMap::new();
        let mut due = 0;
        for (i, result) in rx {
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&due) {
                if let Err(e) = emit(due, result) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                due += 1;
            }
        }
        Ok(())
    })
}

/// A name hashdeep's piece lines cannot hold: its lines escape nothing, and
/// an escaped line is never a piece (see [`hashdeep_line`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnwritablePieces;

impl fmt::Display for UnwritablePieces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "hashdeep's piece lines cannot hold a name with a newline or a final carriage return (JSON can)",
        )
    }
}

impl std::error::Error for UnwritablePieces {}

/// hashdeep's lines for one file hashed in pieces (`absolute`: the name
/// hashdeep writes, an absolute path): the whole file's line, which
/// `hashdeep -p` leaves out, then one line per piece, exactly as `hashdeep
/// -p` writes it: `SIZE,DIGEST...,NAME offset START-END`, START and END the
/// piece's first and last byte (`offset 0-0` for an empty file).
pub fn hashdeep_piece_lines(
    absolute: &[u8],
    digests: &PieceDigests,
) -> Result<Vec<u8>, UnwritablePieces> {
    if absolute.contains(&b'\n') || absolute.last() == Some(&b'\r') {
        return Err(UnwritablePieces);
    }
    let hex = |d: &[Digest]| d.iter().map(Digest::to_hex).collect::<Vec<_>>();
    let whole = hex(&digests.file.digests);
    let whole: Vec<&str> = whole.iter().map(String::as_str).collect();
    let mut out = hashdeep_line(digests.file.bytes, &whole, absolute);
    let len = digests.file.bytes;
    for (i, piece) in digests.pieces.iter().enumerate() {
        let (start, end) = piece_range(len, digests.size, i as u64);
        out.extend_from_slice((end - start).to_string().as_bytes());
        for digest in piece {
            out.push(b',');
            out.extend_from_slice(digest.to_hex().as_bytes());
        }
        out.push(b',');
        out.extend_from_slice(absolute);
        out.extend_from_slice(format!(" offset {start}-{}\n", end.saturating_sub(1)).as_bytes());
    }
    Ok(out)
}

/// `sum --json`'s `pieces` of one row: the piece size and each piece's
/// digest in hex, in file order (the pieces are cut every `size` bytes from
/// the start; the row's `bytes` says where the last ends).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonPieces {
    pub size: u64,
    pub digests: Vec<String>,
}

impl JsonPieces {
    /// The pieces of column `column` of `digests`.
    pub fn of(digests: &PieceDigests, column: usize) -> JsonPieces {
        JsonPieces {
            size: digests.size,
            digests: digests.pieces.iter().map(|p| p[column].to_hex()).collect(),
        }
    }

    /// The pieces, checked against the row's length and digest length.
    pub(crate) fn read(
        self,
        name: &[u8],
        bytes: Option<u64>,
        digest_len: usize,
    ) -> Result<Pieces, PieceFault> {
        let name = String::from_utf8_lossy(name).into_owned();
        let len = bytes.ok_or_else(|| PieceFault::NoLength { name: name.clone() })?;
        if self.size == 0 {
            return Err(PieceFault::ZeroSize { name });
        }
        let expected = piece_count(len, self.size);
        if expected > MAX_PIECES {
            return Err(PieceFault::TooMany {
                name,
                count: expected,
            });
        }
        if self.digests.len() as u64 != expected {
            return Err(PieceFault::Count {
                name,
                expected,
                found: self.digests.len() as u64,
            });
        }
        let mut digests = Vec::with_capacity(self.digests.len());
        for (piece, hex) in self.digests.iter().enumerate() {
            let digest = hashlab::hex::decode(hex).map_err(|_| PieceFault::NotHex {
                name: name.clone(),
                piece,
            })?;
            if digest.len() != digest_len {
                return Err(PieceFault::DigestLength {
                    name,
                    piece,
                    bytes: digest.len(),
                    expected: digest_len,
                });
            }
            digests.push(digest);
        }
        Ok(Pieces {
            size: self.size,
            digests,
        })
    }
}

/// Why the pieces a manifest records of a file cannot be used. Each names
/// the file; offsets are as hashdeep writes them (first and last byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PieceFault {
    /// `SIZE,...,NAME offset START-END` whose size is not END-START+1.
    Span {
        name: String,
        start: u64,
        end: u64,
        size: u64,
    },
    /// The file's first piece does not start at byte 0.
    NotFromZero {
        name: String,
        start: u64,
    },
    /// A piece that starts before the one listed before it.
    OutOfOrder {
        name: String,
        start: u64,
        after: (u64, u64),
    },
    /// A piece that starts inside the one before it.
    Overlap {
        name: String,
        start: u64,
        after: (u64, u64),
    },
    /// Bytes between two pieces that no piece holds.
    Gap {
        name: String,
        first: u64,
        last: u64,
    },
    /// Pieces are all one size but the last: one after a shorter piece, or
    /// one longer than the first.
    Uneven {
        name: String,
        start: u64,
        end: u64,
        size: u64,
    },
    /// The pieces cover another length than the file's own line says.
    Total {
        name: String,
        covered: u64,
        size: u64,
    },
    /// A JSON row with pieces and no `bytes`.
    NoLength {
        name: String,
    },
    ZeroSize {
        name: String,
    },
    /// A JSON row whose pieces are not as many as its length and piece size make.
    Count {
        name: String,
        expected: u64,
        found: u64,
    },
    NotHex {
        name: String,
        piece: usize,
    },
    DigestLength {
        name: String,
        piece: usize,
        bytes: usize,
        expected: usize,
    },
    TooMany {
        name: String,
        count: u64,
    },
}

impl fmt::Display for PieceFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PieceFault::Span {
                name,
                start,
                end,
                size,
            } => write!(
                f,
                "{name}: the piece at offset {start}-{end} says it holds {size} bytes"
            ),
            PieceFault::NotFromZero { name, start } => write!(
                f,
                "{name}: its first piece starts at byte {start}, not 0"
            ),
            PieceFault::OutOfOrder { name, start, after } => write!(
                f,
                "{name}: pieces listed out of order (offset {start} after offset {}-{})",
                after.0, after.1
            ),
            PieceFault::Overlap { name, start, after } => write!(
                f,
                "{name}: overlapping pieces (offset {start} inside offset {}-{})",
                after.0, after.1
            ),
            PieceFault::Gap { name, first, last } => {
                write!(f, "{name}: no piece holds bytes {first}-{last}")
            }
            PieceFault::Uneven {
                name,
                start,
                end,
                size,
            } => write!(
                f,
                "{name}: the piece at offset {start}-{end} is not {size} bytes as the pieces before it, nor the last"
            ),
            PieceFault::Total {
                name,
                covered,
                size,
            } => write!(
                f,
                "{name}: its pieces hold {covered} bytes, and its own line says {size}"
            ),
            PieceFault::NoLength { name } => {
                write!(f, "{name}: pieces without the file's length (`bytes`)")
            }
            PieceFault::ZeroSize { name } => write!(f, "{name}: pieces of 0 bytes"),
            PieceFault::Count {
                name,
                expected,
                found,
            } => write!(
                f,
                "{name}: {found} pieces, where its length and piece size make {expected}"
            ),
            PieceFault::NotHex { name, piece } => {
                write!(f, "{name}: the digest of piece {piece} is not hex")
            }
            PieceFault::DigestLength {
                name,
                piece,
                bytes,
                expected,
            } => write!(
                f,
                "{name}: piece {piece} has a {bytes}-byte digest, the file a {expected}-byte one"
            ),
            PieceFault::TooMany { name, count } => write!(
                f,
                "{name}: {count} pieces, more than the {MAX_PIECES} one file may have"
            ),
        }
    }
}

impl std::error::Error for PieceFault {}

/// Whether a name ends as the name of a hashdeep piece line does.
pub(crate) fn names_a_piece(name: &[u8]) -> bool {
    split_offset(name).is_some()
}

/// The name and range of a hashdeep piece line's name (`NAME offset 0-1023`).
fn split_offset(name: &[u8]) -> Option<(&[u8], u64, u64)> {
    const MARK: &[u8] = b" offset ";
    let at = name.windows(MARK.len()).rposition(|w| w == MARK)?;
    let range = std::str::from_utf8(&name[at + MARK.len()..]).ok()?;
    let (start, end) = range.split_once('-')?;
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    Some((&name[..at], number(start)?, number(end)?))
}

/// The pieces of one file while its hashdeep lines are read.
struct Building {
    /// Where its first piece line is, for a fault found once all are read.
    place: Place,
    /// (start, end exclusive) of each piece so far.
    ranges: Vec<(u64, u64)>,
    digests: Vec<Vec<u8>>,
    /// A piece was refused: the file keeps its whole-file line, if any, only.
    broken: bool,
}

/// Gathers a hashdeep manifest's piece lines (`NAME offset START-END`) into
/// the entries of their files, in whatever order files come (hashdeep's
/// threads may interleave them), checking that each file's pieces follow
/// one another from byte 0 without gap or overlap.
#[derive(Default)]
pub(crate) struct Gather {
    /// Name → its entry, the first line for that name.
    files: HashMap<Vec<u8>, usize>,
    /// Entry → its pieces.
    building: HashMap<usize, Building>,
}

impl Gather {
    /// One line's entry, read at `place`; `escaped`: the line was written
    /// escaped, which a piece line never is (see [`hashdeep_line`]).
    pub(crate) fn add(&mut self, r: Recorded, escaped: bool, place: Place, out: &mut Manifest) {
        let piece = if escaped { None } else { split_offset(&r.name) };
        let Some((base, start, end)) = piece else {
            match self.files.get(&r.name) {
                // The file's pieces came first: this is its whole-file line.
                Some(&at) if out.entries[at].digest.is_empty() => {
                    out.entries[at].digest = r.digest;
                    out.entries[at].size = r.size;
                }
                Some(_) => out.entries.push(r),
                None => {
                    self.files.insert(r.name.clone(), out.entries.len());
                    out.entries.push(r);
                }
            }
            return;
        };
        let base = base.to_vec();
        let size = r.size.unwrap_or(0);
        let shown = || String::from_utf8_lossy(&base).into_owned();
        let at = match self.files.get(&base) {
            Some(&at) => at,
            None => {
                let at = out.entries.len();
                self.files.insert(base.clone(), at);
                out.entries.push(Recorded {
                    name: base.clone(),
                    digest: Vec::new(),
                    size: None,
                    ..r.clone()
                });
                at
            }
        };
        let building = self.building.entry(at).or_insert_with(|| Building {
            place,
            ranges: Vec::new(),
            digests: Vec::new(),
            broken: false,
        });
        if building.broken {
            return;
        }
        let fault = if (size == 0 && (start, end) != (0, 0))
            || (size > 0 && end.checked_sub(start).and_then(|d| d.checked_add(1)) != Some(size))
        {
            Some(PieceFault::Span {
                name: shown(),
                start,
                end,
                size,
            })
        } else {
            let this = (start, start + size);
            match (building.ranges.first(), building.ranges.last()) {
                (None, _) if start != 0 => Some(PieceFault::NotFromZero {
                    name: shown(),
                    start,
                }),
                (Some(&first), Some(&last)) => {
                    let shown_last = (last.0, last.1.saturating_sub(1));
                    let piece = first.1 - first.0;
                    if start < last.0 {
                        Some(PieceFault::OutOfOrder {
                            name: shown(),
                            start,
                            after: shown_last,
                        })
                    } else if start < last.1 || last.1 == last.0 {
                        Some(PieceFault::Overlap {
                            name: shown(),
                            start,
                            after: shown_last,
                        })
                    } else if start > last.1 {
                        Some(PieceFault::Gap {
                            name: shown(),
                            first: last.1,
                            last: start - 1,
                        })
                    } else if last.1 - last.0 != piece || this.1 - this.0 > piece || size == 0 {
                        Some(PieceFault::Uneven {
                            name: shown(),
                            start,
                            end,
                            size: piece,
                        })
                    } else {
                        None
                    }
                }
                _ => None,
            }
        };
        match fault {
            Some(fault) => {
                building.broken = true;
                out.problems.push(LineProblem {
                    place,
                    fault: LineFault::Pieces(fault),
                });
            }
            None => {
                building.ranges.push((start, start + size));
                building.digests.push(r.digest);
            }
        }
    }

    /// Puts each file's pieces into its entry; a file whose pieces were
    /// refused keeps its whole-file line alone, or goes where it had none.
    pub(crate) fn finish(self, out: &mut Manifest) {
        let mut gone = vec![false; out.entries.len()];
        for (at, building) in self.building {
            let entry = &mut out.entries[at];
            let covered = building.ranges.last().map_or(0, |r| r.1);
            if !building.broken {
                match entry.size {
                    Some(size) if !entry.digest.is_empty() && size != covered => {
                        out.problems.push(LineProblem {
                            place: building.place,
                            fault: LineFault::Pieces(PieceFault::Total {
                                name: String::from_utf8_lossy(&entry.name).into_owned(),
                                covered,
                                size,
                            }),
                        });
                    }
                    _ => {
                        let first = building.ranges[0];
                        entry.size = Some(covered);
                        entry.pieces = Some(Pieces {
                            size: (first.1 - first.0).max(1),
                            digests: building.digests,
                        });
                    }
                }
            }
            gone[at] = entry.digest.is_empty() && entry.pieces.is_none();
        }
        if gone.contains(&true) {
            let mut i = 0;
            out.entries.retain(|_| {
                i += 1;
                !gone[i - 1]
            });
        }
        // Faults are found file by file; the reader reports them line by line.
        out.problems.sort_by_key(|p| match p.place {
            Place::Line(n) | Place::Entry(n) => n,
        });
    }
}

/// What hashes a file for comparison with a manifest's entry: the entry's
/// algorithm at its digest's length, with the caller's parameters (a key).
#[derive(Debug, Clone)]
pub struct EntryHasher {
    choice: Choice,
    pub strategy: ReadStrategy,
}

impl EntryHasher {
    /// For `recorded`'s algorithm and digest length (its pieces' where it
    /// records no whole digest); `backend` and `params` as the caller gives
    /// them; `allow_mmap` false reads every file with read().
    pub fn new(
        registry: &Registry,
        recorded: &Recorded,
        backend: Option<&str>,
        params: &HashParams,
        allow_mmap: bool,
    ) -> Result<EntryHasher, HashError> {
        let algorithm = registry.algorithm(&recorded.algorithm)?;
        let len = recorded_digest_len(recorded);
        let params = HashParams {
            length: match algorithm.output {
                OutputRule::Fixed { .. } => None,
                _ => Some(len),
            },
            ..params.clone()
        };
        let choice = registry.resolve(&algorithm.name, backend, &params)?;
        if choice.output_len() != len {
            return Err(HashError::LengthNotAccepted {
                algorithm: algorithm.name.clone(),
                fixed: choice.output_len(),
            });
        }
        let strategy = ReadStrategy::for_hash_with(
            algorithm.file_bound,
            choice.backend().parallel,
            allow_mmap,
        );
        let choice = choice.with_parallel(strategy.parallel_hash)?;
        Ok(EntryHasher { choice, strategy })
    }

    fn fanout(&self) -> Fanout {
        Fanout::new(vec![self.choice.hasher()])
    }
}

fn recorded_digest_len(recorded: &Recorded) -> usize {
    match (&recorded.pieces, recorded.digest.is_empty()) {
        (Some(pieces), true) => pieces.digests.first().map_or(0, Vec::len),
        _ => recorded.digest.len(),
    }
}

/// Compares the file at `path` with `recorded`: its whole digest where the
/// entry has one (the pieces are then read only when it differs), else its
/// pieces; pieces are hashed on the current rayon pool. An entry without
/// pieces is compared whole, and nothing says where it changed.
pub fn compare_file(
    path: &Path,
    recorded: &Recorded,
    hasher: &EntryHasher,
    cancel: &Cancel,
) -> io::Result<Comparison> {
    cancel.check()?;
    let make = || hasher.fanout();
    let file = File::open(path)?;
    let before = file.metadata()?;
    if before.is_dir() {
        return Err(is_a_directory());
    }
    let recorded_len = recorded.size;
    let has_whole = !recorded.digest.is_empty();
    let mut buffer = ReadBuffer::new(hasher.strategy.chunk);
    let seekable = cfg!(unix) && size_is_length(&file, &before);
    let (bytes, whole_matches, piece_digests) = match (&recorded.pieces, seekable) {
        (Some(pieces), false) => {
            // Read once, whole and pieces together, cut where the recorded
            // pieces are: a pipe cannot be read again.
            let mut splitter = Splitter::new(
                Box::new(make()),
                Box::new(make()),
                pieces.size,
                recorded_len.unwrap_or(0),
            );
            let hashed = hash_open_file(
                file.try_clone()?,
                &before,
                &mut splitter,
                &mut buffer,
                &hasher.strategy,
                cancel,
            )?;
            let matches = has_whole.then(|| hashed.digest.as_bytes() == recorded.digest);
            (hashed.bytes, matches, Some(splitter.done))
        }
        _ => {
            let hashed = if has_whole || recorded.pieces.is_none() {
                Some(hash_open_file(
                    file.try_clone()?,
                    &before,
                    &mut make(),
                    &mut buffer,
                    &hasher.strategy,
                    cancel,
                )?)
            } else {
                None
            };
            let bytes = hashed.as_ref().map_or(before.len(), |h| h.bytes);
            let matches = hashed.map(|h| h.digest.as_bytes() == recorded.digest);
            let unchanged = matches == Some(true) && recorded_len.is_none_or(|l| l == bytes);
            let pieces = match &recorded.pieces {
                Some(pieces) if !unchanged => Some(hash_recorded_pieces(
                    &file,
                    pieces,
                    recorded_len.unwrap_or(0),
                    bytes,
                    &make,
                    cancel,
                )?),
                _ => None,
            };
            (bytes, matches, pieces)
        }
    };
    let after = file.metadata()?;
    if before.is_file() && stamp(&before) != stamp(&after) {
        return Err(changed_while_read());
    }
    let recorded_bytes = recorded_len.unwrap_or(bytes);
    let mut changed = Ranges::default();
    if let (Some(pieces), Some(now)) = (&recorded.pieces, &piece_digests) {
        for (i, digest) in pieces.digests.iter().enumerate() {
            let (start, end) = piece_range(recorded_bytes, pieces.size, i as u64);
            let same = end <= bytes && now.get(i).is_some_and(|d| d.as_bytes() == digest);
            if !same {
                changed.add(start, end);
            }
        }
        changed.add(recorded_bytes, bytes);
    }
    Ok(Comparison {
        bytes,
        recorded_bytes,
        whole_matches,
        changed,
    })
}

/// The digests of the recorded pieces that lie within the file's `bytes`
/// (a piece past its end differs whatever it would hash to).
fn hash_recorded_pieces(
    file: &File,
    pieces: &Pieces,
    recorded_len: u64,
    bytes: u64,
    make: &(dyn Fn() -> Fanout + Sync),
    cancel: &Cancel,
) -> io::Result<Vec<Digest>> {
    let ranges: Vec<(u64, u64)> = (0..pieces.digests.len() as u64)
        .map(|i| piece_range(recorded_len, pieces.size, i))
        .take_while(|&(_, end)| end <= bytes)
        .collect();
    #[cfg(unix)]
    return hash_ranges(file, &ranges, make, cancel);
    #[cfg(not(unix))]
    {
        let _ = (file, make, cancel, ranges);
        unreachable!("only seekable files, which need pread(), come here")
    }
}

/// Compares files with their entries ([`compare_file`]) on a pool of
/// threads made once: the pieces of each file spread over them.
pub struct Comparer {
    threads: Option<rayon::ThreadPool>,
}

impl Comparer {
    /// On `jobs` threads (where a pool can be made; else on the caller's).
    pub fn new(jobs: usize) -> Comparer {
        Comparer {
            threads: pool(jobs.clamp(1, MAX_JOBS)),
        }
    }

    /// [`compare_file`] on the pool.
    pub fn compare(
        &self,
        path: &Path,
        recorded: &Recorded,
        hasher: &EntryHasher,
        cancel: &Cancel,
    ) -> io::Result<Comparison> {
        match &self.threads {
            Some(threads) => threads.install(|| compare_file(path, recorded, hasher, cancel)),
            None => compare_file(path, recorded, hasher, cancel),
        }
    }

    /// Each of `files` (path, entry, hasher) compared, files side by side
    /// and the pieces of each over the threads left; results in order.
    pub fn compare_all(
        &self,
        files: &[(PathBuf, &Recorded, &EntryHasher)],
        cancel: &Cancel,
    ) -> Vec<io::Result<Comparison>> {
        use rayon::prelude::*;
        let one = |(path, recorded, hasher): &(PathBuf, &Recorded, &EntryHasher)| {
            compare_file(path, recorded, hasher, cancel)
        };
        match &self.threads {
            Some(threads) => {
                threads.install(|| files.par_iter().with_max_len(1).map(one).collect())
            }
            None => files.iter().map(one).collect(),
        }
    }
}

/// The entries of a manifest that record pieces and no whole digest
/// (`hashdeep -p`'s own), and the audited files they name. `audit` matches
/// files by whole digests; these it leaves to [`audit_pieces`], which
/// compares them piece by piece.
#[derive(Debug, Default)]
pub struct PieceOnly {
    entries: Vec<Recorded>,
    /// The audited files named by `entries`, by key.
    files: HashMap<PathBuf, PathBuf>,
}

impl PieceOnly {
    /// Takes the entries with pieces and no whole digest out of `recorded`,
    /// and the files they name out of `tree`.
    pub fn take(
        recorded: &mut Vec<Recorded>,
        tree: &mut Vec<Input>,
    ) -> Result<PieceOnly, AuditError> {
        if !recorded.iter().any(|r| r.digest.is_empty()) {
            return Ok(PieceOnly::default());
        }
        let cwd = std::env::current_dir().map_err(AuditError::CurrentDir)?;
        let (entries, whole): (Vec<Recorded>, Vec<Recorded>) = std::mem::take(recorded)
            .into_iter()
            .partition(|r| r.digest.is_empty());
        *recorded = whole;
        let keys: std::collections::HashSet<PathBuf> = entries
            .iter()
            .map(|r| key(&path_of(&r.name), &cwd))
            .collect();
        let mut files = HashMap::new();
        tree.retain(|input| match input {
            Input::File(p) => {
                let k = key(p, &cwd);
                if keys.contains(&k) {
                    files.insert(k, p.clone());
                    false
                } else {
                    true
                }
            }
            _ => true,
        });
        Ok(PieceOnly { entries, files })
    }
}

/// A changed file and where it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedPieces {
    pub name: String,
    #[serde(flatten)]
    pub comparison: Comparison,
}

/// After [`crate::audit_with`]: says where each changed file whose entry
/// records pieces changed, and settles the piece-only entries (see
/// [`PieceOnly`]) into `report`: matched, changed, unreadable, assumed
/// (`changed_only`, where the recorded size is the file's), missing, or
/// skipped when present but not among the audited files. `recorded`: the
/// entries the audit had.
pub fn audit_pieces(
    registry: &Registry,
    recorded: &[Recorded],
    piece_only: PieceOnly,
    jobs: usize,
    changed_only: bool,
    report: &mut AuditReport,
) -> Result<Vec<ChangedPieces>, AuditError> {
    let cwd = std::env::current_dir().map_err(AuditError::CurrentDir)?;
    let params = HashParams::default();
    let mut hashers: HashMap<(String, usize), EntryHasher> = HashMap::new();
    let mut hasher_for = |r: &Recorded| -> Result<(String, usize), AuditError> {
        let id = (r.algorithm.clone(), recorded_digest_len(r));
        if !hashers.contains_key(&id) {
            let made =
                EntryHasher::new(registry, r, None, &params, true).map_err(AuditError::Hasher)?;
            hashers.insert(id.clone(), made);
        }
        Ok(id)
    };
    let with_pieces: HashMap<PathBuf, &Recorded> = recorded
        .iter()
        .filter(|r| r.pieces.is_some())
        .map(|r| (key(&path_of(&r.name), &cwd), r))
        .rev()
        .collect();
    struct Work<'r> {
        shown: String,
        path: PathBuf,
        recorded: &'r Recorded,
        hasher: (String, usize),
        /// Left out of the audit, so settled here.
        piece_only: bool,
    }
    let mut work: Vec<Work> = Vec::new();
    for shown in &report.changed {
        let path = PathBuf::from(shown);
        if let Some(r) = with_pieces.get(&key(&path, &cwd)) {
            work.push(Work {
                shown: shown.clone(),
                path,
                recorded: r,
                hasher: hasher_for(r)?,
                piece_only: false,
            });
        }
    }
    for r in &piece_only.entries {
        let k = key(&path_of(&r.name), &cwd);
        let name = String::from_utf8_lossy(&r.name).into_owned();
        let Some(path) = piece_only.files.get(&k) else {
            match std::fs::symlink_metadata(&k) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => report.missing.push(name),
                Err(e) => report.unreadable.push((name, e.to_string())),
                Ok(_) => report.skipped.push((
                    name,
                    "not among the files audited (outside the audited paths, a symbolic link, or not a regular file)".into(),
                )),
            }
            continue;
        };
        let shown = path.display().to_string();
        if changed_only
            && std::fs::metadata(path).is_ok_and(|m| m.is_file() && Some(m.len()) == r.size)
        {
            report.assumed.push(shown);
            continue;
        }
        work.push(Work {
            shown,
            path: path.clone(),
            recorded: r,
            hasher: hasher_for(r)?,
            piece_only: true,
        });
    }
    let files: Vec<(PathBuf, &Recorded, &EntryHasher)> = work
        .iter()
        .map(|w| (w.path.clone(), w.recorded, &hashers[&w.hasher]))
        .collect();
    let results = Comparer::new(jobs).compare_all(&files, &Cancel::new());
    let mut changed = Vec::new();
    for (
        Work {
            shown, piece_only, ..
        },
        result,
    ) in work.into_iter().zip(results)
    {
        match result {
            Ok(comparison) if comparison.intact() => {
                if piece_only {
                    report.matched.push(shown);
                }
                // Else the file changed between the audit's read and this
                // one: it stays changed, with nothing to say where.
            }
            Ok(comparison) => {
                if piece_only {
                    report.changed.push(shown.clone());
                }
                changed.push(ChangedPieces {
                    name: shown,
                    comparison,
                });
            }
            Err(e) if piece_only => report.unreadable.push((shown, e.to_string())),
            Err(_) => {}
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorded::{read_manifest, ReadOptions};

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hashlab-pieces-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn data(len: usize, seed: u32) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 13) as u8)
            .collect()
    }

    fn registry() -> &'static Registry {
        static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
        REGISTRY.get_or_init(Registry::default)
    }

    fn make(algs: &'static [&'static str]) -> impl Fn() -> Fanout + Sync {
        move || {
            Fanout::new(
                algs.iter()
                    .map(|a| registry().hasher(a, None, &HashParams::default()).unwrap())
                    .collect(),
            )
        }
    }

    fn digest_of(alg: &str, bytes: &[u8]) -> Digest {
        let mut h = registry()
            .hasher(alg, None, &HashParams::default())
            .unwrap();
        h.update(bytes);
        h.finalize_reset()
    }

    #[test]
    fn sizes_as_hashdeep_and_bench_write_them() {
        for (text, bytes) in [
            ("1", 1),
            ("3b", 3),
            ("1k", 1024),
            ("4K", 4096),
            ("1m", 1 << 20),
            ("1MiB", 1 << 20),
            ("64KB", 64_000),
            ("10MB", 10_000_000),
            ("2g", 2 << 30),
            ("1t", 1 << 40),
            ("1e", 1 << 60),
        ] {
            assert_eq!(parse_piece_size(text), Ok(bytes), "{text}");
        }
        for text in [
            "0",
            "0k",
            "",
            "k",
            "1.5k",
            "-1",
            "1x",
            "1kk",
            "99999999999999999999",
            "16e",
        ] {
            let e = parse_piece_size(text).unwrap_err();
            assert!(
                !e.to_string().contains('\n') && e.to_string().contains(text),
                "{e}"
            );
        }
        assert!(matches!(
            parse_piece_size("0"),
            Err(PieceSizeError::Zero(_))
        ));
        assert!(matches!(
            parse_piece_size("16e"),
            Err(PieceSizeError::TooLarge(_))
        ));
    }

    #[test]
    fn ranges_merge_where_they_touch() {
        let mut r = Ranges::default();
        r.add(0, 1024);
        r.add(1024, 2048);
        r.add(4096, 5000);
        r.add(4500, 6000);
        r.add(7000, 7000);
        assert_eq!(r.0, vec![(0, 2047), (4096, 5999)]);
        assert_eq!(r.to_string(), "bytes 0-2047, 4096-5999");
        assert_eq!(piece_count(0, 10), 1);
        assert_eq!(piece_count(10, 10), 1);
        assert_eq!(piece_count(11, 10), 2);
        assert_eq!(piece_range(25, 10, 2), (20, 25));
        assert_eq!(piece_range(0, 10, 0), (0, 0));
        assert_eq!(
            piece_range(u64::MAX, u64::MAX / 2, 2),
            (u64::MAX - 1, u64::MAX)
        );
    }

    /// Whole digests are what hashing the file whole gives, and each piece's
    /// digest is that of its bytes: with one job (one read) and several
    /// (pread() on the pool), for lengths around the piece size, an empty
    /// file, and several files at once.
    #[test]
    fn pieces_are_the_digests_of_their_bytes() {
        let dir = scratch("digests");
        let lens = [0usize, 1, 999, 1000, 1001, 5000, 9_000_123];
        let mut inputs = Vec::new();
        for (i, len) in lens.iter().enumerate() {
            let p = dir.join(format!("f{i}"));
            std::fs::write(&p, data(*len, i as u32)).unwrap();
            inputs.push(Input::File(p));
        }
        inputs.push(Input::File(dir.join("missing")));
        let make = make(&["md5", "sha256"]);
        let job = HashJob::new(ReadStrategy::for_hash(hashlab::FileBound::Hash, false));
        for size in [1000u64, 4096, 1 << 20] {
            for jobs in [1, 2, 3] {
                for subset in [&inputs[..], &inputs[6..7]] {
                    let mut seen = Vec::new();
                    hash_inputs_in_pieces::<()>(subset, &make, size, jobs, &job, &mut |i, r| {
                        seen.push((i, r));
                        Ok(())
                    })
                    .unwrap();
                    assert_eq!(seen.len(), subset.len());
                    for (i, result) in seen {
                        let Input::File(path) = &subset[i] else {
                            unreachable!()
                        };
                        let Ok(bytes) = std::fs::read(path) else {
                            assert!(result.is_err());
                            continue;
                        };
                        let got = result.unwrap();
                        assert_eq!(got.file.bytes, bytes.len() as u64);
                        assert_eq!(got.file.digests[1], digest_of("sha256", &bytes));
                        assert_eq!(
                            got.pieces.len() as u64,
                            piece_count(bytes.len() as u64, size)
                        );
                        let last = got.pieces.len() - 1;
                        for (p, piece) in got
                            .pieces
                            .iter()
                            .enumerate()
                            .filter(|(p, _)| p % 13 < 2 || *p == last)
                        {
                            let (s, e) = piece_range(bytes.len() as u64, size, p as u64);
                            let slice = &bytes[s as usize..e as usize];
                            assert_eq!(
                                piece[0],
                                digest_of("md5", slice),
                                "size {size} jobs {jobs} piece {p}"
                            );
                            assert_eq!(piece[1], digest_of("sha256", slice));
                        }
                    }
                }
            }
        }
        // Too many pieces: one clear error for that file.
        let mut errors = Vec::new();
        hash_inputs_in_pieces::<()>(&inputs[6..7], &make, 1, 2, &job, &mut |_, r| {
            errors.push(r.unwrap_err().to_string());
            Ok(())
        })
        .unwrap();
        assert!(errors[0].contains("use larger pieces"), "{errors:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn hashdeep_manifest(lines: &[String]) -> Vec<u8> {
        let mut m =
            b"%%%% HASHDEEP-1.0\n%%%% size,md5,filename\n## Invoked from: /x\n##\n".to_vec();
        for l in lines {
            m.extend_from_slice(l.as_bytes());
            m.push(b'\n');
        }
        m
    }

    fn read(bytes: &[u8]) -> Manifest {
        read_manifest(&Registry::default(), bytes, "m", &ReadOptions::default()).unwrap()
    }

    const D: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn hashdeep_pieces_are_gathered_into_their_files() {
        // hashdeep's own -p (pieces only, files interleaved), then ours (the whole line first).
        let m = read(&hashdeep_manifest(&[
            format!("1024,{D},/a offset 0-1023"),
            format!("5,{D},/b offset 0-4"),
            format!("952,{D},/a offset 1024-1975"),
            format!("0,{D},/e offset 0-0"),
            format!("6,{D},/c"),
            format!("4,{D},/c offset 0-3"),
            format!("2,{D},/c offset 4-5"),
        ]));
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let names: Vec<&[u8]> = m.entries.iter().map(|e| e.name.as_slice()).collect();
        assert_eq!(names, [&b"/a"[..], b"/b", b"/e", b"/c"]);
        let a = &m.entries[0];
        assert!(a.digest.is_empty());
        assert_eq!(a.size, Some(1976));
        assert_eq!(a.pieces.as_ref().unwrap().size, 1024);
        assert_eq!(a.pieces.as_ref().unwrap().digests.len(), 2);
        assert_eq!(m.entries[2].size, Some(0));
        let c = &m.entries[3];
        assert_eq!((c.digest.len(), c.size), (16, Some(6)));
        assert_eq!(c.pieces.as_ref().unwrap().size, 4);
    }

    /// A file named as a piece line names a piece is written escaped, and
    /// an escaped line is never a piece: it reads back as the file it is.
    #[test]
    fn a_name_that_looks_like_a_piece_reads_back_as_itself() {
        let line = hashdeep_line(7, &[D], b"/x offset 0-6");
        assert_eq!(line, format!("\\7,{D},/x offset 0-6\n").into_bytes());
        let mut manifest = hashdeep_manifest(&[]);
        manifest.extend_from_slice(&line);
        let m = read(&manifest);
        assert_eq!(m.entries.len(), 1);
        assert_eq!(m.entries[0].name, b"/x offset 0-6");
        assert!(m.entries[0].pieces.is_none() && !m.entries[0].digest.is_empty());
        // Its own pieces name it whole.
        let digests = PieceDigests {
            file: FileDigests {
                digests: vec![Digest(vec![0; 16])],
                bytes: 7,
                modified: None,
                inode: None,
                ctime_ns: None,
            },
            size: 4,
            pieces: vec![vec![Digest(vec![1; 16])], vec![Digest(vec![2; 16])]],
        };
        let mut manifest = hashdeep_manifest(&[]);
        manifest.extend_from_slice(&hashdeep_piece_lines(b"/x offset 0-6", &digests).unwrap());
        let m = read(&manifest);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        assert_eq!(m.entries.len(), 1);
        assert_eq!(m.entries[0].name, b"/x offset 0-6");
        assert_eq!(m.entries[0].pieces.as_ref().unwrap().digests.len(), 2);
        assert_eq!(
            hashdeep_piece_lines(b"/new\nline", &digests),
            Err(UnwritablePieces)
        );
    }

    #[test]
    fn gaps_overlaps_and_disorder_are_one_problem_each() {
        let cases: [(&[String], &str); 7] = [
            (&[format!("10,{D},/f offset 0-9"), format!("10,{D},/f offset 15-24")], "line 6: /f: no piece holds bytes 10-14"),
            (&[format!("10,{D},/f offset 0-9"), format!("10,{D},/f offset 5-14")], "line 6: /f: overlapping pieces (offset 5 inside offset 0-9)"),
            (&[format!("10,{D},/f offset 10-19"), format!("10,{D},/f offset 0-9")], "line 5: /f: its first piece starts at byte 10, not 0"),
            (&[format!("10,{D},/f offset 0-9"), format!("10,{D},/f offset 10-19"), format!("10,{D},/f offset 0-9")], "line 7: /f: pieces listed out of order (offset 0 after offset 10-19)"),
            (&[format!("10,{D},/f offset 0-8")], "line 5: /f: the piece at offset 0-8 says it holds 10 bytes"),
            (&[format!("10,{D},/f offset 0-9"), format!("5,{D},/f offset 10-14"), format!("5,{D},/f offset 15-19")], "line 7: /f: the piece at offset 15-19 is not 10 bytes as the pieces before it, nor the last"),
            (&[format!("30,{D},/f"), format!("10,{D},/f offset 0-9")], "line 6: /f: its pieces hold 10 bytes, and its own line says 30"),
        ];
        for (lines, problem) in cases {
            let mut lines = lines.to_vec();
            lines.push(format!("3,{D},/g offset 0-2"));
            let m = read(&hashdeep_manifest(&lines));
            let problems: Vec<String> = m.problems.iter().map(|p| p.to_string()).collect();
            assert_eq!(problems, [problem], "{lines:?}");
            // The other file is read; /f keeps its whole line alone, if it has one.
            assert!(m
                .entries
                .iter()
                .any(|e| e.name == b"/g" && e.pieces.is_some()));
            let f = m.entries.iter().find(|e| e.name == b"/f");
            assert!(
                f.is_none_or(|f| f.pieces.is_none() && !f.digest.is_empty()),
                "{f:?}"
            );
        }
    }

    #[test]
    fn json_pieces_are_read_back_and_checked() {
        let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let row = |pieces: &str, bytes: &str| {
            format!(
                r#"[{{"file":"f","algorithm":"sha256","digest":"{sha}"{bytes},"pieces":{pieces}}}]"#
            )
        };
        let good = row(
            &format!(r#"{{"size":2,"digests":["{sha}","{sha}"]}}"#),
            r#","bytes":3"#,
        );
        let m = read(good.as_bytes());
        assert_eq!(m.entries[0].pieces.as_ref().unwrap().digests.len(), 2);
        for (json, why) in [
            (
                row(
                    &format!(r#"{{"size":2,"digests":["{sha}"]}}"#),
                    r#","bytes":3"#,
                ),
                "f: 1 pieces, where its length and piece size make 2",
            ),
            (
                row(
                    &format!(r#"{{"size":0,"digests":["{sha}"]}}"#),
                    r#","bytes":3"#,
                ),
                "f: pieces of 0 bytes",
            ),
            (
                row(
                    &format!(r#"{{"size":2,"digests":["{sha}","zz"]}}"#),
                    r#","bytes":3"#,
                ),
                "f: the digest of piece 1 is not hex",
            ),
            (
                row(
                    &format!(r#"{{"size":2,"digests":["{sha}","00"]}}"#),
                    r#","bytes":3"#,
                ),
                "f: piece 1 has a 1-byte digest, the file a 32-byte one",
            ),
            (
                row(&format!(r#"{{"size":3,"digests":["{sha}"]}}"#), ""),
                "f: pieces without the file's length (`bytes`)",
            ),
        ] {
            let e = read_manifest(
                &Registry::default(),
                json.as_bytes(),
                "m",
                &ReadOptions::default(),
            )
            .unwrap_err();
            assert!(e.to_string().contains("no properly formatted"), "{e}");
            let crate::recorded::ManifestError::NoEntries { problems } = e else {
                unreachable!()
            };
            assert_eq!(problems[0].to_string(), format!("entry 1: {why}"));
        }
    }

    #[test]
    fn a_comparison_names_the_ranges_that_changed() {
        let dir = scratch("compare");
        let path = dir.join("f");
        let original = data(10_000, 7);
        std::fs::write(&path, &original).unwrap();
        let make = make(&["sha256"]);
        let job = HashJob::new(ReadStrategy::for_hash(hashlab::FileBound::Hash, false));
        let mut recorded = None;
        hash_inputs_in_pieces::<()>(
            &[Input::File(path.clone())],
            &make,
            1000,
            2,
            &job,
            &mut |_, r| {
                let r = r.unwrap();
                recorded = Some(Recorded {
                    name: path.as_os_str().as_encoded_bytes().to_vec(),
                    algorithm: "sha256".into(),
                    digest: r.file.digests[0].0.clone(),
                    size: Some(r.file.bytes),
                    mtime_ns: None,
                    inode: None,
                    ctime_ns: None,
                    pieces: Some(Pieces {
                        size: r.size,
                        digests: r.pieces.iter().map(|p| p[0].0.clone()).collect(),
                    }),
                });
                Ok(())
            },
        )
        .unwrap();
        let recorded = recorded.unwrap();
        let hasher = EntryHasher::new(
            &Registry::default(),
            &recorded,
            None,
            &HashParams::default(),
            true,
        )
        .unwrap();
        let piece_only = Recorded {
            digest: Vec::new(),
            ..recorded.clone()
        };
        let compare = |r: &Recorded| compare_file(&path, r, &hasher, &Cancel::new()).unwrap();
        assert!(compare(&recorded).intact() && compare(&piece_only).intact());

        let mut changed = original.clone();
        changed[1500] ^= 1;
        changed[2999] ^= 1;
        changed[3000] ^= 1;
        changed[9999] ^= 1;
        std::fs::write(&path, &changed).unwrap();
        for r in [&recorded, &piece_only] {
            let c = compare(r);
            assert!(!c.intact());
            assert_eq!(c.describe(), "bytes 1000-3999, 9000-9999 changed");
        }
        // Grown and shrunk.
        std::fs::write(&path, [&original[..], b"more"].concat()).unwrap();
        assert_eq!(
            compare(&recorded).describe(),
            "bytes 10000-10003 changed (10004 bytes now, 10000 recorded)"
        );
        std::fs::write(&path, &original[..8500]).unwrap();
        assert_eq!(
            compare(&piece_only).describe(),
            "bytes 8000-9999 changed (8500 bytes now, 10000 recorded)"
        );
        std::fs::write(&path, b"").unwrap();
        assert_eq!(
            compare(&recorded).describe(),
            "bytes 0-9999 changed (0 bytes now, 10000 recorded)"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
