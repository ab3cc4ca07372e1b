//! Where `sum`'s lines go (standard output, or `-o`'s file taking them only
//! when the run completes), how each input is named in them, and the
//! progress bar of a long run.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use hashlab_integrity::{HashJob, Input, OutputFile, SumPlan};
// objects.rs names its inputs through here.
pub(super) use hashlab_integrity::Named;

use crate::cli::SumArgs;
use crate::failure::{io_message, Failure};
use crate::shared::name_bytes;
use crate::stdio::LineOutput;

/// Where manifest lines go: standard output, or `-o`'s file, which takes
/// the output only when the run completes (`hashlab_integrity::OutputFile`).
pub(super) enum Sink {
    Stdout(LineOutput),
    File(OutputFile),
}

impl Sink {
    pub(super) fn open(output: Option<&Path>) -> Result<Sink, Failure> {
        Ok(match output {
            Some(target) => Sink::File(OutputFile::create(target)?),
            None => Sink::Stdout(LineOutput::new()),
        })
    }

    /// The sink of a run of `plan`, its hashdeep header written. With -o,
    /// an interrupt must leave the old manifest and no temp file: the hash
    /// in progress stops at its next chunk, and the run unwinds.
    pub(super) fn open_for(
        output: Option<&Path>,
        plan: &SumPlan,
        job: &HashJob,
    ) -> Result<Sink, Failure> {
        if output.is_some() {
            let cancel = job.cancel.clone();
            let _ = ctrlc::set_handler(move || cancel.cancel());
        }
        let mut sink = Sink::open(output)?;
        if plan.hashdeep {
            let cwd = std::env::current_dir()
                .map(|d| name_bytes(&d))
                .unwrap_or_default();
            let command: Vec<Vec<u8>> = std::env::args_os()
                .map(|a| name_bytes(Path::new(&a)))
                .collect();
            let command: Vec<&[u8]> = command.iter().map(Vec::as_slice).collect();
            sink.write(&plan.hashdeep_header(&cwd, &command))?;
        }
        Ok(sink)
    }

    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        match self {
            Sink::Stdout(out) => out.write_line(bytes),
            Sink::File(file) => file.write_all(bytes).map_err(|e| {
                Failure::Runtime(format!("{}: {}", file.target().display(), io_message(&e)))
            }),
        }
    }

    /// Flushes what is written so far (so stdout lines precede a stderr complaint).
    pub(super) fn flush(&mut self) -> Result<(), Failure> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::File(_) => Ok(()),
        }
    }

    pub(super) fn finish(self) -> Result<(), Failure> {
        match self {
            Sink::Stdout(mut out) => out.flush(),
            Sink::File(file) => Ok(file.commit()?),
        }
    }

    /// How a run that stopped on `e` ends: `-o`'s file left as it was (the
    /// temporary file goes with the sink), an interrupt with exit 130.
    pub(super) fn stopped(self, e: Failure) -> Result<ExitCode, Failure> {
        match e {
            Failure::Interrupted => {
                errln!("hashlab: interrupted; the previous manifest is untouched");
                Ok(ExitCode::from(130))
            }
            other => Err(other),
        }
    }
}

/// An input's names, standard input under the label this program gives it.
pub(super) fn named_input(input: &Input) -> Named {
    Named::of(input, crate::stdio::stdin_label())
}

/// A bar over the total bytes when stderr is a terminal and the run looks long
/// (many files or much data), or when asked for with --progress.
pub(super) fn progress_bar(args: &SumArgs, inputs: &[&Input]) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    // indicatif draws only on a terminal, so --progress cannot force a bar into a pipe.
    if args.no_progress || !std::io::stderr().is_terminal() {
        return None;
    }
    let total: u64 = inputs
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            _ => None,
        })
        .sum();
    const LONG_RUN_BYTES: u64 = 1 << 30;
    const LONG_RUN_FILES: usize = 10_000;
    if !args.progress && total < LONG_RUN_BYTES && inputs.len() < LONG_RUN_FILES {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec} {msg} ETA {eta}",
        )
        .expect("static template"),
    );
    Some(bar)
}
