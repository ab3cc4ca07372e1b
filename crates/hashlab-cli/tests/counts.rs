//! One run, one plan, one resolution per algorithm name: `sum` in each of
//! its kinds decides once and carries what it decided. Counted by the debug
//! build's counters (`HASHLAB_DEBUG_COUNTS=1` has the binary say them on
//! stderr), never timed. A counting registry passed in would need the same
//! hook in the binary, which makes its own registry, and would count
//! resolutions but not plans; the counters cost a release build nothing.

#![cfg(debug_assertions)]

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::{text, LocalServer, Scratch};

fn counted(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashlab"));
    command
        .args(args)
        .current_dir(cwd)
        .env("HASHLAB_DEBUG_COUNTS", "1");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// The run succeeded and said it built `plans` plans and made `resolutions`
/// resolutions.
fn assert_counts(output: &Output, plans: u64, resolutions: u64) {
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let said = format!("hashlab: debug counts: {plans} plans, {resolutions} resolutions");
    assert!(
        stderr.lines().any(|l| l == said),
        "expected '{said}' in:\n{stderr}"
    );
}

#[test]
fn sum_plans_once_and_resolves_each_name_once() {
    let s = Scratch::with_files("counts-sum", &[("a", b"abc"), ("b", b"de")]);
    let dir = s.path();
    assert_counts(&counted(dir, &["sum", "-a", "sha256", "a"], &[]), 1, 1);
    // Two names, two resolutions; a repeat of one is dropped before resolving.
    assert_counts(
        &counted(dir, &["sum", "-a", "sha256,blake3,SHA-256", "a", "b"], &[]),
        1,
        2,
    );
    assert_counts(
        &counted(
            dir,
            &["sum", "--piece", "2", "--json", "-a", "md5", "a"],
            &[],
        ),
        1,
        1,
    );
}

#[test]
fn an_update_plans_once_whatever_style_its_manifest_is_in() {
    let s = Scratch::with_files("counts-update", &[("a", b"abc")]);
    let dir = s.path();
    let written = counted(dir, &["sum", "--tag", "-a", "sha256", "-o", "M", "a"], &[]);
    assert_counts(&written, 1, 1);
    s.write("b", b"new");
    let updated = counted(dir, &["sum", "--update", "M", "a", "b"], &[]);
    assert_counts(&updated, 1, 1);
    assert!(text(&updated.stderr).contains("added: b"));
    let manifest = std::fs::read_to_string(dir.join("M")).unwrap();
    assert!(manifest.contains("SHA256 (b) = "), "{manifest}");
}

/// `check` and `audit` resolve each (algorithm, length) group of lines once,
/// not once per line, nor once more per worker or for `-a`'s check.
#[test]
fn check_and_audit_resolve_once_per_group() {
    let s = Scratch::with_files("counts-check", &[("a", b"abc"), ("b", b"de"), ("c", b"f")]);
    let dir = s.path();
    let sum = counted(dir, &["sum", "-a", "sha256", "-o", "M", "a", "b", "c"], &[]);
    assert_counts(&sum, 1, 1);
    assert_counts(&counted(dir, &["check", "M"], &[]), 0, 1);
    assert_counts(&counted(dir, &["check", "-a", "sha256", "M"], &[]), 0, 1);
    let pieces = [
        "sum", "--piece", "2", "--json", "-a", "md5", "-o", "P.json", "a", "b",
    ];
    assert_counts(&counted(dir, &pieces, &[]), 1, 1);
    assert_counts(&counted(dir, &["check", "P.json"], &[]), 0, 1);
    assert_counts(&counted(dir, &["audit", "M", "a", "b", "c"], &[]), 0, 1);
}

#[test]
fn from_store_plans_once() {
    let Some(server) = LocalServer::start("fake-gcs") else {
        return;
    };
    let key = server.export("GOOGLE_SERVICE_ACCOUNT_KEY").to_string();
    let json: serde_json::Value = serde_json::from_str(&key).unwrap();
    let address = json["gcs_base_url"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .to_string();
    server.wait_for(&address);
    let put = |method: &str, path: &str, body: &[u8]| {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .unwrap();
        stream.write_all(body).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    };
    put("POST", "/storage/v1/b", br#"{"name":"lake"}"#);
    put(
        "POST",
        "/upload/storage/v1/b/lake/o?uploadType=media&name=tree%2Fa",
        b"abc",
    );
    let s = Scratch::new("counts-store");
    let listed = counted(
        s.path(),
        &["sum", "--from-store", "-a", "md5", "gs://lake/tree"],
        &[("GOOGLE_SERVICE_ACCOUNT_KEY", &key)],
    );
    assert_counts(&listed, 1, 1);
    // The store's own MD5 of "abc".
    assert!(
        text(&listed.stdout).starts_with("900150983cd24fb0d6963f7d28e17f72  gs://lake/tree/a"),
        "{}",
        text(&listed.stdout)
    );
}
