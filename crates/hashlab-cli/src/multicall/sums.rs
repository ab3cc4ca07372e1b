//! `cksum` and `sum` as coreutils 9.1 has them (with the later `-a crc32b`,
//! `--base64` and `--raw`, which 9.1 refuses): their options turned into
//! `hashlab sum` and `hashlab check` arguments.

use std::ffi::OsString;

use super::getopt::{flag, getopt, short_only, valued, Parsed, Spec};
use super::stop::{blake2b_length, help_or_version, Stop};

const CKSUM_OPTIONS: &[Spec] = &[
    valued("algorithm", Some('a')),
    flag("base64", None),
    flag("check", Some('c')),
    flag("debug", None),
    valued("length", Some('l')),
    flag("raw", None),
    flag("tag", None),
    flag("untagged", None),
    flag("zero", Some('z')),
    flag("ignore-missing", None),
    flag("quiet", None),
    flag("status", None),
    flag("strict", None),
    flag("warn", Some('w')),
    flag("help", None),
    flag("version", None),
    // The digest programs' -b and -t: cksum 9.1's getopt takes the letters
    // and then refuses them with its usage line alone.
    short_only("b", 'b', false),
    short_only("t", 't', false),
];

/// What cksum writes for an algorithm, and whether it checks its lines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// `VALUE COUNT NAME` in the algorithm's own form; `-c` refuses them.
    Sum,
    /// `CRC SIZE NAME` (`-a crc32b`), which `-c` reads.
    Crc,
    /// Tagged unless `--untagged`.
    Digest,
}

/// One of `cksum -a`'s names: the catalog's algorithm, its lines, whether
/// `-l` applies (blake2b only), and whether cksum 9.1 lists it.
struct CksumAlgorithm {
    name: &'static str,
    algorithm: &'static str,
    lines: Lines,
    length: bool,
    in_9_1: bool,
}

const fn cksum_algorithm(
    name: &'static str,
    algorithm: &'static str,
    lines: Lines,
) -> CksumAlgorithm {
    CksumAlgorithm {
        name,
        algorithm,
        lines,
        length: false,
        in_9_1: true,
    }
}

/// `cksum -a`'s names, in the order its usage message lists them.
const CKSUM_ALGORITHMS: &[CksumAlgorithm] = &[
    cksum_algorithm("bsd", "bsd", Lines::Sum),
    cksum_algorithm("sysv", "sysv", Lines::Sum),
    cksum_algorithm("crc", "crc32-posix", Lines::Sum),
    // coreutils 9.6.
    CksumAlgorithm {
        in_9_1: false,
        ..cksum_algorithm("crc32b", "crc32", Lines::Crc)
    },
    cksum_algorithm("md5", "md5", Lines::Digest),
    cksum_algorithm("sha1", "sha1", Lines::Digest),
    cksum_algorithm("sha224", "sha224", Lines::Digest),
    cksum_algorithm("sha256", "sha256", Lines::Digest),
    cksum_algorithm("sha384", "sha384", Lines::Digest),
    cksum_algorithm("sha512", "sha512", Lines::Digest),
    CksumAlgorithm {
        length: true,
        ..cksum_algorithm("blake2b", "blake2b", Lines::Digest)
    },
    cksum_algorithm("sm3", "sm3", Lines::Digest),
];

/// Options that mean something only with `-c`, in cksum's order.
const CHECK_ONLY: &[&str] = &["ignore-missing", "quiet", "status", "strict", "warn"];

pub(super) fn cksum(args: &[OsString]) -> Result<Vec<OsString>, Stop> {
    let parsed = getopt(args, CKSUM_OPTIONS).map_err(Stop::Usage)?;
    if let Some(stop) = help_or_version("cksum", &parsed) {
        return Err(stop);
    }
    if parsed.has("b") || parsed.has("t") {
        return Err(Stop::Raw(
            "Try 'cksum --help' for more information.\n".into(),
            1,
        ));
    }
    let chosen = cksum_choice(&parsed)?;
    if parsed.has("base64") && parsed.has("raw") {
        return Err(Stop::Usage(
            "--base64 and --raw are mutually exclusive".into(),
        ));
    }
    let length = match parsed.last_value("length") {
        Some(bits) if chosen.length => blake2b_length(bits, "BLAKE2b", 512)?,
        Some(_) => {
            return Err(Stop::Plain(vec![
                "--length is only supported with --algorithm=blake2b".into(),
            ]))
        }
        None => None,
    };
    let mut out = if parsed.has("check") {
        cksum_check(&parsed, chosen, length)?
    } else {
        cksum_sum(&parsed, chosen, length)?
    };
    out.push("--".into());
    out.extend(parsed.operands);
    Ok(out)
}

/// The algorithm `-a` names; `crc`, the third row, is the default. No
/// abbreviation is taken.
fn cksum_choice(parsed: &Parsed) -> Result<&'static CksumAlgorithm, Stop> {
    match parsed.last_value("algorithm") {
        None => Ok(&CKSUM_ALGORITHMS[2]),
        Some(given) => {
            let given = given.to_string_lossy();
            CKSUM_ALGORITHMS
                .iter()
                .find(|a| a.name == given)
                .ok_or_else(|| invalid_algorithm(&given))
        }
    }
}

/// `cksum -c`: the `hashlab check` arguments before the operands.
fn cksum_check(
    parsed: &Parsed,
    chosen: &CksumAlgorithm,
    length: Option<usize>,
) -> Result<Vec<OsString>, Stop> {
    // cksum -c reads each line's tag, and refuses only an -a it cannot check.
    if chosen.lines == Lines::Sum && parsed.has("algorithm") {
        return Err(Stop::Plain(vec![
            "--check is not supported with --algorithm={bsd,sysv,crc}".into(),
        ]));
    }
    if parsed.has("zero") {
        return Err(Stop::Usage(
            "the --zero option is not supported when verifying checksums".into(),
        ));
    }
    let mut out: Vec<OsString> = vec!["check".into()];
    // Without -a, cksum -c reads each line's tag.
    if parsed.last_value("algorithm").is_some() {
        out.extend(["-a".into(), chosen.algorithm.into()]);
    }
    if let Some(bytes) = length {
        out.extend(["-l".into(), bytes.to_string().into()]);
    }
    for (long, _) in &parsed.options {
        if CHECK_ONLY.contains(long) {
            out.push(format!("--{long}").into());
        }
    }
    Ok(out)
}

/// `cksum` without `-c`: the `hashlab sum` arguments before the operands.
fn cksum_sum(
    parsed: &Parsed,
    chosen: &CksumAlgorithm,
    length: Option<usize>,
) -> Result<Vec<OsString>, Stop> {
    for only in CHECK_ONLY {
        if parsed.has(only) {
            return Err(Stop::Usage(format!(
                "the --{only} option is meaningful only when verifying checksums"
            )));
        }
    }
    let mut out: Vec<OsString> = vec!["sum".into(), "-a".into(), chosen.algorithm.into()];
    if let Some(bytes) = length {
        out.extend(["-l".into(), bytes.to_string().into()]);
    }
    // A number's line has no base64 form: cksum writes the number.
    let numeric = chosen.lines != Lines::Digest;
    if chosen.lines == Lines::Crc && !parsed.has("raw") {
        out.extend(["--format".into(), "cksum".into()]);
    } else if chosen.lines == Lines::Digest {
        // Tagged unless --untagged comes last.
        let untagged = parsed
            .options
            .iter()
            .rev()
            .find(|(l, _)| matches!(*l, "tag" | "untagged"))
            .is_some_and(|(l, _)| *l == "untagged");
        if !untagged && !parsed.has("raw") {
            out.push("--tag".into());
        }
    }
    if parsed.has("base64") && !numeric {
        out.push("--base64".into());
    }
    if parsed.has("raw") {
        out.push("--raw".into());
    }
    if parsed.has("raw") && parsed.operands.len() > 1 {
        return Err(Stop::Usage(
            "the --raw option is not supported with multiple files".into(),
        ));
    }
    // Raw bytes end with no line terminator to change.
    if parsed.has("zero") && !parsed.has("raw") {
        out.push("-z".into());
    }
    out.push("--no-progress".into());
    Ok(out)
}

fn invalid_algorithm(given: &str) -> Stop {
    let mut lines = vec![format!(
        "invalid argument \u{2018}{given}\u{2019} for \u{2018}--algorithm\u{2019}"
    )];
    lines.push("Valid arguments are:".into());
    // cksum 9.1 lists the names it has.
    for a in CKSUM_ALGORITHMS.iter().filter(|a| a.in_9_1) {
        lines.push(format!("  - \u{2018}{}\u{2019}", a.name));
    }
    Stop::UsageLines(lines)
}

const SUM_OPTIONS: &[Spec] = &[
    short_only("r", 'r', false),
    flag("sysv", Some('s')),
    flag("help", None),
    flag("version", None),
];

/// `sum`'s two options that choose, and the algorithm each chooses.
const SUM_CHOICES: &[(&str, &str)] = &[("r", "bsd"), ("sysv", "sysv")];

pub(super) fn sum(args: &[OsString]) -> Result<Vec<OsString>, Stop> {
    let parsed: Parsed = getopt(args, SUM_OPTIONS).map_err(Stop::Usage)?;
    if let Some(stop) = help_or_version("sum", &parsed) {
        return Err(stop);
    }
    // The last of -r and -s decides; -r is the default.
    let algorithm = parsed
        .options
        .iter()
        .rev()
        .find_map(|(l, _)| SUM_CHOICES.iter().find(|(key, _)| key == l))
        .unwrap_or(&SUM_CHOICES[0])
        .1;
    let mut out: Vec<OsString> = vec![
        "sum".into(),
        "-a".into(),
        algorithm.into(),
        "--no-progress".into(),
        "--".into(),
    ];
    out.extend(parsed.operands);
    Ok(out)
}
