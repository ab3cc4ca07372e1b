//! One measured statistic: what was counted, its p-value, and how it reads
//! beside its threshold.

use serde::Serialize;

use crate::stats;

/// Which values a keyset statistic was computed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Values {
    /// The hashes themselves.
    Hashes,
    /// XOR of each hash with the next one in key order: a hash that is linear
    /// in its input repeats these.
    SuccessiveDifferences,
    /// H(k) XOR H(k with one input bit flipped), over many keys k.
    BitDifferences { input_bit: usize },
    /// Hashes laid out in rows of `row` (one seed's, say): XOR of each with
    /// the next in its row, the last with the first (SMHasher3's x-axis deltas).
    RowDifferences { row: usize },
    /// XOR of each hash with the one `row` places on, the same column of
    /// the next row, cyclically (SMHasher3's y-axis deltas).
    ColumnDifferences { row: usize },
    /// H(k, s) XOR H(k, s with one seed bit flipped), over many keys and seeds.
    SeedBitDifferences { seed_bit: usize },
    /// Hashes of the keys whose only set bits lie in a window starting at
    /// key bit `position` (rurban's Window keyset).
    KeyWindow { position: usize },
    /// Hashes of messages a few bit flips apart, compared only with the
    /// other variants of the same base message (rurban's LongNeighbors).
    Neighbours,
}

impl Values {
    fn describe(&self) -> String {
        match self {
            Values::Hashes => "hashes".into(),
            Values::SuccessiveDifferences => "successive differences".into(),
            Values::BitDifferences { input_bit } => {
                format!("differences for input bit {input_bit}")
            }
            Values::RowDifferences { row } => format!("differences along rows of {row}"),
            Values::ColumnDifferences { row } => {
                format!("differences down columns (rows of {row})")
            }
            Values::SeedBitDifferences { seed_bit } => {
                format!("differences for seed bit {seed_bit}")
            }
            Values::KeyWindow { position } => {
                format!("hashes of the key window at bit {position}")
            }
            Values::Neighbours => "neighbours of the same base".into(),
        }
    }
}

/// A range of output bits: `bits` bits starting at `offset` (bit i is bit i%8
/// of digest byte i/8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Window {
    pub offset: u32,
    pub bits: u32,
}

impl Window {
    fn describe(&self) -> String {
        format!("bits {}-{}", self.offset, self.offset + self.bits - 1)
    }
}

/// What one statistic counted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Measure {
    /// How often one output bit flipped when one input (or key) bit was flipped.
    Bias {
        trials: u64,
        flips: u64,
        input_bit: usize,
        output_bit: usize,
    },
    /// Dependence between the flips of two output bits under one input-bit
    /// flip: chi-square of the 2×2 table (1 degree of freedom); `None` when
    /// the table is degenerate (an expected cell below 10).
    Dependence {
        trials: u64,
        chi_square: Option<f64>,
        input_bit: usize,
        output_bits: [usize; 2],
    },
    /// Values that equal an earlier value when only `window` is kept.
    Collisions {
        values: Values,
        keys: u64,
        window: Window,
        expected: f64,
        observed: u64,
    },
    /// Chi-square of the histogram of `window` over its 2^bits bins.
    Distribution {
        values: Values,
        keys: u64,
        window: Window,
        chi_square: f64,
    },
    /// The mean of popcount⁵ (of zero bits⁵ when `zeros`) over `keys`
    /// values of `bits` bits, against its mean for random values: z is the
    /// difference in standard errors (rurban's MomentChi2).
    Moment {
        values: Values,
        zeros: bool,
        keys: u64,
        bits: u32,
        mean: f64,
        expected: f64,
        z: f64,
    },
    /// Key pairs k, k ⊕ (one bit) whose first output bits are all equal.
    EqualPairs {
        pairs: u64,
        input_bit: usize,
        bits: u32,
        expected: f64,
        observed: u64,
    },
}

/// A measure with its raw (uncorrected) p-value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statistic {
    #[serde(flatten)]
    pub measure: Measure,
    pub p_value: f64,
}

impl Statistic {
    pub fn new(measure: Measure) -> Statistic {
        let p_value = match &measure {
            Measure::Bias { trials, flips, .. } => stats::fair_coin_p(*trials, *flips),
            Measure::Dependence { chi_square, .. } => chi_square.map_or(0.0, stats::chi_square_1_p),
            Measure::Collisions {
                expected, observed, ..
            }
            | Measure::EqualPairs {
                expected, observed, ..
            } => stats::poisson_at_least_p(*expected, *observed),
            Measure::Distribution {
                window, chi_square, ..
            } => stats::chi_square_p(*chi_square, degrees_of_freedom(window)),
            Measure::Moment { z, .. } => stats::normal_two_sided_p(*z),
        };
        Statistic { measure, p_value }
    }

    /// Orders by p-value, and among p-values that underflowed to 0 by how far
    /// past expectation the measure is, so the report names the grossest one.
    pub fn is_worse_than(&self, other: &Statistic) -> bool {
        if self.p_value != other.p_value {
            return self.p_value < other.p_value;
        }
        self.severity() > other.severity()
    }

    fn severity(&self) -> f64 {
        match &self.measure {
            Measure::Bias { trials, flips, .. } => stats::bias(*trials, *flips),
            Measure::Dependence {
                chi_square, trials, ..
            } => chi_square.map_or(f64::INFINITY, |x| x / *trials as f64),
            Measure::Collisions {
                expected, observed, ..
            }
            | Measure::EqualPairs {
                expected, observed, ..
            } => *observed as f64 / expected.max(1e-300),
            Measure::Distribution {
                window, chi_square, ..
            } => chi_square / degrees_of_freedom(window),
            Measure::Moment { z, .. } => z.abs(),
        }
    }

    /// The measure in words, e.g. "bias 0.71% (input bit 13 → output bit 58)".
    pub fn describe(&self) -> String {
        match &self.measure {
            Measure::Bias {
                trials,
                flips,
                input_bit,
                output_bit,
            } => format!(
                "bias {} (input bit {input_bit} → output bit {output_bit})",
                percent(stats::bias(*trials, *flips))
            ),
            Measure::Dependence {
                trials,
                chi_square,
                input_bit,
                output_bits: [a, b],
            } => match chi_square {
                Some(x) => format!(
                    "V = {:.4} (input bit {input_bit} → output bits {a}, {b})",
                    (x / *trials as f64).sqrt()
                ),
                None => format!(
                    "V = 1 (input bit {input_bit} → output bits {a}, {b} nearly always or never flip)"
                ),
            },
            Measure::Collisions {
                values,
                window,
                expected,
                observed,
                keys,
            } => format!(
                "{observed} collisions in {} of {keys} {} (expected {})",
                window.describe(),
                values.describe(),
                count(*expected)
            ),
            Measure::Distribution {
                values,
                keys,
                window,
                chi_square,
            } => format!(
                "chi² {:.0} (df {}) over {} of {keys} {}",
                chi_square,
                degrees_of_freedom(window),
                window.describe(),
                values.describe()
            ),
            Measure::Moment {
                values,
                zeros,
                keys,
                bits,
                mean,
                expected,
                z,
            } => format!(
                "mean {}⁵ {mean:.0} (expected {expected:.0}, z = {z:.1}) over {keys} {} of {bits} bits",
                if *zeros { "zero count" } else { "popcount" },
                values.describe()
            ),
            Measure::EqualPairs {
                pairs,
                input_bit,
                bits,
                expected,
                observed,
            } => format!(
                "{observed} of {pairs} pairs equal in {bits} bits when input bit {input_bit} flips (expected {})",
                count(*expected)
            ),
        }
    }

    /// The value this measure may reach at significance `alpha` and still pass.
    pub fn threshold(&self, alpha: f64) -> String {
        match &self.measure {
            Measure::Bias { trials, .. } => {
                format!("bias ≤ {}", percent(stats::bias_threshold(*trials, alpha)))
            }
            Measure::Dependence { trials, .. } => format!(
                "V ≤ {:.4}",
                stats::two_sided_z(alpha) / (*trials as f64).sqrt()
            ),
            Measure::Collisions { expected, .. } | Measure::EqualPairs { expected, .. } => {
                format!("≤ {}", stats::poisson_threshold(*expected, alpha))
            }
            Measure::Distribution { window, .. } => format!(
                "chi² ≤ {:.0}",
                stats::chi_square_threshold(degrees_of_freedom(window), alpha)
            ),
            Measure::Moment { .. } => format!("|z| ≤ {:.2}", stats::two_sided_z(alpha)),
        }
    }
}

fn degrees_of_freedom(window: &Window) -> f64 {
    (window.bits as f64).exp2() - 1.0
}

fn percent(fraction: f64) -> String {
    let pct = fraction * 100.0;
    if pct >= 10.0 {
        format!("{pct:.1}%")
    } else {
        format!("{pct:.3}%")
    }
}

fn count(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 0.01 {
        format!("{value:.2}")
    } else {
        format!("{value:.1e}")
    }
}

/// The statistics of one test: how many, the worst, and every p-value (to
/// count how many fail once the run's correction is known).
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub p_values: Vec<f64>,
    pub worst: Option<Statistic>,
    pub hashes: u64,
}

impl Findings {
    pub fn add(&mut self, statistic: Statistic) {
        self.p_values.push(statistic.p_value);
        if self
            .worst
            .as_ref()
            .is_none_or(|worst| statistic.is_worse_than(worst))
        {
            self.worst = Some(statistic);
        }
    }

    pub fn merge(&mut self, other: Findings) {
        self.hashes += other.hashes;
        self.p_values.extend(other.p_values);
        if let Some(statistic) = other.worst {
            if self
                .worst
                .as_ref()
                .is_none_or(|worst| statistic.is_worse_than(worst))
            {
                self.worst = Some(statistic);
            }
        }
    }
}
