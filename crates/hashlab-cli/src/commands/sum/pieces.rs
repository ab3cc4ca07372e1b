//! `sum --piece SIZE`: every file whole and in pieces, written in
//! hashdeep's form (as `hashdeep -p` writes them) or as JSON rows with
//! `pieces`; the library hashes.

use std::io;
use std::process::ExitCode;

use hashlab_integrity::{
    hash_inputs_in_pieces, hashdeep_piece_lines, is_interrupted, Cancel, HashJob, Input,
    PieceDigests, PieceRow, SumPlan,
};

use super::sink::{named_input, progress_bar, Sink};
use crate::cli::SumArgs;
use crate::failure::{io_message, Failure};
use crate::shared::quote;

/// `sum --piece SIZE`: `inputs` whole and in pieces of `size`, by the run's `plan`.
pub(super) fn sum(
    args: &SumArgs,
    plan: &SumPlan,
    size: u64,
    inputs: &[Input],
) -> Result<ExitCode, Failure> {
    let job: HashJob = plan.job(Cancel::new());
    let local: Vec<&Input> = inputs.iter().collect();
    let mut sink = Sink::open_for(args.output.as_deref(), plan, &job)?;
    let progress = progress_bar(args, &local);
    let mut rows = Vec::new();
    let mut failed = false;
    let make = || plan.fanout();
    let result = hash_inputs_in_pieces(
        inputs,
        &make,
        size,
        plan.jobs,
        &job,
        &mut |i, result: io::Result<PieceDigests>| -> Result<(), Failure> {
            if job.cancel.is_cancelled() {
                return Err(Failure::Interrupted);
            }
            if let Some(bar) = &progress {
                bar.inc(result.as_ref().map_or(0, |r| r.file.bytes));
            }
            let named = named_input(&inputs[i]);
            let digests = match result {
                Ok(digests) => digests,
                Err(e) if is_interrupted(&e) => return Err(Failure::Interrupted),
                Err(e) => {
                    sink.flush()?;
                    errln!("hashlab: {}: {}", named.shown, io_message(&e));
                    failed = true;
                    return Ok(());
                }
            };
            if !plan.hashdeep {
                rows.extend(plan.piece_rows(&named.label, &digests));
                return Ok(());
            }
            match hashdeep_piece_lines(&named.absolute, &digests) {
                Ok(lines) => sink.write(&lines),
                Err(e) => {
                    sink.flush()?;
                    errln!("hashlab: {}: {e}", quote(&named.label));
                    failed = true;
                    Ok(())
                }
            }
        },
    );
    if let Err(e) = result {
        return sink.stopped(e);
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    finish(sink, plan, &rows, failed)
}

/// JSON's rows written (hashdeep's lines are already) and the sink closed.
fn finish(
    mut sink: Sink,
    plan: &SumPlan,
    rows: &[PieceRow],
    failed: bool,
) -> Result<ExitCode, Failure> {
    if !plan.hashdeep {
        sink.write(&crate::output::render_json(&rows)?)?;
    }
    sink.finish()?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
