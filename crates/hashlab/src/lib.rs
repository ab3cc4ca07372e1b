//! hashlab: one streaming [`Hasher`] trait, one [`Registry`] of every
//! (algorithm, backend) pair, and the metadata that says how each algorithm
//! takes keys, output lengths and customization strings.
//!
//! ```
//! use hashlab::{HashParams, Registry};
//!
//! let registry = Registry::default();
//! // The name is looked up once; the choice is what a program carries.
//! let sha256 = registry.resolve("sha256", None, &HashParams::default()).unwrap();
//! let mut hasher = sha256.hasher();
//! hasher.update(b"abc");
//! assert_eq!(
//!     hasher.finalize_reset().to_hex(),
//!     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
//! );
//! ```
//!
//! The library prints nothing, reads no files and keeps no global state; every
//! hasher is `Send`, so it can be moved into worker threads.

mod algorithm;
mod backend;
mod backends;
mod catalog;
mod choice;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod cpu;
pub mod dispatch;
mod error;
mod hasher;
pub mod hex;
mod registry;

pub use algorithm::{
    Algorithm, ByteRange, Class, DomainRule, FileBound, ForeignTag, KeyRule, LineForm, Lineage,
    OutputRule, Preference, TreeRule, XOF_MAX_OUTPUT,
};
pub use backend::{Backend, BackendStatus, Constructor};
pub use choice::Choice;
pub use error::{HashError, Parameter};
pub use hasher::{Blake2Tree, Config, Digest, HashParams, Hasher, Stateless};
pub use registry::{resolutions, Found, Registry};

/// This crate's version, for reports that record what produced them.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
