//! `bench --like PATH`: every candidate hash measured on the shape of the
//! user's own data (a tree, a manifest with sizes, a git repository, an
//! object-store prefix), and
//! the time each would take for all of it, here, on other core counts and
//! on a Dask cluster, with what bounds it; `verify` checks the projection
//! against a real run.

pub mod git;
#[cfg(feature = "objects")]
pub mod objects;
pub mod projection;
pub mod replica;
mod request;
pub mod shape;
pub mod storage;
pub mod tables;
mod verify;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hashlab::{KeyRule, Registry};
use hashlab_integrity::{read_manifest, ReadOptions};
use serde::{Deserialize, Serialize};

pub use projection::{AtCores, Bound, Projection, CORE_COUNTS, DASK_WORKER_EFFICIENCY};
pub use replica::{BandTimes, ReplicaBand, ReplicaError};
pub use request::{parse_workers, LikeError, LikeRequest};
pub use shape::{Band, Shape, ShapeError, Source};
pub use storage::Storage;
pub use verify::{verifiable, verify, Verified};

/// The answer, a serde value as `bench --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LikeReport {
    pub shape: Shape,
    /// How each band was copied for the measurement.
    pub replica: Vec<ReplicaBand>,
    /// Threads of "every core" here.
    pub cores: usize,
    /// The storage's read speed from a sample of PATH's own files; `None`
    /// for a git repository or when no file could be read here.
    pub storage: Option<Storage>,
    /// Fastest (cached, every core) first.
    pub projections: Vec<Projection>,
    pub dask_worker_efficiency: f64,
    /// Real runs, when asked for.
    pub verified: Vec<Verified>,
    pub notes: Vec<String>,
    pub seconds: f64,
}

/// The candidates: the named algorithms (canonical names, repeats
/// dropped), or the default bench set's unkeyed, stable ones.
pub fn candidates(registry: &Registry, names: &[String]) -> Result<Vec<String>, LikeError> {
    let mut out: Vec<String> = Vec::new();
    if names.is_empty() {
        for a in registry.algorithms() {
            if a.default_bench
                && a.stable
                && matches!(a.key, KeyRule::None | KeyRule::Optional { .. })
            {
                out.push(a.name.clone());
            }
        }
        return Ok(out);
    }
    for name in names {
        let a = registry
            .algorithm(name)
            .map_err(|e| LikeError::Algorithm(e.to_string()))?;
        if !out.contains(&a.name) {
            out.push(a.name.clone());
        }
    }
    Ok(out)
}

/// The algorithms `request` measures, as [`candidates`] gives them; in a
/// git repository each is resolved too, as its objects are hashed (a name
/// that needs a key hashes none). What [`like`] refuses before it reads
/// anything, for a caller to check before it runs.
pub fn algorithms_for(
    registry: &Registry,
    request: &LikeRequest,
) -> Result<Vec<String>, LikeError> {
    let names = candidates(registry, &request.algorithms)?;
    if request.path.is_dir() && git::is_repository(&request.path) {
        for name in &names {
            registry
                .resolve(name, None, &hashlab::HashParams::default())
                .map_err(|e| LikeError::Algorithm(format!("{name}: {e}")))?;
        }
    }
    Ok(names)
}

/// A manifest's recorded sizes, with the files it names that exist here
/// (relative names from the current directory, as `check` opens them).
fn manifest_shape(
    registry: &Registry,
    path: &Path,
    seed: u64,
) -> Result<(Shape, Vec<(PathBuf, u64)>), LikeError> {
    use std::os::unix::ffi::OsStrExt;
    let started = Instant::now();
    let bytes = hashlab_integrity::bounded::read_file(path, b'\n').map_err(|e| match e {
        hashlab_integrity::bounded::LineError::Io(error) => LikeError::Shape(ShapeError::Io {
            path: path.to_path_buf(),
            error,
        }),
        e => LikeError::Manifest {
            path: path.to_path_buf(),
            why: e.to_string(),
        },
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let manifest =
        read_manifest(registry, &bytes, &name, &ReadOptions::default()).map_err(|e| {
            LikeError::Manifest {
                path: path.to_path_buf(),
                why: e.to_string(),
            }
        })?;
    let mut tally = shape::Tally::default();
    let mut reads = shape::BandSample::new(shape::READ_SAMPLE_PER_BAND);
    let mut rng = crate::stats::SplitMix64(seed);
    let mut seen = std::collections::HashSet::new();
    for entry in &manifest.entries {
        let Some(size) = entry.size else { continue };
        // A manifest of several algorithms lists each file once per algorithm.
        if !seen.insert(entry.name.as_slice()) {
            continue;
        }
        tally.add(size);
        let file = PathBuf::from(std::ffi::OsStr::from_bytes(&entry.name));
        if std::fs::metadata(&file).is_ok_and(|m| m.is_file() && m.len() == size) {
            reads.offer(size, || file, &mut rng);
        }
    }
    if tally.files() == 0 {
        return Err(LikeError::Manifest {
            path: path.to_path_buf(),
            why: "records no file sizes (hashdeep manifests and `sum --json` do)".into(),
        });
    }
    Ok((
        tally.shape(Source::Manifest, path, started),
        shape::read_files(reads),
    ))
}

/// Finds the shape of `request.path`: a git repository, a manifest (a
/// file that reads as one), or a tree.
pub fn find_shape(
    registry: &Registry,
    request: &LikeRequest,
) -> Result<(Shape, Vec<(PathBuf, u64)>), LikeError> {
    let path = &request.path;
    let meta = std::fs::metadata(path).map_err(|error| ShapeError::Io {
        path: path.clone(),
        error,
    })?;
    if meta.is_dir() && git::is_repository(path) {
        let (shape, _) = git::git_shape(path, &request.path_var, request.seed)?;
        return Ok((shape, Vec::new()));
    }
    if meta.is_file() && meta.len() < (1 << 30) {
        if let Ok(found) = manifest_shape(registry, path, request.seed) {
            return Ok(found);
        }
    }
    Ok(shape::tree_shape(path, request.seed, request.stat_budget)?)
}

/// Shape, replica, storage and projections for every candidate.
pub fn like(registry: &Registry, request: &LikeRequest) -> Result<LikeReport, LikeError> {
    let started = Instant::now();
    let algorithms = algorithms_for(registry, request)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    #[cfg(feature = "objects")]
    if let Some(url) = object_url(&request.path)? {
        return like_objects(registry, request, url, &algorithms, cores, started);
    }
    #[cfg(not(feature = "objects"))]
    object_url(&request.path)?;
    if request.path.is_dir() && git::is_repository(&request.path) {
        return like_git(registry, request, &algorithms, cores, started);
    }
    let (shape, sample) = find_shape(registry, request)?;
    let walk = walk_seconds(&shape, request);
    let bands = replica::plan_replica(&shape, cores);
    let mut notes = Vec::new();
    let cells = (algorithms.len() + 1) * bands.len() * 2;
    let per_cell = (request.budget / cells.max(1) as u32).max(Duration::from_millis(20));
    let git_blob = false;
    let sample_paths: Vec<&Path> = sample.iter().take(8).map(|(p, _)| p.as_path()).collect();
    let mut projections = Vec::new();
    let storage;
    {
        let files = replica::ReplicaFiles::write(&bands, request.seed)?;
        let first = algorithms.first().cloned().unwrap_or_default();
        let null_one = replica::sum_plan(registry, &first, 1, git_blob, &sample_paths)?;
        let null_all = replica::sum_plan(registry, &first, cores, git_blob, &sample_paths)?;
        let alone = shape.files <= 1.0;
        let mut timer = replica::Timer::new();
        let mut measure = |plan_one: &hashlab_integrity::SumPlan,
                           plan_all: &hashlab_integrity::SumPlan,
                           null: bool| {
            let mut times = BandTimes {
                one: Vec::new(),
                all: Vec::new(),
            };
            for inputs in &files.bands {
                let (w1, wa) = if null {
                    (replica::Work::Null(plan_one), replica::Work::Null(plan_all))
                } else {
                    (replica::Work::Plan(plan_one), replica::Work::Plan(plan_all))
                };
                times
                    .one
                    .push(timer.median(per_cell, || replica::one_pass(inputs, w1, alone))?);
                times
                    .all
                    .push(timer.median(per_cell, || replica::one_pass(inputs, wa, alone))?);
            }
            Ok::<_, ReplicaError>(times)
        };
        let overhead = measure(&null_one, &null_all, true)?;
        let overhead_all = BandTimes::projected(&overhead.all, &bands);
        storage = storage::measure(&storage::bounded(sample.clone()), &null_one, &null_all)?;
        let disk = storage
            .as_ref()
            .map(|s| projection::storage_seconds(&shape, s));
        match &storage {
            None => notes.push(
                "no file of PATH could be read here: the storage's speed was not measured".into(),
            ),
            Some(s) if !s.uncached => notes.push(
                "some sampled files are not yours: their cached pages were left alone, so the storage's speed may be the page cache's".into(),
            ),
            Some(_) => {}
        }
        for name in &algorithms {
            let one = replica::sum_plan(registry, name, 1, git_blob, &sample_paths)?;
            let all = replica::sum_plan(registry, name, cores, git_blob, &sample_paths)?;
            let times = measure(&one, &all, false)?;
            let column = &all.columns[0];
            projections.push(project(
                &shape,
                &bands,
                name,
                column.choice.backend_name(),
                all.tree_parallel,
                times,
                Some(overhead_all),
                disk,
                walk,
                cores,
                &request.workers,
            ));
        }
        drop(files);
    }
    projections.sort_by(|a, b| a.cached_all.total_cmp(&b.cached_all));
    if let Some(note) = larger_than_memory(&shape, crate::limits::available_memory()) {
        notes.push(note);
    }
    if !shape.exact {
        notes.push(format!(
            "sampled: {} files stat-ed one by one, {} more counted from their directory entries and {} of those sampled; total bytes ±{:.1} % (95 %)",
            shape.files_measured,
            shape.files_counted,
            shape.sampled,
            100.0 * shape.bytes_error / shape.bytes.max(1.0)
        ));
    }
    Ok(LikeReport {
        shape,
        replica: bands,
        cores,
        storage,
        projections,
        dask_worker_efficiency: DASK_WORKER_EFFICIENCY,
        verified: Vec::new(),
        notes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A tree larger than the memory the page cache could have cannot be found
/// cached: a run reads most of it from the storage, whatever came before.
fn larger_than_memory(shape: &Shape, available: Option<u64>) -> Option<String> {
    const GIB: f64 = (1u64 << 30) as f64;
    let available = available? as f64;
    (shape.bytes > available).then(|| {
        format!(
            "PATH holds {:.1} GiB and this machine has {:.1} GiB of memory to cache it: a run reads most of it from the storage, so expect the uncached projection; the cached one is what the hash and the per-file work alone would take",
            shape.bytes / GIB,
            available / GIB
        )
    })
}

/// A repository: every candidate timed on a sample of its own objects,
/// read through git as a real pass reads them.
fn like_git(
    registry: &Registry,
    request: &LikeRequest,
    algorithms: &[String],
    cores: usize,
    started: Instant,
) -> Result<LikeReport, LikeError> {
    let (shape, sample) = git::git_shape(&request.path, &request.path_var, request.seed)?;
    let bands = sample.replica(&shape);
    let cells = (algorithms.len() * bands.len() * 2).max(1);
    let per_cell = (request.budget / cells as u32).max(Duration::from_millis(20));
    let mut projections = Vec::new();
    let mut timer = replica::Timer::new();
    for name in algorithms {
        let choice = registry
            .resolve(name, None, &hashlab::HashParams::default())
            .map_err(|e| LikeError::Algorithm(format!("{name}: {e}")))?;
        let mut times = BandTimes {
            one: Vec::new(),
            all: Vec::new(),
        };
        for ids in &sample.bands {
            for (threads, out) in [(1, &mut times.one), (cores, &mut times.all)] {
                out.push(timer.median(per_cell, || {
                    git::sample_pass(&request.path, &request.path_var, &choice, ids, threads)
                })?);
            }
        }
        let backend = choice.backend_name();
        projections.push(project(
            &shape,
            &bands,
            name,
            backend,
            false,
            times,
            None,
            None,
            0.0,
            cores,
            &request.workers,
        ));
    }
    projections.sort_by(|a, b| a.cached_all.total_cmp(&b.cached_all));
    let sampled: usize = sample.bands.iter().map(Vec::len).sum();
    let notes = vec![format!(
        "git objects: {sampled} of the repository's {:.0} objects, chosen by size band, read through `git cat-file --batch` and each hashed with its header as a real pass hashes them; only the hashing is timed, git's own reading and inflating is not counted",
        shape.files
    )];
    Ok(LikeReport {
        shape,
        replica: bands,
        cores,
        storage: None,
        projections,
        dask_worker_efficiency: DASK_WORKER_EFFICIENCY,
        verified: Vec::new(),
        notes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The URL when `path` names an object-store prefix.
fn object_url(path: &Path) -> Result<Option<&str>, LikeError> {
    let Some(text) = path.to_str().filter(|t| t.contains("://")) else {
        return Ok(None);
    };
    #[cfg(feature = "objects")]
    {
        Ok(Some(text).filter(|t| objects::is_object_url(t)))
    }
    #[cfg(not(feature = "objects"))]
    {
        Err::<Option<&str>, _>(LikeError::Store(format!(
            "{text}: this build reads no object store (hashlab-bench's `objects` feature)"
        )))
    }
}

#[cfg(feature = "objects")]
fn like_objects(
    registry: &Registry,
    request: &LikeRequest,
    url: &str,
    algorithms: &[String],
    cores: usize,
    started: Instant,
) -> Result<LikeReport, LikeError> {
    let prefix = objects::list(url)?;
    let shape = objects::shape(&prefix);
    let bands = replica::plan_replica(&shape, cores);
    let cells = (algorithms.len() * bands.len()).max(1);
    let per_cell = (request.budget / cells as u32).max(Duration::from_millis(20));
    let (storage, mut projections) = objects::project_all(
        registry, request, &prefix, &shape, &bands, algorithms, per_cell,
    )?;
    projections.sort_by(|a, b| a.cached_all.total_cmp(&b.cached_all));
    let notes = vec![
        "object store: `sum URL` lists the prefix, then fetches each object in ranges with requests in flight while one thread hashes what arrives: the slower of fetching and hashing sets the pace, so more cores here change neither; times are as the store answers from here, its own caches as they are".into(),
        format!(
            "hash: the band's objects hashed in memory in ranges as they arrive, lines made; store: {} sampled objects fetched with no hash",
            storage.files
        ),
    ];
    Ok(LikeReport {
        shape,
        replica: bands,
        cores,
        storage: Some(storage),
        projections,
        dask_worker_efficiency: DASK_WORKER_EFFICIENCY,
        verified: Vec::new(),
        notes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Seconds `sum -r` spends walking PATH (one thread, before it hashes):
/// the walk itself, timed again now that the shape step has read the
/// directories, for a tree found exactly; for a sampled tree, the shape
/// step's time per file stat-ed times the files estimated.
fn walk_seconds(shape: &Shape, request: &LikeRequest) -> f64 {
    if shape.source != Source::Tree {
        return 0.0;
    }
    if !shape.exact {
        let stat_phase = shape.seconds.min(request.stat_budget.as_secs_f64());
        return stat_phase / shape.files_measured.max(1) as f64 * shape.files;
    }
    let options = hashlab_integrity::WalkOptions {
        recursive: true,
        ..hashlab_integrity::WalkOptions::default()
    };
    // The median of three: a walk of a cached tree is short and noisy.
    let mut times: Vec<f64> = (0..3)
        .map(|_| {
            let start = Instant::now();
            let found = hashlab_integrity::expand(std::slice::from_ref(&request.path), &options);
            let took = start.elapsed().as_secs_f64();
            drop(std::hint::black_box(found));
            took
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[1]
}

#[allow(clippy::too_many_arguments)]
fn project(
    shape: &Shape,
    bands: &[ReplicaBand],
    name: &str,
    backend: &str,
    tree_parallel: bool,
    times: BandTimes,
    overhead_all: Option<f64>,
    disk: Option<(f64, f64)>,
    walk: f64,
    cores: usize,
    workers: &[usize],
) -> Projection {
    let cached_one = BandTimes::projected(&times.one, bands) + walk;
    // The largest file is hashed by one thread while the others finish the
    // rest: a long tail cannot end sooner than that file alone.
    let largest_alone = match (shape.bands.last(), bands.last(), times.one.last()) {
        (Some(band), Some(replica), Some(t)) if band.count >= 1.0 && !tree_parallel => {
            t * replica.scale / band.count * shape.largest as f64 / band.mean().max(1.0)
        }
        _ => 0.0,
    };
    let hashing_all = BandTimes::projected(&times.all, bands).max(largest_alone);
    let ideal = projection::on_cores(shape, bands, &times.one, cores, 1.0, tree_parallel);
    // How much of a core each core gave here, on every core at once.
    let efficiency = if cores > 1 {
        (ideal / hashing_all.max(1e-12)).clamp(0.05, 1.0)
    } else {
        1.0
    };
    // `sum -r` walks the whole tree on one thread before it hashes.
    let cached_all = hashing_all + walk;
    let overhead = overhead_all.map_or(0.0, |o| o + walk);
    let mean_size = shape.bytes / shape.files.max(1.0);
    let uncached_all = disk.map(|(_, all)| walk + hashing_all.max(all));
    Projection {
        algorithm: name.to_string(),
        backend: backend.to_string(),
        walk,
        cached_one,
        cached_all,
        overhead_all: overhead,
        uncached_all,
        bound_cached: projection::cached_bound(cached_all, overhead, mean_size),
        bound_uncached: disk.map(|(_, all)| {
            if all > hashing_all {
                Bound::Disk
            } else {
                projection::cached_bound(cached_all, overhead, mean_size)
            }
        }),
        cores: CORE_COUNTS
            .iter()
            .map(|&n| AtCores {
                cores: n,
                seconds: projection::on_cores(
                    shape,
                    bands,
                    &times.one,
                    n,
                    efficiency,
                    tree_parallel,
                )
                .max(largest_alone)
                    + walk,
            })
            .collect(),
        dask: workers
            .iter()
            .map(|&w| AtCores {
                cores: w,
                seconds: projection::on_cores(shape, bands, &times.one, w, 1.0, false)
                    .max(largest_alone)
                    / DASK_WORKER_EFFICIENCY,
            })
            .collect(),
        times,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_larger_than_memory_is_said_to_be_read_from_the_storage() {
        let mut tally = shape::Tally::default();
        tally.add(3 << 30);
        let shape = tally.shape(Source::Tree, Path::new("t"), Instant::now());
        assert_eq!(larger_than_memory(&shape, Some(4 << 30)), None);
        assert_eq!(larger_than_memory(&shape, None), None);
        let note = larger_than_memory(&shape, Some(2 << 30)).unwrap();
        assert!(
            note.starts_with("PATH holds 3.0 GiB and this machine has 2.0 GiB"),
            "{note}"
        );
    }
}
