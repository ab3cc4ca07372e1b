//! What a caller asks a measurement for, and the defaults every caller
//! starts from. Apart from the run (report.rs), so that the checks of a
//! request (limits.rs), which the run calls, can read it without reaching
//! back into the run.

use crate::defaults::{DEFAULT_BASELINE, DEFAULT_SEED};
use crate::plan::Budget;
use crate::runtimes::{Runtime, RuntimeOptions};
use crate::selection::{Algorithms, Backends, Selection};

/// The sizes `hashlab bench` measures when none are named.
pub const DEFAULT_SIZES: [usize; 9] = [
    16,
    64,
    256,
    1 << 10,
    4 << 10,
    16 << 10,
    64 << 10,
    1 << 20,
    16 << 20,
];
/// The sizes of `hashlab bench --quick`.
pub const QUICK_SIZES: [usize; 5] = [64, 1 << 10, 16 << 10, 64 << 10, 1 << 20];

/// What a caller asks for. [`Request::standard`] and [`Request::quick`] hold
/// the one set of defaults every caller starts from (the CLI, the Python
/// package, `pick`'s own measurement, the report's run).
#[derive(Debug, Clone)]
pub struct Request {
    pub selection: Selection,
    pub budget: Budget,
    pub seed: u64,
    pub misalign: usize,
    /// `--project`: bytes to project hashing times for.
    pub project: Option<u64>,
    pub mask: Vec<String>,
    /// How long to spend measuring the core clock, before and after the run.
    /// Zero: do not measure it (no cycles per byte).
    pub clock_budget: std::time::Duration,
    /// The command line, recorded in the results.
    pub command_line: Vec<String>,
    /// `--pin`: the CPU the measuring thread runs on.
    pub pin: Option<usize>,
    /// `--runtime`: other languages' implementations measured beside ours.
    pub runtimes: Vec<Runtime>,
    /// Where those runtimes are found and their harnesses built.
    pub runtime_options: RuntimeOptions,
}

impl Request {
    /// What `hashlab bench` measures with no option: the default algorithms
    /// and backends at [`DEFAULT_SIZES`] on one thread, beside the baseline.
    pub fn standard() -> Request {
        Request {
            selection: Selection {
                algorithms: Algorithms::Default,
                backends: Backends::Default,
                sizes: DEFAULT_SIZES.to_vec(),
                threads: vec![1],
                latency: false,
                keys: false,
                also: vec![DEFAULT_BASELINE.to_string()],
                file: None,
                table: None,
            },
            budget: Budget::standard(),
            seed: DEFAULT_SEED,
            misalign: 0,
            project: None,
            mask: Vec::new(),
            clock_budget: std::time::Duration::from_millis(300),
            command_line: Vec::new(),
            pin: None,
            runtimes: Vec::new(),
            runtime_options: RuntimeOptions::from_environment(),
        }
    }

    /// `hashlab bench --quick`: [`QUICK_SIZES`], a shorter budget and clock.
    pub fn quick() -> Request {
        let standard = Request::standard();
        Request {
            selection: Selection {
                sizes: QUICK_SIZES.to_vec(),
                ..standard.selection
            },
            budget: Budget::quick(),
            clock_budget: std::time::Duration::from_millis(100),
            ..standard
        }
    }
}
