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
        | Command::Audit(_)
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
}
