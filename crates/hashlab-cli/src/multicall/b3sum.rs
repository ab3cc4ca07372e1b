//! `b3sum` (BLAKE3's own tool): its options turned into `hashlab sum` and
//! `hashlab check` arguments. Its usage errors are worded and ended as
//! b3sum 1.2's (clap 2: exit 1); `--tag` and `--seek` are the later
//! releases' options.

use std::ffi::OsString;

use super::getopt::{flag, getopt, valued, Parsed, Spec};
use super::stop::{help, Stop};

const OPTIONS: &[Spec] = &[
    flag("keyed", None),
    valued("derive-key", None),
    valued("length", Some('l')),
    valued("seek", None),
    valued("num-threads", None),
    flag("no-mmap", None),
    flag("no-names", None),
    flag("raw", None),
    flag("tag", None),
    flag("check", Some('c')),
    flag("quiet", None),
    flag("help", Some('h')),
    flag("version", Some('V')),
];

const USAGE: &str =
    "USAGE:\n    b3sum [FLAGS] [OPTIONS] [FILE]...\n\nFor more information try --help\n";

/// clap's refusal: the message, the usage and exit 1.
fn clap_error(message: &str) -> Stop {
    Stop::Raw(format!("error: {message}\n\n{USAGE}"), 1)
}

/// A number option's value, or b3sum 1.2's words when it is not one: each
/// operand failing for `--length`, one error for `--num-threads`.
fn number(parsed: &Parsed, long: &str) -> Result<Option<u64>, Stop> {
    let Some(v) = parsed.last_value(long) else {
        return Ok(None);
    };
    if let Some(n) = v.to_str().and_then(|s| s.parse::<u64>().ok()) {
        return Ok(Some(n));
    }
    let text = if long == "num-threads" {
        "Error: Failed to parse num threads.\n\nCaused by:\n    invalid digit found in string\n"
            .to_string()
    } else {
        let dash = [OsString::from("-")];
        let names = if parsed.operands.is_empty() {
            &dash[..]
        } else {
            &parsed.operands[..]
        };
        names
            .iter()
            .map(|n| format!("b3sum: {}: Failed to parse {long}.\n", n.to_string_lossy()))
            .collect()
    };
    Err(Stop::Raw(text, 1))
}

pub(super) fn translate(args: &[OsString]) -> Result<Vec<OsString>, Stop> {
    let parsed = getopt(args, OPTIONS).map_err(|e| {
        // getopt's words name the argument; clap's name it so too.
        let arg = e
            .split('\'')
            .nth(1)
            .map(str::to_string)
            .unwrap_or_else(|| e.clone());
        clap_error(&format!(
            "Found argument '{arg}' which wasn't expected, or isn't valid in this context"
        ))
    })?;
    if parsed.has("help") {
        return Err(Stop::Print(help("b3sum")));
    }
    if parsed.has("version") {
        return Err(Stop::Print(format!(
            "b3sum (hashlab) {}\n",
            env!("CARGO_PKG_VERSION")
        )));
    }
    let numbers = Numbers {
        length: number(&parsed, "length")?,
        seek: number(&parsed, "seek")?,
        threads: number(&parsed, "num-threads")?,
    };
    refusals(&parsed)?;
    Ok(arguments(parsed, &numbers))
}

/// The number options, read.
struct Numbers {
    length: Option<u64>,
    seek: Option<u64>,
    threads: Option<u64>,
}

/// What b3sum refuses before reading anything, in its order.
fn refusals(parsed: &Parsed) -> Result<(), Stop> {
    for (a, b) in [
        ("keyed", "derive-key"),
        ("check", "length"),
        ("check", "seek"),
        ("check", "raw"),
        ("check", "no-names"),
        ("check", "tag"),
        ("raw", "tag"),
    ] {
        if parsed.has(a) && parsed.has(b) {
            return Err(clap_error(&format!(
                "The argument '--{a}' cannot be used with '--{b}'"
            )));
        }
    }
    if parsed.has("quiet") && !parsed.has("check") {
        return Err(Stop::Raw(
            "error: The following required arguments were not provided:\n    --check\n\n\
             USAGE:\n    b3sum --check --quiet\n\nFor more information try --help\n"
                .into(),
            1,
        ));
    }
    if parsed.has("keyed") && parsed.operands.is_empty() {
        return Err(Stop::Raw(
            "Error: The --keyed flag requires a file argument, since the key is read from \
             standard input\n"
                .into(),
            1,
        ));
    }
    if parsed.has("raw") && parsed.operands.len() > 1 {
        return Err(Stop::Raw(
            "Error: Only one filename can be provided when using --raw\n".into(),
            1,
        ));
    }
    Ok(())
}

/// The `hashlab sum` or `hashlab check` arguments of options b3sum accepts.
fn arguments(parsed: Parsed, numbers: &Numbers) -> Vec<OsString> {
    let check = parsed.has("check");
    let mut out: Vec<OsString> = Vec::new();
    out.push((if check { "check" } else { "sum" }).into());
    out.extend(["-a".into(), "blake3".into()]);
    if parsed.has("keyed") {
        // b3sum reads the 32 key bytes from standard input.
        out.extend(["--key-file".into(), "/dev/stdin".into()]);
    }
    if let Some(context) = parsed.last_value("derive-key") {
        out.push("--derive-key".into());
        out.push(context.clone());
    }
    if let Some(threads) = numbers.threads.filter(|&t| t > 0) {
        out.extend(["-j".into(), threads.to_string().into()]);
    }
    if parsed.has("no-mmap") {
        out.push("--no-mmap".into());
    }
    if check {
        if parsed.has("quiet") {
            out.push("--quiet".into());
        }
    } else {
        if let Some(length) = numbers.length {
            out.extend(["-l".into(), length.to_string().into()]);
        }
        if let Some(seek) = numbers.seek.filter(|&s| s > 0) {
            out.extend(["--seek".into(), seek.to_string().into()]);
        }
        if parsed.has("raw") {
            out.push("--raw".into());
        } else if parsed.has("no-names") {
            out.push("--no-names".into());
        }
        if parsed.has("tag") {
            out.push("--tag".into());
        }
        out.push("--no-progress".into());
    }
    out.push("--".into());
    out.extend(parsed.operands);
    out
}
