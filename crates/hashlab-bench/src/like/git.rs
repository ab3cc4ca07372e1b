//! A git repository's objects as git stores and names them: each object's
//! bytes after `TYPE SIZE\0`, the header git hashes with it.
//!
//! git is found on PATH, but only in a directory that no one but root and
//! this user can write, and only as a file no one else can write: hashlab
//! never runs a program that another user could have planted.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hashlab::Choice;

use super::replica::{ReplicaBand, MAX_BYTES_PER_BAND, MAX_FILES_PER_BAND};
use super::shape::{BandSample, ByteBudget, Shape, ShapeError, Source, Tally};
use crate::stats::SplitMix64;

/// Whether `path` is a git repository: a work tree with `.git`, or a bare one.
pub fn is_repository(path: &Path) -> bool {
    path.join(".git").exists() || (path.join("HEAD").is_file() && path.join("objects").is_dir())
}

/// Owned by root or by this user, and writable by neither group nor others.
#[cfg(unix)]
fn only_we_write(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid(2) reads the process's own id and cannot fail.
    let me = unsafe { libc::geteuid() };
    (meta.uid() == 0 || meta.uid() == me) && meta.mode() & 0o022 == 0
}

/// The first `name` in `path_var` whose directory and file only root or
/// this user can write; written by hand because `which` looks at the
/// execute bit only.
#[cfg(unix)]
pub fn trusted_program(name: &str, path_var: &OsString) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    for dir in std::env::split_paths(path_var) {
        // A relative entry (or an empty one, the current directory) is
        // wherever the user happens to stand.
        if !dir.is_absolute() {
            continue;
        }
        let Ok(dir_meta) = std::fs::metadata(&dir) else {
            continue;
        };
        if !dir_meta.is_dir() || !only_we_write(&dir_meta) {
            continue;
        }
        let candidate = dir.join(name);
        let Ok(meta) = std::fs::metadata(&candidate) else {
            continue;
        };
        if meta.is_file() && meta.permissions().mode() & 0o111 != 0 && only_we_write(&meta) {
            return Some(candidate);
        }
    }
    None
}

fn git_command(git: &Path, repo: &Path) -> Command {
    let mut command = Command::new(git);
    // No configured helper program runs for a read of the object database.
    command
        .arg("-C")
        .arg(repo)
        .args(["-c", "core.fsmonitor=false", "cat-file"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    command
}

fn git_error(repo: &Path, why: impl Into<String>) -> ShapeError {
    ShapeError::Git {
        path: repo.to_path_buf(),
        why: why.into(),
    }
}

fn find_git(repo: &Path, path_var: &OsString) -> Result<PathBuf, ShapeError> {
    trusted_program("git", path_var).ok_or_else(|| {
        git_error(
            repo,
            "no git in a PATH directory that only root or you can write",
        )
    })
}

/// Reads the child's stderr to its end, for the error line.
fn stderr_of(child: &mut std::process::Child) -> String {
    let mut text = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut text);
    }
    text.lines().next().unwrap_or("").trim().to_string()
}

/// Objects of each size band chosen uniformly, by id, up to
/// [`MAX_FILES_PER_BAND`] and [`MAX_BYTES_PER_BAND`] a band: the replica of
/// a repository is its own objects, read through git as a real pass reads
/// them, because what happens between two hashes (git inflating the next
/// object, the pipe) costs a fast hash as much as the hash itself.
#[derive(Debug, Clone, Default)]
pub struct ObjectSample {
    /// Per band of the shape (smallest first), (id, size with header).
    pub bands: Vec<Vec<(String, u64)>>,
}

impl ObjectSample {
    /// How the sample stands for each band: its objects, their mean
    /// size, and the band's count over the sample's.
    pub fn replica(&self, shape: &Shape) -> Vec<ReplicaBand> {
        shape
            .bands
            .iter()
            .zip(&self.bands)
            .map(|(band, ids)| {
                let bytes: u64 = ids.iter().map(|(_, size)| size).sum();
                let n = ids.len().max(1);
                ReplicaBand {
                    low: band.low,
                    files: ids.len(),
                    size: bytes / n as u64,
                    scale: band.count / n as f64,
                }
            })
            .collect()
    }
}

impl ObjectSample {
    /// Each band's kept objects, cut to [`MAX_BYTES_PER_BAND`] (one object at least).
    fn from(kept: BandSample<String>) -> ObjectSample {
        let bands = kept
            .bands()
            .into_iter()
            .map(|ids| {
                let mut budget = ByteBudget::new(MAX_BYTES_PER_BAND);
                ids.into_iter()
                    .take_while(|(_, size)| budget.admits(*size))
                    .collect()
            })
            .collect();
        ObjectSample { bands }
    }
}

/// The shape of every object in the repository, counted with its header,
/// and a sample of them by band.
pub fn git_shape(
    repo: &Path,
    path_var: &OsString,
    seed: u64,
) -> Result<(Shape, ObjectSample), ShapeError> {
    let started = Instant::now();
    let git = find_git(repo, path_var)?;
    let mut child = git_command(&git, repo)
        .arg("--batch-all-objects")
        .arg("--batch-check=%(objectname) %(objecttype) %(objectsize)")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| git_error(repo, format!("cannot start {}: {e}", git.display())))?;
    let mut tally = Tally::default();
    let mut kept = BandSample::new(MAX_FILES_PER_BAND);
    let mut rng = SplitMix64(seed);
    let stdout = child.stdout.take().expect("piped above");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| git_error(repo, e.to_string()))?;
        let mut fields = line.split(' ');
        let parsed = match (fields.next(), fields.next(), fields.next(), fields.next()) {
            (Some(id), Some(kind), Some(size), None) => {
                size.parse::<u64>().ok().map(|size| (id, kind, size))
            }
            _ => None,
        };
        let Some((id, kind, size)) = parsed else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(git_error(repo, format!("unexpected line '{line}'")));
        };
        let stored = header(kind, size).len() as u64 + size;
        tally.add(stored);
        kept.offer(stored, || id.to_string(), &mut rng);
    }
    let why = stderr_of(&mut child);
    let status = child.wait().map_err(|e| git_error(repo, e.to_string()))?;
    if !status.success() {
        return Err(git_error(repo, why));
    }
    if tally.files() == 0 {
        return Err(ShapeError::Empty {
            path: repo.to_path_buf(),
            why: "the repository holds no object".into(),
        });
    }
    Ok((
        tally.shape(Source::Git, repo, started),
        ObjectSample::from(kept),
    ))
}

/// One pass over sampled objects as a real pass reads them: `git cat-file
/// --batch` given their ids, each object hashed with its header as it
/// comes; on `threads` threads, the ids shared out, one git each, and the
/// slowest thread's hashing time. Only hashing is timed, as in
/// [`hash_objects`].
pub fn sample_pass(
    repo: &Path,
    path_var: &OsString,
    choice: &Choice,
    ids: &[(String, u64)],
    threads: usize,
) -> Result<Duration, ShapeError> {
    let git = find_git(repo, path_var)?;
    let one = |ids: &[(String, u64)]| -> Result<Duration, ShapeError> {
        let mut child = git_command(&git, repo)
            .arg("--batch=%(objecttype) %(objectsize)")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| git_error(repo, format!("cannot start {}: {e}", git.display())))?;
        let mut stdin = child.stdin.take().expect("piped above");
        let list: String = ids.iter().map(|(id, _)| format!("{id}\n")).collect();
        // Written from another thread: git answers while it reads, and a
        // full pipe each way would stop both.
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(list.as_bytes());
        });
        let mut reader =
            BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped above"));
        let mut done = ObjectsHashed {
            objects: 0,
            bytes: 0,
            hashing: Duration::ZERO,
        };
        let result = hash_batch(&mut reader, choice.hasher(), ids.len(), &mut done)
            .map_err(|why| git_error(repo, why));
        if result.is_err() {
            let _ = child.kill();
        }
        let _ = writer.join();
        drop(reader);
        let why = stderr_of(&mut child);
        let status = child.wait().map_err(|e| git_error(repo, e.to_string()))?;
        result?;
        if !status.success() || done.objects != ids.len() as u64 {
            return Err(git_error(
                repo,
                format!("a sampled object could not be read: {why}"),
            ));
        }
        Ok(done.hashing)
    };
    let threads = threads.clamp(1, ids.len().max(1));
    if threads == 1 {
        return one(ids);
    }
    let per = ids.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let running: Vec<_> = ids
            .chunks(per)
            .map(|chunk| scope.spawn(move || one(chunk)))
            .collect();
        let mut slowest = Duration::ZERO;
        for handle in running {
            let took = handle
                .join()
                .unwrap_or_else(|_| Err(git_error(repo, "a hashing thread panicked")))?;
            slowest = slowest.max(took);
        }
        Ok(slowest)
    })
}

/// git's object header.
pub fn header(kind: &str, size: u64) -> Vec<u8> {
    format!("{kind} {size}\0").into_bytes()
}

/// What hashing every object of a repository took.
#[derive(Debug, Clone)]
pub struct ObjectsHashed {
    pub objects: u64,
    pub bytes: u64,
    /// Time in the hash alone: git's own reading and inflating is not counted.
    pub hashing: Duration,
}

/// Hashes up to `limit` objects of a `git cat-file --batch` stream (a
/// `TYPE SIZE` line, the object, a newline) each with its header, adding to
/// `done`; only the hashing is timed. The replica of a repository's objects
/// goes through this same loop, so that what is projected is what is run.
pub fn hash_batch(
    reader: &mut impl BufRead,
    mut hasher: Box<dyn hashlab::Hasher>,
    limit: usize,
    done: &mut ObjectsHashed,
) -> Result<(), String> {
    let mut digest = vec![0u8; hasher.output_len()];
    let mut body = Vec::new();
    let mut line = String::new();
    for _ in 0..limit {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(e.to_string()),
        }
        let Some((kind, size)) = line
            .trim_end()
            .split_once(' ')
            .and_then(|(k, s)| Some((k.to_string(), s.parse::<u64>().ok()?)))
        else {
            return Err(format!("unexpected line '{}'", line.trim_end()));
        };
        body.clear();
        // Read in full, then hashed: the object plus its newline.
        (&mut *reader)
            .take(size + 1)
            .read_to_end(&mut body)
            .map_err(|e| e.to_string())?;
        if body.len() as u64 != size + 1 {
            return Err("the object ended early".into());
        }
        let head = header(&kind, size);
        let start = Instant::now();
        hasher.update(&head);
        hasher.update(&body[..size as usize]);
        hasher.finalize_into_reset(&mut digest);
        done.hashing += start.elapsed();
        std::hint::black_box(&digest);
        done.objects += 1;
        done.bytes += head.len() as u64 + size;
    }
    Ok(())
}

/// Hashes every object of the repository with its header, as git would
/// name it under `choice`, on one thread; only the hashing is timed.
pub fn hash_objects(
    repo: &Path,
    path_var: &OsString,
    choice: &Choice,
) -> Result<ObjectsHashed, ShapeError> {
    let git = find_git(repo, path_var)?;
    let mut child = git_command(&git, repo)
        .arg("--batch-all-objects")
        .arg("--batch=%(objecttype) %(objectsize)")
        .arg("--unordered")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| git_error(repo, format!("cannot start {}: {e}", git.display())))?;
    let mut reader = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped above"));
    let mut done = ObjectsHashed {
        objects: 0,
        bytes: 0,
        hashing: Duration::ZERO,
    };
    let result = hash_batch(&mut reader, choice.hasher(), usize::MAX, &mut done)
        .map_err(|why| git_error(repo, why));
    if result.is_err() {
        let _ = child.kill();
    }
    let why = stderr_of(&mut child);
    let status = child.wait().map_err(|e| git_error(repo, e.to_string()))?;
    result?;
    if !status.success() {
        return Err(git_error(repo, why));
    }
    Ok(done)
}
