//! The whole measurement as one call: select → self-test → plan → run → results.

use std::time::Instant;

use hashlab::Registry;
use serde::{Deserialize, Serialize};

use crate::clock::{calibrate, drifted, ClockCalibration, ClockSource};
use crate::environment::{capture, Environment};
use crate::limits::MeasureError;
use crate::plan::Plan;
use crate::results::{
    cell_results, drift_warning, noise_warnings, projections, scaling, CellResult, Excluded,
    Projection, RunInfo, Scaling, Settings, TableWords, SCHEMA_VERSION,
};
use crate::runner::{run, Measure, Progress, RunOutcome};
use crate::runtimes::{start_runtimes, Runtime, RuntimeStatus, StartedRuntime};
use crate::selection::cells;
use crate::workbench::Workbench;
/// What stops a [`measure`]: the integrity crate's, which a file cell's
/// reading looks at between chunks.
pub use hashlab_integrity::Cancel;

pub use crate::defaults::DEFAULT_SEED;
pub use crate::request::{Request, DEFAULT_SIZES, QUICK_SIZES};

/// Everything a run produced; the JSON output is exactly this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub tool: String,
    pub version: String,
    pub environment: Environment,
    /// The clock measured again after the run, to see whether it moved.
    pub clock_after: Option<ClockCalibration>,
    pub settings: Settings,
    pub run: RunInfo,
    pub cells: Vec<CellResult>,
    pub scaling: Vec<Scaling>,
    pub projections: Vec<Projection>,
    pub excluded: Vec<Excluded>,
    pub warnings: Vec<String>,
    /// What each runtime asked for with `--runtime` offered and why any was
    /// left out; absent in results without runtimes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtimes: Vec<RuntimeStatus>,
}

impl Report {
    /// The runtime whose harness measured rows of `backend` (`go` for
    /// `go crypto/sha256`); `None` for hashlab's own backends.
    pub fn runtime_of(&self, backend: &str) -> Option<&RuntimeStatus> {
        self.runtimes.iter().find(|r| {
            r.overhead_backend.as_deref() == Some(backend)
                || r.libraries.iter().any(|l| l.library == backend)
        })
    }

    /// The ecosystem whose programs get the speed of rows of `backend`, for
    /// another runtime's library (`go` for `go crypto/sha256`).
    pub fn ecosystem_of(&self, backend: &str) -> Option<&str> {
        self.runtimes
            .iter()
            .flat_map(|r| &r.libraries)
            .find(|l| l.library == backend)
            .map(|l| l.ecosystem.as_str())
    }
}

/// Cells whose IQR exceeds this share of the median are called noisy.
pub const NOISE_THRESHOLD: f64 = 0.10;
/// A cell whose second half differs from its first by more than this (and
/// significantly) is reported as drifting.
pub const DRIFT_EFFECT: f64 = 0.05;

/// Runs the request. It is validated first (`Request::validate`), and every
/// backend is checked against its known answer before anything is timed; a
/// wrong digest aborts with an error naming it. The time budget
/// (`budget.max_time`) counts from this call: making the inputs is part of it.
/// Once `stop` is set the run ends with what it measured: it is looked at
/// between samples, and a file cell's sample stops at its next chunk.
pub fn measure(
    registry: &Registry,
    request: &Request,
    stop: &Cancel,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, MeasureError> {
    let started = Instant::now();
    request.validate(registry)?;
    let (mut pairs, mut excluded) = pairs_for(registry, request).map_err(|e| e.to_string())?;
    let mut notes = Vec::new();
    if !request.mask.is_empty() {
        crate::mask::validate(&request.mask)?;
        let masked = crate::mask::apply(registry, &pairs, &request.mask);
        if masked.needs_openssl_env {
            let wanted = crate::mask::openssl_ia32cap(&request.mask)?;
            match std::env::var("OPENSSL_ia32cap") {
                Ok(set) if set == wanted => notes.push(format!(
                    "CPU mask {}: OpenSSL ran with OPENSSL_ia32cap={wanted}; backends that cannot be told are left out",
                    request.mask.join(",")
                )),
                _ => {
                    return Err(MeasureError::Failed(format!(
                        "the CPU mask needs this process started with OPENSSL_ia32cap={wanted} (hashlab bench does that itself)"
                    )))
                }
            }
        }
        pairs = masked.kept;
        excluded.extend(masked.excluded);
    }
    if pairs.is_empty() {
        return Err(MeasureError::Failed(
            "nothing to measure: no selected backend is available".into(),
        ));
    }
    for (alg, backend) in &pairs {
        registry
            .self_test(alg, backend)
            .map_err(|e| e.to_string())?;
    }
    let mut plan = plan(registry, request, &pairs);
    let mut bench = Workbench::new(registry, request.seed, request.misalign);
    bench.allocate_inputs(&plan.cells)?;
    let (mut harnesses, runtime_statuses) = if request.runtimes.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        let mut algorithms: Vec<String> = Vec::new();
        for (alg, _) in &pairs {
            if !algorithms.contains(alg) {
                algorithms.push(alg.clone());
            }
        }
        start_runtimes(
            registry,
            &request.runtimes,
            &algorithms,
            &request.runtime_options,
        )
    };
    for status in &runtime_statuses {
        for library in &status.libraries {
            if library.state == crate::runtimes::LibraryState::WrongDigest {
                excluded.push(Excluded {
                    algorithm: library.algorithms.join(","),
                    backend: library.library.clone(),
                    reason: format!("wrong digest, left out: {}", library.detail),
                });
            }
        }
    }
    plan.cells.extend(runtime_cells(
        &harnesses,
        &request.selection.distinct_sizes(),
    ));
    let clock_before = calibrate(request.clock_budget);
    let clock_hz = (clock_before.source == ClockSource::DependentAddChain && clock_before.hz > 0.0)
        .then_some(clock_before.hz);
    let environment = capture(
        request.command_line.clone(),
        request.mask.clone(),
        clock_before.clone(),
    );
    if let Some(file) = &request.selection.file {
        bench = bench.with_file(file.path.clone()).with_cancel(stop.clone());
    }
    if let Some(words) = &request.selection.table {
        bench = bench.with_words(words.clone());
    }
    if let Some(cpu) = request.pin {
        bench = bench.with_pin(cpu)?;
    }
    plan.budget.max_time = plan.budget.max_time.saturating_sub(started.elapsed());
    let outcome = if harnesses.is_empty() {
        run(&plan, &mut bench, stop.flag(), progress)?
    } else {
        let mut mixed = WithRuntimes::new(&mut bench, &mut harnesses);
        run(&plan, &mut mixed, stop.flag(), progress)?
    };
    let cells = cell_results(&plan.cells, &outcome, clock_hz);
    let clock_after = clock_hz.map(|_| calibrate(request.clock_budget / 2));
    let mut warnings = notes;
    warnings.extend(bench.notes());
    if let Some(after) = &clock_after {
        warnings.extend(drifted(&clock_before, after));
    }
    warnings.extend(noise_warnings(&cells, NOISE_THRESHOLD));
    warnings.extend(drift_warning(&cells, DRIFT_EFFECT));
    if outcome.partial {
        warnings.push(format!(
            "interrupted: results are partial ({} complete round(s))",
            outcome.rounds
        ));
    } else {
        warnings.extend(budget_warnings(request, &outcome));
    }
    let mut thread_counts = request.selection.threads.clone();
    thread_counts.sort_unstable();
    thread_counts.dedup();
    Ok(Report {
        schema_version: SCHEMA_VERSION,
        tool: "hashlab".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        environment,
        clock_after,
        settings: Settings {
            sizes: request.selection.distinct_sizes(),
            threads: thread_counts.clone(),
            seed: request.seed,
            misalign: request.misalign,
            budget: request.budget.clone(),
            latency: request.selection.latency,
            keys: request.selection.keys,
            mask: request.mask.clone(),
            table: request.selection.table.as_ref().map(|w| TableWords {
                path: w.path().display().to_string(),
                words: w.len(),
                bytes: w.total_bytes(),
            }),
        },
        run: RunInfo {
            rounds: outcome.rounds,
            partial: outcome.partial,
            elapsed_seconds: outcome.elapsed.as_secs_f64(),
            clock_hz,
        },
        scaling: scaling(&cells, &thread_counts),
        projections: request
            .project
            .map(|b| projections(&cells, b))
            .unwrap_or_default(),
        cells,
        excluded,
        warnings,
        runtimes: runtime_statuses,
    })
}

/// One cell per size for each pair a runtime's harness passed, its null
/// hasher included: single-thread messages in memory, as the Rust rows.
fn runtime_cells(started: &[StartedRuntime], sizes: &[usize]) -> Vec<crate::plan::CellSpec> {
    let mut cells = Vec::new();
    for runtime in started {
        for (algorithm, library) in &runtime.pairs {
            for &size in sizes {
                cells.push(crate::plan::CellSpec {
                    algorithm: algorithm.clone(),
                    backend: library.clone(),
                    size,
                    mode: crate::plan::Mode::Streams { threads: 1 },
                });
            }
        }
    }
    cells
}

/// Routes each cell to hashlab's own workbench or to the harness that
/// measures it, so the runner's shuffled rounds interleave both: whatever
/// drift the machine has hits the runtimes and the Rust backends alike.
struct WithRuntimes<'b, 'r> {
    own: &'b mut Workbench<'r>,
    runtimes: &'b mut [StartedRuntime],
    /// Cell index → the runtime measuring it.
    routes: std::collections::HashMap<usize, usize>,
    /// The (runtime, algorithm, library) whose code a JIT has compiled.
    warmed: std::collections::HashSet<(usize, String, String)>,
}

/// Java's and Node's JITs compile a hot loop after thousands of calls: each
/// pair's first cell is run this long before the runner's own warm-up, so
/// the samples time compiled code (a long-running service's speed).
const JIT_WARMUP: std::time::Duration = std::time::Duration::from_millis(200);

impl<'b, 'r> WithRuntimes<'b, 'r> {
    fn new(own: &'b mut Workbench<'r>, runtimes: &'b mut [StartedRuntime]) -> Self {
        WithRuntimes {
            own,
            runtimes,
            routes: std::collections::HashMap::new(),
            warmed: std::collections::HashSet::new(),
        }
    }
}

impl Measure for WithRuntimes<'_, '_> {
    fn prepare(&mut self, index: usize, cell: &crate::plan::CellSpec) -> Result<(), String> {
        let pair = (cell.algorithm.clone(), cell.backend.clone());
        let Some(r) = self.runtimes.iter().position(|s| s.pairs.contains(&pair)) else {
            return self.own.prepare(index, cell);
        };
        self.routes.insert(index, r);
        let runtime = &mut self.runtimes[r];
        let name = runtime.runtime.name();
        let harness = &mut runtime.harness;
        harness
            .prepare(index, &cell.algorithm, &cell.backend, cell.size)
            .map_err(|e| format!("{name} harness: {e}"))?;
        let jit = matches!(runtime.runtime, Runtime::Java | Runtime::Node);
        if jit && self.warmed.insert((r, pair.0, pair.1)) {
            let start = std::time::Instant::now();
            let mut batch = 1u64;
            while start.elapsed() < JIT_WARMUP {
                let took = harness
                    .time(index, batch)
                    .map_err(|e| format!("{name} harness: {e}"))?;
                if took < std::time::Duration::from_millis(10) {
                    batch = batch.saturating_mul(2);
                }
            }
        }
        Ok(())
    }

    fn sample(&mut self, index: usize, batch: u64) -> Result<std::time::Duration, String> {
        match self.routes.get(&index) {
            Some(&r) => {
                let runtime = &mut self.runtimes[r];
                let name = runtime.runtime.name();
                runtime
                    .harness
                    .time(index, batch)
                    .map_err(|e| format!("{name} harness: {e}"))
            }
            None => self.own.sample(index, batch),
        }
    }

    fn notes(&self) -> Vec<String> {
        self.own.notes()
    }
}

/// What the time budget cut short: fewer rounds than wanted.
fn budget_warnings(request: &Request, outcome: &RunOutcome) -> Vec<String> {
    let budget = &request.budget;
    if outcome.rounds < budget.min_rounds && outcome.rounds < budget.max_rounds {
        vec![format!(
            "the time budget of {} s allowed {} round(s), fewer than the {} wanted: the medians rest on fewer samples",
            budget.max_time.as_secs_f64(),
            outcome.rounds,
            budget.min_rounds
        )]
    } else {
        Vec::new()
    }
}

/// The plan a request turns into (exposed so a caller can show an estimate first).
pub fn plan(registry: &Registry, request: &Request, pairs: &[(String, String)]) -> Plan {
    Plan {
        cells: cells(registry, pairs, &request.selection),
        budget: request.budget.clone(),
        seed: request.seed,
        misalign: request.misalign,
    }
}

/// The selected pairs, with default backends chosen as on a CPU without the
/// request's masked features (a masked sha256 run measures what a CPU without
/// SHA-NI would use, not nothing).
pub fn pairs_for(
    registry: &Registry,
    request: &Request,
) -> Result<(Vec<crate::selection::Pair>, Vec<Excluded>), hashlab::HashError> {
    let has = |feature: &str| {
        hashlab::cpu::has(feature) && !request.mask.iter().any(|m| m.eq_ignore_ascii_case(feature))
    };
    crate::selection::pairs_on(registry, &request.selection, &has)
}

/// The plan for a request, without running it.
pub fn plan_for(registry: &Registry, request: &Request) -> Result<Plan, String> {
    let (pairs, _) = pairs_for(registry, request).map_err(|e| e.to_string())?;
    Ok(plan(registry, request, &pairs))
}
