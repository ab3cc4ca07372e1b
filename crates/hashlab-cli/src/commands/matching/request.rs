//! `match`'s arguments turned into its run, once: the flags checked, the
//! known sets loaded (a set that cannot be read is a usage error, hashdeep's
//! status 64), the inputs walked, and one plan computing every hash the
//! sets need.

use std::path::PathBuf;

use hashlab::Registry;
use hashlab_integrity::{
    exclude_set, expand, load_set, Input, KnownBuilder, KnownError, KnownPlan, KnownSets,
    ManifestError, SetOptions, WalkOptions, MAX_JOBS,
};

use crate::cli::MatchArgs;
use crate::failure::Failure;
use crate::shared::args::jobs_over_limit;

/// What is printed of each file.
pub(super) struct Printing {
    /// Files that match (-m, -M), or files that do not (-x, -X).
    pub(super) matching: bool,
    /// hashdeep's lines (-M, -X) rather than names.
    pub(super) digests: bool,
    /// The known name after a match (-w).
    pub(super) which: bool,
}

pub(super) struct MatchRun {
    pub(super) printing: Printing,
    pub(super) known: KnownSets,
    pub(super) inputs: Vec<Input>,
    pub(super) plan: KnownPlan,
}

/// The options checked as `run` checks them before loading any set.
pub(crate) fn validate(registry: &Registry, args: &MatchArgs) -> Result<(), Failure> {
    walk(registry, args).map(|_| ())
}

/// `-a`, `--jobs` and `--exclude` checked: how to walk.
fn walk(registry: &Registry, args: &MatchArgs) -> Result<WalkOptions, Failure> {
    if let Some(name) = &args.algorithm {
        registry
            .algorithm(name)
            .map_err(|e| Failure::Usage(format!("-a: {e}")))?;
    }
    match args.jobs {
        Some(0) => return Err(Failure::Usage("--jobs: must be at least 1".into())),
        Some(n) if n > MAX_JOBS => return Err(jobs_over_limit(n)),
        _ => {}
    }
    Ok(WalkOptions {
        recursive: args.recursive,
        follow_symlinks: args.follow,
        exclude: exclude_set(&args.exclude)
            .map_err(|e| Failure::Usage(format!("--exclude {e}")))?,
    })
}

pub(super) fn request(registry: &Registry, args: &MatchArgs) -> Result<MatchRun, Failure> {
    let walk = walk(registry, args)?;
    let printing = Printing {
        matching: !(args.not_matching || args.not_matching_digests),
        digests: args.matching_digests || args.not_matching_digests,
        which: args.which,
    };
    let known = load_sets(registry, args)?;
    let names = if args.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files.clone()
    };
    let inputs = expand(&names, &walk);
    let sample = hashlab_integrity::first_files(&inputs, 8);
    let plan = KnownPlan::new(registry, known.hashes(), args.jobs, !args.no_mmap, &sample)
        .map_err(|e| Failure::Usage(format!("known sets: {e}")))?;
    Ok(MatchRun {
        printing,
        known,
        inputs,
        plan,
    })
}

/// Every `-k` set into one [`KnownSets`]; a set that cannot be read stops
/// the run (one line naming it), its unreadable lines are warnings.
fn load_sets(registry: &Registry, args: &MatchArgs) -> Result<KnownSets, Failure> {
    let mut builder = KnownBuilder::new(args.which);
    let options = SetOptions {
        algorithm: args.algorithm.as_deref(),
    };
    for path in &args.known {
        let shown = path.display();
        let report = load_set(&mut builder, registry, path, &options).map_err(|e| {
            if let KnownError::Manifest(ManifestError::NoEntries { problems }) = &e {
                for problem in problems {
                    errln!("hashlab: {shown}: {problem}");
                }
            }
            match e {
                KnownError::Algorithm(e) => Failure::Usage(format!("-a: {e}")),
                e => Failure::Usage(format!("{shown}: {e}")),
            }
        })?;
        for problem in &report.problems {
            errln!("hashlab: {shown}: {problem}");
        }
        if report.without_digest > 0 {
            errln!(
                "hashlab: {shown}: {} rows of FILE have no digest in the column read, and were skipped",
                report.without_digest
            );
        }
    }
    Ok(builder.finish())
}
