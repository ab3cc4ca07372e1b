//! How a runtime ended up, and why one was left out. Apart from the
//! runtimes' start (runtimes.rs), so that the build cache (runtimes/cache.rs),
//! which the start calls, can say why a build failed without reaching back.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuntimeState {
    /// Built, started, checked: its rows are in the results.
    Measured,
    /// Not on the PATH (or too old to build the harness).
    Absent,
    /// Found, but its harness did not build, start or answer.
    Failed,
    /// It did not answer within the deadline and was killed.
    TimedOut,
}

pub(super) struct Problem {
    pub(super) state: RuntimeState,
    pub(super) detail: String,
}

pub(super) fn failed(detail: impl Into<String>) -> Problem {
    Problem {
        state: RuntimeState::Failed,
        detail: detail.into(),
    }
}

pub(super) fn absent(detail: impl Into<String>) -> Problem {
    Problem {
        state: RuntimeState::Absent,
        detail: detail.into(),
    }
}

pub(super) fn harness_problem(e: crate::harness::HarnessError) -> Problem {
    let state = match e {
        crate::harness::HarnessError::TimedOut { .. } => RuntimeState::TimedOut,
        _ => RuntimeState::Failed,
    };
    Problem {
        state,
        detail: e.to_string(),
    }
}
