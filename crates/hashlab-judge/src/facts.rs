//! Security facts about every algorithm, kept as reviewed data
//! (`data/facts.toml`) with the sources each claim comes from.

use std::collections::{BTreeMap, BTreeSet};

use hashlab::Registry;
use serde::{Deserialize, Serialize};

const FACTS_TOML: &str = include_str!("../data/facts.toml");

/// A document a fact comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub title: String,
    /// How inline citations name it; default: the title up to its first comma.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short: Option<String>,
    pub year: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LengthExtension {
    Vulnerable,
    Resistant,
    /// Keyed constructions and hashes with no security claim.
    NotApplicable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Keyed {
    No,
    Optional,
    Required,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Practical attacks on the full function.
    Broken,
    /// No attack on the full function.
    Sound,
    /// Claimed secure by its authors, without published third-party analysis.
    Unanalysed,
    NonCryptographic,
    Checksum,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Broken => "broken",
            Status::Sound => "sound",
            Status::Unanalysed => "unanalysed",
            Status::NonCryptographic => "non-cryptographic",
            Status::Checksum => "checksum",
        }
    }
}

/// The best published attack on the full function, when it beats the generic bound.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attack {
    /// log2 of the cost of a collision.
    pub collision_bits: f64,
    pub text: String,
    pub cite: Vec<String>,
}

/// A remark with its sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cited {
    pub text: String,
    pub cite: Vec<String>,
}

/// Tests failed out of tests run, in SMHasher3's published results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Smhasher3 {
    pub failed: u32,
    pub tests: u32,
}

/// Everything recorded about one algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlgorithmFacts {
    pub name: String,
    pub output_bits: u32,
    /// Generic collision security; `None` where no collision resistance is claimed.
    #[serde(default)]
    pub collision_bits: Option<u32>,
    #[serde(default)]
    pub preimage_bits: Option<u32>,
    #[serde(default)]
    pub security_cite: Vec<String>,
    #[serde(default)]
    pub attack: Option<Attack>,
    pub length_extension: LengthExtension,
    #[serde(default)]
    pub length_extension_note: Option<String>,
    #[serde(default)]
    pub length_extension_cite: Vec<String>,
    pub keyed: Keyed,
    pub prf: bool,
    /// Security as a MAC with a secret key; `None` where none is claimed.
    #[serde(default)]
    pub mac_bits: Option<u32>,
    #[serde(default)]
    pub mac_note: Option<String>,
    #[serde(default)]
    pub mac_cite: Vec<String>,
    pub xof: bool,
    /// The parallel tree mode, if the function has one.
    #[serde(default)]
    pub tree: Option<String>,
    pub construction: String,
    pub construction_cite: Vec<String>,
    /// Source ids of the standards or specifications that define it.
    pub standards: Vec<String>,
    pub status: Status,
    pub status_text: String,
    pub status_cite: Vec<String>,
    /// Reduced-round analysis, where the security margin is what people debate.
    #[serde(default)]
    pub margin: Option<Cited>,
    #[serde(default)]
    pub smhasher3: Option<Smhasher3>,
}

impl AlgorithmFacts {
    /// Collision security in bits, counting the best published attack.
    pub fn effective_collision_bits(&self) -> Option<f64> {
        let generic = self.collision_bits.map(f64::from)?;
        Some(match &self.attack {
            Some(a) => a.collision_bits.min(generic),
            None => generic,
        })
    }

    /// Every source id this entry cites.
    pub fn cited(&self) -> BTreeSet<&str> {
        let mut ids: BTreeSet<&str> = BTreeSet::new();
        let lists = [
            &self.security_cite,
            &self.length_extension_cite,
            &self.mac_cite,
            &self.construction_cite,
            &self.standards,
            &self.status_cite,
        ];
        for list in lists {
            ids.extend(list.iter().map(String::as_str));
        }
        if let Some(a) = &self.attack {
            ids.extend(a.cite.iter().map(String::as_str));
        }
        if let Some(m) = &self.margin {
            ids.extend(m.cite.iter().map(String::as_str));
        }
        if self.smhasher3.is_some() {
            ids.insert(SMHASHER3_SOURCE);
        }
        ids
    }
}

/// The source every `smhasher3` entry comes from.
pub const SMHASHER3_SOURCE: &str = "smhasher3-2025";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    pub sources: BTreeMap<String, Source>,
    #[serde(rename = "algorithm")]
    pub algorithms: Vec<AlgorithmFacts>,
}

impl Facts {
    /// The facts shipped with hashlab.
    pub fn builtin() -> Facts {
        // The file is part of the binary and checked by the tests: failing to
        // parse it is a build defect, not a user error.
        Facts::parse(FACTS_TOML).expect("data/facts.toml is valid (checked by tests)")
    }

    /// Parses and checks a facts file: every cited source must exist and every
    /// source must be cited.
    pub fn parse(text: &str) -> Result<Facts, String> {
        let facts: Facts = toml::from_str(text).map_err(|e| format!("facts: {e}"))?;
        let mut used = BTreeSet::new();
        let mut seen = BTreeSet::new();
        for alg in &facts.algorithms {
            if !seen.insert(alg.name.as_str()) {
                return Err(format!("facts: {} is listed twice", alg.name));
            }
            for id in alg.cited() {
                if !facts.sources.contains_key(id) {
                    return Err(format!("facts: {} cites unknown source '{id}'", alg.name));
                }
                used.insert(id);
            }
            if alg.standards.is_empty() || alg.status_cite.is_empty() {
                return Err(format!(
                    "facts: {} needs a defining document and a source for its status",
                    alg.name
                ));
            }
            if alg.collision_bits.is_some() && alg.security_cite.is_empty() {
                return Err(format!(
                    "facts: {} states security bits without a source",
                    alg.name
                ));
            }
            if alg.mac_bits.is_some() && alg.mac_cite.is_empty() {
                return Err(format!(
                    "facts: {} states MAC bits without a source",
                    alg.name
                ));
            }
        }
        if let Some(unused) = facts.sources.keys().find(|k| !used.contains(k.as_str())) {
            return Err(format!("facts: source '{unused}' is cited by nothing"));
        }
        Ok(facts)
    }

    pub fn get(&self, name: &str) -> Option<&AlgorithmFacts> {
        self.algorithms.iter().find(|a| a.name == name)
    }

    /// "FIPS 180-4 (2015)": a source's title up to its first comma, with the year.
    pub fn short(&self, id: &str) -> String {
        match self.sources.get(id) {
            Some(s) => format!(
                "{} ({})",
                s.short.as_deref().unwrap_or_else(|| short_title(&s.title)),
                s.year
            ),
            None => id.to_string(),
        }
    }

    /// Several sources, short form, joined with "; ".
    pub fn cite(&self, ids: &[String]) -> String {
        ids.iter()
            .map(|id| self.short(id))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Mismatches between these facts and a registry: algorithms without
    /// facts, facts naming no algorithm, output lengths that disagree.
    pub fn mismatches(&self, registry: &Registry) -> Vec<String> {
        let mut problems = Vec::new();
        for alg in registry.algorithms() {
            match self.get(&alg.name) {
                None => problems.push(format!(
                    "{} has no facts entry: add an [[algorithm]] with name = \"{}\" (security, \
                     attacks, each claim cited) to crates/hashlab-judge/data/facts.toml, and its \
                     new sources to docs/facts.md",
                    alg.name, alg.name
                )),
                Some(f) if f.output_bits as usize != alg.output_bits() => problems.push(format!(
                    "{}: facts say {} output bits, the registry {}",
                    alg.name,
                    f.output_bits,
                    alg.output_bits()
                )),
                Some(f) if f.xof != alg.output.is_xof() => {
                    problems.push(format!("{}: facts and registry disagree on XOF", alg.name))
                }
                Some(_) => {}
            }
        }
        for f in &self.algorithms {
            if !registry.algorithms().iter().any(|a| a.name == f.name) {
                problems.push(format!(
                    "facts entry {} names no registry algorithm",
                    f.name
                ));
            }
        }
        problems
    }
}

/// A title shortened for inline citations: the part before the first comma
/// ("NIST FIPS 180-4"), or the authors ("Wang & Yu").
pub fn short_title(title: &str) -> &str {
    title.split(',').next().unwrap_or(title).trim()
}
