//! What PATH holds, as a size distribution: count and bytes per size band.
//!
//! A tree is walked with one stat per file while that takes under
//! `STAT_BUDGET`; past it the walk goes on by directory entries alone (the
//! file type comes with the entry, no stat) and keeps a uniform sample of the
//! files not yet measured, whose sizes stand for the rest. Memory stays
//! bounded by the sample, the directory stack and one (device, inode) pair
//! per directory (the loop check of `sum -r`'s walk).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::stats::SplitMix64;

/// Band `0` holds sizes below 1 KiB; band `k` sizes in [1 KiB·4^(k-1), 1 KiB·4^k).
pub const BAND_COUNT: usize = 16;

/// Stat every file for this long before sampling instead.
pub const STAT_BUDGET: Duration = Duration::from_secs(2);

/// Files sampled (and stat-ed) among those the exact phase did not reach.
pub const SAMPLE_SIZE: usize = 4000;

/// Real files kept per band for the storage's read speed.
pub const READ_SAMPLE_PER_BAND: usize = 24;

/// The lower edge of band `k`.
pub fn band_low(k: usize) -> u64 {
    if k == 0 {
        0
    } else {
        1024u64 << (2 * (k - 1))
    }
}

/// The band a size falls in.
pub fn band_of(size: u64) -> usize {
    if size < 1024 {
        return 0;
    }
    let above = 63 - (size / 1024).leading_zeros() as usize; // log2(size / 1 KiB)
    (above / 2 + 1).min(BAND_COUNT - 1)
}

/// Where the sizes came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A directory tree, walked as `sum -r` walks it.
    Tree,
    /// A manifest that records sizes (hashdeep, `sum --json`).
    Manifest,
    /// A git repository's objects, each counted with git's object header.
    Git,
    /// An object-store prefix, listed.
    Objects,
}

/// One size band of a shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// Smallest size in the band, bytes.
    pub low: u64,
    /// First size past the band; `None` for the last, open band.
    pub high: Option<u64>,
    /// Files (or objects) in the band; estimated when the shape is sampled.
    pub count: f64,
    pub bytes: f64,
    /// Half-width of the 95 % interval of `count` and `bytes`; 0 when exact.
    pub count_error: f64,
    pub bytes_error: f64,
}

impl Band {
    /// Mean size in the band, bytes.
    pub fn mean(&self) -> f64 {
        if self.count > 0.0 {
            self.bytes / self.count
        } else {
            0.0
        }
    }
}

/// The size distribution of what a path holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    pub source: Source,
    pub path: String,
    /// Files or objects, estimated when sampled.
    pub files: f64,
    pub bytes: f64,
    /// Every size was read; otherwise the errors below say how far off the estimate may be.
    pub exact: bool,
    /// Files whose size was read one by one (all when exact).
    pub files_measured: u64,
    /// Files counted from directory entries only, their sizes estimated from `sampled` of them.
    pub files_counted: u64,
    pub sampled: u64,
    /// 95 % half-widths of the total bytes and files.
    pub bytes_error: f64,
    pub files_error: f64,
    /// Only the bands holding something, smallest first.
    pub bands: Vec<Band>,
    pub largest: u64,
    /// Entries that could not be read (permissions, vanished): left out.
    pub unreadable: u64,
    /// Seconds the shape took to find.
    pub seconds: f64,
}

/// Why a shape could not be found.
#[derive(Debug)]
pub enum ShapeError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Nothing to hash: no file, no object, or a manifest without sizes.
    Empty {
        path: PathBuf,
        why: String,
    },
    Git {
        path: PathBuf,
        why: String,
    },
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShapeError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ShapeError::Empty { path, why } => write!(f, "{}: {why}", path.display()),
            ShapeError::Git { path, why } => write!(f, "{}: git: {why}", path.display()),
        }
    }
}

impl std::error::Error for ShapeError {}

/// Exact counts per band, added to one size at a time.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    count: [u64; BAND_COUNT],
    bytes: [u128; BAND_COUNT],
    largest: u64,
}

impl Tally {
    pub fn add(&mut self, size: u64) {
        let b = band_of(size);
        self.count[b] += 1;
        self.bytes[b] += u128::from(size);
        self.largest = self.largest.max(size);
    }
    pub fn files(&self) -> u64 {
        self.count.iter().sum()
    }

    /// The exact shape of what was added.
    pub fn shape(&self, source: Source, path: &Path, started: Instant) -> Shape {
        combine(source, path, self, 0, &[], started)
    }
}

/// An exact tally plus `counted` files known by their entries only, of which
/// `sample` holds the sizes of a uniform sample.
fn combine(
    source: Source,
    path: &Path,
    exact: &Tally,
    counted: u64,
    sample: &[u64],
    started: Instant,
) -> Shape {
    const Z95: f64 = 1.96;
    let k = sample.len() as f64;
    let n = counted as f64;
    let mut bands = Vec::new();
    let mut total_bytes_var = 0.0;
    let mut largest = exact.largest;
    let mut per_band: Vec<Vec<u64>> = vec![Vec::new(); BAND_COUNT];
    for &s in sample {
        per_band[band_of(s)].push(s);
        largest = largest.max(s);
    }
    if k > 0.0 {
        let mean = sample.iter().map(|&s| s as f64).sum::<f64>() / k;
        let var = sample
            .iter()
            .map(|&s| (s as f64 - mean).powi(2))
            .sum::<f64>()
            / (k - 1.0).max(1.0);
        total_bytes_var = n * n * var / k;
    }
    for (b, in_band) in per_band.iter().enumerate() {
        let mut count = exact.count[b] as f64;
        let mut bytes = exact.bytes[b] as f64;
        let (mut count_error, mut bytes_error) = (0.0, 0.0);
        if k > 0.0 {
            let p = in_band.len() as f64 / k;
            count += n * p;
            count_error = Z95 * n * (p * (1.0 - p) / k).sqrt();
            // Each sampled file contributes its size inside the band, 0 outside.
            let sum: f64 = in_band.iter().map(|&s| s as f64).sum();
            let mean = sum / k;
            let var = (in_band.iter().map(|&s| (s as f64).powi(2)).sum::<f64>() - k * mean * mean)
                .max(0.0)
                / (k - 1.0).max(1.0);
            bytes += n * mean;
            bytes_error = Z95 * n * (var / k).sqrt();
        }
        if count > 0.0 {
            bands.push(Band {
                low: band_low(b),
                high: (b + 1 < BAND_COUNT).then(|| band_low(b + 1)),
                count,
                bytes,
                count_error,
                bytes_error,
            });
        }
    }
    Shape {
        source,
        path: path.display().to_string(),
        files: exact.files() as f64 + n,
        bytes: bands.iter().map(|b| b.bytes).sum(),
        exact: counted == 0,
        files_measured: exact.files(),
        files_counted: counted,
        sampled: sample.len() as u64,
        bytes_error: Z95 * total_bytes_var.sqrt(),
        files_error: 0.0,
        bands,
        largest,
        unreadable: 0,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Up to `per_band` items of each size band, each item offered to a band
/// kept with equal chance whatever order they come in (reservoir sampling):
/// the files read for the storage's speed, a repository's objects, a
/// prefix's objects.
#[derive(Debug)]
pub struct BandSample<T> {
    per_band: usize,
    /// Per band: the items kept with their sizes, and how many were offered.
    bands: Vec<(Vec<(T, u64)>, u64)>,
}

impl<T> BandSample<T> {
    pub fn new(per_band: usize) -> BandSample<T> {
        BandSample {
            per_band,
            bands: (0..BAND_COUNT).map(|_| (Vec::new(), 0)).collect(),
        }
    }

    /// Offers an item of `size` bytes; `item` is made only when it is kept.
    pub fn offer(&mut self, size: u64, item: impl FnOnce() -> T, rng: &mut SplitMix64) {
        let (kept, seen) = &mut self.bands[band_of(size)];
        *seen += 1;
        if kept.len() < self.per_band {
            kept.push((item(), size));
        } else {
            let slot = rng.below((*seen).min(usize::MAX as u64) as usize);
            if slot < self.per_band {
                kept[slot] = (item(), size);
            }
        }
    }

    /// The kept items of each band offered any, smallest band first.
    pub fn bands(self) -> Vec<Vec<(T, u64)>> {
        self.bands
            .into_iter()
            .map(|(kept, _)| kept)
            .filter(|kept| !kept.is_empty())
            .collect()
    }
}

/// Bytes a sample may hold: the first item is always admitted, then items
/// while their running total stays within the limit (once over, no more).
#[derive(Debug)]
pub struct ByteBudget {
    limit: u64,
    total: u64,
    admitted: bool,
}

impl ByteBudget {
    pub fn new(limit: u64) -> ByteBudget {
        ByteBudget {
            limit,
            total: 0,
            admitted: false,
        }
    }

    pub fn admits(&mut self, size: u64) -> bool {
        self.total = self.total.saturating_add(size);
        let first = !self.admitted;
        self.admitted = true;
        first || self.total <= self.limit
    }
}

/// The shape of a directory tree (or one file), and a sample of its files
/// to read for the storage's speed. Symbolic links met inside are skipped,
/// as `sum -r` skips them; a directory met again inside itself is not entered.
pub fn tree_shape(
    root: &Path,
    seed: u64,
    stat_budget: Duration,
) -> Result<(Shape, Vec<(PathBuf, u64)>), ShapeError> {
    use std::os::unix::fs::MetadataExt;
    let started = Instant::now();
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| ShapeError::Io { path, error }
    };
    let meta = std::fs::metadata(root).map_err(io(root))?;
    let mut rng = SplitMix64(seed);
    let mut exact = Tally::default();
    let mut reads = BandSample::new(READ_SAMPLE_PER_BAND);
    if !meta.is_dir() {
        exact.add(meta.len());
        reads.offer(meta.len(), || root.to_path_buf(), &mut rng);
        return Ok((exact.shape(Source::Tree, root, started), read_files(reads)));
    }
    let mut visited: HashSet<(u64, u64)> = HashSet::new();
    visited.insert((meta.dev(), meta.ino()));
    let mut stack = vec![root.to_path_buf()];
    let mut unreadable = 0u64;
    // Past the budget: files known by their entries, and a reservoir of them.
    let mut counted = 0u64;
    let mut reservoir: Vec<PathBuf> = Vec::new();
    let mut sampling = false;
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if dir == root => return Err(io(root)(e)),
            Err(_) => {
                unreadable += 1;
                continue;
            }
        };
        for entry in entries {
            let Ok(entry) = entry else {
                unreadable += 1;
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                unreadable += 1;
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                match entry.metadata() {
                    Ok(m) if visited.insert((m.dev(), m.ino())) => stack.push(path),
                    Ok(_) => {}
                    Err(_) => unreadable += 1,
                }
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            if !sampling && started.elapsed() > stat_budget {
                sampling = true;
            }
            if sampling {
                counted += 1;
                if reservoir.len() < SAMPLE_SIZE {
                    reservoir.push(path);
                } else {
                    let j = rng.below(counted.min(usize::MAX as u64) as usize);
                    if j < SAMPLE_SIZE {
                        reservoir[j] = path;
                    }
                }
                continue;
            }
            match entry.metadata() {
                Ok(m) => {
                    exact.add(m.len());
                    reads.offer(m.len(), || path.clone(), &mut rng);
                }
                Err(_) => unreadable += 1,
            }
        }
    }
    let mut sizes = Vec::with_capacity(reservoir.len());
    for path in reservoir {
        match std::fs::symlink_metadata(&path) {
            Ok(m) => {
                reads.offer(m.len(), || path.clone(), &mut rng);
                sizes.push(m.len());
            }
            // Gone since it was listed: the sample is a little smaller.
            Err(_) => unreadable += 1,
        }
    }
    if counted > 0 && sizes.is_empty() {
        return Err(ShapeError::Empty {
            path: root.to_path_buf(),
            why: "none of the sampled files could be read".into(),
        });
    }
    let mut shape = combine(Source::Tree, root, &exact, counted, &sizes, started);
    shape.unreadable = unreadable;
    if shape.files == 0.0 {
        return Err(ShapeError::Empty {
            path: root.to_path_buf(),
            why: "holds no regular file".into(),
        });
    }
    Ok((shape, read_files(reads)))
}

/// The files sampled for the storage's read speed, smallest band first.
pub fn read_files(sample: BandSample<PathBuf>) -> Vec<(PathBuf, u64)> {
    sample.bands().into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_band_sample_keeps_every_item_with_equal_chance() {
        // 40 items of one band, 10 kept: over 2,000 runs each item should be
        // kept about 500 times (binomial sd ~19); the first and the last
        // offered are where a wrong reservoir errs.
        let mut kept = [0u32; 40];
        let mut rng = SplitMix64(11);
        for _ in 0..2000 {
            let mut sample = BandSample::new(10);
            for i in 0..40usize {
                sample.offer(2048, || i, &mut rng);
            }
            let bands = sample.bands();
            assert_eq!(bands.len(), 1);
            assert_eq!(bands[0].len(), 10);
            for (i, size) in &bands[0] {
                assert_eq!(*size, 2048);
                kept[*i] += 1;
            }
        }
        for (i, n) in kept.iter().enumerate() {
            assert!((400..600).contains(n), "item {i} kept {n} times of 2000");
        }
    }

    #[test]
    fn a_band_sample_gives_the_bands_offered_smallest_first() {
        let mut rng = SplitMix64(1);
        let mut sample = BandSample::new(2);
        for size in [1u64 << 30, 10, 5000, 20, 30, 1 << 30] {
            sample.offer(size, || size, &mut rng);
        }
        let bands: Vec<Vec<u64>> = sample
            .bands()
            .into_iter()
            .map(|b| b.into_iter().map(|(s, _)| s).collect())
            .collect();
        assert_eq!(bands.len(), 3);
        assert_eq!(bands[1], vec![5000]);
        assert_eq!(bands[2], vec![1 << 30, 1 << 30]);
        assert_eq!(bands[0].len(), 2);
        assert!(bands[0].iter().all(|s| [10, 20, 30].contains(s)));
    }

    #[test]
    fn a_byte_budget_admits_the_first_item_then_what_fits() {
        let mut budget = ByteBudget::new(100);
        assert!(budget.admits(500), "the first is kept whatever its size");
        assert!(!budget.admits(1), "once over, nothing more");
        let mut budget = ByteBudget::new(100);
        assert!(budget.admits(60));
        assert!(budget.admits(40));
        assert!(!budget.admits(1));
    }

    #[test]
    fn bands_have_their_edges() {
        assert_eq!(band_of(0), 0);
        assert_eq!(band_of(1023), 0);
        assert_eq!(band_of(1024), 1);
        assert_eq!(band_of(4095), 1);
        assert_eq!(band_of(4096), 2);
        assert_eq!(band_of(16 * 1024 - 1), 2);
        assert_eq!(band_of(16 * 1024), 3);
        assert_eq!(band_of(1 << 30), 11);
        assert_eq!(band_of(u64::MAX), BAND_COUNT - 1);
        for k in 0..BAND_COUNT {
            assert_eq!(band_of(band_low(k)), k);
            if k > 0 {
                assert_eq!(band_of(band_low(k) - 1), k - 1);
            }
        }
    }

    #[test]
    fn a_sample_estimates_the_rest_within_its_stated_error() {
        // 10,000 counted files, half of 1 KiB and half of 100 KiB, sampled 4,000 times.
        let mut rng = SplitMix64(7);
        let sample: Vec<u64> = (0..4000)
            .map(|_| if rng.below(2) == 0 { 1024 } else { 102_400 })
            .collect();
        let shape = combine(
            Source::Tree,
            Path::new("x"),
            &Tally::default(),
            10_000,
            &sample,
            Instant::now(),
        );
        let truth = 5000.0 * 1024.0 + 5000.0 * 102_400.0;
        assert!(!shape.exact);
        assert!(shape.bytes_error > 0.0);
        assert!((shape.bytes - truth).abs() < shape.bytes_error, "{shape:?}");
        assert_eq!(shape.bands.len(), 2);
        assert!((shape.bands[0].count - 5000.0).abs() < shape.bands[0].count_error);
    }
}
