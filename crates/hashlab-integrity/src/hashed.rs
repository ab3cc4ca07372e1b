//! What reading a file into a hasher yields, shared by the reading paths
//! (`read.rs` and the memory maps of `mapped.rs`) so that neither imports
//! the other's types.

use hashlab::Digest;

/// A finished hash and how many bytes went into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hashed {
    pub digest: Digest,
    pub bytes: u64,
}
