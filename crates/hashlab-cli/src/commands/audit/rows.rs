//! The rows every audit prints (a manifest's, a store's, a batch
//! report's), and how names show in them for people.

use hashlab_integrity::AuditReport;
use hashlab_objects::compare::{TreeComparison, Verdict};
use serde::Serialize;

use crate::output::Tabular;

/// One name's outcome, a row of every audit's table, CSV and JSON.
#[derive(Serialize)]
pub(super) struct AuditRow {
    pub status: &'static str,
    pub name: String,
    pub detail: String,
}

impl Tabular for AuditRow {
    fn headers() -> &'static [&'static str] {
        &["status", "name", "detail"]
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.status.to_string(),
            self.name.clone(),
            self.detail.clone(),
        ]
    }
}

/// A manifest audit's rows, worst first.
pub(super) fn rows(report: &AuditReport) -> Vec<AuditRow> {
    let row = |status, name: &str, detail: &str| AuditRow {
        status,
        name: name.to_string(),
        detail: detail.to_string(),
    };
    let mut out = Vec::new();
    out.extend(
        report
            .changed
            .iter()
            .map(|n| row("changed", n, "content differs from the manifest")),
    );
    out.extend(report.missing.iter().map(|n| row("missing", n, "")));
    out.extend(report.moved.iter().map(|(from, to)| row("moved", from, to)));
    out.extend(
        report
            .new
            .iter()
            .map(|n| row("new", n, "not in the manifest")),
    );
    out.extend(
        report
            .unreadable
            .iter()
            .map(|(n, why)| row("unreadable", n, why)),
    );
    out.extend(
        report
            .skipped
            .iter()
            .map(|(n, what)| row("skipped", n, what)),
    );
    out.extend(report.matched.iter().map(|n| row("matched", n, "")));
    out.extend(
        report
            .assumed
            .iter()
            .map(|n| row("assumed", n, "size and mtime as recorded; not re-hashed")),
    );
    out
}

/// A name as audit's human output shows it (escaped as coreutils escapes
/// names), and whether it was escaped.
pub(super) fn human_name(name: &str) -> (String, bool) {
    let (bytes, escaped) = hashlab_integrity::escape_name(name.as_bytes());
    (String::from_utf8_lossy(&bytes).into_owned(), escaped)
}

/// Rows as a table for people shows them (every format but CSV and JSON,
/// which programs read): names escaped, the destination of a move too, so
/// that no name starts a line of its own.
pub(super) fn escape_row_names(rows: &mut [AuditRow]) {
    for r in rows {
        r.name = human_name(&r.name).0;
        if r.status == "moved" {
            r.detail = human_name(&r.detail).0;
        }
    }
}

/// `line` (naming a file) as audit's text prints it: starting with a
/// backslash where a name in it was escaped, as coreutils marks such
/// lines, so that a name holding a newline cannot forge a line (a
/// verdict) of its own.
pub(super) fn marked(line: String, escaped: bool) -> String {
    if escaped {
        format!("\\{line}")
    } else {
        line
    }
}

/// `STATUS: NAME: DETAIL` as the store audits print a row, the name
/// escaped ([`marked`]).
pub(super) fn row_line(status: &str, name: &str, detail: &str) -> String {
    let (name, escaped) = human_name(name);
    marked(format!("{status}: {name}: {detail}\n"), escaped)
}

/// What one comparison calls its two sides and the rows found on one side only.
pub(super) struct RowWords {
    /// "the {local} gives ..., the {store} has ..."
    pub local: &'static str,
    pub store: &'static str,
    /// Status and detail of a name on the local side only, then on the store's.
    pub only_local: (&'static str, &'static str),
    pub only_in_store: (&'static str, &'static str),
}

/// A comparison's rows, worst first: changed, one side only, not comparable,
/// unreadable, then matched.
pub(super) fn comparison_rows(found: &TreeComparison, words: &RowWords) -> Vec<AuditRow> {
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

/// `audit`'s rows with, for each changed file whose pieces say where, the
/// ranges in place of the bare "content differs".
pub(super) fn with_ranges(
    mut rows: Vec<AuditRow>,
    changed: &[hashlab_integrity::ChangedPieces],
) -> Vec<AuditRow> {
    for row in &mut rows {
        if row.status == "changed" {
            if let Some(c) = changed.iter().find(|c| c.name == row.name) {
                row.detail = c.comparison.describe();
            }
        }
    }
    rows
}

/// An audit's JSON document, pretty, newline-ended.
pub(super) fn json<T: Serialize>(document: &T) -> Result<Vec<u8>, crate::failure::Failure> {
    let mut bytes = serde_json::to_vec_pretty(document)
        .map_err(|e| crate::failure::Failure::Runtime(e.to_string()))?;
    bytes.push(b'\n');
    Ok(bytes)
}
