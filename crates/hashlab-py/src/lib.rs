//! The `hashlab._hashlab` extension module: the Rust core seen from Python.
//!
//! The Python package (python/hashlab) re-exports what users call and adds
//! the parts that are plain Python (`hash_files`' error handling, the Dask
//! integration). Every failure reaches Python as an exception: ValueError for
//! a bad argument value, TypeError for a wrong type, OSError for a file.

mod bench;
mod buffer;
mod files;
mod hash;
mod interrupt;
mod objects;

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
    use super::files::{format_manifest, hash_paths, read_manifest, walk, write_file};
    #[pymodule_export]
    use super::hash::{algorithm_info, new, Hash};
    #[pymodule_export]
    use super::objects::{hash_objects, list_objects};

    use pyo3::prelude::*;
    use pyo3::types::PyFrozenSet;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let names: Vec<&str> = super::registry()
            .algorithms()
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        m.add("algorithms_available", PyFrozenSet::new(m.py(), &names)?)?;
        m.add("__version__", hashlab::VERSION)?;
        Ok(())
    }
}
