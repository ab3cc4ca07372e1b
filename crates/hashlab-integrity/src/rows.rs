//! A hashed file as `sum --json`'s rows: one per column of the plan, with
//! its pieces where it was hashed in pieces.

use std::fmt;

use serde::Serialize;

use crate::many::FileDigests;
use crate::pieces::{JsonPieces, PieceDigests};
use crate::plan::SumPlan;
use crate::update::{JsonRow, Stamp};

/// One row of a run in pieces: the whole file's row, and its pieces.
#[derive(Debug, Clone, Serialize)]
pub struct PieceRow {
    #[serde(flatten)]
    pub row: JsonRow,
    pub pieces: JsonPieces,
}

/// A plan whose algorithm cannot hash pieces as they are read: it hashes
/// an input's length before its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LengthFirst {
    pub algorithm: String,
}

impl fmt::Display for LengthFirst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} hashes an input's length before its bytes, so a piece cannot be hashed as it is read",
            self.algorithm
        )
    }
}

impl std::error::Error for LengthFirst {}

impl SumPlan {
    /// The rows of the file named `label`, one per column.
    pub fn json_rows(&self, label: &[u8], digests: &FileDigests) -> Vec<JsonRow> {
        let stamp = Stamp::of_hashed(digests);
        self.columns
            .iter()
            .zip(&digests.digests)
            .map(|(column, digest)| {
                let (name, backend) = (column.choice.name(), column.choice.backend_name());
                JsonRow::new(label, name, backend, digest, stamp.clone())
            })
            .collect()
    }

    /// The rows of the file named `label` hashed in pieces, one per column.
    pub fn piece_rows(&self, label: &[u8], digests: &PieceDigests) -> Vec<PieceRow> {
        self.json_rows(label, &digests.file)
            .into_iter()
            .enumerate()
            .map(|(column, row)| PieceRow {
                row,
                pieces: JsonPieces::of(digests, column),
            })
            .collect()
    }

    /// Whether every column can hash pieces as they are read.
    pub fn fit_pieces(&self) -> Result<(), LengthFirst> {
        match self
            .columns
            .iter()
            .find(|c| c.choice.hasher().needs_length_first())
        {
            Some(column) => Err(LengthFirst {
                algorithm: column.choice.name().to_string(),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use hashlab::Registry;

    use super::*;
    use crate::plan::SumRequest;

    fn plan(algorithms: &[&str]) -> SumPlan {
        let request = SumRequest {
            algorithms: algorithms.iter().map(|a| a.to_string()).collect(),
            ..SumRequest::default()
        };
        SumPlan::new(&Registry::default(), &request, &[]).unwrap()
    }

    #[test]
    fn a_row_per_column_in_the_plans_order() {
        let plan = plan(&["sha256", "md5"]);
        let digests = FileDigests {
            digests: plan
                .columns
                .iter()
                .map(|c| {
                    let mut hasher = c.choice.hasher();
                    hasher.update(b"abc");
                    hasher.finalize_reset()
                })
                .collect(),
            bytes: 3,
            modified: None,
            inode: None,
            ctime_ns: None,
        };
        let rows = plan.json_rows(b"f", &digests);
        let columns: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.algorithm.as_str(), r.digest.as_str()))
            .collect();
        assert_eq!(
            columns,
            [
                (
                    "sha256",
                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
                ),
                ("md5", "900150983cd24fb0d6963f7d28e17f72"),
            ]
        );
        assert!(rows
            .iter()
            .all(|r| r.file == "f" && r.stamp.size == Some(3)));
    }

    #[test]
    fn pieces_refuse_an_algorithm_that_hashes_the_length_first() {
        assert_eq!(plan(&["sha256", "blake3"]).fit_pieces(), Ok(()));
        let refused = plan(&["sha256", "tuplehash128"]).fit_pieces();
        assert_eq!(
            refused,
            Err(LengthFirst {
                algorithm: "tuplehash128".into()
            })
        );
    }
}
