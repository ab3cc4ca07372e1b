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
mod coreutils;
mod getopt;
mod stop;
mod sums;
mod xxhsum;

use stop::Stop;

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
        None => coreutils::translate(registry, tool, args),
    }
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
    use super::getopt::getopt;
    use super::stop::COREUTILS_OPTIONS;
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn translated(tool: &str, list: &[&str]) -> Result<Vec<String>, Stop> {
        coreutils::translate(&Registry::default(), tool, &args(list))
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
