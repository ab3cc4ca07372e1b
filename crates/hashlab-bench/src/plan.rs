//! What to measure: cells (algorithm × backend × size × mode) and the budget.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How a cell uses threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Mode {
    /// `threads` threads each hash their own messages; throughput is the aggregate
    /// (`openssl speed -multi`). One thread is the plain single-core figure.
    Streams { threads: usize },
    /// One message hashed by `threads` threads, where the backend has a parallel mode.
    OneStream { threads: usize },
    /// Each digest feeds the next input: time per message of a dependent chain.
    Latency,
    /// A real file read through `sum`'s reading path; `cold` drops its cached
    /// pages before every pass.
    File { cold: bool },
    /// Short keys of random length 1 to the cell's size, one hash per key, as
    /// a hash table calls it (SMHasher's small-key speed test). `chained`:
    /// each hash feeds the next key, so calls cannot overlap (latency).
    Keys { chained: bool },
    /// A hash table over a word list (the cell's size is its number of
    /// words, `bytes` their total length): every word inserted into an empty
    /// table, then every word looked up; a message is one insert or lookup.
    Table { bytes: usize },
}

impl Mode {
    pub fn threads(&self) -> usize {
        match *self {
            Mode::Streams { threads } | Mode::OneStream { threads } => threads,
            Mode::Latency | Mode::File { .. } | Mode::Keys { .. } | Mode::Table { .. } => 1,
        }
    }

    /// The bytes one message holds on average: short keys are 1 to `size`
    /// bytes, every length equally often.
    pub fn bytes_per_message(&self, size: usize) -> f64 {
        match self {
            Mode::Keys { .. } => (1 + size) as f64 / 2.0,
            Mode::Table { bytes } => *bytes as f64 / size.max(1) as f64,
            _ => size as f64,
        }
    }
}

/// The null hasher's pseudo-algorithm: touches the input, computes nothing, and so
/// measures what the harness itself costs per message.
pub const NULL_ALGORITHM: &str = "null";
pub const NULL_BACKEND: &str = "harness";

/// One thing to measure.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CellSpec {
    pub algorithm: String,
    pub backend: String,
    pub size: usize,
    pub mode: Mode,
}

impl CellSpec {
    pub fn is_null(&self) -> bool {
        self.algorithm == NULL_ALGORITHM
    }
}

/// How long to measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Warm-up time per cell, after the batch size is calibrated.
    pub warmup: Duration,
    /// A sample lasts at least this long: small messages are hashed in batches.
    pub min_sample: Duration,
    pub min_rounds: usize,
    pub max_rounds: usize,
    /// Stop starting new rounds after this long (once `min_rounds` are done).
    pub max_time: Duration,
    /// Stop early once every cell's median is this precise (relative IQR / √n).
    pub target_precision: f64,
}

impl Budget {
    /// `bench --quick`: under 10 s for the default set on a 2-core machine.
    pub fn quick() -> Budget {
        Budget {
            warmup: Duration::from_millis(5),
            min_sample: Duration::from_micros(500),
            min_rounds: 5,
            max_rounds: 200,
            max_time: Duration::from_secs(4),
            target_precision: 0.005,
        }
    }
    /// Default `bench`: under 60 s for the default set.
    pub fn standard() -> Budget {
        Budget {
            warmup: Duration::from_millis(20),
            min_sample: Duration::from_millis(1),
            min_rounds: 7,
            max_rounds: 400,
            max_time: Duration::from_secs(30),
            target_precision: 0.002,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub cells: Vec<CellSpec>,
    pub budget: Budget,
    /// Seeds the input bytes and the sampling order.
    pub seed: u64,
    /// Bytes by which every input starts past a page boundary.
    pub misalign: usize,
}

impl Plan {
    /// A rough upper estimate of the run time, before anything is measured:
    /// every cell's warm-up and minimum rounds at a pessimistic 200 MB/s for
    /// large messages, plus the remaining time budget.
    pub fn estimate(&self) -> Duration {
        let per_cell: Duration = self
            .cells
            .iter()
            .map(|c| {
                let one = Duration::from_secs_f64(c.size as f64 / 200e6);
                let sample = one.max(self.budget.min_sample);
                self.budget.warmup + sample * self.budget.min_rounds as u32
            })
            .sum();
        per_cell.max(self.budget.max_time)
    }
}
