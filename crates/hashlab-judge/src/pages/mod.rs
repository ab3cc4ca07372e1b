//! The pages of `info`, `ecosystem`, `pick` and a `quality` run as `hashlab_table::Document`s:
//! titled tables and lists for people, and one flat table (section, name,
//! value, detail) for CSV, whose readers expect a single header row. The
//! caller's exporters print them; words that name the caller's own options
//! come in through each page's `Hints`, since this library names none.

pub mod battery;
pub mod ecosystem;
pub mod info;
pub mod pick;
pub mod quality;
mod sections;

pub use sections::{flat_table, FlatRow};
