//! `hashlab sum`: one manifest line per file. The arguments become the
//! run's plan and inputs once (`request`); this hashes through the library
//! and writes, with `--piece` (`pieces`), object-store URLs (`objects`) and
//! `--update` (`update`) beside it.

mod objects;
mod pieces;
mod request;
mod sink;
mod update;

use std::io;
use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_integrity::{
    hash_inputs, is_interrupted, local_inputs, Cancel, FileDigests, HashJob, Input, JsonRow, Named,
    Segment, SumPlan,
};
use hashlab_objects::{EtagSummary, ObjectReader, Settings as ObjectSettings};
use serde::Serialize;

use self::request::{Inputs, SumRun};
use self::sink::{named_input, progress_bar, Sink};
use crate::cli::{Format, SumArgs, SumFormat};
use crate::failure::Failure;
use crate::output::{render, Tabular};
use crate::shared::{name_bytes, quote};

pub(crate) use self::request::validate;

/// `sum --json`'s row is the library's, so that `--update` reads back what `sum` writes.
impl Tabular for JsonRow {
    fn headers() -> &'static [&'static str] {
        &["file", "algorithm", "backend", "bytes", "digest"]
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.file.clone(),
            self.algorithm.clone(),
            self.backend.clone(),
            self.stamp.size.map(|b| b.to_string()).unwrap_or_default(),
            self.digest.clone(),
        ]
    }
}

/// `sum --format csv`'s row: JSON's columns, the name's exact bytes
/// included. A name that is not UTF-8 shows in `file` with U+FFFD for each
/// byte that is not (as in JSON), and exactly in `file_base64`, empty for
/// every other name; it comes last so that the first five columns stay
/// where they were.
#[derive(Serialize)]
struct CsvRow<'a> {
    #[serde(flatten)]
    row: &'a JsonRow,
}

impl Tabular for CsvRow<'_> {
    fn headers() -> &'static [&'static str] {
        &[
            "file",
            "algorithm",
            "backend",
            "bytes",
            "digest",
            "file_base64",
        ]
    }
    fn cells(&self) -> Vec<String> {
        let mut cells = self.row.cells();
        cells.push(self.row.file_base64.clone().unwrap_or_default());
        cells
    }
}

pub fn run(args: &SumArgs) -> Result<ExitCode, Failure> {
    if let Some(manifest) = &args.update {
        return update::run(args, manifest);
    }
    let registry = Registry::default();
    let SumRun { plan, inputs } = request::request(&registry, args)?;
    match inputs {
        Inputs::Pieces { size, inputs } => pieces::sum(args, &plan, size, &inputs),
        Inputs::Segments(segments) => hash(args, &plan, &segments),
    }
}

/// `--format`'s (or `--json`'s) table of rows; `None`: manifest lines.
fn table_format(args: &SumArgs) -> Option<Format> {
    match (args.json, args.format) {
        (true, _) | (false, Some(SumFormat::Json)) => Some(Format::Json),
        (false, Some(SumFormat::Table)) => Some(Format::Table),
        (false, Some(SumFormat::Csv)) => Some(Format::Csv),
        (false, Some(SumFormat::Md)) => Some(Format::Md),
        (false, Some(SumFormat::Hashdeep | SumFormat::Cksum | SumFormat::Sfv)) | (false, None) => {
            None
        }
    }
}

/// Hashes every segment by `plan`, writing as it goes (lines) or at the end (rows).
fn hash(args: &SumArgs, plan: &SumPlan, segments: &[Segment]) -> Result<ExitCode, Failure> {
    let local = local_inputs(segments);
    let reader = object_reader(segments)?;
    let job = plan.job(Cancel::new());
    let mut sink = Sink::open_for(args.output.as_deref(), plan, &job)?;
    if plan.sfv {
        write_sfv_header(&mut sink, plan, &local)?;
    }
    let mut emitter = Emitter::new(args, plan, &job, sink, &local);
    let mut etags = EtagSummary::default();
    let make = || plan.fanout();
    let make_for_objects = || plan.fanout_for_ranges();
    let mut emit = |named: Named, result: io::Result<FileDigests>| emitter.emit(named, result);
    let mut result = Ok(());
    for segment in segments {
        result = match segment {
            Segment::Local(inputs) => hash_inputs(inputs, &make, plan.jobs, &job, &mut |i, r| {
                emit(named_input(&inputs[i]), r)
            }),
            Segment::Objects(urls) => {
                let reader = reader.as_ref().expect("made when any URL is given");
                if args.from_store {
                    let algorithm = plan.columns[0].choice.name();
                    objects::recorded_object_roots(reader, urls, algorithm, &mut emit)
                } else {
                    let verify = args.verify_etag;
                    objects::hash_object_roots(
                        reader,
                        urls,
                        &make_for_objects,
                        verify,
                        &mut etags,
                        &mut emit,
                    )
                }
            }
        };
        if result.is_err() {
            break;
        }
    }
    if let Err(e) = result {
        return emitter.sink.stopped(e);
    }
    let failed = emitter.finish()?;
    if args.verify_etag {
        errln!("hashlab: --verify-etag: {}", etags.describe());
    }
    Ok(if failed || !etags.passed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A client for the stores, made only when a URL is given (it starts a
/// runtime and its threads).
fn object_reader(segments: &[Segment]) -> Result<Option<ObjectReader>, Failure> {
    if !segments.iter().any(|s| matches!(s, Segment::Objects(_))) {
        return Ok(None);
    }
    ObjectReader::new(ObjectSettings::default())
        .map(Some)
        .map_err(|e| Failure::Runtime(format!("object-store client: {e}")))
}

/// SFV's comment header: who wrote it, when, and each local file's size and time.
fn write_sfv_header(sink: &mut Sink, plan: &SumPlan, local: &[&Input]) -> Result<(), Failure> {
    let names: Vec<(Vec<u8>, &Path)> = local
        .iter()
        .filter_map(|input| match input {
            Input::File(p) => Some((name_bytes(p), p.as_path())),
            _ => None,
        })
        .collect();
    let files: Vec<(&[u8], &Path)> = names.iter().map(|(n, p)| (n.as_slice(), *p)).collect();
    let generator = concat!("hashlab ", env!("CARGO_PKG_VERSION"));
    sink.write(&plan.sfv_header(generator, std::time::SystemTime::now(), &files))
}

/// What each hashed input becomes: its lines written at once, or its rows
/// kept for the table written at the end; a file that could not be read
/// said on stderr, where its line would have been.
struct Emitter<'a> {
    plan: &'a SumPlan,
    cancel: Cancel,
    sink: Sink,
    format: Option<Format>,
    progress: Option<indicatif::ProgressBar>,
    rows: Vec<JsonRow>,
    failed: bool,
    done: usize,
}

impl<'a> Emitter<'a> {
    fn new(args: &SumArgs, plan: &'a SumPlan, job: &HashJob, sink: Sink, local: &[&Input]) -> Self {
        Emitter {
            plan,
            cancel: job.cancel.clone(),
            sink,
            format: table_format(args),
            progress: progress_bar(args, local),
            rows: Vec::new(),
            failed: false,
            done: 0,
        }
    }

    fn emit(&mut self, named: Named, result: io::Result<FileDigests>) -> Result<(), Failure> {
        if self.cancel.is_cancelled() {
            return Err(Failure::Interrupted);
        }
        self.done += 1;
        if let Some(bar) = &self.progress {
            bar.inc(result.as_ref().map_or(0, |r| r.bytes));
            bar.set_message(format!("{} files", self.done));
        }
        let Named {
            label,
            shown,
            absolute,
        } = named;
        match result {
            Ok(digests) if self.format.is_none() => {
                match self.plan.lines(&label, &absolute, &digests) {
                    Ok(lines) => self.sink.write(&lines),
                    Err(e) => {
                        self.sink.flush()?;
                        errln!("hashlab: {}: {e}", quote(&label));
                        self.failed = true;
                        Ok(())
                    }
                }
            }
            Ok(digests) => {
                self.rows.extend(self.plan.json_rows(&label, &digests));
                Ok(())
            }
            Err(e) if is_interrupted(&e) => Err(Failure::Interrupted),
            Err(e) => {
                self.sink.flush()?;
                crate::stdio::write_err(&crate::stdio::file_error(&shown, &e));
                self.failed = true;
                Ok(())
            }
        }
    }

    /// The table (where one was asked for) written and the sink closed:
    /// whether any input failed.
    fn finish(mut self) -> Result<bool, Failure> {
        if let Some(bar) = self.progress {
            bar.finish_and_clear();
        }
        if let Some(format) = self.format {
            let rendered = if format == Format::Csv {
                let rows: Vec<CsvRow> = self.rows.iter().map(|row| CsvRow { row }).collect();
                render(&rows, format)?
            } else {
                render(&self.rows, format)?
            };
            self.sink.write(&rendered)?;
        }
        self.sink.finish()?;
        Ok(self.failed)
    }
}
