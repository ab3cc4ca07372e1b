//! The pieces a manifest records of a file (hashdeep's `offset START-END`
//! lines, `sum --json`'s `pieces`) and why they may not be usable.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::pieces::{piece_count, PieceDigests, MAX_PIECES};

/// A file's digests piece by piece, by one algorithm, as a manifest records
/// them; the file's length is the entry's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pieces {
    /// Bytes in every piece but the last, which holds what is left.
    pub size: u64,
    /// One digest per piece, in file order.
    pub digests: Vec<Vec<u8>>,
}

/// `sum --json`'s `pieces` of one row: the piece size and each piece's
/// digest in hex, in file order (the pieces are cut every `size` bytes from
/// the start; the row's `bytes` says where the last ends).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonPieces {
    pub size: u64,
    pub digests: Vec<String>,
}

impl JsonPieces {
    /// The pieces of column `column` of `digests`.
    pub fn of(digests: &PieceDigests, column: usize) -> JsonPieces {
        JsonPieces {
            size: digests.size,
            digests: digests.pieces.iter().map(|p| p[column].to_hex()).collect(),
        }
    }

    /// The pieces, checked against the row's length and digest length.
    pub(crate) fn read(
        self,
        name: &[u8],
        bytes: Option<u64>,
        digest_len: usize,
    ) -> Result<Pieces, PieceFault> {
        let name = String::from_utf8_lossy(name).into_owned();
        let len = bytes.ok_or_else(|| PieceFault::NoLength { name: name.clone() })?;
        if self.size == 0 {
            return Err(PieceFault::ZeroSize { name });
        }
        let expected = piece_count(len, self.size);
        if expected > MAX_PIECES {
            return Err(PieceFault::TooMany {
                name,
                count: expected,
            });
        }
        if self.digests.len() as u64 != expected {
            return Err(PieceFault::Count {
                name,
                expected,
                found: self.digests.len() as u64,
            });
        }
        let mut digests = Vec::with_capacity(self.digests.len());
        for (piece, hex) in self.digests.iter().enumerate() {
            let digest = hashlab::hex::decode(hex).map_err(|_| PieceFault::NotHex {
                name: name.clone(),
                piece,
            })?;
            if digest.len() != digest_len {
                return Err(PieceFault::DigestLength {
                    name,
                    piece,
                    bytes: digest.len(),
                    expected: digest_len,
                });
            }
            digests.push(digest);
        }
        Ok(Pieces {
            size: self.size,
            digests,
        })
    }
}

/// Why the pieces a manifest records of a file cannot be used. Each names
/// the file; offsets are as hashdeep writes them (first and last byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PieceFault {
    /// `SIZE,...,NAME offset START-END` whose size is not END-START+1.
    Span {
        name: String,
        start: u64,
        end: u64,
        size: u64,
    },
    /// The file's first piece does not start at byte 0.
    NotFromZero {
        name: String,
        start: u64,
    },
    /// A piece that starts before the one listed before it.
    OutOfOrder {
        name: String,
        start: u64,
        after: (u64, u64),
    },
    /// A piece that starts inside the one before it.
    Overlap {
        name: String,
        start: u64,
        after: (u64, u64),
    },
    /// Bytes between two pieces that no piece holds.
    Gap {
        name: String,
        first: u64,
        last: u64,
    },
    /// Pieces are all one size but the last: one after a shorter piece, or
    /// one longer than the first.
    Uneven {
        name: String,
        start: u64,
        end: u64,
        size: u64,
    },
    /// The pieces cover another length than the file's own line says.
    Total {
        name: String,
        covered: u64,
        size: u64,
    },
    /// A JSON row with pieces and no `bytes`.
    NoLength {
        name: String,
    },
    ZeroSize {
        name: String,
    },
    /// A JSON row whose pieces are not as many as its length and piece size make.
    Count {
        name: String,
        expected: u64,
        found: u64,
    },
    NotHex {
        name: String,
        piece: usize,
    },
    DigestLength {
        name: String,
        piece: usize,
        bytes: usize,
        expected: usize,
    },
    TooMany {
        name: String,
        count: u64,
    },
}

impl fmt::Display for PieceFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PieceFault::Span {
                name,
                start,
                end,
                size,
            } => write!(
                f,
                "{name}: the piece at offset {start}-{end} says it holds {size} bytes"
            ),
            PieceFault::NotFromZero { name, start } => write!(
                f,
                "{name}: its first piece starts at byte {start}, not 0"
            ),
            PieceFault::OutOfOrder { name, start, after } => write!(
                f,
                "{name}: pieces listed out of order (offset {start} after offset {}-{})",
                after.0, after.1
            ),
            PieceFault::Overlap { name, start, after } => write!(
                f,
                "{name}: overlapping pieces (offset {start} inside offset {}-{})",
                after.0, after.1
            ),
            PieceFault::Gap { name, first, last } => {
                write!(f, "{name}: no piece holds bytes {first}-{last}")
            }
            PieceFault::Uneven {
                name,
                start,
                end,
                size,
            } => write!(
                f,
                "{name}: the piece at offset {start}-{end} is not {size} bytes as the pieces before it, nor the last"
            ),
            PieceFault::Total {
                name,
                covered,
                size,
            } => write!(
                f,
                "{name}: its pieces hold {covered} bytes, and its own line says {size}"
            ),
            PieceFault::NoLength { name } => {
                write!(f, "{name}: pieces without the file's length (`bytes`)")
            }
            PieceFault::ZeroSize { name } => write!(f, "{name}: pieces of 0 bytes"),
            PieceFault::Count {
                name,
                expected,
                found,
            } => write!(
                f,
                "{name}: {found} pieces, where its length and piece size make {expected}"
            ),
            PieceFault::NotHex { name, piece } => {
                write!(f, "{name}: the digest of piece {piece} is not hex")
            }
            PieceFault::DigestLength {
                name,
                piece,
                bytes,
                expected,
            } => write!(
                f,
                "{name}: piece {piece} has a {bytes}-byte digest, the file a {expected}-byte one"
            ),
            PieceFault::TooMany { name, count } => write!(
                f,
                "{name}: {count} pieces, more than the {MAX_PIECES} one file may have"
            ),
        }
    }
}

impl std::error::Error for PieceFault {}
