//! The reviewed data: complete for the registry, every claim sourced.

use hashlab::Registry;
use hashlab_judge::facts::{Keyed, LengthExtension, Status};
use hashlab_judge::{Availability, Facts, Offer};

const FACTS: &str = include_str!("../data/facts.toml");

#[test]
fn every_registry_algorithm_has_facts_and_every_entry_names_one() {
    let registry = Registry::default();
    let facts = Facts::builtin();
    assert_eq!(facts.mismatches(&registry), Vec::<String>::new());
    assert_eq!(facts.algorithms.len(), registry.algorithms().len());
}

#[test]
fn a_missing_or_stray_entry_is_reported() {
    let registry = Registry::default();
    let mut facts = Facts::builtin();
    facts.algorithms.retain(|a| a.name != "blake3");
    let mut stray = facts.algorithms[0].clone();
    stray.name = "sha-0".into();
    facts.algorithms.push(stray);
    let problems = facts.mismatches(&registry);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("blake3 has no facts entry")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("sha-0 names no registry algorithm")),
        "{problems:?}"
    );
}

#[test]
fn unknown_and_unused_sources_are_rejected() {
    let unknown = FACTS.replacen(
        "security_cite = [\"rfc1321\", \"hac-1996\"]",
        "security_cite = [\"nobody-2099\"]",
        1,
    );
    assert!(Facts::parse(&unknown)
        .unwrap_err()
        .contains("unknown source 'nobody-2099'"));
    let unused = format!("{FACTS}\n[sources.orphan]\ntitle = \"Orphan\"\nyear = 2000\n");
    assert!(Facts::parse(&unused)
        .unwrap_err()
        .contains("'orphan' is cited by nothing"));
}

#[test]
fn every_source_has_a_title_and_a_plausible_year() {
    let facts = Facts::builtin();
    for (id, s) in &facts.sources {
        assert!(!s.title.trim().is_empty(), "{id}");
        assert!((1990..=2026).contains(&s.year), "{id}: {}", s.year);
    }
}

#[test]
fn md5_and_sha1_name_their_practical_collisions() {
    let facts = Facts::builtin();
    for (name, needed) in [
        ("md5", &["wang-yu-2005", "stevens-2012"][..]),
        (
            "sha1",
            &["wang-yin-yu-2005", "shattered-2017", "shambles-2020"][..],
        ),
    ] {
        let f = facts.get(name).unwrap();
        assert_eq!(f.status, Status::Broken, "{name}");
        let attack = f.attack.as_ref().expect(name);
        for id in needed {
            assert!(attack.cite.iter().any(|c| c == id), "{name} lacks {id}");
        }
        assert!(f.effective_collision_bits().unwrap() < 64.0, "{name}");
        assert_eq!(f.length_extension, LengthExtension::Vulnerable);
    }
    assert_eq!(facts.sources["shattered-2017"].year, 2017);
    assert_eq!(facts.sources["shambles-2020"].year, 2020);
}

#[test]
fn reduced_round_designs_state_their_margin() {
    let facts = Facts::builtin();
    for name in [
        "blake2b",
        "blake2s",
        "blake3",
        "k12",
        "turboshake128",
        "sha3-256",
        "sha256",
    ] {
        let f = facts.get(name).unwrap();
        assert!(f.margin.is_some(), "{name} has no margin entry");
    }
}

#[test]
fn fast_hashes_are_not_for_adversarial_input() {
    let facts = Facts::builtin();
    for name in ["xxh32", "xxh64", "xxh3-64", "xxh3-128", "crc32c"] {
        let f = facts.get(name).unwrap();
        assert!(
            matches!(f.status, Status::NonCryptographic | Status::Checksum),
            "{name}"
        );
        assert!(
            f.status_text.starts_with("not for adversarial input"),
            "{name}"
        );
        assert_eq!(f.collision_bits, None, "{name}");
    }
}

#[test]
fn generic_security_follows_the_output_for_unkeyed_hashes() {
    // Birthday bound: at most half the output; preimages at most the output.
    let facts = Facts::builtin();
    for f in &facts.algorithms {
        if let (Some(c), Some(p)) = (f.collision_bits, f.preimage_bits) {
            assert!(c * 2 <= f.output_bits, "{}", f.name);
            assert!(p <= f.output_bits, "{}", f.name);
            assert_ne!(f.keyed, Keyed::Required, "{}", f.name);
        }
        if f.keyed == Keyed::No {
            assert_eq!(f.mac_bits, None, "{}", f.name);
        }
    }
}

#[test]
fn availability_table_names_registry_algorithms_and_every_ecosystem_asked() {
    let registry = Registry::default();
    let table = Availability::builtin();
    assert_eq!(table.mismatches(&registry), Vec::<String>::new());
    let ids = table.ecosystem_ids();
    for wanted in [
        "openssl",
        "boringssl",
        "libgcrypt",
        "nettle",
        "nss",
        "commoncrypto",
        "go",
        "python",
        "java",
        "node",
        "dotnet",
        "rust",
        "cli",
    ] {
        assert!(ids.contains(&wanted), "{wanted} missing from {ids:?}");
    }
    // SHA-256 is everywhere's standard library; the Rust row lists the crates.
    for entry in table.entries("sha256", &registry) {
        if entry.ecosystem == "rust" {
            assert_eq!(entry.offer, Offer::Package);
            assert!(entry
                .package
                .as_deref()
                .unwrap()
                .contains("RustCrypto sha2"));
        } else {
            assert_eq!(entry.offer, Offer::Ships, "{}", entry.ecosystem);
        }
    }
    // An extra package is named.
    let go_blake3 = table.entry("go", "blake3", &registry).unwrap();
    assert_eq!(go_blake3.offer, Offer::Package);
    assert_eq!(
        go_blake3.package.as_deref(),
        Some("github.com/zeebo/blake3")
    );
    // Seed 001's matrix: CommonCrypto has no SHA-512/256, NSS has no BLAKE2b.
    assert_eq!(
        table
            .entry("commoncrypto", "sha512-256", &registry)
            .unwrap()
            .offer,
        Offer::Absent
    );
    assert_eq!(
        table.entry("nss", "blake2b", &registry).unwrap().offer,
        Offer::Absent
    );
}

#[test]
fn a_stray_name_in_the_availability_table_is_reported() {
    let registry = Registry::default();
    let mut table = Availability::builtin();
    table.ecosystems[0].ships.push("sha-0".into());
    assert!(table
        .mismatches(&registry)
        .iter()
        .any(|p| p.contains("'sha-0' is not a registry algorithm")));
}

#[test]
fn docs_list_every_source() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/facts.md"))
        .unwrap();
    let facts = Facts::builtin();
    let table = Availability::builtin();
    for id in facts.sources.keys().chain(table.sources.keys()) {
        assert!(
            doc.contains(&format!("`{id}`")),
            "docs/facts.md does not list {id}"
        );
    }
}
