//! `sum`'s arguments turned into its run, once: the parameters decoded,
//! every algorithm resolved into the one plan, the names read and walked,
//! and every option that does not fit refused, naming it, before any file
//! is read.

use std::path::{Path, PathBuf};

use hashlab::{HashParams, Registry};
use hashlab_integrity::{
    exclude_set, expand, first_files, local_inputs, parse_file_list, sfv_algorithm, DigestForm,
    Input, InputNames, InputRules, InputsError, Listing, ManifestLock, Segment, StandardInput,
    StoreDigest, SumPlan, SumRequest, WalkOptions, DEFAULT_ALGORITHM,
};
use hashlab_objects::{is_object_url, stored::recordable_algorithms};

use crate::cli::{SumArgs, SumFormat};
use crate::failure::Failure;
use crate::shared::args::{refused, secret_params, usage};
use crate::shared::update::{locked_listing, prepare};

/// What `sum`'s arguments ask for, checked: the plan (its reading decided
/// for the files named) and what it reads.
pub(super) struct SumRun {
    pub(super) plan: SumPlan,
    pub(super) inputs: Inputs,
}

pub(super) enum Inputs {
    /// `--piece SIZE`: local files (and standard input), whole and in pieces.
    Pieces { size: u64, inputs: Vec<Input> },
    /// Runs of local inputs and object-store URLs, in the order given.
    Segments(Vec<Segment>),
}

/// The options checked as `run` checks them before reading any file
/// (parameters, algorithms, backends), for `validate`.
pub(crate) fn validate(registry: &Registry, args: &SumArgs) -> Result<(), Failure> {
    let plan = plan(registry, args, &params(registry, args)?)?;
    piece_size(args, &plan).map(|_| ())
}

/// `sum`'s arguments as its run: parameters and algorithms are refused
/// before any name is read, the names before any file is.
pub(super) fn request(registry: &Registry, args: &SumArgs) -> Result<SumRun, Failure> {
    let params = params(registry, args)?;
    let plan = plan(registry, args, &params)?;
    if let Some(size) = piece_size(args, &plan)? {
        let names = InputNames::new(names(args, true)?, is_object_url);
        names.fit_pieces().map_err(unfit)?;
        let inputs = expand(names.names(), &walk_options(args)?);
        return Ok(SumRun {
            plan: plan.reading(&first_files(&inputs, 8)).map_err(refused)?,
            inputs: Inputs::Pieces { size, inputs },
        });
    }
    let names = InputNames::new(names(args, true)?, is_object_url);
    names.fit_raw(args.raw).map_err(unfit)?;
    let walk = walk_options(args)?;
    let recordable = recordable_algorithms();
    let rules = InputRules {
        raw: args.raw,
        verify_etag: args.verify_etag,
        from_store: args.from_store.then(|| StoreDigest {
            recordable: &recordable,
            algorithms: plan.names().iter().map(|n| n.to_string()).collect(),
            with_parameters: params != HashParams::default(),
        }),
        git: args.git,
    };
    names.fit(&rules).map_err(unfit)?;
    let segments = names.segments(&walk, args.output.as_deref());
    let plan = plan
        .reading(&first_files(local_inputs(&segments).iter().copied(), 8))
        .map_err(refused)?;
    Ok(SumRun {
        plan,
        inputs: Inputs::Segments(segments),
    })
}

/// Inputs that do not fit the options, as the option at fault says it.
fn unfit(e: InputsError) -> Failure {
    Failure::Usage(match e {
        // As cksum: the bytes of two digests could not be told apart.
        InputsError::RawOfMany => {
            "--raw: one input only (raw digests have nothing between them)".into()
        }
        InputsError::RawOfUrl => {
            "--raw: one file only, not an object-store URL (which may name many objects)".into()
        }
        InputsError::NoUrlToVerify => "--verify-etag: no object-store URL given (ETags are what stores such as S3 give objects)".into(),
        InputsError::LocalFromStore => {
            "--from-store: object-store URLs only (files have no store to ask)".into()
        }
        InputsError::NotRecorded { recordable } => format!(
            "--from-store: one algorithm a store records, without key or length: {}",
            recordable.join(", ")
        ),
        InputsError::GitOfUrl => "--git: git names files; give no object-store URL with it".into(),
        InputsError::PiecesOfUrl { url } => format!(
            "--piece: {url}: pieces are hashed of local files (and standard input), not of object-store URLs"
        ),
        InputsError::Mixed => {
            "--update: give files or object-store URLs, not both (a manifest describes one tree)"
                .into()
        }
    })
}

/// `--piece`'s size, where given, with the options it needs checked: pieces
/// are written in hashdeep's form or in JSON, of files whose length is not
/// hashed before their bytes.
fn piece_size(args: &SumArgs, plan: &SumPlan) -> Result<Option<u64>, Failure> {
    let Some(text) = &args.piece else {
        return Ok(None);
    };
    let size = hashlab_integrity::parse_piece_size(text)
        .map_err(|e| Failure::Usage(format!("--piece: {e}")))?;
    let written = args.json || matches!(args.format, Some(SumFormat::Hashdeep | SumFormat::Json));
    if !written {
        return Err(Failure::Usage(
            "--piece: pieces are written in --format hashdeep or --json (as hashdeep -p writes them, or as each row's `pieces`)".into(),
        ));
    }
    plan.fit_pieces()
        .map_err(|e| Failure::Usage(format!("--piece: {e}; pieces take other algorithms")))?;
    Ok(Some(size))
}

fn params(registry: &Registry, args: &SumArgs) -> Result<HashParams, Failure> {
    Ok(HashParams {
        length: args.length,
        ..secret_params(registry, &args.secret)?
    })
}

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

/// What the arguments ask `sum` to compute and write, in the library's terms.
pub(super) fn sum_request(registry: &Registry, args: &SumArgs, params: &HashParams) -> SumRequest {
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
fn plan(registry: &Registry, args: &SumArgs, params: &HashParams) -> Result<SumPlan, Failure> {
    planned(registry, &sum_request(registry, args, params))
}

/// A request planned, its refusal naming the option at fault.
fn planned(registry: &Registry, request: &SumRequest) -> Result<SumPlan, Failure> {
    SumPlan::new(registry, request, &[]).map_err(refused)
}

/// How `-r`, `-L` and `--exclude` say to walk.
pub(super) fn walk_options(args: &SumArgs) -> Result<WalkOptions, Failure> {
    Ok(WalkOptions {
        recursive: args.recursive,
        follow_symlinks: args.follow,
        exclude: exclude_set(&args.exclude)
            .map_err(|e| Failure::Usage(format!("--exclude {e}")))?,
    })
}

/// The names to hash, from the arguments or `--files-from`; none means
/// standard input when `stdin_by_default`.
pub(super) fn names(args: &SumArgs, stdin_by_default: bool) -> Result<Vec<PathBuf>, Failure> {
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

/// An update as its arguments and the manifest ask for it: the manifest
/// locked and read, its plan, and what to read.
pub(super) struct UpdateRun {
    pub(super) _lock: Option<ManifestLock>,
    pub(super) old: Vec<u8>,
    pub(super) old_sidecar: Option<Vec<u8>>,
    pub(super) listing: Listing,
    pub(super) plan: SumPlan,
    pub(super) paths: Vec<PathBuf>,
    /// How to walk the paths; `None`: they are object-store URLs.
    pub(super) walk: Option<WalkOptions>,
    pub(super) json: bool,
}

/// The update's request: `--format` checked, the manifest locked, read and
/// planned in its own algorithms and style (`-a` must name them), the
/// paths all local or all URLs.
pub(super) fn update_request(
    registry: &Registry,
    args: &SumArgs,
    manifest: &Path,
    shown: &str,
) -> Result<UpdateRun, Failure> {
    let json = update_report_json(args)?;
    let params = hashlab::HashParams {
        length: args.length,
        ..secret_params(registry, &args.secret)?
    };
    let (lock, old, mut listing) = locked_listing(registry, manifest, args.zero, shown)?;
    if let Some(asked) = &args.algorithm {
        require_asked(registry, &listing, asked, shown)?;
    }
    let base = sum_request(registry, args, &params);
    let (plan, old_sidecar) = prepare(registry, manifest, shown, &mut listing, &base)?;
    let paths = InputNames::new(names(args, false)?, is_object_url);
    let walk = match paths.all_urls().map_err(unfit)? {
        true => None,
        false => Some(walk_options(args)?),
    };
    let paths = paths.names().to_vec();
    Ok(UpdateRun {
        _lock: lock,
        old,
        old_sidecar,
        listing,
        plan,
        paths,
        walk,
        json,
    })
}

/// Whether the update's report is JSON: `--update` keeps the manifest's
/// form, so `--format` takes only json (the report's).
fn update_report_json(args: &SumArgs) -> Result<bool, Failure> {
    match (args.json, args.format) {
        (true, _) | (false, Some(SumFormat::Json)) => Ok(true),
        (false, None) => Ok(false),
        (false, Some(_)) => Err(Failure::Usage(
            "--update keeps the manifest's own form; --format takes only json there (the report)"
                .into(),
        )),
    }
}

/// `-a` with `--update` names the manifest's algorithms, no other.
fn require_asked(
    registry: &Registry,
    listing: &Listing,
    asked: &str,
    shown: &str,
) -> Result<(), Failure> {
    let mut canonical = Vec::new();
    for name in asked.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        canonical.push(registry.algorithm(name).map_err(usage)?.name.clone());
    }
    listing
        .require_algorithms(&canonical)
        .map_err(|e| Failure::Usage(format!("-a: {shown}: {e}")))
}
