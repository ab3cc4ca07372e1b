//! Properties of the manifest reader: nothing it is fed makes it panic, and
//! whatever `sum` writes it reads back to the same name and digest.

use hashlab::Registry;
use hashlab_integrity::GnuReading;
use hashlab_integrity::{
    gnu_line, parse_line, parse_sfv_line, read_manifest, sfv_line, tag_line, Line, ReadOptions,
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        let registry = Registry::default();
        let mut reading = GnuReading::Undecided;
        for raw in data.split_inclusive(|b| *b == b'\n') {
            if let Line::Gnu(g) = parse_line(&registry, raw) {
                let _ = g.resolve(&mut reading);
            }
        }
        let _ = read_manifest(&registry, &data, "x.sha256", &ReadOptions::default());
        let _ = read_manifest(&registry, &data, "x.sfv", &ReadOptions::default());
        for raw in data.split_inclusive(|b| *b == b'\n') {
            let _ = parse_sfv_line(&registry, raw);
        }
        let mut hd = b"%%%% HASHDEEP-1.0\n%%%% size,md5,filename\n".to_vec();
        hd.extend_from_slice(&data);
        let _ = read_manifest(&registry, &hd, "hd", &ReadOptions::default());
    }

    #[test]
    fn what_sum_writes_reads_back(
        name in proptest::collection::vec(any::<u8>().prop_filter("no NUL", |b| *b != 0), 1..80),
        digest in proptest::collection::vec(any::<u8>(), 32),
    ) {
        let registry = Registry::default();
        let hex = hashlab::hex::encode(&digest);
        match parse_line(&registry, &gnu_line(&hex, &name)) {
            Line::Gnu(g) => {
                let e = g.resolve(&mut GnuReading::Standard).expect("reads back");
                prop_assert_eq!(e.name, name.clone());
                prop_assert_eq!(e.expected, digest.clone());
            }
            other => prop_assert!(false, "GNU line parsed as {:?}", other),
        }
        match parse_line(&registry, &tag_line("SHA256", &name, &hex)) {
            Line::Entry(e) => {
                prop_assert_eq!(e.name, name);
                prop_assert_eq!(e.expected, digest);
            }
            other => prop_assert!(false, "tag line parsed as {:?}", other),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// An SFV line is written only for a name it reads back exactly: every
    /// other name is refused, none is written to be misread.
    #[test]
    fn sfv_lines_read_back_or_are_refused(
        name in proptest::collection::vec(
            prop_oneof![any::<u8>(), proptest::sample::select(b" \t\r\n\\;#0aF".to_vec())]
                .prop_filter("no NUL", |b| *b != 0),
            1..40,
        ),
        digest in proptest::collection::vec(any::<u8>(), 4),
    ) {
        let registry = Registry::default();
        if let Ok(line) = sfv_line(&name, &digest) {
            match parse_sfv_line(&registry, &line) {
                Line::Entry(e) => {
                    prop_assert_eq!(e.name, name);
                    prop_assert_eq!(e.expected, digest);
                }
                other => prop_assert!(false, "SFV line parsed as {:?}", other),
            }
        }
    }
}

#[test]
fn huge_lines_and_empty_input() {
    let registry = Registry::default();
    let huge = vec![b'a'; 1 << 20];
    assert_eq!(parse_line(&registry, &huge), Line::Malformed);
    assert!(read_manifest(&registry, b"", "x", &ReadOptions::default()).is_err());
    assert!(read_manifest(&registry, &huge, "x", &ReadOptions::default()).is_err());
}
