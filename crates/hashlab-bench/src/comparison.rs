//! Several runs side by side (machines, runs of one machine, or CPU masks):
//! per algorithm, size and mode the throughput on each and its ratio to the
//! first, the ranking of algorithms on each, and the places where the ranking
//! flips between runs, with the CPU features that differ beside them.
//!
//! Every "is this difference real?" is `stats::compare` on the raw samples, the
//! one significance test of the project. The result is plain serde data, so a
//! table, a JSON document or a chart can be made from it.

pub mod describe;

use std::collections::{BTreeMap, HashMap};

use hashlab::Registry;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::plan::{Mode, NULL_ALGORITHM};
use crate::report::Report;
use crate::results::CellResult;
use crate::sizes::size_label;
use crate::stats;

/// Differences smaller than this share are not called significant, however
/// certain: across runs, a couple of percent is what a clock or a neighbour moves.
pub const DEFAULT_MIN_EFFECT: f64 = 0.02;

/// `stats::compare` is deterministic per seed; one fixed seed makes a comparison
/// reproducible.
const BOOTSTRAP_SEED: u64 = 1;

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// See `DEFAULT_MIN_EFFECT`.
    pub min_effect: f64,
    /// Only these message sizes; `None`: every size.
    pub sizes: Option<Vec<usize>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            min_effect: DEFAULT_MIN_EFFECT,
            sizes: None,
        }
    }
}

/// One of the runs compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputInfo {
    /// What the caller calls it (a file name, "run 12").
    pub label: String,
    pub cpu_model: String,
    /// Features the CPU has.
    pub cpu_features: Vec<String>,
    /// Features masked off for the run (`--mask-cpu`).
    pub cpu_mask: Vec<String>,
    /// Features the run could use: present and not masked.
    pub usable_features: Vec<String>,
    pub version: String,
    pub git_commit: Option<String>,
    pub timestamp: String,
    /// Interrupted runs hold fewer rounds.
    pub partial: bool,
}

/// A CPU feature usable on some inputs and not on others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureDifference {
    pub feature: String,
    /// The name people use ("SHA-NI").
    pub label: String,
    /// Per input: the run could use it.
    pub usable: Vec<bool>,
    /// Per input: the CPU had it but the run masked it.
    pub masked: Vec<bool>,
}

/// What is compared across inputs. With one backend of the algorithm per input
/// (the default-backend runs) the algorithm is matched whatever backend each
/// input chose, since that choice is part of what differs between machines;
/// `backend` is then `None`. When an input measured several backends of the
/// algorithm, each backend is its own entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    pub algorithm: String,
    pub backend: Option<String>,
}

impl Entry {
    pub fn name(&self) -> String {
        match &self.backend {
            Some(b) => format!("{}/{b}", self.algorithm),
            None => self.algorithm.clone(),
        }
    }
}

/// One input's measurement of a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub backend: String,
    pub mb_per_s: Option<f64>,
    /// 1 = fastest of the algorithms at this size and mode on this input.
    pub rank: Option<usize>,
    pub samples: usize,
}

/// Throughput of an input relative to the first input's, with its 95 % interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// Above 1: faster than on the first input.
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    /// Beyond the noise and the minimum effect (`stats::compare`).
    pub significant: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub entry: Entry,
    pub size: usize,
    pub mode: Mode,
    /// Per input; `None` where the input has no such cell.
    pub sides: Vec<Option<Side>>,
    /// Per input, against the first; `None` for the first and where either side is missing.
    pub versus_first: Vec<Option<Ratio>>,
}

/// Algorithms of one input at one size and mode, fastest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    pub input: usize,
    pub size: usize,
    pub mode: Mode,
    pub order: Vec<Ranked>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    pub entry: Entry,
    pub mb_per_s: f64,
}

/// How two entries stand on one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// The flip's `first` entry is significantly faster.
    FirstAhead,
    SecondAhead,
    /// Within the noise or the minimum effect.
    Tie,
    /// One of the two was not measured there.
    Absent,
}

/// Two entries whose order reverses between inputs, at the listed sizes: each
/// order is significant on its input (`stats::compare` on the two entries'
/// samples there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flip {
    pub mode: Mode,
    pub sizes: Vec<usize>,
    /// Ahead on the first input where the order is significant.
    pub first: Entry,
    pub second: Entry,
    /// Per input.
    pub order: Vec<Order>,
    /// Per input, the backend each entry ran on (`None`: not measured there).
    pub first_backends: Vec<Option<String>>,
    pub second_backends: Vec<Option<String>>,
    /// Features usable on some of the inputs involved and not on others.
    pub differing_features: Vec<String>,
    /// Of those, the ones a code path of either entry's backends picks by
    /// (`hashlab::dispatch`): the likely explanation. Empty when the features
    /// that differ touch neither, which points at run-to-run noise instead.
    pub explaining_features: Vec<String>,
}

/// An (algorithm, backend) measured on some inputs only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unmatched {
    pub entry: Entry,
    /// Per input, the backend measured there; `None`: absent.
    pub backends: Vec<Option<String>>,
}

/// Everything `compare` found; the JSON output of `hashlab compare` is exactly this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub inputs: Vec<InputInfo>,
    pub min_effect: f64,
    pub feature_differences: Vec<FeatureDifference>,
    pub rows: Vec<Row>,
    pub rankings: Vec<Ranking>,
    pub flips: Vec<Flip>,
    pub unmatched: Vec<Unmatched>,
}

/// Features a run could use: the CPU's, less the masked ones.
pub fn usable_features(report: &Report) -> Vec<String> {
    let env = &report.environment;
    env.cpu_features
        .iter()
        .filter(|f| !is_masked(report, f))
        .cloned()
        .collect()
}

fn is_masked(report: &Report, feature: &str) -> bool {
    let env = &report.environment;
    env.cpu_mask
        .iter()
        .chain(&report.settings.mask)
        .any(|m| m.eq_ignore_ascii_case(feature))
}

fn input_info(label: &str, report: &Report) -> InputInfo {
    let env = &report.environment;
    let mut mask: Vec<String> = env
        .cpu_mask
        .iter()
        .chain(&report.settings.mask)
        .map(|m| m.to_ascii_lowercase())
        .collect();
    mask.sort();
    mask.dedup();
    InputInfo {
        label: label.to_string(),
        cpu_model: env.cpu_model.clone(),
        cpu_features: env.cpu_features.clone(),
        cpu_mask: mask,
        usable_features: usable_features(report),
        version: report.version.clone(),
        git_commit: env.git_commit.clone(),
        timestamp: env.timestamp.clone(),
        partial: report.run.partial,
    }
}

fn feature_differences(reports: &[&Report]) -> Vec<FeatureDifference> {
    let mut all: Vec<&String> = reports
        .iter()
        .flat_map(|r| &r.environment.cpu_features)
        .collect();
    // Keep the detection order of the first input that has each feature.
    let mut seen = Vec::new();
    all.retain(|f| {
        let new = !seen.contains(f);
        seen.push(*f);
        new
    });
    all.into_iter()
        .filter_map(|feature| {
            let usable: Vec<bool> = reports
                .iter()
                .map(|r| r.environment.cpu_features.contains(feature) && !is_masked(r, feature))
                .collect();
            if usable.iter().all(|u| *u) || usable.iter().all(|u| !*u) {
                return None;
            }
            let masked = reports
                .iter()
                .map(|r| r.environment.cpu_features.contains(feature) && is_masked(r, feature))
                .collect();
            Some(FeatureDifference {
                feature: feature.clone(),
                label: hashlab::cpu::label(feature).unwrap_or(feature).to_string(),
                usable,
                masked,
            })
        })
        .collect()
}

type CellKey<'a> = (&'a str, &'a str, usize, Mode);

/// Cells of one input, found by (algorithm, backend, size, mode), and the
/// backends it measured per algorithm.
struct Indexed<'a> {
    cells: HashMap<CellKey<'a>, &'a CellResult>,
    backends: BTreeMap<&'a str, Vec<&'a str>>,
}

impl<'a> Indexed<'a> {
    fn new(report: &'a Report) -> Indexed<'a> {
        let mut cells = HashMap::new();
        let mut backends: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for c in &report.cells {
            cells.insert(
                (c.algorithm.as_str(), c.backend.as_str(), c.size, c.mode),
                c,
            );
            let list = backends.entry(c.algorithm.as_str()).or_default();
            if !list.contains(&c.backend.as_str()) {
                list.push(c.backend.as_str());
            }
        }
        Indexed { cells, backends }
    }

    /// The backend this input measured for `entry`, if any.
    fn backend(&self, entry: &Entry) -> Option<&'a str> {
        let list = self.backends.get(entry.algorithm.as_str())?;
        match &entry.backend {
            Some(b) => list.iter().copied().find(|x| x == b),
            None => (list.len() == 1).then(|| list[0]),
        }
    }

    fn cell(&self, entry: &Entry, size: usize, mode: Mode) -> Option<&'a CellResult> {
        let backend = self.backend(entry)?;
        self.cells
            .get(&(entry.algorithm.as_str(), backend, size, mode))
            .copied()
    }
}

/// Entries in order of first appearance across the inputs.
fn entries(reports: &[&Report], indexed: &[Indexed]) -> Vec<Entry> {
    let mut algorithms: Vec<&str> = Vec::new();
    for r in reports {
        for c in &r.cells {
            if !algorithms.contains(&c.algorithm.as_str()) {
                algorithms.push(c.algorithm.as_str());
            }
        }
    }
    let mut out = Vec::new();
    for alg in algorithms {
        let per_input: Vec<&[&str]> = indexed
            .iter()
            .filter_map(|ix| ix.backends.get(alg).map(Vec::as_slice))
            .collect();
        if per_input.iter().all(|b| b.len() == 1) {
            out.push(Entry {
                algorithm: alg.to_string(),
                backend: None,
            });
        } else {
            let mut backends: Vec<&str> = Vec::new();
            for b in per_input.iter().flat_map(|b| b.iter()) {
                if !backends.contains(b) {
                    backends.push(b);
                }
            }
            out.extend(backends.into_iter().map(|b| Entry {
                algorithm: alg.to_string(),
                backend: Some(b.to_string()),
            }));
        }
    }
    out
}

/// Sizes a caller asked for that no input measured, beside the ones measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizesNotMeasured {
    pub missing: Vec<usize>,
    /// Every size some input measured, ascending.
    pub measured: Vec<usize>,
}

impl std::fmt::Display for SizesNotMeasured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let labels = |sizes: &[usize]| {
            sizes
                .iter()
                .map(|s| size_label(*s))
                .collect::<Vec<_>>()
                .join(", ")
        };
        write!(
            f,
            "{} {} not measured by any input (measured: {})",
            labels(&self.missing),
            if self.missing.len() == 1 {
                "was"
            } else {
                "were"
            },
            labels(&self.measured)
        )
    }
}

impl std::error::Error for SizesNotMeasured {}

/// Checks that each of `sizes` was measured by some input, so a comparison
/// limited to them is not empty by a typing error.
pub fn check_sizes(inputs: &[(String, &Report)], sizes: &[usize]) -> Result<(), SizesNotMeasured> {
    let mut measured: Vec<usize> = inputs
        .iter()
        .flat_map(|(_, r)| r.cells.iter().map(|c| c.size))
        .collect();
    measured.sort_unstable();
    measured.dedup();
    let missing: Vec<usize> = sizes
        .iter()
        .copied()
        .filter(|s| measured.binary_search(s).is_err())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(SizesNotMeasured { missing, measured })
    }
}

/// (size, mode) pairs measured anywhere: modes in order of appearance, sizes ascending.
fn size_modes(reports: &[&Report], options: &Options) -> Vec<(usize, Mode)> {
    let mut modes: Vec<Mode> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    for c in reports.iter().flat_map(|r| &r.cells) {
        if !modes.contains(&c.mode) {
            modes.push(c.mode);
        }
        if !sizes.contains(&c.size) {
            sizes.push(c.size);
        }
    }
    sizes.sort_unstable();
    if let Some(wanted) = &options.sizes {
        sizes.retain(|s| wanted.contains(s));
    }
    modes
        .into_iter()
        .flat_map(|mode| sizes.iter().map(move |&size| (size, mode)))
        .collect()
}

fn mb_per_s(cell: &CellResult) -> Option<f64> {
    cell.throughput.as_ref().map(|t| t.mb_per_s)
}

/// Throughput ratio other / first from `stats::compare` on time per message
/// (time ratio first→other inverted: the interval's ends swap).
fn throughput_ratio(first: &CellResult, other: &CellResult, min_effect: f64) -> Option<Ratio> {
    let c = stats::compare(&first.samples, &other.samples, min_effect, BOOTSTRAP_SEED)?;
    if c.ratio <= 0.0 || c.low <= 0.0 {
        return None;
    }
    Some(Ratio {
        ratio: 1.0 / c.ratio,
        low: 1.0 / c.high,
        high: 1.0 / c.low,
        significant: c.significant,
    })
}

/// A label per results file: its name without the extension, or its whole
/// path where another file, or one of `others` (the caller's other inputs),
/// has that label too.
pub fn labels(paths: &[std::path::PathBuf], others: &[String]) -> Vec<String> {
    let stems: Vec<String> = paths
        .iter()
        .map(|p| {
            p.file_stem()
                .map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into())
        })
        .collect();
    paths
        .iter()
        .zip(&stems)
        .map(|(p, s)| {
            if stems.iter().chain(others).filter(|t| *t == s).count() > 1 {
                p.display().to_string()
            } else {
                s.clone()
            }
        })
        .collect()
}

/// Compares the reports, each with its label. The first is the reference for ratios.
pub fn compare(inputs: &[(String, &Report)], options: &Options) -> Comparison {
    let reports: Vec<&Report> = inputs.iter().map(|(_, r)| *r).collect();
    let indexed: Vec<Indexed> = reports.iter().map(|r| Indexed::new(r)).collect();
    let entries = entries(&reports, &indexed);
    let grid = size_modes(&reports, options);

    let mut rankings = Vec::new();
    // rank[(input, size, mode)][entry] = 1-based rank
    let mut ranks: HashMap<(usize, usize, Mode), HashMap<&Entry, usize>> = HashMap::new();
    for (i, ix) in indexed.iter().enumerate() {
        for &(size, mode) in &grid {
            let mut order: Vec<Ranked> = entries
                .iter()
                .filter(|e| e.algorithm != NULL_ALGORITHM)
                .filter_map(|e| {
                    let mbps = mb_per_s(ix.cell(e, size, mode)?)?;
                    Some(Ranked {
                        entry: e.clone(),
                        mb_per_s: mbps,
                    })
                })
                .collect();
            if order.is_empty() {
                continue;
            }
            order.sort_by(|a, b| b.mb_per_s.total_cmp(&a.mb_per_s));
            let map = ranks.entry((i, size, mode)).or_default();
            for (rank, r) in order.iter().enumerate() {
                let entry = entries
                    .iter()
                    .find(|e| **e == r.entry)
                    .expect("ranked entry");
                map.insert(entry, rank + 1);
            }
            rankings.push(Ranking {
                input: i,
                size,
                mode,
                order,
            });
        }
    }

    // Each ratio is a bootstrap: spread the grid over the cores.
    let rows: Vec<Row> = grid
        .par_iter()
        .flat_map_iter(|&(size, mode)| {
            let ranks = &ranks;
            let indexed = &indexed;
            entries.iter().filter_map(move |entry| {
                let cells: Vec<Option<&CellResult>> = indexed
                    .iter()
                    .map(|ix| ix.cell(entry, size, mode))
                    .collect();
                if cells.iter().all(Option::is_none) {
                    return None;
                }
                let sides = cells
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        c.map(|c| Side {
                            backend: c.backend.clone(),
                            mb_per_s: mb_per_s(c),
                            rank: ranks
                                .get(&(i, size, mode))
                                .and_then(|m| m.get(entry))
                                .copied(),
                            samples: c.samples.len(),
                        })
                    })
                    .collect();
                let versus_first = cells
                    .iter()
                    .enumerate()
                    .map(|(i, c)| match (i, cells[0], c) {
                        (0, _, _) => None,
                        (_, Some(first), Some(other)) => {
                            throughput_ratio(first, other, options.min_effect)
                        }
                        _ => None,
                    })
                    .collect();
                Some(Row {
                    entry: entry.clone(),
                    size,
                    mode,
                    sides,
                    versus_first,
                })
            })
        })
        .collect();

    let differences = feature_differences(&reports);
    let flips = flips(&entries, &indexed, &grid, &differences, options.min_effect);

    let unmatched = entries
        .iter()
        .filter_map(|e| {
            let backends: Vec<Option<String>> = indexed
                .iter()
                .map(|ix| ix.backend(e).map(str::to_string))
                .collect();
            backends.iter().any(Option::is_none).then(|| Unmatched {
                entry: e.clone(),
                backends,
            })
        })
        .collect();

    Comparison {
        inputs: inputs
            .iter()
            .map(|(label, r)| input_info(label, r))
            .collect(),
        min_effect: options.min_effect,
        feature_differences: differences,
        rows,
        rankings,
        flips,
        unmatched,
    }
}

/// Order of `x` and `y` on one input: `stats::compare` of their times per
/// message at the same size (ratio = time of y / time of x).
fn order_on(x: &CellResult, y: &CellResult, min_effect: f64) -> Order {
    match stats::compare(&x.samples, &y.samples, min_effect, BOOTSTRAP_SEED) {
        Some(c) if c.significant && c.ratio > 1.0 => Order::FirstAhead,
        Some(c) if c.significant && c.ratio < 1.0 => Order::SecondAhead,
        Some(_) => Order::Tie,
        None => Order::Absent,
    }
}

/// Whether one of the backend's code paths for the algorithm needs `feature`
/// (the dispatch rules `hashlab cpu` shows).
fn picks_by(registry: &Registry, algorithm: &str, backend: &str, feature: &str) -> bool {
    registry
        .backend(algorithm, backend)
        .is_ok_and(|b| hashlab::dispatch::features_consulted(b).contains(&feature))
}

/// Whether `a` and `b` swap places between inputs at this size and mode, each
/// order significant on its input. Returns (the one ahead on the first input
/// where the order is significant, the other, the order on each input).
fn reversal<'e>(
    indexed: &[Indexed],
    a: &'e Entry,
    b: &'e Entry,
    size: usize,
    mode: Mode,
    min_effect: f64,
) -> Option<(&'e Entry, &'e Entry, Vec<Order>)> {
    let pairs: Vec<Option<(&CellResult, &CellResult)>> = indexed
        .iter()
        .map(|ix| Some((ix.cell(a, size, mode)?, ix.cell(b, size, mode)?)))
        .collect();
    // Only where the medians already disagree is the (costlier) test worth running.
    let signs: Vec<bool> = pairs
        .iter()
        .flatten()
        .filter_map(|(x, y)| Some(mb_per_s(x)? > mb_per_s(y)?))
        .collect();
    if !(signs.contains(&true) && signs.contains(&false)) {
        return None;
    }
    let mut order: Vec<Order> = Vec::with_capacity(pairs.len());
    for (i, p) in pairs.iter().enumerate() {
        order.push(match p {
            Some((x, y)) => order_on(x, y, min_effect),
            None => Order::Absent,
        });
        // Stop testing once the inputs left cannot supply both orders.
        let missing = [Order::FirstAhead, Order::SecondAhead]
            .iter()
            .filter(|o| !order.contains(o))
            .count();
        if missing > pairs.len() - i - 1 {
            return None;
        }
    }
    let first_significant = order
        .iter()
        .find(|o| matches!(o, Order::FirstAhead | Order::SecondAhead));
    if first_significant == Some(&Order::SecondAhead) {
        for o in order.iter_mut() {
            *o = match *o {
                Order::FirstAhead => Order::SecondAhead,
                Order::SecondAhead => Order::FirstAhead,
                other => other,
            };
        }
        return Some((b, a, order));
    }
    Some((a, b, order))
}

fn flips(
    entries: &[Entry],
    indexed: &[Indexed],
    grid: &[(usize, Mode)],
    differences: &[FeatureDifference],
    min_effect: f64,
) -> Vec<Flip> {
    // Which CPU features each backend consults is data of its registry entry.
    let registry = Registry::default();
    let ranked: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.algorithm != NULL_ALGORITHM)
        .collect();
    // (size, mode, first, second, order) for every significant reversal;
    // found per grid point in parallel, in grid order.
    let found: Vec<(usize, Mode, &Entry, &Entry, Vec<Order>)> = grid
        .par_iter()
        .flat_map_iter(|&(size, mode)| {
            let mut here = Vec::new();
            for (a_index, a) in ranked.iter().enumerate() {
                for b in &ranked[a_index + 1..] {
                    if let Some((first, second, order)) =
                        reversal(indexed, a, b, size, mode, min_effect)
                    {
                        here.push((size, mode, first, second, order));
                    }
                }
            }
            here
        })
        .collect();
    let mut groups: Vec<Flip> = Vec::new();
    for (size, mode, first, second, order) in found {
        let existing = groups.iter_mut().find(|g| {
            g.mode == mode && g.first == *first && g.second == *second && g.order == order
        });
        if let Some(group) = existing {
            group.sizes.push(size);
            continue;
        }
        let involved: Vec<usize> = order
            .iter()
            .enumerate()
            .filter(|(_, o)| matches!(o, Order::FirstAhead | Order::SecondAhead))
            .map(|(i, _)| i)
            .collect();
        let backends = |e: &Entry| -> Vec<Option<String>> {
            indexed
                .iter()
                .map(|ix| ix.backend(e).map(str::to_string))
                .collect()
        };
        let differing: Vec<String> = differences
            .iter()
            .filter(|d| {
                let on: Vec<bool> = involved.iter().map(|&i| d.usable[i]).collect();
                on.contains(&true) && on.contains(&false)
            })
            .map(|d| d.feature.clone())
            .collect();
        let (first_backends, second_backends) = (backends(first), backends(second));
        groups.push(Flip {
            mode,
            sizes: vec![size],
            first: first.clone(),
            second: second.clone(),
            differing_features: differing.clone(),
            explaining_features: differing
                .into_iter()
                .filter(|f| {
                    [(first, &first_backends), (second, &second_backends)]
                        .iter()
                        .any(|(entry, backends)| {
                            backends
                                .iter()
                                .flatten()
                                .any(|b| picks_by(&registry, &entry.algorithm, b, f))
                        })
                })
                .collect(),
            first_backends,
            second_backends,
            order,
        });
    }
    groups
}

#[cfg(test)]
mod tests;
