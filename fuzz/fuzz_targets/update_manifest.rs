//! Any bytes as the manifest `sum --update` (and `audit --update`) reads,
//! in both framings, and as its stamp sidecar: the readers must never
//! panic, and a manifest they accept holds at least one file with a digest
//! for each of its algorithms' columns.
#![no_main]

use hashlab::Registry;
use hashlab_integrity::{Framing, Listing, Sidecar};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static REGISTRY: Registry = Registry::default();
    }
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let framing = if selector & 1 == 0 {
        Framing::Lines
    } else {
        Framing::Nul
    };
    let name = ["fuzz.sha256", "SHA256SUMS", "fuzz.json", "MANIFEST"][usize::from(selector >> 1) % 4];
    REGISTRY.with(|registry| {
        if let Ok(listing) = Listing::read(registry, rest, name, framing) {
            assert!(!listing.algorithms().is_empty());
        }
    });
    let _ = Sidecar::parse(rest);
});
