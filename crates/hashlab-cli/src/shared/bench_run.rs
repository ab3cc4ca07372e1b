//! A bench run as `bench` and `report` make it: the progress bar, the time
//! estimate and Ctrl-C keeping what was measured.

use std::io::IsTerminal;
use std::time::Duration;

use hashlab::Registry;
use hashlab_bench::plan::Plan;
use hashlab_bench::report::{measure, Report, Request};
use hashlab_bench::runner::{Phase, Progress};
use indicatif::{ProgressBar, ProgressStyle};

use crate::failure::Failure;
use crate::shared::args::measure_error;

/// Measures `request` with the progress bar and the time estimate of its
/// `plan` (on a terminal, unless `quiet`); Ctrl-C stops and keeps what was measured. Shared by `bench` and
/// `report`.
pub fn measure_with_progress(
    registry: &Registry,
    request: &Request,
    plan: &Plan,
    quiet: bool,
) -> Result<Report, Failure> {
    let interactive = std::io::stderr().is_terminal() && !quiet;
    let estimate = plan.estimate();
    if interactive && estimate > Duration::from_secs(15) {
        errln!(
            "hashlab: {} cells; this run may take up to {:.0} s (Ctrl-C keeps what was measured)",
            plan.cells.len(),
            estimate.as_secs_f64()
        );
    }

    let stop = hashlab_bench::report::Cancel::new();
    {
        let stop = stop.clone();
        // A second handler cannot be installed (tests call this twice); the run still works.
        let _ = ctrlc::set_handler(move || stop.cancel());
    }
    let bar = interactive.then(|| {
        let bar = ProgressBar::new(plan.cells.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {msg} ETA {eta}")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar
    });
    let mut on_progress = |p: &Progress| {
        if let Some(bar) = &bar {
            bar.set_prefix(match p.phase {
                Phase::WarmUp => "warm-up",
                Phase::Rounds => "rounds",
            });
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
        }
    };
    let report = measure(registry, request, &stop, &mut on_progress).map_err(measure_error)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(report)
}
