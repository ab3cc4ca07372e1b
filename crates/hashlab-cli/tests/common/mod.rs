//! What the test files share: running the binary in a directory, reading
//! its output, and finding the peer tools its output is compared with.
// Each test file uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A directory of one test's own under the system's temporary directory,
/// removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// An empty one; `name` keeps a test binary's tests apart (the process
    /// id keeps binaries apart).
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("hashlab-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// One holding these files (names relative to it; parent directories made).
    pub fn with_files(name: &str, files: &[(&str, &[u8])]) -> Scratch {
        let scratch = Scratch::new(name);
        for (file, content) in files {
            scratch.write(file, content);
        }
        scratch
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, name: &str, content: &[u8]) {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, content).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

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
