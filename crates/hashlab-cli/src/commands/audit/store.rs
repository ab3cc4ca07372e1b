//! `hashlab audit DIR s3://bucket/prefix`: a local tree against a store
//! prefix, with no manifest. The library compares; this prints.

use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_objects::compare::{compare_tree, Mode, TreeComparison, Verdict};
use hashlab_objects::{ObjectReader, Settings as ObjectSettings};
use serde::Serialize;

use super::request::{store_refusal, StoreRun};
use super::rows::{
    comparison_rows, escape_row_names, json as json_bytes, row_line, AuditRow, RowWords,
};
use crate::cli::{AuditArgs, Format};
use crate::failure::Failure;
use crate::output::render;

const TREE_WORDS: RowWords = RowWords {
    local: "file",
    store: "store",
    only_local: ("only-local", "no object with this key"),
    only_in_store: ("only-in-store", "no file with this path"),
};

fn rows(found: &TreeComparison) -> Vec<AuditRow> {
    comparison_rows(found, &TREE_WORDS)
}

#[derive(Serialize)]
struct Counts {
    matched: usize,
    changed: usize,
    only_local: usize,
    only_in_store: usize,
    not_comparable: usize,
    unreadable: usize,
}

#[derive(Serialize)]
struct Json<'a> {
    passed: bool,
    directory: String,
    prefix: &'a str,
    mode: &'static str,
    proves: &'static str,
    counts: Counts,
    rows: Vec<AuditRow>,
}

pub(super) fn run(args: &AuditArgs, dir: &Path, run: StoreRun) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let StoreRun { prefix, mode, jobs } = run;
    let reader = ObjectReader::new(ObjectSettings::default())
        .map_err(|e| Failure::Runtime(format!("object-store client: {e}")))?;
    let found =
        compare_tree(&reader, &registry, dir, &prefix, &mode, jobs).map_err(store_refusal)?;
    let counts = Counts {
        matched: found.count(|v| matches!(v, Verdict::Matched { .. })),
        changed: found.count(|v| matches!(v, Verdict::Changed { .. })),
        only_local: found.only_local.len(),
        only_in_store: found.only_in_store.len(),
        not_comparable: found.count(|v| matches!(v, Verdict::NotComparable { .. })),
        unreadable: found.errors.len(),
    };
    let passed = found.passed();
    let bytes = match args.format.chosen() {
        Some(Format::Json) => {
            let json = Json {
                passed,
                directory: dir.display().to_string(),
                prefix: &prefix,
                mode: match mode {
                    Mode::Recorded => "recorded",
                    Mode::Download { .. } => "download",
                },
                proves: mode.proves(),
                counts,
                rows: rows(&found),
            };
            json_bytes(&json)?
        }
        Some(format) => {
            let mut rows = rows(&found);
            if format != Format::Csv {
                escape_row_names(&mut rows);
            }
            render(&rows, format)?
        }
        None => text(&found, &counts, dir, &prefix, passed, &mode),
    };
    crate::stdio::write_out(&bytes)?;
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What differs, one line each, then the counts; what the comparison
/// proves on stderr.
fn text(
    found: &TreeComparison,
    counts: &Counts,
    dir: &Path,
    prefix: &str,
    passed: bool,
    mode: &Mode,
) -> Vec<u8> {
    let mut text = String::new();
    for r in rows(found).into_iter().filter(|r| r.status != "matched") {
        text.push_str(&row_line(r.status, &r.name, &r.detail));
    }
    text.push_str(&format!(
        "{}: {} matched, {} changed, {} only in {}, {} only in {prefix}, {} not comparable, {} unreadable\n",
        if passed { "audit passed" } else { "audit FAILED" },
        counts.matched,
        counts.changed,
        counts.only_local,
        dir.display(),
        counts.only_in_store,
        counts.not_comparable,
        counts.unreadable,
    ));
    errln!("hashlab: audit: {}", mode.proves());
    text.into_bytes()
}
