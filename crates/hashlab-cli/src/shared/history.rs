//! What `bench --save` / `--check-regression` (and `report`'s own run) do
//! with the history database once a run's results are out, and where that
//! database is. Storage is in hashlab-history, the judging in hashlab-bench's
//! regression module.

use std::path::PathBuf;
use std::process::ExitCode;

use hashlab_bench::regression;
use hashlab_bench::report::Report;
use hashlab_history::{since_last, History, SinceLast};

use crate::cli::DbArgs;
use crate::failure::Failure;

/// Exit code of `bench --check-regression` when a cell got slower (docs/cli.md).
pub const REGRESSION_EXIT: u8 = 3;

/// `--db`, else `HASHLAB_DB` (clap reads both into `db`), else the platform's data directory.
pub fn database_path(db: &DbArgs) -> Result<PathBuf, String> {
    if let Some(path) = &db.db {
        return Ok(path.clone());
    }
    History::default_path().ok_or_else(|| {
        "this platform has no data directory for the history: give --db PATH or set HASHLAB_DB"
            .to_string()
    })
}

/// Opens the history for saving, creating it where nothing is yet; the
/// default location's folder is made on first use.
fn open_for_writing(db: &DbArgs) -> Result<History, String> {
    let path = database_path(db)?;
    if db.db.is_none() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("{}: {}", dir.display(), crate::failure::io_message(&e)))?;
        }
    }
    History::open(&path).map_err(|e| e.to_string())
}

/// Opens an existing history for reading; a missing file is said plainly
/// instead of creating an empty one.
pub fn open_existing(db: &DbArgs) -> Result<Option<History>, Failure> {
    let path = database_path(db).map_err(Failure::Runtime)?;
    History::open_existing(&path).map_err(|e| Failure::Runtime(e.to_string()))
}

/// After the results are printed and written: check for regressions against
/// the last run on this machine, then save. A database problem is reported on
/// its own line and turns the exit code into 1; the results are already out.
pub fn after_bench(
    report: &Report,
    save: bool,
    check_regression: Option<f64>,
    db: &DbArgs,
) -> Result<Option<ExitCode>, Failure> {
    if !save && check_regression.is_none() {
        return Ok(None);
    }
    if report.run.partial {
        errln!("hashlab: the run was interrupted: not saved and not checked for regressions");
        return Ok(None);
    }
    let not_saved = if save {
        "; this run was not saved (its results are above)"
    } else {
        ""
    };
    // Only saving creates a history; a check alone reads the one there is.
    let history = if save {
        Some(open_for_writing(db).map_err(|e| Failure::Runtime(format!("{e}{not_saved}")))?)
    } else {
        open_existing(db)?
    };
    let Some(mut history) = history else {
        errln!(
            "hashlab: {}: no history yet, so no earlier run on this machine to check against (--save stores runs there)",
            database_path(db).map_err(Failure::Runtime)?.display()
        );
        return Ok(None);
    };
    let regressed = match check_regression {
        Some(min_effect) => regressed_since_last(&history, report, min_effect, not_saved)?,
        None => false,
    };
    if save {
        let id = history
            .save(report)
            .map_err(|e| Failure::Runtime(format!("{e}{not_saved}")))?;
        errln!("hashlab: saved as run {id} in {}", history.path().display());
    }
    Ok(regressed.then(|| ExitCode::from(REGRESSION_EXIT)))
}

/// Checks `report` against the last run on its machine and prints what
/// changed; whether a cell got slower. No earlier run is said, not an error.
fn regressed_since_last(
    history: &History,
    report: &Report,
    min_effect: f64,
    not_saved: &str,
) -> Result<bool, Failure> {
    match since_last(history, report, min_effect)
        .map_err(|e| Failure::Runtime(format!("{e}{not_saved}")))?
    {
        SinceLast::NoEarlierRun(machine) => {
            errln!(
                "hashlab: {}: no earlier run on this machine ({machine}) to check against",
                history.path().display()
            );
            Ok(false)
        }
        SinceLast::Checked { against, check } => {
            crate::stdio::write_err(&regression::describe(&check, &against));
            Ok(check.regressed())
        }
    }
}
