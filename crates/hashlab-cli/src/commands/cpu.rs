//! `hashlab cpu`: this machine as benchmarks see it, and the SIMD path each
//! algorithm's default backend takes here. Captured and laid out by
//! hashlab-bench's `machine`.

use std::process::ExitCode;
use std::time::Duration;

use hashlab::Registry;
use hashlab_bench::limits::clock_budget;
use hashlab_bench::machine::{cpu_report, document};

use crate::cli::{CpuArgs, Format};
use crate::failure::Failure;
use crate::output::print;

/// The time `--clock-ms` gives the clock measurement, bounded by the library.
fn request(args: &CpuArgs) -> Result<Duration, Failure> {
    clock_budget(args.clock_ms).map_err(|e| Failure::Usage(format!("--clock-ms: {e}")))
}

pub fn run(args: &CpuArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let budget = request(args)?;
    let command_line = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let report = cpu_report(&registry, budget, command_line);
    print(
        &report,
        args.format.chosen().unwrap_or(Format::Table),
        document,
    )
}
