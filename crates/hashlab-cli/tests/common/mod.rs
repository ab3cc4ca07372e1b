//! What the test files share: running the binary in a directory, reading
//! its output, and finding the peer tools its output is compared with.
// Each test file uses only some of these.
#![allow(dead_code)]

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

/// A peer tool (coreutils, rhash, b3sum, openssl...) when it is installed.
/// Where it is not, says so and returns None; under CI (`HASHLAB_CI`), where
/// scripts/setup has installed every peer, fails instead.
pub fn peer(tool: &str) -> Option<Command> {
    // `openssl` answers `version`, the others `--version`.
    let answers = |arg: &str| {
        Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if answers("--version") || answers("version") {
        return Some(Command::new(tool));
    }
    let reason = format!("{tool} is not installed (scripts/setup installs it)");
    assert!(
        std::env::var_os("HASHLAB_CI").is_none_or(|v| v.is_empty()),
        "HASHLAB_CI is set and a peer tool is missing: {reason}"
    );
    eprintln!("SKIPPED: {reason}");
    None
}
