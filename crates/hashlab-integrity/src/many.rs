//! Hashing many files: several algorithms from one read, several files on
//! several threads with the output kept in input order, git blob ids, and
//! files that change while they are read.

use std::collections::BTreeMap;
use std::io::{self, Read, Seek, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::SystemTime;

use hashlab::{Digest, Hasher};

use crate::cancel::Cancel;
use crate::read::{
    feed_reader, hash_open_file, hash_reader, size_is_length, Hashed, ReadBuffer, ReadStrategy,
};
use crate::walk::Input;

/// Several hashers fed from one read of the data. As a `Hasher` its output is
/// the outputs one after another; `split` takes them apart again.
pub struct Fanout {
    hashers: Vec<Box<dyn Hasher>>,
    /// Feed the hashers on separate cores (rayon), so a pass costs about the
    /// slowest algorithm rather than the sum of them.
    parallel: bool,
    /// One of the hashers encodes the input's length before its bytes.
    length_first: bool,
}

/// Below this, handing a chunk to other threads costs more than hashing it.
const PARALLEL_UPDATE_MIN: usize = 64 * 1024;

impl Fanout {
    pub fn new(hashers: Vec<Box<dyn Hasher>>) -> Fanout {
        // One hasher needs no count of cores (counting them reads four files
        // in /proc and /sys).
        let parallel = hashers.len() > 1
            && std::thread::available_parallelism().is_ok_and(|cores| cores.get() > 1);
        let length_first = hashers.iter().any(|h| h.needs_length_first());
        Fanout {
            hashers,
            parallel,
            length_first,
        }
    }

    /// Turns the per-update parallelism off (when files already run on every core).
    pub fn sequential(mut self) -> Fanout {
        self.parallel = false;
        self
    }

    /// Splits a finished `Fanout` output into one digest per hasher.
    pub fn split(&self, joined: &Digest) -> Vec<Digest> {
        let mut rest = joined.as_bytes();
        self.hashers
            .iter()
            .map(|h| {
                let (one, tail) = rest.split_at(h.output_len());
                rest = tail;
                Digest(one.to_vec())
            })
            .collect()
    }
}

impl Hasher for Fanout {
    fn update(&mut self, data: &[u8]) {
        if self.parallel && data.len() >= PARALLEL_UPDATE_MIN {
            use rayon::prelude::*;
            self.hashers.par_iter_mut().for_each(|h| h.update(data));
        } else {
            for h in &mut self.hashers {
                h.update(data);
            }
        }
    }
    fn needs_length_first(&self) -> bool {
        self.length_first
    }
    fn announce_length(&mut self, len: u64) {
        for h in &mut self.hashers {
            h.announce_length(len);
        }
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        let mut at = 0;
        for h in &mut self.hashers {
            let n = h.output_len();
            h.finalize_into_reset(&mut out[at..at + n]);
            at += n;
        }
    }
    fn reset(&mut self) {
        for h in &mut self.hashers {
            h.reset();
        }
    }
    fn output_len(&self) -> usize {
        self.hashers.iter().map(|h| h.output_len()).sum()
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(Fanout {
            hashers: self.hashers.iter().map(|h| h.box_clone()).collect(),
            parallel: self.parallel,
            length_first: self.length_first,
        })
    }
}

/// One file's digests (one per algorithm) and its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDigests {
    pub digests: Vec<Digest>,
    pub bytes: u64,
    /// The file's modification time when it was read (none for standard input).
    pub modified: Option<SystemTime>,
    /// The file's inode number and status-change time (nanoseconds since the
    /// epoch) when it was read, where the system has them: `sum --json`
    /// records them so that `audit --changed-only` tells a file from another
    /// of the same size and modification time put in its place.
    pub inode: Option<u64>,
    pub ctime_ns: Option<u64>,
}

/// A modification time as nanoseconds since the Unix epoch, as manifests record it.
pub fn mtime_ns(time: SystemTime) -> Option<u64> {
    let since = time.duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(since.as_nanos()).ok()
}

/// A file's inode number and status-change time in nanoseconds since the
/// epoch (`None` where the system has no such thing, or the time is before 1970).
pub fn inode_and_ctime_ns(meta: &std::fs::Metadata) -> (Option<u64>, Option<u64>) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ctime = u64::try_from(meta.ctime())
            .ok()
            .and_then(|s| s.checked_mul(1_000_000_000))
            .and_then(|ns| ns.checked_add(u64::try_from(meta.ctime_nsec()).ok()?));
        (Some(meta.ino()), ctime)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (None, None)
    }
}

/// How each file is hashed.
#[derive(Debug, Clone)]
pub struct HashJob {
    pub strategy: ReadStrategy,
    /// Hash as git does a blob: `blob <size>\0` first (`git hash-object`).
    pub git_blob: bool,
    /// Set by the caller to stop: the file in progress, and every one after
    /// it, ends with an [`Interrupted`](crate::Interrupted) error.
    pub cancel: Cancel,
}

impl HashJob {
    pub fn new(strategy: ReadStrategy) -> HashJob {
        HashJob {
            strategy,
            git_blob: false,
            cancel: Cancel::new(),
        }
    }
}

fn stamp(meta: &std::fs::Metadata) -> (u64, Option<SystemTime>) {
    (meta.len(), meta.modified().ok())
}

/// An input whose length is not known before it is read (a pipe, a FIFO, a
/// file whose size is not its length) is kept in memory up to this many
/// bytes, and beyond that in an anonymous temporary file, where the length
/// must come before the bytes: git's blob header, TupleHash's encoding.
pub const UNKNOWN_LENGTH_MEMORY: usize = 8 << 20;

/// git's object header for a blob of `len` bytes.
fn git_blob_header(len: u64) -> Vec<u8> {
    format!("blob {len}\0").into_bytes()
}

/// Tells `hasher` the length of the input about to be fed: git's header for
/// a blob, else the announcement a length-first hash (TupleHash) encodes.
fn begin_input(hasher: &mut dyn Hasher, len: u64, git_blob: bool) {
    if git_blob {
        hasher.update(&git_blob_header(len));
    } else {
        hasher.announce_length(len);
    }
}

/// Hashes one input with every hasher of `fanout`.
pub fn hash_input(
    input: &Input,
    fanout: &mut Fanout,
    buffer: &mut ReadBuffer,
    job: &HashJob,
) -> io::Result<FileDigests> {
    job.cancel.check()?;
    let mut modified = None;
    let (mut inode, mut ctime_ns) = (None, None);
    let joined = match input {
        Input::Problem(_, e) => return Err(io::Error::new(e.kind(), e.to_string())),
        Input::Stdin => hash_stdin(fanout, buffer, job)?,
        Input::File(path) => {
            // Before and after from the open file itself: two fstat calls
            // per file, and both describe the very inode that was read.
            let file = std::fs::File::open(path)?;
            let before = file.metadata()?;
            let file_again = file.try_clone()?;
            let hashed = if !job.git_blob && !fanout.needs_length_first() {
                hash_open_file(file, &before, fanout, buffer, &job.strategy, &job.cancel)?
            } else if before.is_dir() {
                return Err(io::Error::from_raw_os_error(21));
            } else if size_is_length(&file, &before) {
                begin_input(fanout, before.len(), job.git_blob);
                let hashed =
                    hash_open_file(file, &before, fanout, buffer, &job.strategy, &job.cancel)?;
                if hashed.bytes != before.len() && stamp(&file_again.metadata()?) == stamp(&before)
                {
                    return Err(io::Error::other(format!(
                        "its size ({} bytes) is not its length ({} bytes read), so the length hashed before its bytes was wrong",
                        before.len(),
                        hashed.bytes
                    )));
                }
                hashed
            } else {
                #[cfg(unix)]
                let mut reader = crate::read::Waiting::new(&file, &job.cancel);
                #[cfg(not(unix))]
                let mut reader = &file;
                hash_learning_length(&mut reader, fanout, buffer, job)?
            };
            // Only a change of size or time between the start and the end
            // of the read means the file changed: a size that differs from
            // the bytes read is a size that was never the length (procfs,
            // sysfs), and the file was read to its end.
            let after = file_again.metadata()?;
            if before.is_file() && stamp(&before) != stamp(&after) {
                return Err(io::Error::other(
                    "changed while it was being read; its digest would describe neither version",
                ));
            }
            modified = before.modified().ok();
            (inode, ctime_ns) = inode_and_ctime_ns(&before);
            hashed
        }
    };
    Ok(FileDigests {
        digests: fanout.split(&joined.digest),
        bytes: joined.bytes,
        modified,
        inode,
        ctime_ns,
    })
}

/// Standard input: read until it ends (waiting, where it is a pipe or a
/// terminal, no longer than a cancel). Where the length must come first (a
/// git blob, TupleHash), it comes from stdin's size where that is a regular
/// file whose size is its length, else from reading it first.
fn hash_stdin(fanout: &mut Fanout, buffer: &mut ReadBuffer, job: &HashJob) -> io::Result<Hashed> {
    let stdin = io::stdin();
    let length_first = job.git_blob || fanout.needs_length_first();
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let mut reader = crate::read::Waiting::new(&stdin, &job.cancel);
        if !length_first {
            return hash_reader(&mut reader, fanout, buffer, &job.cancel);
        }
        if let Some(len) = stdin_length(stdin.as_fd()) {
            begin_input(fanout, len, job.git_blob);
            let hashed = hash_reader(&mut reader, fanout, buffer, &job.cancel)?;
            if hashed.bytes != len {
                return Err(io::Error::other(format!(
                    "{} bytes were read where its size promised {len}, so the length hashed before its bytes was wrong",
                    hashed.bytes
                )));
            }
            return Ok(hashed);
        }
        hash_learning_length(&mut reader, fanout, buffer, job)
    }
    #[cfg(not(unix))]
    {
        let mut reader = stdin.lock();
        if !length_first {
            return hash_reader(&mut reader, fanout, buffer, &job.cancel);
        }
        hash_learning_length(&mut reader, fanout, buffer, job)
    }
}

/// The bytes left to read on standard input, where it is a regular file
/// whose size is its length (`< file`): its size less the offset already
/// read, as git takes it.
#[cfg(unix)]
fn stdin_length(fd: std::os::fd::BorrowedFd<'_>) -> Option<u64> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
    let meta = file.metadata().ok()?;
    if !size_is_length(&file, &meta) {
        return None;
    }
    // SAFETY: lseek on a descriptor open for the call; SEEK_CUR with offset 0 only asks.
    let at = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_CUR) };
    u64::try_from(at)
        .ok()
        .map(|at| meta.len().saturating_sub(at))
}

/// [`hash_of_unknown_length`] as `job` says (a git blob or not), holding
/// up to [`UNKNOWN_LENGTH_MEMORY`] bytes in memory.
fn hash_learning_length(
    reader: &mut dyn Read,
    fanout: &mut Fanout,
    buffer: &mut ReadBuffer,
    job: &HashJob,
) -> io::Result<Hashed> {
    hash_of_unknown_length(
        reader,
        fanout,
        buffer,
        UNKNOWN_LENGTH_MEMORY,
        job.git_blob,
        &job.cancel,
    )
}

/// The digest of `reader`'s bytes, whose count must be hashed before them
/// (a git blob id, TupleHash) but is only known once they are read: up to
/// `memory` bytes are held in memory, the rest spooled to an anonymous
/// temporary file (gone when closed, even if we die), then the length and
/// the bytes are hashed.
pub(crate) fn hash_of_unknown_length(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    buffer: &mut ReadBuffer,
    memory: usize,
    git_blob: bool,
    cancel: &Cancel,
) -> io::Result<Hashed> {
    let result = (|| {
        let mut held: Vec<u8> = Vec::new();
        let mut spool: Option<std::fs::File> = None;
        let mut total = 0u64;
        let buf = buffer.as_mut_slice();
        loop {
            cancel.check()?;
            let n = match reader.read(buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            total += n as u64;
            if spool.is_none() && held.len() + n <= memory {
                held.extend_from_slice(&buf[..n]);
                continue;
            }
            let spooling = |e: io::Error| {
                io::Error::new(
                    e.kind(),
                    format!("a temporary file to learn its length: {e}"),
                )
            };
            let file = match &mut spool {
                Some(file) => file,
                None => {
                    let mut file = tempfile::tempfile().map_err(spooling)?;
                    file.write_all(&held).map_err(spooling)?;
                    held = Vec::new();
                    spool.insert(file)
                }
            };
            file.write_all(&buf[..n]).map_err(spooling)?;
        }
        begin_input(hasher, total, git_blob);
        hasher.update(&held);
        if let Some(mut file) = spool {
            file.seek(io::SeekFrom::Start(0))?;
            feed_reader(&mut file, hasher, buffer, cancel)?;
        }
        Ok(total)
    })();
    crate::read::finish(hasher, result)
}
/// The most threads `hash_inputs` starts; more is clamped to this. Each is a
/// real thread with its own buffer, so a count from a user must be bounded.
pub const MAX_JOBS: usize = 1024;

/// Hashes every input, on `jobs` threads when there are several inputs, and
/// hands the results to `emit` in input order. `emit` returning an error stops
/// the work (e.g. the output pipe closed). Memory stays bounded: each worker
/// owns one set of hashers and one buffer; finished results wait for their
/// turn as digests only.
pub fn hash_inputs<E>(
    inputs: &[Input],
    make: &(dyn Fn() -> Fanout + Sync),
    jobs: usize,
    job: &HashJob,
    emit: &mut dyn FnMut(usize, io::Result<FileDigests>) -> Result<(), E>,
) -> Result<(), E> {
    let jobs = jobs.min(MAX_JOBS);
    if jobs <= 1 || inputs.len() <= 1 {
        let mut fanout = make();
        let mut buffer = ReadBuffer::new(job.strategy.chunk);
        for (i, input) in inputs.iter().enumerate() {
            emit(i, hash_input(input, &mut fanout, &mut buffer, job))?;
        }
        return Ok(());
    }
    // Files already run on every core: no reader threads or tree parallelism inside one.
    let per_file = HashJob {
        strategy: ReadStrategy {
            read_ahead: false,
            parallel_hash: false,
            mmap: false,
            chunk: ReadBuffer::DEFAULT_SIZE,
            hashers_share_cores: false,
            reads_in_turns: false,
            cores: 1,
        },
        git_blob: job.git_blob,
        cancel: job.cancel.clone(),
    };
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Workers claim runs of files and report each run at once: with thousands
    // of small files, a wake-up of the ordering thread per file cost more than
    // the parallelism gained (measured: 20,000 files of 1-16 KiB, 394 ms on two
    // workers reporting singly against 308 ms on one thread).
    let run = (inputs.len() / (jobs * 8)).clamp(1, 64);
    let (tx, rx) = mpsc::channel::<Vec<(usize, io::Result<FileDigests>)>>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(inputs.len()) {
            let tx = tx.clone();
            let (next, stop, per_file) = (&next, &stop, &per_file);
            scope.spawn(move || {
                let mut fanout = make().sequential();
                let mut buffer = ReadBuffer::new(per_file.strategy.chunk);
                loop {
                    let first = next.fetch_add(run, Ordering::Relaxed);
                    if first >= inputs.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let results: Vec<_> = (first..(first + run).min(inputs.len()))
                        .map(|i| {
                            (
                                i,
                                hash_input(&inputs[i], &mut fanout, &mut buffer, per_file),
                            )
                        })
                        .collect();
                    if tx.send(results).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        for batch in rx {
            waiting.extend(batch);
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

#[cfg(test)]
mod tests {
    use super::*;
    use hashlab::{HashParams, Registry};
    use std::path::PathBuf;

    fn fanout(algs: &[&str]) -> Fanout {
        let r = Registry::default();
        Fanout::new(
            algs.iter()
                .map(|a| r.hasher(a, None, &HashParams::default()).unwrap())
                .collect(),
        )
    }

    fn job(git: bool) -> HashJob {
        HashJob {
            git_blob: git,
            ..HashJob::new(ReadStrategy::for_hash(hashlab::FileBound::Hash, false))
        }
    }

    #[test]
    fn one_read_many_digests_and_git_blobs() {
        let dir = std::env::temp_dir().join(format!("hashlab-many-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f");
        std::fs::write(&p, b"hello\n").unwrap();
        let input = Input::File(p.clone());
        let mut f = fanout(&["md5", "sha1"]);
        let mut buf = ReadBuffer::default();
        let got = hash_input(&input, &mut f, &mut buf, &job(false)).unwrap();
        assert_eq!(got.digests[0].to_hex(), "b1946ac92492d2347c6235b4d2611184");
        assert_eq!(
            got.digests[1].to_hex(),
            "f572d396fae9206628714fb2ce00f72e94f2258f"
        );
        // `git hash-object` of "hello\n".
        let mut g = fanout(&["sha1"]);
        let blob = hash_input(&input, &mut g, &mut buf, &job(true)).unwrap();
        assert_eq!(
            blob.digests[0].to_hex(),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Stalls on its first update, so a change to the file lands mid-read.
    struct Stalling(Box<dyn Hasher>, bool);

    impl Hasher for Stalling {
        fn update(&mut self, data: &[u8]) {
            if !self.1 {
                self.1 = true;
                std::thread::sleep(std::time::Duration::from_millis(400));
            }
            self.0.update(data)
        }
        fn finalize_into_reset(&mut self, out: &mut [u8]) {
            self.0.finalize_into_reset(out)
        }
        fn reset(&mut self) {
            self.0.reset()
        }
        fn output_len(&self) -> usize {
            self.0.output_len()
        }
        fn box_clone(&self) -> Box<dyn Hasher> {
            Box::new(Stalling(self.0.box_clone(), self.1))
        }
    }

    #[test]
    fn a_file_that_changes_while_read_gets_no_digest() {
        let dir = std::env::temp_dir().join(format!("hashlab-changing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("growing");
        std::fs::write(&p, vec![7u8; 1 << 20]).unwrap();
        let r = Registry::default();
        let sha256 = || r.hasher("sha256", None, &HashParams::default()).unwrap();
        let mut f = Fanout::new(vec![Box::new(Stalling(sha256(), false))]);
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(100));
                use std::io::Write;
                let mut file = std::fs::OpenOptions::new().append(true).open(p).unwrap();
                file.write_all(b"late bytes").unwrap();
            })
        };
        let job = HashJob::new(ReadStrategy {
            chunk: ReadBuffer::DEFAULT_SIZE,
            parallel_hash: false,
            read_ahead: false,
            mmap: false,
            hashers_share_cores: false,
            reads_in_turns: false,
            cores: 1,
        });
        let err = hash_input(
            &Input::File(p.clone()),
            &mut f,
            &mut ReadBuffer::default(),
            &job,
        )
        .unwrap_err();
        writer.join().unwrap();
        assert!(
            err.to_string().contains("changed while it was being read"),
            "{err}"
        );
        // Left alone, the same file hashes fine.
        let mut plain = Fanout::new(vec![sha256()]);
        assert!(hash_input(
            &Input::File(p),
            &mut plain,
            &mut ReadBuffer::default(),
            &job
        )
        .is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn parallel_results_come_in_input_order() {
        let dir = std::env::temp_dir().join(format!("hashlab-order-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut inputs = Vec::new();
        for i in 0..40 {
            let p = dir.join(format!("{i:02}"));
            // Sizes vary so workers finish out of order.
            std::fs::write(&p, vec![i as u8; (40 - i) * 5000]).unwrap();
            inputs.push(Input::File(p));
        }
        inputs.insert(7, Input::File(PathBuf::from("/nonexistent/hashlab")));
        let make = || fanout(&["sha256"]);
        let mut sequential = Vec::new();
        hash_inputs::<()>(&inputs, &make, 1, &job(false), &mut |i, r| {
            sequential.push((i, r.map(|d| d.digests[0].to_hex()).map_err(|e| e.kind())));
            Ok(())
        })
        .unwrap();
        let mut parallel = Vec::new();
        hash_inputs::<()>(&inputs, &make, 4, &job(false), &mut |i, r| {
            parallel.push((i, r.map(|d| d.digests[0].to_hex()).map_err(|e| e.kind())));
            Ok(())
        })
        .unwrap();
        assert_eq!(parallel, sequential);
        assert!(parallel[7].1.is_err());
        // Stopping early: the emitter's error comes back, the rest is not waited for.
        let mut seen = 0;
        let stopped = hash_inputs(&inputs, &make, 3, &job(false), &mut |_, _| {
            seen += 1;
            if seen == 5 {
                Err("pipe closed")
            } else {
                Ok(())
            }
        });
        assert_eq!(stopped, Err("pipe closed"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Yields its bytes a few at a time, as a pipe does.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn git_blobs_of_unknown_length_are_held_then_spooled() {
        let data: Vec<u8> = (0..100_000u32).map(|i| ((i * 31) >> 3) as u8).collect();
        let mut expected = fanout(&["sha1", "sha256"]);
        expected.update(b"blob 100000\0");
        expected.update(&data);
        let expected = expected.finalize_reset();
        // All in memory, spooled from the start, spooled mid-way, exactly at the bound.
        for memory in [1 << 20, 0, 10, 99_999, 100_000] {
            let mut h = fanout(&["sha1", "sha256"]);
            let got = hash_of_unknown_length(
                &mut Trickle(&data, 777),
                &mut h,
                &mut ReadBuffer::new(4096),
                memory,
                true,
                &Cancel::new(),
            )
            .unwrap();
            assert_eq!(got.digest, expected, "memory {memory}");
            assert_eq!(got.bytes, data.len() as u64);
        }
        // `printf abc | git hash-object --stdin`, and the empty blob.
        for (bytes, id) in [
            (&b"abc"[..], "f2ba8f84ab5c1bce84a7b441cb1959cfc7093b7f"),
            (b"", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"),
        ] {
            for memory in [0, 1 << 20] {
                let mut h = fanout(&["sha1"]);
                let got = hash_of_unknown_length(
                    &mut Trickle(bytes, 1),
                    &mut h,
                    &mut ReadBuffer::default(),
                    memory,
                    true,
                    &Cancel::new(),
                )
                .unwrap();
                assert_eq!(got.digest.to_hex(), id);
            }
        }
        // Cancelled while spooling: an interrupt, and a clean hasher.
        let cancel = Cancel::new();
        cancel.cancel();
        let mut h = fanout(&["sha1"]);
        let err = hash_of_unknown_length(
            &mut Trickle(&data, 777),
            &mut h,
            &mut ReadBuffer::new(4096),
            0,
            true,
            &cancel,
        )
        .unwrap_err();
        assert!(crate::is_interrupted(&err));
        assert_eq!(
            h.finalize_reset().to_hex(),
            "da39a3ee5e6b4b0d3255bfef95601890afd80709"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_whose_size_is_not_its_length_is_read_to_its_end() {
        // procfs says 0 bytes, sysfs a page; both are read to the end.
        for path in [
            "/proc/version",
            "/sys/kernel/mm/transparent_hugepage/enabled",
        ] {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            for git in [false, true] {
                let mut f = fanout(&["sha256"]);
                let got = hash_input(
                    &Input::File(PathBuf::from(path)),
                    &mut f,
                    &mut ReadBuffer::default(),
                    &job(git),
                )
                .unwrap_or_else(|e| panic!("{path}: {e}"));
                let mut expected = fanout(&["sha256"]);
                if git {
                    expected.update(format!("blob {}\0", bytes.len()).as_bytes());
                }
                expected.update(&bytes);
                assert_eq!(
                    got.digests[0],
                    expected.finalize_reset(),
                    "{path} git {git}"
                );
                assert_eq!(got.bytes, bytes.len() as u64);
            }
        }
    }

    #[test]
    fn a_cancelled_job_interrupts_every_input_left() {
        let dir = std::env::temp_dir().join(format!("hashlab-cancelled-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let inputs: Vec<Input> = (0..10)
            .map(|i| {
                let p = dir.join(format!("{i}"));
                std::fs::write(&p, [i as u8]).unwrap();
                Input::File(p)
            })
            .collect();
        let make = || fanout(&["sha256"]);
        for jobs in [1, 3] {
            let job = job(false);
            job.cancel.cancel();
            let mut seen = Vec::new();
            hash_inputs::<()>(&inputs, &make, jobs, &job, &mut |i, r| {
                seen.push((i, r.is_err_and(|e| crate::is_interrupted(&e))));
                Ok(())
            })
            .unwrap();
            assert_eq!(seen, (0..10).map(|i| (i, true)).collect::<Vec<_>>());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
