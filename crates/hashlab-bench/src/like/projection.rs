//! From a replica's times to the time for all of PATH: here, on other core
//! counts and on a Dask cluster, and what bounds each.

use serde::{Deserialize, Serialize};

use super::replica::{BandTimes, ReplicaBand};
use super::shape::Shape;
use super::storage::Storage;

/// Core counts every projection is given for (the blog post's table).
pub const CORE_COUNTS: [usize; 4] = [1, 4, 8, 64];

/// One Dask worker's speed against `hashlab sum -j1` on the same files:
/// docs/scale.md, "Two workers on two cores", ten rounds of
/// `scripts/bench-dask.py` on 2026-11-28 (one worker 97 % of `-j1`).
pub const DASK_WORKER_EFFICIENCY: f64 = 0.97;

/// What limits a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The hash itself.
    Cpu,
    /// Opening, stat-ing and reading each file: at least half the time with no hash at all.
    PerFile,
    /// Copying large files' bytes out of the page cache: at least half the
    /// time with no hash, in files of 64 KiB and more on average.
    Reading,
    /// The storage's read speed, uncached.
    Disk,
    /// An object store's requests and transfer, as measured from here.
    Store,
}

impl Bound {
    pub fn words(self) -> &'static str {
        match self {
            Bound::Cpu => "CPU",
            Bound::PerFile => "per-file overhead",
            Bound::Reading => "reading",
            Bound::Disk => "disk",
            Bound::Store => "object store",
        }
    }
}

/// Projected seconds on `cores` cores (or Dask workers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AtCores {
    pub cores: usize,
    pub seconds: f64,
}

/// One algorithm's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    pub algorithm: String,
    pub backend: String,
    /// Seconds walking PATH before hashing (a tree; 0 for git objects or a
    /// manifest), included in every time below except Dask's.
    #[serde(default)]
    pub walk: f64,
    /// Measured seconds per pass over each band's replica.
    pub times: BandTimes,
    /// The whole of PATH, files in the page cache: one thread, every core here.
    pub cached_one: f64,
    pub cached_all: f64,
    /// The same with no hash (reading and per-file work alone), every core.
    pub overhead_all: f64,
    /// Every core, files read from the storage at its measured speed
    /// (`None` without a storage measurement, as for a git repository).
    pub uncached_all: Option<f64>,
    /// What bounds the run here, cached and uncached.
    pub bound_cached: Bound,
    pub bound_uncached: Option<Bound>,
    /// Cached, on other core counts.
    pub cores: Vec<AtCores>,
    /// Cached, on Dask clusters of this many single-threaded workers.
    pub dask: Vec<AtCores>,
}

/// The parallelism a band can use on `n` cores: files run side by side,
/// and one file on its own spreads over the cores only with a
/// tree-parallel backend when it is the only file.
fn parallel(count: f64, n: usize, whole_files: f64, tree_parallel: bool) -> f64 {
    if whole_files <= 1.0 && tree_parallel {
        n as f64
    } else {
        count.max(1.0).min(n as f64)
    }
}

/// Seconds on `n` cores from the one-thread times, each core working at
/// `efficiency` of one alone (measured here on every core).
pub fn on_cores(
    shape: &Shape,
    bands: &[ReplicaBand],
    one: &[f64],
    n: usize,
    efficiency: f64,
    tree_parallel: bool,
) -> f64 {
    let mut total = 0.0;
    for ((band, replica), t) in shape.bands.iter().zip(bands).zip(one) {
        let p = parallel(band.count, n, shape.files, tree_parallel);
        // Never slower than one core: a core count a band cannot use
        // gives it nothing, and takes nothing either.
        total += t * replica.scale / (p * efficiency).max(1.0);
    }
    total
}

/// Seconds to read all of PATH from the storage, per band at one thread,
/// and on every core by the speed-up the sample showed.
pub fn storage_seconds(shape: &Shape, storage: &Storage) -> (f64, f64) {
    let mut one = 0.0;
    for band in &shape.bands {
        one += match storage.per_file.iter().find(|(low, _)| *low == band.low) {
            Some((_, per_file)) => per_file * band.count,
            None => band.bytes / storage.bytes_per_second.max(1.0),
        };
    }
    let speedup = (storage.bytes_per_second_all / storage.bytes_per_second.max(1e-9)).max(1e-9);
    (one, one / speedup)
}

/// Mean file size from which reading the bytes, not opening and stat-ing
/// each file, is most of what a pass with no hash costs: per-file work is
/// a few microseconds, the time to copy 16-64 KiB out of the page cache.
pub const READING_FROM_MEAN_SIZE: f64 = 64.0 * 1024.0;

/// The bound of a cached run: when reading with no hash takes at least
/// half the time, per-file work (small files) or reading the bytes (large
/// ones); else the hash.
pub fn cached_bound(total: f64, overhead: f64, mean_size: f64) -> Bound {
    if overhead < 0.5 * total {
        Bound::Cpu
    } else if mean_size >= READING_FROM_MEAN_SIZE {
        Bound::Reading
    } else {
        Bound::PerFile
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::like::shape::{Band, Source};

    fn shape(bands: &[(f64, f64)]) -> Shape {
        Shape {
            source: Source::Tree,
            path: "x".into(),
            files: bands.iter().map(|b| b.0).sum(),
            bytes: bands.iter().map(|b| b.1).sum(),
            exact: true,
            files_measured: 0,
            files_counted: 0,
            sampled: 0,
            bytes_error: 0.0,
            files_error: 0.0,
            bands: bands
                .iter()
                .map(|&(count, bytes)| Band {
                    low: 0,
                    high: None,
                    count,
                    bytes,
                    count_error: 0.0,
                    bytes_error: 0.0,
                })
                .collect(),
            largest: 0,
            unreadable: 0,
            seconds: 0.0,
        }
    }

    #[test]
    fn few_large_files_stop_scaling_at_their_count() {
        // 8 files of one band, one replica pass of 8 files took 8 s on one thread.
        let s = shape(&[(8.0, 8e9)]);
        let bands = [ReplicaBand {
            low: 0,
            files: 8,
            size: 1 << 20,
            scale: 1.0,
        }];
        assert_eq!(on_cores(&s, &bands, &[8.0], 1, 0.9, false), 8.0);
        assert!((on_cores(&s, &bands, &[8.0], 4, 1.0, false) - 2.0).abs() < 1e-9);
        assert!((on_cores(&s, &bands, &[8.0], 64, 1.0, false) - 1.0).abs() < 1e-9);
        let one = shape(&[(1.0, 1e9)]);
        assert!((on_cores(&one, &bands, &[8.0], 8, 1.0, true) - 1.0).abs() < 1e-9);
        assert_eq!(on_cores(&one, &bands, &[8.0], 8, 1.0, false), 8.0);
    }

    #[test]
    fn bounds_are_named_by_the_larger_cost() {
        assert_eq!(cached_bound(1.0, 0.6, 10e3), Bound::PerFile);
        assert_eq!(cached_bound(1.0, 0.6, 1e9), Bound::Reading);
        assert_eq!(cached_bound(1.0, 0.2, 10e3), Bound::Cpu);
    }
}
