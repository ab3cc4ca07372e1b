//! What `like` is asked to measure, and why it can fail: their own module,
//! so that the parts of `like` use them without importing `like` itself.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use super::replica::ReplicaError;
use super::shape::{self, ShapeError};

/// What to measure.
#[derive(Debug, Clone)]
pub struct LikeRequest {
    pub path: PathBuf,
    /// Names as the user gave them; empty: every unkeyed, stable algorithm
    /// of the default bench set.
    pub algorithms: Vec<String>,
    pub seed: u64,
    /// Time for all the replica's measurements together.
    pub budget: Duration,
    /// Time the shape step stats files one by one before it samples.
    pub stat_budget: Duration,
    /// Dask cluster sizes to project to.
    pub workers: Vec<usize>,
    /// Where git is looked for (PATH).
    pub path_var: OsString,
}

impl LikeRequest {
    pub fn new(path: PathBuf) -> LikeRequest {
        LikeRequest {
            path,
            algorithms: Vec::new(),
            seed: 1,
            budget: Duration::from_secs(40),
            stat_budget: shape::STAT_BUDGET,
            workers: vec![4, 16, 64],
            path_var: std::env::var_os("PATH").unwrap_or_default(),
        }
    }
}

/// Cluster sizes to project to, as a list gives them (`4,16,64`).
pub fn parse_workers(text: &str) -> Result<Vec<usize>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<usize>()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n))
                .ok_or_else(|| format!("'{p}' is not a worker count (1 to 1000000)"))
        })
        .collect()
}

/// Why `like` failed; names the path or algorithm, no flag.
#[derive(Debug)]
pub enum LikeError {
    Shape(ShapeError),
    Replica(ReplicaError),
    Algorithm(String),
    Manifest {
        path: PathBuf,
        why: String,
    },
    /// An object-store prefix that could not be listed or read (names the URL).
    Store(String),
}

impl std::fmt::Display for LikeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LikeError::Shape(e) => e.fmt(f),
            LikeError::Replica(e) => e.fmt(f),
            LikeError::Algorithm(e) | LikeError::Store(e) => f.write_str(e),
            LikeError::Manifest { path, why } => write!(f, "{}: {why}", path.display()),
        }
    }
}

impl std::error::Error for LikeError {}

impl From<ShapeError> for LikeError {
    fn from(e: ShapeError) -> Self {
        LikeError::Shape(e)
    }
}

impl From<ReplicaError> for LikeError {
    fn from(e: ReplicaError) -> Self {
        LikeError::Replica(e)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_workers;

    #[test]
    fn worker_counts_are_positive_and_bounded() {
        assert_eq!(parse_workers("4, 16,").unwrap(), [4, 16]);
        assert_eq!(
            parse_workers("0").unwrap_err(),
            "'0' is not a worker count (1 to 1000000)"
        );
        assert!(parse_workers("1000001").is_err());
    }
}
