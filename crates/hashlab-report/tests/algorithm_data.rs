//! What an algorithm needs beyond its catalog entry, checked for every
//! algorithm of the registry, so that one added to the catalog without its
//! data fails here with the data to add (not only a stray name elsewhere):
//! its facts (`hashlab-judge/data/facts.toml`), its availability row
//! (`hashlab-judge/data/availability.toml`), a probe for every place the
//! table says a fixed-table probe should find it (`hashlab-judge/src/
//! ecosystem.rs`), and a size-chart panel whose title, where it lists
//! algorithms, lists it (`hashlab-report/src/data.rs::panel_of`).

use std::collections::BTreeSet;

use hashlab::{Algorithm, Class, Lineage, OutputRule, Registry};
use hashlab_judge::ecosystem::{fixed_probe_table, PYTHON_UNPROBED};
use hashlab_judge::{Availability, Facts};
use hashlab_report::data::panel_of;

/// Lower case, letters and digits only: `SHA-1` and `sha1` are one name.
fn squash(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Probes with a fixed table must look for what the table says they find.
fn probe_problems(table: &Availability) -> Vec<String> {
    let mut problems = Vec::new();
    let ecosystem = |id: &str| {
        table
            .ecosystem(id)
            .unwrap_or_else(|| panic!("availability.toml has no {id} row"))
    };
    let go = fixed_probe_table("go").expect("Go's probe has a fixed table");
    for name in &ecosystem("go").ships {
        if !go.contains(&name.as_str()) {
            problems.push(format!(
                "{name}: availability.toml says Go's standard library ships it, but the Go \
                 probe does not look for it: add its package to GO_PACKAGES in \
                 crates/hashlab-judge/src/ecosystem.rs"
            ));
        }
    }
    let python = fixed_probe_table("python").expect("Python's probe has a fixed table");
    let packages = &ecosystem("python").packages;
    for (name, package) in packages {
        let unprobed = PYTHON_UNPROBED.iter().any(|(n, _)| n == name);
        if !python.contains(&name.as_str()) && !unprobed {
            problems.push(format!(
                "{name}: availability.toml gives the Python package {package} for it, but the \
                 Python probe does not import it: add its module to PYTHON_MODULES in \
                 crates/hashlab-judge/src/ecosystem.rs (or, with the reason, to PYTHON_UNPROBED)"
            ));
        }
    }
    for (name, _) in PYTHON_UNPROBED {
        if !packages.contains_key(*name) {
            problems.push(format!(
                "{name}: in PYTHON_UNPROBED, but availability.toml lists no Python package for it"
            ));
        }
    }
    problems
}

/// A panel title that lists algorithms ("SHA-2 and SM3", "Short digests:
/// MD4, MD5, SHA-1, RIPEMD-160") must list each algorithm drawn in it; a
/// title that describes ("Checksums", "Keccak XOFs, 128-bit security") holds
/// whatever fits the description.
fn panel_problems(registry: &Registry) -> Vec<String> {
    let mut names = BTreeSet::new();
    for alg in registry.algorithms() {
        names.insert(squash(&alg.name));
        names.insert(squash(&alg.family));
    }
    let mut problems = Vec::new();
    for alg in registry.algorithms() {
        let (_, title) = panel_of(registry, &alg.name);
        if title == "Other" {
            problems.push(format!(
                "{}: no size-chart panel: give it one in panel_of, \
                 crates/hashlab-report/src/data.rs",
                alg.name
            ));
            continue;
        }
        let list = title.split_once(": ").map_or(title, |(_, list)| list);
        let items: Vec<String> = list
            .split(", ")
            .flat_map(|part| part.split(" and "))
            .map(squash)
            .collect();
        let enumerates = items
            .iter()
            .all(|item| names.iter().any(|n| n.starts_with(item.as_str())));
        let (name, family) = (squash(&alg.name), squash(&alg.family));
        let listed = items
            .iter()
            .any(|item| name.starts_with(item.as_str()) || family == *item);
        if enumerates && !listed {
            problems.push(format!(
                "{}: drawn in the size-chart panel \"{title}\", whose title lists algorithms \
                 but not it: name it in that title in panel_of, \
                 crates/hashlab-report/src/data.rs, or give it a panel of its own",
                alg.name
            ));
        }
    }
    problems
}

fn problems(registry: &Registry, facts: &Facts, table: &Availability) -> Vec<String> {
    let mut all = facts.mismatches(registry);
    all.extend(table.mismatches(registry));
    all.extend(probe_problems(table));
    all.extend(panel_problems(registry));
    all
}

#[test]
fn every_algorithm_has_its_facts_availability_probes_and_panel() {
    let registry = Registry::default();
    let problems = problems(&registry, &Facts::builtin(), &Availability::builtin());
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// An algorithm as another checksum or short digest would be added: in the
/// catalog, and nowhere else yet.
fn with(registry: &Registry, name: &str, class: Class, lineage: Lineage) -> Registry {
    let mut registry = registry.clone();
    let algorithm = Algorithm {
        lineage,
        ..Algorithm::new(name, name, class, OutputRule::Fixed { bytes: 16 })
    };
    registry.register_algorithm(algorithm).unwrap();
    registry
}

#[test]
fn an_algorithm_added_to_the_catalog_alone_fails_with_the_data_to_add() {
    let facts = Facts::builtin();
    let table = Availability::builtin();
    let base = Registry::default();

    let registry = with(&base, "sysv-test", Class::Checksum, Lineage::Other);
    let found = problems(&registry, &facts, &table);
    let about = |what: &str| {
        found
            .iter()
            .any(|p| p.starts_with("sysv-test") && p.contains(what))
    };
    assert!(about("data/facts.toml"), "{found:#?}");
    assert!(about("data/availability.toml"), "{found:#?}");

    // A short Merkle-Damgard digest lands in a panel whose title lists its members.
    let registry = with(&base, "md2", Class::Cryptographic, Lineage::MerkleDamgard);
    let found = panel_problems(&registry);
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("md2") && p.contains("panel_of")),
        "{found:#?}"
    );

    // The table says Go ships it: the Go probe must look for it.
    let mut table = Availability::builtin();
    let go = table.ecosystems.iter_mut().find(|e| e.id == "go").unwrap();
    go.ships.push("blake3".into());
    let found = probe_problems(&table);
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("blake3") && p.contains("GO_PACKAGES")),
        "{found:#?}"
    );
}
