//! Line forms other tools write, read by `check`: xxhsum 0.8.2's `XXH3_`
//! lines, `sum --base64`'s shortest digests, and coreutils' `--warn` wording
//! for tagged manifests.

mod common;

use common::{hashlab_in, peer, text, Scratch};

#[test]
fn xxhsum_0_8_2_xxh3_lines_check() {
    // xxhsum 0.8.2 and later write `-H3` so (its man page: "XXH3_<hash>  file");
    // XXH3-64 of "abc" from the catalog's vectors.
    let s = Scratch::with_files("forms-xxh3", &[("abc", b"abc"), ("other", b"abd")]);
    s.write(
        "m.txt",
        b"XXH3_78af5f94892f3950  abc\nXXH3_78af5f94892f3950  other\n",
    );
    for args in [&["check", "m.txt"][..], &["check", "-a", "xxh3", "m.txt"]] {
        let o = hashlab_in(s.path(), args);
        assert_eq!(text(&o.stdout), "abc: OK\nother: FAILED\n", "{args:?}");
        assert_eq!(
            text(&o.stderr),
            "hashlab: WARNING: 1 computed checksum did NOT match\n"
        );
        assert_eq!(o.status.code(), Some(1));
    }
    // Another algorithm asked for: the prefix names XXH3, so the line is not its.
    let o = hashlab_in(s.path(), &["check", "-a", "xxh64", "m.txt"]);
    assert_eq!(
        text(&o.stderr),
        "hashlab: m.txt: no properly formatted checksum lines found\n"
    );
}

#[test]
fn short_base64_digests_round_trip() {
    let s = Scratch::with_files("forms-short-b64", &[("f", b"short digests")]);
    for (algorithm, bytes) in [
        ("blake2b", 1),
        ("blake2b", 2),
        ("blake2b", 3),
        ("blake2s", 1),
        ("blake3", 2),
        ("shake128", 3),
    ] {
        let length = bytes.to_string();
        // 3 bytes of base64 are 4 letters, a word: read where a tag says 3 bytes.
        let forms: &[&[&str]] = if bytes == 3 {
            &[&["--tag"]]
        } else {
            &[&[], &["--tag"]]
        };
        for tag in forms {
            let mut args = vec!["sum", "--base64", "-a", algorithm, "-l", &length];
            args.extend_from_slice(tag);
            args.push("f");
            let written = hashlab_in(s.path(), &args);
            assert!(written.status.success(), "{args:?}");
            s.write("m.txt", &written.stdout);
            let what = format!("{args:?}: {}", text(&written.stdout));
            let check: &[&str] = if tag.is_empty() {
                &["check", "-a", algorithm, "-l", &length, "m.txt"]
            } else {
                &["check", "m.txt"]
            };
            let o = hashlab_in(s.path(), check);
            assert_eq!(text(&o.stdout), "f: OK\n", "{what}{}", text(&o.stderr));
            assert_eq!(o.status.code(), Some(0), "{what}");
        }
    }
}

#[test]
fn warn_names_the_last_tag_as_cksum_does() {
    let s = Scratch::with_files("forms-warn", &[("f", b"abc")]);
    let manifest =
        "SHA256 (f) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\
                    bad line\n\
                    MD5 (f) = 900150983cd24fb0d6963f7d28e17f72\n\
                    garbage\n";
    s.write("m.txt", manifest.as_bytes());
    let o = hashlab_in(s.path(), &["check", "--warn", "m.txt"]);
    assert_eq!(text(&o.stdout), "f: OK\nf: OK\n");
    let expected = "m.txt: 2: improperly formatted SHA256 checksum line\n\
                    m.txt: 4: improperly formatted MD5 checksum line\n\
                    WARNING: 2 lines are improperly formatted\n";
    assert_eq!(text(&o.stderr).replace("hashlab: ", ""), expected);
    // coreutils' cksum -c says the same, where it is here.
    if let Some(mut cksum) = peer("cksum") {
        let theirs = cksum
            .current_dir(s.path())
            .args(["-c", "--warn", "m.txt"])
            .output()
            .unwrap();
        assert_eq!(text(&theirs.stdout), text(&o.stdout));
        assert_eq!(text(&theirs.stderr).replace("cksum: ", ""), expected);
    }
}
