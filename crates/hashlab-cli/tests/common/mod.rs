//! What the file-tree tests (bitrot, sum_many) share: running the binary in a
//! directory and reading its output.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the `hashlab` binary under test in `dir`.
pub fn hashlab_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run hashlab")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
