//! `sum --piece SIZE`, and `check` and `audit` of the manifests it writes
//! (and of `hashdeep -p`'s): the library hashes and compares; this writes.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_integrity::{
    display_name, expand, hash_inputs_in_pieces, hashdeep_piece_lines, is_interrupted,
    parse_piece_size, read_manifest, Cancel, ChangedPieces, Comparer, EntryHasher, Framing,
    HashJob, Input, JsonPieces, JsonRow, LineFault, ManifestError, PieceDigests, ReadOptions,
    Stamp, SumPlan,
};
use hashlab_objects::is_object_url;
use serde::Serialize;

use crate::cli::{CheckArgs, SumArgs, SumFormat};
use crate::commands::sum::{
    first_files, named_input, names, progress_bar, refused, walk_options, Named, Sink,
};
use crate::failure::{io_message, Failure};
use crate::shared::quote;
use crate::stdio::LineOutput;

/// `--piece`'s size, where given, with the options it needs checked: pieces
/// are written in hashdeep's form or in JSON, of files whose length is not
/// hashed before their bytes.
/// `plan` is the run's.
pub(crate) fn piece_size(args: &SumArgs, plan: &SumPlan) -> Result<Option<u64>, Failure> {
    let Some(text) = &args.piece else {
        return Ok(None);
    };
    let size = parse_piece_size(text).map_err(|e| Failure::Usage(format!("--piece: {e}")))?;
    let written = args.json || matches!(args.format, Some(SumFormat::Hashdeep | SumFormat::Json));
    if !written {
        return Err(Failure::Usage(
            "--piece: pieces are written in --format hashdeep or --json (as hashdeep -p writes them, or as each row's `pieces`)".into(),
        ));
    }
    if let Some(column) = plan
        .columns
        .iter()
        .find(|c| c.choice.hasher().needs_length_first())
    {
        return Err(Failure::Usage(format!(
            "--piece: {} hashes an input's length before its bytes, so a piece cannot be hashed as it is read; pieces take other algorithms",
            column.choice.name()
        )));
    }
    Ok(Some(size))
}

/// One row of `sum --json --piece`: `sum --json`'s fields, and `pieces`.
#[derive(Serialize)]
struct PieceRow {
    #[serde(flatten)]
    row: JsonRow,
    pieces: JsonPieces,
}

/// `sum --piece SIZE`: every file whole and in pieces, by the run's `plan`.
pub(crate) fn sum(args: &SumArgs, plan: SumPlan, size: u64) -> Result<ExitCode, Failure> {
    let names = names(args, true)?;
    if let Some(url) = names
        .iter()
        .filter_map(|n| n.to_str())
        .find(|n| is_object_url(n))
    {
        return Err(Failure::Usage(format!(
            "--piece: {url}: pieces are hashed of local files (and standard input), not of object-store URLs"
        )));
    }
    let inputs = expand(&names, &walk_options(args)?);
    let local: Vec<&Input> = inputs.iter().collect();
    let plan = plan.reading(&first_files(&local, 8)).map_err(refused)?;
    let job: HashJob = plan.job(Cancel::new());
    let mut sink = Sink::open_for(args.output.as_deref(), &plan, &job)?;
    let progress = progress_bar(args, &local);
    let mut rows = Vec::new();
    let mut failed = false;
    let make = || plan.fanout();
    let result = hash_inputs_in_pieces(
        &inputs,
        &make,
        size,
        plan.jobs,
        &job,
        &mut |i, result: io::Result<PieceDigests>| -> Result<(), Failure> {
            if job.cancel.is_cancelled() {
                return Err(Failure::Interrupted);
            }
            if let Some(bar) = &progress {
                bar.inc(result.as_ref().map_or(0, |r| r.file.bytes));
            }
            let Named {
                label,
                shown,
                absolute,
            } = named_input(&inputs[i]);
            let digests = match result {
                Ok(digests) => digests,
                Err(e) if is_interrupted(&e) => return Err(Failure::Interrupted),
                Err(e) => {
                    sink.flush()?;
                    errln!("hashlab: {shown}: {}", io_message(&e));
                    failed = true;
                    return Ok(());
                }
            };
            if plan.hashdeep {
                return match hashdeep_piece_lines(&absolute, &digests) {
                    Ok(lines) => sink.write(&lines),
                    Err(e) => {
                        sink.flush()?;
                        errln!("hashlab: {}: {e}", quote(&label));
                        failed = true;
                        Ok(())
                    }
                };
            }
            let file = &digests.file;
            for (column_index, (column, digest)) in
                plan.columns.iter().zip(&file.digests).enumerate()
            {
                rows.push(PieceRow {
                    row: JsonRow::new(
                        &label,
                        column.choice.name(),
                        column.choice.backend_name(),
                        digest,
                        Stamp::of_hashed(file),
                    ),
                    pieces: JsonPieces::of(&digests, column_index),
                });
            }
            Ok(())
        },
    );
    if let Err(e) = result {
        return sink.stopped(e);
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if !plan.hashdeep {
        sink.write(&crate::output::render_json(&rows)?)?;
    }
    sink.finish()?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

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
    let params = crate::commands::sum::secret_params(registry, &args.secret)?;
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

/// `audit`'s rows with, for each changed file whose pieces say where, the
/// ranges in place of the bare "content differs".
pub(crate) fn with_ranges(
    mut rows: Vec<crate::commands::audit::AuditRow>,
    changed: &[ChangedPieces],
) -> Vec<crate::commands::audit::AuditRow> {
    for row in &mut rows {
        if row.status == "changed" {
            if let Some(c) = changed.iter().find(|c| c.name == row.name) {
                row.detail = c.comparison.describe();
            }
        }
    }
    rows
}
