//! Results as plain serde data, and the figures derived from them (speed-up,
//! thread scaling, projections). Schema documented in docs/bench-results.md.

use serde::{Deserialize, Serialize};

use crate::plan::{Budget, CellSpec, Mode};
use crate::runner::RunOutcome;
use crate::stats::{relative_spread, summarize, Summary};

/// Bumped whenever a field changes meaning or disappears.
pub const SCHEMA_VERSION: u32 = 1;

/// A cell's speed in every unit, from the median time per message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    pub bytes_per_second: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    /// 2^20 bytes per second.
    pub mib_per_s: f64,
    pub ns_per_message: f64,
    /// Core cycles per byte at the calibrated clock; absent when no clock could be measured.
    pub cycles_per_byte: Option<f64>,
}

impl Throughput {
    pub fn from_seconds(
        seconds_per_message: f64,
        size: usize,
        clock_hz: Option<f64>,
    ) -> Throughput {
        Self::of_bytes(seconds_per_message, size as f64, clock_hz)
    }

    /// As [`Throughput::from_seconds`] for messages of `size` bytes on average.
    pub fn of_bytes(seconds_per_message: f64, size: f64, clock_hz: Option<f64>) -> Throughput {
        let bps = if seconds_per_message > 0.0 {
            size / seconds_per_message
        } else {
            0.0
        };
        Throughput {
            bytes_per_second: bps,
            mb_per_s: bps / 1e6,
            mib_per_s: bps / (1u64 << 20) as f64,
            ns_per_message: seconds_per_message * 1e9,
            cycles_per_byte: clock_hz
                .filter(|hz| *hz > 0.0)
                .map(|hz| hz * seconds_per_message / size),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    pub algorithm: String,
    pub backend: String,
    pub size: usize,
    pub mode: Mode,
    /// Messages per sample.
    pub batch: u64,
    /// Every raw sample, seconds per message, in round order.
    pub samples: Vec<f64>,
    /// Of the samples, after outlier rejection; `None` if nothing was sampled.
    pub summary: Option<Summary>,
    /// At the median.
    pub throughput: Option<Throughput>,
    /// MB/s at the first and third quartile of time (the slow and fast ends of the IQR).
    pub mb_per_s_iqr: Option<(f64, f64)>,
}

/// A backend left out of the run, and why (unavailable, or it cannot honour the CPU mask).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Excluded {
    pub algorithm: String,
    pub backend: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub sizes: Vec<usize>,
    pub threads: Vec<usize>,
    pub seed: u64,
    pub misalign: usize,
    pub budget: Budget,
    pub latency: bool,
    /// Short keys were measured (`Mode::Keys`); absent in older results.
    #[serde(default)]
    pub keys: bool,
    /// CPU features masked for this run (`--mask-cpu`).
    pub mask: Vec<String>,
    /// The word list of the hash-table cells (`Mode::Table`); absent when
    /// none was measured and in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableWords>,
}

/// The word list a hash-table workload used: enough to tell whether two
/// runs used the same one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableWords {
    pub path: String,
    /// Distinct words.
    pub words: usize,
    /// Their total length in bytes.
    pub bytes: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub rounds: usize,
    pub partial: bool,
    pub elapsed_seconds: f64,
    /// Core clock used for cycles per byte, Hz.
    pub clock_hz: Option<f64>,
}

/// Assembles per-cell results from the runner's raw samples.
pub fn cell_results(
    cells: &[CellSpec],
    outcome: &RunOutcome,
    clock_hz: Option<f64>,
) -> Vec<CellResult> {
    cells
        .iter()
        .zip(&outcome.cells)
        .map(|(spec, raw)| {
            let summary = summarize(&raw.seconds_per_message);
            let bytes = spec.mode.bytes_per_message(spec.size);
            let throughput = summary
                .as_ref()
                .map(|s| Throughput::of_bytes(s.median, bytes, clock_hz));
            let mb_per_s_iqr = summary
                .as_ref()
                .filter(|s| s.q1 > 0.0)
                .map(|s| (bytes / s.q3 / 1e6, bytes / s.q1 / 1e6));
            CellResult {
                algorithm: spec.algorithm.clone(),
                backend: spec.backend.clone(),
                size: spec.size,
                mode: spec.mode,
                batch: raw.batch,
                samples: raw.seconds_per_message.clone(),
                summary,
                throughput,
                mb_per_s_iqr,
            }
        })
        .collect()
}

/// Finds a cell.
pub fn find<'a>(
    cells: &'a [CellResult],
    algorithm: &str,
    backend: &str,
    size: usize,
    mode: Mode,
) -> Option<&'a CellResult> {
    cells.iter().find(|c| {
        c.algorithm == algorithm && c.backend == backend && c.size == size && c.mode == mode
    })
}

fn mbps(cell: Option<&CellResult>) -> Option<f64> {
    cell.and_then(|c| c.throughput.as_ref()).map(|t| t.mb_per_s)
}

/// One row of the thread-scaling table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scaling {
    pub algorithm: String,
    pub backend: String,
    pub size: usize,
    pub threads: usize,
    pub single_mb_per_s: Option<f64>,
    /// Aggregate over `threads` independent streams.
    pub streams_mb_per_s: Option<f64>,
    /// streams / (threads × single).
    pub streams_efficiency: Option<f64>,
    /// One message over `threads` threads; `None` where the backend has no parallel mode ("n/a").
    pub one_stream_mb_per_s: Option<f64>,
    pub one_stream_efficiency: Option<f64>,
}

/// Scaling rows for every thread count above one.
pub fn scaling(cells: &[CellResult], thread_counts: &[usize]) -> Vec<Scaling> {
    let mut rows = Vec::new();
    let singles = cells
        .iter()
        .filter(|c| c.mode == Mode::Streams { threads: 1 });
    for single in singles {
        for &n in thread_counts.iter().filter(|n| **n > 1) {
            let (a, b, s) = (&single.algorithm, &single.backend, single.size);
            let one = mbps(Some(single));
            let streams = mbps(find(cells, a, b, s, Mode::Streams { threads: n }));
            let one_stream = mbps(find(cells, a, b, s, Mode::OneStream { threads: n }));
            let efficiency = |x: Option<f64>| match (x, one) {
                (Some(x), Some(one)) if one > 0.0 => Some(x / (n as f64 * one)),
                _ => None,
            };
            rows.push(Scaling {
                algorithm: a.clone(),
                backend: b.clone(),
                size: s,
                threads: n,
                single_mb_per_s: one,
                streams_mb_per_s: streams,
                streams_efficiency: efficiency(streams),
                one_stream_mb_per_s: one_stream,
                one_stream_efficiency: efficiency(one_stream),
            });
        }
    }
    rows
}

/// Throughput of each single-thread cell relative to the baseline's at the same size.
pub fn speedup(cells: &[CellResult], cell: &CellResult, baseline: &str) -> Option<f64> {
    let base = cells.iter().find(|c| {
        c.algorithm == baseline && c.size == cell.size && c.mode == Mode::Streams { threads: 1 }
    })?;
    match (mbps(Some(cell)), mbps(Some(base))) {
        (Some(x), Some(b)) if b > 0.0 => Some(x / b),
        _ => None,
    }
}

/// Time to hash `bytes` at the largest measured message size, on one core and on all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    pub algorithm: String,
    pub backend: String,
    pub bytes: u64,
    /// The message size whose throughput is used.
    pub at_size: usize,
    pub one_core_seconds: Option<f64>,
    /// Best of the multi-thread modes measured (streams or one-stream).
    pub all_cores_seconds: Option<f64>,
    pub all_cores_threads: Option<usize>,
}

pub fn projections(cells: &[CellResult], bytes: u64) -> Vec<Projection> {
    let mut rows: Vec<Projection> = Vec::new();
    for c in cells
        .iter()
        .filter(|c| c.mode == Mode::Streams { threads: 1 })
    {
        if rows
            .iter()
            .any(|r| r.algorithm == c.algorithm && r.backend == c.backend)
        {
            continue;
        }
        let at_size = cells
            .iter()
            .filter(|x| x.algorithm == c.algorithm && x.backend == c.backend)
            .map(|x| x.size)
            .max()
            .unwrap_or(c.size);
        let one = mbps(find(
            cells,
            &c.algorithm,
            &c.backend,
            at_size,
            Mode::Streams { threads: 1 },
        ));
        let best_multi = cells
            .iter()
            .filter(|x| {
                x.algorithm == c.algorithm
                    && x.backend == c.backend
                    && x.size == at_size
                    && x.mode.threads() > 1
                    && x.mode != Mode::Latency
            })
            .filter_map(|x| mbps(Some(x)).map(|m| (m, x.mode.threads())))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let seconds = |mb_per_s: f64| bytes as f64 / (mb_per_s * 1e6);
        rows.push(Projection {
            algorithm: c.algorithm.clone(),
            backend: c.backend.clone(),
            bytes,
            at_size,
            one_core_seconds: one.map(seconds),
            all_cores_seconds: best_multi.map(|(m, _)| seconds(m)),
            all_cores_threads: best_multi.map(|(_, t)| t),
        });
    }
    rows
}

/// A cell whose first and second halves of samples differ beyond their noise
/// (by `stats::compare`, the one significance test) moved during the run:
/// frequency changes or a neighbour that came or went.
pub fn drift_warning(cells: &[CellResult], min_effect: f64) -> Option<String> {
    let drifted: Vec<String> = cells
        .iter()
        .filter(|c| c.samples.len() >= 10)
        .filter_map(|c| {
            let (first, second) = c.samples.split_at(c.samples.len() / 2);
            let cmp = crate::stats::compare(first, second, min_effect, 1)?;
            cmp.significant
                .then(|| format!("{} ({:+.0} %)", cell_name(c), (cmp.ratio - 1.0) * 100.0))
        })
        .collect();
    if drifted.is_empty() {
        return None;
    }
    const NAMED: usize = 6;
    let more = if drifted.len() > NAMED {
        format!(" and {} more", drifted.len() - NAMED)
    } else {
        String::new()
    };
    Some(format!(
        "{} of {} cells took significantly longer or shorter per message in the second half of the run than in the first (beyond {:.0} %; the machine changed under the run): {}{more}",
        drifted.len(),
        cells.len(),
        min_effect * 100.0,
        drifted[..drifted.len().min(NAMED)].join(", ")
    ))
}

/// A cell as the warnings name it: `sha256/openssl at 64 B`, or where its
/// size is not a message length, what it measured.
fn cell_name(c: &CellResult) -> String {
    let at = match c.mode {
        Mode::Keys { chained: false } => "on short keys".to_string(),
        Mode::Keys { chained: true } => "on chained short keys".to_string(),
        Mode::Table { .. } => "in a hash table".to_string(),
        _ => format!("at {} B", c.size),
    };
    format!("{}/{} {at}", c.algorithm, c.backend)
}

/// Noise warnings: cells whose spread says the numbers are shaky.
pub fn noise_warnings(cells: &[CellResult], threshold: f64) -> Vec<String> {
    let noisy: Vec<String> = cells
        .iter()
        .filter_map(|c| {
            let s = c.summary.as_ref()?;
            let spread = relative_spread(s);
            (spread > threshold).then(|| format!("{} ({:.0} %)", cell_name(c), spread * 100.0))
        })
        .collect();
    if noisy.is_empty() {
        return Vec::new();
    }
    const NAMED: usize = 6;
    let more = if noisy.len() > NAMED {
        format!(" and {} more", noisy.len() - NAMED)
    } else {
        String::new()
    };
    vec![format!(
        "{} of {} cells varied by more than {:.0} % between rounds (IQR/median), so their medians are less certain; a busy neighbour or a changing clock is likely: {}{more}",
        noisy.len(),
        cells.len(),
        threshold * 100.0,
        noisy[..noisy.len().min(NAMED)].join(", ")
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(alg: &str, size: usize, mode: Mode, seconds: f64) -> CellResult {
        CellResult {
            algorithm: alg.into(),
            backend: "b".into(),
            size,
            mode,
            batch: 1,
            samples: vec![seconds; 5],
            summary: summarize(&[seconds; 5]),
            throughput: Some(Throughput::from_seconds(seconds, size, Some(3e9))),
            mb_per_s_iqr: None,
        }
    }

    #[test]
    fn units() {
        let t = Throughput::from_seconds(1e-3, 1_000_000, Some(2e9));
        assert!((t.mb_per_s - 1000.0).abs() < 1e-9);
        assert!((t.mib_per_s - 953.674_316_406_25).abs() < 1e-6);
        assert!((t.ns_per_message - 1e6).abs() < 1e-6);
        assert!((t.cycles_per_byte.unwrap() - 2.0).abs() < 1e-12);
        assert!(Throughput::from_seconds(1.0, 1, None)
            .cycles_per_byte
            .is_none());
    }

    #[test]
    fn scaling_speedup_and_projection() {
        let cells = vec![
            cell("x", 1_000_000, Mode::Streams { threads: 1 }, 1e-3),
            cell("x", 1_000_000, Mode::Streams { threads: 2 }, 0.625e-3),
            cell("x", 1_000_000, Mode::OneStream { threads: 2 }, 0.5e-3),
            cell("base", 1_000_000, Mode::Streams { threads: 1 }, 4e-3),
            cell("y", 1_000_000, Mode::Streams { threads: 1 }, 2e-3),
        ];
        let s = scaling(&cells, &[1, 2]);
        let x = s.iter().find(|r| r.algorithm == "x").unwrap();
        assert!((x.streams_efficiency.unwrap() - 0.8).abs() < 1e-9);
        assert!((x.one_stream_efficiency.unwrap() - 1.0).abs() < 1e-9);
        let y = s.iter().find(|r| r.algorithm == "y").unwrap();
        assert_eq!(y.one_stream_mb_per_s, None, "n/a, not a copied number");
        assert!((speedup(&cells, &cells[0], "base").unwrap() - 4.0).abs() < 1e-9);
        let p = projections(&cells, 150_000_000_000);
        let px = p.iter().find(|r| r.algorithm == "x").unwrap();
        assert!((px.one_core_seconds.unwrap() - 150.0).abs() < 1e-6);
        assert!((px.all_cores_seconds.unwrap() - 75.0).abs() < 1e-6);
        assert_eq!(px.all_cores_threads, Some(2));
    }

    #[test]
    fn drift_between_halves_is_detected() {
        let mut steady = cell("x", 64, Mode::Streams { threads: 1 }, 1.0);
        steady.samples = (0..20).map(|i| 1.0 + (i % 3) as f64 * 0.001).collect();
        assert!(drift_warning(&[steady.clone()], 0.05).is_none());
        let mut slowed = steady;
        for s in slowed.samples[10..].iter_mut() {
            *s *= 1.3;
        }
        let w = drift_warning(&[slowed], 0.05).unwrap();
        assert!(w.contains("x/b at 64 B (+30 %)"), "{w}");
    }

    #[test]
    fn noisy_cells_are_named() {
        let mut c = cell("x", 64, Mode::Streams { threads: 1 }, 1.0);
        c.summary = summarize(&[1.0, 1.5, 2.0, 2.5, 3.0]);
        let w = noise_warnings(&[c], 0.1);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("x/b at 64 B"), "{}", w[0]);
        assert!(noise_warnings(&[cell("x", 64, Mode::Latency, 1.0)], 0.1).is_empty());
    }
}
