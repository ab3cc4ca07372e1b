//! `hashlab check`: verify manifests, with `sha256sum -c`'s output and
//! exit codes. The arguments become the checker's parts once (`request`);
//! the library reads and hashes each manifest's lines, and this prints each
//! verdict (`lines`), the summary, and the manifests that hold pieces
//! (`pieces`).

mod lines;
mod pieces;
mod request;
mod words;

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use hashlab::{Algorithm, HashParams, Hasher, Registry};
use hashlab_integrity::{
    manifest_hint, CheckError, CheckOptions, Checker, Framing, ManifestHint, Opener, StandardInput,
    Summary,
};
use hashlab_objects::{is_object_url, url_opener, EtagSummary, EtagVerdict};

use self::lines::LineReporter;
use self::request::{manifest_refusal, CheckRun};
use self::words::warnings;
use crate::cli::CheckArgs;
use crate::failure::{io_message, Failure};
use crate::shared::{name_bytes, quote};
use crate::stdio::FileErrors;

pub fn run(args: &CheckArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let CheckRun { params, chosen } = request::request(&registry, args)?;
    let (algorithm, choice) = chosen.unzip();
    let piece_params = HashParams {
        length: args.length,
        ..params.clone()
    };
    let options = CheckOptions {
        algorithm: algorithm.as_ref().map(|a| a.name.clone()),
        backend: args.backend.clone(),
        length: args.length,
        params,
        ignore_missing: args.ignore_missing,
        no_mmap: args.no_mmap,
        // No handler: nothing to clean up, so a signal ends `check` at once.
        cancel: Default::default(),
        framing: if args.zero {
            Framing::Nul
        } else {
            Framing::Lines
        },
    };
    let mut etags = EtagSummary::default();
    let mut checker = Checker::new(&registry, options).with_opener(object_opener(
        args.allow_remote,
        args.verify_etag,
        &mut etags,
    ));
    if let Some(choice) = choice {
        checker = checker.with_choice(choice);
    }
    let manifests = if args.manifests.is_empty() {
        vec!["-".into()]
    } else {
        args.manifests.clone()
    };
    let mut ok = true;
    for manifest in &manifests {
        let chosen = algorithm.as_ref();
        ok &= check_one(
            args,
            &registry,
            &mut checker,
            chosen,
            &piece_params,
            manifest,
        )?;
    }
    drop(checker);
    if args.verify_etag {
        errln!("hashlab: --verify-etag: {}", etags.describe());
        ok &= etags.passed();
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Reads the lines that name object-store URLs through hashlab-objects
/// when `allow_remote`; without it such a line fails unread, and no client
/// is made: the manifest may come from anyone, and a request to a store it
/// names would carry the user's credentials. With `verify_etag`, each
/// object's ETag is checked on the way (a multipart upload's against the
/// MD5s of its parts).
fn object_opener(allow_remote: bool, verify_etag: bool, etags: &mut EtagSummary) -> Opener<'_> {
    if !allow_remote {
        return Box::new(|name: &[u8], _: &mut dyn Hasher| {
            std::str::from_utf8(name)
                .ok()
                .filter(|n| is_object_url(n))?;
            Some(Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "an object-store URL; hashlab reads the URLs a manifest names only with --allow-remote",
            )))
        });
    }
    url_opener(verify_etag, move |url, verdict| {
        etags.add(&verdict);
        if verdict != EtagVerdict::Matches {
            errln!("hashlab: {url}: {}", verdict.describe());
        }
    })
}

/// One manifest checked: whether it passed.
fn check_one(
    args: &CheckArgs,
    registry: &Registry,
    checker: &mut Checker,
    chosen: Option<&Arc<Algorithm>>,
    params: &HashParams,
    manifest: &Path,
) -> Result<bool, Failure> {
    let from_stdin = manifest.as_os_str() == "-";
    // b3sum and xxhsum word what they say beyond OK and FAILED their own way.
    let voice = crate::stdio::file_errors();
    let shown = if from_stdin {
        quote(b"standard input")
    } else {
        quote(&name_bytes(manifest))
    };
    let mut hint = if from_stdin {
        ManifestHint::default()
    } else {
        manifest_hint(registry, &manifest.to_string_lossy())
    };
    if chosen.is_some() {
        hint.algorithm = None;
    }
    // The algorithm coreutils names in --warn messages, as `SHA256 `.
    let kind = hint
        .expected_tag(registry, chosen.map(|a| a.as_ref()))
        .map(|t| format!("{t} "))
        .unwrap_or_default();
    let Some(reader) = open(manifest, from_stdin, voice, &shown) else {
        return Ok(false);
    };
    let mut reader = match pieces::check(args, registry, params, reader, &shown, manifest)? {
        pieces::Checked::Piecewise(passed) => return Ok(passed),
        pieces::Checked::Lines(reader) => reader,
    };
    let mut lines = LineReporter::new(args, voice, &shown, kind);
    let result = checker.check(reader.as_mut(), &hint, from_stdin, &mut |r| lines.report(r));
    lines.finish()?;
    let summary: Summary = match result {
        Ok(summary) => summary,
        Err(CheckError::Read(_)) => {
            errln!("hashlab: {shown}: read error");
            return Ok(false);
        }
        Err(CheckError::Params(e)) => return Err(manifest_refusal(&shown, e)),
        Err(CheckError::Interrupted) => return Err(Failure::Interrupted),
        Err(CheckError::Bound(e)) => {
            errln!("hashlab: {shown}: {e}");
            return Ok(false);
        }
    };
    summarize(args, voice, &shown, &summary)
}

/// The manifest opened, or `None` once the failure is said in the voice
/// of the tool `check` speaks as.
fn open(
    manifest: &Path,
    from_stdin: bool,
    voice: FileErrors,
    shown: &str,
) -> Option<Box<dyn BufRead>> {
    if from_stdin {
        return Some(Box::new(BufReader::new(StandardInput)));
    }
    match File::open(manifest) {
        Ok(f) => Some(Box::new(BufReader::new(f))),
        Err(e) => {
            match voice {
                FileErrors::Coreutils => errln!("hashlab: {shown}: {}", io_message(&e)),
                FileErrors::Rust => errln!("Error: {e}"),
                FileErrors::Xxhsum => {
                    errln!(
                        "Error: Could not open '{}': {}",
                        manifest.display(),
                        io_message(&e)
                    )
                }
            }
            None
        }
    }
}

/// What is said after a manifest's lines, in the voice `check` speaks
/// as; whether the manifest passed.
fn summarize(
    args: &CheckArgs,
    voice: FileErrors,
    shown: &str,
    summary: &Summary,
) -> Result<bool, Failure> {
    if !summary.any_properly_formatted() {
        match voice {
            FileErrors::Xxhsum => {
                errln!("{shown}: no properly formatted xxHash checksum lines found")
            }
            _ => errln!("hashlab: {shown}: no properly formatted checksum lines found"),
        }
    } else if voice == FileErrors::Xxhsum && !args.status {
        // xxhsum's summary, on standard output.
        let mut said = String::new();
        for problem in summary.problems() {
            said.push_str(&format!("{}\n", problem.words()));
        }
        crate::stdio::write_out(said.as_bytes())?;
    } else if voice == FileErrors::Rust {
        // b3sum sums nothing up, and any line it could not read fails the run.
        return Ok(summary.passed(true, args.ignore_missing));
    } else if !args.status {
        warnings(args, shown, summary);
    }
    Ok(summary.passed(args.strict, args.ignore_missing))
}
