//! The `hashlab` command: argument parsing and output only; hashing lives in the
//! libraries.

use std::process::ExitCode;

use clap::Parser;

use hashlab_cli::cli::{Cli, Command};
use hashlab_cli::failure::Failure;
use hashlab_cli::{commands, errln, multicall, stdio};

/// std's start-up code puts /dev/null, open for reading and writing, on a
/// closed descriptor 0, 1 or 2 before `main` runs, so `hashlab sum f >&-`
/// would write into /dev/null and exit 0. A constructor runs before that
/// code (as with the `ctor` crate, which would be a dependency for these
/// three lines) and guards the descriptors first. It lives in the binary: a
/// static in the library would be dropped by the linker with its unused object.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[used]
#[link_section = ".init_array"]
static GUARD_AT_START: extern "C" fn() = guard_at_start;

#[cfg(any(target_os = "linux", target_os = "android"))]
extern "C" fn guard_at_start() {
    stdio::guard_standard_descriptors();
}

fn main() -> ExitCode {
    let code = command();
    if std::env::var_os("HASHLAB_DEBUG_COUNTS").is_some() {
        report_counts();
    }
    code
}

/// Plans built and names resolved in this run, on stderr, where a debug
/// build counts them (`HASHLAB_DEBUG_COUNTS=1`, for tests/counts.rs: one run,
/// one plan, one resolution per name); a release build counts nothing.
fn report_counts() {
    let plans = hashlab_integrity::plans::so_far();
    let resolutions = hashlab::resolutions::so_far();
    if let (Some(plans), Some(resolutions)) = (plans, resolutions) {
        errln!("hashlab: debug counts: {plans} plans, {resolutions} resolutions");
    }
}

fn command() -> ExitCode {
    stdio::guard_standard_descriptors();
    let mut argv = std::env::args_os();
    let tool = argv.next().as_deref().and_then(multicall::tool_of);
    if let Some(tool) = tool {
        let args: Vec<_> = argv.collect();
        let result = multicall::run(tool, &args, |translated| {
            match Cli::try_parse_from(translated) {
                Ok(cli) => run(cli.command),
                Err(e) => stdio::clap_failure(e),
            }
        });
        return match result {
            Ok(code) => code,
            Err(Failure::BrokenPipe) => stdio::die_of_broken_pipe(),
            // The tools exit 1 on a usage error, as on any other.
            Err(Failure::Usage(message) | Failure::Runtime(message)) => {
                errln!("{tool}: {message}");
                ExitCode::from(1)
            }
            Err(Failure::Interrupted) => {
                errln!("{tool}: interrupted");
                ExitCode::from(130)
            }
        };
    }
    let result = match Cli::try_parse() {
        Ok(cli) => run(cli.command),
        // `match` exits with hashdeep's bits, where 2 says an input matched
        // nothing: its usage errors are hashdeep's 64.
        Err(e) if std::env::args_os().nth(1).is_some_and(|a| a == "match") => {
            stdio::clap_failure(e).map(commands::matching::usage_status)
        }
        Err(e) => stdio::clap_failure(e),
    };
    match result {
        Ok(code) => code,
        Err(Failure::BrokenPipe) => stdio::die_of_broken_pipe(),
        Err(Failure::Usage(message)) => {
            errln!("hashlab: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(message)) => {
            errln!("hashlab: {message}");
            ExitCode::from(1)
        }
        Err(Failure::Interrupted) => {
            errln!("hashlab: interrupted");
            ExitCode::from(130)
        }
    }
}

fn run(command: Command) -> Result<ExitCode, Failure> {
    match command {
        Command::List(args) => commands::list::run(&args),
        Command::Sum(args) => commands::sum::run(&args),
        Command::Completions(args) => commands::docs::completions(args.shell),
        Command::Man(args) => commands::docs::man(args.dir.as_deref()),
        Command::Check(args) => commands::check::run(&args),
        Command::Audit(args) => commands::audit::run(&args),
        Command::Match(args) => commands::matching::run(&args),
        Command::Bench(args) if args.like.is_some() => commands::bench::like::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Cpu(args) => commands::cpu::run(&args),
        Command::Info(args) => commands::info::run(&args),
        Command::Ecosystem(args) => commands::ecosystem::run(&args),
        Command::Pick(args) => commands::pick::run(&args),
        Command::Report(args) => commands::report::run(&args),
        Command::Quality(args) => commands::quality::run(&args),
        Command::Compare(args) => commands::compare::run(&args),
        Command::History(args) => commands::history::run(&args),
        Command::InstallLinks(args) => commands::install_links::run(&args),
    }
}
