//! Shell completions and the manual page, generated from the clap definition so
//! they cannot drift from the real options.

use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::Cli;
use crate::failure::{io_message, Failure};

pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, Failure> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "hashlab", &mut out);
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
}

pub fn man(dir: Option<&std::path::Path>) -> Result<ExitCode, Failure> {
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::Runtime(format!("{}: {}", dir.display(), io_message(&e))))?;
        let pages = crate::manual::pages(Cli::command())
            .map_err(|e| Failure::Runtime(format!("rendering the manual pages: {e}")))?;
        let mut listing = String::new();
        for (name, roff) in pages {
            // Each page whole or not at all, as any output file.
            let path = dir.join(name);
            hashlab_integrity::write_file(&path, &roff)?;
            listing.push_str(&format!("{}\n", path.display()));
        }
        crate::stdio::write_out(listing.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| Failure::Runtime(format!("rendering the manual page: {e}")))?;
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
}
