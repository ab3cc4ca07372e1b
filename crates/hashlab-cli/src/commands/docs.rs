//! Shell completions and the manual page, generated from the clap definition so
//! they cannot drift from the real options.

use std::io::Write;
use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::Cli;
use crate::failure::{io_message, Failure};

pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, Failure> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "hashlab", &mut out);
    std::io::stdout()
        .lock()
        .write_all(&out)
        .map_err(Failure::from_write)?;
    Ok(ExitCode::SUCCESS)
}

pub fn man(dir: Option<&std::path::Path>) -> Result<ExitCode, Failure> {
    if let Some(dir) = dir {
        let pages = crate::manual::write_pages(Cli::command(), dir)
            .map_err(|e| Failure::Runtime(format!("{}: {}", dir.display(), io_message(&e))))?;
        let mut listing = String::new();
        for page in pages {
            listing.push_str(&format!("{}\n", page.display()));
        }
        std::io::stdout()
            .lock()
            .write_all(listing.as_bytes())
            .map_err(Failure::from_write)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| Failure::Runtime(format!("rendering the manual page: {e}")))?;
    std::io::stdout()
        .lock()
        .write_all(&out)
        .map_err(Failure::from_write)?;
    Ok(ExitCode::SUCCESS)
}
