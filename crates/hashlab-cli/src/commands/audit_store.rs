//! `hashlab audit DIR s3://bucket/prefix`: a local tree against a store
//! prefix, with no manifest. The library compares; this prints.

use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_objects::compare::{compare_tree, CompareError, Mode, TreeComparison, Verdict};
use hashlab_objects::{ObjectReader, Settings as ObjectSettings};
use serde::Serialize;

use crate::cli::{AuditArgs, Format};
use crate::commands::audit::AuditRow;
use crate::failure::Failure;
use crate::output::render;

/// What one comparison calls its two sides and the rows found on one side only.
pub(crate) struct RowWords {
    /// "the {local} gives ..., the {store} has ..."
    pub local: &'static str,
    pub store: &'static str,
    /// Status and detail of a name on the local side only, then on the store's.
    pub only_local: (&'static str, &'static str),
    pub only_in_store: (&'static str, &'static str),
}

const TREE_WORDS: RowWords = RowWords {
    local: "file",
    store: "store",
    only_local: ("only-local", "no object with this key"),
    only_in_store: ("only-in-store", "no file with this path"),
};

/// A comparison's rows, worst first: changed, one side only, not comparable,
/// unreadable, then matched.
pub(crate) fn comparison_rows(found: &TreeComparison, words: &RowWords) -> Vec<AuditRow> {
    let row = |status, name: &str, detail: String| AuditRow {
        status,
        name: name.to_string(),
        detail,
    };
    let mut out = Vec::new();
    for (name, verdict) in &found.compared {
        if let Verdict::Changed { by, local, store } = verdict {
            out.push(row(
                "changed",
                name,
                format!(
                    "{by}: the {} gives {local}, the {} has {store}",
                    words.local, words.store
                ),
            ));
        }
    }
    let (status, detail) = words.only_local;
    out.extend(
        found
            .only_local
            .iter()
            .map(|n| row(status, n, detail.into())),
    );
    let (status, detail) = words.only_in_store;
    out.extend(
        found
            .only_in_store
            .iter()
            .map(|n| row(status, n, detail.into())),
    );
    for (name, verdict) in &found.compared {
        if let Verdict::NotComparable { reason } = verdict {
            out.push(row("not-comparable", name, reason.clone()));
        }
    }
    out.extend(
        found
            .errors
            .iter()
            .map(|(n, why)| row("unreadable", n, why.clone())),
    );
    for (name, verdict) in &found.compared {
        if let Verdict::Matched { by } = verdict {
            out.push(row("matched", name, by.clone()));
        }
    }
    out
}

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

pub fn run(args: &AuditArgs, dir: &Path, prefix: &str, jobs: usize) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let mode = if args.download {
        Mode::Download {
            algorithm: args
                .algorithm
                .clone()
                .unwrap_or_else(|| hashlab_integrity::DEFAULT_ALGORITHM.to_string()),
        }
    } else {
        if args.algorithm.is_some() {
            return Err(Failure::Usage(
                "-a: a directory is compared with the checksums the store recorded, whatever their algorithm; -a chooses the hash of --download".into(),
            ));
        }
        Mode::Recorded
    };
    let reader = ObjectReader::new(ObjectSettings::default())
        .map_err(|e| Failure::Runtime(format!("object-store client: {e}")))?;
    let found =
        compare_tree(&reader, &registry, dir, prefix, &mode, jobs).map_err(|e| match e {
            CompareError::Hash(e) => Failure::Usage(format!("-a: {e}")),
            CompareError::NotADirectory(_) | CompareError::NotAPrefix(_) => {
                Failure::Usage(e.to_string())
            }
            CompareError::Listing(e) => Failure::Runtime(e.to_string()),
        })?;
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
            let mut json = serde_json::to_vec_pretty(&Json {
                passed,
                directory: dir.display().to_string(),
                prefix,
                mode: match mode {
                    Mode::Recorded => "recorded",
                    Mode::Download { .. } => "download",
                },
                proves: mode.proves(),
                counts,
                rows: rows(&found),
            })
            .map_err(|e| Failure::Runtime(e.to_string()))?;
            json.push(b'\n');
            json
        }
        Some(format) => {
            let mut rows = rows(&found);
            if format != Format::Csv {
                crate::commands::audit::escape_row_names(&mut rows);
            }
            render(&rows, format)?
        }
        None => {
            let mut text = String::new();
            for r in rows(&found).into_iter().filter(|r| r.status != "matched") {
                text.push_str(&crate::commands::audit::row_line(
                    r.status, &r.name, &r.detail,
                ));
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
    };
    crate::stdio::write_out(&bytes)?;
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
