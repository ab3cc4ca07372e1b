//! The bench's defaults that a command line shows in its help. This file has
//! no dependencies so that the CLI's build script (manual pages, completions)
//! can include it too: the help and the library cannot disagree.

/// The seed of the inputs and of the order of cells, unless one is given.
pub const DEFAULT_SEED: u64 = 1;
/// The algorithm speed-ups are relative to, unless one is named.
pub const DEFAULT_BASELINE: &str = "sha256";
