//! `gs://` against fake-gcs-server (scripts/fake-gcs, 127.0.0.1): a
//! directory compared with the `crc32c` and `md5Hash` GCS keeps of each
//! object, reading none; `sum --from-store` listing them. Skipped with a
//! message where Go is missing (HASHLAB_CI=1 makes that a failure).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::{text, LocalServer};

/// A fake-gcs-server for one test.
struct FakeGcs {
    _server: LocalServer,
    /// GOOGLE_SERVICE_ACCOUNT_KEY for clients.
    key: String,
    address: String,
}

fn start() -> Option<FakeGcs> {
    let server = LocalServer::start("fake-gcs")?;
    let key = server.export("GOOGLE_SERVICE_ACCOUNT_KEY").to_string();
    let json: serde_json::Value = serde_json::from_str(&key).unwrap();
    let address = json["gcs_base_url"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .to_string();
    server.wait_for(&address);
    Some(FakeGcs {
        _server: server,
        key,
        address,
    })
}

impl FakeGcs {
    /// One request over HTTP/1.1 to the JSON API; the status code.
    fn request(&self, method: &str, path: &str, body: &[u8]) -> u16 {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.address,
            body.len()
        )
        .unwrap();
        stream.write_all(body).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0)
    }

    fn create_bucket(&self, name: &str) {
        let body = format!("{{\"name\":\"{name}\"}}");
        assert_eq!(self.request("POST", "/storage/v1/b", body.as_bytes()), 200);
    }

    fn put(&self, bucket: &str, name: &str, data: &[u8]) {
        let encoded: String = name
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        let path = format!("/upload/storage/v1/b/{bucket}/o?uploadType=media&name={encoded}");
        assert_eq!(self.request("POST", &path, data), 200, "{name}");
    }

    /// `destination` composed from `sources` (JSON API's compose), as
    /// `gcloud storage objects compose` and parallel composite uploads make
    /// objects: GCS keeps a crc32c of the whole and no md5Hash.
    fn compose(&self, bucket: &str, destination: &str, sources: &[&str]) {
        let names: Vec<String> = sources
            .iter()
            .map(|s| format!("{{\"name\":\"{s}\"}}"))
            .collect();
        let body = format!("{{\"sourceObjects\":[{}]}}", names.join(","));
        let path = format!(
            "/storage/v1/b/{bucket}/o/{}/compose",
            destination.replace('/', "%2F")
        );
        assert_eq!(self.request("POST", &path, body.as_bytes()), 200);
    }

    fn hashlab(&self, cwd: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .args(args)
            .current_dir(cwd)
            .env("GOOGLE_SERVICE_ACCOUNT_KEY", &self.key)
            .env_remove("GOOGLE_SERVICE_ACCOUNT")
            .env_remove("GOOGLE_APPLICATION_CREDENTIALS")
            .output()
            .unwrap()
    }
}

/// (name, digest) pairs of `sum` lines, names below `prefix`.
fn digests(stdout: &[u8], prefix: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = text(stdout)
        .lines()
        .map(|line| {
            let (digest, name) = line.split_once("  ").unwrap();
            (
                name.trim_start_matches(prefix).to_string(),
                digest.to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_tree_is_compared_with_what_gcs_recorded() {
    let Some(gcs) = start() else { return };
    gcs.create_bucket("lake");
    let work = tempfile::tempdir().unwrap();
    let local = work.path().join("tree");
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("a.txt", b"alpha\n".to_vec()),
        ("dir/b ü", (0..70_000u32).map(|i| (i % 253) as u8).collect()),
        ("empty", Vec::new()),
        (
            "big.bin",
            (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect(),
        ),
    ];
    for (name, bytes) in &files {
        gcs.put("lake", &format!("tree/{name}"), bytes);
        let path = local.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    // A composed object: its crc32c is of the whole content, not of a part.
    let pieces: Vec<Vec<u8>> = (0..3u8)
        .map(|p| (0..100_000u32).map(|i| (i % 241) as u8 ^ p).collect())
        .collect();
    for (i, piece) in pieces.iter().enumerate() {
        gcs.put("lake", &format!("pieces/{i}"), piece);
    }
    gcs.compose("lake", "tree/joined", &["pieces/0", "pieces/1", "pieces/2"]);
    std::fs::write(local.join("joined"), pieces.concat()).unwrap();
    let cwd = work.path();

    // Every file by the object's crc32c, and no object read.
    let audit = gcs.hashlab(cwd, &["audit", "--json", "tree", "gs://lake/tree"]);
    assert!(
        audit.status.success(),
        "{}{}",
        text(&audit.stdout),
        text(&audit.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert_eq!(report["counts"]["matched"], 5, "{report}");
    for row in report["rows"].as_array().unwrap() {
        assert_eq!(row["status"], "matched", "{row}");
        assert_eq!(row["detail"], "crc32c", "{row}");
    }

    // --from-store lists GCS's crc32c and md5Hash: the files' own digests.
    for algorithm in ["crc32c", "md5"] {
        let listed = gcs.hashlab(
            cwd,
            &["sum", "--from-store", "-a", algorithm, "gs://lake/tree"],
        );
        assert!(listed.status.success(), "{}", text(&listed.stderr));
        let on_disk = gcs.hashlab(cwd, &["sum", "-a", algorithm, "-r", "tree"]);
        assert_eq!(
            digests(&listed.stdout, "gs://lake/tree/"),
            digests(&on_disk.stdout, "tree/"),
            "{algorithm}"
        );
    }
    let refused = gcs.hashlab(
        cwd,
        &["sum", "--from-store", "-a", "sha256", "gs://lake/tree"],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr)
            .contains("the store recorded no sha256 of the whole object (it has crc32c, md5Hash"),
        "{}",
        text(&refused.stderr)
    );

    // A file changed after the upload, same size: changed by its crc32c.
    let mut changed = files[1].1.clone();
    changed[100] ^= 1;
    std::fs::write(local.join("dir/b ü"), &changed).unwrap();
    let audit = gcs.hashlab(cwd, &["audit", "tree", "gs://lake/tree"]);
    assert_eq!(audit.status.code(), Some(1), "{}", text(&audit.stderr));
    assert!(
        text(&audit.stdout).contains("changed: dir/b ü: crc32c: the file gives "),
        "{}",
        text(&audit.stdout)
    );
    let download = gcs.hashlab(cwd, &["audit", "--download", "tree", "gs://lake/tree"]);
    assert_eq!(download.status.code(), Some(1));
    assert!(text(&download.stdout).contains("changed: dir/b ü: sha256 of the bytes read: "));

    // A bucket that does not exist: one line, exit 1.
    let missing = gcs.hashlab(cwd, &["audit", "tree", "gs://no-such-bucket/tree"]);
    assert_eq!(missing.status.code(), Some(1));
    let said = text(&missing.stderr);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.starts_with("hashlab: gs://no-such-bucket/tree: "),
        "{said}"
    );
}
