//! The storage's own read speed, from a sample of the real files read
//! through `sum`'s reading path with no hash, their cached pages dropped
//! first where the files are this user's (someone else's cache is left
//! alone, and the read is then reported as possibly cached).

use std::path::PathBuf;
use std::time::Instant;

use hashlab_integrity::pagecache::{drop_cached_pages, resident_fraction_sampled};
use hashlab_integrity::{Input, SumPlan};
use serde::{Deserialize, Serialize};

use super::replica::{one_pass, ReplicaError, Work};
use super::shape::band_of;

/// At most this many bytes of real files are read for the storage's speed.
pub const MAX_SAMPLE_BYTES: u64 = 256 << 20;

/// What reading the sample took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Storage {
    pub files: usize,
    pub bytes: u64,
    /// Every sampled file's pages were dropped before each read.
    pub uncached: bool,
    /// Share of the sample's bytes in the page cache before anything was read.
    pub resident_before: f64,
    /// One thread, the files one after another.
    pub bytes_per_second: f64,
    pub files_per_second: f64,
    /// Every core, as `sum -r` reads.
    pub bytes_per_second_all: f64,
    pub files_per_second_all: f64,
    /// (band's lower edge, mean seconds to read one of its files at one
    /// thread) for the bands the sample has files of, smallest first.
    pub per_file: Vec<(u64, f64)>,
}

/// Drops the pages of the files this user owns; true if all were dropped.
fn drop_pages(files: &[(PathBuf, u64)]) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid(2) reads the process's own id and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mut all = true;
    for (path, _) in files {
        let dropped = std::fs::File::open(path).ok().is_some_and(|f| {
            f.metadata().is_ok_and(|m| m.uid() == me) && drop_cached_pages(&f).is_ok()
        });
        all &= dropped;
    }
    all
}

fn resident(files: &[(PathBuf, u64)]) -> f64 {
    let (mut cached, mut total) = (0.0, 0.0);
    for (path, size) in files {
        if let Some(share) = std::fs::File::open(path)
            .ok()
            .and_then(|f| resident_fraction_sampled(&f, 16).ok())
        {
            cached += share * *size as f64;
            total += *size as f64;
        }
    }
    if total > 0.0 {
        cached / total
    } else {
        1.0
    }
}

/// Keeps the sample under [`MAX_SAMPLE_BYTES`], dropping the largest files
/// first, but always the smallest file: a tree of a few huge files is
/// still read once.
pub fn bounded(mut files: Vec<(PathBuf, u64)>) -> Vec<(PathBuf, u64)> {
    files.sort_by_key(|(_, size)| *size);
    let mut total = 0u64;
    let mut first = true;
    files.retain(|(_, size)| {
        total = total.saturating_add(*size);
        std::mem::take(&mut first) || total <= MAX_SAMPLE_BYTES
    });
    files
}

/// Reads the sample: each band's files in one pass on one thread, then all of them on
/// `all_threads` (the plan's job count).
pub fn measure(
    files: &[(PathBuf, u64)],
    one: &SumPlan,
    all: &SumPlan,
) -> Result<Option<Storage>, ReplicaError> {
    if files.is_empty() {
        return Ok(None);
    }
    let resident_before = resident(files);
    let inputs: Vec<Input> = files.iter().map(|(p, _)| Input::File(p.clone())).collect();
    let uncached = drop_pages(files);
    // Each band's files in one pass, as a run meets them: a pass per file
    // would count the pass's own setup as the storage's per-file cost.
    let mut per_band: Vec<(u64, f64, usize)> = Vec::new();
    let start = Instant::now();
    let mut at = 0;
    while at < files.len() {
        let band = band_of(files[at].1);
        let end = at
            + files[at..]
                .iter()
                .take_while(|(_, s)| band_of(*s) == band)
                .count();
        let took = one_pass(&inputs[at..end], Work::Null(one), end - at == 1)?;
        per_band.push((super::shape::band_low(band), took.as_secs_f64(), end - at));
        at = end;
    }
    let one_seconds = start.elapsed().as_secs_f64().max(1e-9);
    drop_pages(files);
    let all_seconds = one_pass(&inputs, Work::Null(all), true)?
        .as_secs_f64()
        .max(1e-9);
    let bytes: u64 = files.iter().map(|(_, s)| s).sum();
    Ok(Some(Storage {
        files: files.len(),
        bytes,
        uncached,
        resident_before,
        bytes_per_second: bytes as f64 / one_seconds,
        files_per_second: files.len() as f64 / one_seconds,
        bytes_per_second_all: bytes as f64 / all_seconds,
        files_per_second_all: files.len() as f64 / all_seconds,
        per_file: per_band
            .into_iter()
            .map(|(band, seconds, n)| (band, seconds / n as f64))
            .collect(),
    }))
}
