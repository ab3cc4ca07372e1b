//! A manifest as read for updating: its form, its files and their stamps,
//! the pieces it is kept as, and why one cannot be updated.

use std::fmt;
use std::path::{Path, PathBuf};

use hashlab::Digest;
use serde::{Deserialize, Serialize};

use crate::lines::name_base64;
use crate::manifest::Framing;
use crate::many::{inode_and_ctime_ns, mtime_ns, FileDigests};
use crate::plan::DigestForm;
use crate::recorded::{LineFault, LineProblem, Place};

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
pub(super) enum Item {
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
pub(super) struct Style {
    pub(super) tagged: bool,
    pub(super) sfv: bool,
    pub(super) digest_form: DigestForm,
    /// GNU lines with coreutils' `*` (binary) marker.
    pub(super) binary: bool,
}

/// A manifest read for updating.
#[derive(Debug, Clone)]
pub struct Listing {
    pub form: Form,
    pub files: Vec<Listed>,
    pub(super) items: Vec<Item>,
    /// (algorithm, digest length) of the columns, in order of first use
    /// (hashdeep: the header's order).
    pub columns: Vec<(String, usize)>,
    pub(super) style: Style,
    /// Whether the names are absolute (hashdeep's usually are) or start
    /// with `./`: new names are written the same way.
    pub(super) absolute_names: bool,
    pub(super) dotted_names: bool,
    /// What the update may do beyond what a manifest file on disk allows.
    pub held: HeldRules,
}

/// What an update of a manifest a program holds in memory (the Python
/// package's `Manifest`) allows that one of a file on disk does not. A
/// file emptied by an update shows no form to keep and is more likely the
/// work of an unmounted disk; a value in memory carries its algorithm and
/// form itself, and its callers have always had these rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeldRules {
    /// Every entry may be dropped.
    pub may_empty: bool,
    /// A listed name that is there but is no regular file now (a
    /// directory, say) is gone as a file, rather than kept and reported.
    pub only_files_exist: bool,
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

pub(super) fn fault(place: Place, fault: LineFault) -> UpdateError {
    UpdateError::Line(LineProblem { place, fault })
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

pub(super) fn shown(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

pub(super) fn bytes_of(path: &Path) -> Vec<u8> {
    path.as_os_str().as_encoded_bytes().to_vec()
}

pub(super) fn path_of(bytes: &[u8]) -> PathBuf {
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
