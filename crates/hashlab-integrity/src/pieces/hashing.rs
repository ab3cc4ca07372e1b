//! Hashing files in pieces: the pieces of one file on several threads,
//! files on several threads, one read where an input cannot be read twice.

use std::fmt;
use std::fs::{File, Metadata};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::SystemTime;

use hashlab::{Digest, Hasher};

use crate::cancel::Cancel;
use crate::lines::hashdeep_line;
use crate::many::{inode_and_ctime_ns, Fanout, FileDigests, HashJob, MAX_JOBS};
use crate::pieces::{piece_count, piece_range, MAX_PIECES};
use crate::read::{hash_open_file, hash_reader, size_is_length, ReadBuffer, ReadStrategy};
use crate::walk::Input;

/// Pieces smaller than this are hashed in runs of consecutive pieces, one run
/// per task, so that a task's setup (fresh hashers, a buffer) stays noise
/// beside its hashing.
const RUN_MIN_BYTES: u64 = 8 << 20;

/// One file's digests (one per algorithm) and those of its pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceDigests {
    pub file: FileDigests,
    /// The piece size it was cut at.
    pub size: u64,
    /// Per piece, in file order, one digest per algorithm.
    pub pieces: Vec<Vec<Digest>>,
}

pub(super) fn changed_while_read() -> io::Error {
    io::Error::other("changed while it was being read; its digest would describe neither version")
}

fn too_many_pieces(len: u64, size: u64) -> io::Error {
    io::Error::other(format!(
        "{len} bytes in pieces of {size} would be {} pieces, more than the {MAX_PIECES} one file may have; use larger pieces",
        piece_count(len, size)
    ))
}

pub(super) fn is_a_directory() -> io::Error {
    io::Error::from_raw_os_error(libc::EISDIR)
}

pub(super) fn stamp(meta: &Metadata) -> (u64, Option<SystemTime>) {
    (meta.len(), meta.modified().ok())
}

/// A hasher that feeds everything to `whole` and cuts the same bytes into
/// pieces for `piece`: one read gives both, for inputs that cannot be read
/// twice (a pipe) or should not be (one thread on a rotating disk).
pub(super) struct Splitter {
    whole: Box<dyn Hasher>,
    piece: Box<dyn Hasher>,
    size: u64,
    /// Bytes after which pieces stop (a recorded length, when comparing).
    limit: u64,
    /// Bytes fed so far.
    at: u64,
    /// Bytes of the piece in progress.
    filled: u64,
    pub(super) done: Vec<Digest>,
    /// More pieces than [`MAX_PIECES`] came; the digests past it were dropped.
    overflowed: bool,
}

impl Splitter {
    pub(super) fn new(
        whole: Box<dyn Hasher>,
        piece: Box<dyn Hasher>,
        size: u64,
        limit: u64,
    ) -> Splitter {
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
pub(super) fn hash_ranges(
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
pub(super) fn pool(jobs: usize) -> Option<rayon::ThreadPool> {
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
