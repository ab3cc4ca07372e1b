//! A comparison's findings as an audit reports them: hashlab-integrity's
//! [`AuditRow`]s, the counts, the summary line, and the documents `audit
//! DIR URL` and `audit MANIFEST URL --batch-report REPORT` serialize to.

use std::path::Path;

use hashlab_integrity::{verdict_words, AuditRow, RowStatus};
use serde::Serialize;

use crate::compare::{Mode, TreeComparison, Verdict};

/// What one comparison calls its two sides and the names found on one
/// side only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowWords {
    /// "the {local} gives ..., the {store} has ..."
    pub local: &'static str,
    pub store: &'static str,
    /// Status and detail of a name on the local side only, then on the store's.
    pub only_local: (RowStatus, &'static str),
    pub only_in_store: (RowStatus, &'static str),
}

impl RowWords {
    /// A directory against a store prefix.
    pub const TREE: RowWords = RowWords {
        local: "file",
        store: "store",
        only_local: (RowStatus::OnlyLocal, "no object with this key"),
        only_in_store: (RowStatus::OnlyInStore, "no file with this path"),
    };

    /// A manifest against a Batch Operations report.
    pub const REPORT: RowWords = RowWords {
        local: "manifest",
        store: "report",
        only_local: (RowStatus::Missing, "no object with this key in the report"),
        only_in_store: (RowStatus::New, "in the report, not in the manifest"),
    };
}

impl TreeComparison {
    /// The rows, worst first: changed, one side only, not comparable,
    /// unreadable, then matched.
    pub fn rows(&self, words: &RowWords) -> Vec<AuditRow> {
        let mut out = Vec::new();
        for (name, verdict) in &self.compared {
            if let Verdict::Changed { by, local, store } = verdict {
                let (l, s) = (words.local, words.store);
                let detail = format!("{by}: the {l} gives {local}, the {s} has {store}");
                out.push(AuditRow::new(RowStatus::Changed, name, detail));
            }
        }
        let (status, detail) = words.only_local;
        out.extend(
            self.only_local
                .iter()
                .map(|n| AuditRow::new(status, n, detail)),
        );
        let (status, detail) = words.only_in_store;
        out.extend(
            self.only_in_store
                .iter()
                .map(|n| AuditRow::new(status, n, detail)),
        );
        for (name, verdict) in &self.compared {
            if let Verdict::NotComparable { reason } = verdict {
                out.push(AuditRow::new(
                    RowStatus::NotComparable,
                    name,
                    reason.as_str(),
                ));
            }
        }
        let errors = self.errors.iter();
        out.extend(errors.map(|(n, why)| AuditRow::new(RowStatus::Unreadable, n, why.as_str())));
        for (name, verdict) in &self.compared {
            if let Verdict::Matched { by } = verdict {
                out.push(AuditRow::new(RowStatus::Matched, name, by.as_str()));
            }
        }
        out
    }

    fn verdicts(&self) -> (usize, usize, usize) {
        (
            self.count(|v| matches!(v, Verdict::Matched { .. })),
            self.count(|v| matches!(v, Verdict::Changed { .. })),
            self.count(|v| matches!(v, Verdict::NotComparable { .. })),
        )
    }
}

/// Each row that did not match as a line ([`AuditRow::line`]).
fn unmatched_lines(rows: &[AuditRow]) -> String {
    let unmatched = rows.iter().filter(|r| r.status != RowStatus::Matched);
    unmatched.map(AuditRow::line).collect()
}

/// How many names a directory's comparison with a store found in each state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StoreCounts {
    pub matched: usize,
    pub changed: usize,
    pub only_local: usize,
    pub only_in_store: usize,
    pub not_comparable: usize,
    pub unreadable: usize,
}

/// `audit DIR URL` as reported; serializes to its `--json` document.
#[derive(Debug, Clone, Serialize)]
pub struct StoreAudit {
    pub passed: bool,
    pub directory: String,
    pub prefix: String,
    /// `recorded` or `download`.
    pub mode: &'static str,
    /// What a match shows ([`Mode::proves`]).
    pub proves: &'static str,
    pub counts: StoreCounts,
    pub rows: Vec<AuditRow>,
}

impl StoreAudit {
    pub fn new(found: &TreeComparison, dir: &Path, prefix: &str, mode: &Mode) -> StoreAudit {
        let (matched, changed, not_comparable) = found.verdicts();
        StoreAudit {
            passed: found.passed(),
            directory: dir.display().to_string(),
            prefix: prefix.to_string(),
            mode: match mode {
                Mode::Recorded => "recorded",
                Mode::Download { .. } => "download",
            },
            proves: mode.proves(),
            counts: StoreCounts {
                matched,
                changed,
                only_local: found.only_local.len(),
                only_in_store: found.only_in_store.len(),
                not_comparable,
                unreadable: found.errors.len(),
            },
            rows: found.rows(&RowWords::TREE),
        }
    }

    /// What differs, one line each, then the counts.
    pub fn text(&self) -> String {
        let c = &self.counts;
        format!(
            "{}{}: {} matched, {} changed, {} only in {}, {} only in {}, {} not comparable, {} unreadable\n",
            unmatched_lines(&self.rows),
            verdict_words(self.passed),
            c.matched,
            c.changed,
            c.only_local,
            self.directory,
            c.only_in_store,
            self.prefix,
            c.not_comparable,
            c.unreadable,
        )
    }
}

/// What a match against a Batch Operations report shows.
pub const REPORT_PROVES: &str = "compared with the checksums S3 computed of the stored bytes when the Batch Operations job ran, reading no object: this shows the objects were intact then";

/// How many names a manifest's comparison with a report found in each state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReportCounts {
    pub matched: usize,
    pub changed: usize,
    pub missing: usize,
    pub new: usize,
    pub not_comparable: usize,
    pub unreadable: usize,
}

/// `audit MANIFEST URL --batch-report REPORT` as reported; serializes to
/// its `--json` document.
#[derive(Debug, Clone, Serialize)]
pub struct ReportAudit {
    pub passed: bool,
    pub manifest: String,
    pub prefix: String,
    pub report: String,
    /// Always `batch-report`.
    pub mode: &'static str,
    /// [`REPORT_PROVES`].
    pub proves: &'static str,
    pub counts: ReportCounts,
    pub rows: Vec<AuditRow>,
}

impl ReportAudit {
    pub fn new(
        found: &TreeComparison,
        manifest: &Path,
        prefix: &str,
        report: &Path,
    ) -> ReportAudit {
        let (matched, changed, not_comparable) = found.verdicts();
        ReportAudit {
            passed: found.passed(),
            manifest: manifest.display().to_string(),
            prefix: prefix.to_string(),
            report: report.display().to_string(),
            mode: "batch-report",
            proves: REPORT_PROVES,
            counts: ReportCounts {
                matched,
                changed,
                missing: found.only_local.len(),
                new: found.only_in_store.len(),
                not_comparable,
                unreadable: found.errors.len(),
            },
            rows: found.rows(&RowWords::REPORT),
        }
    }

    /// What differs, one line each, then the counts.
    pub fn text(&self) -> String {
        let c = &self.counts;
        format!(
            "{}{}: {} matched, {} changed, {} missing, {} new, {} not comparable, {} unreadable\n",
            unmatched_lines(&self.rows),
            verdict_words(self.passed),
            c.matched,
            c.changed,
            c.missing,
            c.new,
            c.not_comparable,
            c.unreadable,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found() -> TreeComparison {
        TreeComparison {
            compared: vec![
                ("a".into(), Verdict::Matched { by: "ETag".into() }),
                (
                    "b".into(),
                    Verdict::Changed {
                        by: "sha256".into(),
                        local: "01".into(),
                        store: "02".into(),
                    },
                ),
                (
                    "c".into(),
                    Verdict::NotComparable {
                        reason: "no checksum".into(),
                    },
                ),
            ],
            only_local: vec!["here".into()],
            only_in_store: vec!["there".into()],
            errors: vec![("bad".into(), "denied".into())],
        }
    }

    #[test]
    fn a_store_audit_words_each_side_and_counts_each_verdict() {
        let audit = StoreAudit::new(&found(), Path::new("dir"), "s3://b/p", &Mode::Recorded);
        assert!(!audit.passed);
        assert_eq!(
            audit.text(),
            "changed: b: sha256: the file gives 01, the store has 02\n\
             only-local: here: no object with this key\n\
             only-in-store: there: no file with this path\n\
             not-comparable: c: no checksum\n\
             unreadable: bad: denied\n\
             audit FAILED: 1 matched, 1 changed, 1 only in dir, 1 only in s3://b/p, 1 not comparable, 1 unreadable\n"
        );
        let json = serde_json::to_value(&audit).unwrap();
        assert_eq!(json["mode"], "recorded");
        assert_eq!(json["counts"]["only_in_store"], 1);
        assert_eq!(json["rows"][5]["status"], "matched");
        assert_eq!(json["rows"][5]["detail"], "ETag");
    }

    #[test]
    fn a_report_audit_calls_one_side_missing_and_the_other_new() {
        let audit = ReportAudit::new(&found(), Path::new("M"), "s3://b/p", Path::new("R"));
        let statuses: Vec<&str> = audit.rows.iter().map(|r| r.status.as_str()).collect();
        assert_eq!(
            statuses,
            [
                "changed",
                "missing",
                "new",
                "not-comparable",
                "unreadable",
                "matched"
            ]
        );
        assert!(audit
            .text()
            .starts_with("changed: b: sha256: the manifest gives 01, the report has 02\n"));
        assert!(audit.text().ends_with(
            "audit FAILED: 1 matched, 1 changed, 1 missing, 1 new, 1 not comparable, 1 unreadable\n"
        ));
        let passed = ReportAudit::new(
            &TreeComparison::default(),
            Path::new("M"),
            "p",
            Path::new("R"),
        );
        assert!(passed.passed && passed.text().starts_with("audit passed: 0 matched"));
    }
}
