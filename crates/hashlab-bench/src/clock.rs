//! The core clock frequency, measured without performance counters.
//!
//! # Method
//!
//! A chain of dependent integer adds — each `add` takes the result of the one
//! before it — runs at exactly one add per cycle on every x86_64 and aarch64
//! core: an integer add has a latency of one cycle, and no issue width can
//! overlap adds that wait on each other. So `n` adds take `n` core cycles, and
//! timing the chain with the monotonic clock (`Instant`) gives cycles per
//! second at whatever frequency the core runs right now, turbo included, where
//! `/proc/cpuinfo` only reports a nominal or last-sampled value.
//!
//! The loop body is 32 adds written out in inline assembly, so the compiler
//! cannot fold or vectorise them; the loop counter and branch do not depend on
//! the chain and execute in its shadow. The addend is a register, not an
//! immediate, so the chain stays a chain of real additions.
//!
//! Before measuring, the chain runs for a fifth of the budget, so that a core
//! that raises its clock under load has done so. The rest of the budget is
//! spent on short trials (a few milliseconds each). Interference — an
//! interrupt, a neighbour preempting us, a hypervisor taking the core — can only
//! make a trial slower, never faster, so the estimate is a high percentile
//! (the 90th) of the per-trial frequencies rather than their mean; the
//! percentile rather than the maximum keeps one misread timer from deciding the
//! result. The spread is how far the median trial fell short of that estimate:
//! near zero on a quiet core, large when something else is competing for it.
//!
//! On other architectures nothing is measured: the source is
//! [`ClockSource::Unavailable`] and the frequency 0.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How the frequency was obtained.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ClockSource {
    /// Timed chains of dependent adds, one cycle each.
    DependentAddChain,
    /// Not measured: this architecture has no add-chain implementation.
    Unavailable,
}

/// A measured core clock frequency and the trials behind it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ClockCalibration {
    /// Core cycles per second; 0 when `source` is `Unavailable`.
    pub hz: f64,
    pub source: ClockSource,
    /// Each trial's frequency in Hz, in the order they ran.
    pub trials: Vec<f64>,
    /// `(hz - median trial) / hz`: 0 when every trial ran at full speed.
    pub spread: f64,
}

/// Frequencies that differ by more than this fraction count as a drift.
pub const DRIFT_THRESHOLD: f64 = 0.05;
/// A spread above this fraction means the core was not ours alone.
pub const SPREAD_THRESHOLD: f64 = 0.05;

/// Adds per loop iteration: enough that the loop's own counter and branch
/// hide under the chain.
const ADDS_PER_ITERATION: u64 = 32;
/// Trials at least this long keep the timer's own cost (tens of nanoseconds)
/// below 0.01 % of a trial.
const SHORTEST_TRIAL: Duration = Duration::from_micros(500);
/// Trials at most this long leave most of them untouched by a 4 ms scheduler tick.
const LONGEST_TRIAL: Duration = Duration::from_millis(5);
/// Enough trials for a 90th percentile that is not simply the maximum.
const MIN_TRIALS: usize = 10;
/// Keeps a report's list of trials short.
const MAX_TRIALS: usize = 200;
const PERCENTILE: f64 = 0.90;
/// The longest budget a calibration takes; a longer one is cut to this. A
/// fifth of it warms up and at most `MAX_TRIALS` short trials follow, so more
/// would only lengthen the warm-up.
pub const MAX_BUDGET: Duration = Duration::from_secs(60);

/// Runs `iterations` rounds of `ADDS_PER_ITERATION` dependent adds and returns
/// the sum, which is `iterations * ADDS_PER_ITERATION` when the chain ran whole.
#[cfg(target_arch = "x86_64")]
fn dependent_adds(iterations: u64) -> u64 {
    let mut sum: u64 = 0;
    let addend: u64 = std::hint::black_box(1);
    // SAFETY: register arithmetic only; no memory, no stack. The loop ends
    // because `left` starts at 1 or more and falls by one per round.
    unsafe {
        std::arch::asm!(
            "2:",
            ".rept {adds}",
            "add {sum}, {addend}",
            ".endr",
            "sub {left}, 1",
            "jnz 2b",
            adds = const ADDS_PER_ITERATION,
            sum = inout(reg) sum,
            addend = in(reg) addend,
            left = inout(reg) iterations.max(1) => _,
            options(nomem, nostack),
        );
    }
    sum
}

/// Runs `iterations` rounds of `ADDS_PER_ITERATION` dependent adds and returns
/// the sum, which is `iterations * ADDS_PER_ITERATION` when the chain ran whole.
#[cfg(target_arch = "aarch64")]
fn dependent_adds(iterations: u64) -> u64 {
    let mut sum: u64 = 0;
    let addend: u64 = std::hint::black_box(1);
    // SAFETY: register arithmetic only; no memory, no stack. The loop ends
    // because `left` starts at 1 or more and falls by one per round.
    unsafe {
        std::arch::asm!(
            "2:",
            ".rept {adds}",
            "add {sum}, {sum}, {addend}",
            ".endr",
            "subs {left}, {left}, #1",
            "b.ne 2b",
            adds = const ADDS_PER_ITERATION,
            sum = inout(reg) sum,
            addend = in(reg) addend,
            left = inout(reg) iterations.max(1) => _,
            options(nomem, nostack),
        );
    }
    sum
}

/// One trial: the chain's frequency in Hz.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn trial(iterations: u64) -> f64 {
    (iterations * ADDS_PER_ITERATION) as f64 / timed_run(iterations).as_secs_f64()
}

/// How long one run of the chain takes.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn timed_run(iterations: u64) -> Duration {
    let start = Instant::now();
    std::hint::black_box(dependent_adds(iterations));
    start.elapsed()
}

/// The nearest-rank `fraction` quantile of `values` (which must not be empty).
fn percentile(values: &[f64], fraction: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (fraction * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Frequency and spread from a set of trials (which must not be empty).
fn summarise(trials: Vec<f64>) -> ClockCalibration {
    let hz = percentile(&trials, PERCENTILE);
    let median = percentile(&trials, 0.5);
    ClockCalibration {
        hz,
        source: ClockSource::DependentAddChain,
        spread: ((hz - median) / hz).max(0.0),
        trials,
    }
}

/// Measures the core clock frequency for about `budget` (see the module
/// documentation for the method). A tiny budget still runs a minimum number of
/// short trials, so the call can take a few milliseconds longer than asked; a
/// budget over about 8 s ends early, at the most trials a calibration keeps,
/// and one over [`MAX_BUDGET`] is cut to it.
pub fn calibrate(budget: Duration) -> ClockCalibration {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let budget = budget.min(MAX_BUDGET);
        let start = Instant::now();
        let trial_length = (budget / 40).clamp(SHORTEST_TRIAL, LONGEST_TRIAL);

        // Double the rounds until one run is long enough to time.
        let mut iterations: u64 = 1_000;
        let mut fastest_run = loop {
            let run = timed_run(iterations);
            if run >= SHORTEST_TRIAL / 4 {
                break run;
            }
            iterations *= 2;
        };
        // Warm up, keeping the fastest run: a run that was preempted would
        // make the trials too short if it set their length.
        let warm_up = budget / 5;
        let mut warm_up_runs = 0;
        while warm_up_runs < 3 || start.elapsed() < warm_up {
            fastest_run = fastest_run.min(timed_run(iterations));
            warm_up_runs += 1;
        }
        let scale = trial_length.as_secs_f64() / fastest_run.as_secs_f64();
        iterations = ((iterations as f64 * scale) as u64).max(1);

        let mut trials = Vec::new();
        while trials.len() < MAX_TRIALS
            && (trials.len() < MIN_TRIALS || start.elapsed() + trial_length <= budget)
        {
            trials.push(trial(iterations));
        }
        summarise(trials)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = budget;
        ClockCalibration {
            hz: 0.0,
            source: ClockSource::Unavailable,
            trials: Vec::new(),
            spread: 0.0,
        }
    }
}

/// A warning when two calibrations (say, before and after a benchmark run)
/// say the measurements between them may not be comparable: the frequency
/// moved by more than [`DRIFT_THRESHOLD`], or either calibration's spread
/// exceeds [`SPREAD_THRESHOLD`]. `None` when neither happened, or when either
/// calibration measured nothing.
pub fn drifted(before: &ClockCalibration, after: &ClockCalibration) -> Option<String> {
    let measured = |c: &ClockCalibration| c.source != ClockSource::Unavailable && c.hz > 0.0;
    if !measured(before) || !measured(after) {
        return None;
    }
    let mut warnings = Vec::new();
    let change = (after.hz - before.hz) / before.hz;
    if change.abs() > DRIFT_THRESHOLD {
        warnings.push(format!(
            "The core clock moved from {:.0} MHz to {:.0} MHz ({:+.1} %, more than {:.0} %).",
            before.hz / 1e6,
            after.hz / 1e6,
            change * 100.0,
            DRIFT_THRESHOLD * 100.0
        ));
    }
    let spread = before.spread.max(after.spread);
    if spread > SPREAD_THRESHOLD {
        warnings.push(format!(
            "The median clock trial ran {:.1} % below the fastest ones (more than {:.0} %): \
             something else was competing for this core.",
            spread * 100.0,
            SPREAD_THRESHOLD * 100.0
        ));
    }
    if warnings.is_empty() {
        None
    } else {
        warnings.push("Timings taken across this may not be comparable.".to_string());
        Some(warnings.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calibration(hz: f64, spread: f64) -> ClockCalibration {
        ClockCalibration {
            hz,
            source: ClockSource::DependentAddChain,
            trials: vec![hz],
            spread,
        }
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn the_chain_runs_every_add() {
        assert_eq!(dependent_adds(1), ADDS_PER_ITERATION);
        assert_eq!(dependent_adds(12_345), 12_345 * ADDS_PER_ITERATION);
        // Zero rounds would wrap the counter; it is raised to one.
        assert_eq!(dependent_adds(0), ADDS_PER_ITERATION);
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn calibration_measures_a_plausible_frequency() {
        let budget = Duration::from_millis(150);
        let start = Instant::now();
        let clock = calibrate(budget);
        let took = start.elapsed();
        assert_eq!(clock.source, ClockSource::DependentAddChain);
        assert!(
            clock.trials.len() >= MIN_TRIALS,
            "{} trials",
            clock.trials.len()
        );
        assert!(clock.trials.iter().all(|&t| t > 0.0 && t.is_finite()));
        let fastest = clock.trials.iter().copied().fold(0.0, f64::max);
        assert!(clock.hz > 0.0 && clock.hz <= fastest);
        assert!(
            (0.0..1.0).contains(&clock.spread),
            "spread {}",
            clock.spread
        );
        // A loop that ignored the budget would run well past it with more
        // than the minimum of trials; a busy machine stretches the minimum
        // itself, so only a run past the budget with more trials fails.
        assert!(
            took < budget * 4 || clock.trials.len() == MIN_TRIALS,
            "took {took:?} for a {budget:?} budget, {} trials",
            clock.trials.len()
        );
        // Every core that runs this build clocks between 0.3 and 7 GHz; a
        // busy machine only slows trials down, so the fastest one is checked.
        assert!(
            (3e8..7e9).contains(&fastest),
            "{fastest} Hz is no CPU's clock"
        );
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn calibration_agrees_loosely_with_proc_cpuinfo() {
        let Some(reported_mhz) = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| crate::environment::parse_cpuinfo(&text).mhz)
        else {
            // aarch64 kernels and non-Linux systems report no "cpu MHz".
            return;
        };
        // Turbo, power saving and a nominal hypervisor value all move the
        // reported figure, but not by a factor of two. A busy machine only
        // ever slows a trial down, so the fastest trial of a few attempts is
        // the one to compare: this checks what the loop counts, not how
        // quiet the machine is.
        let agrees = |mhz: f64| (0.5..2.0).contains(&(mhz / reported_mhz));
        let mut fastest_mhz = 0.0f64;
        for _ in 0..5 {
            let clock = calibrate(Duration::from_millis(150));
            let fastest_hz = clock.trials.iter().copied().fold(0.0, f64::max);
            fastest_mhz = fastest_mhz.max(fastest_hz / 1e6);
            if agrees(fastest_mhz) {
                break;
            }
        }
        assert!(
            agrees(fastest_mhz),
            "fastest trial {fastest_mhz:.0} MHz, /proc/cpuinfo says {reported_mhz:.0} MHz"
        );
    }

    #[test]
    fn percentile_is_nearest_rank() {
        let values = [5.0, 1.0, 4.0, 2.0, 3.0, 10.0, 9.0, 8.0, 7.0, 6.0];
        assert_eq!(percentile(&values, 0.9), 9.0);
        assert_eq!(percentile(&values, 0.5), 5.0);
        assert_eq!(percentile(&values, 1.0), 10.0);
        assert_eq!(percentile(&[3.0], 0.9), 3.0);
    }

    #[test]
    fn slow_trials_do_not_lower_the_estimate() {
        let mut trials = vec![3.0e9; 18];
        trials.extend([1.0e9, 2.0e9]);
        let clock = summarise(trials);
        assert_eq!(clock.hz, 3.0e9);
        assert_eq!(clock.spread, 0.0);

        let busy = summarise(vec![1.0e9, 1.5e9, 2.0e9, 2.5e9, 3.0e9]);
        assert_eq!(busy.hz, 3.0e9);
        assert!((busy.spread - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn drift_and_spread_are_reported() {
        let quiet = calibration(3.0e9, 0.01);
        assert_eq!(drifted(&quiet, &calibration(3.1e9, 0.01)), None);

        let slower = drifted(&quiet, &calibration(2.4e9, 0.01)).expect("a 20 % drop");
        assert!(slower.contains("3000 MHz to 2400 MHz (-20.0 %"), "{slower}");
        assert!(!slower.contains("competing"), "{slower}");

        let busy = drifted(&quiet, &calibration(3.0e9, 0.12)).expect("a busy core");
        assert!(busy.contains("12.0 % below"), "{busy}");
        assert!(!busy.contains("moved"), "{busy}");
    }

    #[test]
    fn nothing_is_compared_with_an_unmeasured_clock() {
        let quiet = calibration(3.0e9, 0.0);
        let none = ClockCalibration {
            hz: 0.0,
            source: ClockSource::Unavailable,
            trials: Vec::new(),
            spread: 0.0,
        };
        assert_eq!(drifted(&quiet, &none), None);
        assert_eq!(drifted(&none, &quiet), None);
    }

    #[test]
    fn sources_serialize_as_kebab_case() {
        let json = serde_json::to_string(&calibration(2.5e9, 0.0)).unwrap();
        assert!(json.contains(r#""source":"dependent-add-chain""#), "{json}");
        let unavailable = serde_json::to_string(&ClockSource::Unavailable).unwrap();
        assert_eq!(unavailable, r#""unavailable""#);
        let back: ClockCalibration = serde_json::from_str(&json).unwrap();
        assert_eq!(back, calibration(2.5e9, 0.0));
    }
}
