//! `audit`: a tree against a manifest, as `hashdeep -a` does: which files
//! match, changed, went missing, are new, or moved (same digest, other path).
//! Every file is re-hashed: bitrot changes no size and no mtime.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Component, Path, PathBuf};

use hashlab::{HashParams, Registry};
use serde::{Deserialize, Serialize};

use crate::check::algorithm_from_length;
use crate::manifest::{parse_line, GnuReading, Line};
use crate::many::{hash_inputs, Fanout, FileDigests, HashJob};
use crate::read::ReadStrategy;
use crate::walk::Input;

/// One file as a manifest records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub name: Vec<u8>,
    pub algorithm: String,
    pub digest: Vec<u8>,
    /// Recorded by hashdeep manifests and `sum --json`.
    pub size: Option<u64>,
    /// Modification time, nanoseconds since the epoch; recorded by `sum --json`.
    pub mtime_ns: Option<u64>,
}

/// One object of `hashlab sum --json`'s array.
#[derive(Deserialize)]
struct JsonLine {
    file: String,
    algorithm: String,
    digest: String,
    bytes: Option<u64>,
    mtime_ns: Option<u64>,
}

/// hashdeep's column names for the algorithms both tools know, strongest first.
const HASHDEEP_COLUMNS: &[(&str, &str)] = &[("sha256", "sha256"), ("sha1", "sha1"), ("md5", "md5")];

/// Reads a manifest of any form `check` reads, or hashdeep's. `algorithm`
/// overrides what the lines say; `manifest_name` helps like `x.sha256` does.
pub fn read_manifest(
    registry: &Registry,
    bytes: &[u8],
    manifest_name: &str,
    algorithm: Option<&str>,
) -> Result<Vec<Recorded>, String> {
    if bytes.starts_with(b"%%%% HASHDEEP-1.0") {
        return read_hashdeep(bytes);
    }
    if bytes.trim_ascii_start().starts_with(b"[") {
        return read_sum_json(registry, bytes, algorithm);
    }
    let by_name = crate::check::algorithm_from_manifest_name(registry, manifest_name);
    let mut reading = GnuReading::Undecided;
    let mut out = Vec::new();
    let mut malformed = 0usize;
    for raw in bytes.split_inclusive(|b| *b == b'\n') {
        let (entry, tag_algorithm) = match parse_line(registry, raw) {
            Line::Skip => continue,
            Line::Malformed => {
                malformed += 1;
                continue;
            }
            Line::Entry(e) => {
                let tag = e.tag.as_ref().map(|t| t.algorithm.clone());
                (Some(e), tag)
            }
            Line::Gnu(g) => (g.resolve(&mut reading), None),
        };
        let Some(entry) = entry else {
            malformed += 1;
            continue;
        };
        let chosen = algorithm
            .map(str::to_string)
            .or(tag_algorithm)
            .or_else(|| by_name.clone())
            .or_else(|| algorithm_from_length(entry.expected.len()).map(str::to_string));
        let Some(chosen) = chosen else {
            malformed += 1;
            continue;
        };
        let canonical = registry
            .algorithm(&chosen)
            .map_err(|e| e.to_string())?
            .name
            .clone();
        out.push(Recorded {
            name: entry.name,
            algorithm: canonical,
            digest: entry.expected,
            size: None,
            mtime_ns: None,
        });
    }
    if out.is_empty() {
        return Err(format!(
            "no properly formatted checksum lines found{}",
            if malformed > 0 {
                format!(" ({malformed} improperly formatted)")
            } else {
                String::new()
            }
        ));
    }
    Ok(out)
}

/// `hashlab sum --json`: our own manifest, the one that records modification
/// times (for `audit --changed-only`).
fn read_sum_json(
    registry: &Registry,
    bytes: &[u8],
    algorithm: Option<&str>,
) -> Result<Vec<Recorded>, String> {
    let lines: Vec<JsonLine> = serde_json::from_slice(bytes)
        .map_err(|e| format!("not a `hashlab sum --json` manifest: {e}"))?;
    let mut out = Vec::with_capacity(lines.len());
    for (n, line) in lines.into_iter().enumerate() {
        let named = algorithm.unwrap_or(&line.algorithm);
        let canonical = registry
            .algorithm(named)
            .map_err(|e| format!("entry {}: {e}", n + 1))?
            .name
            .clone();
        let digest = hashlab::hex::decode(&line.digest)
            .map_err(|_| format!("entry {}: the digest is not hex", n + 1))?;
        out.push(Recorded {
            name: line.file.into_bytes(),
            algorithm: canonical,
            digest,
            size: line.bytes,
            mtime_ns: line.mtime_ns,
        });
    }
    if out.is_empty() {
        return Err("the manifest lists no files".into());
    }
    Ok(out)
}

fn read_hashdeep(bytes: &[u8]) -> Result<Vec<Recorded>, String> {
    let text = bytes;
    let mut lines = text
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    lines.next();
    let header = lines
        .next()
        .and_then(|l| l.strip_prefix(b"%%%% "))
        .ok_or("hashdeep manifest without its '%%%% size,...' line")?;
    let columns: Vec<String> = String::from_utf8_lossy(header)
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    if columns.first().map(String::as_str) != Some("size")
        || columns.last().map(String::as_str) != Some("filename")
    {
        return Err(
            "hashdeep manifest: the columns must start with size and end with filename".into(),
        );
    }
    let (column, algorithm) = HASHDEEP_COLUMNS
        .iter()
        .find_map(|(hd, ours)| columns.iter().position(|c| c == hd).map(|i| (i, *ours)))
        .ok_or("hashdeep manifest: none of md5, sha1, sha256 is among its columns")?;
    let digests = columns.len() - 1;
    let mut out = Vec::new();
    for (n, line) in lines.enumerate() {
        if line.is_empty() || line.starts_with(b"#") || line.starts_with(b"%") {
            continue;
        }
        // The file name is last and may itself contain commas.
        let fields: Vec<&[u8]> = line.splitn(digests + 1, |b| *b == b',').collect();
        let bad = || {
            format!(
                "hashdeep manifest: line {} is not size,digests...,filename",
                n + 3
            )
        };
        if fields.len() != digests + 1 {
            return Err(bad());
        }
        let size = std::str::from_utf8(fields[0])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(bad)?;
        let digest =
            hashlab::hex::decode(&String::from_utf8_lossy(fields[column])).map_err(|_| bad())?;
        out.push(Recorded {
            name: fields[digests].to_vec(),
            algorithm: algorithm.to_string(),
            digest,
            size: Some(size),
            mtime_ns: None,
        });
    }
    if out.is_empty() {
        return Err("hashdeep manifest lists no files".into());
    }
    Ok(out)
}

/// What an audit found; names as the manifest and the walk spell them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AuditReport {
    pub matched: Vec<String>,
    pub changed: Vec<String>,
    pub missing: Vec<String>,
    pub new: Vec<String>,
    /// (recorded name, where its content is now).
    pub moved: Vec<(String, String)>,
    /// (name, why it could not be read).
    pub unreadable: Vec<(String, String)>,
    /// With `changed_only`: files whose size and modification time are as
    /// recorded, so they were not re-hashed (bitrot changes neither).
    pub assumed: Vec<String>,
}

impl AuditReport {
    pub fn passed(&self) -> bool {
        self.changed.is_empty()
            && self.missing.is_empty()
            && self.new.is_empty()
            && self.moved.is_empty()
            && self.unreadable.is_empty()
    }
}

/// The path as an absolute one, lexically (`./a/../b` → `<cwd>/b`), so that
/// `data/x`, `./data/x` and hashdeep's absolute names meet.
fn key(name: &Path, cwd: &Path) -> PathBuf {
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

fn path_of(bytes: &[u8]) -> PathBuf {
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

/// A file that still has the size and modification time the manifest gives it
/// (as far as the manifest records them).
fn looks_unchanged(path: &Path, r: &Recorded) -> bool {
    if r.size.is_none() && r.mtime_ns.is_none() {
        return false;
    }
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let size_same = r.size.is_none_or(|s| s == meta.len());
    let time_same = r
        .mtime_ns
        .is_none_or(|t| meta.modified().ok().and_then(crate::many::mtime_ns) == Some(t));
    meta.is_file() && size_same && time_same
}

/// Audits the files of `tree` against `recorded`, hashing on `jobs` threads.
/// `skip` (the manifest itself, when it lies in the tree) is not called new.
/// With `changed_only`, a file whose size and modification time are as recorded
/// is not re-hashed but listed as assumed intact.
pub fn audit(
    registry: &Registry,
    recorded: &[Recorded],
    tree: &[Input],
    jobs: usize,
    skip: Option<&Path>,
    changed_only: bool,
) -> Result<AuditReport, String> {
    audit_with(registry, recorded, tree, jobs, skip, changed_only, None)
}

/// What hashes the inputs the file system does not hold (object-store URLs)
/// for [`audit_with`]: given the hashers to use (one per recorded algorithm),
/// every such input's name and digests, in any order. An `Err` stops the audit.
pub type RemoteHash<'a> =
    &'a mut dyn FnMut(
        &(dyn Fn() -> Fanout + Sync),
    ) -> Result<Vec<(String, Result<FileDigests, String>)>, String>;

/// [`audit`], with inputs from elsewhere too: `remote` hashes them (URL
/// names are compared as they are spelled; they are never re-based on the
/// current directory, and `changed_only` does not apply to them).
pub fn audit_with(
    registry: &Registry,
    recorded: &[Recorded],
    tree: &[Input],
    jobs: usize,
    skip: Option<&Path>,
    changed_only: bool,
    remote: Option<RemoteHash<'_>>,
) -> Result<AuditReport, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let recorded_by_key: HashMap<PathBuf, &Recorded> = recorded
        .iter()
        .map(|r| (key(&path_of(&r.name), &cwd), r))
        .collect();
    let mut report = AuditReport::default();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut algorithms: Vec<(String, usize)> = Vec::new();
    for r in recorded {
        let a = (r.algorithm.clone(), r.digest.len());
        if !algorithms.contains(&a) {
            algorithms.push(a);
        }
    }
    // Check every algorithm/length once before hashing anything.
    for (alg, len) in &algorithms {
        let params = HashParams {
            length: Some(*len),
            ..Default::default()
        };
        registry
            .hasher(alg, None, &params)
            .map_err(|e| e.to_string())?;
    }
    let make = || {
        Fanout::new(
            algorithms
                .iter()
                .map(|(alg, len)| {
                    let params = HashParams {
                        length: Some(*len),
                        ..Default::default()
                    };
                    registry.hasher(alg, None, &params).expect("checked above")
                })
                .collect(),
        )
    };
    let skip = skip.map(|s| key(s, &cwd));
    let files: Vec<&Input> = tree
        .iter()
        .filter(|i| match i {
            Input::File(p) => Some(key(p, &cwd)) != skip,
            _ => true,
        })
        .filter(|i| {
            let Input::File(p) = i else { return true };
            let k = key(p, &cwd);
            match recorded_by_key.get(&k) {
                Some(r) if changed_only && looks_unchanged(p, r) => {
                    report.assumed.push(p.display().to_string());
                    seen.insert(k);
                    false
                }
                _ => true,
            }
        })
        .collect();
    let owned: Vec<Input> = files
        .iter()
        .map(|i| match i {
            Input::File(p) => Input::File(p.clone()),
            Input::Stdin => Input::Stdin,
            Input::Problem(p, e) => {
                Input::Problem(p.clone(), io::Error::new(e.kind(), e.to_string()))
            }
        })
        .collect();
    let job = HashJob::new(ReadStrategy::for_backend("", false));
    let mut hashed: Vec<(PathBuf, Result<FileDigests, String>)> = Vec::new();
    hash_inputs::<()>(&owned, &make, jobs, &job, &mut |i, result| {
        let path = match &owned[i] {
            Input::File(p) | Input::Problem(p, _) => p.clone(),
            Input::Stdin => PathBuf::from("-"),
        };
        hashed.push((path, result.map_err(|e| e.to_string())));
        Ok(())
    })
    .expect("the collector never stops the run");
    if let Some(remote) = remote {
        hashed.extend(
            remote(&make)?
                .into_iter()
                .map(|(name, result)| (PathBuf::from(name), result)),
        );
    }

    let show = |p: &Path| p.display().to_string();
    let digest_of = |d: &FileDigests, r: &Recorded| {
        let at = algorithms
            .iter()
            .position(|(a, l)| *a == r.algorithm && *l == r.digest.len())
            .expect("every recorded algorithm is hashed");
        d.digests[at].as_bytes().to_vec()
    };
    let mut fresh: BTreeMap<String, FileDigests> = BTreeMap::new();
    for (path, result) in hashed {
        let k = key(&path, &cwd);
        let digests = match result {
            Ok(d) => d,
            Err(e) => {
                seen.insert(k);
                report.unreadable.push((show(&path), e));
                continue;
            }
        };
        match recorded_by_key.get(&k) {
            Some(r) => {
                seen.insert(k);
                if digest_of(&digests, r) == r.digest {
                    report.matched.push(show(&path));
                } else {
                    report.changed.push(show(&path));
                }
            }
            None => {
                fresh.insert(show(&path), digests);
            }
        }
    }
    for r in recorded {
        let k = key(&path_of(&r.name), &cwd);
        if seen.contains(&k) {
            continue;
        }
        let name = String::from_utf8_lossy(&r.name).into_owned();
        let moved_to = fresh
            .iter()
            .find(|(_, d)| digest_of(d, r) == r.digest)
            .map(|(n, _)| n.clone());
        match moved_to {
            Some(to) => {
                fresh.remove(&to);
                report.moved.push((name, to));
            }
            None => report.missing.push(name),
        }
    }
    report.new = fresh.into_keys().collect();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::{expand, WalkOptions};

    #[test]
    fn matched_changed_missing_new_and_moved() {
        let registry = Registry::default();
        let root = std::env::temp_dir().join(format!("hashlab-audit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        for (n, body) in [("same", "s"), ("rot", "r"), ("gone", "g"), ("mv", "m")] {
            std::fs::write(root.join(n), body).unwrap();
        }
        let walk = WalkOptions {
            recursive: true,
            ..Default::default()
        };
        let tree = expand(std::slice::from_ref(&root), &walk);
        // Record the tree as it is now, through a real manifest.
        let mut manifest = Vec::new();
        let make = || {
            Fanout::new(vec![registry
                .hasher("sha256", None, &HashParams::default())
                .unwrap()])
        };
        let job = HashJob::new(ReadStrategy::for_backend("", false));
        hash_inputs::<()>(&tree, &make, 1, &job, &mut |i, r| {
            if let Input::File(p) = &tree[i] {
                manifest.extend(crate::lines::gnu_line(
                    &r.unwrap().digests[0].to_hex(),
                    p.to_str().unwrap().as_bytes(),
                ));
            }
            Ok(())
        })
        .unwrap();
        let recorded = read_manifest(&registry, &manifest, "m.sha256", None).unwrap();
        assert_eq!(recorded.len(), 4);
        // Bitrot (same size), a deletion, a move, a new file.
        std::fs::write(root.join("rot"), "R").unwrap();
        std::fs::remove_file(root.join("gone")).unwrap();
        std::fs::rename(root.join("mv"), root.join("moved-here")).unwrap();
        std::fs::write(root.join("brand-new"), "n").unwrap();
        let tree = expand(std::slice::from_ref(&root), &walk);
        let report = audit(&registry, &recorded, &tree, 2, None, false).unwrap();
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

    #[test]
    fn hashdeep_manifests_are_read() {
        let text = b"%%%% HASHDEEP-1.0\n%%%% size,md5,sha256,filename\n## Invoked from: /x\n##\n3,900150983cd24fb0d6963f7d28e17f72,ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad,/x/a,b\n";
        let r = read_manifest(&Registry::default(), text, "hd.txt", None).unwrap();
        assert_eq!(r[0].algorithm, "sha256");
        assert_eq!(r[0].name, b"/x/a,b");
        assert_eq!(r[0].size, Some(3));
        assert!(read_hashdeep(b"%%%% HASHDEEP-1.0\n%%%% size,tiger,filename\n1,00,/a\n").is_err());
        assert!(read_manifest(&Registry::default(), b"junk\n", "m", None)
            .unwrap_err()
            .contains("no properly formatted"));
    }
}
