//! `pick` against the committed results of this machine type, measured with
//! and without SHA-NI (fixtures/results, never edited by hand).

use std::path::PathBuf;

use hashlab::Registry;
use hashlab_bench::report::Report;
use hashlab_judge::availability::Offer;
use hashlab_judge::facts::Keyed;
use hashlab_judge::pick::{
    candidates, rank, Knowledge, Pick, PickRequest, SpeedOrigin, Speeds, Use,
};
use hashlab_judge::speed::{group_thousands, load_report};
use hashlab_judge::{Availability, Facts};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/results")
        .join(name)
}

struct World {
    registry: Registry,
    facts: Facts,
    table: Availability,
    plain: Report,
    masked: Report,
}

fn load_fixture(name: &str) -> Report {
    let path = fixture(name);
    load_report(&path, &std::fs::read(&path).unwrap()).unwrap()
}

fn world() -> World {
    World {
        registry: Registry::default(),
        facts: Facts::builtin(),
        table: Availability::builtin(),
        plain: load_fixture("zen4-plain.json"),
        masked: load_fixture("zen4-mask-sha.json"),
    }
}

fn request(use_: Use, interop: &[&str]) -> PickRequest {
    PickRequest {
        use_,
        min_security: None,
        size: None,
        interop: interop.iter().map(|s| s.to_string()).collect(),
    }
}

fn pick_with(w: &World, req: &PickRequest, report: &Report, label: &str) -> Pick {
    let know = Knowledge {
        facts: &w.facts,
        table: &w.table,
        registry: &w.registry,
    };
    let found = candidates(req, know).unwrap();
    rank(
        req,
        know,
        found,
        Speeds {
            report,
            origin: SpeedOrigin::File,
            label,
        },
    )
}

fn pick(w: &World, req: &PickRequest) -> Pick {
    pick_with(w, req, &w.plain, "zen4-plain.json")
}

fn names(p: &Pick) -> Vec<&str> {
    p.choices.iter().map(|c| c.algorithm.as_str()).collect()
}

fn position(p: &Pick, algorithm: &str) -> usize {
    names(p)
        .iter()
        .position(|n| *n == algorithm)
        .unwrap_or_else(|| panic!("{algorithm} not chosen: {:?}", names(p)))
}

fn excluded_reason<'a>(p: &'a Pick, algorithm: &str) -> &'a str {
    &p.excluded
        .iter()
        .find(|e| e.algorithm == algorithm)
        .unwrap_or_else(|| panic!("{algorithm} not excluded"))
        .reason
}

/// The fixture's own single-thread MB/s for a cell, read without the library.
fn fixture_mbps(file: &str, algorithm: &str, size: usize) -> f64 {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(file)).unwrap()).unwrap();
    json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["algorithm"] == algorithm
                && c["size"] == size
                && c["mode"]["kind"] == "streams"
                && c["mode"]["threads"] == 1
        })
        .map(|c| c["throughput"]["mb_per_s"].as_f64().unwrap())
        .unwrap()
}

#[test]
fn each_use_gets_its_own_sensible_answer() {
    let w = world();
    let content = pick(&w, &request(Use::ContentAddressing, &[]));
    let integrity = pick(&w, &request(Use::Integrity, &[]));
    let mac = pick(&w, &request(Use::Mac, &[]));
    let table = pick(&w, &request(Use::HashTable, &[]));
    let transfer = pick(&w, &request(Use::Transfer, &["cli"]));

    // Content addressing: only hashes anyone can compute with >= 128-bit
    // collision security; MD5 and SHA-1 are out for their published attacks.
    for c in &content.choices {
        let f = w.facts.get(&c.algorithm).unwrap();
        assert!(
            f.effective_collision_bits().unwrap() >= 128.0,
            "{}",
            c.algorithm
        );
        assert_ne!(f.keyed, Keyed::Required, "{}", c.algorithm);
    }
    assert!(excluded_reason(&content, "sha1").contains("SHAttered"));
    assert!(excluded_reason(&content, "md5").contains("24 bits"));
    assert!(excluded_reason(&content, "xxh3-64").contains("not for adversarial input"));

    // Bitrot: no attacker, so the fast non-cryptographic hashes win; 32-bit
    // outputs are too short.
    assert!(
        names(&integrity)[..3].iter().any(|n| n.starts_with("xxh3")),
        "{:?}",
        names(&integrity)
    );
    assert!(excluded_reason(&integrity, "crc32c").starts_with("32-bit output"));
    assert!(
        names(&integrity).contains(&"md5"),
        "no attacker: MD5 still detects accidents"
    );

    // MAC: keyed constructions with a claimed level >= 128 bits.
    for c in &mac.choices {
        assert!(
            w.facts.get(&c.algorithm).unwrap().mac_bits.unwrap() >= 128,
            "{}",
            c.algorithm
        );
    }
    assert!(names(&mac).contains(&"hmac-sha256") && names(&mac).contains(&"kmac128"));
    assert!(excluded_reason(&mac, "siphash-2-4").contains("64 bits"));
    assert!(excluded_reason(&mac, "sha256").starts_with("no keyed mode"));
    assert!(excluded_reason(&mac, "highwayhash-128").starts_with("no security level claimed"));

    // Hash table: ranked at 16 bytes; CRC is out for its distribution.
    assert_eq!(table.size, 16);
    assert!(excluded_reason(&table, "crc32c").contains("SMHasher3 fails 235 of 250"));
    assert!(excluded_reason(&table, "xxh32").contains("SMHasher3 fails 83 of 250"));
    let top = w.facts.get(&table.choices[0].algorithm).unwrap();
    assert_eq!(
        top.collision_bits, None,
        "a non-cryptographic hash is fastest on 16-byte keys"
    );

    // Transfer checked with the tools every Linux has: what the availability
    // table says the command line ships (coreutils), and nothing else.
    for c in &transfer.choices {
        let entry = w.table.entry("cli", &c.algorithm, &w.registry).unwrap();
        assert_eq!(entry.offer, Offer::Ships, "{}", c.algorithm);
    }
    assert!(names(&transfer).contains(&"sha256"));
    assert!(excluded_reason(&transfer, "blake3").contains("package b3sum"));

    let tops: Vec<&str> = [&content, &integrity, &mac, &table, &transfer]
        .iter()
        .map(|p| p.choices[0].algorithm.as_str())
        .collect();
    let mut distinct = tops.clone();
    distinct.sort();
    distinct.dedup();
    assert!(
        distinct.len() >= 4,
        "uses should not all end the same: {tops:?}"
    );
}

#[test]
fn keyed_prf_is_required_for_hash_tables_facing_attackers() {
    let w = world();
    let mut req = request(Use::HashTable, &[]);
    req.min_security = Some(64);
    let p = pick(&w, &req);
    for c in &p.choices {
        let f = w.facts.get(&c.algorithm).unwrap();
        assert!(f.prf && f.keyed != Keyed::No, "{}", c.algorithm);
    }
    assert!(names(&p).contains(&"siphash-1-3"));
    assert!(excluded_reason(&p, "xxh3-64").contains("keyed PRF"));
}

#[test]
fn sha_ni_decides_sha256_against_sha512_256_as_the_seeds_said() {
    let w = world();
    // Git's constraints (seed 000/001): content addressing, in the libraries
    // of the languages asked.
    let req = request(Use::ContentAddressing, &["go", "python"]);
    let plain = pick_with(&w, &req, &w.plain, "zen4-plain.json");
    let masked = pick_with(&w, &req, &w.masked, "zen4-mask-sha.json");
    assert_eq!(plain.choices[0].algorithm, "sha256", "{:?}", names(&plain));
    assert_ne!(
        masked.choices[0].algorithm,
        "sha256",
        "{:?}",
        names(&masked)
    );
    assert!(position(&masked, "sha256") > position(&plain, "sha256"));
    assert!(position(&masked, "sha512-256") < position(&masked, "sha256"));
    // Without the interop filter sha256 still drops in the ranking.
    let all_plain = pick_with(&w, &request(Use::ContentAddressing, &[]), &w.plain, "p");
    let all_masked = pick_with(&w, &request(Use::ContentAddressing, &[]), &w.masked, "m");
    assert!(position(&all_masked, "sha256") > position(&all_plain, "sha256"));
    assert!(masked.cpu.contains("with sha masked"));
}

#[test]
fn reasons_quote_the_numbers_from_the_file() {
    let w = world();
    let req = request(Use::ContentAddressing, &["go", "python"]);
    let plain = pick_with(&w, &req, &w.plain, "zen4-plain.json");
    let masked = pick_with(&w, &req, &w.masked, "zen4-mask-sha.json");
    let sha256 = |p: &Pick| {
        p.choices
            .iter()
            .find(|c| c.algorithm == "sha256")
            .unwrap()
            .clone()
    };

    let want = group_thousands(fixture_mbps("zen4-plain.json", "sha256", 4096));
    let c = sha256(&plain);
    let speed = &c.reasons[0];
    assert!(
        speed.contains(&format!("{want} MB/s in zen4-plain.json at 4 KiB")),
        "{speed}"
    );
    assert!(speed.contains("SHA-NI path"), "{speed}");
    assert!(
        c.summary.starts_with(&format!("sha256: {want} MB/s")),
        "{}",
        c.summary
    );
    assert!(c.summary.contains("NIST FIPS 180-4 (2015)"));
    assert!(c
        .reasons
        .iter()
        .any(|r| r.contains("collision 128 bits, preimage 256 bits")));
    assert!(c
        .reasons
        .iter()
        .any(|r| r == "availability: in every ecosystem asked (go, python)"));

    let want = group_thousands(fixture_mbps("zen4-mask-sha.json", "sha256", 4096));
    let c = sha256(&masked);
    assert!(
        c.reasons[0].contains(&format!("{want} MB/s in zen4-mask-sha.json")),
        "{}",
        c.reasons[0]
    );
    assert!(!c.reasons[0].contains("SHA-NI"), "{}", c.reasons[0]);
}

#[test]
fn the_nearest_measured_size_is_used_and_said() {
    let w = world();
    let mut req = request(Use::ContentAddressing, &[]);
    req.size = Some(50_000);
    let p = pick(&w, &req);
    let m = p.choices[0].measured.as_ref().unwrap();
    assert_eq!((m.size, m.requested_size), (65536, 50_000));
    assert!(
        p.choices[0].reasons[0].contains("at 64 KiB (nearest measured to 50 KB)"),
        "{}",
        p.choices[0].reasons[0]
    );
    assert!(
        p.notes.iter().any(|n| n.contains("no cell at 50 KB")),
        "{:?}",
        p.notes
    );
}

#[test]
fn algorithms_the_file_lacks_are_unmeasured_not_measured_now() {
    let w = world();
    let mut partial = w.plain.clone();
    partial
        .cells
        .retain(|c| c.algorithm != "blake3" && c.algorithm != "k12");
    let p = pick_with(
        &w,
        &request(Use::ContentAddressing, &[]),
        &partial,
        "partial.json",
    );
    let blake3 = p.choices.iter().find(|c| c.algorithm == "blake3").unwrap();
    assert_eq!((blake3.rank, blake3.measured.is_none()), (None, true));
    assert_eq!(
        blake3.reasons[0],
        "speed: unmeasured (partial.json has no result for it)"
    );
    // Unmeasured ones come after every measured one.
    let first_unmeasured = p.choices.iter().position(|c| c.rank.is_none()).unwrap();
    assert!(p.choices[first_unmeasured..]
        .iter()
        .all(|c| c.rank.is_none()));
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("blake3, k12") && n.contains("not measured now")),
        "{:?}",
        p.notes
    );
}

#[test]
fn an_unknown_ecosystem_is_refused() {
    let w = world();
    let know = Knowledge {
        facts: &w.facts,
        table: &w.table,
        registry: &w.registry,
    };
    let err = candidates(&request(Use::Mac, &["cobol"]), know).unwrap_err();
    assert!(
        err.starts_with("'cobol' is not an ecosystem (openssl, boringssl"),
        "{err}"
    );
}
