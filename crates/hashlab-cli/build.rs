//! Builds the manual pages and shell completions into `<target>/<profile>/man`
//! and `.../completions`, from the same clap definition the binary parses with.

#[path = "../hashlab-bench/src/defaults.rs"]
mod bench_defaults;
#[allow(dead_code)]
#[path = "src/cli.rs"]
mod cli;
#[path = "src/manual.rs"]
mod manual;

use std::path::PathBuf;

use clap::CommandFactory;

fn main() {
    println!("cargo:rerun-if-changed=src/cli.rs");
    println!("cargo:rerun-if-changed=src/manual.rs");
    println!("cargo:rerun-if-changed=../hashlab-bench/src/defaults.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is <target>/<profile>/build/<crate>-<hash>/out.
    let Some(profile_dir) = out.ancestors().nth(3) else {
        return;
    };
    let man = profile_dir.join("man");
    // Where the pages went, for the test that checks they are there.
    println!("cargo:rustc-env=HASHLAB_BUILT_MAN_DIR={}", man.display());
    // The build's own directory: plain writes suffice.
    let written = std::fs::create_dir_all(&man).and_then(|()| {
        manual::pages(cli::Cli::command())?
            .into_iter()
            .try_for_each(|(name, roff)| std::fs::write(man.join(name), roff))
    });
    if let Err(e) = written {
        println!(
            "cargo:warning=manual pages not written to {}: {e}",
            man.display()
        );
    }
    let completions = profile_dir.join("completions");
    if std::fs::create_dir_all(&completions).is_ok() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            if let Err(e) =
                clap_complete::generate_to(shell, &mut cli::Cli::command(), "hashlab", &completions)
            {
                println!("cargo:warning=completions not written: {e}");
            }
        }
    }
}
