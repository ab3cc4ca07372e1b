//! `sum`'s arguments turned into its run, once: the parameters decoded,
//! every algorithm resolved into the one plan, the names read and walked,
//! and every option that does not fit refused, naming it, before any file
//! is read.

use std::path::{Path, PathBuf};

use hashlab::{HashParams, Registry};
use hashlab_integrity::{
    exclude_set, expand, first_files, parse_file_list, sfv_algorithm, DigestForm, Input, Listing,
    ManifestLock, StandardInput, SumPlan, SumRequest, WalkOptions, DEFAULT_ALGORITHM,
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
        return piece_request(args, plan, size);
    }
    let names = names(args, true)?;
    if args.raw && names.len() > 1 {
        // As cksum: the bytes of two digests could not be told apart.
        return Err(Failure::Usage(
            "--raw: one input only (raw digests have nothing between them)".into(),
        ));
    }
    let walk = walk_options(args)?;
    let any_url = names.iter().any(|n| n.to_str().is_some_and(is_object_url));
    let any_local = names.iter().any(|n| !n.to_str().is_some_and(is_object_url));
    objects_fit(args, any_url, any_local)?;
    if args.from_store {
        from_store_fits(&plan, &params)?;
    }
    if any_url && args.git {
        return Err(Failure::Usage(
            "--git: git names files; give no object-store URL with it".into(),
        ));
    }
    let segments = segments(&names, &walk, args.output.as_deref());
    let plan = plan
        .reading(&first_files(local_inputs(&segments).iter().copied(), 8))
        .map_err(refused)?;
    Ok(SumRun {
        plan,
        inputs: Inputs::Segments(segments),
    })
}

/// The options about object-store URLs, against whether any is given
/// (and any local name).
fn objects_fit(args: &SumArgs, any_url: bool, any_local: bool) -> Result<(), Failure> {
    if args.raw && any_url {
        return Err(Failure::Usage(
            "--raw: one file only, not an object-store URL (which may name many objects)".into(),
        ));
    }
    if args.verify_etag && !any_url {
        return Err(Failure::Usage(
            "--verify-etag: no object-store URL given (ETags are what stores such as S3 give objects)"
                .into(),
        ));
    }
    if args.from_store && any_local {
        return Err(Failure::Usage(
            "--from-store: object-store URLs only (files have no store to ask)".into(),
        ));
    }
    Ok(())
}

/// `--from-store` reads one digest a store records, which no key or length changes.
fn from_store_fits(plan: &SumPlan, params: &HashParams) -> Result<(), Failure> {
    let recordable = recordable_algorithms();
    match plan.names().as_slice() {
        [one] if recordable.contains(one) && *params == HashParams::default() => Ok(()),
        _ => Err(Failure::Usage(format!(
            "--from-store: one algorithm a store records, without key or length: {}",
            recordable.join(", ")
        ))),
    }
}

/// `sum --piece SIZE`'s inputs: local names only, walked as `-r` says.
fn piece_request(args: &SumArgs, plan: SumPlan, size: u64) -> Result<SumRun, Failure> {
    let names = names(args, true)?;
    if let Some(url) = names
        .iter()
        .filter_map(|n| n.to_str())
        .find(|n| is_object_url(n))
    {
        return Err(Failure::Usage(format!(
            "--piece: {url}: pieces are hashed of local files (and standard input), not of object-store URLs"
        )));
    }
    let inputs = expand(&names, &walk_options(args)?);
    let local: Vec<&Input> = inputs.iter().collect();
    let plan = plan
        .reading(&first_files(local.iter().copied(), 8))
        .map_err(refused)?;
    Ok(SumRun {
        plan,
        inputs: Inputs::Pieces { size, inputs },
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
    if let Some(column) = plan
        .columns
        .iter()
        .find(|c| c.choice.hasher().needs_length_first())
    {
        return Err(Failure::Usage(format!(
            "--piece: {} hashes an input's length before its bytes, so a piece cannot be hashed as it is read; pieces take other algorithms",
            column.choice.name()
        )));
    }
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

/// The names of one run, in order: runs of local inputs (walked as `-r`
/// says) and object-store URLs (each a prefix, listed when hashed).
pub(super) enum Segment {
    Local(Vec<Input>),
    Objects(Vec<String>),
}

/// The runs of `names`, local ones walked; a tree that holds `-o`'s
/// manifest hashes neither it nor the temporary file that replaces it.
fn segments(names: &[PathBuf], walk: &WalkOptions, output: Option<&Path>) -> Vec<Segment> {
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
    if let Some(output) = output {
        let own = hashlab_integrity::own_files(output);
        for segment in &mut out {
            if let Segment::Local(inputs) = segment {
                inputs.retain(|i| !matches!(i, Input::File(p) if own(p)));
            }
        }
    }
    out
}

/// The local inputs of `segments`, in order.
pub(super) fn local_inputs(segments: &[Segment]) -> Vec<&Input> {
    segments
        .iter()
        .flat_map(|s| match s {
            Segment::Local(inputs) => inputs.iter().collect(),
            Segment::Objects(_) => Vec::new(),
        })
        .collect()
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
    let paths = names(args, false)?;
    let urls = paths
        .iter()
        .filter(|p| p.to_str().is_some_and(is_object_url))
        .count();
    let walk = if urls == 0 {
        Some(walk_options(args)?)
    } else if urls == paths.len() {
        None
    } else {
        return Err(Failure::Usage(
            "--update: give files or object-store URLs, not both (a manifest describes one tree)"
                .into(),
        ));
    };
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
