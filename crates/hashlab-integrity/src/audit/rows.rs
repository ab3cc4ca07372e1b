//! What an audit reports, as data: one row per name with its status and
//! detail, the counts, the summary line's words, and the document a
//! manifest's audit serializes to. Every audit (a manifest against its tree,
//! a tree against a store, a manifest against a store's report) speaks in
//! these rows; hashlab-objects words its comparisons' rows the same way.

use serde::Serialize;

use super::AuditReport;
use crate::lines::escape_name;
use crate::pieces::ChangedPieces;

/// What became of one name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowStatus {
    Changed,
    Missing,
    Moved,
    New,
    Unreadable,
    Skipped,
    Matched,
    /// Not re-hashed: size and times as recorded (`changed_only`).
    Assumed,
    /// A file with no object.
    OnlyLocal,
    /// An object with no file.
    OnlyInStore,
    /// The store keeps nothing the file's hash can be compared with.
    NotComparable,
}

impl RowStatus {
    /// The status as every output spells it (`only-in-store`).
    pub fn as_str(self) -> &'static str {
        match self {
            RowStatus::Changed => "changed",
            RowStatus::Missing => "missing",
            RowStatus::Moved => "moved",
            RowStatus::New => "new",
            RowStatus::Unreadable => "unreadable",
            RowStatus::Skipped => "skipped",
            RowStatus::Matched => "matched",
            RowStatus::Assumed => "assumed",
            RowStatus::OnlyLocal => "only-local",
            RowStatus::OnlyInStore => "only-in-store",
            RowStatus::NotComparable => "not-comparable",
        }
    }
}

/// One name's outcome: a row of every audit's table, CSV and JSON. For a
/// move, `detail` is where the content is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditRow {
    pub status: RowStatus,
    pub name: String,
    pub detail: String,
}

impl AuditRow {
    pub fn new(status: RowStatus, name: &str, detail: impl Into<String>) -> AuditRow {
        AuditRow {
            status,
            name: name.to_string(),
            detail: detail.into(),
        }
    }

    /// The row as a table for people shows it (every format but those
    /// programs read): names escaped as coreutils escapes them, a move's
    /// destination too, so that no name starts a line of its own.
    pub fn for_people(mut self) -> AuditRow {
        self.name = human_name(&self.name).0;
        if self.status == RowStatus::Moved {
            self.detail = human_name(&self.detail).0;
        }
        self
    }

    /// `STATUS: NAME: DETAIL`, newline-ended, as the audits against a store
    /// print a row; [`marked`] where the name was escaped.
    pub fn line(&self) -> String {
        let (name, escaped) = human_name(&self.name);
        let status = self.status.as_str();
        marked(format!("{status}: {name}: {}\n", self.detail), escaped)
    }
}

/// A name as audit's text shows it (escaped as coreutils escapes names),
/// and whether it was escaped.
fn human_name(name: &str) -> (String, bool) {
    let (bytes, escaped) = escape_name(name.as_bytes());
    (String::from_utf8_lossy(&bytes).into_owned(), escaped)
}

/// `line` (naming a file) starting with a backslash where a name in it was
/// escaped, as coreutils marks such lines, so that a name holding a newline
/// cannot forge a line (a verdict) of its own.
fn marked(line: String, escaped: bool) -> String {
    if escaped {
        format!("\\{line}")
    } else {
        line
    }
}

/// `audit passed` or `audit FAILED`, the summary line's first words.
pub fn verdict_words(passed: bool) -> &'static str {
    if passed {
        "audit passed"
    } else {
        "audit FAILED"
    }
}

/// How many names a manifest's audit found in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct AuditCounts {
    pub matched: usize,
    pub changed: usize,
    pub missing: usize,
    pub new: usize,
    pub moved: usize,
    pub unreadable: usize,
    pub skipped: usize,
    pub assumed: usize,
}

impl AuditCounts {
    pub fn of(report: &AuditReport) -> AuditCounts {
        AuditCounts {
            matched: report.matched.len(),
            changed: report.changed.len(),
            missing: report.missing.len(),
            new: report.new.len(),
            moved: report.moved.len(),
            unreadable: report.unreadable.len(),
            skipped: report.skipped.len(),
            assumed: report.assumed.len(),
        }
    }

    /// The words after the verdict: `3 matched, 0 changed, ...`; skipped
    /// names only when there are some, assumed ones whenever the audit
    /// could assume (`changed_only`).
    fn words(&self, changed_only: bool) -> String {
        let mut words = format!(
            "{} matched, {} changed, {} missing, {} new, {} moved, {} unreadable",
            self.matched, self.changed, self.missing, self.new, self.moved, self.unreadable
        );
        if self.skipped > 0 {
            words.push_str(&format!(
                ", {} skipped (not files audit reads)",
                self.skipped
            ));
        }
        if changed_only {
            words.push_str(&format!(", {} assumed (not re-hashed)", self.assumed));
        }
        words
    }
}

impl AuditReport {
    /// The report's rows, worst first.
    pub fn rows(&self) -> Vec<AuditRow> {
        use RowStatus::*;
        let mut out = Vec::new();
        let changed = "content differs from the manifest";
        out.extend(
            self.changed
                .iter()
                .map(|n| AuditRow::new(Changed, n, changed)),
        );
        out.extend(self.missing.iter().map(|n| AuditRow::new(Missing, n, "")));
        out.extend(self.moved.iter().map(|(n, to)| AuditRow::new(Moved, n, to)));
        let new = "not in the manifest";
        out.extend(self.new.iter().map(|n| AuditRow::new(New, n, new)));
        let unreadable = self.unreadable.iter();
        out.extend(unreadable.map(|(n, why)| AuditRow::new(Unreadable, n, why)));
        let skipped = self.skipped.iter();
        out.extend(skipped.map(|(n, what)| AuditRow::new(Skipped, n, what)));
        out.extend(self.matched.iter().map(|n| AuditRow::new(Matched, n, "")));
        let assumed = "size and mtime as recorded; not re-hashed";
        out.extend(
            self.assumed
                .iter()
                .map(|n| AuditRow::new(Assumed, n, assumed)),
        );
        out
    }
}

/// A manifest's audit as reported: what the audit found, where the changed
/// files that record pieces changed, and the manifest's lines that could
/// not be read. Serializes to `audit --json`'s document.
#[derive(Debug, Clone, Serialize)]
pub struct ManifestAudit {
    passed: bool,
    counts: AuditCounts,
    #[serde(flatten)]
    report: AuditReport,
    /// The manifest's lines that could not be read ("line 9: ...").
    manifest_problems: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    changed_pieces: Vec<ChangedPieces>,
    /// Whether unchanged-looking files were assumed intact, which the
    /// summary then counts.
    #[serde(skip)]
    changed_only: bool,
}

impl ManifestAudit {
    pub fn new(
        report: AuditReport,
        manifest_problems: Vec<String>,
        changed_pieces: Vec<ChangedPieces>,
        changed_only: bool,
    ) -> ManifestAudit {
        ManifestAudit {
            passed: report.passed(),
            counts: AuditCounts::of(&report),
            report,
            manifest_problems,
            changed_pieces,
            changed_only,
        }
    }

    pub fn passed(&self) -> bool {
        self.passed
    }

    pub fn report(&self) -> &AuditReport {
        &self.report
    }

    pub fn counts(&self) -> &AuditCounts {
        &self.counts
    }

    /// The rows, each changed file whose pieces say where it changed with
    /// those ranges in place of the bare "content differs".
    pub fn rows(&self) -> Vec<AuditRow> {
        let mut rows = self.report.rows();
        for row in &mut rows {
            if let Some(c) = self.pieces_of(row) {
                row.detail = c.comparison.describe();
            }
        }
        rows
    }

    fn pieces_of(&self, row: &AuditRow) -> Option<&ChangedPieces> {
        (row.status == RowStatus::Changed)
            .then(|| self.changed_pieces.iter().find(|c| c.name == row.name))
            .flatten()
    }

    /// `audit passed: 3 matched, 0 changed, ...`, without a newline.
    pub fn summary(&self) -> String {
        let words = self.counts.words(self.changed_only);
        format!("{}: {words}", verdict_words(self.passed))
    }

    /// The audit as its text prints it, like hashdeep's: a line for each
    /// name that did not match (with a second line for a changed file that
    /// says where), then the summary; matches only count.
    pub fn text(&self) -> String {
        let mut text = String::new();
        let rows = self.report.rows().into_iter();
        for r in rows.filter(|r| !matches!(r.status, RowStatus::Matched | RowStatus::Assumed)) {
            let (name, escaped) = human_name(&r.name);
            let status = r.status.as_str();
            let (line, escaped) = match r.status {
                RowStatus::Moved => {
                    let (to, to_escaped) = human_name(&r.detail);
                    (format!("moved: {name} -> {to}\n"), escaped || to_escaped)
                }
                RowStatus::Unreadable | RowStatus::Skipped => {
                    (format!("{status}: {name}: {}\n", r.detail), escaped)
                }
                _ => (format!("{status}: {name}\n"), escaped),
            };
            text.push_str(&marked(line, escaped));
            if let Some(pieces) = self.pieces_of(&r) {
                let line = format!("{name}: {}\n", pieces.comparison.describe());
                text.push_str(&marked(line, escaped));
            }
        }
        text.push_str(&self.summary());
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> AuditReport {
        AuditReport {
            matched: vec!["same".into()],
            changed: vec!["line\nbreak".into()],
            moved: vec![("old".into(), "new\\place".into())],
            skipped: vec![("link".into(), "a symbolic link".into())],
            ..AuditReport::default()
        }
    }

    #[test]
    fn rows_come_worst_first_with_their_words() {
        let rows = report().rows();
        let statuses: Vec<&str> = rows.iter().map(|r| r.status.as_str()).collect();
        assert_eq!(statuses, ["changed", "moved", "skipped", "matched"]);
        assert_eq!(rows[0].detail, "content differs from the manifest");
        assert_eq!(rows[1].detail, "new\\place");
        let json = serde_json::to_value(&rows[0]).unwrap();
        assert_eq!(json["status"], "changed");
        let only = AuditRow::new(RowStatus::OnlyInStore, "k", "");
        assert_eq!(
            serde_json::to_value(only).unwrap()["status"],
            "only-in-store"
        );
    }

    #[test]
    fn text_escapes_names_and_marks_their_lines() {
        let audit = ManifestAudit::new(report(), vec![], vec![], false);
        assert_eq!(
            audit.text(),
            "\\changed: line\\nbreak\n\
             \\moved: old -> new\\\\place\n\
             skipped: link: a symbolic link\n\
             audit FAILED: 1 matched, 1 changed, 0 missing, 0 new, 1 moved, 0 unreadable, 1 skipped (not files audit reads)\n"
        );
        let moved = audit.rows()[1].clone();
        assert_eq!(moved.line(), "moved: old: new\\place\n");
        assert_eq!(moved.for_people().detail, "new\\\\place");
        let odd = AuditRow::new(RowStatus::OnlyLocal, "a\nb", "no object");
        assert_eq!(odd.line(), "\\only-local: a\\nb: no object\n");
    }

    #[test]
    fn the_summary_counts_assumed_files_whenever_it_could_assume() {
        let passed = AuditReport {
            matched: vec!["a".into()],
            ..AuditReport::default()
        };
        let audit = ManifestAudit::new(passed, vec![], vec![], true);
        assert!(audit.passed());
        assert_eq!(
            audit.summary(),
            "audit passed: 1 matched, 0 changed, 0 missing, 0 new, 0 moved, 0 unreadable, 0 assumed (not re-hashed)"
        );
        let json = serde_json::to_value(&audit).unwrap();
        assert_eq!(json["counts"]["matched"], 1);
        assert_eq!(json["matched"][0], "a");
        assert!(json.get("changed_pieces").is_none());
    }
}
