//! The `hashlab` command's modules. The binary (`main.rs`) only dispatches;
//! the library exists so that the fuzz target (`fuzz/fuzz_targets/cli_args.rs`)
//! can parse and validate argument lists with [`validate::validate`] without
//! running a command. Not an API for other crates.

#[macro_use]
pub mod stdio;
pub mod cli;
/// Named so for `cli.rs`, which the build script compiles beside the same file.
pub use hashlab_bench::defaults as bench_defaults;
pub mod commands;
pub mod failure;
mod manual;
pub mod multicall;
pub mod output;
pub mod shared;
pub mod validate;
