//! Names, rules and the registry's public API.

use std::collections::HashSet;

use hashlab::{
    Algorithm, Backend, BackendStatus, Class, HashError, HashParams, Hasher, OutputRule, Registry,
};

#[test]
fn every_catalog_entry_is_complete() {
    let registry = Registry::default();
    assert!(!registry.algorithms().is_empty());
    let mut tags = HashSet::new();
    for alg in registry.algorithms() {
        let who = &alg.name;
        assert_eq!(
            alg.name,
            alg.name.to_lowercase(),
            "{who}: canonical names are lower case"
        );
        assert!(
            !alg.family.is_empty() && !alg.tag.is_empty(),
            "{who}: family and tag"
        );
        assert!(
            tags.insert(alg.tag.to_ascii_uppercase()),
            "{who}: tag {} taken",
            alg.tag
        );
        assert!(alg.block_size > 0, "{who}: block size");
        // An unstable output (foldhash) has no answer to know.
        assert_eq!(alg.self_test.is_some(), alg.stable, "{who}: known answer");
        for name in std::iter::once(&alg.name).chain(&alg.aliases) {
            assert_eq!(&registry.algorithm(name).unwrap().name, who, "{name}");
        }
        for foreign in &alg.foreign_tags {
            assert!(
                tags.insert(foreign.tag.to_ascii_uppercase()),
                "{who}: tag {} taken",
                foreign.tag
            );
        }
        assert!(
            !registry.backends_of(who).unwrap().is_empty(),
            "{who}: no backend"
        );
        // A hash faster than the page cache has no use for hashing threads.
        if alg.file_bound == hashlab::FileBound::Reading {
            assert!(
                registry
                    .backends_of(who)
                    .unwrap()
                    .iter()
                    .all(|b| !b.parallel),
                "{who}: reading-bound yet tree-parallel"
            );
        }
    }
}

#[test]
fn every_built_in_backend_is_available_where_ci_runs() {
    // Under CI every backend this build has must run: a missing library or CPU
    // feature there is a failure, not a smaller test.
    if !hashlab_testkit::under_ci() {
        return;
    }
    let registry = Registry::default();
    let unavailable: Vec<String> = registry
        .backends()
        .iter()
        .filter_map(|b| match b.status() {
            BackendStatus::Available => None,
            BackendStatus::Unavailable(why) => Some(format!("{} / {}: {why}", b.algorithm, b.name)),
        })
        .collect();
    assert!(
        unavailable.is_empty(),
        "unavailable under CI:\n{}",
        unavailable.join("\n")
    );
}

#[test]
fn names_resolve_case_and_separator_insensitively() {
    let registry = Registry::default();
    for (query, canonical) in [
        ("SHA256", "sha256"),
        ("sha-256", "sha256"),
        ("sha2-256", "sha256"),
        ("SHA3_256", "sha3-256"),
        ("sha512/256", "sha512-256"),
        ("SHA-512/224", "sha512-224"),
        ("xxh3", "xxh3-64"),
        ("XXH128", "xxh3-128"),
        ("siphash", "siphash-2-4"),
        ("KangarooTwelve", "k12"),
        ("BLAKE2b512", "blake2b"),
        ("HMAC-SHA-256", "hmac-sha256"),
        ("CRC-32C", "crc32c"),
    ] {
        assert_eq!(
            registry.algorithm(query).unwrap().name,
            canonical,
            "{query}"
        );
    }
}

#[test]
fn names_do_not_collide_after_normalisation() {
    let registry = Registry::default();
    let mut owner = std::collections::HashMap::new();
    for alg in registry.algorithms() {
        for name in std::iter::once(&alg.name).chain(&alg.aliases) {
            let squashed: String = name
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            let first = owner.entry(squashed).or_insert(alg.name.clone());
            assert_eq!(
                first, &alg.name,
                "{name} of {} collides with {first}",
                alg.name
            );
        }
    }
}

#[test]
fn unknown_names_suggest_close_matches() {
    let registry = Registry::default();
    match registry.algorithm("sha265") {
        Err(HashError::UnknownAlgorithm { suggestions, .. }) => {
            assert!(
                suggestions.contains(&"sha256".to_string()),
                "{suggestions:?}"
            )
        }
        other => panic!("{other:?}"),
    }
    match registry.algorithm("blak3") {
        Err(HashError::UnknownAlgorithm { suggestions, .. }) => {
            assert_eq!(suggestions[0], "blake3")
        }
        other => panic!("{other:?}"),
    }
    let err = registry.algorithm("zzzzzzzz").unwrap_err().to_string();
    assert_eq!(err, "unknown algorithm 'zzzzzzzz'");
}

#[test]
fn parameter_rules_are_enforced_for_every_backend() {
    let registry = Registry::default();
    let p = |key: Option<Vec<u8>>, length: Option<usize>| HashParams {
        key,
        length,
        ..Default::default()
    };
    let err = |alg: &str, params: HashParams| {
        registry
            .hasher(alg, None, &params)
            .err()
            .unwrap()
            .to_string()
    };
    assert_eq!(err("sha256", p(Some(vec![1]), None)), "sha256 takes no key");
    assert_eq!(
        err("siphash-1-3", p(Some(vec![1; 15]), None)),
        "siphash-1-3 key must be exactly 16 bytes, got 15 bytes"
    );
    assert_eq!(
        err("blake2s", p(Some(vec![1; 33]), None)),
        "blake2s key must be 1..=32 bytes, got 33 bytes"
    );
    assert_eq!(
        err("blake2b", p(None, Some(0))),
        "blake2b output length must be 1..=64 bytes, got 0"
    );
    assert_eq!(
        err("xxh64", p(None, Some(4))),
        "xxh64 has a fixed output of 8 bytes; no other length is accepted"
    );
    // Keys that default to zeros: an explicit zero key gives the same answer.
    for (alg, len) in [
        ("siphash-2-4", 16),
        ("highwayhash-64", 32),
        ("hmac-sha256", 32),
        ("kmac128", 32),
    ] {
        let mut a = registry.hasher(alg, None, &HashParams::default()).unwrap();
        let mut b = registry
            .hasher(alg, None, &p(Some(vec![0; len]), None))
            .unwrap();
        a.update(b"x");
        b.update(b"x");
        assert_eq!(a.finalize_reset(), b.finalize_reset(), "{alg}");
    }
    // HMAC's default 32-byte zero key is the empty key.
    let mut a = registry
        .hasher("hmac-sha512", None, &HashParams::default())
        .unwrap();
    let mut b = registry
        .hasher("hmac-sha512", None, &p(Some(vec![]), None))
        .unwrap();
    assert_eq!(a.finalize_reset(), b.finalize_reset());
}

#[test]
fn default_backend_is_deterministic_and_explained() {
    let registry = Registry::default();
    for alg in registry.algorithms() {
        let (first, why) = registry.default_backend(&alg.name).unwrap();
        let (second, _) = registry.default_backend(&alg.name).unwrap();
        assert_eq!(first.name, second.name);
        assert!(first.is_available());
        assert!(!why.is_empty());
        // Preference lists are shared within a family, so an entry may name a
        // backend this algorithm lacks, but never one that exists nowhere (a typo).
        let all: HashSet<&str> = registry
            .backends()
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        for p in &alg.preference {
            assert!(
                all.contains(p.backend.as_str()),
                "{}: no backend called {}",
                alg.name,
                p.backend
            );
            if let Some(feature) = &p.requires {
                assert!(
                    hashlab::cpu::known_features_of("x86_64").contains(&feature.as_str())
                        || hashlab::cpu::known_features_of("aarch64").contains(&feature.as_str()),
                    "{}: unknown CPU feature {feature}",
                    alg.name
                );
            }
        }
        assert!(
            alg.preference
                .iter()
                .any(|p| registry.backend(&alg.name, &p.backend).is_ok()),
            "{}: its preference list names none of its backends",
            alg.name
        );
    }
}

#[test]
fn tags_follow_the_tools() {
    let registry = Registry::default();
    let tag = |alg: &str, len: usize| registry.algorithm(alg).unwrap().tag_for_length(len);
    assert_eq!(tag("blake2b", 64), "BLAKE2b");
    assert_eq!(tag("blake2b", 32), "BLAKE2b-256");
    assert_eq!(tag("sha3-256", 32), "SHA3-256");
    assert_eq!(tag("xxh3-64", 8), "XXH3");
    assert_eq!(tag("xxh3-128", 16), "XXH128");
    assert_eq!(tag("k12", 64), "K12-512");
    assert_eq!(tag("crc32c", 4), "CRC32C");
}

/// A toy checksum registered from outside the crate, with a backend that is unavailable.
struct Sum8(u8);

impl Hasher for Sum8 {
    fn update(&mut self, data: &[u8]) {
        for b in data {
            self.0 = self.0.wrapping_add(*b);
        }
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        out[0] = self.0;
        self.0 = 0;
    }
    fn reset(&mut self) {
        self.0 = 0;
    }
    fn output_len(&self) -> usize {
        1
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(Sum8(self.0))
    }
}

#[test]
fn users_register_their_own_algorithms_and_backends() {
    let mut registry = Registry::default();
    let sum8 = Algorithm {
        aliases: vec!["bytesum".into()],
        self_test: Some((vec![1, 2], "03".into())),
        preference: vec![hashlab::Preference::new("fast", "would be faster")],
        ..Algorithm::new(
            "sum8",
            "toy",
            Class::Checksum,
            OutputRule::Fixed { bytes: 1 },
        )
    };
    registry.register_algorithm(sum8.clone()).unwrap();
    assert!(matches!(
        registry.register_algorithm(sum8),
        Err(HashError::Duplicate { .. })
    ));
    registry
        .register_backend(
            Backend::new("sum8", "fast", "not here", |_| Ok(Box::new(Sum8(0))))
                .with_probe(|| Err("needs a CPU from the future".into())),
        )
        .unwrap();
    registry
        .register_backend(Backend::new("bytesum", "plain", "a loop", |_| {
            Ok(Box::new(Sum8(0)))
        }))
        .unwrap();
    assert!(registry
        .register_backend(Backend::new("sum8", "plain", "again", |_| Ok(Box::new(
            Sum8(0)
        ))))
        .is_err());
    assert!(registry
        .register_backend(Backend::new("nope", "plain", "x", |_| Ok(Box::new(Sum8(
            0
        )))))
        .is_err());

    let fast = registry.backend("sum8", "fast").unwrap();
    assert_eq!(
        fast.status(),
        &BackendStatus::Unavailable("needs a CPU from the future".into())
    );
    let (default, why) = registry.default_backend("SUM8").unwrap();
    assert_eq!(default.name, "plain");
    assert_eq!(why, "the only available backend");
    let mut h = registry
        .hasher("sum8", None, &HashParams::default())
        .unwrap();
    h.update(&[200, 100]);
    assert_eq!(h.finalize_reset().as_bytes(), &[44]);
    assert!(matches!(
        registry.hasher("sum8", Some("fast"), &HashParams::default()),
        Err(HashError::BackendUnavailable { .. })
    ));
}

#[test]
fn every_backend_passes_its_self_test() {
    let registry = Registry::default();
    for alg in registry.algorithms().iter().filter(|alg| alg.stable) {
        assert!(alg.self_test.is_some(), "{}: no known answer", alg.name);
        for backend in registry.backends_of(&alg.name).unwrap() {
            if backend.is_available() {
                assert_eq!(
                    registry.self_test(&alg.name, &backend.name),
                    Ok(true),
                    "{}/{}",
                    alg.name,
                    backend.name
                );
            }
        }
    }
}

/// Where a hasher offers a stateless one-shot function, it gives what the
/// hasher gives, with a seed and without; and copies finalized in place
/// (`finalize_copy_into`) leave the state as it was.
#[test]
fn stateless_functions_and_finalized_copies_agree_with_the_hasher() {
    let registry = Registry::default();
    let message: Vec<u8> = (0..1000u32).map(|i| (i * 131 % 251) as u8).collect();
    let mut stateless_seen = 0;
    for alg in registry.algorithms() {
        for backend in registry.backends_of(&alg.name).unwrap() {
            if !backend.is_available() {
                continue;
            }
            let mut params = HashParams::default();
            for seeded in [false, true] {
                if seeded {
                    if alg.seed.is_none() {
                        continue;
                    }
                    params.seed = Some(0x0123_4567);
                }
                let Ok(mut hasher) = registry.hasher(&alg.name, Some(&backend.name), &params)
                else {
                    continue;
                };
                let who = format!("{}/{} seeded {seeded}", alg.name, backend.name);
                for len in [0, 1, 17, 240, 1000] {
                    let mut expected = vec![0u8; hasher.output_len()];
                    hasher.hash_message_into(&message[..len], &mut expected);
                    if let Some(stateless) = hasher.stateless() {
                        stateless_seen += 1;
                        let mut out = vec![0u8; hasher.output_len()];
                        stateless.hash_into(&message[..len], &mut out);
                        assert_eq!(out, expected, "{who}, {len} bytes");
                    }
                    hasher.update(&message[..len]);
                    let mut copy = vec![0u8; hasher.output_len()];
                    hasher.finalize_copy_into(&mut copy);
                    assert_eq!(copy, expected, "{who}: a finalized copy, {len} bytes");
                    assert_eq!(
                        hasher.finalize_reset().0,
                        expected,
                        "{who}: the state went on"
                    );
                }
                // Mid-message a hasher has no stateless form.
                hasher.update(b"x");
                assert!(hasher.stateless().is_none(), "{who}");
                hasher.reset();
            }
        }
    }
    assert!(
        stateless_seen > 0,
        "no backend offered a stateless function"
    );
}

#[test]
fn a_wrong_answer_fails_the_self_test() {
    let mut registry = Registry::empty();
    let mut alg = (**Registry::default().algorithm("crc32c").unwrap()).clone();
    alg.self_test = Some((b"abc".to_vec(), "00000000".into()));
    registry.register_algorithm(alg).unwrap();
    for b in Registry::default().backends_of("crc32c").unwrap() {
        registry.register_backend((**b).clone()).unwrap();
    }
    let err = registry
        .self_test("crc32c", "crc32c")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "crc32c on backend 'crc32c' fails its known-answer test: got 364b3fb7, expected 00000000"
    );
}

#[test]
fn cpu_conditional_preferences_follow_the_cpu() {
    let registry = Registry::default();
    let (sha256, why) = registry.default_backend("sha256").unwrap();
    let (sha512, _) = registry.default_backend("sha512").unwrap();
    assert_eq!(sha512.name, "openssl");
    if hashlab::cpu::has("sha") {
        assert_eq!(sha256.name, "rustcrypto");
        assert!(why.starts_with("SHA-NI here"), "{why}");
    } else if !hashlab::cpu::has("sha2") {
        assert_eq!(sha256.name, "openssl");
    }
}

#[test]
fn integer_digests_have_the_value_cksum_prints() {
    let registry = Registry::default();
    let crc32c = registry.algorithm("crc32c").unwrap();
    // The CRC-32C check value, 0xe3069283.
    assert_eq!(
        crc32c.integer_value(&[0xe3, 0x06, 0x92, 0x83]),
        Some(3_808_858_755)
    );
    let sha256 = registry.algorithm("sha256").unwrap();
    assert_eq!(sha256.integer_value(&[0; 32]), None);
    for alg in registry.algorithms() {
        if alg.integer_digest {
            assert!(
                alg.output.default_len() <= 16,
                "{}: too long for u128",
                alg.name
            );
        }
    }
}

/// SFV files hold one checksum, CRC-32 (ISO-HDLC, zlib's): exactly one
/// catalog entry says it is SFV's, with CRC-32's check value, so `sum
/// --format sfv` and `check` of an SFV file agree on the algorithm.
#[test]
fn sfv_records_crc32_and_only_crc32() {
    let registry = Registry::default();
    let sfv: Vec<_> = registry.algorithms().iter().filter(|a| a.sfv).collect();
    assert_eq!(
        sfv.len(),
        1,
        "{:?}",
        sfv.iter().map(|a| &a.name).collect::<Vec<_>>()
    );
    let crc = sfv[0];
    assert_eq!(crc.output, OutputRule::Fixed { bytes: 4 });
    assert!(crc.integer_digest && crc.stable);
    let mut hasher = registry
        .hasher(&crc.name, None, &hashlab::HashParams::default())
        .unwrap();
    hasher.update(b"123456789");
    assert_eq!(hasher.finalize_reset().to_hex(), "cbf43926");
}

#[test]
fn a_seek_starts_an_extendable_output_further_in() {
    let registry = Registry::default();
    let out = |seek: Option<u64>, length: usize| {
        let params = HashParams {
            seek,
            length: Some(length),
            ..HashParams::default()
        };
        let mut h = registry.hasher("blake3", None, &params).unwrap();
        h.update(b"hashlab");
        let mut digest = vec![0; length];
        h.finalize_into_reset(&mut digest);
        digest
    };
    let long = out(None, 300);
    // Within the first block of output, across into the next ones, and 0.
    for (seek, length) in [(5u64, 4usize), (60, 10), (64, 64), (100, 200), (0, 32)] {
        let at = seek as usize;
        assert_eq!(out(Some(seek), length), long[at..at + length], "{seek}");
    }
    // An offset is asked of an extendable output only, and of a backend that
    // can start one there.
    let refused = |alg: &str| {
        let params = HashParams {
            seek: Some(1),
            ..HashParams::default()
        };
        registry.hasher(alg, None, &params).err()
    };
    assert!(matches!(
        refused("sha256"),
        Some(HashError::ParameterNotAccepted { .. })
    ));
    assert!(matches!(
        refused("shake128"),
        Some(HashError::NotSupportedByBackend { .. })
    ));
}
