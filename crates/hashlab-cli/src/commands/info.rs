//! `hashlab info ALGO`: the facts about one algorithm with their sources,
//! where it ships, its backends here, speeds from a results file, and its
//! statistical quality (SMHasher3's published verdict beside hashlab's).

use std::process::ExitCode;

use hashlab::Registry;
use hashlab_judge::info::{info, Info};
use hashlab_judge::pages::info::{document, Hints};
use hashlab_judge::pages::quality::{quality, Quality};
use hashlab_judge::speed::load_report;
use hashlab_judge::{Availability, Facts};
use serde::Serialize;

use crate::cli::{Format, InfoArgs};
use crate::failure::Failure;
use crate::output::print;
use crate::shared::file_label;

/// The algorithm asked for must be one the registry knows (any alias).
fn request(args: &InfoArgs, registry: &Registry) -> Result<(), Failure> {
    registry
        .algorithm(&args.algorithm)
        .map(|_| ())
        .map_err(|e| Failure::Usage(e.to_string()))
}

pub fn run(args: &InfoArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let facts = Facts::builtin();
    let table = Availability::builtin();
    request(args, &registry)?;
    let report = match &args.results {
        Some(path) => Some((
            load_report(
                path,
                &hashlab_integrity::bounded::read_json(path)
                    .map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?,
            )
            .map_err(Failure::Runtime)?,
            file_label(path),
        )),
        None => None,
    };
    let page = info(
        &args.algorithm,
        &registry,
        &facts,
        &table,
        report.as_ref().map(|(r, label)| (r, label.as_str())),
    )
    .map_err(Failure::Runtime)?;
    let quality = quality(&page.algorithm);
    let shown = WithQuality {
        page: &page,
        quality: &quality,
    };
    print(&shown, args.format.chosen().unwrap_or(Format::Table), |s| {
        document(s.page, s.quality, &HINTS)
    })
}

const HINTS: Hints = Hints {
    no_results: "no results file given: hashlab info ALGO --results FILE (from hashlab bench --json) adds speeds",
    rerun_quality: "`hashlab quality -a ALGO`",
};

/// The page as JSON, with the quality verdicts beside it.
#[derive(Serialize)]
struct WithQuality<'a> {
    #[serde(flatten)]
    page: &'a Info,
    quality: &'a Quality,
}
