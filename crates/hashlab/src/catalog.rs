//! The built-in algorithms: names, rules, tags and default-backend preferences.
//! Backends live in `backends/`; the catalog holds only what is true of the
//! algorithm whatever code computes it: the entries (catalog/entries.rs), in
//! the vocabulary of catalog/spec.rs, become the registry's [`Algorithm`]s here.

mod entries;
mod spec;

use crate::algorithm::ForeignTag;
use crate::{Algorithm, Class, Preference};
use entries::SPECS;
use spec::{Spec, ANY_KEY_ZERO_32, NOT_UNTAGGED};

pub(crate) fn algorithms() -> Vec<Algorithm> {
    let hmacs = SPECS.iter().filter_map(hmac_of);
    // The HMACs go before the other MACs (KMAC), after every hash.
    let first_mac = SPECS
        .iter()
        .position(|s| s.class == Class::Mac)
        .unwrap_or(SPECS.len());
    let mut all: Vec<Algorithm> = SPECS[..first_mac].iter().map(algorithm).collect();
    all.extend(hmacs);
    all.extend(SPECS[first_mac..].iter().map(algorithm));
    all
}

/// HMAC over the hash of `hash` (RFC 2104), when its entry asks for one:
/// named, tagged and aliased after it, with its output, block size and
/// backend preferences, and any key length (32 zero bytes when none is given).
fn hmac_of(hash: &Spec) -> Option<Algorithm> {
    let hmac = hash.hmac?;
    let prefixed = |name: &str| format!("hmac-{name}");
    Some(Algorithm {
        name: prefixed(hash.name),
        aliases: hash.aliases.iter().map(|a| prefixed(a)).collect(),
        family: "HMAC".to_string(),
        class: Class::Mac,
        key: ANY_KEY_ZERO_32,
        tag: format!("HMAC-{}", hash.tag),
        foreign_tags: Vec::new(),
        digest_prefix: None,
        bare_gnu_default: false,
        untagged_rank: NOT_UNTAGGED,
        cksum_rank: None,
        git_object_format: false,
        hashdeep_column: None,
        integer_digest: false,
        sfv: false,
        default_bench: hmac.default_bench,
        self_test: Some((b"abc".to_vec(), hmac.abc.to_string())),
        // The hash's own parameters are not the MAC's.
        salt: None,
        personal: None,
        seed: None,
        domain: None,
        fips202_suffix: None,
        derive_key: false,
        tree: None,
        ..algorithm(hash)
    })
}

fn algorithm(s: &Spec) -> Algorithm {
    Algorithm {
        name: s.name.to_string(),
        aliases: s.aliases.iter().map(|a| a.to_string()).collect(),
        family: s.family.to_string(),
        class: s.class,
        lineage: s.lineage,
        output: s.output,
        key: s.key,
        customizable: s.customizable,
        salt: s.salt,
        personal: s.personal,
        seed: s.seed,
        domain: s.domain,
        fips202_suffix: s.fips202_suffix,
        derive_key: s.derive_key,
        tree: s.tree,
        block_size: s.block_size,
        tag: s.tag.to_string(),
        foreign_tags: s
            .foreign_tags
            .iter()
            .map(|(tag, length)| ForeignTag {
                tag: tag.to_string(),
                length: *length,
            })
            .collect(),
        digest_prefix: s.digest_prefix.map(str::to_string),
        bare_gnu_default: s.bare_gnu_default,
        untagged_rank: s.untagged_rank,
        cksum_rank: s.cksum_rank,
        lines: s.lines,
        file_bound: s.file_bound,
        stable: s.stable,
        default_bench: s.default_bench,
        git_object_format: s.git_object_format,
        hashdeep_column: s.hashdeep_column.map(str::to_string),
        integer_digest: s.integer_digest,
        sfv: s.sfv,
        self_test: (!s.abc.is_empty()).then(|| (b"abc".to_vec(), s.abc.to_string())),
        preference: s
            .preference
            .iter()
            .map(|(backend, requires, reason)| Preference {
                backend: backend.to_string(),
                requires: requires.map(str::to_string),
                reason: reason.to_string(),
            })
            .collect(),
    }
}

/// Whether the catalog has an HMAC over the hash `hash`: backends offer
/// `hmac-NAME` for the hashes of theirs that have one.
// Unused in a build with neither RustCrypto nor OpenSSL.
#[allow(dead_code)]
pub(crate) fn has_hmac(hash: &str) -> bool {
    SPECS.iter().any(|s| s.name == hash && s.hmac.is_some())
}
