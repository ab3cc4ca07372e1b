//! `check` of the manifests that hold pieces (`sum --piece`'s, `hashdeep
//! -p`'s): the library tells them from manifests of lines and compares
//! each file and its pieces; this prints each verdict and, for a failed
//! file, the bytes that changed.

use std::io::BufRead;
use std::path::Path;

use hashlab::{HashParams, Registry};
use hashlab_integrity::{
    io_message, manifest_shape, verdict_line, EntryCheckError, EntryChecker, EntryVerdict, Framing,
    Manifest, ManifestShape, Summary,
};

use super::request::manifest_refusal;
use super::words::warnings;
use crate::cli::CheckArgs;
use crate::failure::Failure;
use crate::shared::quote;
use crate::stdio::LineOutput;

/// What [`check`] made of a manifest.
pub(super) enum Checked {
    /// Piecewise, and checked: whether it passed.
    Piecewise(bool),
    /// Not piecewise: its bytes, for the line checker.
    Lines(Box<dyn BufRead>),
}

/// `check` of one manifest where it holds pieces: each entry is checked as
/// `check` checks a line, `NAME: OK` or `NAME: FAILED`, and a failed file
/// with pieces gets a second line naming the bytes that changed. Anything
/// else is handed back for the line checker. `params` are the run's,
/// `--length` among them.
pub(super) fn check(
    args: &CheckArgs,
    registry: &Registry,
    params: &HashParams,
    reader: Box<dyn BufRead>,
    shown: &str,
    manifest: &Path,
) -> Result<Checked, Failure> {
    let framing = if args.zero {
        Framing::Nul
    } else {
        Framing::Lines
    };
    let name = manifest.to_string_lossy();
    let algorithm = args.algorithm.as_deref();
    let manifest = match manifest_shape(registry, reader, &name, algorithm, framing) {
        ManifestShape::Lines(reader) => return Ok(Checked::Lines(reader)),
        ManifestShape::Piecewise(manifest) => manifest,
        ManifestShape::Unreadable(e) => {
            errln!("hashlab: {shown}: {e}");
            return Ok(Checked::Piecewise(false));
        }
        ManifestShape::NoEntries(problems) => {
            for problem in &problems {
                errln!("hashlab: {shown}: {problem}");
            }
            errln!("hashlab: {shown}: no properly formatted checksum lines found");
            return Ok(Checked::Piecewise(false));
        }
    };
    for problem in &manifest.problems {
        errln!("hashlab: {shown}: {problem}");
    }
    let summary = check_entries(args, registry, params, &manifest, shown)?;
    if !args.status {
        warnings(args, shown, &summary);
    }
    Ok(Checked::Piecewise(
        summary.piecewise_passed(args.ignore_missing),
    ))
}

/// Each entry compared with its file, its verdict printed; the counts.
fn check_entries(
    args: &CheckArgs,
    registry: &Registry,
    params: &HashParams,
    manifest: &Manifest,
    shown: &str,
) -> Result<Summary, Failure> {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let backend = args.backend.as_deref();
    let (mmap, ignore_missing) = (!args.no_mmap, args.ignore_missing);
    let mut checker = EntryChecker::new(registry, backend, params, mmap, ignore_missing, jobs);
    let mut out = LineOutput::new();
    for entry in &manifest.entries {
        let verdict = checker.check(entry).map_err(|e| match e {
            EntryCheckError::Hasher(e) => manifest_refusal(shown, e),
            EntryCheckError::Interrupted => Failure::Interrupted,
        })?;
        let line = |verdict: &str| verdict_line(&entry.name, verdict);
        let lines = match verdict {
            None => continue,
            Some(EntryVerdict::Intact) if args.quiet => vec![],
            Some(EntryVerdict::Intact) => vec![line("OK")],
            Some(EntryVerdict::Changed(c)) if entry.pieces.is_some() => {
                vec![line("FAILED"), line(&c.describe())]
            }
            Some(EntryVerdict::Changed(_)) => vec![line("FAILED")],
            Some(EntryVerdict::Unreadable(e)) => {
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
    Ok(checker.finish(&manifest.problems))
}
