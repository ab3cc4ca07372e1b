//! `audit`: a tree against a manifest, as `hashdeep -a` does: which files
//! match, changed, went missing, are new, or moved (same digest, other path).
//! Every file is re-hashed: bitrot changes no size and no mtime.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::Metadata;
use std::io;
use std::path::{Component, Path, PathBuf};

use hashlab::{HashError, HashParams, OutputRule, Registry};
use serde::Serialize;

use crate::many::{hash_inputs, inode_and_ctime_ns, mtime_ns, Fanout, FileDigests, HashJob};
use crate::outfile::io_message;
use crate::read::ReadStrategy;
use crate::recorded::{pairs, Recorded, MAX_ALGORITHMS, MAX_DIGEST_BYTES};
use crate::walk::Input;

mod rows;
pub use rows::{verdict_words, AuditCounts, AuditRow, ManifestAudit, RowStatus};

/// What an audit found; names as the manifest and the walk spell them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AuditReport {
    pub matched: Vec<String>,
    pub changed: Vec<String>,
    pub missing: Vec<String>,
    pub new: Vec<String>,
    /// (recorded name, where its content is now).
    pub moved: Vec<(String, String)>,
    /// (name, why it could not be read); a recorded file inside a directory
    /// that could not be read is here too, not among the missing.
    pub unreadable: Vec<(String, String)>,
    /// (recorded name, what it is now): still there, but not a file the
    /// audit reads (a symbolic link, which the walk does not follow, a
    /// directory, a device), or outside the audited paths. Not verified, so
    /// the audit fails, but not missing either.
    pub skipped: Vec<(String, String)>,
    /// With `changed_only`: files whose size, modification time, inode and
    /// status-change time are as recorded (as far as the manifest records
    /// them), so they were not re-hashed (bitrot changes none of them).
    pub assumed: Vec<String>,
    /// With [`AuditScope::keep_digests`]: every file read, as the walk or
    /// listing names it, with its digests by [`AuditReport::columns`], so
    /// that a re-baseline need not read them again.
    #[serde(skip)]
    pub hashed: Vec<(String, FileDigests)>,
    /// (algorithm, digest length) of each digest in `hashed`.
    #[serde(skip)]
    pub columns: Vec<(String, usize)>,
}

/// What an audit leaves out, and what it keeps, besides its findings.
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditScope<'a> {
    /// The manifest itself, when it lies in the tree: not called new.
    pub skip: Option<&'a Path>,
    /// A file whose size and times are as recorded is not re-hashed but
    /// listed as assumed intact.
    pub changed_only: bool,
    /// Keep every file's digests in [`AuditReport::hashed`].
    pub keep_digests: bool,
}

impl AuditReport {
    pub fn passed(&self) -> bool {
        self.changed.is_empty()
            && self.missing.is_empty()
            && self.new.is_empty()
            && self.moved.is_empty()
            && self.unreadable.is_empty()
            && self.skipped.is_empty()
    }
}

/// Why an audit could not run.
#[derive(Debug)]
pub enum AuditError {
    /// The current directory, against which relative names are compared.
    CurrentDir(io::Error),
    /// An algorithm and length of the manifest cannot be hashed here.
    Hasher(HashError),
    /// More (algorithm, length) pairs than [`MAX_ALGORITHMS`].
    TooManyAlgorithms { limit: usize },
    /// A digest longer than [`MAX_DIGEST_BYTES`].
    DigestTooLong { bytes: usize, limit: usize },
    /// What hashes remote inputs failed.
    Remote(String),
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditError::CurrentDir(e) => write!(f, "current directory: {}", io_message(e)),
            AuditError::Hasher(e) => write!(f, "{e}"),
            AuditError::TooManyAlgorithms { limit } => write!(
                f,
                "more than {limit} algorithm and length pairs; audit hashes every file with each, and takes at most {limit}"
            ),
            AuditError::DigestTooLong { bytes, limit } => write!(
                f,
                "a {bytes}-byte digest; audit compares digests of at most {limit} bytes"
            ),
            AuditError::Remote(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for AuditError {}

/// The path as an absolute one, lexically (`./a/../b` → `<cwd>/b`), so that
/// `data/x`, `./data/x` and hashdeep's absolute names meet.
pub(crate) fn key(name: &Path, cwd: &Path) -> PathBuf {
    if is_url_name(name.as_os_str().as_encoded_bytes()) {
        // An object-store URL names the same object from any directory.
        return name.to_path_buf();
    }
    let joined = if name.is_absolute() {
        name.to_path_buf()
    } else {
        cwd.join(name)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether a name is a URL (`scheme://...`) rather than a path.
pub fn is_url_name(name: &[u8]) -> bool {
    let Some(at) = name.windows(3).position(|w| w == b"://") else {
        return false;
    };
    let scheme = &name[..at];
    scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(b))
}

pub(crate) fn path_of(bytes: &[u8]) -> PathBuf {
    crate::walk::parse_file_list(bytes, true)
        .pop()
        .unwrap_or_default()
}

/// Whether the manifest records what `changed_only` compares.
pub fn records_size_or_time(recorded: &[Recorded]) -> bool {
    recorded
        .iter()
        .any(|r| r.size.is_some() || r.mtime_ns.is_some())
}

/// A file that still has the size, modification time, inode and
/// status-change time the manifest gives it, as far as it records them.
fn looks_unchanged(meta: &Metadata, r: &Recorded) -> bool {
    if r.size.is_none() && r.mtime_ns.is_none() {
        return false;
    }
    let same = |recorded: Option<u64>, now: Option<u64>| recorded.is_none_or(|r| Some(r) == now);
    let (inode, ctime_ns) = inode_and_ctime_ns(meta);
    meta.is_file()
        && same(r.size, Some(meta.len()))
        && same(r.mtime_ns, meta.modified().ok().and_then(mtime_ns))
        && same(r.inode, inode)
        && same(r.ctime_ns, ctime_ns)
}

/// Audits the files of `tree` against `recorded`, hashing on `jobs` threads.
/// `skip` (the manifest itself, when it lies in the tree) is not called new.
/// With `changed_only`, a file whose size and times are as recorded is not
/// re-hashed but listed as assumed intact.
pub fn audit(
    registry: &Registry,
    recorded: &[Recorded],
    tree: &[Input],
    jobs: usize,
    skip: Option<&Path>,
    changed_only: bool,
) -> Result<AuditReport, AuditError> {
    let scope = AuditScope {
        skip,
        changed_only,
        keep_digests: false,
    };
    audit_with(registry, recorded, tree, jobs, scope, None)
}

/// What hashes the inputs the file system does not hold (object-store URLs)
/// for [`audit_with`]: given the hashers to use (one per recorded algorithm),
/// every such input's name and digests, in any order. An `Err` stops the audit.
pub type RemoteHash<'a> =
    &'a mut dyn FnMut(
        &(dyn Fn() -> Fanout + Sync),
    ) -> Result<Vec<(String, Result<FileDigests, String>)>, String>;

/// A file hashed that no recorded name claims: perhaps where a missing one went.
struct Fresh {
    /// The path's bytes: new files are listed, and moves found, in their order.
    order: Vec<u8>,
    shown: String,
    digests: FileDigests,
}

/// "No further entry": the end of a chain in [`Groups`] and the digest index.
const NONE: usize = usize::MAX;

/// Recorded entries by key (a name may be recorded under several
/// algorithms): flat, with no allocation per entry, since a manifest may
/// list millions. Keys are compared as bytes: they are built component by
/// component, so equal paths have equal bytes.
struct Groups<'a> {
    /// Key → the first entry (in manifest order) with that key.
    first: HashMap<&'a OsStr, usize>,
    /// Each entry's next entry with the same key, or [`NONE`].
    next: Vec<usize>,
}

impl<'a> Groups<'a> {
    fn new(keys: &'a [PathBuf]) -> Groups<'a> {
        let mut first = HashMap::with_capacity(keys.len());
        let mut next = vec![NONE; keys.len()];
        // The last entry of each chain so far, indexed by the chain's first.
        let mut last = vec![NONE; keys.len()];
        for (i, k) in keys.iter().enumerate() {
            match first.entry(k.as_os_str()) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(i);
                    last[i] = i;
                }
                std::collections::hash_map::Entry::Occupied(o) => {
                    let head = *o.get();
                    next[last[head]] = i;
                    last[head] = i;
                }
            }
        }
        Groups { first, next }
    }

    /// The entries of the group that starts at `first`.
    fn members(&self, first: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(first), |&i| Some(self.next[i]).filter(|&n| n != NONE))
    }
}

/// The results of hashing, sorted as they arrive.
struct Tally<'a> {
    cwd: &'a Path,
    recorded: &'a [Recorded],
    /// Each recorded entry's hasher in the fanout.
    columns: &'a [usize],
    groups: &'a Groups<'a>,
    /// Indexed by a group's first entry: a file of that name was met.
    seen: Vec<bool>,
    /// Keys of inputs that could not be read (directories among them).
    unreadable_keys: HashMap<PathBuf, String>,
    fresh: Vec<Fresh>,
    keep_digests: bool,
    report: AuditReport,
}

impl Tally<'_> {
    fn add(&mut self, path: &Path, result: Result<FileDigests, String>) {
        let k = key(path, self.cwd);
        let shown = path.display().to_string();
        let group = self.groups.first.get(k.as_os_str()).copied();
        if let Some(first) = group {
            self.seen[first] = true;
        }
        let digests = match result {
            Ok(d) => d,
            Err(e) => {
                self.unreadable_keys.insert(k, e.clone());
                self.report.unreadable.push((shown, e));
                return;
            }
        };
        if self.keep_digests {
            self.report.hashed.push((shown.clone(), digests.clone()));
        }
        match group {
            Some(first) => {
                let intact = self.groups.members(first).all(|i| {
                    digests.digests[self.columns[i]].as_bytes() == self.recorded[i].digest
                });
                if intact {
                    self.report.matched.push(shown);
                } else {
                    self.report.changed.push(shown);
                }
            }
            None => self.fresh.push(Fresh {
                order: path.as_os_str().as_encoded_bytes().to_vec(),
                shown,
                digests,
            }),
        }
    }

    /// What a recorded name that was neither hashed nor moved is: inside a
    /// directory that could not be read, something the audit does not read,
    /// or missing.
    fn account_for(&mut self, name: String, k: &Path) {
        if is_url_name(k.as_os_str().as_encoded_bytes()) {
            self.report.missing.push(name);
            return;
        }
        if let Some((dir, why)) = k
            .ancestors()
            .skip(1)
            .find_map(|a| self.unreadable_keys.get(a).map(|why| (a, why)))
        {
            let why = format!("in {}, which could not be read: {why}", dir.display());
            self.report.unreadable.push((name, why));
            return;
        }
        let what = match std::fs::symlink_metadata(k) {
            Ok(meta) => {
                let kind = meta.file_type();
                if kind.is_symlink() {
                    "a symbolic link, which audit does not follow".to_string()
                } else if kind.is_dir() {
                    "a directory now".to_string()
                } else if !kind.is_file() {
                    "not a regular file (a FIFO, socket or device)".to_string()
                } else if let Some(link) = k.ancestors().skip(1).find(|a| {
                    std::fs::symlink_metadata(a).is_ok_and(|m| m.file_type().is_symlink())
                }) {
                    format!(
                        "behind the symbolic link {}, which audit does not follow",
                        link.display()
                    )
                } else {
                    "outside the audited paths".to_string()
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.report.missing.push(name);
                return;
            }
            // Not root, and a directory on the way is not searchable.
            Err(e) => {
                self.report.unreadable.push((name, io_message(&e)));
                return;
            }
        };
        self.report.skipped.push((name, what));
    }
}

/// [`audit`], with inputs from elsewhere too: `remote` hashes them (URL
/// names are compared as they are spelled; they are never re-based on the
/// current directory, and `changed_only` does not apply to them).
///
/// Time and memory are linear in the files and entries: moves are found
/// through an index of the new files' digests (the first new file in name
/// order with a missing entry's digest), and only new files keep theirs.
pub fn audit_with(
    registry: &Registry,
    recorded: &[Recorded],
    tree: &[Input],
    jobs: usize,
    scope: AuditScope<'_>,
    remote: Option<RemoteHash<'_>>,
) -> Result<AuditReport, AuditError> {
    let AuditScope {
        skip,
        changed_only,
        keep_digests,
    } = scope;
    let cwd = std::env::current_dir().map_err(AuditError::CurrentDir)?;
    let algorithms = pairs(recorded);
    if algorithms.len() > MAX_ALGORITHMS {
        return Err(AuditError::TooManyAlgorithms {
            limit: MAX_ALGORITHMS,
        });
    }
    if let Some(r) = recorded.iter().find(|r| r.digest.len() > MAX_DIGEST_BYTES) {
        return Err(AuditError::DigestTooLong {
            bytes: r.digest.len(),
            limit: MAX_DIGEST_BYTES,
        });
    }
    // Every algorithm/length resolved once, before hashing anything; each
    // worker's hashers are copies.
    let mut choices = Vec::with_capacity(algorithms.len());
    for (alg, len) in &algorithms {
        let found = registry.find(alg).map_err(AuditError::Hasher)?;
        let params = HashParams {
            length: match found.algorithm().output {
                OutputRule::Fixed { .. } => None,
                _ => Some(*len),
            },
            ..Default::default()
        };
        let choice = found.resolve(None, &params).map_err(AuditError::Hasher)?;
        if choice.output_len() != *len {
            return Err(AuditError::Hasher(HashError::LengthNotAccepted {
                algorithm: alg.clone(),
                fixed: choice.output_len(),
            }));
        }
        choices.push(choice);
    }
    let make = || Fanout::new(choices.iter().map(|c| c.hasher()).collect());
    let columns: Vec<usize> = recorded
        .iter()
        .map(|r| {
            algorithms
                .iter()
                .position(|(a, l)| *a == r.algorithm && *l == r.digest.len())
                .expect("every recorded pair has a hasher")
        })
        .collect();
    let keys: Vec<PathBuf> = recorded
        .iter()
        .map(|r| key(&path_of(&r.name), &cwd))
        .collect();
    let groups = Groups::new(&keys);
    let mut tally = Tally {
        cwd: &cwd,
        recorded,
        columns: &columns,
        groups: &groups,
        seen: vec![false; recorded.len()],
        unreadable_keys: HashMap::new(),
        fresh: Vec::new(),
        keep_digests,
        report: AuditReport::default(),
    };
    if keep_digests {
        tally.report.columns = algorithms.clone();
    }

    let skip = skip.map(|s| key(s, &cwd));
    let mut to_hash: Vec<Input> = Vec::with_capacity(tree.len());
    for input in tree {
        match input {
            Input::File(p) => {
                let k = key(p, &cwd);
                if Some(&k) == skip.as_ref() {
                    continue;
                }
                if changed_only {
                    if let (Some(&first), Ok(meta)) =
                        (groups.first.get(k.as_os_str()), std::fs::metadata(p))
                    {
                        if groups
                            .members(first)
                            .all(|i| looks_unchanged(&meta, &recorded[i]))
                        {
                            tally.report.assumed.push(p.display().to_string());
                            tally.seen[first] = true;
                            continue;
                        }
                    }
                }
                to_hash.push(Input::File(p.clone()));
            }
            Input::Stdin => to_hash.push(Input::Stdin),
            Input::Problem(p, e) => to_hash.push(Input::Problem(
                p.clone(),
                io::Error::new(e.kind(), io_message(e)),
            )),
        }
    }
    let job = HashJob::new(ReadStrategy::for_hash(hashlab::FileBound::Hash, false));
    hash_inputs::<()>(&to_hash, &make, jobs, &job, &mut |i, result| {
        let path = match &to_hash[i] {
            Input::File(p) | Input::Problem(p, _) => p.as_path(),
            Input::Stdin => Path::new("-"),
        };
        tally.add(path, result.map_err(|e| io_message(&e)));
        Ok(())
    })
    .expect("the collector never stops the run");
    if let Some(remote) = remote {
        for (name, result) in remote(&make).map_err(AuditError::Remote)? {
            tally.add(Path::new(&name), result);
        }
    }

    // Moves: for each hasher a missing entry uses, an index from digest to
    // the first new file (in name order) with it, each new file linked to
    // the next with the same digest; flat, as for the groups.
    tally.fresh.sort_by(|a, b| a.order.cmp(&b.order));
    let fresh = std::mem::take(&mut tally.fresh);
    let unseen: Vec<usize> = (0..recorded.len())
        .filter(|&i| groups.first[keys[i].as_os_str()] == i && !tally.seen[i])
        .collect();
    let mut slot_of = vec![NONE; algorithms.len()];
    let mut wanted = Vec::new();
    for &i in &unseen {
        if slot_of[columns[i]] == NONE {
            slot_of[columns[i]] = wanted.len();
            wanted.push(columns[i]);
        }
    }
    let mut heads: HashMap<(usize, &[u8]), usize> = HashMap::new();
    let mut next_same = vec![vec![NONE; fresh.len()]; wanted.len()];
    for at in (0..fresh.len()).rev() {
        for (slot, &c) in wanted.iter().enumerate() {
            let digest = fresh[at].digests.digests[c].as_bytes();
            next_same[slot][at] = heads.insert((c, digest), at).unwrap_or(NONE);
        }
    }
    let mut taken = vec![false; fresh.len()];
    for first in unseen {
        let c = columns[first];
        let chain = &next_same[slot_of[c]];
        let moved_to = heads
            .get_mut(&(c, recorded[first].digest.as_slice()))
            .and_then(|head| {
                // Files taken by earlier entries leave the chain's front for good.
                while *head != NONE && taken[*head] {
                    *head = chain[*head];
                }
                // Every file on the chain has the first entry's digest; a name
                // recorded under several algorithms needs all of them.
                let start = Some(*head).filter(|&at| at != NONE);
                std::iter::successors(start, |&at| Some(chain[at]).filter(|&n| n != NONE)).find(
                    |&at| {
                        !taken[at]
                            && groups.members(first).all(|g| {
                                fresh[at].digests.digests[columns[g]].as_bytes()
                                    == recorded[g].digest
                            })
                    },
                )
            });
        let name = String::from_utf8_lossy(&recorded[first].name).into_owned();
        match moved_to {
            Some(at) => {
                taken[at] = true;
                tally.report.moved.push((name, fresh[at].shown.clone()));
            }
            None => tally.account_for(name, &keys[first]),
        }
    }
    let mut report = tally.report;
    report.new = fresh
        .into_iter()
        .zip(taken)
        .filter(|(_, taken)| !taken)
        .map(|(f, _)| f.shown)
        .collect();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorded::{read_manifest, ReadOptions};
    use crate::walk::{expand, WalkOptions};

    fn scratch(name: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("hashlab-audit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        root
    }

    fn walk(root: &Path) -> Vec<Input> {
        let walk = WalkOptions {
            recursive: true,
            ..Default::default()
        };
        expand(&[root.to_path_buf()], &walk)
    }

    /// A GNU sha256 manifest of the tree as it is now, written as `sum` writes it.
    fn manifest_of(registry: &Registry, tree: &[Input]) -> Vec<Recorded> {
        let mut manifest = Vec::new();
        let make = || {
            Fanout::new(vec![registry
                .hasher("sha256", None, &HashParams::default())
                .unwrap()])
        };
        let job = HashJob::new(ReadStrategy::for_hash(hashlab::FileBound::Hash, false));
        hash_inputs::<()>(tree, &make, 1, &job, &mut |i, r| {
            if let Input::File(p) = &tree[i] {
                manifest.extend(crate::lines::gnu_line(
                    &r.unwrap().digests[0].to_hex(),
                    p.as_os_str().as_encoded_bytes(),
                ));
            }
            Ok(())
        })
        .unwrap();
        read_manifest(registry, &manifest, "m.sha256", &ReadOptions::default())
            .unwrap()
            .entries
    }

    #[test]
    fn matched_changed_missing_new_and_moved() {
        let registry = Registry::default();
        let root = scratch("kinds");
        for (n, body) in [("same", "s"), ("rot", "r"), ("gone", "g"), ("mv", "m")] {
            std::fs::write(root.join(n), body).unwrap();
        }
        let recorded = manifest_of(&registry, &walk(&root));
        assert_eq!(recorded.len(), 4);
        // Bitrot (same size), a deletion, a move, a new file.
        std::fs::write(root.join("rot"), "R").unwrap();
        std::fs::remove_file(root.join("gone")).unwrap();
        std::fs::rename(root.join("mv"), root.join("moved-here")).unwrap();
        std::fs::write(root.join("brand-new"), "n").unwrap();
        let report = audit(&registry, &recorded, &walk(&root), 2, None, false).unwrap();
        let r = root.display().to_string();
        assert_eq!(report.matched, vec![format!("{r}/same")]);
        assert_eq!(report.changed, vec![format!("{r}/rot")]);
        assert_eq!(report.missing, vec![format!("{r}/gone")]);
        assert_eq!(
            report.moved,
            vec![(format!("{r}/mv"), format!("{r}/moved-here"))]
        );
        assert_eq!(report.new, vec![format!("{r}/brand-new")]);
        assert!(!report.passed());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn moves_pair_duplicates_in_manifest_and_name_order() {
        let registry = Registry::default();
        let root = scratch("dups");
        // d1, d2, d3 share one content; e1 another; u is unique.
        for (n, body) in [
            ("d1", "dup"),
            ("d2", "dup"),
            ("d3", "dup"),
            ("e1", "e"),
            ("u", "u"),
        ] {
            std::fs::write(root.join(n), body).unwrap();
        }
        let recorded = manifest_of(&registry, &walk(&root));
        for n in ["d1", "d2", "d3", "e1", "u"] {
            std::fs::remove_file(root.join(n)).unwrap();
        }
        // Two of the three duplicates come back under new names (in reverse
        // name order of creation), e1 twice, u not at all; and one stranger.
        std::fs::write(root.join("z-dup"), "dup").unwrap();
        std::fs::write(root.join("a-dup"), "dup").unwrap();
        std::fs::write(root.join("e-copy1"), "e").unwrap();
        std::fs::write(root.join("e-copy2"), "e").unwrap();
        std::fs::write(root.join("stranger"), "s").unwrap();
        let report = audit(&registry, &recorded, &walk(&root), 2, None, false).unwrap();
        let r = |n: &str| format!("{}/{n}", root.display());
        assert_eq!(
            report.moved,
            vec![
                (r("d1"), r("a-dup")),
                (r("d2"), r("z-dup")),
                (r("e1"), r("e-copy1")),
            ]
        );
        assert_eq!(report.missing, vec![r("d3"), r("u")]);
        assert_eq!(report.new, vec![r("e-copy2"), r("stranger")]);
        assert!(report.matched.is_empty() && report.changed.is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn moves_match_a_quadratic_reference_on_random_trees() {
        let registry = Registry::default();
        let root = scratch("random-moves");
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for round in 0..40 {
            let dir = root.join(format!("r{round}"));
            std::fs::create_dir(&dir).unwrap();
            // Few contents, so that digests repeat.
            let before: Vec<(String, u64)> = (0..random(12) + 1)
                .map(|i| (format!("old{i:02}"), random(4)))
                .collect();
            for (name, content) in &before {
                std::fs::write(dir.join(name), content.to_string()).unwrap();
            }
            let recorded = manifest_of(&registry, &walk(&dir));
            for (name, _) in &before {
                if random(3) > 0 {
                    std::fs::remove_file(dir.join(name)).unwrap();
                }
            }
            for _ in 0..random(10) {
                let name = format!("new{:02}", random(100));
                std::fs::write(dir.join(name), random(5).to_string()).unwrap();
            }
            let report = audit(&registry, &recorded, &walk(&dir), 2, None, false).unwrap();

            // The reference: each gone entry, in manifest order, takes the
            // first untaken new file (by name) with its content.
            let content_of = |p: &Path| std::fs::read_to_string(p).unwrap();
            let mut new_files: Vec<PathBuf> = walk(&dir)
                .into_iter()
                .filter_map(|i| match i {
                    Input::File(p)
                        if !p.file_name().unwrap().to_string_lossy().starts_with("old") =>
                    {
                        Some(p)
                    }
                    _ => None,
                })
                .collect();
            new_files.sort();
            let mut taken = vec![false; new_files.len()];
            let (mut moved, mut missing) = (Vec::new(), Vec::new());
            for (name, content) in &before {
                let path = dir.join(name);
                if path.exists() {
                    continue;
                }
                let found = (0..new_files.len())
                    .find(|&at| !taken[at] && content_of(&new_files[at]) == content.to_string());
                match found {
                    Some(at) => {
                        taken[at] = true;
                        moved.push((
                            path.display().to_string(),
                            new_files[at].display().to_string(),
                        ));
                    }
                    None => missing.push(path.display().to_string()),
                }
            }
            let new: Vec<String> = new_files
                .iter()
                .zip(&taken)
                .filter(|(_, t)| !**t)
                .map(|(p, _)| p.display().to_string())
                .collect();
            assert_eq!(report.moved, moved, "round {round}");
            assert_eq!(report.missing, missing, "round {round}");
            assert_eq!(report.new, new, "round {round}");
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_name_recorded_under_two_algorithms_moves_only_where_both_match() {
        let registry = Registry::default();
        let root = scratch("two-algorithms");
        std::fs::write(root.join("f"), "abc").unwrap();
        let f = root.join("f");
        let name = f.display();
        let manifest = format!(
            "MD5 ({name}) = 900150983cd24fb0d6963f7d28e17f72\n\
             SHA256 ({name}) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
        );
        let recorded = read_manifest(&registry, manifest.as_bytes(), "m", &ReadOptions::default())
            .unwrap()
            .entries;
        let report = audit(&registry, &recorded, &walk(&root), 1, None, false).unwrap();
        assert_eq!(report.matched.len(), 1, "{report:?}");
        assert!(report.passed());
        std::fs::rename(&f, root.join("g")).unwrap();
        let report = audit(&registry, &recorded, &walk(&root), 1, None, false).unwrap();
        assert_eq!(report.moved.len(), 1, "{report:?}");
        assert!(report.missing.is_empty() && report.new.is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn links_and_unreadable_directories_are_not_called_missing() {
        let registry = Registry::default();
        let root = scratch("not-missing");
        std::fs::create_dir(root.join("sub")).unwrap();
        for n in ["sub/inner", "plain", "target"] {
            std::fs::write(root.join(n), n).unwrap();
        }
        std::fs::create_dir(root.join("elsewhere")).unwrap();
        std::fs::write(root.join("elsewhere/x"), "x").unwrap();
        let recorded = manifest_of(&registry, &walk(&root));
        // `plain` becomes a symbolic link to `target`; `sub` cannot be read
        // (as root, permissions do not stop a walk, so the walk's report of
        // it is made here); `elsewhere` is left out of the audit.
        std::fs::remove_file(root.join("plain")).unwrap();
        std::os::unix::fs::symlink("target", root.join("plain")).unwrap();
        let mut tree: Vec<Input> = walk(&root)
            .into_iter()
            .filter(|i| match i {
                Input::File(p) => {
                    !p.starts_with(root.join("sub")) && !p.starts_with(root.join("elsewhere"))
                }
                _ => true,
            })
            .collect();
        tree.push(Input::Problem(
            root.join("sub"),
            io::Error::from(io::ErrorKind::PermissionDenied),
        ));
        let report = audit(&registry, &recorded, &tree, 1, None, false).unwrap();
        let r = |n: &str| format!("{}/{n}", root.display());
        assert!(report.missing.is_empty(), "{report:?}");
        assert_eq!(report.skipped.len(), 2, "{report:?}");
        assert_eq!(report.skipped[0].0, r("elsewhere/x"));
        assert_eq!(report.skipped[0].1, "outside the audited paths");
        assert_eq!(report.skipped[1].0, r("plain"));
        assert!(report.skipped[1].1.contains("symbolic link"));
        let inner = report
            .unreadable
            .iter()
            .find(|(n, _)| *n == r("sub/inner"))
            .expect("the file inside the unreadable directory");
        assert!(inner.1.contains("could not be read"), "{inner:?}");
        assert_eq!(report.matched, vec![r("target")]);
        assert!(!report.passed());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn changed_only_notices_two_files_swapped_within_one_tick() {
        let registry = Registry::default();
        let root = scratch("swap");
        let (a, b) = (root.join("a"), root.join("b"));
        std::fs::write(&a, "AAAA").unwrap();
        std::fs::write(&b, "BBBB").unwrap();
        let tick =
            std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        for p in [&a, &b] {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(tick)
                .unwrap();
        }
        let mut recorded = manifest_of(&registry, &walk(&root));
        for r in &mut recorded {
            let meta = std::fs::metadata(path_of(&r.name)).unwrap();
            let (inode, ctime_ns) = inode_and_ctime_ns(&meta);
            r.size = Some(meta.len());
            r.mtime_ns = meta.modified().ok().and_then(mtime_ns);
            r.inode = inode;
            r.ctime_ns = ctime_ns;
        }
        let report = audit(&registry, &recorded, &walk(&root), 1, None, true).unwrap();
        assert_eq!(report.assumed.len(), 2, "{report:?}");
        let tmp = root.join("tmp");
        std::fs::rename(&a, &tmp).unwrap();
        std::fs::rename(&b, &a).unwrap();
        std::fs::rename(&tmp, &b).unwrap();
        // Same sizes, same modification times: only the inodes and status-change times tell.
        let report = audit(&registry, &recorded, &walk(&root), 1, None, true).unwrap();
        assert!(report.assumed.is_empty(), "{report:?}");
        assert_eq!(report.changed.len(), 2, "{report:?}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn url_names_are_keys_as_spelled() {
        assert!(is_url_name(b"s3://bucket/a") && is_url_name(b"file:///tmp/x"));
        assert!(!is_url_name(b"data/s3://x") && !is_url_name(b"./a") && !is_url_name(b"://x"));
        let cwd = Path::new("/home");
        assert_eq!(
            key(Path::new("s3://b/a/../c"), cwd),
            Path::new("s3://b/a/../c")
        );
        assert_eq!(key(Path::new("a/../c"), cwd), Path::new("/home/c"));
    }
}
