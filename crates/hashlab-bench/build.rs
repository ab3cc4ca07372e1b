//! Records what built this crate (git commit, rustc, target) for every
//! report's `Environment`. Nothing here may fail the build: outside a git
//! checkout (a crate download, a tarball) the commit is simply unknown.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(program: &str, args: &[&str], dir: &Path) -> Option<String> {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    Some(String::from_utf8(output.stdout).ok()?.trim().to_string())
}

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    println!("cargo::rerun-if-changed=build.rs");

    let git = |args: &[&str]| run("git", args, &manifest_dir);
    if let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) {
        // --no-optional-locks: a status refresh must not rewrite the index,
        // which would re-trigger this script on the next build.
        let dirty = git(&["--no-optional-locks", "status", "--porcelain"])
            .is_some_and(|changes| !changes.is_empty());
        let suffix = if dirty { "-dirty" } else { "" };
        println!("cargo::rustc-env=HASHLAB_GIT_COMMIT={commit}{suffix}");

        // Re-run when HEAD moves, a commit lands, the index changes, or any
        // source in the workspace is edited (that is what makes it dirty).
        // `--git-path` resolves each file for linked worktrees too.
        let mut watched = vec![
            "HEAD".to_string(),
            "index".to_string(),
            "packed-refs".to_string(),
        ];
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watched.push(branch);
        }
        for name in &watched {
            // A watched path that does not exist would make cargo re-run this every build.
            if let Some(path) = git(&["rev-parse", "--git-path", name]) {
                let path = manifest_dir.join(path);
                if path.exists() {
                    println!("cargo::rerun-if-changed={}", path.display());
                }
            }
        }
        if let Some(top) = git(&["rev-parse", "--show-toplevel"]) {
            let top = PathBuf::from(top);
            for tracked in ["crates", "Cargo.toml", "Cargo.lock"] {
                println!("cargo::rerun-if-changed={}", top.join(tracked).display());
            }
        }
    }

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    if let Some(version) = run(&rustc, &["--version"], &manifest_dir) {
        println!("cargo::rustc-env=HASHLAB_RUSTC_VERSION={version}");
    }
    let target = std::env::var("TARGET").expect("set by cargo");
    println!("cargo::rustc-env=HASHLAB_TARGET={target}");
}
