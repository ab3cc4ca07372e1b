//! How a saved run and a machine are shown: `history`'s rows, and the words
//! a regression check names them by.

use std::fmt;

use hashlab_table::{printable, Tabular};

use crate::{Machine, RunSummary};

impl Tabular for RunSummary {
    fn headers() -> &'static [&'static str] {
        &[
            "id", "date", "machine", "mask", "version", "cells", "command",
        ]
    }
    fn cells(&self) -> Vec<String> {
        // Rows come from a file anyone may have edited: nothing in them
        // reaches a terminal as a control sequence.
        let shown = |text: &str| printable(text).into_owned();
        let version = match &self.git_commit {
            Some(c) => format!("{} ({c})", self.version),
            None => self.version.clone(),
        };
        vec![
            self.id.to_string(),
            shown(&self.date),
            shown(&format!("{} [{}]", self.cpu_model, self.machine)),
            if self.cpu_mask.is_empty() {
                "-".into()
            } else {
                shown(&self.cpu_mask.join(","))
            },
            shown(&version),
            if self.partial {
                format!("{} (partial)", self.cells)
            } else {
                self.cells.to_string()
            },
            shown(&self.command),
        ]
    }
}

impl RunSummary {
    /// The run as a check names what it compared against:
    /// `run 3 (DATE, hashlab VERSION)`.
    pub fn label(&self) -> String {
        format!(
            "run {} ({}, hashlab {})",
            self.id,
            printable(&self.date),
            printable(&self.version)
        )
    }
}

/// The CPU model, and the mask where there is one.
impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.cpu_model)?;
        if !self.cpu_mask.is_empty() {
            write!(f, ", mask {}", self.cpu_mask.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RunId;

    fn summary() -> RunSummary {
        RunSummary {
            id: RunId(3),
            date: "2026-01-02T03:04:05Z".into(),
            saved_at: "2026-01-02T03:04:06Z".into(),
            machine: "abcd".into(),
            cpu_model: "CPU\x1b[2J".into(),
            cpu_mask: vec!["avx2".into()],
            version: "0.1.0".into(),
            git_commit: Some("f00".into()),
            command: "hashlab bench".into(),
            cells: 12,
            partial: true,
        }
    }

    #[test]
    fn rows_escape_what_a_file_may_hold_and_mark_partial_runs() {
        let cells = summary().cells();
        assert_eq!(cells.len(), RunSummary::headers().len());
        assert_eq!(cells[2], "CPU\\x1b[2J [abcd]");
        assert_eq!(cells[4], "0.1.0 (f00)");
        assert_eq!(cells[5], "12 (partial)");
        assert_eq!(
            summary().label(),
            "run 3 (2026-01-02T03:04:05Z, hashlab 0.1.0)"
        );
    }

    #[test]
    fn a_machine_is_its_cpu_and_mask() {
        let mut machine = Machine {
            fingerprint: "f".into(),
            cpu_model: "Zen".into(),
            cpu_mask: Vec::new(),
        };
        assert_eq!(machine.to_string(), "Zen");
        machine.cpu_mask = vec!["avx2".into(), "sha".into()];
        assert_eq!(machine.to_string(), "Zen, mask avx2,sha");
    }
}
