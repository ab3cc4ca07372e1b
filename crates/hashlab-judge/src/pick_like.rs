//! `pick --like PATH`: the same candidates, ranked by the time each would
//! take for all of the user's own data (`bench --like`'s projection) instead
//! of by speed at one message size.

use std::path::PathBuf;
use std::time::Duration;

use hashlab::Registry;
use hashlab_bench::like::tables::{bytes, seconds, state, what};
use hashlab_bench::like::{LikeReport, LikeRequest, Projection};

use crate::pick::{use_notes, with_speed, Candidates, Knowledge, Pick, PickRequest};

/// The replica's measuring time for `pick --like`: a ranking needs the order,
/// not `bench --like`'s fuller minute.
pub const PICK_LIKE_BUDGET: Duration = Duration::from_secs(10);

/// Whether `sum` hashes files with `name`: not when its output may change
/// between versions or machines (a manifest of it could not be checked).
fn sums_files(registry: &Registry, name: &str) -> bool {
    registry.algorithm(name).is_ok_and(|a| a.stable)
}

/// The request `pick --like PATH` measures with: every candidate `sum`
/// hashes files with (a keyed one with its default key, which costs what
/// any key of that length does), a short budget.
pub fn like_request(registry: &Registry, path: PathBuf, candidates: &Candidates) -> LikeRequest {
    let mut request = LikeRequest::new(path);
    request.algorithms = candidates
        .names
        .iter()
        .filter(|n| sums_files(registry, n))
        .cloned()
        .collect();
    request.budget = PICK_LIKE_BUDGET;
    request
}

fn speed_text(p: &Projection, report: &LikeReport) -> String {
    let uncached = match (p.uncached_all, p.bound_uncached) {
        (Some(s), Some(b)) => format!("; {} read from the storage ({})", seconds(s), b.words()),
        _ => String::new(),
    };
    format!(
        "{} for all of {} on {} threads, {} ({}; {} on 1 thread){uncached}, {} backend",
        seconds(p.cached_all),
        report.shape.path,
        report.cores,
        state(report.shape.source),
        p.bound_cached.words(),
        seconds(p.cached_one),
        p.backend
    )
}

/// Ranks the candidates by their projected time (cached, every core here)
/// on the shape `report` measured, fastest first; a candidate it has no
/// projection for is listed unmeasured.
pub fn rank_like(
    request: &PickRequest,
    know: Knowledge,
    candidates: Candidates,
    report: &LikeReport,
) -> Pick {
    let mut projected: Vec<&Projection> = candidates
        .names
        .iter()
        .filter_map(|n| report.projections.iter().find(|p| &p.algorithm == n))
        .collect();
    projected.sort_by(|a, b| a.cached_all.total_cmp(&b.cached_all));
    let source = format!("bench --like {}", report.shape.path);
    let mut choices = Vec::new();
    for (i, p) in projected.iter().enumerate() {
        let text = speed_text(p, report);
        let reasons = vec![format!("speed: {text}")];
        let mut choice = with_speed(request, know, &p.algorithm, &text, reasons, Some(i + 1));
        choice.projected = Some((*p).clone());
        choices.push(choice);
    }
    let unmeasured: Vec<&String> = candidates
        .names
        .iter()
        .filter(|n| !projected.iter().any(|p| &&p.algorithm == n))
        .collect();
    for name in &unmeasured {
        let why = if sums_files(know.registry, name) {
            format!("{source} has no time for it")
        } else {
            "its output is not stable across versions or machines, so `sum` does not hash files with it".to_string()
        };
        let reasons = vec![format!("speed: not projected ({why})")];
        choices.push(with_speed(request, know, name, "unmeasured", reasons, None));
    }
    let shape = &report.shape;
    let mut notes = vec![format!(
        "ranked by the projected time to hash all of {} ({:.0} {}, {}) on {} threads here, {}: each candidate measured on a replica of its size bands (bench --like)",
        shape.path,
        shape.files,
        what(shape.source),
        bytes(shape.bytes),
        report.cores,
        state(shape.source),
    )];
    if let (Some(first), Some(last)) = (projected.first(), projected.last()) {
        if projected.len() > 1 {
            notes.push(format!(
                "on this shape the slowest candidate takes {:.1}× the fastest's time ({} against {})",
                last.cached_all / first.cached_all.max(1e-12),
                seconds(last.cached_all),
                seconds(first.cached_all)
            ));
        }
    }
    if !unmeasured.is_empty() {
        notes.push(format!(
            "not projected: {}",
            unmeasured
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    notes.extend(report.notes.iter().cloned());
    notes.extend(use_notes(request.use_));
    Pick {
        use_: request.use_,
        use_text: request.use_.describe().to_string(),
        size: request.size(),
        min_security: request.min_security(),
        interop: request.interop.clone(),
        speed_source: source,
        cpu: format!("this machine, {} threads", report.cores),
        choices,
        excluded: candidates.excluded,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pick::Use;
    use crate::{Availability, Facts};

    /// The committed `bench --like` report of a mixed tree (fixtures/results).
    fn tree_report() -> LikeReport {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/results/like-tree.json"
        );
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn ranks_by_projected_time_and_lists_the_unprojected_last() {
        let registry = Registry::default();
        let (facts, table) = (Facts::builtin(), Availability::builtin());
        let know = Knowledge {
            facts: &facts,
            table: &table,
            registry: &registry,
        };
        let request = PickRequest {
            use_: Use::Integrity,
            min_security: None,
            size: None,
            interop: Vec::new(),
        };
        let names = [
            "sha512",
            "foldhash",
            "crc64nvme",
            "blake3",
            "xxh3-64",
            "sha256",
        ];
        let candidates = Candidates {
            names: names.iter().map(|n| n.to_string()).collect(),
            excluded: Vec::new(),
        };
        let like = like_request(&registry, "tree".into(), &candidates);
        assert!(!like.algorithms.contains(&"foldhash".to_string()));
        assert_eq!(like.budget, PICK_LIKE_BUDGET);
        let report = tree_report();
        let pick = rank_like(&request, know, candidates, &report);
        let order: Vec<(&str, Option<usize>)> = pick
            .choices
            .iter()
            .map(|c| (c.algorithm.as_str(), c.rank))
            .collect();
        // The fixture projected blake3, sha256, sha512 and xxh3-64 (among
        // others); crc64nvme it did not, foldhash sum refuses.
        let mut projected: Vec<&Projection> = report
            .projections
            .iter()
            .filter(|p| names.contains(&p.algorithm.as_str()))
            .collect();
        projected.sort_by(|a, b| a.cached_all.total_cmp(&b.cached_all));
        let mut expected: Vec<(&str, Option<usize>)> = projected
            .iter()
            .enumerate()
            .map(|(i, p)| (p.algorithm.as_str(), Some(i + 1)))
            .collect();
        expected.extend([("foldhash", None), ("crc64nvme", None)]);
        assert_eq!(order, expected);
        assert!(pick.choices[0].projected.is_some() && pick.choices[0].measured.is_none());
        let unprojected = |name: &str| {
            pick.choices
                .iter()
                .find(|c| c.algorithm == name)
                .unwrap()
                .reasons[0]
                .clone()
        };
        assert!(unprojected("foldhash").contains("not stable"));
        assert!(unprojected("crc64nvme").contains("has no time for it"));
        assert_eq!(pick.speed_source, "bench --like mixed-tree");
        assert!(pick.notes[0].contains("703 files"), "{:?}", pick.notes);
    }
}
