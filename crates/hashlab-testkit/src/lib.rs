//! The one rule for a test that cannot run here (a peer tool, a backend, a
//! server, a tmpfs or root it needs is missing): outside CI it says so and
//! the caller returns; under CI (`HASHLAB_CI` set and not empty, as `.ci/run`
//! sets it), where everything a test needs is installed, it fails instead.
//! A dev-dependency of the crates whose tests skip.

use std::io::Write;

/// The variable that makes a test that cannot run a failure.
pub const CI_VARIABLE: &str = "HASHLAB_CI";

/// Whether this run is CI's.
pub fn under_ci() -> bool {
    std::env::var_os(CI_VARIABLE).is_some_and(|v| !v.is_empty())
}

/// Says why the calling test cannot run here, for the caller to return;
/// under CI panics with the reason instead.
pub fn skip(reason: &str) {
    if under_ci() {
        panic!("{CI_VARIABLE} is set, so a test that cannot run fails: {reason}");
    }
    // To the stderr handle, not eprintln!, which libtest captures and shows
    // only for a failing test: a skip must be seen.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {reason}");
}

#[cfg(test)]
mod tests {
    use super::*;

    // The one test of this crate, so no other thread reads the variable
    // while it changes.
    #[test]
    fn skip_fails_exactly_under_ci() {
        let saved = std::env::var_os(CI_VARIABLE);
        for (value, fails) in [("1", true), ("", false)] {
            std::env::set_var(CI_VARIABLE, value);
            assert_eq!(under_ci(), fails);
            let result = std::panic::catch_unwind(|| skip("a tool is missing"));
            assert_eq!(result.is_err(), fails, "{CI_VARIABLE}={value:?}");
            if let Err(panic) = result {
                let message = panic.downcast_ref::<String>().unwrap();
                assert!(message.contains("a tool is missing"), "{message}");
            }
        }
        std::env::remove_var(CI_VARIABLE);
        assert!(!under_ci());
        if let Some(v) = saved {
            std::env::set_var(CI_VARIABLE, v);
        }
    }
}
