//! `hashlab pick --for USE`: the fastest algorithms the facts allow for a
//! use, with the reasons and numbers behind each, and why popular ones were
//! left out. The judging is in hashlab-judge.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_bench::like::LikeReport;
use hashlab_bench::limits::MeasureError;
use hashlab_bench::report::Report;
use hashlab_bench::sizes::{parse_size, size_label};
use hashlab_judge::pages::pick::{document, Hints};
use hashlab_judge::pick::{
    candidates, check_quick_bench, quick_bench, rank, Candidates, Knowledge, Pick, PickRequest,
    SpeedOrigin, Speeds, Use,
};
use hashlab_judge::pick_like::{like_request, rank_like};
use hashlab_judge::speed::load_report;
use hashlab_judge::{Availability, Facts};

use crate::cli::{Format, PickArgs, PickUse};
use crate::failure::Failure;
use crate::output::print;
use crate::shared::file_label;

fn use_of(u: PickUse) -> Use {
    match u {
        PickUse::ContentAddressing => Use::ContentAddressing,
        PickUse::Integrity => Use::Integrity,
        PickUse::Mac => Use::Mac,
        PickUse::HashTable => Use::HashTable,
        PickUse::Transfer => Use::Transfer,
    }
}

/// The library's request (the use, the security floor, the size `--size`
/// and the ecosystems it must ship in) and the candidates the facts allow
/// for it; where they are measured here, the quick bench is checked too.
fn request(args: &PickArgs, know: Knowledge) -> Result<(PickRequest, Candidates), Failure> {
    let size = args
        .size
        .as_deref()
        .map(|s| parse_size(s).map_err(|e| Failure::Usage(format!("--size: {e}"))))
        .transpose()?;
    let request = PickRequest {
        use_: use_of(args.use_),
        min_security: args.min_security,
        size,
        interop: args
            .interop
            .iter()
            .map(|e| e.trim().to_ascii_lowercase())
            .filter(|e| !e.is_empty())
            .collect(),
    };
    let found =
        candidates(&request, know).map_err(|e| Failure::Usage(format!("--interop: {e}")))?;
    if args.like.is_none() && args.results.is_none() && !found.names.is_empty() {
        // Its inputs too: whether this machine's memory holds them.
        check_quick_bench(know.registry, &found.names, request.size(), request.use_).map_err(
            |e| match e {
                MeasureError::Request(e) => Failure::Usage(format!("--size: {e}")),
                MeasureError::Failed(message) => Failure::Runtime(message),
            },
        )?;
    }
    Ok((request, found))
}

pub fn run(args: &PickArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let facts = Facts::builtin();
    let table = Availability::builtin();
    let know = Knowledge {
        facts: &facts,
        table: &table,
        registry: &registry,
    };
    let (request, found) = request(args, know)?;
    if let Some(path) = &args.like {
        if found.names.is_empty() {
            return nothing_left(&request, &found.excluded);
        }
        let report = measure_like(&registry, path, &found)?;
        let pick = rank_like(&request, know, found, &report);
        return render(args, &pick);
    }
    let (report, origin, label) = match &args.results {
        Some(path) => (read_results(path)?, SpeedOrigin::File, file_label(path)),
        None if found.names.is_empty() => {
            return nothing_left(&request, &found.excluded);
        }
        None => (
            measure_here(&registry, &request, &found.names)?,
            SpeedOrigin::Here,
            "a quick bench here".to_string(),
        ),
    };
    let speeds = Speeds {
        report: &report,
        origin,
        label: &label,
    };
    let pick = rank(&request, know, found, speeds);
    if pick.choices.is_empty() {
        return nothing_left(&request, &pick.excluded);
    }
    render(args, &pick)
}

/// `--like PATH`: the candidates measured on the shape of the user's files.
fn measure_like(
    registry: &Registry,
    path: &Path,
    found: &Candidates,
) -> Result<LikeReport, Failure> {
    let like_request = like_request(registry, path.to_path_buf(), found);
    if std::io::stderr().is_terminal() {
        errln!(
            "hashlab: measuring {} candidates on the shape of {} (bench --like with a {} s budget)",
            like_request.algorithms.len(),
            path.display(),
            like_request.budget.as_secs()
        );
    }
    hashlab_bench::like::like(registry, &like_request).map_err(|e| Failure::Runtime(e.to_string()))
}

/// `--results FILE`: saved bench results.
fn read_results(path: &Path) -> Result<Report, Failure> {
    let bytes = hashlab_integrity::bounded::read_json(path)
        .map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?;
    load_report(path, &bytes).map_err(Failure::Runtime)
}

/// No results file: a quick bench of the candidates here.
fn measure_here(
    registry: &Registry,
    request: &PickRequest,
    names: &[String],
) -> Result<Report, Failure> {
    if std::io::stderr().is_terminal() {
        errln!(
            "hashlab: measuring {} candidates at {} on this machine (a quick bench; --results FILE uses saved results)",
            names.len(),
            size_label(request.size())
        );
    }
    let stop = hashlab_bench::report::Cancel::new();
    quick_bench(
        registry,
        names,
        request.size(),
        request.use_,
        &crate::stdio::command_line(),
        &stop,
        &mut |_| {},
    )
    // The request and its inputs were checked with the request: memory
    // taken since is this machine's, not the arguments' fault.
    .map_err(|e| Failure::Runtime(e.to_string()))
}

fn render(args: &PickArgs, pick: &Pick) -> Result<ExitCode, Failure> {
    let hints = Hints {
        title: &format!("pick --for {}", pick.use_.name()),
        rest: "--format json lists them",
    };
    print(pick, args.format.chosen().unwrap_or(Format::Table), |p| {
        document(p, &hints)
    })
}

fn nothing_left(
    request: &PickRequest,
    excluded: &[hashlab_judge::pick::Exclusion],
) -> Result<ExitCode, Failure> {
    let popular: Vec<String> = excluded
        .iter()
        .filter(|e| e.popular)
        .map(|e| format!("{}: {}", e.algorithm, e.reason))
        .collect();
    Err(Failure::Runtime(format!(
        "no algorithm meets --for {} (min security {} bits{}); left out: {}",
        request.use_.name(),
        request.min_security(),
        if request.interop.is_empty() {
            String::new()
        } else {
            format!(", interop {}", request.interop.join(","))
        },
        popular.join("; ")
    )))
}
