//! The security and availability table beside the numbers: what each measured
//! algorithm is good for, from `hashlab-judge`'s sourced facts, and where it
//! ships. Speed alone chose nothing in the seeds.

use std::collections::BTreeSet;

use hashlab::Registry;
use hashlab_judge::{Availability, Facts, Offer};

use crate::data::Input;
use crate::html::{Cell, Section, Table};

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
pub fn judgement_section(registry: &Registry, inputs: &[Input]) -> Section {
    let facts = Facts::builtin();
    let availability = Availability::builtin();
    let algorithms = measured(inputs);

    let mut security = Vec::new();
    let mut shipping = Vec::new();
    let ecosystems = availability.ecosystem_ids();
    for name in &algorithms {
        let Some(f) = facts.get(name) else {
            security.push(vec![
                Cell::text(name.as_str()),
                Cell::text("no facts recorded"),
            ]);
            continue;
        };
        let collision = match (&f.attack, f.effective_collision_bits()) {
            (Some(a), Some(bits)) => Cell::number(format!("{bits:.1} ({})", a.text), bits),
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
            Cell::text(sources.join("; ")),
        ]);
        let mut row = vec![Cell::text(name.as_str())];
        for eco in &ecosystems {
            let text = match availability.entry(eco, name, registry) {
                Some(e) => match e.offer {
                    Offer::Package => match &e.package {
                        Some(p) => format!("package: {p}"),
                        None => "package".into(),
                    },
                    other => other.as_str().to_string(),
                },
                None => "?".into(),
            };
            row.push(Cell::text(text));
        }
        shipping.push(row);
    }
    let mut ship_headers = vec!["algorithm".to_string()];
    ship_headers.extend(ecosystems.iter().map(|e| {
        availability
            .ecosystem(e)
            .map_or_else(|| e.to_string(), |x| x.title.clone())
    }));
    Section {
        id: "judgement".into(),
        title: "Security and where it ships".into(),
        paragraphs: vec![
            "Facts from hashlab's reviewed data (crates/hashlab-judge/data), each with its \
             source; `hashlab info ALGO` prints them in full. Collision bits are the generic \
             bound, lowered to the best published attack where one beats it. Non-cryptographic \
             hashes and checksums claim no security: not for adversarial input."
                .into(),
            "Where it ships: in the standard library or default install (\"ships\"), in a \
             limited form (\"partial\"), from an extra package (named), or not at all; \
             `hashlab ecosystem` checks this machine's runtimes against the table."
                .into(),
        ],
        tables: vec![
            Table {
                when_empty: None,
                title: "Security facts".into(),
                columns: [
                    "algorithm",
                    "output bits",
                    "collision bits",
                    "preimage bits",
                    "length extension",
                    "XOF",
                    "status",
                    "standards",
                    "sources",
                ]
                .map(String::from)
                .to_vec(),
                rows: security,
            },
            Table {
                when_empty: None,
                title: "Availability".into(),
                columns: ship_headers,
                rows: shipping,
            },
        ],
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
        assert_eq!(section.tables[1].rows.len(), 36);
        assert!(section.tables[1].columns.len() > 5);
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
