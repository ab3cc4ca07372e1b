//! Measured speeds, read from a `hashlab bench --json` report: which cell
//! answers "how fast is X at size S", and which code path it measured.

use std::path::Path;

use hashlab::dispatch::{self, CpuProfile};
use hashlab_bench::environment::Environment;
use hashlab_bench::plan::Mode;
use hashlab_bench::report::Report;
use hashlab_bench::results::SCHEMA_VERSION;
use serde::Serialize;

/// Reads a report written by `hashlab bench --json`, read from `path` by
/// the caller (with the bounds it reads every file a user passes with).
pub fn load_report(path: &Path, bytes: &[u8]) -> Result<Report, String> {
    let name = path.display();
    let report: Report = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "{name}: not a hashlab bench JSON report (line {}, column {}: {e})",
            e.line(),
            e.column()
        )
    })?;
    if report.schema_version != SCHEMA_VERSION {
        return Err(format!(
            "{name}: results schema {} (this hashlab reads schema {SCHEMA_VERSION})",
            report.schema_version
        ));
    }
    Ok(report)
}

/// One algorithm's single-thread speed at (or nearest to) a size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    pub algorithm: String,
    pub backend: String,
    /// The size the speed was measured at.
    pub size: usize,
    /// The size asked for; differs from `size` when the report had no cell there.
    pub requested_size: usize,
    pub mb_per_s: f64,
    /// MB/s at the slow and fast ends of the interquartile range.
    pub mb_per_s_iqr: Option<(f64, f64)>,
    /// The SIMD path the backend takes on the measured CPU, and why.
    pub path: Option<dispatch::ChosenPath>,
}

/// The CPU a report was measured on, as `hashlab::dispatch` describes CPUs:
/// its features less any masked for the run.
pub fn measured_cpu(env: &Environment) -> CpuProfile {
    let arch = env.target.split('-').next().unwrap_or("").to_string();
    let here = CpuProfile::here();
    CpuProfile {
        features: env
            .cpu_features
            .iter()
            .filter(|f| !env.cpu_mask.iter().any(|m| m.eq_ignore_ascii_case(f)))
            .cloned()
            .collect(),
        // Reports do not record compile-time features; a report from this
        // architecture was built like this binary.
        compiled_for: if arch == here.arch {
            here.compiled_for
        } else {
            Vec::new()
        },
        intel: env.cpu_vendor == "GenuineIntel",
        arch,
    }
}

/// The single-thread speed of `algorithm` at `size`, from the report's cells:
/// the exact size if measured, else the nearest measured size (by ratio; a tie
/// goes to the smaller size), the fastest backend there. `None` when the
/// report has no single-thread cell of the algorithm with a result.
pub fn speed_at(
    registry: &hashlab::Registry,
    report: &Report,
    algorithm: &str,
    size: usize,
) -> Option<Measured> {
    speed_in(
        registry,
        report,
        algorithm,
        size,
        Mode::Streams { threads: 1 },
        &|backend| report.runtime_of(backend).is_none(),
    )
}

/// As [`speed_at`], from the rows `bench --runtime` measured in the runtime
/// libraries of `ecosystem` (`go`, `python`, `node`, `java`, `libgcrypt`,
/// `nettle`): the fastest there. `None` when no such row was measured.
pub fn runtime_speed_at(
    registry: &hashlab::Registry,
    report: &Report,
    algorithm: &str,
    size: usize,
    ecosystem: &str,
) -> Option<Measured> {
    speed_in(
        registry,
        report,
        algorithm,
        size,
        Mode::Streams { threads: 1 },
        &|backend| report.ecosystem_of(backend) == Some(ecosystem),
    )
}

/// Its speed on short keys of random length (`bench --keys`), one hash
/// each, on its fastest backend: what a hash table's cost is.
pub fn short_keys_speed(
    registry: &hashlab::Registry,
    report: &Report,
    algorithm: &str,
) -> Option<Measured> {
    let size = hashlab_bench::selection::KEYS_MAX_LEN;
    speed_in(
        registry,
        report,
        algorithm,
        size,
        Mode::Keys { chained: false },
        &|_| true,
    )
}

fn speed_in(
    registry: &hashlab::Registry,
    report: &Report,
    algorithm: &str,
    size: usize,
    mode: Mode,
    rows: &dyn Fn(&str) -> bool,
) -> Option<Measured> {
    let cells: Vec<_> = report
        .cells
        .iter()
        .filter(|c| {
            c.algorithm == algorithm && c.mode == mode && c.throughput.is_some() && rows(&c.backend)
        })
        .collect();
    let distance = |s: usize| ((s as f64).log2() - (size as f64).log2()).abs();
    let nearest = cells
        .iter()
        .map(|c| c.size)
        .min_by(|a, b| distance(*a).total_cmp(&distance(*b)).then(a.cmp(b)))?;
    let best = cells.iter().filter(|c| c.size == nearest).max_by(|a, b| {
        let speed = |c: &&&hashlab_bench::results::CellResult| {
            c.throughput.as_ref().map_or(0.0, |t| t.mb_per_s)
        };
        speed(a).total_cmp(&speed(b))
    })?;
    let cpu = measured_cpu(&report.environment);
    Some(Measured {
        algorithm: algorithm.to_string(),
        backend: best.backend.clone(),
        size: best.size,
        requested_size: size,
        mb_per_s: best.throughput.as_ref().map_or(0.0, |t| t.mb_per_s),
        mb_per_s_iqr: best.mb_per_s_iqr,
        path: registry
            .backend(algorithm, &best.backend)
            .ok()
            .and_then(|b| dispatch::choose(b, &cpu)),
    })
}

/// "1,789" for 1789.4; one decimal below 100 ("64.5").
pub fn group_thousands(value: f64) -> String {
    if value < 100.0 {
        return format!("{value:.1}");
    }
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(1789.4), "1,789");
        assert_eq!(group_thousands(56509.0), "56,509");
        assert_eq!(group_thousands(123456789.0), "123,456,789");
        assert_eq!(group_thousands(640.0), "640");
        assert_eq!(group_thousands(64.54), "64.5");
    }
}
