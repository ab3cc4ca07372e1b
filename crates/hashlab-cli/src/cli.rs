use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// A hash-function laboratory and integrity tool.
#[derive(Parser, Debug)]
#[command(name = "hashlab", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Every algorithm with its backends, the default backend and why.
    List(ListArgs),
    /// Hash files (or standard input) and print manifest lines.
    Sum(SumArgs),
    /// This machine as benchmarks see it: CPU, caches, features, measured core
    /// clock, and the SIMD path each algorithm's default backend takes here.
    Cpu(CpuArgs),
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
    Md,
}

/// `--format` and its `--json` shorthand, shared by every data-printing command.
#[derive(Args, Debug, Clone)]
pub struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Short for --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

impl FormatArgs {
    pub fn chosen(&self) -> Option<Format> {
        if self.json {
            Some(Format::Json)
        } else {
            self.format
        }
    }
}

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Args, Debug)]
pub struct SumArgs {
    /// Algorithm (see `hashlab list`; case-insensitive, aliases accepted).
    #[arg(short, long, default_value = "sha256")]
    pub algorithm: String,
    /// Backend (implementation); default: the algorithm's preferred available one.
    #[arg(short, long)]
    pub backend: Option<String>,
    /// Output length in bytes, for XOFs and variable-length hashes.
    #[arg(short, long, value_name = "BYTES")]
    pub length: Option<usize>,
    /// Key as hex.
    #[arg(long, value_name = "HEX", conflicts_with = "key_file")]
    pub key: Option<String>,
    /// Read the key (raw bytes) from a file, so it never shows in `ps`.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// Customization string (KMAC's S, KangarooTwelve's C), as text.
    #[arg(long, value_name = "TEXT", conflicts_with = "custom_hex")]
    pub custom: Option<String>,
    /// Customization string as hex.
    #[arg(long, value_name = "HEX")]
    pub custom_hex: Option<String>,
    /// BSD-style lines: `TAG (name) = hex`.
    #[arg(long)]
    pub tag: bool,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Files to hash; none or `-` means standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CpuArgs {
    /// Time spent measuring the core clock, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub clock_ms: u64,
    #[command(flatten)]
    pub format: FormatArgs,
}
