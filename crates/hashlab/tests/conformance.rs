//! Every available (algorithm, backend) pair against every other on the same
//! inputs, and every hasher against itself: streaming, reset, clone.

use hashlab::{Algorithm, Backend, HashParams, KeyRule, OutputRule, Registry};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};

fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

/// Parameter sets worth trying for an algorithm: defaults, and each option it takes.
fn param_sets(alg: &Algorithm, rng: &mut StdRng) -> Vec<HashParams> {
    let mut sets = vec![HashParams::default()];
    match alg.key {
        KeyRule::None => {}
        KeyRule::Optional { min, max } | KeyRule::Defaulted { min, max, .. } => {
            for len in [min.max(4), max.min(64), (min.max(4) + max.min(64)) / 2] {
                sets.push(HashParams {
                    key: Some(random_bytes(rng, len)),
                    ..Default::default()
                });
            }
        }
    }
    match alg.output {
        OutputRule::Fixed { .. } => {}
        OutputRule::Variable { min, max, .. } => {
            for len in [min, max / 2 + 1, max] {
                sets.push(HashParams {
                    length: Some(len),
                    ..Default::default()
                });
            }
        }
        OutputRule::Xof { .. } => {
            for len in [1, 17, 200, 1000] {
                sets.push(HashParams {
                    length: Some(len),
                    ..Default::default()
                });
            }
        }
    }
    if alg.customizable {
        sets.push(HashParams {
            customization: Some(b"hashlab customization".to_vec()),
            ..Default::default()
        });
    }
    sets
}

fn available(registry: &Registry, alg: &str) -> Vec<Backend> {
    registry
        .backends_of(alg)
        .unwrap()
        .into_iter()
        .filter(|b| b.is_available())
        .cloned()
        .collect()
}

#[test]
fn backends_agree_with_each_other() {
    let registry = Registry::default();
    let mut rng = StdRng::seed_from_u64(7);
    let lengths = [
        0usize, 1, 3, 63, 64, 65, 127, 128, 129, 1000, 1024, 4097, 70_000,
    ];
    for alg in registry.algorithms() {
        let backends = available(&registry, &alg.name);
        assert!(!backends.is_empty(), "{}: no backend available", alg.name);
        for params in param_sets(alg, &mut rng) {
            let config = alg.resolve(&params).unwrap();
            for &len in &lengths {
                let msg = random_bytes(&mut rng, len);
                let mut answers = Vec::new();
                for b in &backends {
                    if b.check_supports(alg, &config).is_err() {
                        continue;
                    }
                    let mut h = match registry.hasher_with_config(&alg.name, &b.name, &config) {
                        Ok(h) => h,
                        Err(hashlab::HashError::NotSupportedByBackend { .. }) => continue,
                        Err(e) => panic!("{} {}: {e}", alg.name, b.name),
                    };
                    h.update(&msg);
                    answers.push((b.name.clone(), h.finalize_reset().to_hex()));
                }
                for pair in answers.windows(2) {
                    assert_eq!(
                        pair[0].1, pair[1].1,
                        "{} {:?} len {len}: {} and {} disagree",
                        alg.name, params, pair[0].0, pair[1].0
                    );
                }
            }
        }
    }
}

#[test]
fn streaming_reset_and_clone_match_one_shot() {
    let registry = Registry::default();
    let mut rng = StdRng::seed_from_u64(11);
    for alg in registry.algorithms() {
        for backend in available(&registry, &alg.name) {
            for params in param_sets(alg, &mut rng) {
                let Ok(mut h) = registry.hasher(&alg.name, Some(&backend.name), &params) else {
                    continue;
                };
                let who = format!("{} / {} / {:?}", alg.name, backend.name, params);
                let len = rng.random_range(0..20_000);
                let msg = random_bytes(&mut rng, len);
                h.update(&msg);
                let one_shot = h.finalize_reset();
                assert_eq!(one_shot.as_bytes().len(), h.output_len(), "{who}");

                // The finalize above reset the hasher: the same message again gives the same answer.
                h.update(&msg);
                assert_eq!(
                    h.finalize_reset(),
                    one_shot,
                    "{who}: finalize did not reset"
                );

                // Random chunks.
                let mut rest = &msg[..];
                while !rest.is_empty() {
                    let n = rng.random_range(0..=rest.len().min(3000));
                    h.update(&rest[..n]);
                    rest = &rest[n..];
                }
                assert_eq!(h.finalize_reset(), one_shot, "{who}: chunked");

                // reset() forgets input.
                h.update(b"garbage that must be forgotten");
                h.reset();
                h.update(&msg);
                assert_eq!(h.finalize_reset(), one_shot, "{who}: reset");

                // A clone taken mid-stream finishes independently.
                let half = msg.len() / 2;
                h.update(&msg[..half]);
                let mut copy = h.box_clone();
                h.update(&msg[half..]);
                copy.update(&msg[half..]);
                assert_eq!(h.finalize_reset(), one_shot, "{who}: original after clone");
                assert_eq!(copy.finalize_reset(), one_shot, "{who}: clone");
            }
        }
    }
}

#[test]
fn hashers_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let h = Registry::default()
        .hasher("sha256", None, &HashParams::default())
        .unwrap();
    assert_send(&h);
}
