//! The quality part of `hashlab info ALGO`: SMHasher3's published verdict
//! (facts from its results files) beside hashlab's stored full run, family
//! by family. Both are data of `hashlab-quality`; nothing is run here.

use hashlab_quality::{
    smhasher3_family, smhasher3_verdict, stored_verdict, Smhasher3Verdict, StoredFamily,
    StoredVerdict, TEST_KINDS,
};
use hashlab_table::Document;
use serde::Serialize;

use super::sections::{flat, lines, section, FlatRow};

/// hashlab's stored run, by family (its per-test rows stay in the data).
#[derive(Serialize)]
pub struct HashlabQuality {
    pub source: String,
    pub tests: usize,
    pub failed: usize,
    pub families: Vec<StoredFamily>,
}

#[derive(Serialize)]
pub struct Quality {
    pub smhasher3: Option<Smhasher3Verdict>,
    pub hashlab: Option<HashlabQuality>,
}

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

pub fn flat_rows(q: &Quality) -> Vec<FlatRow> {
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

pub fn add_section(doc: &mut Document, q: &Quality) {
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
            "hashlab: {} of {} tests failed; {} (stored data; `hashlab quality -a ALGO` runs it again)",
            h.failed, h.tests, h.source
        )),
        None => notes.push(
            "hashlab: no stored full run of this function; `hashlab quality -a ALGO` runs the battery"
                .into(),
        ),
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
