//! A manifest brought up to date with its tree (`sum --update`, `audit
//! --update`): files not in it are added, files whose size or times moved
//! are re-hashed, and (when asked) entries whose files are gone are dropped.
//! Everything else stays byte for byte: the form, the algorithms, the line
//! style, comments and order. New lines are written by the same
//! [`SumPlan`] as `sum`, in the style the manifest's first line shows,
//! verified by writing that line again and comparing.
//!
//! Which files are unchanged is told by the size, modification time, inode
//! and status-change time recorded when each was hashed: in the manifest
//! itself for `sum --json`'s, else in a sidecar beside it
//! ([`sidecar_path`]). A sidecar entry counts only while the digests it
//! names are still the manifest's, so a sidecar left behind by an
//! interrupted run, or one that belongs to another manifest, makes the
//! files it describes be read again, never skipped.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use hashlab::{Digest, OutputRule, Registry};
use serde::{Deserialize, Serialize};

use crate::audit::{is_url_name, key};
use crate::lines::{name_base64, name_from_base64};
use crate::manifest::Framing;
use crate::many::{inode_and_ctime_ns, mtime_ns, FileDigests};
use crate::plan::{DigestForm, SumPlan, SumRequest};
use crate::recorded::{each_line, hashdeep_fields, HashdeepLine, LineFault, LineProblem, Place};

mod tree;
pub use tree::{update_tree, Known, TreeUpdate};

/// How the manifest is written, read off its first bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// GNU, tagged or SFV lines, ended as `framing` says.
    Lines { framing: Framing },
    /// hashdeep's: a header naming the columns, `size,digest...,name` lines.
    Hashdeep,
    /// `sum --json`'s array, which records sizes and times itself.
    Json,
}

/// One file as the manifest lists it (several lines when it records
/// several algorithms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub name: Vec<u8>,
    /// (algorithm, digest), in the manifest's order.
    pub digests: Vec<(String, Vec<u8>)>,
    pub stamp: Stamp,
}

/// What tells a file unchanged without reading it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    #[serde(rename = "bytes", default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inode: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ctime_ns: Option<u64>,
    /// An object's ETag: a store gives every new upload a new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
}

impl Stamp {
    /// A local file's stamp now.
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        let (inode, ctime_ns) = inode_and_ctime_ns(meta);
        Stamp {
            size: Some(meta.len()),
            mtime_ns: meta.modified().ok().and_then(mtime_ns),
            inode,
            ctime_ns,
            etag: None,
        }
    }

    /// The stamp of a file as it was when hashed.
    pub fn of_hashed(digests: &FileDigests) -> Stamp {
        Stamp {
            size: Some(digests.bytes),
            mtime_ns: digests.modified.and_then(mtime_ns),
            inode: digests.inode,
            ctime_ns: digests.ctime_ns,
            etag: None,
        }
    }

    /// Whether `now` is the same file as recorded: the size and the
    /// modification time (or the ETag) must be recorded and equal, and so
    /// must whatever else is recorded.
    pub fn unchanged(&self, now: &Stamp) -> bool {
        let same = |recorded: &Option<u64>, now: &Option<u64>| {
            recorded.is_none() || recorded.as_ref() == now.as_ref()
        };
        let proof = match (&self.etag, &now.etag) {
            (Some(a), Some(b)) => a == b,
            _ => self.mtime_ns.is_some() && self.mtime_ns == now.mtime_ns,
        };
        proof
            && self.size.is_some()
            && self.size == now.size
            && same(&self.inode, &now.inode)
            && same(&self.ctime_ns, &now.ctime_ns)
    }
}

/// A piece of the manifest in order: kept as it is, or one of a file's lines.
#[derive(Debug, Clone)]
enum Item {
    Raw(Vec<u8>),
    Line {
        file: usize,
        raw: Vec<u8>,
    },
    Json {
        file: usize,
        value: serde_json::Value,
    },
}

/// How new lines are written, as the first entry line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Style {
    tagged: bool,
    sfv: bool,
    digest_form: DigestForm,
    /// GNU lines with coreutils' `*` (binary) marker.
    binary: bool,
}

/// A manifest read for updating.
#[derive(Debug, Clone)]
pub struct Listing {
    pub form: Form,
    pub files: Vec<Listed>,
    items: Vec<Item>,
    /// (algorithm, digest length) of the columns, in order of first use
    /// (hashdeep: the header's order).
    pub columns: Vec<(String, usize)>,
    style: Style,
    /// Whether the names are absolute (hashdeep's usually are) or start
    /// with `./`: new names are written the same way.
    absolute_names: bool,
    dotted_names: bool,
}

/// Why a manifest cannot be updated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateError {
    /// A line that cannot be read: rewriting the manifest would lose it.
    Line(LineProblem),
    /// A file listed twice for one algorithm.
    Duplicate {
        name: String,
        first: Place,
        again: Place,
    },
    /// No entries: nothing shows the form, algorithm and style to keep.
    Empty,
    /// Not `sum --json`'s array.
    Json(String),
    /// A hashdeep header hashlab cannot use.
    HashdeepHeader(String),
    /// The first line is in a form `sum` does not write (openssl's, say):
    /// new lines would be in another.
    UnwritableForm { place: Place },
    /// Other algorithms asked for than the manifest holds.
    OtherAlgorithms {
        manifest: Vec<String>,
        asked: Vec<String>,
    },
    /// One algorithm at two output lengths in one manifest.
    TwoLengths { algorithm: String },
    /// Digests of pieces (`sum --piece`, `hashdeep -p`), which an update
    /// would leave stale.
    Pieces { place: Place },
    /// An algorithm of the manifest that cannot be planned here.
    Plan(String),
    /// The current directory, against which names are resolved.
    CurrentDir(String),
    /// Every entry would be dropped and none added: more likely a disk
    /// not mounted than a tree emptied, and an empty manifest cannot be
    /// updated again.
    WouldEmpty { entries: usize },
    /// Two entries name one file (`./d/a` and `d/a`): an update would
    /// rewrite one and leave the other's digest stale.
    SameFile { name: String, other: String },
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::Line(problem) => write!(
                f,
                "{problem}; an update rewrites every line, so fix or remove it first"
            ),
            UpdateError::Duplicate { name, first, again } => write!(
                f,
                "{again}: '{name}' is listed again (first at {first}); remove one entry first"
            ),
            UpdateError::Empty => write!(
                f,
                "no entries to show the form and algorithm to keep; write it with `hashlab sum` first"
            ),
            UpdateError::Json(e) => write!(f, "not a `hashlab sum --json` manifest: {e}"),
            UpdateError::HashdeepHeader(why) => write!(f, "hashdeep manifest: {why}"),
            UpdateError::UnwritableForm { place } => write!(
                f,
                "{place} is in a form hashlab does not write (such as openssl's); new lines would be in another"
            ),
            UpdateError::OtherAlgorithms { manifest, asked } => write!(
                f,
                "the manifest holds {}, not {}; an update keeps the manifest's algorithms (write a new manifest for others)",
                manifest.join(","),
                asked.join(",")
            ),
            UpdateError::TwoLengths { algorithm } => write!(
                f,
                "{algorithm} at two output lengths; an update writes one length per algorithm"
            ),
            UpdateError::Pieces { place } => write!(
                f,
                "{place} records pieces (sum --piece, hashdeep -p), which an update does not rewrite; write the manifest again with sum --piece"
            ),
            UpdateError::Plan(e) => write!(f, "{e}"),
            UpdateError::CurrentDir(e) => write!(f, "current directory: {e}"),
            UpdateError::SameFile { name, other } => write!(
                f,
                "'{name}' and '{other}' name the same file; remove one entry first"
            ),
            UpdateError::WouldEmpty { entries } => write!(
                f,
                "every one of its {entries} entries is gone and nothing was added; not emptied (is a disk unmounted? if the tree is truly gone, delete the manifest)"
            ),
        }
    }
}

impl std::error::Error for UpdateError {}

fn fault(place: Place, fault: LineFault) -> UpdateError {
    UpdateError::Line(LineProblem { place, fault })
}

/// Files by name while reading, and where each name was first listed.
#[derive(Default)]
struct Builder {
    files: Vec<Listed>,
    by_name: HashMap<Vec<u8>, usize>,
    places: Vec<Place>,
    items: Vec<Item>,
}

impl Builder {
    /// The file `name` (listed now at `place`), with one more digest.
    fn add(
        &mut self,
        name: Vec<u8>,
        algorithm: &str,
        digest: Vec<u8>,
        place: Place,
    ) -> Result<usize, UpdateError> {
        let file = match self.by_name.get(&name) {
            Some(&i) => {
                if self.files[i].digests.iter().any(|(a, _)| a == algorithm) {
                    return Err(UpdateError::Duplicate {
                        name: String::from_utf8_lossy(&name).into_owned(),
                        first: self.places[i],
                        again: place,
                    });
                }
                i
            }
            None => {
                self.by_name.insert(name.clone(), self.files.len());
                self.places.push(place);
                self.files.push(Listed {
                    name,
                    digests: Vec::new(),
                    stamp: Stamp::default(),
                });
                self.files.len() - 1
            }
        };
        self.files[file]
            .digests
            .push((algorithm.to_string(), digest));
        Ok(file)
    }
}

impl Listing {
    /// Reads a manifest of any form `sum` writes and `check` reads (GNU,
    /// tagged, SFV, NUL-ended), hashdeep's, or `sum --json`'s. Unlike
    /// `audit`, which reads past a bad line, an update refuses the whole
    /// manifest: the line would be lost or kept stale.
    pub fn read(
        registry: &Registry,
        bytes: &[u8],
        manifest_name: &str,
        framing: Framing,
    ) -> Result<Listing, UpdateError> {
        let (form, builder) = if bytes.starts_with(b"%%%% HASHDEEP-1.0") {
            (Form::Hashdeep, None)
        } else if framing == Framing::Lines && bytes.trim_ascii_start().starts_with(b"[") {
            (Form::Json, Some(read_json(registry, bytes)?))
        } else {
            (
                Form::Lines { framing },
                Some(read_lines(registry, bytes, manifest_name, framing)?),
            )
        };
        let (builder, columns) = match builder {
            Some(b) => {
                let mut columns: Vec<(String, usize)> = Vec::new();
                for file in &b.files {
                    for (algorithm, digest) in &file.digests {
                        if !columns.iter().any(|(a, _)| a == algorithm) {
                            columns.push((algorithm.clone(), digest.len()));
                        } else if !columns.contains(&(algorithm.clone(), digest.len())) {
                            return Err(UpdateError::TwoLengths {
                                algorithm: algorithm.clone(),
                            });
                        }
                    }
                }
                (b, columns)
            }
            None => read_hashdeep(registry, bytes)?,
        };
        let Some(first) = builder.files.first() else {
            return Err(UpdateError::Empty);
        };
        let absolute_names = first.name.starts_with(b"/");
        let dotted_names = first.name.starts_with(b"./");
        Ok(Listing {
            form,
            files: builder.files,
            items: builder.items,
            columns,
            style: Style::default(),
            absolute_names,
            dotted_names,
        })
    }

    /// The canonical names of the manifest's algorithms.
    pub fn algorithms(&self) -> Vec<String> {
        self.columns.iter().map(|(a, _)| a.clone()).collect()
    }

    /// `base` (backend, parameters, jobs, reading) with what the manifest
    /// decides: its algorithms, their length, and its line style, which is
    /// settled here by writing the first entry line again in each style
    /// `sum` has until one gives it back byte for byte.
    pub fn sum_request(
        &mut self,
        registry: &Registry,
        base: &SumRequest,
    ) -> Result<SumRequest, UpdateError> {
        let mut request = SumRequest {
            algorithms: self.algorithms(),
            hashdeep: self.form == Form::Hashdeep,
            zero_terminated: self.form
                == Form::Lines {
                    framing: Framing::Nul,
                },
            ..base.clone()
        };
        for (algorithm, len) in &self.columns {
            let known = registry
                .algorithm(algorithm)
                .map_err(|e| UpdateError::Plan(e.to_string()))?;
            if !matches!(known.output, OutputRule::Fixed { .. })
                && *len != known.output.default_len()
            {
                match request.params.length {
                    Some(l) if l != *len => {
                        return Err(UpdateError::TwoLengths {
                            algorithm: algorithm.clone(),
                        })
                    }
                    _ => request.params.length = Some(*len),
                }
            }
        }
        if !matches!(self.form, Form::Lines { .. }) {
            return Ok(request);
        }
        let (file, raw, place) = self
            .items
            .iter()
            .enumerate()
            .find_map(|(n, item)| match item {
                Item::Line { file, raw } => Some((*file, raw, Place::Line(n as u64 + 1))),
                _ => None,
            })
            .ok_or(UpdateError::Empty)?;
        let listed = &self.files[file];
        let (algorithm, digest) = listed
            .digests
            .iter()
            .find(|(_, d)| raw_holds(raw, d))
            .or(listed.digests.first())
            .ok_or(UpdateError::Empty)?;
        let digests = FileDigests {
            digests: vec![Digest(digest.clone())],
            bytes: 0,
            modified: None,
            inode: None,
            ctime_ns: None,
        };
        for style in candidate_styles() {
            let trial = SumRequest {
                algorithms: vec![algorithm.clone()],
                tagged: style.tagged,
                sfv: style.sfv,
                digest_form: style.digest_form,
                ..request.clone()
            };
            let Ok(plan) = SumPlan::new(registry, &trial, &[]) else {
                continue;
            };
            let Ok(mut line) = plan.lines(&listed.name, &listed.name, &digests) else {
                continue;
            };
            if style.binary {
                mark_binary(&mut line);
            }
            if same_line(&line, raw) {
                self.style = style;
                request.tagged = style.tagged;
                request.sfv = style.sfv;
                request.digest_form = style.digest_form;
                return Ok(request);
            }
        }
        Err(UpdateError::UnwritableForm { place })
    }

    /// Refuses `asked` (canonical names) unless it is the manifest's set.
    pub fn require_algorithms(&self, asked: &[String]) -> Result<(), UpdateError> {
        let have: HashSet<&str> = self.columns.iter().map(|(a, _)| a.as_str()).collect();
        let want: HashSet<&str> = asked.iter().map(String::as_str).collect();
        if have != want {
            return Err(UpdateError::OtherAlgorithms {
                manifest: self.algorithms(),
                asked: asked.to_vec(),
            });
        }
        Ok(())
    }

    /// How a new file is named, as the manifest names its files.
    pub fn label(&self, walked: &[u8], cwd: &Path) -> Vec<u8> {
        if is_url_name(walked) {
            return walked.to_vec();
        }
        if self.absolute_names && !walked.starts_with(b"/") {
            return bytes_of(&key(&path_of(walked), cwd));
        }
        if !self.dotted_names {
            if let Some(rest) = walked.strip_prefix(b"./") {
                let rest = rest.trim_ascii_start();
                if !rest.is_empty() && !rest.starts_with(b"/") {
                    return rest.to_vec();
                }
            }
        }
        walked.to_vec()
    }
}

fn candidate_styles() -> impl Iterator<Item = Style> {
    let mut out = vec![Style {
        sfv: true,
        ..Style::default()
    }];
    for tagged in [false, true] {
        for digest_form in [DigestForm::Hex, DigestForm::Base64] {
            for binary in [false, true] {
                if tagged && binary {
                    continue;
                }
                out.push(Style {
                    tagged,
                    sfv: false,
                    digest_form,
                    binary,
                });
            }
        }
    }
    out.into_iter()
}

/// Whether the raw line holds this digest in hex (to pick, of a file's
/// digests, the one a line records).
fn raw_holds(raw: &[u8], digest: &[u8]) -> bool {
    let hex = hashlab::hex::encode(digest);
    raw.to_ascii_lowercase()
        .windows(hex.len())
        .any(|w| w == hex.as_bytes())
}

/// A line equal to another but for a missing final terminator or a CR.
fn same_line(written: &[u8], raw: &[u8]) -> bool {
    let trim = |l: &[u8]| -> Vec<u8> {
        let l = l.strip_suffix(b"\n").unwrap_or(l);
        let l = l.strip_suffix(b"\0").unwrap_or(l);
        l.strip_suffix(b"\r").unwrap_or(l).to_vec()
    };
    trim(written) == trim(raw)
}

/// coreutils' `-b`: `<hex> *name` instead of `<hex>  name`, line by line.
fn mark_binary(lines: &mut [u8]) {
    let mut start = 0;
    while start < lines.len() {
        let end = lines[start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(lines.len(), |p| start + p + 1);
        if let Some(at) = lines[start..end].windows(2).position(|w| w == b"  ") {
            lines[start + at + 1] = b'*';
        }
        start = end;
    }
}

fn read_lines(
    registry: &Registry,
    bytes: &[u8],
    manifest_name: &str,
    framing: Framing,
) -> Result<Builder, UpdateError> {
    let mut b = Builder::default();
    each_line(
        registry,
        bytes,
        manifest_name,
        None,
        framing,
        |place, raw, read| {
            match read.map_err(|why| fault(place, why))? {
                None => b.items.push(Item::Raw(raw.to_vec())),
                Some((entry, algorithm)) => {
                    if entry.name.is_empty() || entry.name.contains(&0) {
                        return Err(fault(place, LineFault::BadName));
                    }
                    let file = b.add(entry.name, &algorithm.name, entry.expected, place)?;
                    b.items.push(Item::Line {
                        file,
                        raw: raw.to_vec(),
                    });
                }
            }
            Ok(())
        },
    )?;
    Ok(b)
}

fn read_json(registry: &Registry, bytes: &[u8]) -> Result<Builder, UpdateError> {
    let values: Vec<serde_json::Value> =
        serde_json::from_slice(bytes).map_err(|e| UpdateError::Json(e.to_string()))?;
    let mut b = Builder::default();
    for (n, value) in values.into_iter().enumerate() {
        let place = Place::Entry(n as u64 + 1);
        if value.get("pieces").is_some() {
            return Err(UpdateError::Pieces { place });
        }
        let row: JsonRow = serde_json::from_value(value.clone())
            .map_err(|e| fault(place, LineFault::NotAnEntry(e.to_string())))?;
        let algorithm = registry
            .algorithm(&row.algorithm)
            .map_err(|_| fault(place, LineFault::UnknownAlgorithm(row.algorithm.clone())))?;
        let digest =
            hashlab::hex::decode(&row.digest).map_err(|_| fault(place, LineFault::NotHex))?;
        let name = match &row.file_base64 {
            Some(b64) => name_from_base64(b64).ok_or(fault(place, LineFault::BadName))?,
            None => row.file.clone().into_bytes(),
        };
        if name.is_empty() || name.contains(&0) {
            return Err(fault(place, LineFault::BadName));
        }
        let file = b.add(name, &algorithm.name, digest, place)?;
        b.files[file].stamp = row.stamp;
        b.items.push(Item::Json { file, value });
    }
    Ok(b)
}

/// hashdeep's manifest: every column, since an update writes them all.
fn read_hashdeep(
    registry: &Registry,
    bytes: &[u8],
) -> Result<(Builder, Vec<(String, usize)>), UpdateError> {
    let bad = |why: &str| UpdateError::HashdeepHeader(why.to_string());
    let mut b = Builder::default();
    let mut columns: Vec<(String, usize)> = Vec::new();
    for (n, raw) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        let place = Place::Line(n as u64 + 1);
        let line = raw.strip_suffix(b"\n").unwrap_or(raw);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if n == 1 {
            let header = line
                .strip_prefix(b"%%%% ")
                .ok_or_else(|| bad("no '%%%% size,...' line after the first"))?;
            let names: Vec<String> = String::from_utf8_lossy(header)
                .split(',')
                .map(|c| c.trim().to_ascii_lowercase())
                .collect();
            if names.len() < 3
                || names.first().map(String::as_str) != Some("size")
                || names.last().map(String::as_str) != Some("filename")
            {
                return Err(bad("the columns must be size, digests, filename"));
            }
            for column in &names[1..names.len() - 1] {
                let algorithm = registry
                    .algorithms()
                    .iter()
                    .find(|a| a.hashdeep_column.as_deref() == Some(column.as_str()))
                    .ok_or_else(|| bad(&format!("a column hashlab does not compute: {column}")))?;
                columns.push((algorithm.name.clone(), algorithm.output.default_len()));
            }
        }
        if n < 2 || line.is_empty() || line.starts_with(b"#") || line.starts_with(b"%") {
            b.items.push(Item::Raw(raw.to_vec()));
            continue;
        }
        let digests = columns.len();
        let HashdeepLine {
            size,
            digests: fields,
            name,
            escaped,
        } = hashdeep_fields(line, digests).map_err(|why| fault(place, why))?;
        if !escaped && crate::lines::names_a_piece(&name) {
            return Err(UpdateError::Pieces { place });
        }
        if b.by_name.contains_key(&name) {
            let first = b.places[b.by_name[&name]];
            return Err(UpdateError::Duplicate {
                name: String::from_utf8_lossy(&name).into_owned(),
                first,
                again: place,
            });
        }
        let mut file = None;
        for (i, (algorithm, len)) in columns.iter().enumerate() {
            let digest = std::str::from_utf8(fields[i])
                .ok()
                .and_then(|hex| hashlab::hex::decode(hex).ok())
                .filter(|d| d.len() == *len)
                .ok_or(fault(place, LineFault::NotHex))?;
            file = Some(b.add(name.clone(), algorithm, digest, place)?);
        }
        let file = file.expect("hashdeep manifests have a digest column");
        b.files[file].stamp.size = Some(size);
        b.items.push(Item::Line {
            file,
            raw: raw.to_vec(),
        });
    }
    if columns.is_empty() {
        return Err(bad("no '%%%% size,...' line after the first"));
    }
    Ok((b, columns))
}

/// One row of `sum --json`, as written and as read back for an update.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JsonRow {
    /// The name as text (a byte that is not UTF-8 shows as U+FFFD).
    pub file: String,
    /// The name's exact bytes, base64, when it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_base64: Option<String>,
    pub algorithm: String,
    #[serde(default)]
    pub backend: String,
    pub digest: String,
    #[serde(flatten)]
    pub stamp: Stamp,
}

impl JsonRow {
    pub fn new(name: &[u8], algorithm: &str, backend: &str, digest: &Digest, stamp: Stamp) -> Self {
        JsonRow {
            file: String::from_utf8_lossy(name).into_owned(),
            file_base64: name_base64(name),
            algorithm: algorithm.to_string(),
            backend: backend.to_string(),
            digest: digest.to_hex(),
            stamp,
        }
    }
}

/// The sidecar of a manifest whose form records no times: `<name>.hashlab-stat`.
pub fn sidecar_path(manifest: &Path) -> PathBuf {
    let mut name = manifest.as_os_str().to_owned();
    name.push(".hashlab-stat");
    PathBuf::from(name)
}

/// The sidecar: each file's stamp when it was hashed, and a check that ties
/// it to the digest the manifest then had. Text, one line a file
/// (`size mtime inode ctime etag check name`, tab-separated, `-` for none,
/// the name last and escaped as GNU lines escape it): a manifest of
/// millions of files has a sidecar read and written in a fraction of the
/// time hashing them takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sidecar {
    pub files: Vec<SidecarEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidecarEntry {
    pub name: Vec<u8>,
    pub stamp: Stamp,
    /// The first 8 bytes of the file's digest by the manifest's first algorithm.
    pub check: [u8; 8],
}

const SIDECAR_HEADER: &[u8] = b"hashlab-stat 1\n";

/// The bytes a sidecar entry checks: the start of the digest by `algorithm`.
fn check_of(digest: &[u8]) -> Option<[u8; 8]> {
    digest.get(..8).and_then(|d| d.try_into().ok())
}

impl Sidecar {
    /// Reads a sidecar; `None` when it is damaged or of another version, and
    /// then every file is read again (nothing is lost but time).
    pub fn parse(bytes: &[u8]) -> Option<Sidecar> {
        let body = bytes.strip_prefix(SIDECAR_HEADER)?;
        let mut files = Vec::new();
        for line in body.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let mut fields = line.splitn(7, |b| *b == b'\t');
            let mut number = || -> Option<Option<u64>> {
                match fields.next()? {
                    b"-" => Some(None),
                    digits => Some(Some(std::str::from_utf8(digits).ok()?.parse().ok()?)),
                }
            };
            let (size, mtime_ns, inode, ctime_ns) = (number()?, number()?, number()?, number()?);
            let etag = match fields.next()? {
                b"-" => None,
                tag => Some(String::from_utf8(tag.to_vec()).ok()?),
            };
            let check: [u8; 8] = hashlab::hex::decode(std::str::from_utf8(fields.next()?).ok()?)
                .ok()?
                .try_into()
                .ok()?;
            let name = fields.next()?;
            let name = match name.strip_prefix(b"\\") {
                Some(escaped) => crate::manifest::unescape(escaped)?,
                None => name.to_vec(),
            };
            files.push(SidecarEntry {
                name,
                stamp: Stamp {
                    size,
                    mtime_ns,
                    inode,
                    ctime_ns,
                    etag,
                },
                check,
            });
        }
        Some(Sidecar { files })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        use std::io::Write;
        let mut out = SIDECAR_HEADER.to_vec();
        let number = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
        for e in &self.files {
            let etag = e
                .stamp
                .etag
                .as_deref()
                .filter(|t| !t.is_empty() && !t.contains(['\t', '\n', '\r']))
                .unwrap_or("-");
            let _ = write!(
                out,
                "{}\t{}\t{}\t{}\t{etag}\t{}\t",
                number(e.stamp.size),
                number(e.stamp.mtime_ns),
                number(e.stamp.inode),
                number(e.stamp.ctime_ns),
                hashlab::hex::encode(&e.check)
            );
            let (name, escaped) = crate::lines::escape_name(&e.name);
            if escaped {
                out.push(b'\\');
            }
            out.extend_from_slice(&name);
            out.push(b'\n');
        }
        out
    }

    /// Puts each entry's stamp on the listed file it describes, where the
    /// check still matches the manifest's digest.
    pub fn apply(&self, listing: &mut Listing) {
        let Some((first, _)) = listing.columns.first().cloned() else {
            return;
        };
        let by_name: HashMap<&[u8], usize> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.as_slice(), i))
            .collect();
        for listed in &mut listing.files {
            let Some(entry) = by_name.get(listed.name.as_slice()).map(|&i| &self.files[i]) else {
                continue;
            };
            let digest = listed.digests.iter().find(|(a, _)| *a == first);
            if digest.and_then(|(_, d)| check_of(d)) != Some(entry.check) {
                continue;
            }
            let size = listed.stamp.size;
            listed.stamp = entry.stamp.clone();
            if size.is_some() && size != entry.stamp.size {
                // hashdeep's own size column disagrees: not the same file.
                listed.stamp.mtime_ns = None;
                listed.stamp.etag = None;
            }
        }
    }
}

/// What an update did, names as the manifest writes them.
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
    listed_of: Vec<Option<usize>>,
    seen_names: Vec<Vec<u8>>,
    seen_stamps: Vec<Stamp>,
    /// Listed files seen with the recorded stamp.
    fresh: Vec<bool>,
    /// Listed files no longer there, and whether to drop them.
    gone: Vec<bool>,
    /// (name, the other name of the same file) of listed files named twice
    /// (`./d/a` beside `d/a`): one would be kept stale.
    aliases: Vec<(String, String)>,
    report: UpdateReport,
}

/// The manifest rewritten, its sidecar (for forms that record no times),
/// and what changed.
#[derive(Debug)]
pub struct Updated {
    pub manifest: Vec<u8>,
    pub sidecar: Option<Vec<u8>>,
    pub report: UpdateReport,
}

fn shown(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

fn bytes_of(path: &Path) -> Vec<u8> {
    path.as_os_str().as_encoded_bytes().to_vec()
}

fn path_of(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
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
    /// `roots` (keys of the paths walked, or none for "every listed file"),
    /// are gone when `exists` says so, and dropped with `prune`.
    pub fn pending(
        &self,
        seen: Vec<Seen>,
        roots: Option<&[PathBuf]>,
        cwd: &Path,
        prune: bool,
        exists: &dyn Fn(&[u8]) -> Result<bool, String>,
    ) -> Pending {
        let key_of = |name: &[u8]| key(&path_of(name), cwd);
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
        if !listing.files.is_empty() && self.gone.iter().all(|g| *g) && self.to_hash.is_empty() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use hashlab::HashParams;

    const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    fn read(bytes: &[u8], name: &str) -> Result<Listing, UpdateError> {
        Listing::read(&Registry::default(), bytes, name, Framing::Lines)
    }

    fn style_of(bytes: &[u8], name: &str) -> Result<Style, UpdateError> {
        let registry = Registry::default();
        let mut listing = read(bytes, name)?;
        let base = SumRequest {
            algorithms: Vec::new(),
            backend: None,
            params: HashParams::default(),
            tagged: false,
            zero_terminated: false,
            git_blob: false,
            hashdeep: false,
            jobs: None,
            allow_mmap: true,
            digest_form: DigestForm::Hex,
            no_names: false,
            cksum_lines: false,
            sfv: false,
            binary_marker: false,
            name_standard_input: false,
            little_endian: false,
            digest_prefix: false,
        };
        listing.sum_request(&registry, &base)?;
        Ok(listing.style)
    }

    #[test]
    fn the_first_line_tells_the_style_to_write() {
        let gnu = format!("{SHA256_ABC}  a\n");
        assert_eq!(style_of(gnu.as_bytes(), "m").unwrap(), Style::default());
        let binary = format!("{SHA256_ABC} *a\n");
        assert!(style_of(binary.as_bytes(), "m").unwrap().binary);
        let tagged = format!("SHA256 (a) = {SHA256_ABC}\n");
        assert!(style_of(tagged.as_bytes(), "m").unwrap().tagged);
        let sfv = "; made by hand\na 352441C2\n";
        assert!(style_of(sfv.as_bytes(), "m.sfv").unwrap().sfv);
        let openssl = format!("SHA2-256(a)= {SHA256_ABC}\n");
        assert!(matches!(
            style_of(openssl.as_bytes(), "m"),
            Err(UpdateError::UnwritableForm { .. })
        ));
    }

    #[test]
    fn what_cannot_be_rewritten_is_refused_whole() {
        let dup = format!("{SHA256_ABC}  a\n{SHA256_ABC}  b\n{SHA256_ABC}  a\n");
        assert_eq!(
            read(dup.as_bytes(), "m").unwrap_err().to_string(),
            "line 3: 'a' is listed again (first at line 1); remove one entry first"
        );
        let bad = format!("{SHA256_ABC}  a\nnot a line\n");
        assert!(read(bad.as_bytes(), "m")
            .unwrap_err()
            .to_string()
            .starts_with("line 2: improperly formatted"));
        assert_eq!(read(b"", "m").unwrap_err(), UpdateError::Empty);
        let listing = read(format!("{SHA256_ABC}  a\n").as_bytes(), "m").unwrap();
        assert!(listing.require_algorithms(&["sha256".into()]).is_ok());
        assert!(listing
            .require_algorithms(&["md5".into()])
            .unwrap_err()
            .to_string()
            .contains("holds sha256, not md5"));
    }

    #[test]
    fn stamps_prove_nothing_without_a_size_and_a_time() {
        let recorded = Stamp {
            size: Some(3),
            mtime_ns: Some(5),
            ..Stamp::default()
        };
        let now = Stamp {
            size: Some(3),
            mtime_ns: Some(5),
            inode: Some(9),
            ctime_ns: Some(1),
            etag: None,
        };
        assert!(recorded.unchanged(&now));
        assert!(!Stamp::default().unchanged(&now));
        assert!(!Stamp {
            inode: Some(8),
            ..recorded.clone()
        }
        .unchanged(&now));
        let object = |etag: &str| Stamp {
            size: Some(3),
            etag: Some(etag.into()),
            ..Stamp::default()
        };
        assert!(object("a").unchanged(&object("a")));
        assert!(!object("a").unchanged(&object("b")));
    }

    #[test]
    fn a_sidecar_counts_only_for_the_digests_it_names() {
        let mut listing = read(format!("{SHA256_ABC}  a\n").as_bytes(), "m").unwrap();
        let stamp = Stamp {
            size: Some(3),
            mtime_ns: Some(7),
            etag: Some("e t".into()),
            ..Stamp::default()
        };
        let entry = |check: [u8; 8]| SidecarEntry {
            name: b"a".to_vec(),
            stamp: stamp.clone(),
            check,
        };
        Sidecar {
            files: vec![entry([0; 8])],
        }
        .apply(&mut listing);
        assert_eq!(listing.files[0].stamp, Stamp::default());
        let abc = hashlab::hex::decode(SHA256_ABC).unwrap();
        let right = Sidecar {
            files: vec![entry(abc[..8].try_into().unwrap())],
        };
        right.apply(&mut listing);
        assert_eq!(listing.files[0].stamp, stamp);
        assert!(Sidecar::parse(b"hashlab-stat 2\n").is_none());
        assert!(Sidecar::parse(b"garbage").is_none());
        // Names with newlines, tabs and backslashes come back as they were.
        let odd = Sidecar {
            files: vec![SidecarEntry {
                name: b"new\nline\ttab\\".to_vec(),
                ..right.files[0].clone()
            }],
        };
        assert_eq!(Sidecar::parse(&odd.to_bytes()), Some(odd));
    }

    #[test]
    fn binary_markers_go_on_gnu_lines_only() {
        let mut lines = b"ab  x  y\n\\cd  z\n".to_vec();
        mark_binary(&mut lines);
        assert_eq!(lines, b"ab *x  y\n\\cd *z\n");
    }

    #[test]
    fn new_names_follow_the_manifest() {
        let cwd = Path::new("/w");
        let plain = read(format!("{SHA256_ABC}  a\n").as_bytes(), "m").unwrap();
        assert_eq!(plain.label(b"./d/b", cwd), b"d/b");
        assert_eq!(plain.label(b"d/b", cwd), b"d/b");
        let dotted = read(format!("{SHA256_ABC}  ./a\n").as_bytes(), "m").unwrap();
        assert_eq!(dotted.label(b"./d/b", cwd), b"./d/b");
        let absolute = read(format!("{SHA256_ABC}  /w/a\n").as_bytes(), "m").unwrap();
        assert_eq!(absolute.label(b"./d/../b", cwd), b"/w/b");
    }
}
