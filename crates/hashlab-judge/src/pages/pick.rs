//! The pick page: what was asked, the choices ranked by speed (or by
//! projected time, on a shape), why the first few, and the popular
//! candidates left out.

use hashlab_bench::sizes::size_label;
use hashlab_table::Document;

use super::sections::{flat, lines, page, section, FlatRow};
use crate::pick::{Choice, Pick};
use crate::speed::group_thousands;

/// Choices whose reasons the page spells out; the serde form has all.
const EXPLAINED: usize = 3;
/// Choices the page lists.
const LISTED: usize = 10;

/// What the page says in the caller's words.
pub struct Hints<'a> {
    /// The title above what was asked (the caller's command line).
    pub title: &'a str,
    /// Where the choices and exclusions the page leaves out are listed.
    pub rest: &'a str,
}

/// The page of `pick`.
pub fn document(pick: &Pick, hints: &Hints) -> Document {
    human(pick, &flat_rows(pick), hints)
}

fn human(pick: &Pick, flat: &[FlatRow], hints: &Hints) -> Document {
    let mut out = page(flat);
    let like = pick.choices.iter().any(|c| c.projected.is_some());
    let mut asked = vec![
        format!("use: {}", pick.use_text),
        if like {
            format!("shape: {}", pick.speed_source)
        } else {
            format!("size: {}", size_label(pick.size))
        },
        format!(
            "minimum security: {}",
            if pick.min_security == 0 {
                "none (no attacker)".to_string()
            } else {
                format!("{} bits", pick.min_security)
            }
        ),
        format!("speeds from {} ({})", pick.speed_source, pick.cpu),
    ];
    if !pick.interop.is_empty() {
        asked.push(format!("must ship in: {}", pick.interop.join(", ")));
    }
    lines(&mut out, hints.title, &asked);
    let rows: Vec<Vec<String>> = pick
        .choices
        .iter()
        .take(LISTED)
        .map(|c| {
            let m = c.measured.as_ref();
            vec![
                c.rank.map_or_else(|| "-".into(), |r| r.to_string()),
                c.algorithm.clone(),
                m.map_or_else(|| "unmeasured".into(), |m| group_thousands(m.mb_per_s)),
                m.map(|m| size_label(m.size)).unwrap_or_default(),
                m.map(|m| m.backend.clone()).unwrap_or_default(),
                m.and_then(|m| m.path.as_ref().map(|p| p.path.clone()))
                    .unwrap_or_default(),
            ]
        })
        .collect();
    let more = pick.choices.len().saturating_sub(LISTED);
    let title = if more > 0 {
        format!("Ranked by speed ({more} more allowed: {})", hints.rest)
    } else {
        "Ranked by speed".to_string()
    };
    if like {
        let rows = pick
            .choices
            .iter()
            .take(LISTED)
            .map(projected_row)
            .collect();
        section(
            &mut out,
            &title.replace("Ranked by speed", "Ranked by projected time"),
            &[
                "rank",
                "algorithm",
                "cached, all threads",
                "bound",
                "cached, 1 thread",
                "uncached",
                "backend",
            ],
            rows,
        );
    } else {
        section(
            &mut out,
            &title,
            &["rank", "algorithm", "MB/s", "at", "backend", "path"],
            rows,
        );
    }
    for c in pick.choices.iter().take(EXPLAINED) {
        lines(&mut out, &format!("Why {}", c.algorithm), &c.reasons);
    }
    let popular: Vec<Vec<String>> = pick
        .excluded
        .iter()
        .filter(|e| e.popular)
        .map(|e| vec![e.algorithm.clone(), e.reason.clone()])
        .collect();
    let others = pick.excluded.iter().filter(|e| !e.popular).count();
    let title = if others > 0 {
        format!(
            "Popular candidates left out ({others} others too: {})",
            hints.rest
        )
    } else {
        "Popular candidates left out".to_string()
    };
    section(&mut out, &title, &["algorithm", "why"], popular);
    lines(&mut out, "Notes", &pick.notes);
    out
}

/// A choice ranked on a shape (`like`): its projected times and what bounds them.
fn projected_row(c: &Choice) -> Vec<String> {
    use hashlab_bench::like::tables::seconds;
    let rank = c.rank.map_or_else(|| "-".into(), |r| r.to_string());
    let Some(p) = &c.projected else {
        return vec![rank, c.algorithm.clone(), "unmeasured".into()];
    };
    vec![
        rank,
        c.algorithm.clone(),
        seconds(p.cached_all),
        p.bound_cached.words().to_string(),
        seconds(p.cached_one),
        match (p.uncached_all, p.bound_uncached) {
            (Some(s), Some(b)) => format!("{} ({})", seconds(s), b.words()),
            _ => "-".into(),
        },
        p.backend.clone(),
    ]
}

fn flat_rows(pick: &Pick) -> Vec<FlatRow> {
    let mut rows: Vec<FlatRow> = pick
        .choices
        .iter()
        .map(|c| {
            flat(
                "choice",
                c.algorithm.clone(),
                match (&c.projected, &c.measured) {
                    (Some(p), _) => format!("{:.6} s", p.cached_all),
                    (None, Some(m)) => format!("{:.1}", m.mb_per_s),
                    (None, None) => "unmeasured".into(),
                },
                c.summary.clone(),
            )
        })
        .collect();
    rows.extend(
        pick.excluded
            .iter()
            .map(|e| flat("excluded", e.algorithm.clone(), "", e.reason.clone())),
    );
    rows.extend(pick.notes.iter().map(|n| flat("note", "", "", n.clone())));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pick::{Exclusion, Use};

    fn choice(rank: usize) -> Choice {
        Choice {
            rank: Some(rank),
            algorithm: format!("alg{rank}"),
            measured: None,
            projected: None,
            summary: format!("summary {rank}"),
            reasons: vec![format!("reason {rank}")],
        }
    }

    /// Ten choices are listed and three explained; what is left out is
    /// counted in the titles, in the caller's words; CSV gets every choice,
    /// exclusion and note.
    #[test]
    fn the_page_lists_ten_explains_three_and_says_where_the_rest_are() {
        let pick = Pick {
            use_: Use::Integrity,
            use_text: "integrity".into(),
            size: 4096,
            min_security: 0,
            interop: Vec::new(),
            speed_source: "results.json".into(),
            cpu: "a CPU".into(),
            choices: (1..=12).map(choice).collect(),
            excluded: vec![
                Exclusion {
                    algorithm: "popular".into(),
                    reason: "broken".into(),
                    popular: true,
                },
                Exclusion {
                    algorithm: "obscure".into(),
                    reason: "slow".into(),
                    popular: false,
                },
            ],
            notes: vec!["a note".into()],
        };
        let doc = document(
            &pick,
            &Hints {
                title: "asked",
                rest: "ask for all",
            },
        );
        let text = hashlab_table::text::render(&doc, false);
        assert!(
            text.contains("Ranked by speed (2 more allowed: ask for all)"),
            "{text}"
        );
        assert!(text.contains("Popular candidates left out (1 others too: ask for all)"));
        assert!(
            text.contains("Why alg3") && !text.contains("Why alg4"),
            "{text}"
        );
        assert!(text.contains("alg10") && !text.contains("alg11"), "{text}");
        assert!(text.contains("minimum security: none (no attacker)"));
        let flat = doc.flat.as_ref().expect("a flat table");
        assert_eq!(flat.rows.len(), 12 + 2 + 1);
    }
}
