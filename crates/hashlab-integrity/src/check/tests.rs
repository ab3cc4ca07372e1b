use super::*;

fn run(manifest: &str, options: CheckOptions, hint: Option<&str>) -> (Summary, Vec<String>) {
    let registry = Registry::default();
    let mut checker = Checker::new(&registry, options);
    let mut seen = Vec::new();
    let hint = ManifestHint {
        algorithm: hint.map(str::to_string),
        ..ManifestHint::default()
    };
    let summary = checker
        .check(&mut manifest.as_bytes(), &hint, false, &mut |r| {
            seen.push(format!(
                "{} {} {:?}",
                r.line_number,
                String::from_utf8_lossy(&r.name),
                r.outcome
            ))
        })
        .unwrap();
    (summary, seen)
}

#[test]
fn manifest_names_suggest_algorithms() {
    let r = Registry::default();
    for (name, expected) in [
        ("x.md5", Some("md5")),
        ("dir/x.SHA256", Some("sha256")),
        ("SHA256SUMS", Some("sha256")),
        ("MD5SUMS", Some("md5")),
        ("b3sums.txt", Some("blake3")),
        ("release.b2", Some("blake2b")),
        ("x.xxh3", Some("xxh3-64")),
        ("x.xxh128", Some("xxh3-128")),
        ("x.sha3-256", Some("sha3-256")),
        ("checksums.txt", None),
        ("manifest", None),
        ("SUMS", None),
    ] {
        assert_eq!(
            algorithm_from_manifest_name(&r, name).as_deref(),
            expected,
            "{name}"
        );
    }
}

#[test]
fn missing_and_malformed_are_counted() {
    let manifest = "bad\n\n# comment\n\
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  /nonexistent/x\n\
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  /dev/null\n\
            00  /dev/null\n";
    let (summary, seen) = run(manifest, CheckOptions::default(), None);
    assert_eq!(summary.malformed, 2, "{seen:?}");
    assert_eq!(summary.unreadable, 1);
    assert_eq!(summary.matched, 1);
    assert!(seen[0].starts_with("1  Malformed"), "{seen:?}");
    assert!(seen[2].starts_with("5 /dev/null Ok"), "{seen:?}");
    assert!(!summary.passed(false, false));

    let options = CheckOptions {
        ignore_missing: true,
        ..CheckOptions::default()
    };
    let (summary, _) = run(manifest, options, None);
    assert_eq!((summary.missing, summary.unreadable), (1, 0));
    assert!(summary.passed(false, true));
    assert!(!summary.passed(true, true));
}

#[test]
fn algorithm_choice_and_length_rules() {
    let empty_md5 = "d41d8cd98f00b204e9800998ecf8427e  /dev/null\n";
    // Length alone says md5; `-a sha256` makes the line malformed.
    assert_eq!(run(empty_md5, CheckOptions::default(), None).0.matched, 1);
    let sha256 = CheckOptions {
        algorithm: Some("sha256".into()),
        ..CheckOptions::default()
    };
    assert_eq!(run(empty_md5, sha256.clone(), None).0.malformed, 1);
    // A tag naming another algorithm than -a is malformed too.
    let tagged = "MD5 (/dev/null) = d41d8cd98f00b204e9800998ecf8427e\n";
    assert_eq!(run(tagged, sha256, None).0.malformed, 1);
    assert_eq!(run(tagged, CheckOptions::default(), None).0.matched, 1);
    // A digest length coreutils has no tool for, and no other hint: malformed.
    assert_eq!(
        run("0011  /dev/null\n", CheckOptions::default(), None)
            .0
            .malformed,
        1
    );
    // The manifest name's hint; b2sum-style lengths read from the digest.
    let b2_256 = "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8  /dev/null\n";
    assert_eq!(
        run(b2_256, CheckOptions::default(), Some("blake2b"))
            .0
            .matched,
        1
    );
    let wrong_length = CheckOptions {
        length: Some(64),
        ..CheckOptions::default()
    };
    assert_eq!(run(b2_256, wrong_length, Some("blake2b")).0.malformed, 1);
    // A mismatch is FAILED, not malformed.
    let bad = "d41d8cd98f00b204e9800998ecf8427f  /dev/null\n";
    assert_eq!(run(bad, CheckOptions::default(), None).0.mismatched, 1);
}

#[test]
fn empty_and_junk_manifests_have_no_checksum_lines() {
    let (summary, seen) = run("", CheckOptions::default(), None);
    assert_eq!((summary.clone(), seen.len()), (Summary::default(), 0));
    assert!(!summary.any_properly_formatted() && !summary.passed(false, false));
    let registry = Registry::default();
    // A line past the bound is refused, not read as a malformed line.
    let endless = vec![b'\xff'; 1 << 20];
    let result = Checker::new(&registry, CheckOptions::default()).check(
        &mut endless.as_slice(),
        &ManifestHint::default(),
        false,
        &mut |_| {},
    );
    assert!(
        matches!(
            result,
            Err(CheckError::Bound(LineError::TooLong(
                crate::bounded::TooLong { line: 1, .. }
            )))
        ),
        "{result:?}"
    );
    let mut junk = vec![b'\xff'; 1 << 15];
    junk.extend_from_slice(b"\n\0\0\n\\\n");
    let mut checker = Checker::new(&registry, CheckOptions::default());
    let summary = checker
        .check(
            &mut junk.as_slice(),
            &ManifestHint::default(),
            false,
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(summary.malformed, 3);
    assert!(!summary.any_properly_formatted());
}

fn reader<'r>(
    registry: &'r Registry,
    chosen: Option<&'r str>,
    form: ManifestForm,
) -> LineReader<'r, 'r> {
    LineReader {
        registry,
        chosen,
        length: None,
        hint: None,
        framing: Framing::Lines,
        form,
    }
}

/// (name, hex digest, algorithm) of a line read, or why not.
fn read(lines: &mut LineReader, raw: &str) -> Result<Option<(String, String, String)>, Unread> {
    let mut reading = GnuReading::Undecided;
    Ok(lines.read(raw.as_bytes(), &mut reading)?.map(|(e, a, _)| {
        (
            String::from_utf8(e.name).unwrap(),
            hashlab::hex::encode(&e.expected),
            a.name.clone(),
        )
    }))
}

fn found(name: &str, hex: &str, algorithm: &str) -> Option<(String, String, String)> {
    Some((name.into(), hex.into(), algorithm.into()))
}

#[test]
fn manifest_names_say_sfv() {
    let r = Registry::default();
    for name in ["x.sfv", "dir/X.SFV", "a.b.Sfv"] {
        assert_eq!(manifest_hint(&r, name).form, ManifestForm::Sfv, "{name}");
    }
    for name in ["sfv", "x.sfv.txt", "SHA256SUMS", "x.sfvx"] {
        assert_eq!(
            manifest_hint(&r, name).form,
            ManifestForm::Undecided,
            "{name}"
        );
    }
    assert_eq!(
        manifest_hint(&r, "m.sha256").algorithm.as_deref(),
        Some("sha256")
    );
}

/// `deadbeef 0123abcd` is a reversed GNU line and an SFV line: the
/// manifest's form decides, so neither reading can surprise the other.
#[test]
fn each_manifest_is_read_in_one_form() {
    let r = Registry::default();
    let ambiguous = "deadbeef 0123abcd\n";
    let sfv = found("deadbeef", "0123abcd", "crc32");
    let gnu = found("0123abcd", "deadbeef", "crc32");
    // Named `*.sfv`: SFV, even where -a makes the GNU reading settle.
    let mut lines = reader(&r, Some("crc32"), ManifestForm::Sfv);
    assert_eq!(read(&mut lines, ambiguous), Ok(sfv.clone()));
    // Unnamed: a checksum line that settles is read as one...
    let mut lines = reader(&r, Some("crc32"), ManifestForm::Undecided);
    assert_eq!(read(&mut lines, ambiguous), Ok(gnu));
    assert_eq!(lines.form, ManifestForm::Checksums);
    // ...and from then on an SFV line is not a line of this manifest.
    assert_eq!(
        read(&mut lines, "abc.txt 352441C2"),
        Err(Unread::NotAChecksumLine)
    );
    // Without -a a 4-byte GNU digest is read too (XXH32 first; `check`
    // tries every 4-byte candidate on the file).
    let mut lines = reader(&r, None, ManifestForm::Undecided);
    assert_eq!(
        read(&mut lines, ambiguous),
        Ok(found("0123abcd", "deadbeef", "xxh32"))
    );
    assert_eq!(lines.form, ManifestForm::Checksums);
    // A line only SFV reads makes the manifest an SFV file.
    let mut lines = reader(&r, None, ManifestForm::Undecided);
    assert_eq!(
        read(&mut lines, "abc.txt 352441C2"),
        Ok(found("abc.txt", "352441c2", "crc32"))
    );
    assert_eq!(lines.form, ManifestForm::Sfv);
    assert_eq!(read(&mut lines, ambiguous), Ok(sfv));
    let sha256_line = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc";
    assert_eq!(read(&mut lines, sha256_line), Err(Unread::NotAChecksumLine));
    // rhash's first line, a `;` comment, says SFV before any checksum line.
    let mut lines = reader(&r, Some("crc32"), ManifestForm::Undecided);
    assert_eq!(read(&mut lines, "# coreutils' comment\n"), Ok(None));
    assert_eq!(lines.form, ManifestForm::Undecided);
    assert_eq!(read(&mut lines, "; Generated by RHash\r\n"), Ok(None));
    assert_eq!(lines.form, ManifestForm::Sfv);
    assert_eq!(
        read(&mut lines, ambiguous),
        Ok(found("deadbeef", "0123abcd", "crc32"))
    );
    // A GNU manifest stays one, and a `;` line in it is malformed, as coreutils has it.
    let mut lines = reader(&r, None, ManifestForm::Undecided);
    assert_eq!(
        read(&mut lines, sha256_line),
        Ok(found("abc", &sha256_line[..64], "sha256"))
    );
    assert_eq!(read(&mut lines, "; comment"), Err(Unread::NotAChecksumLine));
}

#[test]
fn sfv_lines_settle_as_other_lines_do() {
    let r = Registry::default();
    // A tag line whose algorithm is not -a's is malformed, and no SFV line.
    let mut lines = reader(&r, Some("sha256"), ManifestForm::Undecided);
    assert!(matches!(
        read(&mut lines, "CRC32 (f) = 352441c2"),
        Err(Unread::Unsettled(Unsettled::OtherAlgorithm { .. }))
    ));
    assert_eq!(lines.form, ManifestForm::Undecided);
    // SFV lines are CRC-32's: -a sha256 or another length makes them malformed.
    let mut lines = reader(&r, Some("sha256"), ManifestForm::Sfv);
    assert!(matches!(
        read(&mut lines, "f 352441c2"),
        Err(Unread::Unsettled(Unsettled::OtherAlgorithm { .. }))
    ));
    let mut lines = reader(&r, None, ManifestForm::Sfv);
    lines.length = Some(8);
    assert!(matches!(
        read(&mut lines, "f 352441c2"),
        Err(Unread::Unsettled(Unsettled::Length { .. }))
    ));
    // The manifest name's algorithm is for GNU lines; an SFV line has its own.
    let mut lines = reader(&r, None, ManifestForm::Sfv);
    lines.hint = Some("md5");
    assert_eq!(
        read(&mut lines, "f 352441c2"),
        Ok(found("f", "352441c2", "crc32"))
    );
    // NUL-ended records are checksum lines, whatever the name says.
    let mut lines = reader(&r, Some("crc32"), ManifestForm::Sfv);
    lines.framing = Framing::Nul;
    assert_eq!(
        read(&mut lines, "f 352441c2\0"),
        Err(Unread::NotAChecksumLine)
    );
}

#[test]
fn sfv_lines_are_checked_with_crc32() {
    let dir = std::env::temp_dir().join(format!("hashlab-check-sfv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let abc = dir.join("a b.txt");
    std::fs::write(&abc, b"abc").unwrap();
    let abc = abc.display();
    let manifest = format!(
        "; Generated by RHash v1.4.3 on 2026-11-24 at 15:34.09\r\n;\r\n\
             {abc} 352441C2\r\n/dev/null 00000000\r\n{abc} 352441c3\r\nbad\r\n\
             ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  {abc}\r\n"
    );
    let (summary, seen) = run(&manifest, CheckOptions::default(), None);
    assert_eq!(
        (summary.matched, summary.mismatched, summary.malformed),
        (2, 1, 2),
        "{seen:?}"
    );
    assert!(
        seen[0].starts_with("3 ") && seen[0].ends_with("a b.txt Ok"),
        "{seen:?}"
    );
    // -a crc32 reads them alike; -a sha256 reads none.
    let crc32 = CheckOptions {
        algorithm: Some("crc32".into()),
        ..CheckOptions::default()
    };
    assert_eq!(run(&manifest, crc32, None).0, summary);
    let sha256 = CheckOptions {
        algorithm: Some("sha256".into()),
        ..CheckOptions::default()
    };
    let (summary, _) = run(&manifest, sha256, None);
    assert_eq!((summary.matched, summary.malformed), (0, 5));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_opener_reads_the_names_it_claims() {
    let registry = Registry::default();
    let mut asked = Vec::new();
    let mut checker = Checker::new(&registry, CheckOptions::default()).with_opener(Box::new(
        |name: &[u8], hasher: &mut dyn Hasher| {
            asked.push(name.to_vec());
            match name {
                b"s3://b/abc" => {
                    hasher.update(b"abc");
                    Some(Ok(3))
                }
                b"s3://b/gone" => Some(Err(io::Error::from(io::ErrorKind::NotFound))),
                _ => None,
            }
        },
    ));
    // sha256("abc"), and "" for /dev/null, which the file system reads.
    let manifest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  s3://b/abc\n\
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  /dev/null\n\
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  s3://b/gone\n";
    let summary = checker
        .check(
            &mut manifest.as_bytes(),
            &ManifestHint::default(),
            false,
            &mut |_| {},
        )
        .unwrap();
    drop(checker);
    assert_eq!((summary.matched, summary.unreadable), (2, 1), "{summary:?}");
    assert_eq!(asked.len(), 3);
}

#[test]
fn bad_parameters_stop_the_check() {
    let registry = Registry::default();
    let options = CheckOptions {
        params: HashParams {
            key: Some(vec![1; 3]),
            ..HashParams::default()
        },
        ..CheckOptions::default()
    };
    let mut checker = Checker::new(&registry, options);
    let mut manifest: &[u8] =
        b"BLAKE3 (/dev/null) = af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262\n";
    let result = checker.check(&mut manifest, &ManifestHint::default(), false, &mut |_| {});
    assert!(matches!(result, Err(CheckError::Params(_))), "{result:?}");
}

#[test]
fn a_cancel_stops_the_check_mid_file() {
    let dir = std::env::temp_dir().join(format!("hashlab-check-cancel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("sparse");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    let options = CheckOptions::default();
    let cancel = options.cancel.clone();
    let registry = Registry::default();
    let mut checker = Checker::new(&registry, options);
    let manifest = format!("{}  {}\n", "0".repeat(64), big.display());
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        cancel.cancel();
    });
    // 64 GiB would take half a minute and more: the cancel ends it first.
    let result = checker.check(
        &mut manifest.as_bytes(),
        &ManifestHint::default(),
        false,
        &mut |_| {},
    );
    canceller.join().unwrap();
    assert!(matches!(result, Err(CheckError::Interrupted)), "{result:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_expected_tag_is_the_chosen_algorithms_else_the_names_else_sfvs() {
    let r = Registry::default();
    let blake3 = r.algorithm("blake3").unwrap();
    let named = manifest_hint(&r, "SHA256SUMS");
    assert_eq!(
        named.expected_tag(&r, Some(blake3)),
        Some(blake3.tag.clone())
    );
    assert_eq!(named.expected_tag(&r, None).as_deref(), Some("SHA256"));
    let sfv = manifest_hint(&r, "files.sfv").expected_tag(&r, None);
    assert_eq!(sfv, sfv_algorithm(&r).map(|a| a.tag.clone()));
    assert!(sfv.is_some());
    assert_eq!(manifest_hint(&r, "list.txt").expected_tag(&r, None), None);
}
