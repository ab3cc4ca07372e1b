//! The security and availability table beside the numbers: what each measured
//! algorithm is good for, from `hashlab-judge`'s sourced facts, and where it
//! ships. Speed alone chose nothing in the seeds.

use std::collections::BTreeSet;

use hashlab::Registry;
use hashlab_judge::{Availability, Facts, Offer};

use crate::data::Input;
use crate::html::{Cell, Section, Table};

/// Ecosystems in one availability table: with the algorithm's column, as many
/// one-word columns as fit a page 1000 px wide.
const SHIP_COLUMNS: usize = 7;

/// The algorithms the inputs measured, in first-seen order (the harness's
/// null cell is not an algorithm).
fn measured(inputs: &[Input]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for input in inputs {
        for cell in &input.report.cells {
            if cell.algorithm != hashlab_bench::plan::NULL_ALGORITHM
                && seen.insert(cell.algorithm.clone())
            {
                out.push(cell.algorithm.clone());
            }
        }
    }
    out
}

fn bits(value: Option<u32>) -> Cell {
    match value {
        Some(b) => Cell::number(b.to_string(), f64::from(b)),
        None => Cell::text("none claimed"),
    }
}

/// "Security and where it ships" for every algorithm the inputs measured.
///
/// Each table keeps to short cells, so that it fits a page at 1000 px: the
/// prose (an attack's story, the sources, a package's name) goes in tables of
/// its own, one long column each, rather than stretching a grid of numbers
/// sideways or making its rows many lines tall.
pub fn judgement_section(registry: &Registry, inputs: &[Input]) -> Section {
    let facts = Facts::builtin();
    let availability = Availability::builtin();
    let algorithms = measured(inputs);

    let mut security = Vec::new();
    let mut attacks = Vec::new();
    let mut cited = Vec::new();
    let mut shipping = Vec::new();
    let mut packages = Vec::new();
    let ecosystems = availability.ecosystem_ids();
    let ecosystem_title = |id: &str| {
        availability
            .ecosystem(id)
            .map_or_else(|| id.to_string(), |x| x.title.clone())
    };
    for name in &algorithms {
        let mut row = vec![Cell::text(name.as_str())];
        for eco in &ecosystems {
            let text = match availability.entry(eco, name, registry) {
                Some(e) => {
                    if let (Offer::Package, Some(p)) = (e.offer, &e.package) {
                        packages.push(vec![
                            Cell::text(name.as_str()),
                            Cell::text(ecosystem_title(eco)),
                            Cell::text(p.as_str()),
                        ]);
                    }
                    e.offer.as_str().to_string()
                }
                None => "?".into(),
            };
            row.push(Cell::text(text));
        }
        shipping.push(row);

        let Some(f) = facts.get(name) else {
            security.push(vec![
                Cell::text(name.as_str()),
                Cell::text("no facts recorded"),
            ]);
            continue;
        };
        let collision = match (&f.attack, f.effective_collision_bits()) {
            (Some(a), Some(bits)) => {
                attacks.push(vec![
                    Cell::text(name.as_str()),
                    Cell::number(format!("{bits:.1}"), bits),
                    Cell::text(a.text.as_str()),
                ]);
                Cell::number(format!("{bits:.1} (attack)"), bits)
            }
            (_, Some(bits)) => Cell::number(format!("{bits:.0}"), bits),
            (_, None) => Cell::text("none claimed"),
        };
        let mut sources: Vec<String> = f.cited().into_iter().map(|id| facts.short(id)).collect();
        sources.dedup();
        security.push(vec![
            Cell::text(name.as_str()),
            Cell::number(f.output_bits.to_string(), f64::from(f.output_bits)),
            collision,
            bits(f.preimage_bits),
            Cell::text(format!("{:?}", f.length_extension).to_lowercase()),
            Cell::text(if f.xof { "yes" } else { "no" }),
            Cell::text(f.status.as_str()),
            Cell::text(f.standards.join(", ")),
        ]);
        cited.push(vec![
            Cell::text(name.as_str()),
            Cell::text(sources.join("; ")),
        ]);
    }
    // A grid of every ecosystem is wider than a page; in parts of at most
    // SHIP_COLUMNS ecosystems, each part fits at 1000 px.
    let parts = ecosystems.len().div_ceil(SHIP_COLUMNS).max(1);
    let per_part = ecosystems.len().div_ceil(parts).max(1);
    let availability_tables: Vec<Table> = ecosystems
        .chunks(per_part)
        .enumerate()
        .map(|(k, part)| {
            let first = 1 + k * per_part;
            let mut columns = vec!["algorithm".to_string()];
            columns.extend(part.iter().map(|e| ecosystem_title(e)));
            Table {
                when_empty: None,
                title: if parts > 1 {
                    format!("Availability ({} of {parts})", k + 1)
                } else {
                    "Availability".into()
                },
                columns,
                rows: shipping
                    .iter()
                    .map(|row: &Vec<Cell>| {
                        let mut r = vec![row[0].clone()];
                        r.extend(row[first..first + part.len()].iter().cloned());
                        r
                    })
                    .collect(),
            }
        })
        .collect();
    let columns = |names: &[&str]| names.iter().map(|c| c.to_string()).collect::<Vec<_>>();
    Section {
        id: "judgement".into(),
        title: "Security and where it ships".into(),
        paragraphs: vec![
            "Facts from hashlab's reviewed data (crates/hashlab-judge/data), each with its \
             source; `hashlab info ALGO` prints them in full. Collision bits are the generic \
             bound, lowered to the best published attack where one beats it (marked \
             \"attack\", and told in the table of attacks). Non-cryptographic hashes and \
             checksums claim no security: not for adversarial input."
                .into(),
            "Where it ships: in the standard library or default install (\"ships\"), in a \
             limited form (\"partial\"), from an extra package (named in the table of \
             packages), or not at all; `hashlab ecosystem` checks this machine's runtimes \
             against the table."
                .into(),
        ],
        tables: vec![
            Table {
                when_empty: None,
                title: "Security facts".into(),
                columns: columns(&[
                    "algorithm",
                    "output bits",
                    "collision bits",
                    "preimage bits",
                    "length extension",
                    "XOF",
                    "status",
                    "standards",
                ]),
                rows: security,
            },
            Table {
                when_empty: Some(
                    "No measured algorithm has a published attack on its collision bound.".into(),
                ),
                title: "Best published collision attacks".into(),
                columns: columns(&["algorithm", "collision bits", "attack"]),
                rows: attacks,
            },
            Table {
                when_empty: None,
                title: "Sources of the security facts".into(),
                columns: columns(&["algorithm", "sources"]),
                rows: cited,
            },
        ]
        .into_iter()
        .chain(availability_tables)
        .chain([Table {
            when_empty: Some("No measured algorithm needs an extra package anywhere.".into()),
            title: "Packages that provide an algorithm".into(),
            columns: columns(&["algorithm", "where", "package"]),
            rows: packages,
        }])
        .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_measured_algorithm_gets_its_facts_and_availability() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/results/zen4-plain.json"
        ))
        .unwrap();
        let report = crate::parse_results(text.as_bytes()).unwrap();
        let inputs = vec![Input {
            label: "plain".into(),
            report,
        }];
        let registry = Registry::default();
        let section = judgement_section(&registry, &inputs);
        let names: Vec<&str> = section.tables[0]
            .rows
            .iter()
            .map(|r| r[0].text.as_str())
            .collect();
        assert_eq!(names.len(), 36, "{names:?}");
        assert!(!names.contains(&"null"));
        let row = |name: &str| {
            section.tables[0]
                .rows
                .iter()
                .find(|r| r[0].text == name)
                .unwrap()
                .clone()
        };
        // SHA-1's collision bits are the attack's, not the generic 80.
        assert!(row("sha1")[2].value.unwrap() < 80.0);
        assert_eq!(row("sha256")[2].value, Some(128.0));
        assert_eq!(row("sha256")[4].text, "vulnerable");
        assert_eq!(row("crc32c")[6].text, "checksum");
        let table = |title: &str| {
            section
                .tables
                .iter()
                .find(|t| t.title == title)
                .unwrap_or_else(|| panic!("no table {title:?}"))
        };
        // The attack's story is in a table of its own; the grid keeps the number.
        assert!(row("sha1")[2].text.ends_with("(attack)"));
        let attacks = table("Best published collision attacks");
        let sha1 = attacks.rows.iter().find(|r| r[0].text == "sha1").unwrap();
        assert_eq!(sha1[1].value, row("sha1")[2].value);
        assert!(sha1[2].text.len() > 20, "{:?}", sha1[2].text);
        assert!(!attacks.rows.iter().any(|r| r[0].text == "sha256"));
        assert_eq!(table("Sources of the security facts").rows.len(), 36);
        // Every ecosystem in one part of the availability grid, each part narrow.
        let parts: Vec<&Table> = section
            .tables
            .iter()
            .filter(|t| t.title.starts_with("Availability"))
            .collect();
        let ecosystems: usize = parts.iter().map(|t| t.columns.len() - 1).sum();
        assert_eq!(ecosystems, Availability::builtin().ecosystem_ids().len());
        for part in &parts {
            assert_eq!(part.rows.len(), 36);
            assert!(part.columns.len() <= SHIP_COLUMNS + 1 && part.columns.len() > 3);
            assert!(part.rows.iter().all(|r| r.len() == part.columns.len()));
            // One word a cell; a package's name is in its own table.
            assert!(part.rows.iter().flatten().all(|c| !c.text.contains(' ')));
        }
        assert!(table("Packages that provide an algorithm")
            .rows
            .iter()
            .any(|r| r[2].text.contains("github.com/")));
        let html = crate::html_report(
            &inputs,
            &crate::Options {
                registry: &registry,
                size: None,
            },
            &[section],
        )
        .unwrap();
        assert!(html.contains("Security and where it ships"));
    }
}
