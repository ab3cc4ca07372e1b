//! `hashlab audit MANIFEST s3://bucket/prefix --batch-report REPORT`: a
//! manifest written by `sum` against an S3 Batch Operations Compute checksum
//! report built here in AWS's documented completion-report form, with the
//! store's endpoint pointed at a listener that must see no connection.

mod common;

use std::net::TcpListener;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use base64::Engine;
use common::{hashlab_in, text, Scratch};

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn xxh128(data: &[u8]) -> Vec<u8> {
    let mut hasher = hashlab::Registry::default()
        .hasher("xxh3-128", None, &hashlab::HashParams::default())
        .unwrap();
    hasher.update(data);
    hasher.finalize_reset().as_bytes().to_vec()
}

fn row(key: &str, algorithm: &str, value: &str) -> String {
    let message = format!(
        r#"{{"checksum_base64":"{value}","checksumAlgorithm":"{algorithm}","checksumType":"FULL_OBJECT"}}"#
    );
    format!(
        "bucket,{key},,succeeded,,200,\"{}\"\n",
        message.replace('"', "\"\"")
    )
}

#[test]
fn a_manifest_is_audited_against_a_compute_checksum_report_with_no_request() {
    let files: [(&str, &[u8]); 3] = [
        ("data/a.txt", b"alpha\n"),
        ("data/sub/b c.bin", b"beta bytes"),
        ("data/changed.txt", b"as written"),
    ];
    let scratch = Scratch::with_files("batch-report", &files);
    let dir = scratch.path();
    let out = hashlab_in(
        dir.join("data").as_path(),
        &[
            "sum",
            "-a",
            "xxh3-128",
            "a.txt",
            "sub/b c.bin",
            "changed.txt",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    scratch.write("XXH128SUMS", &out.stdout);
    let digest = |file: &str| {
        let (_, data) = files
            .iter()
            .find(|(n, _)| *n == format!("data/{file}"))
            .unwrap();
        xxh128(data)
    };
    let csv = [
        row("tree/a.txt", "XXHASH128", &b64(&digest("a.txt"))),
        row(
            "tree/sub/b+c.bin",
            "XXHASH128",
            &b64(&digest("sub/b c.bin")),
        ),
        row("tree/changed.txt", "XXHASH128", &b64(&[0x5a; 16])),
    ]
    .concat();
    scratch.write("report/results/0123abcd.csv", csv.as_bytes());
    let md5 = {
        let mut hasher = hashlab::Registry::default()
            .hasher("md5", None, &hashlab::HashParams::default())
            .unwrap();
        hasher.update(csv.as_bytes());
        hashlab::hex::encode(hasher.finalize_reset().as_bytes())
    };
    scratch.write(
        "report/manifest.json",
        format!(
            r#"{{"Format":"Report_CSV_20180820","ReportCreationDate":"2026-11-28T00:00:00.000Z","Results":[{{"TaskExecutionStatus":"succeeded","Bucket":"reports","MD5Checksum":"{md5}","Key":"job-1/results/0123abcd.csv"}}],"ReportSchema":"Bucket, Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage"}}"#
        )
        .as_bytes(),
    );

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .current_dir(dir)
            .args(args)
            .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}"))
            .env("AWS_ACCESS_KEY_ID", "AKIDHASHLABTEST")
            .env("AWS_SECRET_ACCESS_KEY", "not-a-secret")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ALLOW_HTTP", "true")
            .output()
            .unwrap();
        while listener.accept().is_ok() {
            connections.fetch_add(1, Ordering::SeqCst);
        }
        out
    };
    let report = ["--batch-report", "report/manifest.json"];
    let out = run(&[&["audit", "XXH128SUMS", "s3://bucket/tree"], &report[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "changed: changed.txt: XXHASH128 FULL_OBJECT of the Compute checksum report: the manifest gives {}, the report has {}",
            b64(&digest("changed.txt")),
            b64(&[0x5a; 16])
        )),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("audit FAILED: 2 matched, 1 changed, 0 missing, 0 new, 0 not comparable, 0 unreadable\n"),
        "{stdout}"
    );
    assert!(
        text(&out.stderr).contains("reading no object"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&[
        &["audit", "--json", "XXH128SUMS", "s3://bucket/tree/"],
        &report[..],
    ]
    .concat());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["mode"], "batch-report");
    assert_eq!(json["counts"]["matched"], 2);
    assert_eq!(json["passed"], false);

    // Bad input: a clear line naming the file, and a usage error for a
    // missing prefix or an option that would read objects.
    scratch.write("report/results/0123abcd.csv", b"tampered");
    let out = run(&[&["audit", "XXH128SUMS", "s3://bucket/tree"], &report[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("0123abcd.csv: MD5"),
        "{}",
        text(&out.stderr)
    );
    for args in [
        &["audit", "XXH128SUMS"][..],
        &["audit", "XXH128SUMS", "s3://bucket/tree", "--download"][..],
    ] {
        let out = run(&[args, &report[..]].concat());
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            text(&out.stderr).lines().count(),
            1,
            "{}",
            text(&out.stderr)
        );
    }
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}
