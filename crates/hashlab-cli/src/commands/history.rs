//! `hashlab history`: the saved runs, newest last. Storage is in
//! hashlab-history; what `bench --save` does is in `shared::history`.

use std::process::ExitCode;

use hashlab_history::RunSummary;
use serde::Serialize;

use crate::cli::{Format, HistoryArgs};
use crate::failure::Failure;
use crate::output::{render, Tabular};
use crate::shared::history::{database_path, open_existing};

#[derive(Serialize)]
#[serde(transparent)]
struct RunRow(RunSummary);

impl Tabular for RunRow {
    fn headers() -> &'static [&'static str] {
        &[
            "id", "date", "machine", "mask", "version", "cells", "command",
        ]
    }
    fn cells(&self) -> Vec<String> {
        let r = &self.0;
        // Rows come from a file anyone may have edited: nothing in them
        // reaches a terminal as a control sequence.
        let printable = |text: &str| crate::output::printable(text).into_owned();
        let version = match &r.git_commit {
            Some(c) => format!("{} ({c})", r.version),
            None => r.version.clone(),
        };
        vec![
            r.id.to_string(),
            printable(&r.date),
            printable(&format!("{} [{}]", r.cpu_model, r.machine)),
            if r.cpu_mask.is_empty() {
                "-".into()
            } else {
                printable(&r.cpu_mask.join(","))
            },
            printable(&version),
            if r.partial {
                format!("{} (partial)", r.cells)
            } else {
                r.cells.to_string()
            },
            printable(&r.command),
        ]
    }
}

pub fn run(args: &HistoryArgs) -> Result<ExitCode, Failure> {
    let runs = match open_existing(&args.db)? {
        Some(history) => history
            .list()
            .map_err(|e| Failure::Runtime(e.to_string()))?,
        None => {
            errln!(
                "hashlab: {}: no history yet (hashlab bench --save stores runs there)",
                database_path(&args.db).map_err(Failure::Runtime)?.display()
            );
            Vec::new()
        }
    };
    let rows: Vec<RunRow> = runs.into_iter().map(RunRow).collect();
    let out = render(&rows, args.format.chosen().unwrap_or(Format::Table))?;
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
}
