//! `hashlab ecosystem`: which runtimes and tools on this machine offer each
//! algorithm, probed live, beside what the availability table says.

use std::process::ExitCode;
use std::time::Duration;

use hashlab::Registry;
use hashlab_judge::ecosystem::{probe, ProbeOptions};
use hashlab_judge::pages::ecosystem::document;
use hashlab_judge::Availability;

use crate::cli::{EcosystemArgs, Format};
use crate::failure::Failure;
use crate::output::print;

/// The probes' options: this process's PATH and the `--timeout` asked for.
fn request(args: &EcosystemArgs) -> Result<ProbeOptions, Failure> {
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 600.0) {
        return Err(Failure::Usage(format!(
            "--timeout: {} is not a number of seconds between 0 and 600",
            args.timeout
        )));
    }
    Ok(ProbeOptions {
        path: std::env::var_os("PATH").unwrap_or_default(),
        timeout: Duration::from_secs_f64(args.timeout),
    })
}

pub fn run(args: &EcosystemArgs) -> Result<ExitCode, Failure> {
    let options = request(args)?;
    let registry = Registry::default();
    let table = Availability::builtin();
    let report = probe(&options, &registry, &table);
    print(
        &report,
        args.format.chosen().unwrap_or(Format::Table),
        |r| document(r, &registry, args.timeout),
    )
}
