//! An argument list checked as far as it can be without running anything:
//! parsed by clap, then each command's numbers, names and sizes turned into
//! the request its library takes and validated there, by the same functions
//! the commands call. Files named by options are not opened, except key files
//! (read no further than the longest key) and `bench --file` (its metadata).
//! The fuzz target feeds it arbitrary argument lists: none may panic.

use std::ffi::OsString;

use clap::Parser;
use hashlab::Registry;
use hashlab_bench::limits::clock_budget;
use hashlab_bench::sizes::{parse_size, parse_sizes};

use crate::cli::{Cli, Command};
use crate::commands;
use crate::failure::Failure;

/// Parses `argv` (program name first) and validates what the command would
/// validate before doing any work. A clap error (unknown option, bad value,
/// `--help`) is returned as a usage error with clap's text.
pub fn validate<I, T>(registry: &Registry, argv: I) -> Result<(), Failure>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = Cli::try_parse_from(argv).map_err(|e| Failure::Usage(e.to_string()))?;
    let size = |text: &Option<String>| {
        text.as_deref()
            .map(|s| parse_size(s).map_err(|e| Failure::Usage(format!("--size: {e}"))))
            .transpose()
    };
    match &cli.command {
        Command::Bench(args) => commands::bench::request(args, registry).map(|_| ()),
        Command::Report(args) => {
            size(&args.size)?;
            if args.inputs.is_empty() {
                commands::report::bench_request(args, registry)?;
            }
            Ok(())
        }
        Command::Sum(args) => commands::sum::validate(registry, args),
        Command::Match(args) => commands::matching::validate(registry, args),
        Command::Audit(args) => commands::audit::validate(registry, args),
        Command::Check(args) => {
            crate::shared::args::secret_params(registry, &args.secret).map(|_| ())
        }
        Command::Cpu(args) => clock_budget(args.clock_ms)
            .map(|_| ())
            .map_err(|e| Failure::Usage(format!("--clock-ms: {e}"))),
        Command::Compare(args) => args
            .size
            .as_deref()
            .map(|s| parse_sizes(s).map_err(|e| Failure::Usage(format!("--size: {e}"))))
            .transpose()
            .map(|_| ()),
        Command::Pick(args) => size(&args.size).map(|_| ()),
        Command::List(_)
        | Command::Completions(_)
        | Command::Man(_)
        | Command::Info(_)
        | Command::Ecosystem(_)
        | Command::Quality(_)
        | Command::History(_)
        | Command::InstallLinks(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(args: &[&str]) -> Result<(), String> {
        let registry = Registry::default();
        let argv = std::iter::once("hashlab").chain(args.iter().copied());
        validate(&registry, argv).map_err(|e| match e {
            Failure::Usage(m) => format!("usage: {m}"),
            Failure::Runtime(m) => format!("runtime: {m}"),
            Failure::BrokenPipe => "broken pipe".into(),
            Failure::Interrupted => "interrupted".into(),
        })
    }

    #[test]
    fn hostile_numbers_are_usage_errors_naming_the_option() {
        assert_eq!(check(&["bench", "--sizes", "64"]), Ok(()));
        for (args, option) in [
            (
                &["bench", "--misalign", "18446744073709547520"][..],
                "--misalign: ",
            ),
            (&["bench", "--misalign", "4096"], "--misalign: "),
            (&["bench", "--sizes", "2000G"], "--sizes: "),
            (&["bench", "--threads", "1025"], "--threads: "),
            (&["bench", "--max-time", "inf"], "--max-time: "),
            (&["bench", "-b", "nosuch"], "--backends: "),
            (&["report", "--max-time", "1e300"], "--max-time: "),
            (
                &["cpu", "--clock-ms", "18446744073709551615"],
                "--clock-ms: ",
            ),
            (
                &["sum", "-a", "shake128", "--length", "99999999999"],
                "--length: ",
            ),
            (&["match", "-k", "set", "-j", "0"], "--jobs: "),
            (&["match", "-k", "set", "-j", "1025"], "--jobs: "),
            (&["match", "-k", "set", "-a", "nosuch"], "-a: "),
            (&["match", "-k", "set", "--exclude", "["], "--exclude "),
        ] {
            let err = check(args).unwrap_err();
            assert!(
                err.starts_with(&format!("usage: {option}")),
                "{args:?}: {err}"
            );
        }
        assert!(check(&["bench", "--bogus"])
            .unwrap_err()
            .starts_with("usage: error:"));
    }

    /// `audit`'s refusals come from the step its run takes before reading:
    /// the manifest named here does not exist, so a refusal that needed it
    /// read could not be made, and arguments without fault pass.
    #[test]
    fn audit_is_refused_as_its_request_refuses_before_any_file_is_read() {
        let absent = "no-such-manifest.sha256";
        assert_eq!(check(&["audit", absent]), Ok(()));
        assert_eq!(
            check(&["audit", absent, "s3://b/p", "--verify-etag"]),
            Ok(())
        );
        let report = ["--batch-report", "no-such-report.csv"];
        assert_eq!(
            check(&[&["audit", absent, "s3://b/p"][..], &report].concat()),
            Ok(())
        );
        for (args, said) in [
            (&["audit", absent, "-a", "nosuch"][..], "usage: -a: "),
            (
                &["audit", absent, "-j", "0"],
                "usage: --jobs: must be at least 1",
            ),
            (
                &["audit", absent, "-j", "1025"],
                "usage: --jobs: 1025 is over",
            ),
            (&["audit", absent, "--download"], "usage: --download: only"),
            (
                &["audit", absent, "s3://b/p", "--update"],
                "usage: --update: local",
            ),
            (
                &["audit", absent, "--verify-etag"],
                "usage: --verify-etag: no object-store",
            ),
            (
                &["audit", ".", "s3://b/p", "--changed-only"],
                "usage: --changed-only: a manifest's",
            ),
            (
                &["audit", ".", "s3://b/p", "-a", "sha256"],
                "usage: -a: a directory is compared",
            ),
            (
                &["audit", ".", "d"],
                "usage: .: a directory, not a manifest",
            ),
            (
                &["audit", absent, "--batch-report", "r"],
                "usage: --batch-report: give",
            ),
            (
                &["audit", absent, "gs://b/p", "--batch-report", "r"],
                "usage: gs://b/p: not an s3://",
            ),
            (
                &["audit", absent, "s3://b", "--batch-report", "r", "-j", "2"],
                "usage: --jobs: --batch-report",
            ),
        ] {
            let err = check(args).unwrap_err();
            assert!(err.starts_with(said), "{args:?}: {err}");
        }
    }
}
