//! The sampling loop: batch calibration, warm-up, then interleaved rounds in a
//! shuffled order so drift and noisy neighbours affect every cell alike.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::plan::{CellSpec, Plan};
use crate::stats::{summarize, SplitMix64};

/// Something that can time cells. The real one hashes; tests use a mock.
pub trait Measure {
    /// Readies cell `index` (hashers, inputs, thread pools). Called once per cell, in order.
    fn prepare(&mut self, index: usize, cell: &CellSpec) -> Result<(), String>;
    /// Hashes `batch` messages of cell `index` and returns how long that took.
    fn sample(&mut self, index: usize, batch: u64) -> Result<Duration, String>;
    /// Things learnt while measuring that a reader should know (e.g. whether
    /// dropping a file's cached pages worked).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Where the run is, for a progress bar.
#[derive(Debug, Clone)]
pub struct Progress {
    pub phase: Phase,
    pub done: usize,
    pub total: usize,
    pub elapsed: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    WarmUp,
    Rounds,
}

/// One cell's raw result: seconds per message, one entry per round.
#[derive(Debug, Clone, PartialEq)]
pub struct CellSamples {
    pub batch: u64,
    pub seconds_per_message: Vec<f64>,
}

#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The plan's cells, or its first ones when stopped while warming up.
    pub cells: Vec<CellSamples>,
    pub rounds: usize,
    /// Stopped early (Ctrl-C): what was measured is kept.
    pub partial: bool,
    pub elapsed: Duration,
}

/// Past the time budget, the rounds still missing to `min_rounds` run when
/// they are projected to end within this much more: cheap rounds (small
/// messages) keep their statistics, expensive ones (multi-GiB messages,
/// large files) do not hold the run.
pub const MIN_ROUNDS_GRACE: Duration = Duration::from_secs(1);

/// Keeps the shuffle stream apart from the input bytes, which use the same seed.
const ORDER_SALT: u64 = 0x0bde_5eed_0f5a_3b1e;

fn seconds_per_message(d: Duration, batch: u64, cell: &CellSpec) -> f64 {
    // Streams: `threads` threads each hashed `batch` messages in that time.
    d.as_secs_f64() / (batch as f64 * cell.mode.threads().max(1) as f64)
}

/// Runs `plan` through `measure`. `stop` is checked between samples (Ctrl-C).
///
/// `budget.max_time` bounds the run, but every cell is measured: once the
/// budget is spent, the cells still to warm up are only calibrated (their
/// batch size found, no further warm-up), the first round always completes,
/// and no later sample starts, except that rounds up to `min_rounds` still
/// run when they are projected to end within [`MIN_ROUNDS_GRACE`] of the
/// budget. A run therefore ends within one sample of the budget (or that
/// grace, for cheap rounds), or after one calibration and one sample of every
/// cell when those take longer (one message at multi-GiB sizes or of a large
/// file takes seconds). A round cut short by the budget is dropped, so every
/// cell keeps the same number of samples, even when that is fewer than
/// `min_rounds`.
pub fn run(
    plan: &Plan,
    measure: &mut dyn Measure,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<RunOutcome, String> {
    let start = Instant::now();
    let out_of_time = || start.elapsed() >= plan.budget.max_time;
    let n = plan.cells.len();
    let mut cells = Vec::with_capacity(n);
    for (i, cell) in plan.cells.iter().enumerate() {
        measure.prepare(i, cell)?;
        let warmup = if out_of_time() {
            Duration::ZERO
        } else {
            plan.budget.warmup
        };
        cells.push(CellSamples {
            batch: warm_up(measure, i, &plan.budget.min_sample, warmup, stop)?,
            seconds_per_message: Vec::new(),
        });
        progress(&Progress {
            phase: Phase::WarmUp,
            done: i + 1,
            total: n,
            elapsed: start.elapsed(),
        });
        if stop.load(Ordering::Relaxed) {
            return Ok(RunOutcome {
                cells,
                rounds: 0,
                partial: true,
                elapsed: start.elapsed(),
            });
        }
    }
    let mut rng = SplitMix64(plan.seed ^ ORDER_SALT);
    let mut order: Vec<usize> = (0..n).collect();
    let mut rounds = 0;
    let mut partial = false;
    let rounds_start = Instant::now();
    'rounds: while rounds < plan.budget.max_rounds {
        // Past the budget, a round runs only toward the minimum, and only
        // when the rounds left are projected to end within the grace.
        let may_overrun = rounds == 0
            || (rounds < plan.budget.min_rounds && {
                let per_round = rounds_start.elapsed() / rounds as u32;
                let left = (plan.budget.min_rounds - rounds) as u32;
                per_round.checked_mul(left).is_some_and(|rest| {
                    start.elapsed() + rest <= plan.budget.max_time.saturating_add(MIN_ROUNDS_GRACE)
                })
            });
        if !may_overrun && out_of_time() {
            break;
        }
        rng.shuffle(&mut order);
        let mut this_round = vec![None; n];
        for &i in &order {
            if stop.load(Ordering::Relaxed) {
                partial = true;
                break 'rounds;
            }
            if !may_overrun && out_of_time() {
                break 'rounds;
            }
            let d = measure.sample(i, cells[i].batch)?;
            this_round[i] = Some(seconds_per_message(d, cells[i].batch, &plan.cells[i]));
        }
        // A round counts only when complete, so every cell has the same number of samples.
        for (cell, s) in cells.iter_mut().zip(this_round) {
            cell.seconds_per_message
                .push(s.ok_or("a cell was not sampled in a complete round")?);
        }
        rounds += 1;
        progress(&Progress {
            phase: Phase::Rounds,
            done: rounds,
            total: plan.budget.max_rounds,
            elapsed: start.elapsed(),
        });
        if rounds >= plan.budget.min_rounds
            && (out_of_time() || precise_enough(&cells, plan.budget.target_precision))
        {
            break;
        }
    }
    Ok(RunOutcome {
        cells,
        rounds,
        partial,
        elapsed: start.elapsed(),
    })
}

/// Finds a batch size whose sample lasts at least `min_sample`, then keeps
/// sampling until `warmup` has passed (caches, branch predictors, clock boost).
/// Ends early once `stop` is set: a sample it cut short says nothing of the
/// batch a full one needs.
fn warm_up(
    measure: &mut dyn Measure,
    i: usize,
    min_sample: &Duration,
    warmup: Duration,
    stop: &AtomicBool,
) -> Result<u64, String> {
    let mut batch: u64 = 1;
    let mut spent = Duration::ZERO;
    loop {
        let d = measure.sample(i, batch)?;
        spent += d;
        if d >= *min_sample || stop.load(Ordering::Relaxed) {
            break;
        }
        let grow = if d.is_zero() {
            16.0
        } else {
            (min_sample.as_secs_f64() / d.as_secs_f64() * 1.25).clamp(2.0, 16.0)
        };
        batch = ((batch as f64) * grow).ceil() as u64;
    }
    while spent < warmup && !stop.load(Ordering::Relaxed) {
        spent += measure.sample(i, batch)?;
    }
    Ok(batch)
}

fn precise_enough(cells: &[CellSamples], target: f64) -> bool {
    cells
        .iter()
        .all(|c| match summarize(&c.seconds_per_message) {
            Some(s) if s.median > 0.0 => s.iqr / s.median / (s.n as f64).sqrt() <= target,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Budget, Mode};

    /// A mock: every sample "takes" 10 µs per message plus a little per cell,
    /// and the order of calls is recorded.
    struct Mock {
        prepared: Vec<usize>,
        calls: Vec<(usize, u64)>,
        fail_on: Option<usize>,
        /// Real time each sample takes, for the time budget.
        sleep: Duration,
    }

    impl Measure for Mock {
        fn prepare(&mut self, index: usize, _cell: &CellSpec) -> Result<(), String> {
            if self.fail_on == Some(index) {
                return Err(format!("cell {index} is broken"));
            }
            self.prepared.push(index);
            Ok(())
        }
        fn sample(&mut self, index: usize, batch: u64) -> Result<Duration, String> {
            self.calls.push((index, batch));
            std::thread::sleep(self.sleep);
            Ok(Duration::from_nanos(batch * (10_000 + index as u64 * 100)))
        }
    }

    fn plan(cells: usize, rounds: usize) -> Plan {
        Plan {
            cells: (0..cells)
                .map(|i| CellSpec {
                    algorithm: format!("alg{i}"),
                    backend: "b".into(),
                    size: 64,
                    mode: Mode::Streams { threads: 1 },
                })
                .collect(),
            budget: Budget {
                warmup: Duration::from_micros(100),
                min_sample: Duration::from_millis(1),
                min_rounds: rounds,
                max_rounds: rounds,
                max_time: Duration::from_secs(3600),
                target_precision: 0.0,
            },
            seed: 1,
            misalign: 0,
        }
    }

    fn mock() -> Mock {
        Mock {
            prepared: vec![],
            calls: vec![],
            fail_on: None,
            sleep: Duration::ZERO,
        }
    }

    #[test]
    fn every_cell_is_sampled_once_per_round_in_shuffled_order() {
        let p = plan(8, 6);
        let mut m = mock();
        let out = run(&p, &mut m, &AtomicBool::new(false), &mut |_| {}).unwrap();
        assert_eq!(out.rounds, 6);
        assert!(!out.partial);
        assert_eq!(m.prepared, (0..8).collect::<Vec<_>>());
        // The calls after warm-up are the rounds: 6 rounds of 8.
        let warmup_calls = m.calls.len() - 6 * 8;
        let rounds: Vec<Vec<usize>> = m.calls[warmup_calls..]
            .chunks(8)
            .map(|r| r.iter().map(|(i, _)| *i).collect())
            .collect();
        for r in &rounds {
            let mut sorted = r.clone();
            sorted.sort();
            assert_eq!(
                sorted,
                (0..8).collect::<Vec<_>>(),
                "each cell exactly once per round"
            );
        }
        let distinct: std::collections::HashSet<_> = rounds.iter().collect();
        assert!(distinct.len() > 1, "order is shuffled between rounds");
        assert_ne!(rounds[0], (0..8).collect::<Vec<_>>(), "not the plan order");
        for c in &out.cells {
            assert_eq!(c.seconds_per_message.len(), 6);
        }
    }

    #[test]
    fn batches_make_samples_long_enough_and_results_are_per_message() {
        let p = plan(2, 3);
        let mut m = mock();
        let out = run(&p, &mut m, &AtomicBool::new(false), &mut |_| {}).unwrap();
        for (i, c) in out.cells.iter().enumerate() {
            // 10 µs per message: a 1 ms sample needs a batch of at least 100.
            assert!(c.batch >= 100, "batch {}", c.batch);
            let expected = (10_000.0 + i as f64 * 100.0) * 1e-9;
            for s in &c.seconds_per_message {
                assert!((s - expected).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn stop_flag_keeps_what_was_measured() {
        let p = plan(3, 50);
        let mut m = mock();
        let stop = AtomicBool::new(false);
        let mut seen = 0;
        let out = run(&p, &mut m, &stop, &mut |prog| {
            if prog.phase == Phase::Rounds {
                seen += 1;
                if seen == 4 {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        })
        .unwrap();
        assert!(out.partial);
        assert_eq!(out.rounds, 4);
        assert!(out.cells.iter().all(|c| c.seconds_per_message.len() == 4));
    }

    #[test]
    fn the_time_budget_ends_rounds_before_the_minimum() {
        let mut p = plan(3, 50);
        p.budget.max_rounds = 1000;
        p.budget.max_time = Duration::from_millis(200);
        let mut m = mock();
        m.sleep = Duration::from_millis(20);
        let out = run(&p, &mut m, &AtomicBool::new(false), &mut |_| {}).unwrap();
        // Warm-up (three 20 ms samples per cell) and rounds of 60 ms leave
        // room for at most 2 rounds in 200 ms, and the 48 more wanted would
        // take far longer than the grace.
        assert!((1..=2).contains(&out.rounds), "{} rounds", out.rounds);
        assert!(!out.partial);
        assert!(out
            .cells
            .iter()
            .all(|c| c.seconds_per_message.len() == out.rounds));
    }

    #[test]
    fn past_the_budget_cells_are_only_calibrated_and_one_round_completes() {
        let mut p = plan(4, 7);
        p.budget.max_time = Duration::from_millis(30);
        p.budget.warmup = Duration::from_millis(3);
        let mut m = mock();
        m.sleep = Duration::from_millis(50);
        let out = run(&p, &mut m, &AtomicBool::new(false), &mut |_| {}).unwrap();
        // Calibration takes three samples per cell (batches 1, 16, then about
        // 125 of the mock's 10 µs messages) and the 3 ms warm-up two more
        // (1.25 ms each): five for the first cell, which spends the budget in
        // real time; the others are only calibrated, and the round after the
        // first is not started: six more rounds of 200 ms exceed the grace.
        assert_eq!(m.prepared, vec![0, 1, 2, 3], "every cell is measured");
        assert_eq!(m.calls.len(), 5 + 3 * 3 + 4);
        assert_eq!(out.rounds, 1, "the first round always completes");
        assert!(out.cells.iter().all(|c| c.seconds_per_message.len() == 1));
    }

    #[test]
    fn cheap_rounds_reach_the_minimum_past_the_budget() {
        let mut p = plan(2, 5);
        p.budget.max_rounds = 1000;
        p.budget.max_time = Duration::from_millis(1);
        let mut m = mock();
        m.sleep = Duration::from_millis(1);
        let out = run(&p, &mut m, &AtomicBool::new(false), &mut |_| {}).unwrap();
        // Rounds of about 2 ms: the five wanted fit well within the grace,
        // and none is started beyond them.
        assert_eq!(out.rounds, 5);
    }

    #[test]
    fn a_cell_that_cannot_be_prepared_aborts_the_run() {
        let p = plan(3, 2);
        let mut m = mock();
        m.fail_on = Some(1);
        let err = run(&p, &mut m, &AtomicBool::new(false), &mut |_| {}).unwrap_err();
        assert_eq!(err, "cell 1 is broken");
    }

    #[test]
    fn streams_divide_by_the_thread_count() {
        let cell = CellSpec {
            algorithm: "a".into(),
            backend: "b".into(),
            size: 1,
            mode: Mode::Streams { threads: 2 },
        };
        assert_eq!(seconds_per_message(Duration::from_secs(4), 2, &cell), 1.0);
    }
}
