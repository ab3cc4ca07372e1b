//! `list`: the registry as rows, one per algorithm, with its backends here;
//! their cells for a table, and the page a terminal gets (the table, why
//! each default was chosen, and what is unavailable here).

use hashlab::{
    Algorithm, Backend, BackendStatus, ByteRange, DomainRule, KeyRule, OutputRule, Registry,
};
use hashlab_table::{Document, List, Part, Table, Tabular};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackendRow {
    pub name: String,
    pub implementation: String,
    pub available: bool,
    /// Why it is unavailable; null when available.
    pub reason: Option<String>,
    pub default: bool,
    pub supports_key: bool,
    pub supports_length: bool,
    pub supports_customization: bool,
    /// Takes the algorithm's salt, personalization, seed, domain byte or
    /// key-derivation context.
    pub supports_parameters: bool,
    pub parallel: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlgorithmRow {
    pub name: String,
    pub aliases: Vec<String>,
    pub family: String,
    pub output_bits: usize,
    pub class: &'static str,
    pub xof: bool,
    pub output: OutputRule,
    pub key: KeyRule,
    pub customizable: bool,
    /// Salt lengths in bytes (BLAKE2); null: none.
    pub salt: Option<ByteRange>,
    pub personal: Option<ByteRange>,
    /// Width of its seeds in bits; null: unseeded.
    pub seed: Option<u32>,
    pub domain: Option<DomainRule>,
    pub derive_key: bool,
    /// False where the output may change between versions or machines, so
    /// `sum` refuses it (foldhash).
    pub stable: bool,
    pub tag: String,
    pub default_backend: Option<String>,
    pub default_reason: Option<String>,
    pub backends: Vec<BackendRow>,
}

/// Whether a backend runs here, and why not when it does not; the one
/// reading of a backend's status that `list` and `info` share.
pub fn availability(backend: &Backend) -> (bool, Option<String>) {
    match backend.status() {
        BackendStatus::Available => (true, None),
        BackendStatus::Unavailable(why) => (false, Some(why.clone())),
    }
}

/// Every algorithm of `registry`, in its order.
pub fn listing(registry: &Registry) -> Vec<AlgorithmRow> {
    registry
        .algorithms()
        .iter()
        .map(|a| row(registry, a))
        .collect()
}

fn row(registry: &Registry, alg: &Algorithm) -> AlgorithmRow {
    let default = registry.default_backend(&alg.name).ok();
    let default_name = default.as_ref().map(|(b, _)| b.name.clone());
    let backends = registry
        .backends_of(&alg.name)
        .unwrap_or_default()
        .into_iter()
        .map(|b| {
            let (available, reason) = availability(b);
            BackendRow {
                name: b.name.clone(),
                implementation: b.implementation.clone(),
                available,
                reason,
                default: default_name.as_deref() == Some(b.name.as_str()),
                supports_key: b.supports_key,
                supports_length: b.supports_length,
                supports_customization: b.supports_customization,
                supports_parameters: b.supports_parameters,
                parallel: b.parallel,
            }
        })
        .collect();
    AlgorithmRow {
        name: alg.name.clone(),
        aliases: alg.aliases.clone(),
        family: alg.family.clone(),
        output_bits: alg.output_bits(),
        class: alg.class.as_str(),
        xof: alg.output.is_xof(),
        output: alg.output,
        key: alg.key,
        customizable: alg.customizable,
        salt: alg.salt,
        personal: alg.personal,
        seed: alg.seed,
        domain: alg.domain,
        derive_key: alg.derive_key,
        stable: alg.stable,
        tag: alg.tag.clone(),
        default_backend: default_name,
        default_reason: default.map(|(_, why)| why),
        backends,
    }
}

fn output_cell(rule: &OutputRule) -> String {
    match *rule {
        OutputRule::Fixed { .. } => "fixed".into(),
        OutputRule::Variable { min, max, .. } => format!("{min}..{max} B"),
        OutputRule::Xof { .. } => "XOF".into(),
    }
}

fn key_cell(rule: &KeyRule) -> String {
    let range = |min: usize, max: usize| {
        if min == max {
            format!("{min} B")
        } else if max >= 1 << 20 {
            "any".to_string()
        } else {
            format!("{min}..{max} B")
        }
    };
    match *rule {
        KeyRule::None => "-".into(),
        KeyRule::Optional { min, max } => format!("optional {}", range(min, max)),
        KeyRule::Defaulted { min, max, default } => {
            format!("{}, default {default}x00", range(min, max))
        }
    }
}

/// What else it takes besides a key and a length, in the words of `sum`'s
/// parameters.
fn parameters_cell(row: &AlgorithmRow) -> String {
    let mut taken = Vec::new();
    if row.customizable {
        taken.push("custom".to_string());
    }
    if let Some(salt) = row.salt {
        taken.push(format!("salt, personal (..{} B)", salt.max));
    }
    if let Some(bits) = row.seed {
        taken.push(format!("seed ({bits}-bit)"));
    }
    if let Some(rule) = row.domain {
        taken.push(format!("domain (0x{:02X}..0x{:02X})", rule.min, rule.max));
    }
    if row.derive_key {
        taken.push("derive-key".to_string());
    }
    if taken.is_empty() {
        "-".into()
    } else {
        taken.join(", ")
    }
}

impl Tabular for AlgorithmRow {
    fn headers() -> &'static [&'static str] {
        &[
            "name",
            "family",
            "bits",
            "class",
            "output",
            "key",
            "parameters",
            "tag",
            "backends (* default)",
        ]
    }
    fn cells(&self) -> Vec<String> {
        let backends = self
            .backends
            .iter()
            .map(|b| {
                let mark = if b.default { "*" } else { "" };
                let missing = if b.available { "" } else { " (unavailable)" };
                format!("{}{mark}{missing}", b.name)
            })
            .collect::<Vec<_>>()
            .join(", ");
        vec![
            self.name.clone(),
            self.family.clone(),
            self.output_bits.to_string(),
            self.class.to_string(),
            output_cell(&self.output),
            key_cell(&self.key),
            parameters_cell(self),
            self.tag.clone(),
            backends,
        ]
    }
}

/// The listing as a document: the table alone, or (`explained`, for a
/// terminal) followed by why each default was chosen and what is
/// unavailable here.
pub fn document(rows: &[AlgorithmRow], explained: bool) -> Document {
    let mut doc = Document::table(Table::of_rows("", rows));
    if !explained {
        return doc;
    }
    let defaults = rows
        .iter()
        .filter_map(|r| match (&r.default_backend, &r.default_reason) {
            (Some(b), Some(why)) => Some(format!("  {:<16} {b}: {why}", r.name)),
            _ => None,
        })
        .collect();
    // Said even when empty: the heading tells how defaults are chosen.
    doc.parts.push(Part::List(List {
        title: "Why each default (first available in a fixed preference order):".into(),
        items: defaults,
        preformatted: true,
    }));
    let unavailable = rows
        .iter()
        .flat_map(|r| {
            r.backends.iter().filter_map(move |b| {
                b.reason
                    .as_ref()
                    .map(|why| format!("  {} / {}: {why}", r.name, b.name))
            })
        })
        .collect();
    doc.push_lines("Unavailable here:", unavailable);
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_algorithm_is_a_row_with_its_default_marked() {
        let registry = Registry::default();
        let rows = listing(&registry);
        assert_eq!(rows.len(), registry.algorithms().len());
        let plain = rows
            .iter()
            .find(|r| matches!(r.key, KeyRule::None) && r.default_backend.is_some())
            .expect("an unkeyed algorithm with a default");
        assert_eq!(plain.backends.iter().filter(|b| b.default).count(), 1);
        assert_eq!(plain.cells()[2], plain.output_bits.to_string());
        assert_eq!(plain.cells()[5], "-");
        assert!(plain.cells()[8].contains('*'));
    }

    #[test]
    fn cells_say_what_an_algorithm_takes() {
        assert_eq!(
            key_cell(&KeyRule::Optional { min: 0, max: 64 }),
            "optional 0..64 B"
        );
        assert_eq!(
            key_cell(&KeyRule::Defaulted {
                min: 16,
                max: 16,
                default: 16
            }),
            "16 B, default 16x00"
        );
        let blake2 = listing(&Registry::default())
            .into_iter()
            .find(|r| r.salt.is_some())
            .expect("an algorithm with a salt");
        assert!(parameters_cell(&blake2).starts_with("salt, personal"));
    }

    #[test]
    fn the_terminal_page_explains_defaults_and_the_csv_table_does_not() {
        let rows = listing(&Registry::default());
        assert_eq!(document(&rows, false).parts.len(), 1);
        let explained = document(&rows, true);
        let Part::List(defaults) = &explained.parts[1] else {
            panic!("a list of defaults")
        };
        assert_eq!(defaults.items.len(), rows.len());
    }
}
