//! The coreutils digest programs (`sha256sum`, `md5sum`, `b2sum`...): their
//! options turned into `hashlab sum` and `hashlab check` arguments.

use std::ffi::OsString;

use hashlab::Registry;

use super::getopt::{getopt, Parsed, Spec};
use super::stop::{blake2b_length, help_or_version, Stop, COREUTILS_OPTIONS};

/// Options that mean something only with `-c`, in coreutils' order.
const CHECK_ONLY: &[&str] = &["ignore-missing", "quiet", "status", "strict", "warn"];

/// The `hashlab` arguments for the coreutils digest program `tool` called
/// with `args`.
pub(super) fn translate(
    registry: &Registry,
    tool: &str,
    args: &[OsString],
) -> Result<Vec<OsString>, Stop> {
    let options: Vec<Spec> = COREUTILS_OPTIONS
        .iter()
        .filter(|o| o.long != "length" || tool == "b2sum")
        .copied()
        .collect();
    let parsed = getopt(args, &options).map_err(Stop::Usage)?;
    if let Some(stop) = help_or_version(tool, &parsed) {
        return Err(stop);
    }
    let alias = tool.strip_suffix("sum").unwrap_or(tool);
    let algorithm = registry
        .algorithm(alias)
        .map_err(|e| Stop::Plain(vec![e.to_string()]))?;
    // `--tag -t` is refused; `--text --tag` is not: the last of the two decides.
    let text_last = parsed
        .options
        .iter()
        .rev()
        .find(|(l, _)| matches!(*l, "text" | "binary" | "tag"))
        .is_some_and(|(l, _)| *l == "text");
    refusals(&parsed, text_last)?;
    let check = parsed.has("check");
    let mut out: Vec<OsString> = Vec::new();
    out.push((if check { "check" } else { "sum" }).into());
    out.extend(["-a".into(), algorithm.name.clone().into()]);
    if let Some(bits) = parsed.last_value("length") {
        let max_bits = 8 * algorithm.output.range().1;
        if let Some(bytes) = blake2b_length(bits, &algorithm.tag, max_bits)? {
            out.extend(["-l".into(), bytes.to_string().into()]);
        }
    }
    if check {
        for (long, _) in &parsed.options {
            if CHECK_ONLY.contains(long) {
                out.push(format!("--{long}").into());
            }
        }
    } else {
        if parsed.has("tag") {
            out.push("--tag".into());
        } else if parsed.has("binary") && !text_last {
            out.push("--binary-marker".into());
        }
        if parsed.has("zero") {
            out.push("-z".into());
        }
        // coreutils hashes one file at a time and shows no progress.
        out.push("--no-progress".into());
    }
    out.push("--".into());
    out.extend(parsed.operands);
    Ok(out)
}

/// The combinations coreutils refuses, in its order.
fn refusals(parsed: &Parsed, text_last: bool) -> Result<(), Stop> {
    let check = parsed.has("check");
    let binary_or_text = parsed.has("binary") || parsed.has("text");
    if check && parsed.has("tag") {
        return Err(Stop::Usage(
            "the --tag option is meaningless when verifying checksums".into(),
        ));
    }
    if check && binary_or_text {
        return Err(Stop::Usage(
            "the --binary and --text options are meaningless when verifying checksums".into(),
        ));
    }
    if check && parsed.has("zero") {
        return Err(Stop::Usage(
            "the --zero option is not supported when verifying checksums".into(),
        ));
    }
    if parsed.has("tag") && text_last {
        return Err(Stop::Usage("--tag does not support --text mode".into()));
    }
    if !check {
        for only in CHECK_ONLY {
            if parsed.has(only) {
                return Err(Stop::Usage(format!(
                    "the --{only} option is meaningful only when verifying checksums"
                )));
            }
        }
    }
    Ok(())
}
