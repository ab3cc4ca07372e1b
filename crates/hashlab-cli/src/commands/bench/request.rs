//! `bench`'s arguments as what it will do, checked once before anything is
//! measured: the library's request and plan, and the OpenSSL setting a CPU
//! mask needs; for `bench --like`, the like request and the algorithms to
//! verify. Every usage error of the command comes from here.

use std::path::Path;
use std::time::Duration;

use hashlab::Registry;
use hashlab_bench::like::{algorithms_for, parse_workers, verifiable, LikeError, LikeRequest};
use hashlab_bench::limits::parse_threads;
use hashlab_bench::limits::time_budget;
use hashlab_bench::mask;
use hashlab_bench::plan::Plan;
use hashlab_bench::report::{pairs_for, plan_for, Request};
use hashlab_bench::runtimes::{Runtime, RuntimeOptions};
use hashlab_bench::selection::{Algorithms, Backends, FileTarget, Selection};
use hashlab_bench::sizes::{parse_amount, parse_sizes};
use hashlab_bench::words::{WordList, WordListError};

use crate::cli::BenchArgs;
use crate::failure::{io_message, Failure};
use crate::shared::args::request_error;

/// A bench run, as asked.
pub(crate) struct Asked {
    pub request: Request,
    pub plan: Plan,
    /// What `OPENSSL_ia32cap` the run must start with for its CPU mask to
    /// reach OpenSSL; `None`: this process measures as it is.
    pub openssl_ia32cap: Option<String>,
}

/// The bench the options ask for, validated by the library (no option can
/// make the run overflow, index out of range or abort on an allocation),
/// with its plan.
pub(crate) fn request(args: &BenchArgs, registry: &Registry) -> Result<Asked, Failure> {
    let request = library_request(args, registry)?;
    // As measuring checks them: the mask, then the algorithms it hides
    // features from, then whether OpenSSL must be told.
    let openssl_ia32cap = if request.mask.is_empty() {
        None
    } else {
        let mask_error = |e: String| Failure::Usage(format!("--mask-cpu: {e}"));
        mask::validate(&request.mask).map_err(mask_error)?;
        let (pairs, _) =
            pairs_for(registry, &request).map_err(|e| Failure::Usage(e.to_string()))?;
        mask::openssl_env(registry, &pairs, &request.mask).map_err(mask_error)?
    };
    if !(args.regression_threshold > 0.0 && args.regression_threshold < 1e6) {
        return Err(Failure::Usage(format!(
            "--regression-threshold: {} is not a positive percentage",
            args.regression_threshold
        )));
    }
    let plan = plan_for(registry, &request).map_err(Failure::Usage)?;
    Ok(Asked {
        request,
        plan,
        openssl_ia32cap,
    })
}

/// The library's request from the options, validated; the options are
/// checked in the order they were always checked in.
fn library_request(args: &BenchArgs, registry: &Registry) -> Result<Request, Failure> {
    let defaults = if args.quick {
        Request::quick()
    } else {
        Request::standard()
    };
    let sizes = match &args.sizes {
        Some(text) => sizes(text)?,
        None => defaults.selection.sizes.clone(),
    };
    let baseline = registry
        .algorithm(&args.baseline)
        .map_err(|e| usage(format!("--baseline: {e}")))?
        .name
        .clone();
    let project = args.project.as_deref().map(project).transpose()?;
    let mut budget = defaults.budget.clone();
    if let Some(seconds) = args.max_time {
        budget.max_time = time_budget(seconds).map_err(request_error)?;
    }
    let file = (args.file.as_deref())
        .map(|path| FileTarget::open(path, args.cold).map_err(|e| usage(format!("--file: {e}"))))
        .transpose()?;
    let table = args.table.as_deref().map(word_table).transpose()?;
    let request = Request {
        selection: Selection {
            algorithms: algorithms(args),
            backends: backends(args),
            sizes,
            threads: parse_threads(&args.threads, cores())
                .map_err(|e| usage(format!("--threads: {e}")))?,
            latency: args.latency,
            keys: args.keys,
            also: vec![baseline],
            file,
            table,
        },
        budget,
        seed: args.seed,
        misalign: args.misalign,
        project,
        mask: args
            .mask_cpu
            .iter()
            .map(|f| f.trim().to_ascii_lowercase())
            .collect(),
        clock_budget: defaults.clock_budget,
        command_line: crate::stdio::command_line(),
        pin: args.pin,
        runtimes: runtimes(args.runtime.as_deref())?,
        runtime_options: RuntimeOptions {
            answer_deadline: runtime_timeout(args.runtime_timeout)?,
            ..defaults.runtime_options.clone()
        },
    };
    request.validate(registry).map_err(request_error)?;
    Ok(request)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn usage(message: String) -> Failure {
    Failure::Usage(message)
}

/// `--project AMOUNT`: the data to project the time for.
fn project(text: &str) -> Result<u64, Failure> {
    parse_amount(text).map_err(|e| usage(format!("--project: {e}")))
}

fn sizes(text: &str) -> Result<Vec<usize>, Failure> {
    parse_sizes(text).map_err(|e| usage(format!("--sizes: {e}")))
}

/// `--runtime LIST`: the language runtimes to measure too.
fn runtimes(list: Option<&str>) -> Result<Vec<Runtime>, Failure> {
    Ok(list
        .map(|list| Runtime::parse_list(list).map_err(|e| usage(format!("--runtime: {e}"))))
        .transpose()?
        .unwrap_or_default())
}

fn algorithms(args: &BenchArgs) -> Algorithms {
    if !args.algorithms.is_empty() {
        Algorithms::Named(args.algorithms.clone())
    } else if args.all {
        Algorithms::All
    } else if args.crypto {
        Algorithms::Crypto
    } else if args.fast {
        Algorithms::Fast
    } else {
        Algorithms::Default
    }
}

fn backends(args: &BenchArgs) -> Backends {
    if args.all_backends {
        Backends::All
    } else if !args.backends.is_empty() {
        Backends::Named(args.backends.clone())
    } else {
        Backends::Default
    }
}

/// `--table PATH`: the word list a hash table is filled from.
fn word_table(path: &Path) -> Result<WordList, Failure> {
    WordList::read(path).map_err(|e| match e {
        WordListError::Read { path, error } => usage(format!(
            "--table: {}: {}",
            path.display(),
            io_message(&error)
        )),
        other => usage(format!("--table: {other}")),
    })
}

/// `--runtime-timeout`: a positive number of seconds, at most an hour.
fn runtime_timeout(seconds: f64) -> Result<Duration, Failure> {
    if seconds.is_finite() && seconds > 0.0 && seconds <= 3600.0 {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(usage(format!(
            "--runtime-timeout: {seconds} is not a number of seconds from more than 0 to 3600"
        )))
    }
}

/// `bench --like PATH`: what to measure, and which algorithms `--verify`
/// names (`None`: no verification; empty: the fastest few, known only once
/// measured).
pub(crate) fn like_request(
    args: &BenchArgs,
    registry: &Registry,
) -> Result<(LikeRequest, Option<Vec<String>>), Failure> {
    let Some(path) = &args.like else {
        return Err(Failure::Runtime(
            "internal: bench --like without a path".into(),
        ));
    };
    let mut request = LikeRequest::new(path.clone());
    request.algorithms = args.algorithms.clone();
    request.seed = args.seed;
    if let Some(seconds) = args.max_time {
        if !(seconds > 0.0 && seconds <= 3600.0) {
            return Err(usage(format!(
                "--max-time: {seconds} is not a number of seconds from 0 to 3600"
            )));
        }
        request.budget = Duration::from_secs_f64(seconds);
    } else if args.quick {
        request.budget = Duration::from_secs(8);
    }
    if let Some(text) = &args.workers {
        request.workers = parse_workers(text).map_err(|e| usage(format!("--workers: {e}")))?;
    }
    request.algorithms = algorithms_for(registry, &request).map_err(|e| match e {
        LikeError::Algorithm(why) => usage(format!("-a: {why}")),
        other => Failure::Runtime(other.to_string()),
    })?;
    // A name to verify must be one the run measures, known before it runs.
    let verify = args
        .verify
        .as_deref()
        .map(|asked| verify_names(registry, &request, asked))
        .transpose()?;
    Ok((request, verify))
}

/// `--verify [NAMES]`: the names, each one the run measures; empty when
/// none are named (the fastest few, known once measured).
fn verify_names(
    registry: &Registry,
    request: &LikeRequest,
    asked: &str,
) -> Result<Vec<String>, Failure> {
    if asked.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = asked.split(',').map(|s| s.trim().to_string()).collect();
    verifiable(registry, request, &names).map_err(|e| usage(format!("--verify: {e}")))
}
