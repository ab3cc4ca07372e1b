//! Any bytes as a manifest: the line parser, the GNU name resolution and the
//! manifest reader must never panic, and every entry they accept must survive
//! being written back out by `sum`'s line writers and parsed again.
#![no_main]

use hashlab::Registry;
use hashlab_integrity::{
    gnu_line, parse_line, read_manifest, tag_line, GnuReading, Line, ReadOptions,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static REGISTRY: Registry = Registry::default();
    }
    REGISTRY.with(|registry| {
        let mut reading = GnuReading::Undecided;
        for raw in data.split_inclusive(|b| *b == b'\n') {
            let entry = match parse_line(registry, raw) {
                Line::Entry(e) => Some(e),
                Line::Gnu(g) => g.resolve(&mut reading),
                Line::Skip | Line::Malformed => None,
            };
            if let Some(e) = entry {
                let hex = hashlab::hex::encode(&e.expected);
                let again = parse_line(registry, &gnu_line(&hex, &e.name));
                match again {
                    Line::Gnu(g) => {
                        let back = g
                            .resolve(&mut GnuReading::Standard)
                            .expect("a written GNU line reads back");
                        assert_eq!(back.name, e.name);
                        assert_eq!(back.expected, e.expected);
                    }
                    other => panic!("gnu_line wrote something else: {other:?}"),
                }
                if let Line::Entry(t) = parse_line(registry, &tag_line("SHA256", &e.name, &hex)) {
                    assert_eq!(t.name, e.name);
                }
            }
        }
        let _ = read_manifest(registry, data, "fuzz.sha256", &ReadOptions::default());
    });
});
