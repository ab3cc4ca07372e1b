//! Which libraries, runtimes and command-line tools offer each algorithm: a
//! reviewed table (`data/availability.toml`), plus the Rust row, which is read
//! from the registry hashlab itself is built with.

use std::collections::{BTreeMap, BTreeSet};

use hashlab::Registry;
use serde::{Deserialize, Serialize};

use crate::facts::Source;

const AVAILABILITY_TOML: &str = include_str!("../data/availability.toml");

/// The ecosystem whose row comes from the registry instead of the table.
pub const RUST: &str = "rust";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Offer {
    /// In the standard library or default install.
    Ships,
    /// In a limited form (said in the note).
    Partial,
    /// From an extra package, named in the entry.
    Package,
    Absent,
}

impl Offer {
    pub fn as_str(self) -> &'static str {
        match self {
            Offer::Ships => "ships",
            Offer::Partial => "partial",
            Offer::Package => "package",
            Offer::Absent => "absent",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ecosystem {
    pub id: String,
    pub title: String,
    pub sources: Vec<String>,
    pub ships: Vec<String>,
    #[serde(default)]
    pub partial: BTreeMap<String, String>,
    #[serde(default)]
    pub packages: BTreeMap<String, String>,
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
    #[serde(default)]
    pub since: BTreeMap<String, String>,
}

/// One algorithm in one ecosystem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub ecosystem: String,
    pub title: String,
    pub offer: Offer,
    /// The package to install, for `Package`.
    pub package: Option<String>,
    pub note: Option<String>,
    /// The first version that ships it.
    pub since: Option<String>,
    /// Source ids of the table row (empty for the Rust row, read from the registry).
    pub sources: Vec<String>,
}

impl Entry {
    /// "ships (since 1.24)", "package golang.org/x/crypto/blake2b", "absent".
    pub fn describe(&self) -> String {
        let mut text = match (&self.offer, &self.package) {
            (Offer::Package, Some(p)) if self.ecosystem == RUST => format!("crates here: {p}"),
            (Offer::Package, Some(p)) => format!("package {p}"),
            (offer, _) => offer.as_str().to_string(),
        };
        if let Some(v) = &self.since {
            text.push_str(&format!(" (since {v})"));
        }
        if let Some(n) = &self.note {
            text.push_str(&format!(": {n}"));
        }
        text
    }

    /// True when the ecosystem offers it out of the box; for Rust (no hashing
    /// in std), when a crate hashlab uses offers it here.
    pub fn usable_for_interop(&self) -> bool {
        match self.offer {
            Offer::Ships => true,
            Offer::Package => self.ecosystem == RUST,
            Offer::Partial | Offer::Absent => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Availability {
    pub sources: BTreeMap<String, Source>,
    /// Algorithms no ecosystem of the table offers, as read in its sources:
    /// with these, every algorithm is said something of, so one added to the
    /// catalog and not yet looked up is found ([`Availability::mismatches`]).
    #[serde(default, skip_serializing)]
    pub unoffered: Vec<String>,
    #[serde(rename = "ecosystem")]
    pub ecosystems: Vec<Ecosystem>,
}

impl Availability {
    /// The table shipped with hashlab.
    pub fn builtin() -> Availability {
        Availability::parse(AVAILABILITY_TOML)
            .expect("data/availability.toml is valid (checked by tests)")
    }

    /// Parses and checks a table: known sources, every source used, no
    /// algorithm listed twice in one row.
    pub fn parse(text: &str) -> Result<Availability, String> {
        let table: Availability = toml::from_str(text).map_err(|e| format!("availability: {e}"))?;
        let mut used = BTreeSet::new();
        for eco in &table.ecosystems {
            if eco.id == RUST {
                return Err("availability: the Rust row comes from the registry".into());
            }
            for id in &eco.sources {
                if !table.sources.contains_key(id) {
                    return Err(format!(
                        "availability: {} cites unknown source '{id}'",
                        eco.id
                    ));
                }
                used.insert(id.as_str());
            }
            let mut listed = BTreeSet::new();
            for name in eco
                .ships
                .iter()
                .chain(eco.partial.keys())
                .chain(eco.packages.keys())
            {
                if !listed.insert(name) {
                    return Err(format!("availability: {} lists {name} twice", eco.id));
                }
            }
        }
        if let Some(unused) = table.sources.keys().find(|k| !used.contains(k.as_str())) {
            return Err(format!(
                "availability: source '{unused}' is cited by nothing"
            ));
        }
        Ok(table)
    }

    /// Every ecosystem id, the table's in order, then `rust`.
    pub fn ecosystem_ids(&self) -> Vec<&str> {
        self.ecosystems
            .iter()
            .map(|e| e.id.as_str())
            .chain(std::iter::once(RUST))
            .collect()
    }

    pub fn ecosystem(&self, id: &str) -> Option<&Ecosystem> {
        self.ecosystems.iter().find(|e| e.id == id)
    }

    /// One algorithm in one ecosystem; `None` for an unknown ecosystem.
    pub fn entry(&self, ecosystem: &str, algorithm: &str, registry: &Registry) -> Option<Entry> {
        if ecosystem == RUST {
            return Some(rust_entry(algorithm, registry));
        }
        let eco = self.ecosystem(ecosystem)?;
        let (offer, package) = if eco.ships.iter().any(|a| a == algorithm) {
            (Offer::Ships, None)
        } else if let Some(p) = eco.packages.get(algorithm) {
            (Offer::Package, Some(p.clone()))
        } else if eco.partial.contains_key(algorithm) {
            (Offer::Partial, None)
        } else {
            (Offer::Absent, None)
        };
        let note = eco
            .partial
            .get(algorithm)
            .or_else(|| eco.notes.get(algorithm))
            .cloned();
        Some(Entry {
            ecosystem: eco.id.clone(),
            title: eco.title.clone(),
            offer,
            package,
            note,
            since: eco.since.get(algorithm).cloned(),
            sources: eco.sources.clone(),
        })
    }

    /// The algorithm in every ecosystem, in table order.
    pub fn entries(&self, algorithm: &str, registry: &Registry) -> Vec<Entry> {
        self.ecosystem_ids()
            .into_iter()
            .filter_map(|eco| self.entry(eco, algorithm, registry))
            .collect()
    }

    /// Registry algorithms the table says nothing of, names in it that are
    /// not registry algorithms, and contradictions within it.
    pub fn mismatches(&self, registry: &Registry) -> Vec<String> {
        let known: BTreeSet<&str> = registry
            .algorithms()
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        let mut problems = Vec::new();
        let offered: BTreeSet<&str> = self
            .ecosystems
            .iter()
            .flat_map(|e| {
                e.ships
                    .iter()
                    .chain(e.partial.keys())
                    .chain(e.packages.keys())
            })
            .map(String::as_str)
            .collect();
        for name in &known {
            if !offered.contains(name) && !self.unoffered.iter().any(|u| u == name) {
                problems.push(format!(
                    "{name} is in no row of crates/hashlab-judge/data/availability.toml: list it \
                     under `ships`, `packages` or `partial` of each [[ecosystem]] whose sources \
                     offer it (citing them), or in `unoffered` if none does"
                ));
            }
        }
        for name in &self.unoffered {
            if !known.contains(name.as_str()) {
                problems.push(format!("unoffered: '{name}' is not a registry algorithm"));
            } else if offered.contains(name.as_str()) {
                problems.push(format!(
                    "unoffered: {name} is offered by an ecosystem of the table"
                ));
            }
        }
        for eco in &self.ecosystems {
            let names = eco
                .ships
                .iter()
                .chain(eco.partial.keys())
                .chain(eco.packages.keys())
                .chain(eco.notes.keys())
                .chain(eco.since.keys());
            for name in names {
                if !known.contains(name.as_str()) {
                    problems.push(format!("{}: '{name}' is not a registry algorithm", eco.id));
                }
            }
            for name in eco.since.keys() {
                if !eco.ships.contains(name) {
                    problems.push(format!(
                        "{}: 'since' for {name}, which it does not ship",
                        eco.id
                    ));
                }
            }
        }
        problems
    }
}

/// The Rust row: the crates hashlab uses, from the registry's backends.
fn rust_entry(algorithm: &str, registry: &Registry) -> Entry {
    let crates: Vec<String> = registry
        .backends_of(algorithm)
        .unwrap_or_default()
        .into_iter()
        .filter(|b| b.is_available())
        .map(|b| {
            // "RustCrypto sha2 (SHA-NI/AVX2 at run time)" -> "RustCrypto sha2"
            let short = b
                .implementation
                .split(" (")
                .next()
                .unwrap_or(&b.implementation);
            short.to_string()
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let offer = if crates.is_empty() {
        Offer::Absent
    } else {
        Offer::Package
    };
    Entry {
        ecosystem: RUST.into(),
        title: "Rust (crates used by hashlab)".into(),
        offer,
        package: (!crates.is_empty()).then(|| crates.join(", ")),
        note: None,
        since: None,
        sources: Vec::new(),
    }
}
