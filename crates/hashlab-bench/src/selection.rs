//! Turning "what to measure" (algorithm and backend choices, sizes, thread
//! counts) into a plan's cells, with the backends left out and why.

use hashlab::{BackendStatus, Class, HashError, Registry};

use crate::plan::{CellSpec, Mode, NULL_ALGORITHM, NULL_BACKEND};
use crate::results::Excluded;

/// Which algorithms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Algorithms {
    /// The cryptographic hashes and MACs, plus xxh3-64, highwayhash-64 and crc32c.
    Default,
    All,
    /// Cryptographic hashes and MACs.
    Crypto,
    /// Keyed hash-table hashes, non-cryptographic hashes and checksums.
    Fast,
    Named(Vec<String>),
}

/// Which backends of each algorithm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backends {
    Default,
    All,
    /// Only these, where an algorithm has them.
    Named(Vec<String>),
}

pub use crate::defaults::DEFAULT_BASELINE;

#[derive(Debug, Clone)]
pub struct Selection {
    pub algorithms: Algorithms,
    pub backends: Backends,
    pub sizes: Vec<usize>,
    /// Thread counts; 1 is always measured as the reference.
    pub threads: Vec<usize>,
    pub latency: bool,
    /// Short keys of random length (1 to [`KEYS_MAX_LEN`] bytes), one hash
    /// each, independent and chained.
    pub keys: bool,
    /// Algorithms measured on their default backend whatever the choice above
    /// (the speed-up baseline).
    pub also: Vec<String>,
    /// `--file`: a real file hashed through `sum`'s reading path.
    pub file: Option<FileTarget>,
    /// A hash table over these words, each algorithm its hasher.
    pub table: Option<crate::words::WordList>,
}

impl Selection {
    /// The sizes in the order given, each once: a size asked for twice
    /// (`sizes="64,64"`, from any caller) is one cell.
    pub fn distinct_sizes(&self) -> Vec<usize> {
        let mut sizes: Vec<usize> = Vec::with_capacity(self.sizes.len());
        for &size in &self.sizes {
            if !sizes.contains(&size) {
                sizes.push(size);
            }
        }
        sizes
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileTarget {
    pub path: std::path::PathBuf,
    pub size: usize,
    pub cold: bool,
}

impl FileTarget {
    /// `path` as a file to measure: a regular file, readable and not empty.
    /// The error names the path.
    pub fn open(path: &std::path::Path, cold: bool) -> Result<FileTarget, String> {
        let shown = path.display();
        let io = |e: std::io::Error| format!("{shown}: {}", hashlab_integrity::io_message(&e));
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(format!("{shown}: not a regular file"));
        }
        std::fs::File::open(path).map_err(io)?;
        if meta.len() == 0 {
            return Err(format!("{shown}: the file is empty"));
        }
        Ok(FileTarget {
            path: path.to_path_buf(),
            size: usize::try_from(meta.len())
                .map_err(|_| format!("{shown}: too large to address"))?,
            cold,
        })
    }
}

/// One-stream parallel hashing only makes sense for messages this large.
pub const ONE_STREAM_MIN_SIZE: usize = 64 * 1024;
/// `--latency` chains are measured at these sizes and below.
pub const LATENCY_MAX_SIZE: usize = 4096;
/// Short keys are 1 to this many bytes long, as in SMHasher's small-key test.
pub const KEYS_MAX_LEN: usize = 32;

fn is_crypto(class: Class) -> bool {
    matches!(class, Class::Cryptographic | Class::Mac)
}

/// An (algorithm, backend) pair by canonical names.
pub type Pair = (String, String);

/// The (algorithm, backend) pairs selected, in registry order, and the ones left out.
pub fn pairs(
    registry: &Registry,
    selection: &Selection,
) -> Result<(Vec<Pair>, Vec<Excluded>), HashError> {
    pairs_on(registry, selection, &hashlab::cpu::has)
}

/// As [`pairs`], with default backends chosen for a CPU whose features are `has`
/// (this one, less a `--mask-cpu` list).
pub fn pairs_on(
    registry: &Registry,
    selection: &Selection,
    has: &dyn Fn(&str) -> bool,
) -> Result<(Vec<Pair>, Vec<Excluded>), HashError> {
    let algorithms: Vec<String> = match &selection.algorithms {
        Algorithms::Named(names) => {
            let mut out: Vec<String> = Vec::new();
            for n in names {
                let canonical = registry.algorithm(n)?.name.clone();
                if !out.contains(&canonical) {
                    out.push(canonical);
                }
            }
            out
        }
        choice => registry
            .algorithms()
            .iter()
            .filter(|a| match choice {
                Algorithms::All => true,
                Algorithms::Crypto => is_crypto(a.class),
                Algorithms::Fast => !is_crypto(a.class),
                _ => a.default_bench,
            })
            .map(|a| a.name.clone())
            .collect(),
    };
    let mut chosen = Vec::new();
    let mut excluded = Vec::new();
    for extra in &selection.also {
        let canonical = registry.algorithm(extra)?.name.clone();
        if !algorithms.contains(&canonical) {
            let (b, _) = registry.default_backend_on(&canonical, has)?;
            chosen.push((canonical, b.name.clone()));
        }
    }
    for alg in &algorithms {
        match &selection.backends {
            Backends::Default => {
                let (b, _) = registry.default_backend_on(alg, has)?;
                chosen.push((alg.clone(), b.name.clone()));
            }
            Backends::All | Backends::Named(_) => {
                let mut any = false;
                for b in registry.backends_of(alg)? {
                    if let Backends::Named(names) = &selection.backends {
                        if !names
                            .iter()
                            .any(|n| registry.backend(alg, n).is_ok_and(|x| x.name == b.name))
                        {
                            continue;
                        }
                    }
                    match b.status() {
                        BackendStatus::Available => {
                            chosen.push((alg.clone(), b.name.clone()));
                            any = true;
                        }
                        BackendStatus::Unavailable(reason) => excluded.push(Excluded {
                            algorithm: alg.clone(),
                            backend: b.name.clone(),
                            reason: reason.clone(),
                        }),
                    }
                }
                if !any {
                    if let Backends::Named(names) = &selection.backends {
                        excluded.push(Excluded {
                            algorithm: alg.clone(),
                            backend: names.join(","),
                            reason: "the algorithm has none of the backends asked for".into(),
                        });
                    }
                }
            }
        }
    }
    Ok((chosen, excluded))
}

/// Every cell to measure: the null row, each pair at each size single-threaded,
/// then the multi-thread and latency cells.
pub fn cells(registry: &Registry, pairs: &[Pair], selection: &Selection) -> Vec<CellSpec> {
    let mut cells = Vec::new();
    let sizes = selection.distinct_sizes();
    let cell = |alg: &str, backend: &str, size, mode| CellSpec {
        algorithm: alg.to_string(),
        backend: backend.to_string(),
        size,
        mode,
    };
    for &size in &sizes {
        cells.push(cell(
            NULL_ALGORITHM,
            NULL_BACKEND,
            size,
            Mode::Streams { threads: 1 },
        ));
    }
    for (alg, backend) in pairs {
        let parallel = registry.backend(alg, backend).is_ok_and(|b| b.parallel);
        for &size in &sizes {
            cells.push(cell(alg, backend, size, Mode::Streams { threads: 1 }));
            for &n in selection.threads.iter().filter(|n| **n > 1) {
                cells.push(cell(alg, backend, size, Mode::Streams { threads: n }));
                if parallel && size >= ONE_STREAM_MIN_SIZE {
                    cells.push(cell(alg, backend, size, Mode::OneStream { threads: n }));
                }
            }
            if selection.latency && size <= LATENCY_MAX_SIZE {
                cells.push(cell(alg, backend, size, Mode::Latency));
            }
        }
        if selection.keys {
            for chained in [false, true] {
                cells.push(cell(alg, backend, KEYS_MAX_LEN, Mode::Keys { chained }));
            }
        }
        if let Some(words) = &selection.table {
            cells.push(cell(
                alg,
                backend,
                words.len(),
                Mode::Table {
                    bytes: words.total_bytes(),
                },
            ));
        }
        if let Some(file) = &selection.file {
            cells.push(cell(
                alg,
                backend,
                file.size,
                Mode::File { cold: file.cold },
            ));
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_target_is_a_readable_file_with_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(FileTarget::open(&empty, false)
            .unwrap_err()
            .ends_with("the file is empty"));
        assert!(FileTarget::open(dir.path(), false)
            .unwrap_err()
            .ends_with("not a regular file"));
        let full = dir.path().join("full");
        std::fs::write(&full, b"abc").unwrap();
        assert_eq!(FileTarget::open(&full, true).unwrap().size, 3);
    }

    fn sel(algorithms: Algorithms, backends: Backends) -> Selection {
        Selection {
            algorithms,
            backends,
            sizes: vec![64, 1 << 20],
            threads: vec![1, 2],
            latency: true,
            keys: false,
            also: vec![],
            file: None,
            table: None,
        }
    }

    #[test]
    fn default_set_is_crypto_plus_three_fast_ones() {
        let r = Registry::default();
        let (p, _) = pairs(&r, &sel(Algorithms::Default, Backends::Default)).unwrap();
        let names: Vec<&str> = p.iter().map(|(a, _)| a.as_str()).collect();
        assert!(
            names.contains(&"sha256") && names.contains(&"kmac128") && names.contains(&"xxh3-64")
        );
        assert!(names.contains(&"highwayhash-64") && names.contains(&"crc32c"));
        assert!(!names.contains(&"xxh32") && !names.contains(&"siphash-2-4"));
        let (fast, _) = pairs(&r, &sel(Algorithms::Fast, Backends::Default)).unwrap();
        assert!(fast
            .iter()
            .all(|(a, _)| !["sha256", "hmac-sha256"].contains(&a.as_str())));
    }

    #[test]
    fn a_size_asked_twice_is_one_cell() {
        let r = Registry::default();
        let mut s = sel(Algorithms::Named(vec!["sha256".into()]), Backends::Default);
        s.sizes = vec![64, 64, 1024, 64];
        s.threads = vec![1];
        s.latency = false;
        let (p, _) = pairs(&r, &s).unwrap();
        let sizes: Vec<usize> = cells(&r, &p, &s)
            .iter()
            .filter(|c| c.algorithm == "sha256")
            .map(|c| c.size)
            .collect();
        assert_eq!(sizes, [64, 1024]);
    }

    #[test]
    fn defaults_follow_the_cpu_they_are_chosen_for() {
        let r = Registry::default();
        let s = sel(Algorithms::Named(vec!["sha256".into()]), Backends::Default);
        let with_sha = |f: &str| f == "sha";
        let without = |_: &str| false;
        let (p, _) = pairs_on(&r, &s, &with_sha).unwrap();
        assert_eq!(p[0].1, "rustcrypto");
        let (p, _) = pairs_on(&r, &s, &without).unwrap();
        assert_eq!(p[0].1, "openssl");
    }

    #[test]
    fn named_algorithms_and_backends() {
        let r = Registry::default();
        let s = sel(
            Algorithms::Named(vec!["SHA-256".into(), "blake3".into()]),
            Backends::Named(vec!["openssl".into()]),
        );
        let (p, excluded) = pairs(&r, &s).unwrap();
        assert_eq!(p, vec![("sha256".to_string(), "openssl".to_string())]);
        assert_eq!(excluded[0].algorithm, "blake3");
        assert!(matches!(
            pairs(
                &r,
                &sel(Algorithms::Named(vec!["nope".into()]), Backends::Default)
            ),
            Err(HashError::UnknownAlgorithm { .. })
        ));
    }

    #[test]
    fn short_keys_are_two_cells_per_pair_when_asked() {
        let r = Registry::default();
        let p = vec![("rapidhash".to_string(), "rapidhash".to_string())];
        let mut s = sel(Algorithms::Default, Backends::Default);
        let keys = |s: &Selection| {
            cells(&r, &p, s)
                .into_iter()
                .filter(|c| matches!(c.mode, Mode::Keys { .. }))
                .map(|c| (c.algorithm, c.size, c.mode))
                .collect::<Vec<_>>()
        };
        assert!(keys(&s).is_empty(), "only when asked");
        s.keys = true;
        assert_eq!(
            keys(&s),
            [false, true].map(|chained| (
                "rapidhash".to_string(),
                KEYS_MAX_LEN,
                Mode::Keys { chained }
            ))
        );
    }

    #[test]
    fn cells_cover_modes_where_they_apply() {
        let r = Registry::default();
        let p = vec![
            ("sha256".to_string(), "openssl".to_string()),
            ("blake3".to_string(), "blake3".to_string()),
        ];
        let c = cells(&r, &p, &sel(Algorithms::Default, Backends::Default));
        let has = |alg: &str, size, mode| {
            c.iter()
                .any(|x| x.algorithm == alg && x.size == size && x.mode == mode)
        };
        assert!(has("null", 64, Mode::Streams { threads: 1 }));
        assert!(has("sha256", 64, Mode::Streams { threads: 2 }));
        assert!(
            !has("sha256", 1 << 20, Mode::OneStream { threads: 2 }),
            "no parallel mode: n/a"
        );
        assert!(has("blake3", 1 << 20, Mode::OneStream { threads: 2 }));
        assert!(!has("blake3", 64, Mode::OneStream { threads: 2 }));
        assert!(has("blake3", 64, Mode::Latency));
        assert!(!has("blake3", 1 << 20, Mode::Latency));
    }
}
