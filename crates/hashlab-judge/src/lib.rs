//! Judgement beside the numbers: security facts with their sources, which
//! libraries and tools ship each algorithm (as a reviewed table, and as found
//! by live probes of this machine), and a recommendation per use that weighs
//! both against measured speed.
//!
//! The library runs other programs (the ecosystem probes, a quick bench) but
//! prints nothing and keeps no global state; results are serde data.

pub mod availability;
pub mod ecosystem;
pub mod facts;
pub mod info;
pub mod listing;
pub mod pages;
pub mod pick;
pub mod pick_like;
pub use hashlab_bench::programs as run;
pub mod speed;

pub use availability::{Availability, Entry, Offer};
pub use facts::{AlgorithmFacts, Facts, Source};
