//! `check` of the manifests that hold pieces (`sum --piece`'s, `hashdeep
//! -p`'s): the library hashes and compares each file and its pieces; this
//! prints each verdict and, for a failed file, the bytes that changed.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use hashlab::Registry;
use hashlab_integrity::{
    display_name, is_interrupted, read_manifest, Cancel, Comparer, EntryHasher, Framing, LineFault,
    ManifestError, ReadOptions,
};

use crate::cli::CheckArgs;
use crate::failure::{io_message, Failure};
use crate::shared::quote;
use crate::stdio::LineOutput;

/// What [`check`] made of a manifest.
pub(crate) enum Checked {
    /// Piecewise, and checked: whether it passed.
    Piecewise(bool),
    /// Not piecewise: its bytes, for the line checker.
    Lines(Box<dyn BufRead>),
}

fn piece_fault(p: &hashlab_integrity::LineProblem) -> bool {
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

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("WARNING: {n} {}", if n == 1 { one } else { many })
}

/// `check` of one manifest: where it is piecewise (see [`piecewise`]), each
/// entry is checked as `check` checks a line, `NAME: OK` or `NAME: FAILED`,
/// and a failed file with pieces gets a second line naming the bytes that
/// changed. Anything else is handed back for the line checker, unread but
/// for what was looked at.
pub(crate) fn check(
    args: &CheckArgs,
    registry: &Registry,
    mut reader: Box<dyn BufRead>,
    shown: &str,
    manifest: &Path,
) -> Result<Checked, Failure> {
    // Only hashdeep's (`%%%%`) and JSON (`[`) manifests hold pieces; a
    // manifest of lines streams on untouched.
    let first = match reader.fill_buf() {
        Ok(buf) => buf.first().copied(),
        Err(_) => None,
    };
    if args.zero || !matches!(first, Some(b'%' | b'[')) {
        return Ok(Checked::Lines(reader));
    }
    let bytes = match hashlab_integrity::bounded::read_to_end(&mut reader, b'\n') {
        Ok(bytes) => bytes,
        Err(e) => {
            errln!("hashlab: {shown}: {e}");
            return Ok(Checked::Piecewise(false));
        }
    };
    let options = ReadOptions {
        algorithm: args.algorithm.as_deref(),
        framing: Framing::Lines,
    };
    // Piecewise: an entry has pieces, or pieces could not be read (which
    // the line checker would only call improperly formatted lines).
    let manifest = match read_manifest(registry, &bytes, &manifest.to_string_lossy(), &options) {
        Ok(m)
            if m.entries.iter().any(|e| e.pieces.is_some())
                || m.problems.iter().any(piece_fault) =>
        {
            m
        }
        Err(ManifestError::NoEntries { problems }) if problems.iter().any(piece_fault) => {
            for problem in &problems {
                errln!("hashlab: {shown}: {problem}");
            }
            errln!("hashlab: {shown}: no properly formatted checksum lines found");
            return Ok(Checked::Piecewise(false));
        }
        _ => return Ok(Checked::Lines(Box::new(io::Cursor::new(bytes)))),
    };
    // A file whose pieces contradict each other is not verified: that fails
    // the check, whatever --strict says, as a missing piece line would.
    for problem in &manifest.problems {
        errln!("hashlab: {shown}: {problem}");
    }
    let params = crate::shared::args::secret_params(registry, &args.secret)?;
    let params = hashlab::HashParams {
        length: args.length,
        ..params
    };
    let comparer = Comparer::new(std::thread::available_parallelism().map_or(1, |n| n.get()));
    let cancel = Cancel::new();
    let mut out = LineOutput::new();
    let (mut matched, mut mismatched, mut unreadable) = (0u64, 0u64, 0u64);
    // One hasher per algorithm and length, resolved at its first entry.
    let mut hashers: Vec<EntryHasher> = Vec::new();
    for entry in &manifest.entries {
        let hasher = match hashers.iter().position(|h| h.hashes(entry)) {
            Some(at) => &hashers[at],
            None => {
                let made = EntryHasher::new(
                    registry,
                    entry,
                    args.backend.as_deref(),
                    &params,
                    !args.no_mmap,
                )
                .map_err(|e| Failure::Usage(format!("{shown}: {e}")))?;
                hashers.push(made);
                hashers.last().expect("pushed above")
            }
        };
        let result = comparer.compare(&path_of(&entry.name), entry, hasher, &cancel);
        let (name, escaped) = display_name(&entry.name);
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let line = |verdict: &str| {
            let mut line = Vec::with_capacity(name.len() + 24);
            if escaped {
                line.push(b'\\');
            }
            line.extend_from_slice(&name);
            line.extend_from_slice(b": ");
            line.extend_from_slice(verdict.as_bytes());
            line.push(b'\n');
            line
        };
        match result {
            Ok(c) if c.intact() => {
                matched += 1;
                if !args.quiet {
                    lines.push(line("OK"));
                }
            }
            Ok(c) => {
                mismatched += 1;
                lines.push(line("FAILED"));
                if entry.pieces.is_some() {
                    lines.push(line(&c.describe()));
                }
            }
            Err(e) if is_interrupted(&e) => return Err(Failure::Interrupted),
            Err(e) if args.ignore_missing && e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => {
                unreadable += 1;
                out.flush()?;
                errln!("hashlab: {}: {}", quote(&entry.name), io_message(&e));
                lines.push(line("FAILED open or read"));
            }
        }
        if !args.status {
            for line in lines {
                out.write_line(&line)?;
            }
        }
    }
    out.flush()?;
    if !args.status {
        if !manifest.problems.is_empty() {
            let n = manifest.problems.len() as u64;
            errln!(
                "hashlab: {}",
                plural(
                    n,
                    "line is improperly formatted",
                    "lines are improperly formatted"
                )
            );
        }
        if unreadable > 0 {
            errln!(
                "hashlab: {}",
                plural(
                    unreadable,
                    "listed file could not be read",
                    "listed files could not be read"
                )
            );
        }
        if mismatched > 0 {
            errln!(
                "hashlab: {}",
                plural(
                    mismatched,
                    "computed checksum did NOT match",
                    "computed checksums did NOT match"
                )
            );
        }
        if args.ignore_missing && matched == 0 {
            errln!("hashlab: {shown}: no file was verified");
        }
    }
    Ok(Checked::Piecewise(
        manifest.problems.is_empty()
            && mismatched == 0
            && unreadable == 0
            && !(args.ignore_missing && matched == 0),
    ))
}
