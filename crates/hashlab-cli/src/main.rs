//! The `hashlab` command: argument parsing and output only; hashing lives in the
//! libraries.

use std::process::ExitCode;

use clap::Parser;

use hashlab_cli::cli::{Cli, Command};
use hashlab_cli::commands;
use hashlab_cli::failure::Failure;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List(args) => commands::list::run(&args),
        Command::Sum(args) => commands::sum::run(&args),
        Command::Completions(args) => commands::docs::completions(args.shell),
        Command::Man(args) => commands::docs::man(args.dir.as_deref()),
        Command::Check(args) => commands::check::run(&args),
        Command::Audit(args) => commands::audit::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Cpu(args) => commands::cpu::run(&args),
        Command::Info(args) => commands::info::run(&args),
        Command::Ecosystem(args) => commands::ecosystem::run(&args),
        Command::Pick(args) => commands::pick::run(&args),
        Command::Report(args) => commands::report::run(&args),
        Command::Quality(args) => commands::quality::run(&args),
        Command::Compare(args) => commands::compare::run(&args),
        Command::History(args) => commands::history::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("hashlab: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(message)) => {
            eprintln!("hashlab: {message}");
            ExitCode::from(1)
        }
    }
}
