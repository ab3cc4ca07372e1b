//! A replica of a shape, measured: for each size band, files of the band's
//! mean size in a private temporary directory, hashed through `sum`'s own
//! reading path (hashlab-integrity's plan and `hash_inputs`: open, stat,
//! map or read, per-file work), on one thread and on every core. (A git
//! repository's replica is a sample of its own objects: `git::ObjectSample`.)

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hashlab::Registry;
use hashlab_integrity::{
    gnu_line, hash_input, hash_inputs, Cancel, Fanout, FileDigests, HashJob, Input, PlanError,
    ReadBuffer, ReadStrategy, SumPlan, SumRequest,
};
use serde::{Deserialize, Serialize};

use super::shape::Shape;
use crate::stats::SplitMix64;
use crate::workbench::NullHasher;

/// At most this many files (or objects) per band in the replica.
pub const MAX_FILES_PER_BAND: usize = 2000;
/// At most this many bytes per band: a band of larger files gets fewer or
/// smaller files, its time scaled by bytes (per-file work is negligible there).
pub const MAX_BYTES_PER_BAND: u64 = 64 << 20;

/// How one band is copied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicaBand {
    pub low: u64,
    /// Files in the replica, each of `size` bytes.
    pub files: usize,
    pub size: u64,
    /// Real time = measured time × `scale` (real count and bytes over the replica's).
    pub scale: f64,
}

/// Seconds per pass over each band's replica files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandTimes {
    /// One thread, no reader thread nor tree-parallel hashing.
    pub one: Vec<f64>,
    /// Every core, as `sum -r` runs by default.
    pub all: Vec<f64>,
}

impl BandTimes {
    /// Projected seconds for the whole shape.
    pub fn projected(times: &[f64], bands: &[ReplicaBand]) -> f64 {
        times.iter().zip(bands).map(|(t, b)| t * b.scale).sum()
    }
}

/// Why a replica could not be made or measured.
#[derive(Debug)]
pub enum ReplicaError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    Plan {
        algorithm: String,
        error: PlanError,
    },
    Hash {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl std::fmt::Display for ReplicaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplicaError::Io { path, error } => {
                write!(f, "replica {}: {error}", path.display())
            }
            ReplicaError::Plan { algorithm, error } => write!(f, "{algorithm}: {error}"),
            ReplicaError::Hash { path, error } => {
                write!(f, "replica {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for ReplicaError {}

/// How many files of what size stand for each band of `shape`.
pub fn plan_replica(shape: &Shape, cores: usize) -> Vec<ReplicaBand> {
    shape
        .bands
        .iter()
        .map(|band| {
            let count = band.count.round().max(1.0) as u64;
            let mean = band.mean().round().max(0.0) as u64;
            let by_bytes = MAX_BYTES_PER_BAND
                .checked_div(mean)
                .map_or(u64::MAX, |n| n.max(1));
            // As many files as cores where the band has them, so every
            // thread has one, as in the real run.
            let files = count
                .min(MAX_FILES_PER_BAND as u64)
                .min(by_bytes.max(cores as u64))
                .max(1);
            let size = mean.min((MAX_BYTES_PER_BAND / files).max(1));
            let scale = band.count / files as f64
                * if size < mean {
                    mean as f64 / size as f64
                } else {
                    1.0
                };
            ReplicaBand {
                low: band.low,
                files: files as usize,
                size,
                scale,
            }
        })
        .collect()
}

/// The replica's files on disk, removed when dropped.
pub struct ReplicaFiles {
    dir: tempfile::TempDir,
    pub bands: Vec<Vec<Input>>,
}

impl ReplicaFiles {
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Writes the files in a new directory only this user can enter.
    pub fn write(bands: &[ReplicaBand], seed: u64) -> Result<ReplicaFiles, ReplicaError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| ReplicaError::Io { path, error }
        };
        let dir = tempfile::Builder::new()
            .prefix("hashlab-like-")
            .tempdir()
            .map_err(io(&std::env::temp_dir()))?;
        let mut rng = SplitMix64(seed);
        let mut content = vec![0u8; bands.iter().map(|b| b.size).max().unwrap_or(0) as usize];
        rng.fill(&mut content);
        let mut inputs = Vec::new();
        for (b, band) in bands.iter().enumerate() {
            let mut files = Vec::with_capacity(band.files);
            for i in 0..band.files {
                let path = dir.path().join(format!("b{b:02}-{i:05}"));
                // Each file differs in its first bytes, as real files do.
                let mut file = std::fs::File::create_new(&path).map_err(io(&path))?;
                let body = &content[..band.size as usize];
                let stamp = (i as u64).to_le_bytes();
                let n = stamp.len().min(body.len());
                file.write_all(&stamp[..n])
                    .and_then(|()| file.write_all(&body[n..]))
                    .map_err(io(&path))?;
                files.push(Input::File(path));
            }
            inputs.push(files);
        }
        Ok(ReplicaFiles { dir, bands: inputs })
    }
}

/// A plan for `algorithm` as `sum` makes it, on `jobs` threads.
pub fn sum_plan(
    registry: &Registry,
    algorithm: &str,
    jobs: usize,
    git_blob: bool,
    sample: &[&Path],
) -> Result<SumPlan, ReplicaError> {
    let request = SumRequest {
        algorithms: vec![algorithm.to_string()],
        jobs: Some(jobs),
        allow_mmap: true,
        git_blob,
        ..SumRequest::default()
    };
    let plan_error = |error| ReplicaError::Plan {
        algorithm: algorithm.to_string(),
        error,
    };
    let plan = SumPlan::new(registry, &request, sample).map_err(plan_error)?;
    if jobs == 1 {
        // One core: no reader thread, no tree-parallel hashing.
        plan.with_read_ahead(false).map_err(plan_error)
    } else {
        Ok(plan)
    }
}

/// How `hash_inputs` reads each file when several files run at once.
pub fn per_file_job(git_blob: bool) -> HashJob {
    HashJob {
        strategy: ReadStrategy {
            read_ahead: false,
            parallel_hash: false,
            mmap: false,
            chunk: ReadBuffer::DEFAULT_SIZE,
            hashers_share_cores: false,
            reads_in_turns: false,
            cores: 1,
        },
        git_blob,
        cancel: Cancel::new(),
    }
}

/// What each pass hashes with.
#[derive(Clone, Copy)]
pub enum Work<'a> {
    Plan(&'a SumPlan),
    /// Reading only: what open, stat and read cost with no hash.
    Null(&'a SumPlan),
}

impl Work<'_> {
    fn plan(&self) -> &SumPlan {
        match self {
            Work::Plan(p) | Work::Null(p) => p,
        }
    }
    fn fanout(&self) -> Fanout {
        match self {
            Work::Plan(p) => p.fanout(),
            Work::Null(_) => Fanout::new(vec![Box::new(NullHasher::default())]),
        }
    }
}

/// One pass of `sum`'s reading over `inputs`, as `hash_inputs` runs it; a
/// single file among many (`alone`: false) is read as a worker of a
/// many-file run reads it.
pub fn one_pass(inputs: &[Input], work: Work<'_>, alone: bool) -> Result<Duration, ReplicaError> {
    let plan = work.plan();
    let job = plan.job(Cancel::new());
    let start = Instant::now();
    let mut failure = None;
    if inputs.len() == 1 && plan.jobs > 1 && !alone {
        let mut fanout = work.fanout().sequential();
        let job = per_file_job(plan.git_blob);
        let mut buffer = ReadBuffer::new(job.strategy.chunk);
        if let Err(e) = hash_input(&inputs[0], &mut fanout, &mut buffer, &job) {
            failure = Some((0, e));
        }
    } else {
        let make = || work.fanout();
        let mut printed = 0usize;
        let _ = hash_inputs(inputs, &make, plan.jobs, &job, &mut |i, r| {
            match r {
                Ok(digests) => printed += line_bytes(&inputs[i], &digests),
                Err(e) => {
                    failure.get_or_insert((i, e));
                }
            }
            Ok::<(), ()>(())
        });
        std::hint::black_box(printed);
    }
    let took = start.elapsed();
    if let Some((i, error)) = failure {
        let path = match &inputs[i] {
            Input::File(p) | Input::Problem(p, _) => p.clone(),
            Input::Stdin => PathBuf::from("-"),
        };
        return Err(ReplicaError::Hash { path, error });
    }
    Ok(took)
}

/// The line `sum` prints for a hashed input, made and measured: its per-file
/// work after the hash (hex, escaping) belongs to what a real run costs.
pub fn line_bytes(input: &Input, digests: &FileDigests) -> usize {
    use std::os::unix::ffi::OsStrExt;
    let name = match input {
        Input::File(p) | Input::Problem(p, _) => p.as_os_str().as_bytes(),
        Input::Stdin => b"-",
    };
    digests
        .digests
        .iter()
        .map(|d| gnu_line(&d.to_hex(), name).len())
        .sum()
}

/// Written over before each timed pass: more than a server CPU's last-level
/// cache, so that a pass starts with caches as cold as a real run's.
const EVICT_BYTES: usize = 128 << 20;

/// Times passes over a replica, the CPU's caches written over before each.
/// One is made per run: faulting its buffer in costs more than a pass over
/// small files, and `pick --like` times hundreds of cells.
pub struct Timer {
    evict: Vec<u8>,
    passes: u8,
}

impl Timer {
    pub fn new() -> Timer {
        Timer {
            evict: vec![0u8; EVICT_BYTES],
            passes: 0,
        }
    }

    /// The median of passes repeated for about `budget` (at least three,
    /// or one when a single pass takes three budgets).
    pub fn median<E>(
        &mut self,
        budget: Duration,
        mut pass: impl FnMut() -> Result<Duration, E>,
    ) -> Result<f64, E> {
        let mut times = Vec::new();
        let start = Instant::now();
        // One pass untimed: the first open of each file fills the dentry cache.
        pass()?;
        loop {
            // A real run touches each file's pages and kernel records once,
            // so they come from memory, not from a CPU cache that the
            // previous pass over the same few files left warm.
            self.passes = self.passes.wrapping_add(1);
            self.evict.fill(self.passes);
            std::hint::black_box(&self.evict);
            times.push(pass()?.as_secs_f64());
            let spent = start.elapsed();
            if (times.len() >= 3 && spent >= budget) || spent >= 3 * budget || times.len() >= 31 {
                break;
            }
        }
        times.sort_by(f64::total_cmp);
        Ok(times[times.len() / 2])
    }
}

impl Default for Timer {
    fn default() -> Timer {
        Timer::new()
    }
}
