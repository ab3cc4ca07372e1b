//! An object-store prefix (`s3://`, `gs://`, `az://`, `file://`) as
//! `sum URL` reads it: listed, then every object fetched in ranges by
//! requests in flight while the calling thread hashes what arrives. The
//! shape is the listing (exact: a store must be listed whole to be hashed
//! whole); the store's speed comes from a sample of the real objects
//! fetched through the same reader with no hash; the hash's from buffers
//! of each band's size hashed as fetched ranges are.

use std::path::Path;
use std::time::{Duration, Instant};

use hashlab::{Hasher, Registry};
use hashlab_integrity::{gnu_line, Fanout, SumPlan, SumRequest};
use hashlab_objects::{ObjectDigests, ObjectError, ObjectInfo, ObjectReader, Settings};

use super::projection::{self, AtCores, Bound, Projection, CORE_COUNTS, DASK_WORKER_EFFICIENCY};
use super::replica::{self, BandTimes, ReplicaBand, Timer};
use super::request::{LikeError, LikeRequest};
use super::shape::{band_low, band_of, BandSample, ByteBudget, Shape, Source, Tally};
use super::storage::{Storage, MAX_SAMPLE_BYTES};
use crate::stats::SplitMix64;
use crate::workbench::NullHasher;

pub use hashlab_objects::is_object_url;

/// Sampled objects per band for the store's speed: enough that the
/// requests in flight run as they do over a whole listing (a store answers
/// small objects in about a millisecond each, so 128 take a fraction of a
/// second), bounded in bytes by [`MAX_SAMPLE_BYTES`].
const SAMPLE_PER_BAND: usize = 128;

/// A band's sample of at least this many objects is timed by its slope.
const MIN_FOR_SLOPE: usize = 8;

/// A listed prefix and the reader that listed it.
pub struct Prefix {
    pub url: String,
    pub reader: ObjectReader,
    pub objects: Vec<ObjectInfo>,
    /// Seconds the listing took: `sum URL` lists before it hashes.
    pub listing: f64,
}

fn store_error(e: impl std::fmt::Display) -> LikeError {
    LikeError::Store(e.to_string())
}

/// A reader with the store's configuration from the environment, as `sum`
/// makes it.
fn reader_for(url: &str) -> Result<ObjectReader, LikeError> {
    ObjectReader::new(Settings::default())
        .map_err(|e| LikeError::Store(format!("{url}: object-store client: {e}")))
}

/// Fetches `objects` in ranges with requests in flight, as `sum URL` does,
/// into `make`'s hashers; each object's digests, or why it failed, in key
/// order.
fn fetch_each(
    reader: &ObjectReader,
    objects: &[ObjectInfo],
    make: &dyn Fn() -> Fanout,
    each: &mut dyn FnMut(usize, Result<ObjectDigests, ObjectError>),
) {
    reader
        .hash(objects, make, false, &mut |i, result| {
            each(i, result);
            Ok::<(), ()>(())
        })
        .ok();
}

/// Lists `url` as `sum` does.
pub fn list(url: &str) -> Result<Prefix, LikeError> {
    let reader = reader_for(url)?;
    let start = Instant::now();
    let objects = reader.list(url).map_err(store_error)?;
    let listing = start.elapsed().as_secs_f64();
    if objects.is_empty() {
        return Err(LikeError::Store(format!("{url}: no object under it")));
    }
    Ok(Prefix {
        url: url.to_string(),
        reader,
        objects,
        listing,
    })
}

/// The listing's sizes, exact.
pub fn shape(prefix: &Prefix) -> Shape {
    let mut tally = Tally::default();
    for object in &prefix.objects {
        tally.add(object.size);
    }
    let mut shape = tally.shape(Source::Objects, Path::new(&prefix.url), Instant::now());
    shape.seconds = prefix.listing;
    shape
}

/// Up to [`SAMPLE_PER_BAND`] objects of each band, uniformly chosen, the
/// largest left out first past [`MAX_SAMPLE_BYTES`] (the smallest always kept).
pub fn sample(objects: &[ObjectInfo], seed: u64) -> Vec<Vec<ObjectInfo>> {
    let mut rng = SplitMix64(seed);
    let mut kept = BandSample::new(SAMPLE_PER_BAND);
    for object in objects {
        kept.offer(object.size, || object, &mut rng);
    }
    let mut budget = ByteBudget::new(MAX_SAMPLE_BYTES);
    kept.bands()
        .into_iter()
        .map(|band| {
            band.into_iter()
                .filter(|(_, size)| budget.admits(*size))
                .map(|(object, _)| object.clone())
                .collect::<Vec<_>>()
        })
        .filter(|group| !group.is_empty())
        .collect()
}

/// Fetches `objects` as `sum` does (ranges in flight, in key order) into
/// `make`'s hashers; the seconds it took.
fn fetch(
    prefix: &Prefix,
    objects: &[ObjectInfo],
    make: &dyn Fn() -> Fanout,
) -> Result<f64, LikeError> {
    let start = Instant::now();
    let mut failure = None;
    fetch_each(&prefix.reader, objects, make, &mut |_, result| {
        if let Err(e) = result {
            failure.get_or_insert(e);
        }
    });
    match failure {
        Some(e) => Err(store_error(e)),
        None => Ok(start.elapsed().as_secs_f64()),
    }
}

/// The store's speed from the sampled objects, fetched with no hash.
pub fn measure(prefix: &Prefix, sample: &[Vec<ObjectInfo>]) -> Result<Storage, LikeError> {
    fetch_rate(prefix, sample, &|| {
        Fanout::new(vec![Box::new(NullHasher::default())])
    })
}

/// The sampled objects fetched into `make`'s hashers, each band's together
/// (the requests in flight span its objects, as in a run): per band, the
/// seconds an object took.
fn fetch_rate(
    prefix: &Prefix,
    sample: &[Vec<ObjectInfo>],
    make: &dyn Fn() -> Fanout,
) -> Result<Storage, LikeError> {
    let (mut files, mut bytes, mut seconds) = (0usize, 0u64, 0.0);
    let mut per_file = Vec::new();
    for group in sample {
        // Once untimed: the first request of a connection pays for opening it.
        fetch(prefix, &group[..1], make)?;
        let took = fetch(prefix, group, make)?;
        files += group.len();
        bytes += group.iter().map(|o| o.size).sum::<u64>();
        seconds += took;
        let each = if group.len() >= MIN_FOR_SLOPE {
            // A fetch has a cost of its own (its requests set up, the
            // pipeline filled and drained) that a run over a whole listing
            // pays once: an object's time is the slope from one object to
            // the group, not the group's mean, which for 128 small objects
            // came out twice a real run's.
            let one = fetch(prefix, &group[..1], make)?;
            (took - one).max(took / 4.0) / (group.len() - 1) as f64
        } else {
            took / group.len() as f64
        };
        per_file.push((band_low(band_of(group[0].size)), each));
    }
    let seconds = seconds.max(1e-9);
    Ok(Storage {
        files,
        bytes,
        // A store's caches are its own: nothing here can drop them.
        uncached: false,
        resident_before: 0.0,
        bytes_per_second: bytes as f64 / seconds,
        files_per_second: files as f64 / seconds,
        // `sum URL` fetches with the same requests in flight whatever the cores.
        bytes_per_second_all: bytes as f64 / seconds,
        files_per_second_all: files as f64 / seconds,
        per_file,
    })
}

/// One pass of hashing a band's objects as their fetched ranges arrive:
/// the length announced, the ranges fed, the digest split and its line
/// made. Each object comes from its own place in `spread`.
fn hash_pass(plan: &SumPlan, band: &ReplicaBand, spread: &[u8], name: &[u8]) -> Duration {
    let size = band.size as usize;
    let range = Settings::DEFAULT_RANGE_SIZE as usize;
    let mut fanout = plan.fanout_for_ranges();
    let mut printed = 0usize;
    let start = Instant::now();
    for i in 0..band.files {
        let body = &spread[i * size..(i + 1) * size];
        fanout.announce_length(size as u64);
        for chunk in body.chunks(range.max(1)) {
            fanout.update(chunk);
        }
        let joined = fanout.finalize_reset();
        for digest in fanout.split(&joined) {
            printed += gnu_line(&digest.to_hex(), name).len();
        }
    }
    let took = start.elapsed();
    std::hint::black_box(printed);
    took
}

/// Seconds per pass over each band's replica objects, hashed in memory.
fn hash_times(
    timer: &mut Timer,
    plan: &SumPlan,
    bands: &[ReplicaBand],
    budget: Duration,
    spread: &[u8],
    name: &[u8],
) -> Vec<f64> {
    bands
        .iter()
        .map(|band| {
            let pass = || Ok::<_, std::convert::Infallible>(hash_pass(plan, band, spread, name));
            match timer.median(budget, pass) {
                Ok(seconds) => seconds,
                Err(never) => match never {},
            }
        })
        .collect()
}

/// Bytes for the largest band's objects, each from its own place.
fn spread_for(bands: &[ReplicaBand], seed: u64) -> Vec<u8> {
    let largest = bands
        .iter()
        .map(|b| b.size as usize * b.files)
        .max()
        .unwrap_or(0);
    let mut spread = vec![0u8; largest];
    SplitMix64(seed).fill(&mut spread);
    spread
}

fn plan_for(registry: &Registry, algorithm: &str) -> Result<SumPlan, LikeError> {
    let request = SumRequest {
        algorithms: vec![algorithm.to_string()],
        ..SumRequest::default()
    };
    SumPlan::new(registry, &request, &[]).map_err(|error| {
        LikeError::Replica(replica::ReplicaError::Plan {
            algorithm: algorithm.to_string(),
            error,
        })
    })
}

/// Projections for every candidate over a listed prefix.
pub fn project_all(
    registry: &Registry,
    request: &LikeRequest,
    prefix: &Prefix,
    shape: &Shape,
    bands: &[ReplicaBand],
    algorithms: &[String],
    per_cell: Duration,
) -> Result<(Storage, Vec<Projection>), LikeError> {
    let sample = sample(&prefix.objects, request.seed);
    let storage = measure(prefix, &sample)?;
    let (fetch_seconds, _) = projection::storage_seconds(shape, &storage);
    let name = prefix.objects[0].name.as_bytes();
    let spread = spread_for(bands, request.seed);
    let mut timer = Timer::new();
    let mut out = Vec::new();
    for algorithm in algorithms {
        let plan = plan_for(registry, algorithm)?;
        let one = hash_times(&mut timer, &plan, bands, per_cell, &spread, name);
        let hashing = BandTimes::projected(&one, bands);
        // The sample fetched again, hashed as it arrives: what a run costs
        // when fetching and hashing share the machine (a local store's
        // serving takes cores the hash wants) as well as when they do not.
        let fetched = fetch_rate(prefix, &sample, &|| plan.fanout_for_ranges())?;
        let (both, _) = projection::storage_seconds(shape, &fetched);
        let backend = plan.columns[0].choice.backend_name().to_string();
        out.push(project(
            prefix.listing,
            Pace {
                fetching: fetch_seconds,
                hashing,
                both,
            },
            algorithm,
            &backend,
            BandTimes {
                all: one.clone(),
                one,
            },
            &request.workers,
        ));
    }
    Ok((storage, out))
}

/// Seconds for the whole prefix after its listing: fetched with no hash,
/// hashed in memory with no fetch, and fetched and hashed as `sum URL` does.
struct Pace {
    fetching: f64,
    hashing: f64,
    both: f64,
}

/// One thread hashes while the requests fetch, so the pace is set by the
/// slower of the two (the bound named), or by both together when they
/// compete for the cores; measured, it is `both`. More cores change none
/// of it; a Dask cluster shares it out.
fn project(
    listing: f64,
    pace: Pace,
    algorithm: &str,
    backend: &str,
    times: BandTimes,
    workers: &[usize],
) -> Projection {
    let after_listing = pace.both.max(pace.fetching).max(pace.hashing);
    let total = listing + after_listing;
    let bound = if pace.fetching >= pace.hashing {
        Bound::Store
    } else {
        Bound::Cpu
    };
    Projection {
        algorithm: algorithm.to_string(),
        backend: backend.to_string(),
        walk: listing,
        times,
        cached_one: total,
        cached_all: total,
        overhead_all: listing + pace.fetching,
        uncached_all: None,
        bound_cached: bound,
        bound_uncached: None,
        cores: CORE_COUNTS
            .iter()
            .map(|&n| AtCores {
                cores: n,
                seconds: total,
            })
            .collect(),
        dask: workers
            .iter()
            .map(|&w| AtCores {
                cores: w,
                seconds: listing + after_listing / w as f64 / DASK_WORKER_EFFICIENCY,
            })
            .collect(),
    }
}

/// What a real `sum -a ALGORITHM URL` took: the listing, then every object
/// fetched, hashed and its line made; (seconds, objects, bytes, failed).
pub fn run(
    registry: &Registry,
    url: &str,
    algorithm: &str,
) -> Result<(f64, u64, u64, u64), LikeError> {
    let plan = plan_for(registry, algorithm)?;
    let reader = reader_for(url)?;
    let make = || plan.fanout_for_ranges();
    let start = Instant::now();
    let objects = reader.list(url).map_err(store_error)?;
    let (mut files, mut bytes, mut failed, mut printed) = (0u64, 0u64, 0u64, 0usize);
    fetch_each(&reader, &objects, &make, &mut |i, result| match result {
        Ok(d) => {
            files += 1;
            bytes += d.digests.bytes;
            for digest in &d.digests.digests {
                printed += gnu_line(&digest.to_hex(), objects[i].name.as_bytes()).len();
            }
        }
        Err(_) => failed += 1,
    });
    std::hint::black_box(printed);
    Ok((start.elapsed().as_secs_f64(), files, bytes, failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times() -> BandTimes {
        BandTimes {
            one: vec![1.0],
            all: vec![1.0],
        }
    }

    #[test]
    fn the_pace_is_fetching_and_hashing_together_at_least_the_slower_of_them() {
        let pace = Pace {
            fetching: 2.0,
            hashing: 1.0,
            both: 2.5,
        };
        let p = project(0.5, pace, "sha256", "x", times(), &[4]);
        assert_eq!(p.cached_all, 3.0);
        assert_eq!(p.cached_one, 3.0);
        assert_eq!(p.bound_cached, Bound::Store);
        assert_eq!(p.overhead_all, 2.5);
        assert!(
            p.cores.iter().all(|c| c.seconds == 3.0),
            "cores change nothing"
        );
        assert_eq!(p.dask[0].seconds, 0.5 + 2.5 / 4.0 / DASK_WORKER_EFFICIENCY);

        // A sample fetched faster with the hash than without is noise: the
        // slower part still bounds the run.
        let pace = Pace {
            fetching: 1.0,
            hashing: 2.0,
            both: 1.5,
        };
        let p = project(0.0, pace, "sha256", "x", times(), &[]);
        assert_eq!(p.cached_all, 2.0);
        assert_eq!(p.bound_cached, Bound::Cpu);
    }
}
