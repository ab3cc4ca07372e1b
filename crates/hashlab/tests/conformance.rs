//! Every available (algorithm, backend) pair against every other on the same
//! inputs, and every hasher against itself: streaming, reset, clone. These are
//! the public `hashlab::conformance` checks a user runs on a backend of their own.

use hashlab::{conformance, HashParams, Registry};

#[test]
fn backends_agree_with_each_other() {
    let registry = Registry::default();
    for alg in registry.algorithms() {
        let report = conformance::check_agreement(&registry, &alg.name);
        assert!(report.passed(), "{}", report.failures.join("\n"));
        assert!(
            report.ran_for(&alg.name) > 0,
            "{}: nothing compared",
            alg.name
        );
    }
}

#[test]
fn streaming_reset_and_clone_match_one_shot() {
    let registry = Registry::default();
    for backend in registry.backends() {
        if !backend.is_available() {
            continue;
        }
        let report = conformance::check_streaming(&registry, &backend.algorithm, &backend.name);
        assert!(report.passed(), "{}", report.failures.join("\n"));
        assert!(
            report.ran_on(&backend.algorithm, &backend.name) > 0,
            "{} / {}: no parameter set ran",
            backend.algorithm,
            backend.name
        );
    }
}

#[test]
fn hashers_are_send_and_choices_are_send_and_sync() {
    fn assert_send<T: Send>(_: &T) {}
    fn assert_send_sync<T: Send + Sync>(_: &T) {}
    let choice = Registry::default()
        .resolve("sha256", None, &HashParams::default())
        .unwrap();
    assert_send_sync(&choice);
    assert_send(&choice.hasher());
}
