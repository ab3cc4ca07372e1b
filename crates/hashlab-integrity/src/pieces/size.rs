//! The piece size as users write it, and how a file of a length is cut.

use std::fmt;

/// The most pieces one file is cut into. Every piece keeps a digest per
/// algorithm until the file's lines are written, so the count bounds the
/// memory a file costs (about 100 bytes a piece and algorithm); a manifest
/// of a million lines for one file is past what anyone reads anyway.
pub const MAX_PIECES: u64 = 1 << 20;

/// Why a piece size was refused. Names no flag: the caller says which option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PieceSizeError {
    NotASize(String),
    UnknownSuffix { text: String, suffix: String },
    Zero(String),
    TooLarge(String),
}

impl fmt::Display for PieceSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PieceSizeError::NotASize(text) => write!(
                f,
                "'{text}' is not a size (a whole number of bytes, or one with a suffix: 4k, 1m, 64K, 1MiB, 10MB)"
            ),
            PieceSizeError::UnknownSuffix { text, suffix } => write!(
                f,
                "'{text}': unknown suffix '{suffix}' (b, k, m, g, t, p, e as hashdeep takes them, each 1024 times the one before; KiB, MiB, GiB, TiB; KB, MB, GB, TB for powers of 1000)"
            ),
            PieceSizeError::Zero(text) => write!(f, "'{text}': a piece must be at least 1 byte"),
            PieceSizeError::TooLarge(text) => write!(f, "'{text}' is too large"),
        }
    }
}

impl std::error::Error for PieceSizeError {}

/// A piece size as `hashdeep -p` takes one (`4k`, `1m`: b, k, m, g, t, p, e,
/// each 1024 times the one before) and as `bench --sizes` does (`64K`,
/// `1MiB`; `KB`, `MB` for powers of 1000), case-insensitive. Where hashdeep
/// reads `1.5k` as `1k` and an unknown suffix as none, these are refused:
/// a manifest cut at another size than asked would be wrong silently.
pub fn parse_piece_size(text: &str) -> Result<u64, PieceSizeError> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    if digits.is_empty() || suffix.starts_with(['.', ',']) {
        return Err(PieceSizeError::NotASize(text.to_string()));
    }
    let multiplier: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "p" | "pib" => 1 << 50,
        "e" | "eib" => 1 << 60,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => {
            return Err(PieceSizeError::UnknownSuffix {
                text: text.to_string(),
                suffix: suffix.to_string(),
            })
        }
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| PieceSizeError::TooLarge(text.to_string()))?;
    let bytes = n
        .checked_mul(multiplier)
        .ok_or_else(|| PieceSizeError::TooLarge(text.to_string()))?;
    if bytes == 0 {
        return Err(PieceSizeError::Zero(text.to_string()));
    }
    Ok(bytes)
}

/// How many pieces of `size` bytes a file of `len` bytes is cut into: an
/// empty file has one, of no bytes, as hashdeep writes `offset 0-0` for it.
pub fn piece_count(len: u64, size: u64) -> u64 {
    len.div_ceil(size.max(1)).max(1)
}

/// Piece `index` of a file of `len` bytes cut every `size`: (start, end), the
/// end exclusive.
pub fn piece_range(len: u64, size: u64, index: u64) -> (u64, u64) {
    let start = index.saturating_mul(size).min(len);
    (start, start + size.min(len - start))
}
