//! `hashlab list`: the registry as a table.

use std::process::ExitCode;

use hashlab::{Algorithm, BackendStatus, ByteRange, DomainRule, KeyRule, OutputRule, Registry};
use serde::Serialize;

use crate::cli::{Format, ListArgs};
use crate::failure::Failure;
use crate::output::{render, Tabular};

#[derive(Serialize)]
struct BackendRow {
    name: String,
    implementation: String,
    available: bool,
    /// Why it is unavailable; null when available.
    reason: Option<String>,
    default: bool,
    supports_key: bool,
    supports_length: bool,
    supports_customization: bool,
    /// Takes the algorithm's salt, personalization, seed, domain byte or
    /// key-derivation context.
    supports_parameters: bool,
    parallel: bool,
}

#[derive(Serialize)]
struct AlgorithmRow {
    name: String,
    aliases: Vec<String>,
    family: String,
    output_bits: usize,
    class: &'static str,
    xof: bool,
    output: OutputRule,
    key: KeyRule,
    customizable: bool,
    /// Salt lengths in bytes (BLAKE2); null: none.
    salt: Option<ByteRange>,
    personal: Option<ByteRange>,
    /// Width of its seeds in bits; null: unseeded.
    seed: Option<u32>,
    domain: Option<DomainRule>,
    derive_key: bool,
    /// False where the output may change between versions or machines, so
    /// `sum` refuses it (foldhash).
    stable: bool,
    tag: String,
    default_backend: Option<String>,
    default_reason: Option<String>,
    backends: Vec<BackendRow>,
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

/// What else it takes besides a key and a length, as `sum`'s options name it.
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

fn row(registry: &Registry, alg: &Algorithm) -> AlgorithmRow {
    let default = registry.default_backend(&alg.name).ok();
    let default_name = default.as_ref().map(|(b, _)| b.name.clone());
    let backends = registry
        .backends_of(&alg.name)
        .unwrap_or_default()
        .into_iter()
        .map(|b| {
            let status = b.status();
            BackendRow {
                name: b.name.clone(),
                implementation: b.implementation.clone(),
                available: *status == BackendStatus::Available,
                reason: match status {
                    BackendStatus::Available => None,
                    BackendStatus::Unavailable(why) => Some(why.clone()),
                },
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

pub fn run(args: &ListArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let rows: Vec<AlgorithmRow> = registry
        .algorithms()
        .iter()
        .map(|a| row(&registry, a))
        .collect();
    let format = args.format.chosen().unwrap_or(Format::Table);
    let mut out = render(&rows, format)?;
    if format == Format::Table {
        out.extend_from_slice(
            b"\nWhy each default (first available in a fixed preference order):\n",
        );
        for r in &rows {
            if let (Some(b), Some(why)) = (&r.default_backend, &r.default_reason) {
                out.extend_from_slice(format!("  {:<16} {b}: {why}\n", r.name).as_bytes());
            }
        }
        let unavailable: Vec<String> = rows
            .iter()
            .flat_map(|r| {
                r.backends.iter().filter_map(move |b| {
                    b.reason
                        .as_ref()
                        .map(|why| format!("  {} / {}: {why}\n", r.name, b.name))
                })
            })
            .collect();
        if !unavailable.is_empty() {
            out.extend_from_slice(b"\nUnavailable here:\n");
            out.extend(unavailable.concat().into_bytes());
        }
    }
    crate::stdio::write_out(&out)?;
    Ok(ExitCode::SUCCESS)
}
