//! The check of a projection: the real `sum -r` over PATH (every object of
//! a git repository hashed as git names it, or `sum URL` over an object-store
//! prefix), timed beside what was projected.

use std::time::Instant;

use hashlab::Registry;
use hashlab_integrity::pagecache::resident_fraction_sampled;
use hashlab_integrity::{expand, hash_inputs, Cancel, Input, SumPlan, SumRequest, WalkOptions};
use serde::{Deserialize, Serialize};

use super::replica::line_bytes;
use super::request::{LikeError, LikeRequest};
use super::shape::Source;
use super::{LikeReport, ReplicaError};

/// One real run beside its projection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verified {
    pub algorithm: String,
    /// Files (or objects) hashed and their bytes.
    pub files: u64,
    pub bytes: u64,
    /// Threads the run used.
    pub jobs: usize,
    /// The first run, with the files as they were (or dropped from the page
    /// cache first, where asked and they are this user's).
    pub measured_first: f64,
    /// A second run right after: the files as cached as memory allows.
    pub measured: f64,
    /// The first run read files whose cached pages had been dropped.
    pub dropped_first: bool,
    /// Projected for the same threads, files cached and uncached.
    pub projected_cached: f64,
    pub projected_uncached: Option<f64>,
    /// Share of the sampled files' bytes in the page cache just before the run.
    pub resident_before: f64,
    /// Files that could not be read (left out of the run, as `sum` reports them).
    pub failed: u64,
}

/// Drops the cached pages of every file this user owns; true if all were.
fn drop_pages(inputs: &[Input]) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid(2) reads the process's own id and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mut all = true;
    for input in inputs {
        let Input::File(path) = input else { continue };
        all &= std::fs::File::open(path).ok().is_some_and(|f| {
            f.metadata().is_ok_and(|m| m.uid() == me)
                && hashlab_integrity::pagecache::drop_cached_pages(&f).is_ok()
        });
    }
    all
}

fn resident(inputs: &[Input]) -> f64 {
    let step = (inputs.len() / 256).max(1);
    let (mut cached, mut total) = (0.0, 0.0);
    for input in inputs.iter().step_by(step) {
        let Input::File(path) = input else { continue };
        let Ok(file) = std::fs::File::open(path) else {
            continue;
        };
        let size = file.metadata().map_or(0, |m| m.len()) as f64;
        if let Ok(share) = resident_fraction_sampled(&file, 16) {
            cached += share * size;
            total += size;
        }
    }
    if total > 0.0 {
        cached / total
    } else {
        1.0
    }
}

/// `names` by their catalog names, each one `request` measures: what
/// [`verify`] refuses for a name, decided before anything is measured.
pub fn verifiable(
    registry: &Registry,
    request: &LikeRequest,
    names: &[String],
) -> Result<Vec<String>, LikeError> {
    names
        .iter()
        .map(|name| {
            let canonical = &registry
                .algorithm(name)
                .map_err(|e| LikeError::Algorithm(e.to_string()))?
                .name;
            if request.algorithms.contains(canonical) {
                Ok(canonical.clone())
            } else {
                Err(not_measured(canonical))
            }
        })
        .collect()
}

fn not_measured(name: &str) -> LikeError {
    LikeError::Algorithm(format!(
        "{name} was not measured on the replica, so nothing was projected for it"
    ))
}

/// Runs each named algorithm for real over the request's path, twice: as
/// the files are (dropped from the page cache first with `cold`), then cached.
pub fn verify(
    registry: &Registry,
    request: &LikeRequest,
    report: &LikeReport,
    algorithms: &[String],
    cold: bool,
) -> Result<Vec<Verified>, LikeError> {
    let mut out = Vec::new();
    for name in algorithms {
        let canonical = registry
            .algorithm(name)
            .map_err(|e| LikeError::Algorithm(e.to_string()))?
            .name
            .clone();
        let Some(projection) = report.projections.iter().find(|p| p.algorithm == canonical) else {
            return Err(not_measured(&canonical));
        };
        let verified = match report.shape.source {
            Source::Git => {
                let choice = registry
                    .resolve(&canonical, None, &hashlab::HashParams::default())
                    .map_err(|e| LikeError::Algorithm(format!("{canonical}: {e}")))?;
                let first = super::git::hash_objects(&request.path, &request.path_var, &choice)?;
                let done = super::git::hash_objects(&request.path, &request.path_var, &choice)?;
                Verified {
                    algorithm: canonical,
                    files: done.objects,
                    bytes: done.bytes,
                    jobs: 1,
                    measured_first: first.hashing.as_secs_f64(),
                    measured: done.hashing.as_secs_f64(),
                    dropped_first: false,
                    projected_cached: projection.cached_one,
                    projected_uncached: None,
                    resident_before: 1.0,
                    failed: 0,
                }
            }
            #[cfg(feature = "objects")]
            Source::Objects => {
                let url = report.shape.path.as_str();
                let (measured_first, ..) = super::objects::run(registry, url, &canonical)?;
                let (measured, files, bytes, failed) =
                    super::objects::run(registry, url, &canonical)?;
                Verified {
                    algorithm: canonical,
                    files,
                    bytes,
                    jobs: 1,
                    measured_first,
                    measured,
                    dropped_first: false,
                    projected_cached: projection.cached_all,
                    projected_uncached: None,
                    resident_before: 0.0,
                    failed,
                }
            }
            #[cfg(not(feature = "objects"))]
            Source::Objects => {
                return Err(LikeError::Store(format!(
                    "{}: this build reads no object store",
                    report.shape.path
                )))
            }
            Source::Manifest => {
                return Err(LikeError::Manifest {
                    path: request.path.clone(),
                    why: "a real run is made over a tree or a git repository, not a manifest"
                        .into(),
                })
            }
            Source::Tree => {
                let walk = WalkOptions {
                    recursive: true,
                    ..WalkOptions::default()
                };
                let inputs = expand(std::slice::from_ref(&request.path), &walk);
                let sample = hashlab_integrity::first_files(&inputs, 8);
                let sum_request = SumRequest {
                    algorithms: vec![canonical.clone()],
                    allow_mmap: true,
                    ..SumRequest::default()
                };
                let plan = SumPlan::new(registry, &sum_request, &sample).map_err(|error| {
                    ReplicaError::Plan {
                        algorithm: canonical.clone(),
                        error,
                    }
                })?;
                let dropped_first = cold && drop_pages(&inputs);
                let resident_before = resident(&inputs);
                let job = plan.job(Cancel::new());
                let make = || plan.fanout();
                // As `sum -r` runs: the walk, then every file hashed and its line made.
                let run = || {
                    let (mut files, mut bytes, mut failed) = (0u64, 0u64, 0u64);
                    let mut printed = 0usize;
                    let start = Instant::now();
                    let inputs = expand(std::slice::from_ref(&request.path), &walk);
                    let _ = hash_inputs(&inputs, &make, plan.jobs, &job, &mut |i, r| {
                        match r {
                            Ok(d) => {
                                files += 1;
                                bytes += d.bytes;
                                printed += line_bytes(&inputs[i], &d);
                            }
                            Err(_) => failed += 1,
                        }
                        Ok::<(), ()>(())
                    });
                    std::hint::black_box(printed);
                    (start.elapsed().as_secs_f64(), files, bytes, failed)
                };
                let (measured_first, ..) = run();
                let (measured, files, bytes, failed) = run();
                let (cached, uncached) = if plan.jobs == 1 {
                    (projection.cached_one, None)
                } else {
                    (projection.cached_all, projection.uncached_all)
                };
                Verified {
                    algorithm: canonical,
                    files,
                    bytes,
                    jobs: plan.jobs,
                    measured_first,
                    measured,
                    dropped_first,
                    projected_cached: cached,
                    projected_uncached: uncached,
                    resident_before,
                    failed,
                }
            }
        };
        out.push(verified);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_measured_algorithms_can_be_verified_and_aliases_are_named_as_in_the_catalog() {
        let registry = Registry::default();
        let mut request = LikeRequest::new(std::path::PathBuf::from("."));
        let first = registry.algorithms()[0].clone();
        let other = registry.algorithms()[1].name.clone();
        request.algorithms = vec![first.name.clone()];
        let asked = first.aliases.first().unwrap_or(&first.name);
        assert_eq!(
            verifiable(&registry, &request, std::slice::from_ref(asked)).unwrap(),
            std::slice::from_ref(&first.name)
        );
        let refused = verifiable(&registry, &request, std::slice::from_ref(&other)).unwrap_err();
        assert!(refused
            .to_string()
            .starts_with(&format!("{other} was not measured")));
        assert!(verifiable(&registry, &request, &["no-such-hash".into()]).is_err());
    }
}
