//! `hashlab match`: the files whose digests are, or are not, in known sets,
//! as hashdeep's `-m`, `-x`, `-M`, `-X` and `-w`. The library loads the sets
//! and looks digests up; this hashes, prints and sums up the exit status.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hashlab::{Choice, HashParams, Registry};
use hashlab_integrity::many::MAX_JOBS;
use hashlab_integrity::{
    escape_name, exclude_set, expand, hash_inputs, hashdeep_line, is_interrupted, load_set, Cancel,
    Fanout, FileDigests, Input, KnownBuilder, KnownError, KnownHash, KnownSets, Lookup,
    ManifestError, SetOptions, SumPlan, SumRequest, WalkOptions,
};

use crate::cli::MatchArgs;
use crate::failure::{io_message, Failure};
use crate::shared::args::jobs_over_limit;
use crate::shared::name_bytes;
use crate::stdio::LineOutput;

/// The bits of the exit status, as hashdeep's manual gives them.
/// A known digest that no input matched.
pub const UNUSED_KNOWN: u8 = 1;
/// An input that matched no known digest.
pub const UNMATCHED_INPUT: u8 = 2;
/// Bad options or sets, and (unlike hashdeep) an input that could not be read.
pub const USER_ERROR: u8 = 64;
/// Output that could not be written, or anything else not the input's fault.
pub const INTERNAL_ERROR: u8 = 128;

/// A clap outcome for `match`: help and version as they are, errors 64.
pub fn usage_status(code: ExitCode) -> ExitCode {
    if code == ExitCode::SUCCESS {
        code
    } else {
        ExitCode::from(USER_ERROR)
    }
}

/// The options checked as `run` checks them before loading any set.
pub(crate) fn validate(registry: &Registry, args: &MatchArgs) -> Result<(), Failure> {
    if let Some(name) = &args.algorithm {
        registry
            .algorithm(name)
            .map_err(|e| Failure::Usage(format!("-a: {e}")))?;
    }
    match args.jobs {
        Some(0) => return Err(Failure::Usage("--jobs: must be at least 1".into())),
        Some(n) if n > MAX_JOBS => return Err(jobs_over_limit(n)),
        _ => {}
    }
    exclude_set(&args.exclude).map_err(|e| Failure::Usage(format!("--exclude {e}")))?;
    Ok(())
}

pub fn run(args: &MatchArgs) -> Result<ExitCode, Failure> {
    match matching(args) {
        Err(Failure::Usage(message)) => {
            errln!("hashlab: {message}");
            Ok(ExitCode::from(USER_ERROR))
        }
        Err(Failure::Runtime(message)) => {
            errln!("hashlab: {message}");
            Ok(ExitCode::from(INTERNAL_ERROR))
        }
        other => other,
    }
}

/// What is printed of each file.
struct Printing {
    /// Files that match (-m, -M), or files that do not (-x, -X).
    matching: bool,
    /// hashdeep's lines (-M, -X) rather than names.
    digests: bool,
    /// The known name after a match (-w).
    which: bool,
}

fn matching(args: &MatchArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    validate(&registry, args)?;
    let printing = Printing {
        matching: !(args.not_matching || args.not_matching_digests),
        digests: args.matching_digests || args.not_matching_digests,
        which: args.which,
    };
    let mut known = load_sets(&registry, args)?;
    let walk = WalkOptions {
        recursive: args.recursive,
        follow_symlinks: args.follow,
        exclude: exclude_set(&args.exclude)
            .map_err(|e| Failure::Usage(format!("--exclude {e}")))?,
    };
    let names = if args.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files.clone()
    };
    let inputs = expand(&names, &walk);
    let sample: Vec<&Path> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => Some(p.as_path()),
            _ => None,
        })
        .take(8)
        .collect();
    let plan = SumPlan::new(
        &registry,
        &SumRequest {
            algorithms: known.hashes().iter().map(|h| h.algorithm.clone()).collect(),
            jobs: args.jobs,
            allow_mmap: !args.no_mmap,
            ..SumRequest::default()
        },
        &sample,
    )
    .map_err(|e| Failure::Usage(format!("known sets: {e}")))?;
    let choices = hash_choices(&plan, known.hashes())?;
    let make = || Fanout::new(choices.iter().map(Choice::hasher).collect());
    let job = plan.job(Cancel::new());

    let header = printing
        .digests
        .then(|| hashdeep_header(&registry, known.hashes()));
    let mut header_written = false;
    let mut out = LineOutput::new();
    let (mut unmatched, mut unreadable) = (false, false);
    hash_inputs(&inputs, &make, plan.jobs, &job, &mut |i, result| {
        let (label, shown) = match &inputs[i] {
            Input::File(p) | Input::Problem(p, _) => (name_bytes(p), p.display().to_string()),
            Input::Stdin => (b"-".to_vec(), "-".to_string()),
        };
        let digests = match result {
            Ok(digests) => digests,
            Err(e) if is_interrupted(&e) => return Err(Failure::Interrupted),
            Err(e) => {
                // Lines already printed go first, so the message falls where the file would.
                out.flush()?;
                errln!("hashlab: {shown}: {}", io_message(&e));
                unreadable = true;
                return Ok(());
            }
        };
        let of_file: Vec<&[u8]> = digests.digests.iter().map(|d| d.as_bytes()).collect();
        let hit = match known.lookup(&of_file) {
            Lookup::Known(hit) => Some(hit),
            Lookup::Partial { known: of, unknown } => {
                let names = |hashes: &[usize]| {
                    let names: Vec<&str> = hashes
                        .iter()
                        .map(|&h| known.hashes()[h].algorithm.as_str())
                        .collect();
                    names.join(", ")
                };
                out.flush()?;
                errln!(
                    "hashlab: {shown}: its {} is a known entry's and its {} is not (a collision?): no match",
                    names(&of),
                    names(&unknown)
                );
                None
            }
            Lookup::Unknown => None,
        };
        unmatched |= hit.is_none();
        if hit.is_some() != printing.matching {
            return Ok(());
        }
        let mut line = if printing.digests {
            if let Some(header) = header.as_ref().filter(|_| !header_written) {
                out.write_line(header)?;
                header_written = true;
            }
            hashdeep_form(&label, &digests)
        } else {
            line_name(&label)
        };
        if let (true, Some(hit)) = (printing.which, hit) {
            line.extend_from_slice(b" matches ");
            line.extend_from_slice(&line_name(known.name(hit).unwrap_or_default()));
        }
        line.push(b'\n');
        out.write_line(&line)
    })?;
    out.flush()?;
    let mut status = 0;
    if known.unused() > 0 {
        status |= UNUSED_KNOWN;
    }
    if unmatched {
        status |= UNMATCHED_INPUT;
    }
    if unreadable {
        status |= USER_ERROR;
    }
    Ok(ExitCode::from(status))
}

/// Every `-k` set into one [`KnownSets`]; a set that cannot be read stops
/// the run (one line naming it), its unreadable lines are warnings.
fn load_sets(registry: &Registry, args: &MatchArgs) -> Result<KnownSets, Failure> {
    let mut builder = KnownBuilder::new(args.which);
    let options = SetOptions {
        algorithm: args.algorithm.as_deref(),
    };
    for path in &args.known {
        let shown = path.display();
        let report = load_set(&mut builder, registry, path, &options).map_err(|e| {
            if let KnownError::Manifest(ManifestError::NoEntries { problems }) = &e {
                for problem in problems {
                    errln!("hashlab: {shown}: {problem}");
                }
            }
            match e {
                KnownError::Algorithm(e) => Failure::Usage(format!("-a: {e}")),
                e => Failure::Usage(format!("{shown}: {e}")),
            }
        })?;
        for problem in &report.problems {
            errln!("hashlab: {shown}: {problem}");
        }
        if report.without_digest > 0 {
            errln!(
                "hashlab: {shown}: {} rows of FILE have no digest in the column read, and were skipped",
                report.without_digest
            );
        }
    }
    Ok(builder.finish())
}

/// What computes each hash the sets need: the plan's choice of its
/// algorithm, at the sets' digest length where that is not the algorithm's
/// own (a `b2sum -l 256` set, a SHAKE set of 16 bytes).
fn hash_choices(plan: &SumPlan, hashes: &[KnownHash]) -> Result<Vec<Choice>, Failure> {
    hashes
        .iter()
        .map(|h| {
            let column = plan
                .columns
                .iter()
                .find(|c| c.choice.name() == h.algorithm)
                .expect("the plan has a column for each hash's algorithm");
            if column.choice.output_len() == h.width {
                return Ok(column.choice.clone());
            }
            let params = HashParams {
                length: Some(h.width),
                ..HashParams::default()
            };
            column
                .choice
                .with_params(&params)
                .and_then(|c| c.with_parallel(plan.strategy.parallel_hash))
                .map_err(|e| Failure::Usage(format!("known sets: {e}")))
        })
        .collect()
}

/// A name as a line holds it: as it is, unless a newline (or a carriage
/// return at its end, which readers strip) would break the line; then
/// escaped as coreutils escapes names, the line starting with a backslash,
/// as `sum --format hashdeep` writes such a name.
fn line_name(name: &[u8]) -> Vec<u8> {
    if name.contains(&b'\n') || name.last() == Some(&b'\r') {
        let mut line = vec![b'\\'];
        line.extend_from_slice(&escape_name(name).0);
        line
    } else {
        name.to_vec()
    }
}

/// hashdeep's line of a file (size, each digest, name), without its newline.
fn hashdeep_form(name: &[u8], digests: &FileDigests) -> Vec<u8> {
    let hex: Vec<String> = digests.digests.iter().map(|d| d.to_hex()).collect();
    let hex: Vec<&str> = hex.iter().map(String::as_str).collect();
    let mut line = hashdeep_line(digests.bytes, &hex, name);
    line.pop();
    line
}

/// hashdeep's header above the lines of -M and -X: its columns (hashdeep's
/// names for its algorithms), where and how the command ran.
fn hashdeep_header(registry: &Registry, hashes: &[KnownHash]) -> Vec<u8> {
    let columns: Vec<String> = hashes
        .iter()
        .map(|h| {
            registry
                .algorithm(&h.algorithm)
                .ok()
                .and_then(|a| a.hashdeep_column.clone())
                .unwrap_or_else(|| h.algorithm.clone())
        })
        .collect();
    // A newline in the directory or an argument would end the comment line.
    let comment = |bytes: &[u8]| escape_name(bytes).0;
    let mut header = format!(
        "%%%% HASHDEEP-1.0\n%%%% size,{},filename\n## Invoked from: ",
        columns.join(",")
    )
    .into_bytes();
    if let Ok(cwd) = std::env::current_dir() {
        header.extend_from_slice(&comment(&name_bytes(&cwd)));
    }
    header.extend_from_slice(b"\n## $ ");
    let command: Vec<Vec<u8>> = std::env::args_os()
        .map(|a| comment(&name_bytes(Path::new(&a))))
        .collect();
    header.extend_from_slice(&command.join(&b' '));
    header.extend_from_slice(b"\n##\n");
    header
}
