//! What reading a manifest gives: its entries and the faults of the lines
//! that could not be read. Apart from the reader, so that gathering
//! hashdeep's piece lines (recorded/gather.rs), which the reader calls, can
//! build entries and faults without reaching back into it.

use std::fmt;

use hashlab::HashError;

use crate::check::Unsettled;

/// At most this many (algorithm, output length) pairs in one audited
/// manifest: every file of the tree is hashed with each of them (a new file
/// may be any missing entry, moved), so each pair costs a pass over the
/// tree and a digest kept per new file. hashdeep offers five.
pub const MAX_ALGORITHMS: usize = 16;

/// The longest digest an audited manifest may record, in bytes: twice the
/// longest fixed output of any algorithm here (64). With
/// [`MAX_ALGORITHMS`], a new file costs at most 2 KiB of digests, whatever
/// the manifest says. Longer XOF digests are checked by `check`, which keeps none.
pub const MAX_DIGEST_BYTES: usize = 128;

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
    /// Inode number and status-change time (nanoseconds since the epoch)
    /// when the file was read; recorded by `sum --json`. A file replaced by
    /// another of the same size and modification time (two files swapped
    /// within one timestamp tick) has another inode, and a rename or a
    /// rewrite sets the status-change time, which no user can set back.
    pub inode: Option<u64>,
    pub ctime_ns: Option<u64>,
    /// The digest of each piece (`sum --piece`, `hashdeep -p`). An entry
    /// with pieces has a size; its `digest` is empty where the manifest
    /// records pieces only, as hashdeep's own `-p` does.
    pub pieces: Option<crate::pieces::Pieces>,
}

impl Recorded {
    pub(super) fn new(name: Vec<u8>, algorithm: String, digest: Vec<u8>) -> Recorded {
        Recorded {
            name,
            algorithm,
            digest,
            size: None,
            mtime_ns: None,
            inode: None,
            ctime_ns: None,
            pieces: None,
        }
    }
}

/// A manifest as read: its entries, and the lines that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    pub entries: Vec<Recorded>,
    pub problems: Vec<LineProblem>,
}

/// Where in a manifest a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// 1-based, counting every line (comments and blank lines too).
    Line(u64),
    /// 1-based index in a JSON manifest's array.
    Entry(u64),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line(n) => write!(f, "line {n}"),
            Place::Entry(n) => write!(f, "entry {n}"),
        }
    }
}

/// Why one line (or JSON entry) was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineFault {
    /// Not a checksum line in any form this reader knows.
    NotAChecksumLine,
    /// A hashdeep line that is not `size,<digest>...,filename`.
    NotHashdeep { digests: usize },
    /// The algorithm or length could not be settled (see [`Unsettled`]).
    Unsettled(Unsettled),
    /// An algorithm this registry does not know (JSON's `algorithm` field).
    UnknownAlgorithm(String),
    /// The digest is not hex.
    NotHex,
    /// Longer than [`MAX_DIGEST_BYTES`].
    DigestTooLong { bytes: usize, limit: usize },
    /// An empty name, a NUL in it, or an escape coreutils does not write.
    BadName,
    /// A JSON entry without the fields `sum --json` writes.
    NotAnEntry(String),
    /// Pieces that do not make up their file (see [`crate::pieces::PieceFault`]).
    Pieces(crate::pieces::PieceFault),
}

impl fmt::Display for LineFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineFault::NotAChecksumLine => write!(f, "improperly formatted checksum line"),
            LineFault::NotHashdeep { digests } => write!(
                f,
                "not size,{}filename as the header says",
                "digest,".repeat(*digests)
            ),
            LineFault::Unsettled(why) => write!(f, "{why}"),
            LineFault::UnknownAlgorithm(name) => write!(f, "unknown algorithm '{name}'"),
            LineFault::NotHex => write!(f, "the digest is not hex"),
            LineFault::DigestTooLong { bytes, limit } => write!(
                f,
                "a {bytes}-byte digest; audit compares digests of at most {limit} bytes"
            ),
            LineFault::BadName => write!(f, "the file name is empty or badly escaped"),
            LineFault::NotAnEntry(why) => write!(f, "not an entry of `hashlab sum --json`: {why}"),
            LineFault::Pieces(why) => write!(f, "{why}"),
        }
    }
}

/// One line of a manifest that was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineProblem {
    pub place: Place,
    pub fault: LineFault,
}

impl fmt::Display for LineProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.fault)
    }
}

/// Why a manifest could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestError {
    /// The algorithm asked for is unknown.
    Algorithm(HashError),
    /// Not one entry could be read; `problems` says why, line by line.
    NoEntries { problems: Vec<LineProblem> },
    /// Starts like `sum --json`'s array but is not valid JSON of that shape.
    Json(String),
    /// A hashdeep manifest whose header cannot be used.
    HashdeepHeader(&'static str),
    /// A hashdeep manifest without a column of the algorithm asked for.
    NoHashdeepColumn { algorithm: String },
    /// More (algorithm, length) pairs than [`MAX_ALGORITHMS`].
    TooManyAlgorithms { limit: usize },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Algorithm(e) => write!(f, "{e}"),
            ManifestError::NoEntries { problems } if problems.is_empty() => {
                write!(f, "no properly formatted checksum lines found")
            }
            ManifestError::NoEntries { problems } => write!(
                f,
                "no properly formatted checksum lines found ({} improperly formatted)",
                problems.len()
            ),
            ManifestError::Json(e) => write!(f, "not a `hashlab sum --json` manifest: {e}"),
            ManifestError::HashdeepHeader(why) => write!(f, "hashdeep manifest: {why}"),
            ManifestError::NoHashdeepColumn { algorithm } => {
                write!(f, "hashdeep manifest: no {algorithm} column")
            }
            ManifestError::TooManyAlgorithms { limit } => write!(
                f,
                "more than {limit} algorithm and length pairs; audit hashes every file with each, and takes at most {limit}"
            ),
        }
    }
}

impl std::error::Error for ManifestError {}
