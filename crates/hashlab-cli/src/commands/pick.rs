//! `hashlab pick --for USE`: the fastest algorithms the facts allow for a
//! use, with the reasons and numbers behind each, and why popular ones were
//! left out. The judging is in hashlab-judge.

use std::io::IsTerminal;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_bench::limits::MeasureError;
use hashlab_bench::sizes::{parse_size, size_label};
use hashlab_judge::pick::{
    candidates, quick_bench, rank, Knowledge, Pick, PickRequest, SpeedOrigin, Speeds, Use,
};
use hashlab_judge::pick_like::{like_request, rank_like};
use hashlab_judge::speed::{group_thousands, load_report};
use hashlab_judge::{Availability, Facts};

use super::info::file_label;
use super::sections::{self, flat, lines, section, FlatRow};
use crate::cli::{Format, PickArgs, PickUse};
use crate::failure::Failure;
use crate::output::{render_document, render_json};
use hashlab_table::Document;

/// Choices whose reasons the table spells out; JSON has all.
const EXPLAINED: usize = 3;
/// Choices the table lists.
const LISTED: usize = 10;

fn use_of(u: PickUse) -> Use {
    match u {
        PickUse::ContentAddressing => Use::ContentAddressing,
        PickUse::Integrity => Use::Integrity,
        PickUse::Mac => Use::Mac,
        PickUse::HashTable => Use::HashTable,
        PickUse::Transfer => Use::Transfer,
    }
}

pub fn run(args: &PickArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let facts = Facts::builtin();
    let table = Availability::builtin();
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
    let know = Knowledge {
        facts: &facts,
        table: &table,
        registry: &registry,
    };
    let found =
        candidates(&request, know).map_err(|e| Failure::Usage(format!("--interop: {e}")))?;
    if let Some(path) = &args.like {
        if found.names.is_empty() {
            return nothing_left(&request, &found.excluded);
        }
        let like_request = like_request(&registry, path.clone(), &found);
        if std::io::stderr().is_terminal() {
            errln!(
                "hashlab: measuring {} candidates on the shape of {} (bench --like with a {} s budget)",
                like_request.algorithms.len(),
                path.display(),
                like_request.budget.as_secs()
            );
        }
        let report = hashlab_bench::like::like(&registry, &like_request)
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        let pick = rank_like(&request, know, found, &report);
        return render(args, &pick);
    }
    let (report, origin, label) = match &args.results {
        Some(path) => (
            load_report(
                path,
                &hashlab_integrity::bounded::read_json(path)
                    .map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?,
            )
            .map_err(Failure::Runtime)?,
            SpeedOrigin::File,
            file_label(path),
        ),
        None if found.names.is_empty() => {
            return nothing_left(&request, &found.excluded);
        }
        None => {
            if std::io::stderr().is_terminal() {
                errln!(
                    "hashlab: measuring {} candidates at {} on this machine (a quick bench; --results FILE uses saved results)",
                    found.names.len(),
                    size_label(request.size())
                );
            }
            let stop = hashlab_bench::report::Cancel::new();
            let report = quick_bench(
                &registry,
                &found.names,
                request.size(),
                request.use_,
                &crate::stdio::command_line(),
                &stop,
                &mut |_| {},
            )
            .map_err(|e| match e {
                MeasureError::Request(e) => Failure::Usage(format!("--size: {e}")),
                MeasureError::Failed(message) => Failure::Runtime(message),
            })?;
            (report, SpeedOrigin::Here, "a quick bench here".to_string())
        }
    };
    let pick = rank(
        &request,
        know,
        found,
        Speeds {
            report: &report,
            origin,
            label: &label,
        },
    );
    if pick.choices.is_empty() {
        return nothing_left(&request, &pick.excluded);
    }
    render(args, &pick)
}

fn render(args: &PickArgs, pick: &Pick) -> Result<ExitCode, Failure> {
    let out = match args.format.chosen().unwrap_or(Format::Table) {
        Format::Json => render_json(pick)?,
        format => render_document(&human(pick, &flat_rows(pick)), format, false)?,
    };
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
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

fn human(pick: &Pick, flat: &[FlatRow]) -> Document {
    let mut out = sections::page(flat);
    let like = pick.choices.iter().any(|c| c.projected.is_some());
    let mut asked = vec![
        format!("use: {}", pick.use_text),
        if like {
            format!("shape: {}", pick.speed_source)
        } else {
            format!("size: {}", size_label(pick.size))
        },
        format!(
            "minimum security: {}",
            if pick.min_security == 0 {
                "none (no attacker)".to_string()
            } else {
                format!("{} bits", pick.min_security)
            }
        ),
        format!("speeds from {} ({})", pick.speed_source, pick.cpu),
    ];
    if !pick.interop.is_empty() {
        asked.push(format!("must ship in: {}", pick.interop.join(", ")));
    }
    lines(
        &mut out,
        &format!("pick --for {}", pick.use_.name()),
        &asked,
    );
    let rows: Vec<Vec<String>> = pick
        .choices
        .iter()
        .take(LISTED)
        .map(|c| {
            let m = c.measured.as_ref();
            vec![
                c.rank.map_or_else(|| "-".into(), |r| r.to_string()),
                c.algorithm.clone(),
                m.map_or_else(|| "unmeasured".into(), |m| group_thousands(m.mb_per_s)),
                m.map(|m| size_label(m.size)).unwrap_or_default(),
                m.map(|m| m.backend.clone()).unwrap_or_default(),
                m.and_then(|m| m.path.as_ref().map(|p| p.path.clone()))
                    .unwrap_or_default(),
            ]
        })
        .collect();
    let more = pick.choices.len().saturating_sub(LISTED);
    let title = if more > 0 {
        format!("Ranked by speed ({more} more allowed: --format json lists them)")
    } else {
        "Ranked by speed".to_string()
    };
    if like {
        let rows = pick
            .choices
            .iter()
            .take(LISTED)
            .map(projected_row)
            .collect();
        section(
            &mut out,
            &title.replace("Ranked by speed", "Ranked by projected time"),
            &[
                "rank",
                "algorithm",
                "cached, all threads",
                "bound",
                "cached, 1 thread",
                "uncached",
                "backend",
            ],
            rows,
        );
    } else {
        section(
            &mut out,
            &title,
            &["rank", "algorithm", "MB/s", "at", "backend", "path"],
            rows,
        );
    }
    for c in pick.choices.iter().take(EXPLAINED) {
        lines(&mut out, &format!("Why {}", c.algorithm), &c.reasons);
    }
    let popular: Vec<Vec<String>> = pick
        .excluded
        .iter()
        .filter(|e| e.popular)
        .map(|e| vec![e.algorithm.clone(), e.reason.clone()])
        .collect();
    let others = pick.excluded.iter().filter(|e| !e.popular).count();
    let title = if others > 0 {
        format!("Popular candidates left out ({others} others too: --format json lists them)")
    } else {
        "Popular candidates left out".to_string()
    };
    section(&mut out, &title, &["algorithm", "why"], popular);
    lines(&mut out, "Notes", &pick.notes);
    out
}

/// A choice ranked by `--like`: its projected times and what bounds them.
fn projected_row(c: &hashlab_judge::pick::Choice) -> Vec<String> {
    use hashlab_bench::like::tables::seconds;
    let rank = c.rank.map_or_else(|| "-".into(), |r| r.to_string());
    let Some(p) = &c.projected else {
        return vec![rank, c.algorithm.clone(), "unmeasured".into()];
    };
    vec![
        rank,
        c.algorithm.clone(),
        seconds(p.cached_all),
        p.bound_cached.words().to_string(),
        seconds(p.cached_one),
        match (p.uncached_all, p.bound_uncached) {
            (Some(s), Some(b)) => format!("{} ({})", seconds(s), b.words()),
            _ => "-".into(),
        },
        p.backend.clone(),
    ]
}

fn flat_rows(pick: &Pick) -> Vec<FlatRow> {
    let mut rows: Vec<FlatRow> = pick
        .choices
        .iter()
        .map(|c| {
            flat(
                "choice",
                c.algorithm.clone(),
                match (&c.projected, &c.measured) {
                    (Some(p), _) => format!("{:.6} s", p.cached_all),
                    (None, Some(m)) => format!("{:.1}", m.mb_per_s),
                    (None, None) => "unmeasured".into(),
                },
                c.summary.clone(),
            )
        })
        .collect();
    rows.extend(
        pick.excluded
            .iter()
            .map(|e| flat("excluded", e.algorithm.clone(), "", e.reason.clone())),
    );
    rows.extend(pick.notes.iter().map(|n| flat("note", "", "", n.clone())));
    rows
}
