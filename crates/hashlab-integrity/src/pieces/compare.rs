//! Comparing a file with the pieces a manifest records of it, for `check`
//! and `audit`: which byte ranges changed, not only that the file did.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use hashlab::{Choice, Digest, HashError, HashParams, OutputRule, Registry};
use serde::Serialize;

use super::hashing::{changed_while_read, hash_ranges, is_a_directory, pool, stamp, Splitter};
use crate::audit::{key, path_of, AuditError, AuditReport};
use crate::cancel::Cancel;
use crate::many::{Fanout, MAX_JOBS};
use crate::pieces::{piece_range, Pieces};
use crate::read::{hash_open_file, size_is_length, ReadBuffer, ReadStrategy};
use crate::recorded::Recorded;
use crate::walk::Input;

/// Byte ranges, first and last byte as hashdeep writes them (`offset
/// 0-1023`), in order, with ranges that touch merged into one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Ranges(pub Vec<(u64, u64)>);

impl Ranges {
    /// Adds the bytes from `start` to `end` (exclusive), at or after every
    /// range added so far.
    pub(super) fn add(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        match self.0.last_mut() {
            Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end - 1),
            _ => self.0.push((start, end - 1)),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Ranges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bytes ")?;
        for (i, (first, last)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{first}-{last}")?;
        }
        Ok(())
    }
}

/// A file set against the pieces a manifest records of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// The file's length now.
    pub bytes: u64,
    /// Its length when the manifest was written.
    pub recorded_bytes: u64,
    /// Whether its whole digest is the recorded one, where one is recorded
    /// (hashdeep's own `-p` records pieces only).
    pub whole_matches: Option<bool>,
    /// The bytes whose pieces differ: a piece past the end of a file that
    /// shrank is changed, and so are the bytes past the recorded end of one
    /// that grew. Left empty when the whole digest matches (nothing changed,
    /// and the pieces are then not read).
    pub changed: Ranges,
}

impl Comparison {
    /// The file is as recorded.
    pub fn intact(&self) -> bool {
        self.whole_matches != Some(false)
            && self.changed.is_empty()
            && self.bytes == self.recorded_bytes
    }

    /// What changed, in one line: `bytes 1048576-2097151 changed`, with the
    /// lengths where they differ.
    pub fn describe(&self) -> String {
        let mut out = if self.changed.is_empty() {
            // The pieces agree and the whole does not: the file changed
            // between the two reads, or the manifest's digests disagree.
            "no piece differs, but the whole-file digest does".to_string()
        } else {
            format!("{} changed", self.changed)
        };
        if self.bytes != self.recorded_bytes {
            out.push_str(&format!(
                " ({} bytes now, {} recorded)",
                self.bytes, self.recorded_bytes
            ));
        }
        out
    }
}

/// What hashes a file for comparison with a manifest's entry: the entry's
/// algorithm at its digest's length, with the caller's parameters (a key).
#[derive(Debug, Clone)]
pub struct EntryHasher {
    choice: Choice,
    pub strategy: ReadStrategy,
}

impl EntryHasher {
    /// For `recorded`'s algorithm and digest length (its pieces' where it
    /// records no whole digest); `backend` and `params` as the caller gives
    /// them; `allow_mmap` false reads every file with read().
    pub fn new(
        registry: &Registry,
        recorded: &Recorded,
        backend: Option<&str>,
        params: &HashParams,
        allow_mmap: bool,
    ) -> Result<EntryHasher, HashError> {
        let algorithm = registry.algorithm(&recorded.algorithm)?;
        let len = recorded_digest_len(recorded);
        let params = HashParams {
            length: match algorithm.output {
                OutputRule::Fixed { .. } => None,
                _ => Some(len),
            },
            ..params.clone()
        };
        let choice = registry.resolve(&algorithm.name, backend, &params)?;
        if choice.output_len() != len {
            return Err(HashError::LengthNotAccepted {
                algorithm: algorithm.name.clone(),
                fixed: choice.output_len(),
            });
        }
        let strategy = ReadStrategy::for_hash_with(
            algorithm.file_bound,
            choice.backend().parallel,
            allow_mmap,
        );
        let choice = choice.with_parallel(strategy.parallel_hash)?;
        Ok(EntryHasher { choice, strategy })
    }

    /// Whether this hashes `recorded` as [`EntryHasher::new`] would make
    /// one for it (same algorithm and length, the caller's backend and
    /// parameters being the same): a caller keeps one per group of entries.
    pub fn hashes(&self, recorded: &Recorded) -> bool {
        self.choice.name() == recorded.algorithm
            && self.choice.output_len() == recorded_digest_len(recorded)
    }

    fn fanout(&self) -> Fanout {
        Fanout::new(vec![self.choice.hasher()])
    }
}

fn recorded_digest_len(recorded: &Recorded) -> usize {
    match (&recorded.pieces, recorded.digest.is_empty()) {
        (Some(pieces), true) => pieces.digests.first().map_or(0, Vec::len),
        _ => recorded.digest.len(),
    }
}

/// Compares the file at `path` with `recorded`: its whole digest where the
/// entry has one (the pieces are then read only when it differs), else its
/// pieces; pieces are hashed on the current rayon pool. An entry without
/// pieces is compared whole, and nothing says where it changed.
pub fn compare_file(
    path: &Path,
    recorded: &Recorded,
    hasher: &EntryHasher,
    cancel: &Cancel,
) -> io::Result<Comparison> {
    cancel.check()?;
    let make = || hasher.fanout();
    let file = File::open(path)?;
    let before = file.metadata()?;
    if before.is_dir() {
        return Err(is_a_directory());
    }
    let recorded_len = recorded.size;
    let has_whole = !recorded.digest.is_empty();
    let mut buffer = ReadBuffer::new(hasher.strategy.chunk);
    let seekable = cfg!(unix) && size_is_length(&file, &before);
    let (bytes, whole_matches, piece_digests) = match (&recorded.pieces, seekable) {
        (Some(pieces), false) => {
            // Read once, whole and pieces together, cut where the recorded
            // pieces are: a pipe cannot be read again.
            let mut splitter = Splitter::new(
                Box::new(make()),
                Box::new(make()),
                pieces.size,
                recorded_len.unwrap_or(0),
            );
            let hashed = hash_open_file(
                file.try_clone()?,
                &before,
                &mut splitter,
                &mut buffer,
                &hasher.strategy,
                cancel,
            )?;
            let matches = has_whole.then(|| hashed.digest.as_bytes() == recorded.digest);
            (hashed.bytes, matches, Some(splitter.done))
        }
        _ => {
            let hashed = if has_whole || recorded.pieces.is_none() {
                Some(hash_open_file(
                    file.try_clone()?,
                    &before,
                    &mut make(),
                    &mut buffer,
                    &hasher.strategy,
                    cancel,
                )?)
            } else {
                None
            };
            let bytes = hashed.as_ref().map_or(before.len(), |h| h.bytes);
            let matches = hashed.map(|h| h.digest.as_bytes() == recorded.digest);
            let unchanged = matches == Some(true) && recorded_len.is_none_or(|l| l == bytes);
            let pieces = match &recorded.pieces {
                Some(pieces) if !unchanged => Some(hash_recorded_pieces(
                    &file,
                    pieces,
                    recorded_len.unwrap_or(0),
                    bytes,
                    &make,
                    cancel,
                )?),
                _ => None,
            };
            (bytes, matches, pieces)
        }
    };
    let after = file.metadata()?;
    if before.is_file() && stamp(&before) != stamp(&after) {
        return Err(changed_while_read());
    }
    let recorded_bytes = recorded_len.unwrap_or(bytes);
    let mut changed = Ranges::default();
    if let (Some(pieces), Some(now)) = (&recorded.pieces, &piece_digests) {
        for (i, digest) in pieces.digests.iter().enumerate() {
            let (start, end) = piece_range(recorded_bytes, pieces.size, i as u64);
            let same = end <= bytes && now.get(i).is_some_and(|d| d.as_bytes() == digest);
            if !same {
                changed.add(start, end);
            }
        }
        changed.add(recorded_bytes, bytes);
    }
    Ok(Comparison {
        bytes,
        recorded_bytes,
        whole_matches,
        changed,
    })
}

/// The digests of the recorded pieces that lie within the file's `bytes`
/// (a piece past its end differs whatever it would hash to).
fn hash_recorded_pieces(
    file: &File,
    pieces: &Pieces,
    recorded_len: u64,
    bytes: u64,
    make: &(dyn Fn() -> Fanout + Sync),
    cancel: &Cancel,
) -> io::Result<Vec<Digest>> {
    let ranges: Vec<(u64, u64)> = (0..pieces.digests.len() as u64)
        .map(|i| piece_range(recorded_len, pieces.size, i))
        .take_while(|&(_, end)| end <= bytes)
        .collect();
    #[cfg(unix)]
    return hash_ranges(file, &ranges, make, cancel);
    #[cfg(not(unix))]
    {
        let _ = (file, make, cancel, ranges);
        unreachable!("only seekable files, which need pread(), come here")
    }
}

/// Compares files with their entries ([`compare_file`]) on a pool of
/// threads made once: the pieces of each file spread over them.
pub struct Comparer {
    threads: Option<rayon::ThreadPool>,
}

impl Comparer {
    /// On `jobs` threads (where a pool can be made; else on the caller's).
    pub fn new(jobs: usize) -> Comparer {
        Comparer {
            threads: pool(jobs.clamp(1, MAX_JOBS)),
        }
    }

    /// [`compare_file`] on the pool.
    pub fn compare(
        &self,
        path: &Path,
        recorded: &Recorded,
        hasher: &EntryHasher,
        cancel: &Cancel,
    ) -> io::Result<Comparison> {
        match &self.threads {
            Some(threads) => threads.install(|| compare_file(path, recorded, hasher, cancel)),
            None => compare_file(path, recorded, hasher, cancel),
        }
    }

    /// Each of `files` (path, entry, hasher) compared, files side by side
    /// and the pieces of each over the threads left; results in order.
    pub fn compare_all(
        &self,
        files: &[(PathBuf, &Recorded, &EntryHasher)],
        cancel: &Cancel,
    ) -> Vec<io::Result<Comparison>> {
        use rayon::prelude::*;
        let one = |(path, recorded, hasher): &(PathBuf, &Recorded, &EntryHasher)| {
            compare_file(path, recorded, hasher, cancel)
        };
        match &self.threads {
            Some(threads) => {
                threads.install(|| files.par_iter().with_max_len(1).map(one).collect())
            }
            None => files.iter().map(one).collect(),
        }
    }
}

/// The entries of a manifest that record pieces and no whole digest
/// (`hashdeep -p`'s own), and the audited files they name. `audit` matches
/// files by whole digests; these it leaves to [`audit_pieces`], which
/// compares them piece by piece.
#[derive(Debug, Default)]
pub struct PieceOnly {
    entries: Vec<Recorded>,
    /// The audited files named by `entries`, by key.
    files: HashMap<PathBuf, PathBuf>,
}

impl PieceOnly {
    /// Takes the entries with pieces and no whole digest out of `recorded`,
    /// and the files they name out of `tree`.
    pub fn take(
        recorded: &mut Vec<Recorded>,
        tree: &mut Vec<Input>,
    ) -> Result<PieceOnly, AuditError> {
        if !recorded.iter().any(|r| r.digest.is_empty()) {
            return Ok(PieceOnly::default());
        }
        let cwd = std::env::current_dir().map_err(AuditError::CurrentDir)?;
        let (entries, whole): (Vec<Recorded>, Vec<Recorded>) = std::mem::take(recorded)
            .into_iter()
            .partition(|r| r.digest.is_empty());
        *recorded = whole;
        let keys: std::collections::HashSet<PathBuf> = entries
            .iter()
            .map(|r| key(&path_of(&r.name), &cwd))
            .collect();
        let mut files = HashMap::new();
        tree.retain(|input| match input {
            Input::File(p) => {
                let k = key(p, &cwd);
                if keys.contains(&k) {
                    files.insert(k, p.clone());
                    false
                } else {
                    true
                }
            }
            _ => true,
        });
        Ok(PieceOnly { entries, files })
    }
}

/// A changed file and where it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedPieces {
    pub name: String,
    #[serde(flatten)]
    pub comparison: Comparison,
}

/// After [`crate::audit_with`]: says where each changed file whose entry
/// records pieces changed, and settles the piece-only entries (see
/// [`PieceOnly`]) into `report`: matched, changed, unreadable, assumed
/// (`changed_only`, where the recorded size is the file's), missing, or
/// skipped when present but not among the audited files. `recorded`: the
/// entries the audit had.
pub fn audit_pieces(
    registry: &Registry,
    recorded: &[Recorded],
    piece_only: PieceOnly,
    jobs: usize,
    changed_only: bool,
    report: &mut AuditReport,
) -> Result<Vec<ChangedPieces>, AuditError> {
    let cwd = std::env::current_dir().map_err(AuditError::CurrentDir)?;
    let params = HashParams::default();
    let mut hashers: HashMap<(String, usize), EntryHasher> = HashMap::new();
    let mut hasher_for = |r: &Recorded| -> Result<(String, usize), AuditError> {
        let id = (r.algorithm.clone(), recorded_digest_len(r));
        if !hashers.contains_key(&id) {
            let made =
                EntryHasher::new(registry, r, None, &params, true).map_err(AuditError::Hasher)?;
            hashers.insert(id.clone(), made);
        }
        Ok(id)
    };
    let with_pieces: HashMap<PathBuf, &Recorded> = recorded
        .iter()
        .filter(|r| r.pieces.is_some())
        .map(|r| (key(&path_of(&r.name), &cwd), r))
        .rev()
        .collect();
    struct Work<'r> {
        shown: String,
        path: PathBuf,
        recorded: &'r Recorded,
        hasher: (String, usize),
        /// Left out of the audit, so settled here.
        piece_only: bool,
    }
    let mut work: Vec<Work> = Vec::new();
    for shown in &report.changed {
        let path = PathBuf::from(shown);
        if let Some(r) = with_pieces.get(&key(&path, &cwd)) {
            work.push(Work {
                shown: shown.clone(),
                path,
                recorded: r,
                hasher: hasher_for(r)?,
                piece_only: false,
            });
        }
    }
    for r in &piece_only.entries {
        let k = key(&path_of(&r.name), &cwd);
        let name = String::from_utf8_lossy(&r.name).into_owned();
        let Some(path) = piece_only.files.get(&k) else {
            match std::fs::symlink_metadata(&k) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => report.missing.push(name),
                Err(e) => report.unreadable.push((name, e.to_string())),
                Ok(_) => report.skipped.push((
                    name,
                    "not among the files audited (outside the audited paths, a symbolic link, or not a regular file)".into(),
                )),
            }
            continue;
        };
        let shown = path.display().to_string();
        if changed_only
            && std::fs::metadata(path).is_ok_and(|m| m.is_file() && Some(m.len()) == r.size)
        {
            report.assumed.push(shown);
            continue;
        }
        work.push(Work {
            shown,
            path: path.clone(),
            recorded: r,
            hasher: hasher_for(r)?,
            piece_only: true,
        });
    }
    let files: Vec<(PathBuf, &Recorded, &EntryHasher)> = work
        .iter()
        .map(|w| (w.path.clone(), w.recorded, &hashers[&w.hasher]))
        .collect();
    let results = Comparer::new(jobs).compare_all(&files, &Cancel::new());
    let mut changed = Vec::new();
    for (
        Work {
            shown, piece_only, ..
        },
        result,
    ) in work.into_iter().zip(results)
    {
        match result {
            Ok(comparison) if comparison.intact() => {
                if piece_only {
                    report.matched.push(shown);
                }
                // Else the file changed between the audit's read and this
                // one: it stays changed, with nothing to say where.
            }
            Ok(comparison) => {
                if piece_only {
                    report.changed.push(shown.clone());
                }
                changed.push(ChangedPieces {
                    name: shown,
                    comparison,
                });
            }
            Err(e) if piece_only => report.unreadable.push((shown, e.to_string())),
            Err(_) => {}
        }
    }
    Ok(changed)
}
