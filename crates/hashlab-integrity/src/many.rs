//! Hashing many files: several algorithms from one read, several files on
//! several threads with the output kept in input order, git blob ids, and
//! files that change while they are read.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::SystemTime;

use hashlab::{Digest, Hasher};

use crate::read::{hash_open_file, hash_reader, ReadBuffer, ReadStrategy};
use crate::walk::Input;

/// Several hashers fed from one read of the data. As a `Hasher` its output is
/// the outputs one after another; `split` takes them apart again.
pub struct Fanout {
    hashers: Vec<Box<dyn Hasher>>,
    /// Feed the hashers on separate cores (rayon), so a pass costs about the
    /// slowest algorithm rather than the sum of them.
    parallel: bool,
}

/// Below this, handing a chunk to other threads costs more than hashing it.
const PARALLEL_UPDATE_MIN: usize = 64 * 1024;

impl Fanout {
    pub fn new(hashers: Vec<Box<dyn Hasher>>) -> Fanout {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let parallel = hashers.len() > 1 && cores > 1;
        Fanout { hashers, parallel }
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
}

/// A modification time as nanoseconds since the Unix epoch, as manifests record it.
pub fn mtime_ns(time: SystemTime) -> Option<u64> {
    let since = time.duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(since.as_nanos()).ok()
}

/// How each file is hashed.
#[derive(Debug, Clone, Copy)]
pub struct HashJob {
    pub strategy: ReadStrategy,
    /// Hash as git does a blob: `blob <size>\0` first (`git hash-object`).
    pub git_blob: bool,
}

fn stamp(meta: &std::fs::Metadata) -> (u64, Option<SystemTime>) {
    (meta.len(), meta.modified().ok())
}

/// Hashes one input with every hasher of `fanout`.
pub fn hash_input(
    input: &Input,
    fanout: &mut Fanout,
    buffer: &mut ReadBuffer,
    job: &HashJob,
) -> io::Result<FileDigests> {
    let mut modified = None;
    let joined = match input {
        Input::Problem(_, e) => return Err(io::Error::new(e.kind(), e.to_string())),
        Input::Stdin => {
            if job.git_blob {
                return Err(io::Error::other(
                    "--git needs the size first: give a file, not standard input",
                ));
            }
            hash_reader(&mut io::stdin().lock() as &mut dyn Read, fanout, buffer)?
        }
        Input::File(path) => {
            // Before and after from the open file itself: two fstat calls
            // per file, and both describe the very inode that was read.
            let file = std::fs::File::open(path)?;
            let before = file.metadata()?;
            if job.git_blob {
                if before.is_dir() {
                    return Err(io::Error::from_raw_os_error(21));
                }
                fanout.update(format!("blob {}\0", before.len()).as_bytes());
            }
            let size = if before.is_file() { before.len() } else { 0 };
            let file_again = file.try_clone()?;
            let hashed = hash_open_file(file, size, fanout, buffer, &job.strategy)?;
            let after = file_again.metadata()?;
            let grew_or_shrank = before.is_file() && hashed.bytes != before.len();
            if before.is_file() && (stamp(&before) != stamp(&after) || grew_or_shrank) {
                return Err(io::Error::other(
                    "changed while it was being read; its digest would describe neither version",
                ));
            }
            modified = before.modified().ok();
            hashed
        }
    };
    Ok(FileDigests {
        digests: fanout.split(&joined.digest),
        bytes: joined.bytes,
        modified,
    })
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
        },
        git_blob: job.git_blob,
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
            strategy: ReadStrategy::for_backend("SHA-2", false),
            git_blob: git,
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
        let job = HashJob {
            strategy: ReadStrategy {
                chunk: ReadBuffer::DEFAULT_SIZE,
                parallel_hash: false,
                read_ahead: false,
                mmap: false,
                hashers_share_cores: false,
            },
            git_blob: false,
        };
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
}
