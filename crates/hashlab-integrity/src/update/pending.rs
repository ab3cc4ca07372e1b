//! What an update found (files seen, read, gone) and the manifest written
//! from it: kept lines as they were, new ones in the manifest's style.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hashlab::{OutputRule, Registry};
use serde::Serialize;

use super::listing::{path_of, shown, Form, Item, JsonRow, Listing, Stamp, UpdateError};
use super::read::mark_binary;
use super::sidecar::{check_of, sidecar_path, Sidecar, SidecarEntry};
use crate::audit::{is_url_name, key};
use crate::manifest::Framing;
use crate::many::FileDigests;
use crate::plan::SumPlan;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UpdateReport {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    /// Dropped with `prune`: the files are gone.
    pub removed: Vec<String>,
    /// Gone, but kept without `prune`.
    pub missing: Vec<String>,
    /// Read again (size or times moved) and found with the same digests.
    pub rehashed: Vec<String>,
    /// Not read: size and times as recorded.
    pub unchanged: usize,
    /// Entries outside the paths given: kept as they were, not read.
    pub outside: Vec<String>,
    /// (name, why): kept as they were.
    pub unreadable: Vec<(String, String)>,
    /// (path, why): paths given or met in the walk, not entries, that
    /// could not be read (or are directories not walked): no entry under
    /// them is dropped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_read: Vec<(String, String)>,
    /// (name, what it is now): there, but not a file the walk reads (a
    /// link not followed, an excluded name); kept as they were.
    pub skipped: Vec<(String, String)>,
}

/// A file seen now, local or in a store.
#[derive(Debug, Clone)]
pub struct Seen {
    /// As the walk or listing names it.
    pub name: Vec<u8>,
    pub stamp: Stamp,
}

/// What becomes of each listed file and each file seen.
#[derive(Debug, Default)]
pub struct Pending {
    /// Indices into the `seen` given to [`Listing::pending`] that must be read.
    pub to_hash: Vec<usize>,
    /// The listed file each seen one is (`None`: new).
    pub(super) listed_of: Vec<Option<usize>>,
    pub(super) seen_names: Vec<Vec<u8>>,
    pub(super) seen_stamps: Vec<Stamp>,
    /// Listed files seen with the recorded stamp.
    pub(super) fresh: Vec<bool>,
    /// Listed files no longer there, and whether to drop them.
    pub(super) gone: Vec<bool>,
    /// (name, the other name of the same file) of listed files named twice
    /// (`./d/a` beside `d/a`): one would be kept stale.
    pub(super) aliases: Vec<(String, String)>,
    pub(super) report: UpdateReport,
}

/// The manifest rewritten, its sidecar (for forms that record no times),
/// and what changed.
#[derive(Debug)]
pub struct Updated {
    pub manifest: Vec<u8>,
    pub sidecar: Option<Vec<u8>>,
    pub report: UpdateReport,
}

/// Where the walk may meet the manifest and what writing it leaves: the
/// manifest, its sidecar, and the temporary files of a run that was killed
/// (`.<name>.XXXXXXXX.tmp`), none of which is a file of the tree.
pub fn own_files(manifest: &Path) -> impl Fn(&Path) -> bool {
    let sidecar = sidecar_path(manifest);
    let cwd = std::env::current_dir().unwrap_or_default();
    let keys = [key(manifest, &cwd), key(&sidecar, &cwd)];
    let dir = keys[0].parent().map(Path::to_path_buf).unwrap_or_default();
    let temp_prefixes: Vec<OsString> = keys
        .iter()
        .filter_map(|k| k.file_name())
        .map(|n| {
            let mut p = OsString::from(".");
            p.push(n);
            p.push(".");
            p
        })
        .collect();
    let names: Vec<OsString> = keys
        .iter()
        .filter_map(|k| k.file_name().map(|n| n.to_owned()))
        .collect();
    move |path: &Path| {
        let Some(name) = path.file_name() else {
            return false;
        };
        let temp = name.as_encoded_bytes().ends_with(b".tmp")
            && temp_prefixes
                .iter()
                .any(|p| name.as_encoded_bytes().starts_with(p.as_encoded_bytes()));
        // Most files of a tree are told apart by their last component alone.
        if !temp && !names.iter().any(|n| n == name) {
            return false;
        }
        let k = key(path, &cwd);
        keys.contains(&k) || (temp && k.parent() == Some(dir.as_path()))
    }
}

impl Listing {
    /// Sorts what is seen now against the listing: new files and files
    /// whose stamp moved are to be read; listed files not seen, inside
    /// `roots` (the paths walked or listed, or none for "every listed
    /// file"), are gone when `exists` says so, and dropped with `prune`.
    pub fn pending(
        &self,
        seen: Vec<Seen>,
        roots: Option<&[PathBuf]>,
        cwd: &Path,
        prune: bool,
        exists: &dyn Fn(&[u8]) -> Result<bool, String>,
    ) -> Pending {
        let key_of = |name: &[u8]| key(&path_of(name), cwd);
        // Compared as absolute paths; a key's key is itself.
        let roots: Option<Vec<PathBuf>> = roots.map(|r| r.iter().map(|p| key(p, cwd)).collect());
        let roots = roots.as_deref();
        // Names are compared as spelled first, and as absolute paths
        // (`./a`, `a`, `/cwd/a`) only when that fails: building the
        // second index costs more than the stats of a large tree.
        let by_name: HashMap<&[u8], usize> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_slice(), i))
            .collect();
        let mut by_key: Option<HashMap<PathBuf, usize>> = None;
        let mut find = |name: &[u8]| -> Option<usize> {
            if let Some(&i) = by_name.get(name) {
                return Some(i);
            }
            by_key
                .get_or_insert_with(|| {
                    self.files
                        .iter()
                        .enumerate()
                        .map(|(i, f)| (key_of(&f.name), i))
                        .collect()
                })
                .get(&key_of(name))
                .copied()
        };
        let mut p = Pending {
            fresh: vec![false; self.files.len()],
            gone: vec![false; self.files.len()],
            ..Pending::default()
        };
        let mut seen_listed = vec![false; self.files.len()];
        let mut new_keys = HashSet::new();
        for (i, s) in seen.into_iter().enumerate() {
            let listed = find(&s.name);
            let again = match listed {
                Some(l) => seen_listed[l],
                None => !new_keys.insert(key_of(&s.name)),
            };
            if again {
                // The same file given twice (`dir dir/a`): read once.
                p.listed_of.push(None);
                p.seen_names.push(Vec::new());
                p.seen_stamps.push(Stamp::default());
                continue;
            }
            match listed {
                Some(l) => {
                    seen_listed[l] = true;
                    if self.files[l].stamp.unchanged(&s.stamp) {
                        p.fresh[l] = true;
                    } else {
                        p.to_hash.push(i);
                    }
                }
                None => p.to_hash.push(i),
            }
            p.listed_of.push(listed);
            p.seen_names.push(s.name);
            p.seen_stamps.push(s.stamp);
        }
        let mut seen_keys: Option<HashMap<PathBuf, usize>> = None;
        for (l, file) in self.files.iter().enumerate() {
            if seen_listed[l] {
                continue;
            }
            let name = shown(&file.name);
            let inside = match roots {
                // Every listed file was looked for, except objects: no store was asked.
                None => !is_url_name(&file.name),
                Some(roots) => {
                    let k = key_of(&file.name);
                    roots.iter().any(|r| k.starts_with(r))
                }
            };
            if !inside {
                p.report.outside.push(name);
                continue;
            }
            match exists(&file.name) {
                Ok(false) if prune => {
                    p.gone[l] = true;
                    p.report.removed.push(name);
                }
                Ok(false) => p.report.missing.push(name),
                Ok(true) => {
                    let k = key_of(&file.name);
                    let seen_keys = seen_keys.get_or_insert_with(|| {
                        self.files
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| seen_listed[*i])
                            .map(|(i, f)| (key_of(&f.name), i))
                            .collect::<HashMap<PathBuf, usize>>()
                    });
                    match seen_keys.get(&k) {
                        Some(&other) => p.aliases.push((name, shown(&self.files[other].name))),
                        None => p
                            .report
                            .skipped
                            .push((name, "not a file the walk reads".to_string())),
                    }
                }
                Err(why) => p.report.unreadable.push((name, why)),
            }
        }
        p.report.unchanged = p.fresh.iter().filter(|f| **f).count();
        p
    }
}

impl Pending {
    /// The outcome of reading one of [`Pending::to_hash`] (by its index among
    /// the seen), and the manifest rewritten once every outcome is in.
    pub fn finish(
        mut self,
        listing: &Listing,
        plan: &SumPlan,
        cwd: &Path,
        results: Vec<(usize, Result<FileDigests, String>)>,
    ) -> Result<Updated, UpdateError> {
        if let Some((name, other)) = self.aliases.first() {
            return Err(UpdateError::SameFile {
                name: name.clone(),
                other: other.clone(),
            });
        }
        if !listing.held.may_empty
            && !listing.files.is_empty()
            && self.gone.iter().all(|g| *g)
            && self.to_hash.is_empty()
        {
            return Err(UpdateError::WouldEmpty {
                entries: listing.files.len(),
            });
        }
        // For each listed file: its new digests (None: keep), dropped or not.
        let mut replaced: Vec<Option<(FileDigests, Stamp)>> = vec![None; listing.files.len()];
        let mut added: Vec<(Vec<u8>, FileDigests, Stamp)> = Vec::new();
        let mut kept_stamps: Vec<Option<Stamp>> = listing
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| self.fresh[i].then(|| f.stamp.clone()))
            .collect();
        let column_names: Vec<&str> = plan.columns.iter().map(|c| c.choice.name()).collect();
        for (i, result) in results {
            let name = &self.seen_names[i];
            let digests = match result {
                Ok(d) => d,
                Err(why) => {
                    let label = match self.listed_of[i] {
                        Some(l) => listing.files[l].name.clone(),
                        None => listing.label(name, cwd),
                    };
                    self.report.unreadable.push((shown(&label), why));
                    continue;
                }
            };
            let mut stamp = Stamp::of_hashed(&digests);
            stamp.etag = self.seen_stamps[i].etag.clone();
            match self.listed_of[i] {
                Some(l) => {
                    let file = &listing.files[l];
                    let same = file.digests.iter().all(|(algorithm, digest)| {
                        column_names
                            .iter()
                            .position(|c| c == algorithm)
                            .is_some_and(|c| digests.digests[c].as_bytes() == digest.as_slice())
                    });
                    if same {
                        self.report.rehashed.push(shown(&file.name));
                        kept_stamps[l] = Some(stamp.clone());
                        if listing.form == Form::Json {
                            replaced[l] = Some((digests, stamp));
                        }
                    } else {
                        self.report.changed.push(shown(&file.name));
                        replaced[l] = Some((digests, stamp));
                    }
                }
                None => {
                    let label = listing.label(name, cwd);
                    self.report.added.push(shown(&label));
                    added.push((label, digests, stamp));
                }
            }
        }
        // A manifest written on Windows (or by a tool that ends lines so)
        // gets its new lines ended the same way.
        let crlf = plan.terminator == b'\n'
            && listing
                .items
                .iter()
                .find_map(|i| match i {
                    Item::Line { raw, .. } => Some(raw.ends_with(b"\r\n")),
                    _ => None,
                })
                .unwrap_or(false);
        let ending: &[u8] = if crlf {
            b"\r\n"
        } else {
            std::slice::from_ref(&plan.terminator)
        };
        let render = |name: &[u8], digests: &FileDigests| -> Result<Vec<u8>, UpdateError> {
            let mut lines = plan
                .lines(name, name, digests)
                .map_err(|e| UpdateError::Plan(format!("{}: {e}", shown(name))))?;
            if listing.style.binary {
                mark_binary(&mut lines);
            }
            if crlf {
                // Names are escaped in lines: every LF is a line's end.
                let mut ended = Vec::with_capacity(lines.len() + lines.len() / 32);
                for &b in &lines {
                    if b == b'\n' {
                        ended.push(b'\r');
                    }
                    ended.push(b);
                }
                lines = ended;
            }
            Ok(lines)
        };
        let rows = |name: &[u8], digests: &FileDigests, stamp: &Stamp| -> Vec<serde_json::Value> {
            plan.columns
                .iter()
                .zip(&digests.digests)
                .map(|(c, d)| {
                    let row = JsonRow::new(
                        name,
                        c.choice.name(),
                        c.choice.backend_name(),
                        d,
                        stamp.clone(),
                    );
                    serde_json::to_value(row).expect("rows are plain data")
                })
                .collect()
        };
        let root_line = python_root_line(listing, plan, &replaced, &self.gone, &added);
        let mut out = Vec::new();
        let mut json: Vec<serde_json::Value> = Vec::new();
        let mut written = vec![false; listing.files.len()];
        let mut last_ends_line = true;
        for item in &listing.items {
            match item {
                Item::Raw(raw) if raw.starts_with(PYTHON_ROOT) && root_line.is_some() => {
                    out.extend_from_slice(root_line.as_deref().expect("tested"));
                }
                Item::Raw(raw) => {
                    out.extend_from_slice(raw);
                    last_ends_line = raw.ends_with(b"\n") || raw.ends_with(b"\0");
                }
                Item::Line { file, raw } => {
                    if self.gone[*file] {
                        continue;
                    }
                    match &replaced[*file] {
                        None => {
                            out.extend_from_slice(raw);
                            last_ends_line = raw.ends_with(b"\n") || raw.ends_with(b"\0");
                        }
                        Some((digests, _)) if !written[*file] => {
                            written[*file] = true;
                            if !last_ends_line {
                                out.extend_from_slice(ending);
                            }
                            out.extend_from_slice(&render(&listing.files[*file].name, digests)?);
                            last_ends_line = true;
                        }
                        Some(_) => {}
                    }
                }
                Item::Json { file, value } => {
                    if self.gone[*file] {
                        continue;
                    }
                    match &replaced[*file] {
                        None => json.push(value.clone()),
                        Some((digests, stamp)) if !written[*file] => {
                            written[*file] = true;
                            json.extend(rows(&listing.files[*file].name, digests, stamp));
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        for (label, digests, stamp) in &added {
            if listing.form == Form::Json {
                json.extend(rows(label, digests, stamp));
            } else {
                if !last_ends_line {
                    out.extend_from_slice(ending);
                }
                out.extend_from_slice(&render(label, digests)?);
                last_ends_line = true;
            }
        }
        if listing.form == Form::Json {
            out = serde_json::to_vec_pretty(&json).expect("values serialize");
            out.push(b'\n');
        }
        let sidecar = (listing.form != Form::Json).then(|| {
            let first = listing.columns.first().map(|(a, _)| a.as_str());
            let first_column = column_names.iter().position(|c| Some(*c) == first);
            let fresh_check = |digests: &FileDigests| {
                first_column.and_then(|c| check_of(digests.digests[c].as_bytes()))
            };
            let mut files = Vec::new();
            let mut entry = |name: &[u8], stamp: &Stamp, check: Option<[u8; 8]>| {
                if let Some(check) = check {
                    files.push(SidecarEntry {
                        name: name.to_vec(),
                        stamp: stamp.clone(),
                        check,
                    });
                }
            };
            for (l, file) in listing.files.iter().enumerate() {
                if self.gone[l] {
                    continue;
                }
                match (&replaced[l], &kept_stamps[l]) {
                    (Some((digests, stamp)), _) => entry(&file.name, stamp, fresh_check(digests)),
                    (None, Some(stamp)) => {
                        let check = file
                            .digests
                            .iter()
                            .find(|(a, _)| Some(a.as_str()) == first)
                            .and_then(|(_, d)| check_of(d));
                        entry(&file.name, stamp, check)
                    }
                    (None, None) => {}
                }
            }
            for (label, digests, stamp) in &added {
                entry(label, stamp, fresh_check(digests));
            }
            Sidecar { files }.to_bytes()
        });
        Ok(Updated {
            manifest: out,
            sidecar,
            report: self.report,
        })
    }
}

/// The first line of a manifest the Python package writes
/// (`hashlab.Manifest.write`), and its comment naming the root.
const PYTHON_HEADER: &[u8] = b"# hashlab manifest 1\n";
const PYTHON_ROOT: &[u8] = b"# root: ";

/// For a manifest of the Python package, its `# root:` line as it must
/// now read: the manifest's algorithm, unkeyed, over its lines as `sum`
/// writes them, sorted by the bytes of the names (python/hashlab/_manifest.py),
/// so that `Manifest.read` takes the updated file for what it is. `None`
/// for any other manifest.
fn python_root_line(
    listing: &Listing,
    plan: &SumPlan,
    replaced: &[Option<(FileDigests, Stamp)>],
    gone: &[bool],
    added: &[(Vec<u8>, FileDigests, Stamp)],
) -> Option<Vec<u8>> {
    let starts = listing
        .items
        .first()
        .is_some_and(|i| matches!(i, Item::Raw(r) if r.as_slice() == PYTHON_HEADER));
    let [column] = plan.columns.as_slice() else {
        return None;
    };
    if !starts
        || listing.form
            != (Form::Lines {
                framing: Framing::Lines,
            })
    {
        return None;
    }
    let algorithm = column.choice.algorithm();
    let mut entries: Vec<(&[u8], &[u8])> = Vec::new();
    for (l, file) in listing.files.iter().enumerate() {
        if gone[l] {
            continue;
        }
        let digest = match &replaced[l] {
            Some((d, _)) => d.digests[0].as_bytes(),
            None => file.digests.first().map(|(_, d)| d.as_slice())?,
        };
        entries.push((&file.name, digest));
    }
    for (name, d, _) in added {
        entries.push((name, d.digests[0].as_bytes()));
    }
    entries.sort();
    let length = column.choice.output_len();
    let params = hashlab::HashParams {
        length: (!matches!(algorithm.output, OutputRule::Fixed { .. })).then_some(length),
        ..hashlab::HashParams::default()
    };
    let mut hasher = Registry::default()
        .hasher(&algorithm.name, None, &params)
        .ok()?;
    let tag = algorithm.tag_for_length(length);
    for (name, digest) in entries {
        let hex = hashlab::hex::encode(digest);
        let line = if algorithm.lines == hashlab::LineForm::Tagged {
            crate::lines::tag_line(&tag, name, &hex)
        } else {
            crate::lines::gnu_line_as(&hex, name, crate::lines::escaping_for(algorithm.lines))
        };
        hasher.update(&line);
    }
    let mut line = PYTHON_ROOT.to_vec();
    line.extend_from_slice(hasher.finalize_reset().to_hex().as_bytes());
    line.push(b'\n');
    Some(line)
}
