//! `hashlab sum`: one manifest line per file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hashlab::{hex, HashParams, KeyRule, Registry};
use hashlab_integrity::{
    exclude_set, expand, hash_inputs, is_interrupted, parse_file_list, sfv_algorithm, Cancel,
    DigestForm, Fanout, FileDigests, HashJob, Input, JsonRow, OutputFile, PlanError, Stamp,
    StandardInput, SumPlan, SumRequest, WalkOptions,
};

use hashlab_objects::{
    is_object_url, stored::recordable_algorithms, EtagSummary, EtagVerdict, ObjectReader,
    Settings as ObjectSettings,
};

use serde::Serialize;

use crate::cli::{Format, KeyArgs, SumArgs, SumFormat};
use crate::failure::{io_message, Failure};
use crate::output::{render, Tabular};
use crate::shared::args::usage;
use crate::shared::{name_bytes, quote};
use crate::stdio::LineOutput;

/// `sum --json`'s row is the library's, so that `--update` reads back what `sum` writes.
type SumRow = JsonRow;

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

/// The longest key any algorithm of the registry takes (HMAC and KMAC: 1 MiB).
fn longest_key(registry: &Registry) -> usize {
    registry
        .algorithms()
        .iter()
        .map(|a| match a.key {
            KeyRule::None => 0,
            KeyRule::Optional { max, .. } | KeyRule::Defaulted { max, .. } => max,
        })
        .max()
        .unwrap_or(0)
}

/// Reads a key file no further than one byte past `limit`, so that a file
/// without end (`/dev/zero`, a pipe) is refused instead of read until memory
/// runs out.
fn read_key_file(path: &Path, limit: usize) -> Result<Vec<u8>, Failure> {
    let fail = |e: io::Error| {
        Failure::Usage(format!(
            "--key-file: {}: {}",
            path.display(),
            io_message(&e)
        ))
    };
    let file = std::fs::File::open(path).map_err(fail)?;
    let mut key = Vec::new();
    io::Read::read_to_end(
        &mut io::Read::take(file, (limit as u64).saturating_add(1)),
        &mut key,
    )
    .map_err(fail)?;
    if key.len() > limit {
        return Err(Failure::Usage(format!(
            "--key-file: {}: longer than {limit} bytes, the limit of the longest key any algorithm takes",
            path.display()
        )));
    }
    Ok(key)
}

/// Reads a customization string from a file, up to the longest any
/// algorithm takes.
fn read_custom_file(path: &Path) -> Result<Vec<u8>, Failure> {
    let fail = |e: io::Error| {
        Failure::Usage(format!(
            "--custom-file: {}: {}",
            path.display(),
            io_message(&e)
        ))
    };
    let file = std::fs::File::open(path).map_err(fail)?;
    let mut bytes = Vec::new();
    let limit = hashlab::XOF_MAX_OUTPUT as u64;
    io::Read::read_to_end(&mut io::Read::take(file, limit + 1), &mut bytes).map_err(fail)?;
    if bytes.len() as u64 > limit {
        return Err(Failure::Usage(format!(
            "--custom-file: {}: longer than {limit} bytes",
            path.display()
        )));
    }
    Ok(bytes)
}

/// A number as xxhsum takes a seed: decimal, or hex after `0x`.
fn parse_seed(text: &str) -> Result<u64, Failure> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse::<u64>(),
    };
    parsed.map_err(|_| {
        Failure::Usage(format!(
            "--seed: '{text}' is not a number from 0 to 2^64-1 (decimal, or hex after 0x)"
        ))
    })
}

/// A byte as `0x1F`, `1F` or `31`.
fn parse_domain(text: &str) -> Result<u8, Failure> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16),
        None => text.parse::<u8>(),
    };
    parsed.map_err(|_| {
        Failure::Usage(format!(
            "--domain: '{text}' is not a byte (0x01 to 0x7F, or decimal)"
        ))
    })
}

/// The parameters of `KeyArgs`, decoded (length and multi-threading are
/// the caller's); shared with `check`.
pub(crate) fn secret_params(registry: &Registry, secret: &KeyArgs) -> Result<HashParams, Failure> {
    let hex_option = |flag: &str, text: &Option<String>| {
        text.as_deref()
            .map(|t| hex::decode(t).map_err(|e| Failure::Usage(format!("{flag}: {e}"))))
            .transpose()
    };
    let key = match (&secret.key, &secret.key_file) {
        (Some(text), _) => {
            Some(hex::decode(text).map_err(|e| Failure::Usage(format!("--key: {e}")))?)
        }
        (None, Some(path)) => Some(read_key_file(path, longest_key(registry))?),
        (None, None) => None,
    };
    let customization = match (&secret.custom, &secret.custom_hex, &secret.custom_file) {
        (Some(text), _, _) => Some(text.as_bytes().to_vec()),
        (None, Some(h), _) => {
            Some(hex::decode(h).map_err(|e| Failure::Usage(format!("--custom-hex: {e}")))?)
        }
        (None, None, Some(path)) => Some(read_custom_file(path)?),
        (None, None, None) => None,
    };
    Ok(HashParams {
        key,
        customization,
        salt: hex_option("--salt", &secret.salt)?,
        personal: hex_option("--personal", &secret.personal)?,
        seed: secret.seed.as_deref().map(parse_seed).transpose()?,
        domain: secret.domain.as_deref().map(parse_domain).transpose()?,
        context: secret.derive_key.clone(),
        seek: secret.seek,
        ..HashParams::default()
    })
}

pub(crate) fn params(registry: &Registry, args: &SumArgs) -> Result<HashParams, Failure> {
    Ok(HashParams {
        length: args.length,
        ..secret_params(registry, &args.secret)?
    })
}

/// The options checked as `run` checks them before reading any file
/// (parameters, algorithms, backends), for `validate`.
pub(crate) fn validate(registry: &Registry, args: &SumArgs) -> Result<(), Failure> {
    let plan = plan(registry, args, &params(registry, args)?)?;
    crate::commands::pieces::piece_size(args, &plan).map(|_| ())
}

/// What `sum` computes when no `-a` is given.
pub(crate) const DEFAULT_ALGORITHM: &str = "sha256";

/// The algorithms asked for: `-a`'s, else the default, which for an SFV
/// file is the one checksum SFV holds (as `rhash --sfv` computes by default).
fn algorithms(registry: &Registry, args: &SumArgs) -> String {
    match &args.algorithm {
        Some(names) => names.clone(),
        None if args.format == Some(SumFormat::Sfv) => sfv_algorithm(registry)
            .map(|a| a.name.clone())
            .unwrap_or_default(),
        None => DEFAULT_ALGORITHM.to_string(),
    }
}

/// What the arguments ask `sum` to compute and write.
pub(crate) fn request(registry: &Registry, args: &SumArgs, params: &HashParams) -> SumRequest {
    SumRequest {
        algorithms: algorithms(registry, args)
            .split(',')
            .map(str::to_string)
            .collect(),
        backend: args.backend.clone(),
        params: params.clone(),
        tagged: args.tag,
        zero_terminated: args.zero,
        git_blob: args.git,
        hashdeep: args.format == Some(SumFormat::Hashdeep),
        jobs: args.jobs,
        allow_mmap: !args.no_mmap,
        digest_form: if args.raw {
            DigestForm::Raw
        } else if args.base64 {
            DigestForm::Base64
        } else {
            DigestForm::Hex
        },
        no_names: args.no_names,
        cksum_lines: args.format == Some(SumFormat::Cksum),
        sfv: args.format == Some(SumFormat::Sfv),
        binary_marker: args.binary_marker,
        name_standard_input: !args.files.is_empty() || args.files_from.is_some(),
        little_endian: args.little_endian,
        digest_prefix: args.digest_prefix,
    }
}

/// The run's plan: every algorithm resolved once, the arguments checked.
/// The run carries it, deciding the reading once it knows its files
/// ([`SumPlan::reading`]).
pub(crate) fn plan(
    registry: &Registry,
    args: &SumArgs,
    params: &HashParams,
) -> Result<SumPlan, Failure> {
    planned(registry, &request(registry, args, params))
}

/// A request planned, its refusal naming the option at fault.
pub(crate) fn planned(registry: &Registry, request: &SumRequest) -> Result<SumPlan, Failure> {
    SumPlan::new(registry, request, &[]).map_err(refused)
}

/// A plan's refusal as a usage error naming the option at fault.
pub(crate) fn refused(e: PlanError) -> Failure {
    match e {
        PlanError::Hash(e) => usage(e),
        PlanError::NoAlgorithm => Failure::Usage(format!("-a: {e}")),
        PlanError::NotAGitObjectFormat { .. } => Failure::Usage(format!("--git: {e}")),
        PlanError::NotAHashdeepColumn { .. } => Failure::Usage(format!("--format hashdeep: {e}")),
        PlanError::UnstableOutput { .. } => Failure::Usage(format!("-a: {e}")),
        PlanError::NoJobs => Failure::Usage("--jobs: must be at least 1".into()),
        PlanError::HashdeepForm => Failure::Usage(format!("--format hashdeep: {e}")),
        PlanError::RawNeedsOneColumn => Failure::Usage(format!("--raw: {e}")),
        PlanError::NotANumber { .. } => Failure::Usage(format!("--format cksum: {e}")),
        PlanError::NotSfv { .. } | PlanError::SfvForm => {
            Failure::Usage(format!("--format sfv: {e}"))
        }
        PlanError::TooManyJobs { .. } => Failure::Usage(format!("--jobs: {e}")),
    }
}

/// How `-r`, `-L` and `--exclude` say to walk.
pub(crate) fn walk_options(args: &SumArgs) -> Result<WalkOptions, Failure> {
    Ok(WalkOptions {
        recursive: args.recursive,
        follow_symlinks: args.follow,
        exclude: exclude_set(&args.exclude)
            .map_err(|e| Failure::Usage(format!("--exclude {e}")))?,
    })
}

/// The names to hash, from the arguments or `--files-from`; none means
/// standard input when `stdin_by_default`.
pub(crate) fn names(args: &SumArgs, stdin_by_default: bool) -> Result<Vec<PathBuf>, Failure> {
    let mut names = args.files.clone();
    if let Some(list) = &args.files_from {
        let end = if args.null { b'\0' } else { b'\n' };
        let bytes = if list.as_os_str() == "-" {
            hashlab_integrity::bounded::read_to_end(StandardInput, end)
                .map_err(|e| Failure::Usage(format!("--files-from: standard input: {e}")))?
        } else {
            hashlab_integrity::bounded::read_file(list, end)
                .map_err(|e| Failure::Usage(format!("--files-from: {}: {e}", list.display())))?
        };
        names.extend(parse_file_list(&bytes, args.null));
    } else if names.is_empty() && stdin_by_default {
        names.push(PathBuf::from("-"));
    }
    Ok(names)
}

/// Where manifest lines go: standard output, or `-o`'s file, which takes
/// the output only when the run completes (`hashlab_integrity::outfile`).
pub(crate) enum Sink {
    Stdout(LineOutput),
    File(OutputFile),
}

impl Sink {
    pub(crate) fn open(output: Option<&Path>) -> Result<Sink, Failure> {
        Ok(match output {
            Some(target) => Sink::File(OutputFile::create(target)?),
            None => Sink::Stdout(LineOutput::new()),
        })
    }

    /// The sink of a run of `plan`, its hashdeep header written. With -o,
    /// an interrupt must leave the old manifest and no temp file: the hash
    /// in progress stops at its next chunk, and the run unwinds.
    pub(crate) fn open_for(
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

    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        match self {
            Sink::Stdout(out) => out.write_line(bytes),
            Sink::File(file) => file.write_all(bytes).map_err(|e| {
                Failure::Runtime(format!("{}: {}", file.target().display(), io_message(&e)))
            }),
        }
    }

    /// Flushes what is written so far (so stdout lines precede a stderr complaint).
    pub(crate) fn flush(&mut self) -> Result<(), Failure> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::File(_) => Ok(()),
        }
    }

    pub(crate) fn finish(self) -> Result<(), Failure> {
        match self {
            Sink::Stdout(mut out) => out.flush(),
            Sink::File(file) => Ok(file.commit()?),
        }
    }

    /// How a run that stopped on `e` ends: `-o`'s file left as it was (the
    /// temporary file goes with the sink), an interrupt with exit 130.
    pub(crate) fn stopped(self, e: Failure) -> Result<ExitCode, Failure> {
        match e {
            Failure::Interrupted => {
                errln!("hashlab: interrupted; the previous manifest is untouched");
                Ok(ExitCode::from(130))
            }
            other => Err(other),
        }
    }
}

/// The names of one run, in order: runs of local inputs (walked as `-r`
/// says) and object-store URLs (each a prefix, listed when hashed).
enum Segment {
    Local(Vec<Input>),
    Objects(Vec<String>),
}

fn segments(names: &[PathBuf], walk: &WalkOptions) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    let mut local: Vec<PathBuf> = Vec::new();
    for name in names {
        match name.to_str().filter(|n| is_object_url(n)) {
            Some(url) => {
                if !local.is_empty() {
                    out.push(Segment::Local(expand(&std::mem::take(&mut local), walk)));
                }
                match out.last_mut() {
                    Some(Segment::Objects(urls)) => urls.push(url.to_string()),
                    _ => out.push(Segment::Objects(vec![url.to_string()])),
                }
            }
            None => local.push(name.clone()),
        }
    }
    if !local.is_empty() {
        out.push(Segment::Local(expand(&local, walk)));
    }
    out
}

/// Where an input's line comes from: its name in the manifest, the path
/// shown in messages, and (hashdeep) its absolute name.
pub(crate) struct Named {
    pub(crate) label: Vec<u8>,
    pub(crate) shown: String,
    pub(crate) absolute: Vec<u8>,
}

pub(crate) fn named_input(input: &Input) -> Named {
    let (path, label): (PathBuf, Vec<u8>) = match input {
        Input::File(p) | Input::Problem(p, _) => (p.clone(), name_bytes(p)),
        Input::Stdin => (PathBuf::from("-"), crate::stdio::stdin_label().to_vec()),
    };
    // hashdeep writes, and `hashdeep -a -k` (without -l) matches, absolute paths.
    let absolute = match input {
        Input::File(p) if !p.is_absolute() => std::env::current_dir()
            .map(|d| name_bytes(&d.join(p)))
            .unwrap_or_else(|_| label.clone()),
        _ => label.clone(),
    };
    Named {
        label,
        shown: path.display().to_string(),
        absolute,
    }
}

pub fn run(args: &SumArgs) -> Result<ExitCode, Failure> {
    if let Some(manifest) = &args.update {
        return super::sum_update::run(args, manifest);
    }
    let registry = Registry::default();
    let params = params(&registry, args)?;
    // Parameters and algorithms are refused before any name is read.
    let plan = plan(&registry, args, &params)?;
    if let Some(size) = crate::commands::pieces::piece_size(args, &plan)? {
        return crate::commands::pieces::sum(args, plan, size);
    }
    let names = names(args, true)?;
    if args.raw && names.len() > 1 {
        // As cksum: the bytes of two digests could not be told apart.
        return Err(Failure::Usage(
            "--raw: one input only (raw digests have nothing between them)".into(),
        ));
    }
    let mut segments = segments(&names, &walk_options(args)?);
    if let Some(output) = &args.output {
        // `sum -r d -o d/M`: the M being replaced (and the temporary file
        // that replaces it) is no file of the tree.
        let own = hashlab_integrity::update::own_files(output);
        for segment in &mut segments {
            if let Segment::Local(inputs) = segment {
                inputs.retain(|i| !matches!(i, Input::File(p) if own(p)));
            }
        }
    }
    let any_objects = segments.iter().any(|s| matches!(s, Segment::Objects(_)));
    if args.raw && any_objects {
        return Err(Failure::Usage(
            "--raw: one file only, not an object-store URL (which may name many objects)".into(),
        ));
    }
    if args.verify_etag && !any_objects {
        return Err(Failure::Usage(
            "--verify-etag: no object-store URL given (ETags are what stores such as S3 give objects)"
                .into(),
        ));
    }
    if args.from_store {
        if segments.iter().any(|s| matches!(s, Segment::Local(_))) {
            return Err(Failure::Usage(
                "--from-store: object-store URLs only (files have no store to ask)".into(),
            ));
        }
        let recordable = recordable_algorithms();
        match plan.names().as_slice() {
            [one] if recordable.contains(one) && params == HashParams::default() => {}
            _ => {
                return Err(Failure::Usage(format!(
                    "--from-store: one algorithm a store records, without key or length: {}",
                    recordable.join(", ")
                )))
            }
        }
    }
    if any_objects && args.git {
        return Err(Failure::Usage(
            "--git: git names files; give no object-store URL with it".into(),
        ));
    }
    let local_inputs: Vec<&Input> = segments
        .iter()
        .flat_map(|s| match s {
            Segment::Local(inputs) => inputs.iter().collect(),
            Segment::Objects(_) => Vec::new(),
        })
        .collect();
    let plan = plan
        .reading(&first_files(&local_inputs, 8))
        .map_err(refused)?;
    let job = plan.job(Cancel::new());
    let make = || plan.fanout();
    let make_for_objects = || plan.fanout_for_ranges();

    let format = match (args.json, args.format) {
        (true, _) | (false, Some(SumFormat::Json)) => Some(Format::Json),
        (false, Some(SumFormat::Table)) => Some(Format::Table),
        (false, Some(SumFormat::Csv)) => Some(Format::Csv),
        (false, Some(SumFormat::Md)) => Some(Format::Md),
        (false, Some(SumFormat::Hashdeep | SumFormat::Cksum | SumFormat::Sfv)) | (false, None) => {
            None
        }
    };
    let reader = if any_objects {
        Some(
            ObjectReader::new(ObjectSettings::default())
                .map_err(|e| Failure::Runtime(format!("object-store client: {e}")))?,
        )
    } else {
        None
    };
    let mut sink = Sink::open_for(args.output.as_deref(), &plan, &job)?;
    if plan.sfv {
        let names: Vec<(Vec<u8>, &Path)> = local_inputs
            .iter()
            .filter_map(|input| match input {
                Input::File(p) => Some((name_bytes(p), p.as_path())),
                _ => None,
            })
            .collect();
        let files: Vec<(&[u8], &Path)> = names.iter().map(|(n, p)| (n.as_slice(), *p)).collect();
        let generator = concat!("hashlab ", env!("CARGO_PKG_VERSION"));
        sink.write(&plan.sfv_header(generator, std::time::SystemTime::now(), &files))?;
    }
    let progress = progress_bar(args, &local_inputs);
    let mut rows = Vec::new();
    let mut failed = false;
    let mut etags = EtagSummary::default();
    let mut done = 0usize;
    let mut emit = |named: Named, result: io::Result<FileDigests>| -> Result<(), Failure> {
        if job.cancel.is_cancelled() {
            return Err(Failure::Interrupted);
        }
        done += 1;
        if let Some(bar) = &progress {
            let size = result.as_ref().map_or(0, |r| r.bytes);
            bar.inc(size);
            bar.set_message(format!("{done} files"));
        }
        let Named {
            label,
            shown,
            absolute,
        } = named;
        match result {
            Ok(FileDigests {
                digests,
                bytes,
                modified,
                inode,
                ctime_ns,
            }) => {
                if format.is_none() {
                    let digests = FileDigests {
                        digests,
                        bytes,
                        modified,
                        inode,
                        ctime_ns,
                    };
                    match plan.lines(&label, &absolute, &digests) {
                        Ok(lines) => return sink.write(&lines),
                        Err(e) => {
                            sink.flush()?;
                            errln!("hashlab: {}: {e}", quote(&label));
                            failed = true;
                            return Ok(());
                        }
                    }
                }
                let stamp = Stamp::of_hashed(&FileDigests {
                    digests: Vec::new(),
                    bytes,
                    modified,
                    inode,
                    ctime_ns,
                });
                for (column, digest) in plan.columns.iter().zip(digests) {
                    rows.push(SumRow::new(
                        &label,
                        column.choice.name(),
                        column.choice.backend_name(),
                        &digest,
                        stamp.clone(),
                    ));
                }
            }
            Err(e) if is_interrupted(&e) => return Err(Failure::Interrupted),
            Err(e) => {
                sink.flush()?;
                crate::stdio::write_err(&crate::stdio::file_error(&shown, &e));
                failed = true;
            }
        }
        Ok(())
    };
    let mut result = Ok(());
    for segment in &segments {
        result = match segment {
            Segment::Local(inputs) => hash_inputs(inputs, &make, plan.jobs, &job, &mut |i, r| {
                emit(named_input(&inputs[i]), r)
            }),
            Segment::Objects(urls) => {
                let reader = reader.as_ref().expect("made when any URL is given");
                if args.from_store {
                    recorded_object_roots(reader, urls, plan.columns[0].choice.name(), &mut emit)
                } else {
                    hash_object_roots(
                        reader,
                        urls,
                        &make_for_objects,
                        args.verify_etag,
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
        return sink.stopped(e);
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if let Some(format) = format {
        let rendered = if format == Format::Csv {
            let rows: Vec<CsvRow> = rows.iter().map(|row| CsvRow { row }).collect();
            render(&rows, format)?
        } else {
            render(&rows, format)?
        };
        sink.write(&rendered)?;
    }
    sink.finish()?;
    if args.verify_etag {
        errln!("hashlab: --verify-etag: {}", etags.describe());
    }
    Ok(if failed || !etags.passed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Lists each root URL and hashes its objects through `emit`; a root that
/// cannot be listed is reported as an unreadable file is (and fails the run).
fn hash_object_roots(
    reader: &ObjectReader,
    urls: &[String],
    make: &dyn Fn() -> Fanout,
    verify_etag: bool,
    etags: &mut EtagSummary,
    emit: &mut dyn FnMut(Named, io::Result<FileDigests>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    for url in urls {
        let objects = match reader.list(url) {
            Ok(objects) => objects,
            Err(e) => {
                let named = Named {
                    label: url.as_bytes().to_vec(),
                    shown: url.clone(),
                    absolute: url.as_bytes().to_vec(),
                };
                emit(named, Err(e.to_io()))?;
                continue;
            }
        };
        reader.hash(&objects, make, verify_etag, &mut |i, result| {
            let name = objects[i].name.as_bytes().to_vec();
            let named = Named {
                label: name.clone(),
                shown: objects[i].name.clone(),
                absolute: name,
            };
            let result = result.map(|d| {
                if let Some(verdict) = &d.etag {
                    etags.add(verdict);
                    if *verdict != EtagVerdict::Matches {
                        errln!("hashlab: {}: {}", objects[i].name, verdict.describe());
                    }
                }
                d.digests
            });
            emit(named, result.map_err(|e| e.to_io()))
        })?;
    }
    Ok(())
}

/// Lists each root URL and emits the digest by `algorithm` that the store
/// recorded of each object, reading none; an object without one is reported
/// as an unreadable file is.
fn recorded_object_roots(
    reader: &ObjectReader,
    urls: &[String],
    algorithm: &str,
    emit: &mut dyn FnMut(Named, io::Result<FileDigests>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let named = |name: &str| Named {
        label: name.as_bytes().to_vec(),
        shown: name.to_string(),
        absolute: name.as_bytes().to_vec(),
    };
    for url in urls {
        let objects = match reader.list(url) {
            Ok(objects) => objects,
            Err(e) => {
                emit(named(url), Err(e.to_io()))?;
                continue;
            }
        };
        let recorded = reader.recorded_digests(&objects, algorithm);
        for (object, result) in objects.iter().zip(recorded) {
            let result = result
                .map(|(record, digest)| FileDigests {
                    digests: vec![hashlab::Digest(digest)],
                    bytes: record.size,
                    modified: object.modified,
                    inode: None,
                    ctime_ns: None,
                })
                .map_err(|e| e.to_io());
            emit(named(&object.name), result)?;
        }
    }
    Ok(())
}

/// A bar over the total bytes when stderr is a terminal and the run looks long
/// (many files or much data), or when asked for with --progress.
pub(crate) fn progress_bar(args: &SumArgs, inputs: &[&Input]) -> Option<indicatif::ProgressBar> {
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

pub(crate) fn first_files<'a>(inputs: &[&'a Input], n: usize) -> Vec<&'a Path> {
    inputs
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => Some(p.as_path()),
            _ => None,
        })
        .take(n)
        .collect()
}
