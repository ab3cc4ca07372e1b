//! Any bytes as the manifest `audit` reads, in every form it reads: checksum
//! lines (newline- or NUL-terminated), hashdeep's format and `sum --json`'s
//! array, with or without an algorithm forced. The reader must never panic,
//! never read more entries than the input has records, and every entry it
//! accepts must read back unchanged from each form `sum` writes it in.
#![no_main]

use hashlab::Registry;
use hashlab_integrity::{
    escape_name, escaping_for, gnu_line_as, hashdeep_line, name_base64, read_manifest, tag_line,
    Framing, ReadOptions, Recorded,
};
use libfuzzer_sys::fuzz_target;

const FORCED: &[Option<&str>] = &[
    None,
    Some("sha256"),
    Some("md5"),
    Some("blake2b"),
    Some("shake128"),
];
const HASHDEEP_HEADERS: &[&[u8]] = &[
    b"%%%% HASHDEEP-1.0\n%%%% size,md5,sha256,filename\n",
    b"%%%% HASHDEEP-1.0\n%%%% size,sha1,filename\n",
    b"%%%% HASHDEEP-1.0\n%%%% size,md5,filename\n",
];

fn read(
    registry: &Registry,
    bytes: &[u8],
    algorithm: Option<&str>,
    framing: Framing,
) -> Vec<Recorded> {
    let options = ReadOptions { algorithm, framing };
    read_manifest(registry, bytes, "fuzz.sha256", &options)
        .map_or_else(|_| Vec::new(), |m| m.entries)
}

/// `e` written as `sum` writes it in every form, read back: the same name,
/// algorithm and digest (and size, where the form records it).
fn round_trip(registry: &Registry, e: &Recorded) {
    if e.name.is_empty() {
        // No file has an empty name; a tag line can spell one (`SHA256 () = ...`).
        return;
    }
    assert!(!e.name.contains(&0), "a NUL in a name read: {e:?}");
    let algorithm = registry
        .algorithm(&e.algorithm)
        .expect("a read algorithm is known");
    let hex = hashlab::hex::encode(&e.digest);
    let same = |back: &[Recorded], what: &str| {
        assert_eq!(back.len(), 1, "{what}: {e:?} read back as {back:?}");
        assert_eq!(back[0].name, e.name, "{what}");
        assert_eq!(back[0].digest, e.digest, "{what}");
        assert_eq!(back[0].algorithm, e.algorithm, "{what}");
    };
    let tag = algorithm.tag_for_length(e.digest.len());
    same(
        &read(
            registry,
            &tag_line(&tag, &e.name, &hex),
            None,
            Framing::Lines,
        ),
        "tag line",
    );
    let gnu = gnu_line_as(&hex, &e.name, escaping_for(algorithm.lines));
    same(
        &read(registry, &gnu, Some(&e.algorithm), Framing::Lines),
        "GNU line",
    );
    // `sum -z`: not escaped, NUL-terminated.
    let z = [hex.as_bytes(), b"  ", &e.name, b"\0"].concat();
    same(
        &read(registry, &z, Some(&e.algorithm), Framing::Nul),
        "-z line",
    );
    let ztag = [
        tag.as_bytes(),
        b" (",
        &e.name,
        b") = ",
        hex.as_bytes(),
        b"\0",
    ]
    .concat();
    same(&read(registry, &ztag, None, Framing::Nul), "-z tag line");
    if ["md5", "sha1", "sha256"].contains(&e.algorithm.as_str()) {
        let mut hd = format!(
            "%%%% HASHDEEP-1.0\n%%%% size,{},filename\n## $ fuzz\n##\n",
            e.algorithm
        )
        .into_bytes();
        hd.extend_from_slice(&hashdeep_line(7, &[&hex], &e.name));
        let back = read(registry, &hd, None, Framing::Lines);
        same(&back, "hashdeep line");
        assert_eq!(back[0].size, Some(7));
    }
    let json = serde_json::json!([{
        "file": String::from_utf8_lossy(&e.name),
        "file_base64": name_base64(&e.name),
        "algorithm": e.algorithm,
        "digest": hex,
        "bytes": 7,
        "mtime_ns": 11,
        "inode": 13,
        "ctime_ns": 17,
    }]);
    let back = read(registry, json.to_string().as_bytes(), None, Framing::Lines);
    same(&back, "JSON entry");
    assert_eq!(
        (
            back[0].size,
            back[0].mtime_ns,
            back[0].inode,
            back[0].ctime_ns
        ),
        (Some(7), Some(11), Some(13), Some(17))
    );
    // What the hashdeep header escapes stays on its line.
    assert!(!escape_name(&e.name).0.contains(&b'\n'));
}

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static REGISTRY: Registry = Registry::default();
    }
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    REGISTRY.with(|registry| {
        let forced = FORCED[usize::from(selector >> 4) % FORCED.len()];
        let (bytes, framing) = match selector % 4 {
            0 => (rest.to_vec(), Framing::Lines),
            1 => (rest.to_vec(), Framing::Nul),
            2 => {
                let header = HASHDEEP_HEADERS[usize::from(selector >> 2) % HASHDEEP_HEADERS.len()];
                ([header, rest].concat(), Framing::Lines)
            }
            _ => ([b"[", rest].concat(), Framing::Lines),
        };
        let options = ReadOptions {
            algorithm: forced,
            framing,
        };
        let Ok(manifest) = read_manifest(registry, &bytes, "fuzz.sha256", &options) else {
            return;
        };
        // One entry or one problem per record at most.
        let separator = match (selector % 4, framing) {
            (3, _) => b',',
            (_, Framing::Nul) => 0,
            _ => b'\n',
        };
        let records = bytes.iter().filter(|&&b| b == separator).count() + 1;
        assert!(manifest.entries.len() + manifest.problems.len() <= records);
        assert!(!manifest.entries.is_empty());
        for e in &manifest.entries {
            assert!(e.digest.len() <= hashlab_integrity::MAX_DIGEST_BYTES);
            round_trip(registry, e);
        }
    });
});
