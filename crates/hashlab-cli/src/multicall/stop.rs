//! How a tool's run ends before any hashing (its usage errors, `--help`,
//! `--version`), and the options and checks coreutils' digest programs share.

use std::ffi::OsStr;

use super::getopt::{flag, valued, Parsed, Spec};

/// coreutils 9.1's digest options (`b2sum` adds `-l`).
pub(super) const COREUTILS_OPTIONS: &[Spec] = &[
    flag("binary", Some('b')),
    flag("check", Some('c')),
    flag("tag", None),
    flag("text", Some('t')),
    flag("zero", Some('z')),
    flag("ignore-missing", None),
    flag("quiet", None),
    flag("status", None),
    flag("strict", None),
    flag("warn", Some('w')),
    flag("help", None),
    flag("version", None),
    valued("length", Some('l')),
];

/// How the run ends before any hashing: the tool's own message.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// A usage error, then `Try 'TOOL --help' for more information.`
    Usage(String),
    /// A usage error of several lines (the first after the tool's name),
    /// then the `Try` line.
    UsageLines(Vec<String>),
    /// A message of its own (b2sum's length errors print no `Try` line).
    Plain(Vec<String>),
    /// `--help` or `--version`: text on stdout, exit 0.
    Print(String),
    /// Text for standard error as it is, and the exit code.
    Raw(String, u8),
}

/// `--help` or `--version`, when given: what the tool prints for it.
pub(super) fn help_or_version(tool: &str, parsed: &Parsed) -> Option<Stop> {
    if parsed.has("help") {
        return Some(Stop::Print(help(tool)));
    }
    if parsed.has("version") {
        return Some(Stop::Print(format!(
            "{tool} (hashlab) {}\n",
            env!("CARGO_PKG_VERSION")
        )));
    }
    None
}

/// The bytes of b2sum's and `cksum -a blake2b`'s `-l BITS`, which are
/// checked as coreutils checks them; `None` for the default length (0 or
/// the full `max_bits`).
pub(super) fn blake2b_length(
    bits: &OsStr,
    tag: &str,
    max_bits: usize,
) -> Result<Option<usize>, Stop> {
    let shown = bits.to_string_lossy();
    let bits: usize = shown
        .parse()
        .map_err(|_| Stop::Plain(vec![format!("invalid length: \u{2018}{shown}\u{2019}")]))?;
    if bits > max_bits {
        return Err(Stop::Plain(vec![
            format!("invalid length: \u{2018}{shown}\u{2019}"),
            format!("maximum digest length for \u{2018}{tag}\u{2019} is {max_bits} bits"),
        ]));
    }
    if !bits.is_multiple_of(8) {
        return Err(Stop::Plain(vec![
            format!("invalid length: \u{2018}{shown}\u{2019}"),
            "length is not a multiple of 8".into(),
        ]));
    }
    Ok((bits != 0 && bits != max_bits).then_some(bits / 8))
}

/// What `--help` prints for `tool`.
pub(super) fn help(tool: &str) -> String {
    format!(
        "Usage: {tool} [OPTION]... [FILE]...\n\
         hashlab answering as {tool}: the options of coreutils' {tool}; see `hashlab sum --help`\n\
         and `hashlab check --help` for what they turn into.\n"
    )
}
