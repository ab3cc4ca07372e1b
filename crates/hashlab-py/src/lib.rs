//! The `hashlab._hashlab` extension module: the Rust core seen from Python.
//!
//! The Python package (python/hashlab) re-exports what users call and adds
//! the parts that are plain Python (`hash_files`' error handling, the Dask
//! integration). Every failure reaches Python as an exception: ValueError for
//! a bad argument value, TypeError for a wrong type, OSError for a file.

mod bench;
mod buffer;
mod calls;
mod fastcall;
mod files;
mod functions;
mod guard;
mod hash;
mod hash_type;
mod interrupt;
mod kdf;
mod like;
mod made;
mod names;
#[cfg(feature = "objects")]
mod objects;
mod parameterized;
mod partitions;
mod remembered;
mod update;

use pyo3::prelude::*;

#[pymodule]
mod _hashlab {
    #[pymodule_export]
    use super::bench::{bench, compare};
    #[pymodule_export]
    use super::calls::new;
    #[pymodule_export]
    use super::files::{
        format_manifest, format_sidecar, hash_paths, read_manifest, read_sidecar, walk, write_file,
    };
    #[pymodule_export]
    use super::functions::{algorithm_info, digest, hexdigest, named_functions};
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
    #[pymodule_export]
    use super::update::{stamp_unchanged, update_tree, PendingUpdate};

    use pyo3::prelude::*;
    use pyo3::types::PyFrozenSet;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let registry = super::names::registry();
        let pairs = super::names::python_names().pairs(registry);
        let names: Vec<&str> = pairs.iter().map(|(python, _)| python.as_str()).collect();
        m.add("algorithms_available", PyFrozenSet::new(m.py(), &names)?)?;
        let guaranteed: Vec<&str> = super::names::HASHLIB_GUARANTEED
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
