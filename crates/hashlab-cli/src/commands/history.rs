//! `hashlab history`: the saved runs, newest last. Storage and the rows are
//! hashlab-history's; what `bench --save` does is in `shared::history`.

use std::process::ExitCode;

use crate::cli::{Format, HistoryArgs};
use crate::failure::Failure;
use crate::output::render_rows;
use crate::shared::history::{database_path, open_existing};

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
    let out = render_rows(&runs, args.format.chosen().unwrap_or(Format::Table))?;
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
}
