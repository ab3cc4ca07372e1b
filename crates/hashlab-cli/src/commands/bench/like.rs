//! `hashlab bench --like PATH`: the library measures and projects
//! (hashlab-bench's `like`), this renders it.

use std::io::IsTerminal;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_bench::like::{like, tables, verify, LikeReport};

use super::request::like_request;
use crate::cli::{BenchArgs, Format};
use crate::failure::Failure;
use crate::output::{format_for, render_document, render_json};

/// Real runs made for `--verify` with no algorithm named: the fastest this many.
const VERIFY_TOP: usize = 3;

pub fn run(args: &BenchArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let (request, verified) = like_request(args, &registry)?;
    let format = format_for(args.format.chosen(), args.output.as_deref());
    // The algorithms were checked with the request: what fails now is the
    // path, the store or the measuring.
    let mut report: LikeReport =
        like(&registry, &request).map_err(|e| Failure::Runtime(e.to_string()))?;
    if let Some(asked) = verified {
        let names: Vec<String> = if asked.is_empty() {
            report
                .projections
                .iter()
                .take(VERIFY_TOP)
                .map(|p| p.algorithm.clone())
                .collect()
        } else {
            asked
        };
        // The names were checked with the request.
        report.verified = verify(&registry, &request, &report, &names, args.verify_cold)
            .map_err(|e| Failure::Runtime(e.to_string()))?;
    }
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let render = |format: Format, colour: bool| {
        if format == Format::Json {
            render_json(&report)
        } else {
            render_document(&tables::document(&report), format, colour)
        }
    };
    if let Some(path) = &args.output {
        hashlab_integrity::write_file(path, &render(format, false)?)?;
        if !args.quiet {
            crate::stdio::write_out(&render(Format::Table, colour)?)?;
        }
    } else {
        crate::stdio::write_out(&render(format, colour)?)?;
    }
    Ok(ExitCode::SUCCESS)
}
