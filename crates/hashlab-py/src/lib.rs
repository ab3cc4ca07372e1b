//! The `hashlab._hashlab` extension module: the Rust core seen from Python.
//!
//! The Python package (python/hashlab) re-exports what users call and adds
//! the parts that are plain Python (`hash_files`' error handling, the Dask
//! integration). Every failure reaches Python as an exception: ValueError for
//! a bad argument value, TypeError for a wrong type, OSError for a file.

mod bench;
mod buffer;
mod fastcall;
mod files;
mod hash;
mod hash_type;
mod interrupt;
mod kdf;
mod like;
#[cfg(feature = "objects")]
mod objects;
mod parameterized;
mod partitions;
mod remembered;

use std::collections::HashMap;
use std::sync::OnceLock;

use hashlab::{HashError, Registry};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The registry is immutable once built, and building it (36 algorithms, 87
/// backends and their CPU probes) costs more than hashing a short message, so
/// the module builds it once instead of on every `new()`.
fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::default)
}

/// hashlib's `algorithms_guaranteed`: the names hashlib promises on every
/// platform, which are how hashlib's users spell these algorithms.
pub const HASHLIB_GUARANTEED: [&str; 14] = [
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "blake2b",
    "blake2s",
    "sha3_224",
    "sha3_256",
    "sha3_384",
    "sha3_512",
    "shake_128",
    "shake_256",
];

/// Every algorithm's Python name, hashlib's spelling: a name (canonical or
/// alias) that hashlib guarantees, else the canonical name with `-` as `_`
/// (`xxh3_64`, `hmac_sha256`), which is also a Python identifier, so each
/// algorithm gets a constructor `hashlab.<name>()`.
pub struct PythonNames {
    by_canonical: HashMap<String, String>,
    to_canonical: HashMap<String, String>,
}

impl PythonNames {
    fn new(registry: &Registry) -> PythonNames {
        let mut names = PythonNames {
            by_canonical: HashMap::new(),
            to_canonical: HashMap::new(),
        };
        for algorithm in registry.algorithms() {
            let spellings = std::iter::once(&algorithm.name).chain(&algorithm.aliases);
            let python = spellings
                .map(|n| n.replace('-', "_"))
                .find(|n| HASHLIB_GUARANTEED.contains(&n.as_str()))
                .unwrap_or_else(|| algorithm.name.replace('-', "_"));
            names
                .to_canonical
                .insert(python.clone(), algorithm.name.clone());
            names.by_canonical.insert(algorithm.name.clone(), python);
        }
        names
    }

    /// The Python name of a canonical name.
    pub fn python<'a>(&'a self, canonical: &'a str) -> &'a str {
        self.by_canonical.get(canonical).map_or(canonical, |n| n)
    }

    /// The canonical name a Python name (in any case, as hashlib.new takes
    /// `"SHA256"`) stands for, if it is one.
    pub fn canonical(&self, python: &str) -> Option<&str> {
        self.to_canonical
            .get(python)
            .or_else(|| self.to_canonical.get(&python.to_ascii_lowercase()))
            .map(String::as_str)
    }

    /// (Python name, canonical name) of every algorithm, in registry order.
    pub fn pairs(&self, registry: &Registry) -> Vec<(String, String)> {
        registry
            .algorithms()
            .iter()
            .map(|a| (self.python(&a.name).to_string(), a.name.clone()))
            .collect()
    }
}

fn python_names() -> &'static PythonNames {
    static NAMES: OnceLock<PythonNames> = OnceLock::new();
    NAMES.get_or_init(|| PythonNames::new(registry()))
}

fn value_error(error: HashError) -> PyErr {
    let message = match &error {
        // The binding, like the CLI, names its own arguments.
        HashError::LengthNotAccepted { algorithm, fixed } => {
            format!("{algorithm} has a fixed output of {fixed} bytes; length= is not accepted")
        }
        _ => error.to_string(),
    };
    PyValueError::new_err(message)
}

#[pymodule]
mod _hashlab {
    #[pymodule_export]
    use super::bench::{bench, compare};
    #[pymodule_export]
    use super::files::{
        format_manifest, format_sidecar, hash_paths, read_manifest, read_sidecar, walk, write_file,
    };
    #[pymodule_export]
    use super::hash::{algorithm_info, digest, hexdigest, named_functions, new};
    #[pymodule_export]
    use super::kdf::scrypt;
    #[cfg(feature = "objects")]
    #[pymodule_export]
    use super::objects::{
        compare_pairs, hash_objects, list_objects, local_keys, pair_store, pair_store_range,
    };
    #[pymodule_export]
    use super::parameterized::parameterized_type;
    #[pymodule_export]
    use super::partitions::{hash_packed, merge_packed, split_packed, walk_packed};

    use pyo3::prelude::*;
    use pyo3::types::PyFrozenSet;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let registry = super::registry();
        let pairs = super::python_names().pairs(registry);
        let names: Vec<&str> = pairs.iter().map(|(python, _)| python.as_str()).collect();
        m.add("algorithms_available", PyFrozenSet::new(m.py(), &names)?)?;
        let guaranteed: Vec<&str> = super::HASHLIB_GUARANTEED
            .iter()
            .copied()
            .filter(|n| names.contains(n))
            .collect();
        m.add(
            "algorithms_guaranteed",
            PyFrozenSet::new(m.py(), &guaranteed)?,
        )?;
        m.add("python_names", pairs)?;
        m.add("__version__", hashlab::VERSION)?;
        m.add("Hash", super::hash_type::hash_type(m.py())?)?;
        super::buffer::measure_bytes_layout(m.py());
        Ok(())
    }
}
