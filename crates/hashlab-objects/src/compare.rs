//! A local tree against a store prefix, as `rclone check` compares them:
//! each file under the directory is paired with the object whose key is the
//! prefix followed by the file's path below the directory.
//!
//! Two ways, which prove different things:
//! - [`Mode::Recorded`] reads no object: each file is hashed as the store
//!   recorded its object (an additional checksum, whole or composite, or the
//!   ETag, whole or multipart) and compared with that record. A match shows
//!   that the upload arrived as sent; it says nothing of the bytes the store
//!   holds now, since bitrot under the store leaves its record as it was.
//! - [`Mode::Download`] reads every object and hashes its bytes as the
//!   file's: only this shows the bytes are still intact.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use hashlab::{HashParams, Registry};
use hashlab_integrity::{
    expand, hash_reader, io_message, Cancel, Fanout, Input, ReadBuffer, WalkOptions,
};

use crate::stored::{reproduce, Expectation};
use crate::{ObjectError, ObjectInfo, ObjectReader, Problem};

/// How files are compared with objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// With what the store recorded; no object is read.
    Recorded,
    /// Read every object and hash its bytes and the file's with `algorithm`.
    Download { algorithm: String },
}

impl Mode {
    /// What a comparison in this mode shows, in words for the person reading it.
    pub fn proves(&self) -> &'static str {
        match self {
            Mode::Recorded => {
                "compared with the checksums the store recorded at upload, reading no object: this shows the uploads arrived as sent, not that the stored bytes are still intact (--download reads them)"
            }
            Mode::Download { .. } => {
                "every object was read and its bytes hashed: this shows the stored bytes are intact"
            }
        }
    }
}

/// One file and its object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Equal, by the value `by` names ("x-amz-checksum-crc64nvme", "ETag of
    /// a 3-part upload", "sha256 of the bytes read").
    Matched { by: String },
    /// Different: by which value, the file's and the store's.
    Changed {
        by: String,
        local: String,
        store: String,
    },
    /// The store keeps nothing hashlab can compute from the file.
    NotComparable { reason: String },
}

/// What the comparison found. Names are paths below the directory, which
/// are also the keys below the prefix, sorted by their bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeComparison {
    pub compared: Vec<(String, Verdict)>,
    /// Files with no object.
    pub only_local: Vec<String>,
    /// Objects with no file.
    pub only_in_store: Vec<String>,
    /// What could not be read, walked or asked: (name, message).
    pub errors: Vec<(String, String)>,
}

impl TreeComparison {
    /// Every file has its object and every object its file, none differs
    /// and nothing failed ("not comparable" does not fail).
    pub fn passed(&self) -> bool {
        self.only_local.is_empty()
            && self.only_in_store.is_empty()
            && self.errors.is_empty()
            && !self
                .compared
                .iter()
                .any(|(_, v)| matches!(v, Verdict::Changed { .. }))
    }

    pub fn count(&self, matching: impl Fn(&Verdict) -> bool) -> usize {
        self.compared.iter().filter(|(_, v)| matching(v)).count()
    }
}

/// Why a whole comparison could not be made.
#[derive(Debug)]
pub enum CompareError {
    /// The prefix could not be listed (no such bucket, access denied...).
    Listing(ObjectError),
    /// The directory is not one.
    NotADirectory(PathBuf),
    /// The URL names one object, not a prefix.
    NotAPrefix(String),
    /// The algorithm of [`Mode::Download`].
    Hash(hashlab::HashError),
}

impl std::fmt::Display for CompareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompareError::Listing(e) => write!(f, "{e}"),
            CompareError::NotADirectory(path) => {
                write!(f, "{}: not a directory", path.display())
            }
            CompareError::NotAPrefix(url) => write!(
                f,
                "{url}: names one object, not a prefix to compare a directory with"
            ),
            CompareError::Hash(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CompareError {}

/// A file and the object at its path: (key below the prefix, file, object).
pub type Pair = (String, PathBuf, ObjectInfo);

/// The files under `dir` paired with the objects under `prefix`, without a
/// request beyond the listing: the pairs, and a comparison holding what is
/// only on one side and what could not be walked (its `compared` is empty).
pub fn pair_tree(
    reader: &ObjectReader,
    dir: &Path,
    prefix: &str,
) -> Result<(Vec<Pair>, TreeComparison), CompareError> {
    let (files, mut comparison) = local_keys(dir)?;
    let base = prefix.trim_end_matches('/');
    let objects = match reader.list(prefix) {
        Ok(objects) => objects,
        // Nothing under the prefix yet: every file is only local.
        Err(e) if e.problem == Problem::NotFound => Vec::new(),
        Err(e) => return Err(CompareError::Listing(e)),
    };
    let mut keyed: Vec<(String, ObjectInfo)> = Vec::with_capacity(objects.len());
    for object in objects {
        match object
            .name
            .strip_prefix(base)
            .and_then(|k| k.strip_prefix('/'))
        {
            Some(key) if !key.is_empty() => keyed.push((key.to_string(), object)),
            _ => return Err(CompareError::NotAPrefix(prefix.to_string())),
        }
    }
    let pairs = merge(files, keyed, &mut comparison);
    Ok((pairs, comparison))
}

/// The files under `dir` with the keys they pair with (their paths below
/// it, `/`-separated), sorted by key; the comparison holds the files no key
/// can name (not UTF-8) as only local, and what could not be walked.
pub fn local_keys(dir: &Path) -> Result<(Vec<(String, PathBuf)>, TreeComparison), CompareError> {
    if !dir.is_dir() {
        return Err(CompareError::NotADirectory(dir.to_path_buf()));
    }
    let mut comparison = TreeComparison::default();
    let mut unpairable = Vec::new();
    let files = local_files(dir, &mut comparison.errors, &mut unpairable);
    comparison.only_local = unpairable;
    Ok((files, comparison))
}

/// One shard of [`pair_tree`]: `files` (sorted by key, from [`local_keys`],
/// those whose keys lie after `after` and up to `until`) paired with the
/// objects of that key range under `prefix`, listed by this call alone.
pub fn pair_range(
    reader: &ObjectReader,
    prefix: &str,
    files: Vec<(String, PathBuf)>,
    after: Option<&str>,
    until: Option<&str>,
) -> Result<(Vec<Pair>, TreeComparison), CompareError> {
    let keyed = reader
        .list_range(prefix, after, until)
        .map_err(CompareError::Listing)?;
    let mut comparison = TreeComparison::default();
    let pairs = merge(files, keyed, &mut comparison);
    Ok((pairs, comparison))
}

/// Both sides sorted by the bytes of their keys: one merge pairs them, and
/// what is on one side only goes to `comparison`.
fn merge(
    files: Vec<(String, PathBuf)>,
    keyed: Vec<(String, ObjectInfo)>,
    comparison: &mut TreeComparison,
) -> Vec<Pair> {
    let mut keyed = keyed;
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let mut pairs: Vec<Pair> = Vec::new();
    let (mut f, mut o) = (files.into_iter().peekable(), keyed.into_iter().peekable());
    loop {
        match (f.peek(), o.peek()) {
            (None, None) => break,
            (Some(_), None) => comparison.only_local.push(f.next().expect("peeked").0),
            (None, Some(_)) => comparison.only_in_store.push(o.next().expect("peeked").0),
            (Some((name, _)), Some((key, _))) => match name.as_str().cmp(key.as_str()) {
                std::cmp::Ordering::Less => comparison.only_local.push(f.next().expect("peeked").0),
                std::cmp::Ordering::Greater => {
                    comparison.only_in_store.push(o.next().expect("peeked").0)
                }
                std::cmp::Ordering::Equal => {
                    let (name, path) = f.next().expect("peeked");
                    let (_, object) = o.next().expect("peeked");
                    pairs.push((name, path, object));
                }
            },
        }
    }
    comparison.only_local.sort();
    pairs
}

/// Each pair's verdict, in order, `jobs` files hashed at once; an error is
/// the message of what could not be read or asked.
pub fn compare_pairs(
    reader: &ObjectReader,
    registry: &Registry,
    pairs: &[Pair],
    mode: &Mode,
    jobs: usize,
) -> Result<Vec<Result<Verdict, String>>, CompareError> {
    Ok(match mode {
        Mode::Recorded => by_record(reader, registry, pairs, jobs),
        Mode::Download { algorithm } => {
            registry
                .hasher(algorithm, None, &HashParams::default())
                .map_err(CompareError::Hash)?;
            by_download(reader, registry, pairs, algorithm, jobs)
        }
    })
}

/// Compares the files under `dir` with the objects under `prefix`
/// (`s3://bucket/path`), hashing `jobs` files at once.
pub fn compare_tree(
    reader: &ObjectReader,
    registry: &Registry,
    dir: &Path,
    prefix: &str,
    mode: &Mode,
    jobs: usize,
) -> Result<TreeComparison, CompareError> {
    if let Mode::Download { algorithm } = mode {
        registry
            .hasher(algorithm, None, &HashParams::default())
            .map_err(CompareError::Hash)?;
    }
    let (pairs, mut comparison) = pair_tree(reader, dir, prefix)?;
    let verdicts = compare_pairs(reader, registry, &pairs, mode, jobs)?;
    for ((name, _, _), verdict) in pairs.iter().zip(verdicts) {
        match verdict {
            Ok(verdict) => comparison.compared.push((name.clone(), verdict)),
            Err(message) => comparison.errors.push((name.clone(), message)),
        }
    }
    comparison.errors.sort();
    Ok(comparison)
}

/// The regular files under `dir` as (key below the directory, path),
/// sorted; what cannot be walked goes to `errors`. A name that is not UTF-8
/// can be no key: it goes to `unpairable`, in its lossy form.
fn local_files(
    dir: &Path,
    errors: &mut Vec<(String, String)>,
    unpairable: &mut Vec<String>,
) -> Vec<(String, PathBuf)> {
    let options = WalkOptions {
        recursive: true,
        follow_symlinks: false,
        exclude: None,
    };
    let mut files = Vec::new();
    for input in expand(&[dir.to_path_buf()], &options) {
        match input {
            Input::File(path) => {
                let below = path.strip_prefix(dir).unwrap_or(&path);
                let parts: Vec<&std::ffi::OsStr> =
                    below.components().map(|c| c.as_os_str()).collect();
                match parts.iter().map(|p| p.to_str()).collect::<Option<Vec<_>>>() {
                    Some(parts) => files.push((parts.join("/"), path)),
                    None => unpairable.push(below.to_string_lossy().into_owned()),
                }
            }
            Input::Problem(path, e) => {
                errors.push((path.display().to_string(), io_message(&e)));
            }
            Input::Stdin => {}
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// Runs `work` on every index below `count`, `jobs` at a time, results in order.
fn in_parallel<T: Send>(count: usize, jobs: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, count.max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let result = work(i);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every index was worked"))
        .collect()
}

fn by_record(
    reader: &ObjectReader,
    registry: &Registry,
    pairs: &[Pair],
    jobs: usize,
) -> Vec<Result<Verdict, String>> {
    let objects: Vec<ObjectInfo> = pairs.iter().map(|(_, _, o)| o.clone()).collect();
    let records = reader.records(&objects);
    in_parallel(pairs.len(), jobs, |i| {
        let (_, path, _) = &pairs[i];
        let record = records[i].as_ref().map_err(|e| e.message.clone())?;
        let local_size = std::fs::metadata(path).map_err(|e| io_message(&e))?.len();
        if local_size != record.size {
            return Ok(Verdict::Changed {
                by: "size".into(),
                local: format!("{local_size} bytes"),
                store: format!("{} bytes", record.size),
            });
        }
        let (usable, unusable) = record.expectations();
        let Some(expectation) = usable.into_iter().next() else {
            return Ok(Verdict::NotComparable {
                reason: unusable.join("; "),
            });
        };
        let mut file = File::open(path).map_err(|e| io_message(&e))?;
        let computed = reproduce(registry, std::slice::from_ref(&expectation), &mut file)
            .map_err(|e| io_message(&e))?
            .remove(0);
        Ok(judge(&expectation, computed))
    })
}

fn judge(expectation: &Expectation, computed: Result<Vec<u8>, String>) -> Verdict {
    let by = expectation.describe();
    match computed {
        Ok(value) if value == expectation.digest => Verdict::Matched { by },
        Ok(value) => Verdict::Changed {
            by,
            local: expectation.shown(&value),
            store: expectation.shown(&expectation.digest),
        },
        Err(reason) => Verdict::Changed {
            by,
            local: reason,
            store: expectation.shown(&expectation.digest),
        },
    }
}

fn by_download(
    reader: &ObjectReader,
    registry: &Registry,
    pairs: &[Pair],
    algorithm: &str,
    jobs: usize,
) -> Vec<Result<Verdict, String>> {
    let hasher = || {
        registry
            .hasher(algorithm, None, &HashParams::default())
            .expect("checked before the walk")
    };
    let objects: Vec<ObjectInfo> = pairs.iter().map(|(_, _, o)| o.clone()).collect();
    let mut remote: Vec<Result<String, String>> = Vec::with_capacity(objects.len());
    let make = || Fanout::new(vec![hasher()]);
    reader
        .hash::<()>(&objects, &make, false, &mut |_, result| {
            remote.push(
                result
                    .map(|d| d.digests.digests[0].to_hex())
                    .map_err(|e| e.message),
            );
            Ok(())
        })
        .expect("the collector never stops the run");
    let by = format!("{algorithm} of the bytes read");
    in_parallel(pairs.len(), jobs, |i| {
        let (_, path, _) = &pairs[i];
        let store = remote[i].clone()?;
        let mut file = File::open(path).map_err(|e| io_message(&e))?;
        let mut h = hasher();
        let local = hash_reader(
            &mut file,
            h.as_mut(),
            &mut ReadBuffer::new(256 << 10),
            &Cancel::new(),
        )
        .map_err(|e| io_message(&e))?
        .digest
        .to_hex();
        Ok(if local == store {
            Verdict::Matched { by: by.clone() }
        } else {
            Verdict::Changed {
                by: by.clone(),
                local,
                store,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Settings;

    /// A `file://` store: its listing pairs as S3's does, but it records no
    /// checksum and its ETags are no MD5s.
    #[test]
    fn files_pair_with_objects_by_path_and_download_compares_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (local, store) = (dir.path().join("local"), dir.path().join("store"));
        for (root, files) in [
            (
                &local,
                &[("a", &b"same"[..]), ("sub/b", b"old"), ("only here", b"1")][..],
            ),
            (
                &store,
                &[("a", &b"same"[..]), ("sub/b", b"new"), ("only there", b"2")][..],
            ),
        ] {
            for (name, bytes) in files {
                let path = root.join(name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, bytes).unwrap();
            }
        }
        let reader = ObjectReader::new(Settings::default()).unwrap();
        let registry = Registry::default();
        let prefix = format!("file://{}", store.display());
        let download = Mode::Download {
            algorithm: "sha256".into(),
        };
        let found = compare_tree(&reader, &registry, &local, &prefix, &download, 2).unwrap();
        assert_eq!(found.only_local, ["only here"]);
        assert_eq!(found.only_in_store, ["only there"]);
        assert_eq!(found.compared.len(), 2);
        assert!(matches!(&found.compared[0], (n, Verdict::Matched { .. }) if n == "a"));
        assert!(matches!(&found.compared[1], (n, Verdict::Changed { .. }) if n == "sub/b"));
        assert!(!found.passed());

        // The local store keeps no checksum: nothing to compare by, and why.
        let found = compare_tree(&reader, &registry, &local, &prefix, &Mode::Recorded, 2).unwrap();
        let reasons: Vec<&Verdict> = found.compared.iter().map(|(_, v)| v).collect();
        assert!(
            reasons.iter().all(
                |v| matches!(v, Verdict::NotComparable { reason } if reason.contains("not an MD5"))
            ),
            "{reasons:?}"
        );

        // A file is no directory; a bad algorithm is refused before any read.
        let not_dir = compare_tree(
            &reader,
            &registry,
            &local.join("a"),
            &prefix,
            &Mode::Recorded,
            1,
        );
        assert!(matches!(not_dir, Err(CompareError::NotADirectory(_))));
        let bad = Mode::Download {
            algorithm: "no-such-hash".into(),
        };
        assert!(matches!(
            compare_tree(&reader, &registry, &local, &prefix, &bad, 1),
            Err(CompareError::Hash(_))
        ));
        // A prefix with nothing under it: every file is only local.
        let empty = format!("file://{}/nothing", store.display());
        let found = compare_tree(&reader, &registry, &local, &empty, &Mode::Recorded, 1).unwrap();
        assert_eq!(found.only_local.len(), 3);
    }
}
