//! `hashlab list`: the registry as a table (hashlab-judge's `listing`).

use std::process::ExitCode;

use hashlab::Registry;
use hashlab_judge::listing::{document, listing};

use crate::cli::{Format, ListArgs};
use crate::failure::Failure;
use crate::output::print;

pub fn run(args: &ListArgs) -> Result<ExitCode, Failure> {
    let format = args.format.chosen().unwrap_or(Format::Table);
    let rows = listing(&Registry::default());
    print(&rows, format, |rows| {
        document(rows, format == Format::Table)
    })
}
