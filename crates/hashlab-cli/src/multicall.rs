//! hashlab called by another tool's name (a symbolic or hard link named
//! `sha256sum`, `md5sum`, `b2sum`, `cksum`, `sum`, `b3sum`, `xxhsum`): that
//! tool's options, read as it reads them (GNU getopt for coreutils' and
//! b3sum's: clustered short options, unambiguous prefixes of long ones,
//! options after operands; xxhsum's own reading in `multicall/xxhsum.rs`),
//! turned into the arguments of `hashlab sum` or `hashlab check`, which then
//! run as they always do. Nothing here hashes
//! or reads a manifest: it only translates, and names the program in
//! messages and exit codes as the tool does (coreutils exits 1 on a usage
//! error, where hashlab exits 2).

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;

mod b3sum;
mod sums;
mod xxhsum;

/// Every program hashlab answers to: the coreutils digest programs (each
/// one's name without `sum` is an alias of its algorithm in the catalog:
/// `sha256`, `b2`), coreutils' `cksum` and `sum`, BLAKE3's `b3sum` and
/// xxHash's `xxhsum`.
pub const TOOLS: &[&str] = &[
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "b3sum",
    "xxhsum",
];

/// The tool `argv0` names, when hashlab answers to it.
pub fn tool_of(argv0: &OsStr) -> Option<&'static str> {
    let name = Path::new(argv0).file_name()?.to_str()?;
    TOOLS.iter().copied().find(|t| *t == name)
}

/// An option of the tool: its long name (the key it is known by, given on
/// the command line only when `long_ok`), its short letter, and whether it
/// takes a value.
#[derive(Clone, Copy)]
struct Spec {
    long: &'static str,
    long_ok: bool,
    short: Option<char>,
    takes_value: bool,
}

const fn flag(long: &'static str, short: Option<char>) -> Spec {
    Spec {
        long,
        long_ok: true,
        short,
        takes_value: false,
    }
}

const fn valued(long: &'static str, short: Option<char>) -> Spec {
    Spec {
        long,
        long_ok: true,
        short,
        takes_value: true,
    }
}

/// A letter with no long spelling (`sum -r`); `key` names it in [`Parsed`].
const fn short_only(key: &'static str, short: char, takes_value: bool) -> Spec {
    Spec {
        long: key,
        long_ok: false,
        short: Some(short),
        takes_value,
    }
}

/// coreutils 9.1's digest options (`b2sum` adds `-l`).
const COREUTILS_OPTIONS: &[Spec] = &[
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

/// Options (long name and value) in the order given, and the operands.
#[derive(Debug, Default, PartialEq, Eq)]
struct Parsed {
    options: Vec<(&'static str, Option<OsString>)>,
    operands: Vec<OsString>,
}

impl Parsed {
    fn has(&self, long: &str) -> bool {
        self.options.iter().any(|(l, _)| *l == long)
    }

    fn last_value(&self, long: &str) -> Option<&OsString> {
        self.options
            .iter()
            .rev()
            .find(|(l, _)| *l == long)
            .and_then(|(_, v)| v.as_ref())
    }
}

/// Reads `args` as GNU getopt_long does with `options`: a usage message on
/// error, worded as getopt words it.
fn getopt(args: &[OsString], options: &[Spec]) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let bytes = arg.as_encoded_bytes();
        if bytes == b"--" {
            parsed.operands.extend(args.by_ref().cloned());
            break;
        }
        if let Some(long) = bytes.strip_prefix(b"--") {
            let (name, inline) = match long.iter().position(|&b| b == b'=') {
                Some(eq) => (&long[..eq], Some(&long[eq + 1..])),
                None => (long, None),
            };
            let name = String::from_utf8_lossy(name);
            let exact = options.iter().find(|o| o.long_ok && o.long == name);
            let matches: Vec<&Spec> = match exact {
                Some(o) => vec![o],
                None => options
                    .iter()
                    .filter(|o| o.long_ok && o.long.starts_with(name.as_ref()))
                    .collect(),
            };
            let spec = match matches.as_slice() {
                [one] => *one,
                [] => return Err(format!("unrecognized option '{}'", arg.to_string_lossy())),
                many => {
                    let names: Vec<String> =
                        many.iter().map(|o| format!("'--{}'", o.long)).collect();
                    return Err(format!(
                        "option '{}' is ambiguous; possibilities: {}",
                        arg.to_string_lossy(),
                        names.join(" ")
                    ));
                }
            };
            let value = match (spec.takes_value, inline) {
                (false, Some(_)) => {
                    return Err(format!(
                        "option '--{}' doesn't allow an argument",
                        spec.long
                    ))
                }
                (false, None) => None,
                (true, Some(v)) => Some(os(v)),
                (true, None) => Some(
                    args.next()
                        .cloned()
                        .ok_or_else(|| format!("option '--{}' requires an argument", spec.long))?,
                ),
            };
            parsed.options.push((spec.long, value));
        } else if bytes.len() > 1 && bytes[0] == b'-' {
            let mut rest = &bytes[1..];
            while let Some((&letter, after)) = rest.split_first() {
                rest = after;
                let letter = letter as char;
                let spec = options
                    .iter()
                    .find(|o| o.short == Some(letter))
                    .ok_or_else(|| format!("invalid option -- '{letter}'"))?;
                let value = if spec.takes_value {
                    let value = if rest.is_empty() {
                        args.next()
                            .cloned()
                            .ok_or_else(|| format!("option requires an argument -- '{letter}'"))?
                    } else {
                        os(rest)
                    };
                    rest = &[];
                    Some(value)
                } else {
                    None
                };
                parsed.options.push((spec.long, value));
            }
        } else {
            parsed.operands.push(arg.clone());
        }
    }
    Ok(parsed)
}

fn os(bytes: &[u8]) -> OsString {
    // SAFETY: `bytes` is a piece of an OsString's encoded bytes split at an
    // ASCII byte ('=' or after an ASCII option letter), which the
    // encoding allows.
    unsafe { OsStr::from_encoded_bytes_unchecked(bytes) }.to_os_string()
}

/// How the run ends before any hashing: the tool's own message.
#[derive(Debug, PartialEq, Eq)]
enum Stop {
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
fn help_or_version(tool: &str, parsed: &Parsed) -> Option<Stop> {
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
fn blake2b_length(bits: &OsStr, tag: &str, max_bits: usize) -> Result<Option<usize>, Stop> {
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

/// The tools whose options are not coreutils' digest programs', each with
/// its reading of them.
type Reader = fn(&[OsString]) -> Result<Vec<OsString>, Stop>;
const OWN_READERS: &[(&str, Reader)] = &[
    ("cksum", sums::cksum),
    ("sum", sums::sum),
    ("b3sum", b3sum::translate),
    ("xxhsum", xxhsum::translate),
];

/// The `hashlab` arguments for `tool` called with `args`.
fn translate_for(
    registry: &Registry,
    tool: &str,
    args: &[OsString],
) -> Result<Vec<OsString>, Stop> {
    match OWN_READERS.iter().find(|(name, _)| *name == tool) {
        Some((_, read)) => read(args),
        None => translate(registry, tool, args),
    }
}

/// The `hashlab` arguments for the coreutils digest program `tool` called
/// with `args`.
fn translate(registry: &Registry, tool: &str, args: &[OsString]) -> Result<Vec<OsString>, Stop> {
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
    // `--tag -t` is refused; `--text --tag` is not: the last of the two decides.
    let text_last = parsed
        .options
        .iter()
        .rev()
        .find(|(l, _)| matches!(*l, "text" | "binary" | "tag"))
        .is_some_and(|(l, _)| *l == "text");
    if parsed.has("tag") && text_last {
        return Err(Stop::Usage("--tag does not support --text mode".into()));
    }
    if !check {
        for only in ["ignore-missing", "quiet", "status", "strict", "warn"] {
            if parsed.has(only) {
                return Err(Stop::Usage(format!(
                    "the --{only} option is meaningful only when verifying checksums"
                )));
            }
        }
    }
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
            if matches!(
                *long,
                "ignore-missing" | "quiet" | "status" | "strict" | "warn"
            ) {
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

fn help(tool: &str) -> String {
    format!(
        "Usage: {tool} [OPTION]... [FILE]...\n\
         hashlab answering as {tool}: the options of coreutils' {tool}; see `hashlab sum --help`\n\
         and `hashlab check --help` for what they turn into.\n"
    )
}

/// Runs hashlab as `tool` with `args` (without the program name): the
/// translated arguments through `run`, messages and usage errors as the tool
/// words them.
pub fn run(
    tool: &'static str,
    args: &[OsString],
    run: impl FnOnce(Vec<OsString>) -> Result<ExitCode, crate::failure::Failure>,
) -> Result<ExitCode, crate::failure::Failure> {
    crate::stdio::set_program(tool);
    crate::stdio::set_file_errors(match tool {
        "b3sum" => crate::stdio::FileErrors::Rust,
        "xxhsum" => crate::stdio::FileErrors::Xxhsum,
        _ => crate::stdio::FileErrors::Coreutils,
    });
    if tool == "xxhsum" {
        // xxhsum names standard input `stdin` in its lines.
        crate::stdio::set_stdin_label(b"stdin");
    }
    let registry = Registry::default();
    match translate_for(&registry, tool, args) {
        Ok(mut translated) => {
            translated.insert(0, "hashlab".into());
            run(translated)
        }
        Err(Stop::Print(text)) => {
            crate::stdio::write_out(text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(Stop::Usage(message)) => {
            errln!("{tool}: {message}");
            errln!("Try '{tool} --help' for more information.");
            Ok(ExitCode::from(1))
        }
        Err(Stop::UsageLines(lines)) => {
            for (i, line) in lines.iter().enumerate() {
                if i == 0 {
                    errln!("{tool}: {line}");
                } else {
                    errln!("{line}");
                }
            }
            errln!("Try '{tool} --help' for more information.");
            Ok(ExitCode::from(1))
        }
        Err(Stop::Raw(text, code)) => {
            crate::stdio::write_err(&text);
            Ok(ExitCode::from(code))
        }
        Err(Stop::Plain(lines)) => {
            for line in lines {
                errln!("{tool}: {line}");
            }
            Ok(ExitCode::from(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn translated(tool: &str, list: &[&str]) -> Result<Vec<String>, Stop> {
        translate(&Registry::default(), tool, &args(list))
            .map(|v| v.into_iter().map(|a| a.into_string().unwrap()).collect())
    }

    #[test]
    fn tools_are_named_by_their_file_name() {
        assert_eq!(
            tool_of(OsStr::new("/usr/local/bin/sha256sum")),
            Some("sha256sum")
        );
        assert_eq!(tool_of(OsStr::new("b2sum")), Some("b2sum"));
        assert_eq!(tool_of(OsStr::new("hashlab")), None);
        assert_eq!(tool_of(OsStr::new("sha256sum.exe")), None);
    }

    #[test]
    fn getopt_as_gnu_reads_it() {
        let o = COREUTILS_OPTIONS;
        let p = getopt(&args(&["f", "-cw", "--stat", "--", "-x"]), o).unwrap();
        assert_eq!(p.operands, args(&["f", "-x"]));
        let longs: Vec<&str> = p.options.iter().map(|(l, _)| *l).collect();
        assert_eq!(longs, ["check", "warn", "status"]);
        let p = getopt(&args(&["-l256", "--length=128", "-l", "8", "-"]), o).unwrap();
        assert_eq!(p.last_value("length"), Some(&OsString::from("8")));
        assert_eq!(p.operands, args(&["-"]));
        assert_eq!(
            getopt(&args(&["--s"]), o),
            Err("option '--s' is ambiguous; possibilities: '--status' '--strict'".into())
        );
        assert_eq!(
            getopt(&args(&["--foo"]), o),
            Err("unrecognized option '--foo'".into())
        );
        assert_eq!(
            getopt(&args(&["-x"]), o),
            Err("invalid option -- 'x'".into())
        );
        assert_eq!(
            getopt(&args(&["-l"]), o),
            Err("option requires an argument -- 'l'".into())
        );
        assert_eq!(
            getopt(&args(&["--tag=1"]), o),
            Err("option '--tag' doesn't allow an argument".into())
        );
    }

    #[test]
    fn options_become_sum_and_check_arguments() {
        assert_eq!(
            translated("sha256sum", &["a", "--tag", "b"]).unwrap(),
            [
                "sum",
                "-a",
                "sha256",
                "--tag",
                "--no-progress",
                "--",
                "a",
                "b"
            ]
        );
        assert_eq!(
            translated("md5sum", &["-b", "a"]).unwrap(),
            [
                "sum",
                "-a",
                "md5",
                "--binary-marker",
                "--no-progress",
                "--",
                "a"
            ]
        );
        assert_eq!(
            translated("sha1sum", &["-bt", "a"]).unwrap(),
            ["sum", "-a", "sha1", "--no-progress", "--", "a"]
        );
        assert_eq!(
            translated("sha512sum", &["-c", "--quiet", "--warn", "m"]).unwrap(),
            ["check", "-a", "sha512", "--quiet", "--warn", "--", "m"]
        );
        assert_eq!(
            translated("b2sum", &["-l", "256", "f"]).unwrap(),
            [
                "sum",
                "-a",
                "blake2b",
                "-l",
                "32",
                "--no-progress",
                "--",
                "f"
            ]
        );
        assert_eq!(
            translated("b2sum", &["-l", "0", "-l512", "f"]).unwrap(),
            ["sum", "-a", "blake2b", "--no-progress", "--", "f"]
        );
    }

    #[test]
    fn usage_errors_are_coreutils_words() {
        let usage = |tool: &str, list: &[&str]| match translated(tool, list) {
            Err(Stop::Usage(m)) => m,
            other => panic!("{list:?}: {other:?}"),
        };
        assert_eq!(
            usage("sha256sum", &["-c", "--tag", "m"]),
            "the --tag option is meaningless when verifying checksums"
        );
        assert_eq!(
            usage("sha256sum", &["--tag", "-t", "f"]),
            "--tag does not support --text mode"
        );
        assert_eq!(
            usage("sha256sum", &["--quiet", "f"]),
            "the --quiet option is meaningful only when verifying checksums"
        );
        assert_eq!(
            usage("sha256sum", &["-l", "8", "f"]),
            "invalid option -- 'l'"
        );
        assert_eq!(
            translated("b2sum", &["-l", "7"]),
            Err(Stop::Plain(vec![
                "invalid length: \u{2018}7\u{2019}".into(),
                "length is not a multiple of 8".into()
            ]))
        );
        assert!(matches!(translated("b2sum", &["-l", "520"]), Err(Stop::Plain(l)) if l.len() == 2));
    }
}
