//! What checking a line or a manifest comes to. Apart from the checker, so
//! that settling an ambiguous digest length (crate::ambiguity), which the
//! checker calls, can speak of outcomes without reaching back into it.

use std::io;

use hashlab::HashError;

use crate::bounded::LineError;
use crate::cancel::Interrupted;

/// Why a line's algorithm or length could not be settled: coreutils calls
/// such a line improperly formatted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsettled {
    /// The line's tag names another algorithm than the one asked for.
    OtherAlgorithm { tag: String, asked: String },
    /// No tag, and neither the manifest's name nor the digest's length
    /// names an algorithm.
    Undecided { bytes: usize },
    /// The digest's length is not one the algorithm gives (or not the one
    /// its tag or the caller states).
    Length { algorithm: String, bytes: usize },
}

impl std::fmt::Display for Unsettled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsettled::OtherAlgorithm { tag, asked } => {
                write!(f, "its tag names {tag}, not {asked} as asked")
            }
            Unsettled::Undecided { bytes } => write!(
                f,
                "no tag, and neither the manifest's name nor the digest's length ({bytes} bytes) tells the algorithm"
            ),
            Unsettled::Length { algorithm, bytes } => {
                write!(f, "a {bytes}-byte digest is not a {algorithm} digest here")
            }
        }
    }
}

/// What happened to one manifest line.
#[derive(Debug)]
pub enum Outcome {
    /// The digest matched.
    Ok,
    /// The file was read and its digest differs.
    Failed,
    /// The file could not be opened or read.
    Unreadable(io::Error),
    /// The file does not exist and `ignore_missing` was set.
    Missing,
    /// Not a checksum line, or one whose algorithm or length cannot be settled.
    Malformed,
}

/// Why checking could not go on.
#[derive(Debug)]
pub enum CheckError {
    /// The manifest itself could not be read.
    Read(io::Error),
    /// The parameters do not fit an algorithm a line needs (bad key length, unknown backend...).
    Params(HashError),
    /// [`crate::check::CheckOptions::cancel`] was set.
    Interrupted,
    /// A bound of the manifest's reader was passed: a line longer than any
    /// checksum line, or an endless run of empty lines (not a manifest).
    Bound(LineError),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Read(e) => write!(f, "{e}"),
            CheckError::Params(e) => write!(f, "{e}"),
            CheckError::Interrupted => write!(f, "{Interrupted}"),
            CheckError::Bound(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CheckError {}
