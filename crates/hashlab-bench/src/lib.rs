//! The measurement engine: plan → run → results, plus what machine a
//! measurement ran on and how fast its cores were clocked. Results are plain
//! serde data; the library prints nothing and keeps no global state.

pub mod clock;
pub mod comparison;
pub mod defaults;
pub mod environment;
pub mod harness;
pub mod like;
pub mod limits;
pub mod machine;
pub mod mask;
pub mod plan;
pub mod programs;
pub mod regression;
pub mod report;
mod request;
pub mod results;
pub mod runner;
pub mod runtimes;
pub mod selection;
pub mod sizes;
pub mod stats;
pub mod tables;
pub mod usable;
pub mod words;
pub mod workbench;
