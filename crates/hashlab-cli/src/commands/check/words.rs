//! What `check` says beyond each line's verdict: how an untagged length
//! was read, and coreutils' warnings after a manifest.

use hashlab_integrity::{display_name, Settlement, Summary};

use crate::cli::CheckArgs;

/// `WARNING: N THING(S)`, as coreutils counts what went wrong.
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
pub(super) fn settled(settlement: &Settlement, line_number: u64) -> String {
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

/// What went wrong in a manifest's check, as coreutils and xxhsum count
/// it: each count with its words for one and for many.
pub(super) fn problem_counts(summary: &Summary) -> [(u64, &'static str, &'static str); 3] {
    [
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
    ]
}

/// coreutils' warnings after a manifest: lines it could not read, files
/// it could not read, digests that did not match, nothing verified.
pub(super) fn warnings(args: &CheckArgs, shown: &str, summary: &Summary) {
    for (n, one, many) in problem_counts(summary) {
        if n > 0 {
            errln!("hashlab: {}", plural(n, one, many));
        }
    }
    if args.ignore_missing && summary.matched == 0 {
        errln!("hashlab: {shown}: no file was verified");
    }
}

/// `NAME: VERDICT`, the name escaped as `check` escapes it.
pub(super) fn verdict_line(name: &[u8], verdict: &str) -> Vec<u8> {
    let (name, escaped) = display_name(name);
    let mut line = Vec::with_capacity(name.len() + 24);
    if escaped {
        line.push(b'\\');
    }
    line.extend_from_slice(&name);
    line.extend_from_slice(b": ");
    line.extend_from_slice(verdict.as_bytes());
    line.push(b'\n');
    line
}
