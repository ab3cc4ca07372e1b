//! [`update_tree`]: a manifest of local files brought up to date with its
//! tree, and what may be dropped from it. A listed file the walk did not
//! meet is dropped (`prune`) only when something that was read shows it
//! gone: its root read without error (paths given) or its directory still
//! there (the listed files revisited). A root that is unmounted, renamed or
//! unreadable proves nothing about what was under it, so its entries stay.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use super::listing::{bytes_of, path_of, shown};
use super::pending::own_files;
use super::{Listing, Seen, Stamp, UpdateError, Updated};
use crate::audit::{is_url_name, key};
use crate::many::{hash_inputs, FileDigests, HashJob};
use crate::plan::SumPlan;
use crate::walk::{expand, Input, WalkOptions};

/// What [`update_tree`] needs besides the manifest.
pub struct TreeUpdate<'a> {
    /// The manifest's path: it, its sidecar and stale temporary files are
    /// not files of the tree.
    pub manifest: &'a Path,
    /// Paths to walk; empty: the files the manifest lists.
    pub paths: &'a [PathBuf],
    pub walk: WalkOptions,
    pub prune: bool,
    /// Files an audit has just read: reused where the file's stamp is still
    /// the one it had then, instead of reading it again.
    pub known: Option<Known<'a>>,
}

/// Digests read by someone else (an audit), by the name the walk gave.
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    /// (algorithm, length) of each digest of a file, in order.
    pub columns: &'a [(String, usize)],
    pub files: &'a [(String, FileDigests)],
}

/// The metadata of every file input, on `jobs` threads: a tree of small
/// files costs a stat each, which is most of an update's time.
fn stat_all(inputs: &[Input], jobs: usize) -> Vec<Option<io::Result<std::fs::Metadata>>> {
    let stat = |input: &Input| match input {
        Input::File(path) => Some(std::fs::metadata(path)),
        _ => None,
    };
    let jobs = jobs.clamp(1, 64);
    if jobs == 1 || inputs.len() < 1024 {
        return inputs.iter().map(stat).collect();
    }
    let chunk = inputs.len().div_ceil(jobs);
    std::thread::scope(|scope| {
        let parts: Vec<_> = inputs
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(stat).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().expect("a stat does not panic"))
            .collect()
    })
}

/// (algorithm, digest length) of each column of a plan.
fn plan_columns(plan: &SumPlan) -> Vec<(String, usize)> {
    plan.columns
        .iter()
        .map(|c| (c.choice.name().to_string(), c.choice.output_len()))
        .collect()
}

/// Updates a listing of local files: walks, stats, reads what is new or
/// moved on `plan.jobs` threads, and rewrites. `job.cancel` stops it, with
/// an [`Interrupted`](crate::Interrupted) error and nothing written.
pub fn update_tree(
    listing: &Listing,
    plan: &SumPlan,
    job: &HashJob,
    request: &TreeUpdate<'_>,
) -> Result<Result<Updated, UpdateError>, io::Error> {
    update_tree_with(listing, plan, job, request, &own_files(request.manifest))
}

/// [`update_tree`] where `own` (not `request.manifest`) tells the files
/// that are not the tree's: for a manifest held in memory, which has no
/// file, sidecar or temporary files to leave out.
pub fn update_tree_with(
    listing: &Listing,
    plan: &SumPlan,
    job: &HashJob,
    request: &TreeUpdate<'_>,
    own: &dyn Fn(&Path) -> bool,
) -> Result<Result<Updated, UpdateError>, io::Error> {
    let cwd = std::env::current_dir()?;
    let (inputs, roots) = if request.paths.is_empty() {
        let listed: Vec<PathBuf> = listing
            .files
            .iter()
            .filter(|f| !is_url_name(&f.name))
            .map(|f| path_of(&f.name))
            .collect();
        (
            expand(
                &listed,
                &WalkOptions {
                    recursive: false,
                    ..WalkOptions::default()
                },
            ),
            None,
        )
    } else {
        let roots: Vec<PathBuf> = request.paths.iter().map(|p| key(p, &cwd)).collect();
        (expand(request.paths, &request.walk), Some(roots))
    };
    let stats = stat_all(&inputs, plan.jobs);
    let mut seen = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    // (path, why) of what the walk met and could not read.
    let mut problems: Vec<(PathBuf, String)> = Vec::new();
    for (input, stat) in inputs.into_iter().zip(stats) {
        match input {
            Input::File(path) if own(&path) => {}
            Input::File(path) => match stat.expect("every file is stat'ed") {
                Ok(meta) if meta.is_file() => {
                    seen.push(Seen {
                        name: bytes_of(&path),
                        stamp: Stamp::of(&meta),
                    });
                    files.push(path);
                }
                // A listed name that is no file now is gone as a file,
                // where the rules say so (shown so by `Evidence::exists`).
                Ok(_) if listing.held.only_files_exist && request.paths.is_empty() => {}
                Ok(meta) if meta.is_dir() => {
                    problems.push((path, "a directory, not a file".to_string()))
                }
                // A listed name that is now a FIFO or a device: not read.
                Ok(_) => problems.push((path, "not a regular file".to_string())),
                Err(e) if e.kind() == io::ErrorKind::NotFound && request.paths.is_empty() => {}
                Err(e) => problems.push((path, crate::io_message(&e))),
            },
            Input::Problem(path, e) => {
                if !(e.kind() == io::ErrorKind::NotFound && request.paths.is_empty()) {
                    problems.push((path, crate::io_message(&e)))
                }
            }
            Input::Stdin => {}
        }
    }
    let mut evidence = Evidence::new(&problems, request.paths, &cwd);
    evidence.only_files = listing.held.only_files_exist;
    let exists = |name: &[u8]| evidence.exists(name);
    let mut pending = listing.pending(seen, roots.as_deref(), &cwd, request.prune, &exists);
    // A listed name that cannot be walked is unreadable once, not also
    // skipped; a path that is no entry (a root, a directory met) is
    // reported apart, since nothing of it was "kept".
    let listed = ListedNames::new(listing, &cwd);
    let mut problem_names = HashSet::new();
    let mut unreadable = Vec::new();
    for (path, why) in problems {
        let name = shown(&bytes_of(&path));
        problem_names.insert(name.clone());
        if listed.contains(&path) {
            unreadable.push((name, why));
        } else {
            pending.report.not_read.push((name, why));
        }
    }
    let report = &mut pending.report;
    report.skipped.retain(|(n, _)| !problem_names.contains(n));
    report
        .unreadable
        .retain(|(n, _)| !problem_names.contains(n));
    report.unreadable.extend(unreadable);
    let mut results = Vec::with_capacity(pending.to_hash.len());
    let mut order = Vec::with_capacity(pending.to_hash.len());
    let reusable: HashMap<PathBuf, &FileDigests> = match &request.known {
        Some(known) if plan_columns(plan) == known.columns => known
            .files
            .iter()
            .map(|(name, d)| (key(Path::new(name), &cwd), d))
            .collect(),
        _ => HashMap::new(),
    };
    let known_now = |i: usize| {
        if reusable.is_empty() {
            return None;
        }
        reusable
            .get(&key(&files[i], &cwd))
            .filter(|d| Stamp::of_hashed(d).unchanged(&pending.seen_stamps[i]))
    };
    for &i in &pending.to_hash {
        match known_now(i) {
            Some(d) => results.push((i, Ok((*d).clone()))),
            None => order.push(i),
        }
    }
    // A file the audit found changed under an unchanged stamp (bitrot, a
    // time set back): its new digests, though its stamp says nothing moved.
    let columns = plan_columns(plan);
    for i in (0..files.len()).filter(|_| !reusable.is_empty()) {
        let Some(l) = pending.listed_of[i].filter(|&l| pending.fresh[l]) else {
            continue;
        };
        let Some(d) = known_now(i) else { continue };
        let differs = listing.files[l].digests.iter().any(|(algorithm, digest)| {
            columns
                .iter()
                .position(|(a, _)| a == algorithm)
                .is_some_and(|c| d.digests[c].as_bytes() != digest.as_slice())
        });
        if differs {
            pending.fresh[l] = false;
            pending.report.unchanged -= 1;
            results.push((i, Ok((*d).clone())));
        }
    }
    let inputs: Vec<Input> = order
        .iter()
        .map(|&i| Input::File(files[i].clone()))
        .collect();
    let make = || plan.fanout();
    hash_inputs(&inputs, &make, plan.jobs, job, &mut |n, result| {
        match result {
            Err(e) if crate::is_interrupted(&e) => return Err(e),
            Ok(d) => results.push((order[n], Ok(d))),
            Err(e) => results.push((order[n], Err(crate::io_message(&e)))),
        }
        Ok(())
    })?;
    Ok(pending.finish(listing, plan, &cwd, results))
}

/// Whether a path is one of the listing's files, by its bytes or, failing
/// that, as the same absolute path (`./d/a` for `d/a`).
struct ListedNames<'a> {
    names: HashSet<&'a [u8]>,
    listing: &'a Listing,
    cwd: &'a Path,
    keys: std::cell::OnceCell<HashSet<PathBuf>>,
}

impl<'a> ListedNames<'a> {
    fn new(listing: &'a Listing, cwd: &'a Path) -> Self {
        ListedNames {
            names: listing.files.iter().map(|f| f.name.as_slice()).collect(),
            listing,
            cwd,
            keys: std::cell::OnceCell::new(),
        }
    }

    fn contains(&self, path: &Path) -> bool {
        if self.names.contains(bytes_of(path).as_slice()) {
            return true;
        }
        self.keys
            .get_or_init(|| {
                self.listing
                    .files
                    .iter()
                    .map(|f| key(&path_of(&f.name), self.cwd))
                    .collect()
            })
            .contains(&key(path, self.cwd))
    }
}

/// What the walk proved about the files it did not meet.
struct Evidence<'a> {
    /// Keys of what could not be read, and how each was named.
    unread: HashMap<PathBuf, String>,
    /// (key, as given) of the roots walked; `None`: the listed files were
    /// revisited.
    roots: Option<Vec<(PathBuf, &'a Path)>>,
    cwd: &'a Path,
    /// Whether only a regular file (a link to one) counts as there.
    only_files: bool,
}

impl<'a> Evidence<'a> {
    fn new(problems: &[(PathBuf, String)], paths: &'a [PathBuf], cwd: &'a Path) -> Self {
        Evidence {
            unread: problems
                .iter()
                .map(|(p, _)| (key(p, cwd), shown(&bytes_of(p))))
                .collect(),
            roots: (!paths.is_empty())
                .then(|| paths.iter().map(|p| (key(p, cwd), p.as_path())).collect()),
            cwd,
            only_files: false,
        }
    }

    /// Whether a listed file the walk did not meet is there (`Ok(true)`),
    /// shown gone (`Ok(false)`), or unknown (`Err`: why its entry is kept).
    fn exists(&self, name: &[u8]) -> Result<bool, String> {
        let path = path_of(name);
        match std::fs::symlink_metadata(&path) {
            Ok(_) if self.only_files => {
                return Ok(std::fs::metadata(&path).is_ok_and(|m| m.is_file()))
            }
            Ok(_) => return Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(crate::io_message(&e)),
        }
        let k = key(&path, self.cwd);
        if let Some(unread) = k.ancestors().find_map(|a| self.unread.get(a)) {
            return Err(format!("not found, and {unread} could not be read"));
        }
        // The directory that shows it gone, looked at now rather than
        // trusted from the walk: a root that went away since shows nothing.
        let parent = |p: &'a Path| match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let witness: &Path = match &self.roots {
            Some(roots) => match roots
                .iter()
                .filter(|(r, _)| k.starts_with(r))
                .max_by_key(|(r, _)| r.as_os_str().len())
            {
                Some((r, given)) if *r == k => parent(given),
                Some((_, given)) => given,
                None => return Err("not found, under none of the paths given".to_string()),
            },
            None => match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            },
        };
        match std::fs::metadata(witness) {
            Ok(m) if m.is_dir() => Ok(false),
            Ok(_) => Err(format!(
                "not found, and {} is not a directory",
                witness.display()
            )),
            Err(e) => Err(format!(
                "not found, and neither is {}: {}",
                witness.display(),
                crate::io_message(&e)
            )),
        }
    }
}
