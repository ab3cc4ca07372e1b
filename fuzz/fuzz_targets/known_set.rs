//! Any bytes as a manifest given to `match -k` (checksum lines, hashdeep's
//! files, piecewise ones included, `sum --json`'s array), with or without
//! `-a`, with or without the names kept: the reader must never panic, and
//! every digest a set holds must be found again, in its table and by a
//! lookup of the run's hashes.
#![no_main]

use hashlab::Registry;
use hashlab_integrity::{load_set_from, KnownBuilder, SetOptions};
use libfuzzer_sys::fuzz_target;

const FORCED: &[Option<&str>] = &[None, Some("sha256"), Some("md5"), Some("sha1")];
const NAMES: &[&str] = &["fuzz", "SHA256SUMS", "fuzz.md5", "fuzz.b3"];

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static REGISTRY: Registry = Registry::default();
    }
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let options = SetOptions {
        algorithm: FORCED[usize::from(selector) % FORCED.len()],
    };
    let name = NAMES[usize::from(selector >> 2) % NAMES.len()];
    let keep_names = selector & 0x10 != 0;
    REGISTRY.with(|registry| {
        let mut builder = KnownBuilder::new(keep_names);
        let Ok(report) = load_set_from(&mut builder, registry, rest, name, &options) else {
            return;
        };
        let sets = builder.finish();
        assert!(report.digests > 0 || report.without_digest > 0 || !sets.tables().is_empty());
        for table in sets.tables() {
            assert!(!table.is_empty());
            for i in 0..table.len() {
                assert_eq!(table.find(table.record(i)), Some(i));
            }
        }
    });
});
