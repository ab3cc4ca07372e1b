//! An S3 Batch Operations Compute checksum report, built here in the form
//! AWS documents for completion reports (`manifest.json` naming result CSV
//! files by key with their MD5, result rows `Bucket, Key, VersionId,
//! TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage`, URL-encoded keys),
//! compared with a manifest: every verdict, and every way a report is refused.

use std::path::Path;

use base64::Engine;
use hashlab::{HashParams, Registry};
use hashlab_integrity::{read_manifest, Pieces, ReadOptions, Recorded};
use hashlab_objects::batch_report::{compare_report, read_report, Outcome, ReportError};
use hashlab_objects::compare::Verdict;

fn digest(algorithm: &str, data: &[u8]) -> Vec<u8> {
    let mut hasher = Registry::default()
        .hasher(algorithm, None, &HashParams::default())
        .unwrap();
    hasher.update(data);
    hasher.finalize_reset().as_bytes().to_vec()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// One result row as a Compute checksum task writes it.
fn row(bucket: &str, key: &str, algorithm: &str, kind: &str, value: &str) -> String {
    let message = format!(
        r#"{{"checksum_base64":"{value}","checksumAlgorithm":"{algorithm}","checksumType":"{kind}"}}"#
    );
    format!(
        "{bucket},{key},,succeeded,,200,\"{}\"\n",
        message.replace('"', "\"\"")
    )
}

/// Writes `results` as the job's report under `dir` (manifest.json and
/// results/NAME.csv, as `aws s3 cp --recursive` of the report prefix lays
/// them out); returns the manifest's path.
fn write_report(dir: &Path, results: &[(&str, &str)]) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("results")).unwrap();
    let mut listed = Vec::new();
    for (name, csv) in results {
        std::fs::write(dir.join("results").join(name), csv).unwrap();
        listed.push(format!(
            r#"{{"TaskExecutionStatus":"succeeded","Bucket":"reports","MD5Checksum":"{}","Key":"job-0f/results/{name}"}}"#,
            hashlab::hex::encode(&digest("md5", csv.as_bytes()))
        ));
    }
    let manifest = format!(
        r#"{{"Format":"Report_CSV_20180820","ReportCreationDate":"2026-11-28T00:00:00.000Z","Results":[{}],"ReportSchema":"Bucket, Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage"}}"#,
        listed.join(",")
    );
    let path = dir.join("manifest.json");
    std::fs::write(&path, manifest).unwrap();
    path
}

#[test]
fn a_report_is_compared_with_a_manifest_reading_nothing_else() {
    let registry = Registry::default();
    let a = b"the first file\n".as_slice();
    let odd = b"a name with a space and an umlaut".as_slice();
    let gone = b"what the manifest recorded".as_slice();
    let other = b"recorded as xxh3".as_slice();
    // The local manifest, as sha256sum writes it.
    let manifest_text = format!(
        "{}  a.txt\n{}  odd name \u{fc}.bin\n{}  gone.txt\n{}  other.bin\n{}  not-uploaded.txt\n",
        hashlab::hex::encode(&digest("sha256", a)),
        hashlab::hex::encode(&digest("sha256", odd)),
        hashlab::hex::encode(&digest("sha256", gone)),
        hashlab::hex::encode(&digest("sha256", other)),
        hashlab::hex::encode(&digest("sha256", b"never sent")),
    );
    let manifest = read_manifest(
        &registry,
        manifest_text.as_bytes(),
        "SHA256SUMS",
        &ReadOptions {
            algorithm: Some("sha256"),
            ..ReadOptions::default()
        },
    )
    .unwrap()
    .entries;

    let first = [
        row(
            "data",
            "tree/a.txt",
            "SHA256",
            "FULL_OBJECT",
            &b64(&digest("sha256", a)),
        ),
        row(
            "data",
            "tree/odd+name+%C3%BC.bin",
            "SHA256",
            "FULL_OBJECT",
            &b64(&digest("sha256", odd)),
        ),
        // Bitrot: S3 read other bytes than were recorded.
        row(
            "data",
            "tree/gone.txt",
            "SHA256",
            "FULL_OBJECT",
            &b64(&digest("sha256", b"what the store holds now")),
        ),
    ]
    .concat();
    let second = [
        row(
            "data",
            "tree/other.bin",
            "XXHASH3",
            "FULL_OBJECT",
            &b64(&digest("xxh3-64", other)),
        ),
        row(
            "data",
            "tree/only-in-bucket",
            "SHA256",
            "FULL_OBJECT",
            &b64(&[7; 32]),
        ),
        // Outside the prefix and in another bucket: not this comparison's.
        row(
            "data",
            "elsewhere/a.txt",
            "SHA256",
            "FULL_OBJECT",
            &b64(&[1; 32]),
        ),
        row(
            "other",
            "tree/a.txt",
            "SHA256",
            "FULL_OBJECT",
            &b64(&[1; 32]),
        ),
        "data,tree/failed.txt,,failed,AccessDenied,403,Access Denied\n".to_string(),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let path = write_report(dir.path(), &[("aa11.csv", &first), ("bb22.csv", &second)]);
    let report = read_report(&registry, &path).unwrap();
    assert_eq!(report.len(), 8);
    assert_eq!(report[1].key, "tree/odd name \u{fc}.bin");
    assert!(matches!(&report[7].outcome, Outcome::Failed(why) if why.contains("AccessDenied")));

    let mut with_failed = manifest.clone();
    with_failed.push(Recorded {
        name: b"failed.txt".to_vec(),
        ..manifest[0].clone()
    });
    let found = compare_report(&report, &with_failed, "s3://data/tree/", &registry).unwrap();
    let verdict = |name: &str| {
        found
            .compared
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        verdict("a.txt"),
        Some(Verdict::Matched {
            by: "SHA256 FULL_OBJECT of the Compute checksum report".into()
        })
    );
    assert!(matches!(
        verdict("odd name \u{fc}.bin"),
        Some(Verdict::Matched { .. })
    ));
    match verdict("gone.txt") {
        Some(Verdict::Changed { local, store, .. }) => {
            assert_eq!(local, b64(&digest("sha256", gone)));
            assert_eq!(store, b64(&digest("sha256", b"what the store holds now")));
        }
        other => panic!("gone.txt: {other:?}"),
    }
    match verdict("other.bin") {
        Some(Verdict::NotComparable { reason }) => {
            assert!(
                reason.contains("XXHASH3") && reason.contains("sha256"),
                "{reason}"
            )
        }
        other => panic!("other.bin: {other:?}"),
    }
    assert_eq!(found.only_local, vec!["not-uploaded.txt".to_string()]);
    assert_eq!(found.only_in_store, vec!["only-in-bucket".to_string()]);
    assert_eq!(found.errors.len(), 1);
    assert!(
        found.errors[0].1.contains("AccessDenied"),
        "{:?}",
        found.errors
    );
    assert!(!found.passed());

    // The same prefix without its slash, and a manifest of what matched only.
    let intact: Vec<Recorded> = manifest[..2].to_vec();
    let only_two = [
        row(
            "data",
            "tree/a.txt",
            "SHA256",
            "FULL_OBJECT",
            &b64(&digest("sha256", a)),
        ),
        row(
            "data",
            "tree/odd+name+%C3%BC.bin",
            "SHA256",
            "FULL_OBJECT",
            &b64(&digest("sha256", odd)),
        ),
    ]
    .concat();
    let csv = dir.path().join("one.csv");
    std::fs::write(&csv, only_two).unwrap();
    let found = compare_report(
        &read_report(&registry, &csv).unwrap(),
        &intact,
        "s3://data/tree",
        &registry,
    )
    .unwrap();
    assert!(found.passed(), "{found:?}");
    assert_eq!(found.count(|v| matches!(v, Verdict::Matched { .. })), 2);
}

#[test]
fn every_s3_algorithm_and_composite_checksums_compare_with_their_manifest_digests() {
    let registry = Registry::default();
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 13 + 1) as u8).collect();
    let names = [
        ("CRC64NVME", "crc64nvme"),
        ("CRC32", "crc32"),
        ("CRC32C", "crc32c"),
        ("SHA1", "sha1"),
        ("SHA256", "sha256"),
        ("SHA512", "sha512"),
        ("MD5", "md5"),
        ("XXHASH64", "xxh64"),
        ("XXHASH3", "xxh3-64"),
        ("XXHASH128", "xxh3-128"),
    ];
    let part = 4096usize;
    let dir = tempfile::tempdir().unwrap();
    for (s3, algorithm) in names {
        let whole = digest(algorithm, &data);
        let pieces: Vec<Vec<u8>> = data.chunks(part).map(|c| digest(algorithm, c)).collect();
        let composite = digest(algorithm, &pieces.concat());
        let csv = [
            row("b", "whole", s3, "FULL_OBJECT", &b64(&whole)),
            row(
                "b",
                "parts",
                s3,
                "COMPOSITE",
                &format!("{}-3", b64(&composite)),
            ),
            row(
                "b",
                "parts-no-pieces",
                s3,
                "COMPOSITE",
                &format!("{}-3", b64(&composite)),
            ),
        ]
        .concat();
        let path = dir.path().join(format!("{s3}.csv"));
        std::fs::write(&path, csv).unwrap();
        let recorded = |name: &str, pieces: Option<Pieces>| Recorded {
            name: name.as_bytes().to_vec(),
            algorithm: algorithm.to_string(),
            digest: whole.clone(),
            size: Some(data.len() as u64),
            mtime_ns: None,
            inode: None,
            ctime_ns: None,
            pieces,
        };
        let manifest = vec![
            recorded("whole", None),
            recorded(
                "parts",
                Some(Pieces {
                    size: part as u64,
                    digests: pieces.clone(),
                }),
            ),
            recorded("parts-no-pieces", None),
        ];
        let found = compare_report(
            &read_report(&registry, &path).unwrap(),
            &manifest,
            "s3://b",
            &registry,
        )
        .unwrap();
        let verdicts: Vec<(&str, &Verdict)> = found
            .compared
            .iter()
            .map(|(n, v)| (n.as_str(), v))
            .collect();
        assert!(
            matches!(
                verdicts[..],
                [
                    ("parts", Verdict::Matched { .. }),
                    ("parts-no-pieces", Verdict::NotComparable { .. }),
                    ("whole", Verdict::Matched { .. }),
                ]
            ),
            "{s3}: {verdicts:?}"
        );
        assert!(found.passed(), "{s3}");
        // One byte of one piece's digest changed: the composite differs.
        let mut bad = pieces.clone();
        bad[1][0] ^= 1;
        let manifest = vec![recorded(
            "parts",
            Some(Pieces {
                size: part as u64,
                digests: bad,
            }),
        )];
        let found = compare_report(
            &read_report(&registry, &path).unwrap(),
            &manifest,
            "s3://b/",
            &registry,
        )
        .unwrap();
        assert!(
            matches!(&found.compared[0].1, Verdict::Changed { store, .. } if store.ends_with("-3")),
            "{s3}: {:?}",
            found.compared
        );
    }
}

#[test]
fn reports_that_are_not_what_s3_writes_are_refused_naming_the_file() {
    let registry = Registry::default();
    let dir = tempfile::tempdir().unwrap();
    let good = row("b", "k", "SHA256", "FULL_OBJECT", &b64(&[0; 32]));
    let path = write_report(dir.path(), &[("r.csv", &good)]);
    // A result file changed after S3 wrote it.
    std::fs::write(dir.path().join("results/r.csv"), good.replace("b,k", "b,j")).unwrap();
    let err = read_report(&registry, &path).unwrap_err();
    assert!(matches!(err, ReportError::Md5 { .. }), "{err}");
    assert!(err.to_string().contains("r.csv"), "{err}");

    let cases: [(&str, &str); 6] = [
        ("b,k,,succeeded,,200\n", "6 fields, the schema has 7"),
        ("b,k%ZZ%FF,,succeeded,,200,{}\n", "not URL-encoded UTF-8"),
        (
            "b,k,,succeeded,,200,\"{\"\"checksum_base64\"\":\"\"AAAA\"\",\"\"checksumAlgorithm\"\":\"\"BLAKE3\"\"}\"\n",
            "BLAKE3 is not a checksum algorithm S3 records",
        ),
        (
            "b,k,,succeeded,,200,\"{\"\"checksum_base64\"\":\"\"!!\"\",\"\"checksumAlgorithm\"\":\"\"SHA1\"\"}\"\n",
            "is not base64",
        ),
        ("b,k,,succeeded,,200,not json\n", "holds no checksum"),
        ("", "the report has no row"),
    ];
    for (i, (csv, says)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("case{i}.csv"));
        std::fs::write(&path, csv).unwrap();
        let message = match read_report(&registry, &path) {
            Err(e) => e.to_string(),
            // A row that holds no checksum is the object's failure, not the report's.
            Ok(entries) => match &entries[0].outcome {
                Outcome::Failed(why) => why.clone(),
                other => panic!("{csv}: {other:?}"),
            },
        };
        assert!(message.contains(says), "{csv}: {message}");
    }
    // Not a completion report's manifest, and one whose result key points
    // outside the report: only the file's name is used.
    let other = dir.path().join("other");
    std::fs::create_dir_all(other.join("results")).unwrap();
    std::fs::write(
        other.join("manifest.json"),
        r#"{"Format":"S3BatchOperations_CSV_20180820"}"#,
    )
    .unwrap();
    let err = read_report(&registry, &other.join("manifest.json")).unwrap_err();
    assert!(
        err.to_string()
            .contains("not a Batch Operations completion report"),
        "{err}"
    );
    std::fs::write(
        other.join("manifest.json"),
        r#"{"Format":"Report_CSV_20180820","Results":[{"Key":"../../etc/passwd"}]}"#,
    )
    .unwrap();
    let err = read_report(&registry, &other.join("manifest.json")).unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("{}", other.join("results/passwd").display())),
        "{err}"
    );
    let err = compare_report(&[], &[], "gs://b/p", &registry).unwrap_err();
    assert!(err.to_string().contains("not an s3://"), "{err}");
}
