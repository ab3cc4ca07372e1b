//! `hashlab check`: verify manifests, with `sha256sum -c`'s output and exit codes.

mod pieces;

use std::fs::File;
use std::io::{self, BufReader};
use std::process::ExitCode;

use hashlab::{HashParams, Hasher, Registry};
use hashlab_integrity::{
    display_name, manifest_hint, sfv_algorithm, CheckError, CheckOptions, Checker, Framing,
    LineResult, ManifestForm, ManifestHint, Opener, Outcome, Settlement, StandardInput, Summary,
};
use hashlab_objects::{
    is_object_url, EtagSummary, EtagVerdict, ObjectReader, Settings as ObjectSettings,
};

use crate::cli::CheckArgs;
use crate::failure::{io_message, Failure};
use crate::shared::args::{secret_params, usage};
use crate::shared::{name_bytes, quote};
use crate::stdio::FileErrors;
use crate::stdio::LineOutput;

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("WARNING: {n} {one}")
    } else {
        format!("WARNING: {n} {many}")
    }
}

/// What trying an untagged length's candidates found, for stderr: the
/// algorithm now reading the manifest's lines of that length, or that none
/// matched the line's file.
fn settled(settlement: &Settlement, line_number: u64) -> String {
    match &settlement.algorithm {
        Some(algorithm) => {
            let passed_over = &settlement.tried[..settlement.tried.len().saturating_sub(1)];
            let fall = if settlement.below_cryptographic {
                format!(
                    " (no security claim: {} did not match)",
                    passed_over.join(", ")
                )
            } else {
                String::new()
            };
            format!(
                "read as {algorithm}{fall}: the lines' length and the first file; give -a to choose"
            )
        }
        None => format!(
            "{line_number}: no algorithm of a {}-byte digest matched the file (tried {}); give -a to choose",
            settlement.bytes,
            settlement.tried.join(", ")
        ),
    }
}

pub fn run(args: &CheckArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let params = secret_params(&registry, &args.secret)?;
    // -a's algorithm resolved now, its key, length and backend errors
    // settled before any output; the checker hashes its lines with it.
    let (algorithm, chosen) = match &args.algorithm {
        Some(name) => {
            let found = registry.find(name).map_err(usage)?;
            let backend = match &args.backend {
                Some(b) => registry
                    .backend(&found.algorithm().name, b)
                    .map_err(usage)?,
                None => {
                    registry
                        .default_backend(&found.algorithm().name)
                        .map_err(usage)?
                        .0
                }
            };
            let params = HashParams {
                length: args.length,
                ..params.clone()
            };
            let chosen = found.resolve(Some(&backend.name), &params).map_err(usage)?;
            (Some(found.algorithm().clone()), Some(chosen))
        }
        None => (None, None),
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
    if let Some(chosen) = chosen {
        checker = checker.with_choice(chosen);
    }
    let manifests = if args.manifests.is_empty() {
        vec!["-".into()]
    } else {
        args.manifests.clone()
    };
    let mut ok = true;
    for manifest in &manifests {
        ok &= check_one(args, &registry, &mut checker, algorithm.as_ref(), manifest)?;
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

/// Reads the lines that name object-store URLs through hashlab-objects (a
/// client made at the first such line) when `allow_remote`; without it such
/// a line fails unread, and no client is made: the manifest may come from
/// anyone, and a request to a store it names would carry the user's
/// credentials. With `verify_etag`, each object's ETag is checked on the
/// way (a multipart upload's against the MD5s of its parts).
fn object_opener(allow_remote: bool, verify_etag: bool, etags: &mut EtagSummary) -> Opener<'_> {
    let mut reader: Option<ObjectReader> = None;
    Box::new(move |name: &[u8], hasher: &mut dyn Hasher| {
        let url = std::str::from_utf8(name)
            .ok()
            .filter(|n| is_object_url(n))?;
        if !allow_remote {
            return Some(Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "an object-store URL; hashlab reads the URLs a manifest names only with --allow-remote",
            )));
        }
        if reader.is_none() {
            match ObjectReader::new(ObjectSettings::default()) {
                Ok(made) => reader = Some(made),
                Err(e) => return Some(Err(e)),
            }
        }
        let reader = reader.as_ref()?;
        let read = reader.read_into(url, verify_etag, &mut |chunk| hasher.update(chunk));
        Some(match read {
            Ok((bytes, verdict)) => {
                if let Some(verdict) = verdict {
                    etags.add(&verdict);
                    if verdict != EtagVerdict::Matches {
                        errln!("hashlab: {url}: {}", verdict.describe());
                    }
                }
                Ok(bytes)
            }
            Err(e) => Err(e.to_io()),
        })
    })
}

fn check_one(
    args: &CheckArgs,
    registry: &Registry,
    checker: &mut Checker,
    chosen: Option<&std::sync::Arc<hashlab::Algorithm>>,
    manifest: &std::path::Path,
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
    // coreutils names the algorithm it expected in --warn messages.
    let kind = chosen
        .map(|a| a.tag.clone())
        .or_else(|| {
            hint.algorithm
                .as_ref()
                .and_then(|h| registry.algorithm(h).ok())
                .or_else(|| {
                    (hint.form == ManifestForm::Sfv)
                        .then(|| sfv_algorithm(registry))
                        .flatten()
                })
                .map(|a| a.tag.clone())
        })
        .map(|t| format!("{t} "))
        .unwrap_or_default();

    let reader: Box<dyn io::BufRead> = if from_stdin {
        Box::new(BufReader::new(StandardInput))
    } else {
        match File::open(manifest) {
            Ok(f) => Box::new(BufReader::new(f)),
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
                return Ok(false);
            }
        }
    };

    let mut reader = match pieces::check(args, registry, reader, &shown, manifest)? {
        pieces::Checked::Piecewise(passed) => return Ok(passed),
        pieces::Checked::Lines(reader) => reader,
    };
    let mut out = LineOutput::new();
    let mut write_error: Option<Failure> = None;
    // Without -a or a telling name, coreutils' `cksum -c` names the
    // algorithm of the last tagged line read.
    let mut last_tag: Option<String> = None;
    let mut failed_because = String::new();
    let mut report = |r: &LineResult| {
        if write_error.is_some() {
            return;
        }
        if r.tagged.is_some() {
            last_tag.clone_from(&r.tagged);
        }
        // xxhsum reads each length as one xxHash variant: that a length's
        // reading was found is no news to its user, only that none matched.
        let quiet_settling = voice == FileErrors::Xxhsum
            && r.settlement.as_ref().is_some_and(|s| s.algorithm.is_some());
        if let (Some(settlement), false, false) = (&r.settlement, args.status, quiet_settling) {
            let _ = out.flush();
            errln!("hashlab: {shown}: {}", settled(settlement, r.line_number));
        }
        let (name, escaped) = display_name(&r.name);
        let verdict: Option<&str> = match &r.outcome {
            Outcome::Ok => (!args.quiet).then_some("OK"),
            Outcome::Failed => Some("FAILED"),
            Outcome::Missing => None,
            Outcome::Unreadable(e) => match voice {
                FileErrors::Coreutils => {
                    let _ = out.flush();
                    errln!("hashlab: {}: {}", quote(&r.name), io_message(e));
                    Some("FAILED open or read")
                }
                FileErrors::Rust => {
                    failed_because = format!("FAILED ({e})");
                    Some(failed_because.as_str())
                }
                FileErrors::Xxhsum => {
                    let said = format!(
                        "{shown}:{}: Could not open or read '{}': {}.\n",
                        r.line_number,
                        String::from_utf8_lossy(&r.name),
                        io_message(e)
                    );
                    if !args.status {
                        if let Err(e) = out.write_line(said.as_bytes()) {
                            write_error = Some(e);
                        }
                    }
                    None
                }
            },
            Outcome::Malformed if voice == FileErrors::Xxhsum => {
                if args.warn {
                    let _ = out.flush();
                    errln!(
                        "{shown}:{}: Error: Improperly formatted checksum line.",
                        r.line_number
                    );
                }
                None
            }
            Outcome::Malformed => {
                // b3sum says so of every line it cannot read.
                if args.warn || voice == FileErrors::Rust {
                    let _ = out.flush();
                    let kind = match (&last_tag, kind.is_empty()) {
                        (Some(tag), true) => format!("{tag} "),
                        _ => kind.clone(),
                    };
                    errln!(
                        "hashlab: {shown}: {}: improperly formatted {kind}checksum line",
                        r.line_number
                    );
                }
                None
            }
        };
        if let (Some(verdict), false) = (verdict, args.status) {
            let mut line = Vec::with_capacity(name.len() + 24);
            if escaped {
                line.push(b'\\');
            }
            line.extend_from_slice(&name);
            line.extend_from_slice(b": ");
            line.extend_from_slice(verdict.as_bytes());
            line.push(b'\n');
            match out.write_line(&line) {
                Ok(()) => {}
                // The checker cannot be stopped mid-manifest, and nothing of
                // ours needs cleaning up: end now, as coreutils does, rather
                // than hash every remaining file for nobody.
                Err(Failure::BrokenPipe) => crate::stdio::die_of_broken_pipe(),
                Err(e) => write_error = Some(e),
            }
        }
    };
    let result = checker.check(reader.as_mut(), &hint, from_stdin, &mut report);
    if let Some(e) = write_error {
        return Err(e);
    }
    out.flush()?;
    let summary: Summary = match result {
        Ok(summary) => summary,
        Err(CheckError::Read(_)) => {
            errln!("hashlab: {shown}: read error");
            return Ok(false);
        }
        Err(CheckError::Params(e)) => {
            return Err(Failure::Usage(format!("{shown}: {e}")));
        }
        Err(CheckError::Interrupted) => return Err(Failure::Interrupted),
        Err(CheckError::Bound(e)) => {
            errln!("hashlab: {shown}: {e}");
            return Ok(false);
        }
    };
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
        for (n, one, many) in [
            (
                summary.malformed,
                "line is improperly formatted",
                "lines are improperly formatted",
            ),
            (
                summary.unreadable,
                "listed file could not be read",
                "listed files could not be read",
            ),
            (
                summary.mismatched,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            ),
        ] {
            if n > 0 {
                said.push_str(&format!("{n} {}\n", if n == 1 { one } else { many }));
            }
        }
        crate::stdio::write_out(said.as_bytes())?;
    } else if voice == FileErrors::Rust {
        // b3sum sums nothing up, and any line it could not read fails the run.
        return Ok(summary.passed(true, args.ignore_missing));
    } else if !args.status {
        if summary.malformed > 0 {
            errln!(
                "hashlab: {}",
                plural(
                    summary.malformed,
                    "line is improperly formatted",
                    "lines are improperly formatted"
                )
            );
        }
        if summary.unreadable > 0 {
            errln!(
                "hashlab: {}",
                plural(
                    summary.unreadable,
                    "listed file could not be read",
                    "listed files could not be read"
                )
            );
        }
        if summary.mismatched > 0 {
            errln!(
                "hashlab: {}",
                plural(
                    summary.mismatched,
                    "computed checksum did NOT match",
                    "computed checksums did NOT match"
                )
            );
        }
        if args.ignore_missing && summary.matched == 0 {
            errln!("hashlab: {shown}: no file was verified");
        }
    }
    Ok(summary.passed(args.strict, args.ignore_missing))
}
