//! `check` of the manifests that hold pieces (`sum --piece`'s, `hashdeep
//! -p`'s): the library hashes and compares each file and its pieces; this
//! prints each verdict and, for a failed file, the bytes that changed.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use hashlab::{HashParams, Registry};
use hashlab_integrity::{
    is_interrupted, read_manifest, Cancel, Comparer, EntryHasher, Framing, LineFault, LineProblem,
    Manifest, ManifestError, ReadOptions, Recorded, Summary,
};

use super::request::manifest_refusal;
use super::words::verdict_line;
use crate::cli::CheckArgs;
use crate::failure::{io_message, Failure};
use crate::shared::quote;
use crate::stdio::LineOutput;

/// What [`check`] made of a manifest.
pub(super) enum Checked {
    /// Piecewise, and checked: whether it passed.
    Piecewise(bool),
    /// Not piecewise: its bytes, for the line checker.
    Lines(Box<dyn BufRead>),
}

fn piece_fault(p: &LineProblem) -> bool {
    matches!(p.fault, LineFault::Pieces(_))
}

#[cfg(unix)]
fn path_of(name: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(name))
}

#[cfg(not(unix))]
fn path_of(name: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(name).into_owned())
}

/// `check` of one manifest: where it is piecewise (see [`piecewise`]), each
/// entry is checked as `check` checks a line, `NAME: OK` or `NAME: FAILED`,
/// and a failed file with pieces gets a second line naming the bytes that
/// changed. Anything else is handed back for the line checker, unread but
/// for what was looked at. `params` are the run's, `--length` among them.
pub(super) fn check(
    args: &CheckArgs,
    registry: &Registry,
    params: &HashParams,
    reader: Box<dyn BufRead>,
    shown: &str,
    manifest: &Path,
) -> Result<Checked, Failure> {
    let manifest = match piecewise(args, registry, reader, shown, manifest) {
        Ok(manifest) => manifest,
        Err(checked) => return Ok(checked),
    };
    // A file whose pieces contradict each other is not verified: that fails
    // the check, whatever --strict says, as a missing piece line would.
    for problem in &manifest.problems {
        errln!("hashlab: {shown}: {problem}");
    }
    let mut summary = check_entries(args, registry, params, &manifest.entries, shown)?;
    summary.malformed = manifest.problems.len() as u64;
    if !args.status {
        super::words::warnings(args, shown, &summary);
    }
    Ok(Checked::Piecewise(
        manifest.problems.is_empty()
            && summary.mismatched == 0
            && summary.unreadable == 0
            && !(args.ignore_missing && summary.matched == 0),
    ))
}

/// The manifest read whole where it holds pieces (an entry has pieces, or
/// pieces could not be read, which the line checker would only call
/// improperly formatted lines); else what it is for `check`: its bytes for
/// the line checker, or its failure already said.
fn piecewise(
    args: &CheckArgs,
    registry: &Registry,
    mut reader: Box<dyn BufRead>,
    shown: &str,
    manifest: &Path,
) -> Result<Manifest, Checked> {
    // Only hashdeep's (`%%%%`) and JSON (`[`) manifests hold pieces; a
    // manifest of lines streams on untouched.
    let first = match reader.fill_buf() {
        Ok(buf) => buf.first().copied(),
        Err(_) => None,
    };
    if args.zero || !matches!(first, Some(b'%' | b'[')) {
        return Err(Checked::Lines(reader));
    }
    let bytes = match hashlab_integrity::bounded::read_to_end(&mut reader, b'\n') {
        Ok(bytes) => bytes,
        Err(e) => {
            errln!("hashlab: {shown}: {e}");
            return Err(Checked::Piecewise(false));
        }
    };
    let options = ReadOptions {
        algorithm: args.algorithm.as_deref(),
        framing: Framing::Lines,
    };
    match read_manifest(registry, &bytes, &manifest.to_string_lossy(), &options) {
        Ok(m)
            if m.entries.iter().any(|e| e.pieces.is_some())
                || m.problems.iter().any(piece_fault) =>
        {
            Ok(m)
        }
        Err(ManifestError::NoEntries { problems }) if problems.iter().any(piece_fault) => {
            for problem in &problems {
                errln!("hashlab: {shown}: {problem}");
            }
            errln!("hashlab: {shown}: no properly formatted checksum lines found");
            Err(Checked::Piecewise(false))
        }
        _ => Err(Checked::Lines(Box::new(io::Cursor::new(bytes)))),
    }
}

/// Each entry compared with its file, its verdict printed; the counts.
fn check_entries(
    args: &CheckArgs,
    registry: &Registry,
    params: &HashParams,
    entries: &[Recorded],
    shown: &str,
) -> Result<Summary, Failure> {
    let comparer = Comparer::new(std::thread::available_parallelism().map_or(1, |n| n.get()));
    let cancel = Cancel::new();
    let mut out = LineOutput::new();
    let mut summary = Summary::default();
    let mut hashers: Vec<EntryHasher> = Vec::new();
    for entry in entries {
        let hasher = hasher_for(&mut hashers, args, registry, params, entry, shown)?;
        let result = comparer.compare(&path_of(&entry.name), entry, hasher, &cancel);
        let line = |verdict: &str| verdict_line(&entry.name, verdict);
        let lines = match result {
            Ok(c) if c.intact() => {
                summary.matched += 1;
                if args.quiet {
                    vec![]
                } else {
                    vec![line("OK")]
                }
            }
            Ok(c) => {
                summary.mismatched += 1;
                let mut lines = vec![line("FAILED")];
                if entry.pieces.is_some() {
                    lines.push(line(&c.describe()));
                }
                lines
            }
            Err(e) if is_interrupted(&e) => return Err(Failure::Interrupted),
            Err(e) if args.ignore_missing && e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => {
                summary.unreadable += 1;
                out.flush()?;
                errln!("hashlab: {}: {}", quote(&entry.name), io_message(&e));
                vec![line("FAILED open or read")]
            }
        };
        if !args.status {
            for line in lines {
                out.write_line(&line)?;
            }
        }
    }
    out.flush()?;
    Ok(summary)
}

/// The hasher of `entry`'s algorithm and length, made at its first entry.
fn hasher_for<'h>(
    hashers: &'h mut Vec<EntryHasher>,
    args: &CheckArgs,
    registry: &Registry,
    params: &HashParams,
    entry: &Recorded,
    shown: &str,
) -> Result<&'h EntryHasher, Failure> {
    let at = match hashers.iter().position(|h| h.hashes(entry)) {
        Some(at) => at,
        None => {
            let backend = args.backend.as_deref();
            let made = EntryHasher::new(registry, entry, backend, params, !args.no_mmap)
                .map_err(|e| manifest_refusal(shown, e))?;
            hashers.push(made);
            hashers.len() - 1
        }
    };
    Ok(&hashers[at])
}
