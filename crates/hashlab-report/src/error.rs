//! Why a report or chart could not be made: its own file, so the charts,
//! the data helpers and the page name it without depending on lib.rs,
//! which depends on them.

use std::fmt;

/// Why a report or chart could not be made: one line for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportError {
    /// Results that cannot give what was asked, in words.
    Message(String),
    /// A size asked for (labelled `size`) that `input` did not measure; names
    /// no option, the caller says which of its options asked.
    SizeNotMeasured {
        size: String,
        input: String,
        measured: Vec<String>,
    },
}

impl ReportError {
    pub fn new(message: String) -> ReportError {
        ReportError::Message(message)
    }
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Message(message) => f.write_str(message),
            ReportError::SizeNotMeasured {
                size,
                input,
                measured,
            } => write!(
                f,
                "{size}: not measured in {input} (measured: {})",
                measured.join(", ")
            ),
        }
    }
}

impl std::error::Error for ReportError {}
