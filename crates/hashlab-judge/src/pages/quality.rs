//! The quality part of the info page: SMHasher3's published verdict (facts
//! from its results files) beside hashlab's stored full run, family by
//! family. Both are data of `hashlab-quality`; nothing is run here.

use hashlab_quality::{
    smhasher3_family, smhasher3_verdict, stored_verdict, Smhasher3Verdict, StoredFamily,
    StoredVerdict, TEST_KINDS,
};
use hashlab_table::Document;
use serde::Serialize;

use super::sections::{flat, lines, section, FlatRow};

/// hashlab's stored run, by family (its per-test rows stay in the data).
#[derive(Debug, Serialize)]
pub struct HashlabQuality {
    pub source: String,
    pub tests: usize,
    pub failed: usize,
    pub families: Vec<StoredFamily>,
}

#[derive(Debug, Serialize)]
pub struct Quality {
    pub smhasher3: Option<Smhasher3Verdict>,
    pub hashlab: Option<HashlabQuality>,
}

/// Both verdicts on `algorithm` (its catalog name), where there are any.
pub fn quality(algorithm: &str) -> Quality {
    Quality {
        smhasher3: smhasher3_verdict(algorithm),
        hashlab: stored_verdict(algorithm).map(|v: StoredVerdict| HashlabQuality {
            source: v.source,
            tests: v.tests_in_run,
            failed: v.failed,
            families: v.families,
        }),
    }
}

/// One row per family either side has: (family, SMHasher3's verdict,
/// hashlab's verdict, hashlab's worst statistic when it fails).
fn rows(q: &Quality) -> Vec<[String; 4]> {
    let theirs = |family: &str| -> String {
        match &q.smhasher3 {
            None => String::new(),
            Some(v) => match v.failures.iter().find(|(f, _)| f == family) {
                Some((_, cases)) if cases.is_empty() => "FAIL".into(),
                Some((_, cases)) => format!("FAIL [{cases}]"),
                None => "pass".into(),
            },
        }
    };
    let ours = |kind: &str| -> (String, String) {
        match &q.hashlab {
            None => (String::new(), String::new()),
            Some(h) => match h.families.iter().find(|f| f.test == kind) {
                None => ("not run".into(), String::new()),
                Some(f) if f.failed == 0 => (format!("pass (0/{})", f.total), String::new()),
                Some(f) => (
                    format!("FAIL ({}/{})", f.failed, f.total),
                    format!("{}: {}", f.worst_case, f.worst_statistic),
                ),
            },
        }
    };
    let mut out = Vec::new();
    for kind in TEST_KINDS {
        let name = kind.as_str().replace(' ', "-");
        let family = smhasher3_family(kind);
        let (verdict, worst) = ours(&name);
        let label = match family {
            Some(f) => format!("{f} ({})", kind.as_str()),
            None => format!("{} (hashlab only)", kind.as_str()),
        };
        let theirs = family.map(theirs).unwrap_or_else(|| "—".into());
        if verdict == "not run" && !theirs.starts_with("FAIL") {
            continue;
        }
        out.push([label, theirs, verdict, worst]);
    }
    // SMHasher3 families hashlab has no test for.
    if let Some(v) = &q.smhasher3 {
        for (family, cases) in &v.failures {
            let known = TEST_KINDS
                .into_iter()
                .any(|k| smhasher3_family(k) == Some(family.as_str()));
            if !known {
                out.push([
                    family.clone(),
                    format!("FAIL [{cases}]"),
                    "no such test here".into(),
                    String::new(),
                ]);
            }
        }
    }
    out
}

pub(crate) fn flat_rows(q: &Quality) -> Vec<FlatRow> {
    rows(q)
        .into_iter()
        .map(|[family, theirs, ours, worst]| {
            flat(
                "quality",
                family,
                format!("SMHasher3: {theirs}; hashlab: {ours}"),
                worst,
            )
        })
        .collect()
}

/// Adds the quality notes and the family table; `rerun` is how the reader
/// runs the battery again (a command line of the caller's).
pub(crate) fn add_section(doc: &mut Document, q: &Quality, rerun: &str) {
    let mut notes = Vec::new();
    match &q.smhasher3 {
        Some(v) => notes.push(format!(
            "SMHasher3 ({}): {} of {} tests passed; {}",
            v.name, v.passed, v.total, v.source
        )),
        None => notes.push("SMHasher3's published results have no run of this function".into()),
    }
    match &q.hashlab {
        Some(h) => notes.push(format!(
            "hashlab: {} of {} tests failed; {} (stored data; {rerun} runs it again)",
            h.failed, h.tests, h.source
        )),
        None => notes.push(format!(
            "hashlab: no stored full run of this function; {rerun} runs the battery"
        )),
    }
    lines(doc, "Quality", &notes);
    if q.smhasher3.is_some() || q.hashlab.is_some() {
        section(
            doc,
            "Quality by family: SMHasher3 beside hashlab",
            &[
                "family",
                "SMHasher3",
                "hashlab (failed/tests)",
                "hashlab's worst",
            ],
            rows(q).into_iter().map(Vec::from).collect(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An algorithm with no verdict either side has notes saying so, and
    /// the caller's command for running the battery, but no family table;
    /// its flat rows claim no verdict.
    #[test]
    fn no_verdict_is_said_and_no_family_table_is_drawn() {
        let q = quality("no such algorithm");
        assert!(q.smhasher3.is_none() && q.hashlab.is_none());
        for row in flat_rows(&q) {
            assert!(row.value.ends_with("; hashlab: "), "{row:?}");
            assert!(!row.value.contains("FAIL"), "{row:?}");
        }
        let mut doc = Document::default();
        add_section(&mut doc, &q, "RUN-IT");
        let text = hashlab_table::text::render(&doc, false);
        assert!(text.contains("no stored full run of this function; RUN-IT runs the battery"));
        assert!(!text.contains("Quality by family"), "{text}");
    }

    /// Every algorithm with a stored run gets one flat row per family
    /// either side reports, each naming both verdicts.
    #[test]
    fn stored_runs_give_a_row_per_family() {
        let name = hashlab::Registry::default()
            .algorithms()
            .iter()
            .map(|a| a.name.clone())
            .find(|n| stored_verdict(n).is_some())
            .expect("some algorithm has a stored quality run");
        let q = quality(&name);
        let rows = flat_rows(&q);
        assert!(!rows.is_empty());
        for row in &rows {
            assert_eq!(row.section, "quality");
            assert!(row.value.starts_with("SMHasher3: ") && row.value.contains("; hashlab: "));
        }
    }
}
