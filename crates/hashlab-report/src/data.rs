//! What the charts and tables show, taken out of bench results in one place,
//! so that a chart and the table beside it cannot disagree.

use std::collections::{HashMap, HashSet};

use hashlab::{Class, Lineage, Registry};
use hashlab_bench::plan::{Mode, NULL_ALGORITHM};
use hashlab_bench::report::Report;
use hashlab_bench::results::{CellResult, Scaling};
use hashlab_bench::sizes::size_label;

use crate::ReportError;

/// One results file (or one fresh run) and the name the page gives it.
#[derive(Debug, Clone)]
pub struct Input {
    /// Short and unique among the inputs: a file name without `.json`, say.
    pub label: String,
    pub report: Report,
}

/// An (algorithm, backend) pair: one line, bar or box.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pair {
    pub algorithm: String,
    pub backend: String,
}

impl Pair {
    pub fn of(cell: &CellResult) -> Pair {
        Pair {
            algorithm: cell.algorithm.clone(),
            backend: cell.backend.clone(),
        }
    }

    /// `sha256 (rustcrypto)`.
    pub fn full_name(&self) -> String {
        format!("{} ({})", self.algorithm, self.backend)
    }

    /// The algorithm alone where no other backend of it is in view.
    pub fn label(&self, with_backend: bool) -> String {
        if with_backend {
            self.full_name()
        } else {
            self.algorithm.clone()
        }
    }
}

/// Whether some algorithm appears with more than one backend: then every label names its backend.
pub fn backends_vary<'a>(pairs: impl IntoIterator<Item = &'a Pair>) -> bool {
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for p in pairs {
        if *seen.entry(&p.algorithm).or_insert(&p.backend) != p.backend {
            return true;
        }
    }
    false
}

/// A report's single-thread cells found once, by pair and size: what every
/// chart and table looks up, so that a page of n cells costs about n
/// lookups where each lookup was a pass over every cell (60,000 cells took
/// minutes).
pub struct Index<'a> {
    pub report: &'a Report,
    /// In the order the run measured them first.
    pairs: Vec<Pair>,
    /// Ascending.
    sizes: Vec<usize>,
    /// The first cell of each (algorithm, backend, size).
    cells: HashMap<(&'a str, &'a str, usize), &'a CellResult>,
    /// The first pair of each algorithm, as an index into `pairs`.
    first_of: HashMap<&'a str, usize>,
    measured: HashSet<(&'a str, &'a str)>,
}

impl<'a> Index<'a> {
    pub fn of(report: &'a Report) -> Index<'a> {
        let mut cells = HashMap::new();
        let mut pairs = Vec::new();
        let mut first_of = HashMap::new();
        let mut measured: HashSet<(&str, &str)> = HashSet::new();
        let mut sizes = Vec::new();
        for c in single_thread(report) {
            cells
                .entry((c.algorithm.as_str(), c.backend.as_str(), c.size))
                .or_insert(c);
            if measured.insert((&c.algorithm, &c.backend)) {
                first_of.entry(c.algorithm.as_str()).or_insert(pairs.len());
                pairs.push(Pair::of(c));
            }
            sizes.push(c.size);
        }
        sizes.sort_unstable();
        sizes.dedup();
        Index {
            report,
            pairs,
            sizes,
            cells,
            first_of,
            measured,
        }
    }

    /// Pairs in the order the run measured them first.
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Every size with a single-thread measurement, ascending.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    pub fn cell(&self, pair: &Pair, size: usize) -> Option<&'a CellResult> {
        self.cells
            .get(&(pair.algorithm.as_str(), pair.backend.as_str(), size))
            .copied()
    }

    /// The pair this report measured for a line of a chart: a line is an
    /// (algorithm, backend) pair, or an algorithm alone (empty backend)
    /// when the inputs each measured one backend per algorithm, so that a
    /// masked run's sha256 (another backend) is drawn beside the plain run's.
    pub fn line_pair(&self, line: &Pair) -> Option<Pair> {
        if line.backend.is_empty() {
            let first = *self.first_of.get(line.algorithm.as_str())?;
            return Some(self.pairs[first].clone());
        }
        self.measured
            .contains(&(line.algorithm.as_str(), line.backend.as_str()))
            .then(|| line.clone())
    }
}

/// The plain single-thread cells with a throughput: what "speed" means in the
/// charts (the null hasher measures the harness, not a hash, and is left out).
pub fn single_thread(report: &Report) -> impl Iterator<Item = &CellResult> {
    report.cells.iter().filter(|c| {
        #[cfg(debug_assertions)]
        work::visit();
        c.mode == Mode::Streams { threads: 1 }
            && c.algorithm != NULL_ALGORITHM
            && c.throughput.is_some()
    })
}

/// How many cells the page's lookups visit, counted per thread in debug
/// builds (tests/scale.rs): a page's work must grow with its cells, not with
/// their square, and a count says so where a timing would only be flaky.
#[cfg(debug_assertions)]
#[doc(hidden)]
pub mod work {
    use std::cell::Cell;

    thread_local! {
        static VISITS: Cell<u64> = const { Cell::new(0) };
    }

    pub fn visit() {
        VISITS.with(|v| v.set(v.get() + 1));
    }

    /// Visits by `f` on this thread.
    pub fn counted(f: impl FnOnce()) -> u64 {
        let before = VISITS.with(Cell::get);
        f();
        VISITS.with(Cell::get) - before
    }
}

/// Median MB/s of a cell that has a throughput.
pub fn mbps(cell: &CellResult) -> f64 {
    cell.throughput.as_ref().map_or(f64::NAN, |t| t.mb_per_s)
}

/// Whether the lines of a chart over these inputs are algorithms rather than pairs.
pub fn lines_are_algorithms(inputs: &[Index]) -> bool {
    !inputs.iter().any(|i| backends_vary(i.pairs()))
}

/// The lines of a chart over these inputs, in the order the inputs measured them.
pub fn lines(inputs: &[Index]) -> Vec<Pair> {
    let by_algorithm = lines_are_algorithms(inputs);
    let mut seen: HashSet<Pair> = HashSet::new();
    let mut lines: Vec<Pair> = Vec::new();
    for input in inputs {
        for p in input.pairs() {
            let mut p = p.clone();
            if by_algorithm {
                p.backend.clear();
            }
            if seen.insert(p.clone()) {
                lines.push(p);
            }
        }
    }
    lines
}

/// One index for each input.
pub fn indexes(inputs: &[Input]) -> Vec<Index<'_>> {
    inputs.iter().map(|i| Index::of(&i.report)).collect()
}

/// The size the bar, box, backend and scaling charts show: the one asked for,
/// which must have been measured, or else the largest measured (where
/// per-message overhead matters least and throughput is the hash's own).
pub fn chosen_size(input: &Input, requested: Option<usize>) -> Result<usize, ReportError> {
    let index = Index::of(&input.report);
    let measured = index.sizes();
    let Some(&largest) = measured.last() else {
        return Err(ReportError::new(format!(
            "{}: no single-thread measurement to show",
            input.label
        )));
    };
    match requested {
        None => Ok(largest),
        Some(size) if measured.contains(&size) => Ok(size),
        Some(size) => Err(ReportError::SizeNotMeasured {
            size: size_label(size),
            input: input.label.clone(),
            measured: measured.iter().map(|s| size_label(*s)).collect(),
        }),
    }
}

/// The size several inputs are compared at: the requested one, or the largest
/// they all measured.
pub fn common_size(inputs: &[Input], requested: Option<usize>) -> Result<usize, ReportError> {
    for input in inputs {
        chosen_size(input, requested)?;
    }
    if let Some(size) = requested {
        return Ok(size);
    }
    let mut common = Index::of(&inputs[0].report).sizes().to_vec();
    for input in &inputs[1..] {
        let theirs = Index::of(&input.report);
        common.retain(|s| theirs.sizes().binary_search(s).is_ok());
    }
    common.last().copied().ok_or_else(|| {
        ReportError::new(
            "the inputs have no message size in common; choose one with --size".to_string(),
        )
    })
}

/// Pairs ordered fastest first at `size` (pairs not measured there go last).
pub fn by_speed(report: &Index, size: usize) -> Vec<Pair> {
    let mut ranked: Vec<(Pair, f64)> = report
        .pairs()
        .iter()
        .map(|p| {
            let v = report.cell(p, size).map_or(f64::NEG_INFINITY, mbps);
            (p.clone(), v)
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked.into_iter().map(|(p, _)| p).collect()
}

/// A cell's samples as throughputs, and its summary in MB/s.
///
/// The summary's quartiles are of time per message; throughput is size over
/// time, so the slow quartile of throughput is the third quartile of time.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    pub median: f64,
    /// MB/s at the third quartile of time (the slow end of the box).
    pub low_quartile: f64,
    /// MB/s at the first quartile of time.
    pub high_quartile: f64,
    /// Slowest and fastest samples kept by the outlier rule.
    pub slowest: f64,
    pub fastest: f64,
    pub kept: usize,
    pub outliers: usize,
    /// Every raw sample in MB/s, in round order, with whether the outlier rule rejected it.
    pub samples: Vec<(f64, bool)>,
}

pub fn sample_mbps(size: usize, seconds_per_message: f64) -> f64 {
    size as f64 / seconds_per_message / 1e6
}

pub fn spread(cell: &CellResult) -> Option<Spread> {
    let summary = cell.summary.as_ref()?;
    let (low_quartile, high_quartile) = cell.mb_per_s_iqr?;
    if summary.min <= 0.0 {
        return None;
    }
    let samples = cell
        .samples
        .iter()
        .filter(|s| s.is_finite() && **s > 0.0)
        .map(|&s| {
            let rejected = s < summary.min || s > summary.max;
            (sample_mbps(cell.size, s), rejected)
        })
        .collect();
    Some(Spread {
        median: mbps(cell),
        low_quartile,
        high_quartile,
        slowest: sample_mbps(cell.size, summary.max),
        fastest: sample_mbps(cell.size, summary.min),
        kept: summary.n,
        outliers: summary.outliers,
        samples,
    })
}

/// Algorithms measured with more than one backend at `size`, each with its
/// backends fastest first.
pub fn backend_groups(report: &Index, size: usize) -> Vec<(String, Vec<(Pair, f64)>)> {
    let mut groups: Vec<(String, Vec<(Pair, f64)>)> = Vec::new();
    let mut group_of: HashMap<String, usize> = HashMap::new();
    for p in report.pairs() {
        let Some(c) = report.cell(p, size) else {
            continue;
        };
        match group_of.get(&p.algorithm) {
            Some(&g) => groups[g].1.push((p.clone(), mbps(c))),
            None => {
                group_of.insert(p.algorithm.clone(), groups.len());
                groups.push((p.algorithm.clone(), vec![(p.clone(), mbps(c))]));
            }
        }
    }
    groups.retain(|(_, members)| members.len() > 1);
    for (_, members) in &mut groups {
        members.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    groups
}

/// The scaling rows at `size`, in the order of `order`.
pub fn scaling_at<'a>(report: &'a Report, size: usize, order: &[Pair]) -> Vec<&'a Scaling> {
    let mut rows: Vec<&Scaling> = report
        .scaling
        .iter()
        .filter(|s| s.size == size && s.algorithm != NULL_ALGORITHM)
        .collect();
    let places: HashMap<(&str, &str), usize> = order
        .iter()
        .enumerate()
        .rev()
        .map(|(i, p)| ((p.algorithm.as_str(), p.backend.as_str()), i))
        .collect();
    let rank = |s: &Scaling| {
        places
            .get(&(s.algorithm.as_str(), s.backend.as_str()))
            .copied()
            .unwrap_or(usize::MAX)
    };
    rows.sort_by_key(|s| (rank(s), s.threads));
    rows
}

/// The panel of the size chart an algorithm is drawn in, so no panel carries
/// more lines than a reader can tell apart: (order, title).
pub fn panel_of(registry: &Registry, algorithm: &str) -> (u8, &'static str) {
    let Ok(alg) = registry.algorithm(algorithm) else {
        return (13, "Other");
    };
    // Finer where the catalog is large (about 80 entries): by class, lineage,
    // digest size and XOF, all catalog data, so no panel is split arbitrarily.
    let short = alg.output_bits() <= 160;
    match alg.class {
        Class::Cryptographic => match alg.lineage {
            Lineage::MerkleDamgard if short => (0, "Short digests: MD4, MD5, SHA-1, RIPEMD-160"),
            Lineage::MerkleDamgard => (1, "SHA-2 and SM3"),
            // A Keccak XOF's default output is twice its security level.
            Lineage::Keccak if alg.output.is_xof() && alg.output_bits() <= 256 => {
                (3, "Keccak XOFs, 128-bit security")
            }
            Lineage::Keccak if alg.output.is_xof() => (4, "Keccak XOFs, 256-bit security"),
            Lineage::Keccak => (2, "SHA-3 digests"),
            Lineage::Blake => (5, "BLAKE2 and BLAKE3"),
            Lineage::Other => (6, "Other cryptographic hashes"),
        },
        Class::Mac => match alg.lineage {
            Lineage::Keccak => (8, "Keccak MACs: HMAC-SHA3, KMAC"),
            _ => (7, "HMAC over MD and SHA-2 hashes"),
        },
        Class::Keyed => (9, "Keyed hash-table hashes"),
        Class::NonCryptographic if alg.output_bits() == 64 => {
            (10, "64-bit non-cryptographic hashes")
        }
        Class::NonCryptographic => (11, "32- and 128-bit non-cryptographic hashes"),
        Class::Checksum => (12, "Checksums"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_backend_only_where_it_varies() {
        let p = |a: &str, b: &str| Pair {
            algorithm: a.into(),
            backend: b.into(),
        };
        assert!(!backends_vary(&[
            p("sha256", "openssl"),
            p("md5", "openssl")
        ]));
        assert!(backends_vary(&[
            p("sha256", "openssl"),
            p("sha256", "ring")
        ]));
        assert_eq!(p("sha256", "ring").label(true), "sha256 (ring)");
        assert_eq!(p("sha256", "ring").label(false), "sha256");
    }

    #[test]
    fn panels_split_the_registry_into_readable_groups() {
        let registry = Registry::default();
        let mut counts = [0usize; 13];
        for alg in registry.algorithms() {
            counts[panel_of(&registry, &alg.name).0 as usize] += 1;
        }
        assert!(counts.iter().all(|n| *n <= 10), "{counts:?}");
        assert_eq!(
            panel_of(&registry, "kmac128").1,
            "Keccak MACs: HMAC-SHA3, KMAC"
        );
        assert_eq!(
            panel_of(&registry, "k12").1,
            "Keccak XOFs, 128-bit security"
        );
        assert_eq!(panel_of(&registry, "tuplehash256").0, 4);
        assert_eq!(panel_of(&registry, "no-such-hash").1, "Other");
    }
}
