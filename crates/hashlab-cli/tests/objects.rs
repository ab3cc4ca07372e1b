//! `hashlab sum|check|audit` on `s3://` URLs against a real MinIO server,
//! built and started by scripts/minio on 127.0.0.1 with a temporary data
//! directory. Skipped with a message where Go is missing (set
//! HASHLAB_CI=1 makes that a failure; .ci/run refuses to start without Go).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::time::{Duration, Instant};

use hashlab::{HashParams, Registry};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as Key;
use object_store::signer::{Method, Signer};
use object_store::{ObjectStoreExt, PutPayload};

/// A MinIO server for one test; killed when dropped, even when the test fails.
struct Minio {
    child: Child,
    /// Held open: the server writes to it, and a closed pipe would kill it.
    _stdout: BufReader<ChildStdout>,
    endpoint: String,
    access_key: String,
    secret_key: String,
    data: PathBuf,
    runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Drop for Minio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/minio")
}

/// Builds (once, cached) and starts MinIO; `None` (after saying so) when Go
/// is not installed.
fn start_minio() -> Option<Minio> {
    let build = Command::new("bash")
        .arg(script())
        .arg("build")
        .stderr(Stdio::piped())
        .output()
        .expect("bash runs scripts/minio");
    if build.status.code() == Some(3) {
        let why = String::from_utf8_lossy(&build.stderr);
        hashlab_testkit::skip(&format!(
            "the MinIO tests need Go to build MinIO ({})",
            why.trim()
        ));
        return None;
    }
    assert!(
        build.status.success(),
        "scripts/minio build failed: {}",
        String::from_utf8_lossy(&build.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log = std::fs::File::create(dir.path().join("minio.log")).unwrap();
    let mut child = Command::new("bash")
        .arg(script())
        .arg("serve")
        .arg("--data")
        .arg(&data)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut env = BTreeMap::new();
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            let _ = child.kill();
            panic!(
                "scripts/minio serve stopped before printing its settings: {}",
                std::fs::read_to_string(dir.path().join("minio.log")).unwrap_or_default()
            );
        }
        if line.starts_with("# data:") {
            break;
        }
        if let Some((k, v)) = line
            .trim()
            .strip_prefix("export ")
            .and_then(|l| l.split_once('='))
        {
            env.insert(k.to_string(), v.to_string());
        }
    }
    let minio = Minio {
        child,
        _stdout: stdout,
        endpoint: env["AWS_ENDPOINT_URL"].clone(),
        access_key: env["AWS_ACCESS_KEY_ID"].clone(),
        secret_key: env["AWS_SECRET_ACCESS_KEY"].clone(),
        data,
        runtime: tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap(),
        _dir: dir,
    };
    assert!(
        minio.endpoint.starts_with("http://127.0.0.1:"),
        "{}",
        minio.endpoint
    );
    Some(minio)
}

impl Minio {
    fn store(&self, bucket: &str) -> AmazonS3 {
        AmazonS3Builder::new()
            .with_endpoint(&self.endpoint)
            .with_allow_http(true)
            .with_bucket_name(bucket)
            .with_access_key_id(&self.access_key)
            .with_secret_access_key(&self.secret_key)
            .with_region("us-east-1")
            .build()
            .unwrap()
    }

    /// object_store has no call for making a bucket, so this sends S3's
    /// CreateBucket (`PUT /bucket/`) itself, signed by object_store's
    /// presigner. Retried while the server is still starting.
    fn create_bucket(&self, bucket: &str) {
        let url = self
            .runtime
            .block_on(self.store(bucket).signed_url(
                Method::PUT,
                &Key::from(""),
                Duration::from_secs(300),
            ))
            .unwrap();
        let host = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap());
        let target = format!("{}?{}", url.path(), url.query().unwrap_or_default());
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let status = std::net::TcpStream::connect(&host).and_then(|mut s| {
                write!(
                    s,
                    "PUT {target} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )?;
                let mut response = String::new();
                s.read_to_string(&mut response)?;
                Ok(response.lines().next().unwrap_or_default().to_string())
            });
            match status {
                Ok(line) if line.contains(" 200 ") => return,
                // 503 while the server initializes its drive.
                Ok(line) if !line.contains(" 503 ") && !line.is_empty() => {
                    panic!("CreateBucket {bucket}: {line}")
                }
                _ if Instant::now() > deadline => panic!("MinIO did not come up: {status:?}"),
                _ => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    fn put(&self, bucket: &str, key: &str, bytes: &[u8]) {
        self.runtime
            .block_on(
                self.store(bucket)
                    .put(&Key::parse(key).unwrap(), PutPayload::from(bytes.to_vec())),
            )
            .unwrap();
    }

    /// Uploads `bytes` in parts of these sizes, the rest as a last part
    /// (S3's minimum is 5 MiB but for the last).
    fn put_multipart(&self, bucket: &str, key: &str, bytes: &[u8], parts: &[usize]) {
        self.runtime.block_on(async {
            let store = self.store(bucket);
            let mut upload = store
                .put_multipart(&Key::parse(key).unwrap())
                .await
                .unwrap();
            let mut rest = bytes;
            for &size in parts {
                let (part, after) = rest.split_at(size);
                upload
                    .put_part(PutPayload::from(part.to_vec()))
                    .await
                    .unwrap();
                rest = after;
            }
            if !rest.is_empty() {
                upload
                    .put_part(PutPayload::from(rest.to_vec()))
                    .await
                    .unwrap();
            }
            upload.complete().await.unwrap();
        });
    }

    fn delete(&self, bucket: &str, key: &str) {
        self.runtime
            .block_on(self.store(bucket).delete(&Key::parse(key).unwrap()))
            .unwrap();
    }

    /// `hashlab` with this server's endpoint and credentials in the
    /// environment (and no other AWS settings of the machine running the test).
    fn hashlab(&self, dir: &Path, args: &[&str]) -> Output {
        self.hashlab_env(dir, args, &[])
    }

    fn hashlab_env(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hashlab"));
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("AWS_") {
                command.env_remove(k);
            }
        }
        command
            .current_dir(dir)
            .args(args)
            .env("AWS_ENDPOINT_URL", &self.endpoint)
            .env("AWS_ACCESS_KEY_ID", &self.access_key)
            .env("AWS_SECRET_ACCESS_KEY", &self.secret_key)
            .env("AWS_REGION", "us-east-1");
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        let all = [&out.stdout[..], &out.stderr[..]].concat();
        assert!(
            !String::from_utf8_lossy(&all).contains(&self.secret_key),
            "the secret key was printed"
        );
        out
    }

    /// Rewrites a small object's stored bytes behind MinIO's back, as bitrot
    /// or a faulty disk would, such that MinIO still serves them: objects
    /// under 128 KiB live inside their `xl.meta`, which ends with the data
    /// preceded by its bitrot checksum, HighwayHash-256 under a fixed key
    /// (`magicHighwayHash256Key` in MinIO's cmd/bitrot.go). Writing new
    /// bytes of the same length with their checksum leaves the metadata,
    /// and so the ETag (the MD5 of the uploaded bytes), as they were.
    fn corrupt_inline_object(&self, bucket: &str, key: &str, old: &[u8], new: &[u8]) {
        const MINIO_BITROT_KEY: &str =
            "4be734fa8e238acd263e83e6bb968552040f935da39f441497e09d1322de36a0";
        assert_eq!(old.len(), new.len());
        let path = self.data.join(bucket).join(key).join("xl.meta");
        let mut meta = std::fs::read(&path).unwrap();
        let params = HashParams {
            key: Some(hashlab::hex::decode(MINIO_BITROT_KEY).unwrap()),
            ..HashParams::default()
        };
        let registry = Registry::default();
        let checksum = |data: &[u8]| {
            let mut h = registry.hasher("highwayhash-256", None, &params).unwrap();
            h.update(data);
            h.finalize_reset().as_bytes().to_vec()
        };
        let tail = meta.len() - old.len() - 32;
        assert_eq!(
            &meta[tail..],
            [checksum(old), old.to_vec()].concat(),
            "{} does not end with the object's checksummed bytes (not stored inline?)",
            path.display()
        );
        meta.truncate(tail);
        meta.extend(checksum(new));
        meta.extend_from_slice(new);
        std::fs::write(&path, meta).unwrap();
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// name → digest of `sum` output lines.
fn digests(stdout: &[u8]) -> Vec<(String, String)> {
    text(stdout)
        .lines()
        .map(|l| {
            let (hex, name) = l.split_once("  ").unwrap();
            (name.to_string(), hex.to_string())
        })
        .collect()
}

#[test]
fn sum_check_audit_and_etags_over_minio() {
    let Some(minio) = start_minio() else { return };
    minio.create_bucket("lake");
    let work = tempfile::tempdir().unwrap();
    let local = work.path().join("data");
    let mut files: Vec<(&str, Vec<u8>)> = vec![
        ("a.txt", b"alpha\n".to_vec()),
        (
            "dir one/b c.bin",
            (0..70_000u32).map(|i| (i % 253) as u8).collect(),
        ),
        // A key that is not ASCII: read by its own name, not a percent-encoded one.
        ("empty ü", Vec::new()),
        // Above MinIO's inline limit: stored as a part file.
        (
            "nested/deep/x/y.dat",
            (0..300_000u32).map(|i| (i * 31 % 256) as u8).collect(),
        ),
        ("small", b"the original bytes".to_vec()),
    ];
    for (name, bytes) in &files {
        minio.put("lake", &format!("data/{name}"), bytes);
    }
    // Three parts of uneven sizes: an ETag of the form <md5>-3.
    let multi: Vec<u8> = (0..(11u32 << 20) + 77)
        .map(|i| (i * 7 % 251) as u8)
        .collect();
    minio.put_multipart(
        "lake",
        "data/multi.bin",
        &multi,
        &[(5 << 20) + 3, (5 << 20) + 1001],
    );
    files.push(("multi.bin", multi));
    for (name, bytes) in &files {
        let path = local.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let cwd = work.path();

    // The objects hash as the same bytes on disk do, in key order, named
    // under the URL as `sum -r data` names them under `data`.
    for algorithm in ["sha256", "blake3", "md5"] {
        let remote = minio.hashlab(cwd, &["sum", "-a", algorithm, "s3://lake/data"]);
        assert!(remote.status.success(), "{}", text(&remote.stderr));
        let on_disk = minio.hashlab(cwd, &["sum", "-a", algorithm, "-r", "data"]);
        let expected: Vec<(String, String)> = digests(&on_disk.stdout)
            .into_iter()
            .map(|(n, d)| (n.replacen("data/", "s3://lake/data/", 1), d))
            .collect();
        let got = digests(&remote.stdout);
        assert_eq!(got.len(), 6, "{}", text(&remote.stdout));
        let mut sorted_expected = expected.clone();
        sorted_expected.sort();
        assert_eq!(got, sorted_expected, "{algorithm}");
    }

    // A manifest of the objects checks against them, and audits clean.
    let manifest = cwd.join("lake.sha256");
    let sum = minio.hashlab(
        cwd,
        &[
            "sum",
            "-a",
            "sha256",
            "-o",
            "lake.sha256",
            "s3://lake/data/",
        ],
    );
    assert!(sum.status.success(), "{}", text(&sum.stderr));
    let check = minio.hashlab(cwd, &["check", "--allow-remote", "lake.sha256"]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert_eq!(
        text(&check.stdout).matches(": OK\n").count(),
        6,
        "{}",
        text(&check.stdout)
    );
    assert!(text(&check.stdout).contains("s3://lake/data/dir one/b c.bin: OK\n"));
    let audit = minio.hashlab(cwd, &["audit", "lake.sha256", "s3://lake/data"]);
    assert!(
        audit.status.success(),
        "{}{}",
        text(&audit.stdout),
        text(&audit.stderr)
    );
    assert!(text(&audit.stdout).contains("audit passed: 6 matched, 0 changed"));

    // ETags: five single-part uploads match their MD5s, and the multipart
    // one the MD5 of its three parts' MD5s, whose sizes the store was asked.
    let etag = minio.hashlab(
        cwd,
        &["sum", "--verify-etag", "-a", "sha256", "s3://lake/data"],
    );
    assert!(etag.status.success(), "{}", text(&etag.stderr));
    let said = text(&etag.stderr);
    assert!(
        said.contains("--verify-etag: 6 matched, 0 MISMATCHED, 0 not comparable"),
        "{said}"
    );

    // Bitrot under MinIO: the content served changes, the ETag does not.
    minio.corrupt_inline_object(
        "lake",
        "data/small",
        b"the original bytes",
        b"the 0riginal bytes",
    );
    let check = minio.hashlab(cwd, &["check", "--allow-remote", "lake.sha256"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));
    assert!(text(&check.stdout).contains("s3://lake/data/small: FAILED\n"));
    assert!(text(&check.stderr).contains("1 computed checksum did NOT match"));
    let audit = minio.hashlab(cwd, &["audit", "lake.sha256", "s3://lake/data"]);
    assert_eq!(audit.status.code(), Some(1));
    assert!(
        text(&audit.stdout).contains("changed: s3://lake/data/small\n"),
        "{}",
        text(&audit.stdout)
    );
    assert!(text(&audit.stdout).contains("audit FAILED: 5 matched, 1 changed, 0 missing, 0 new"));
    for args in [
        &["sum", "--verify-etag", "-a", "blake3", "s3://lake/data"][..],
        &["check", "--allow-remote", "--verify-etag", "lake.sha256"][..],
        &["audit", "--verify-etag", "lake.sha256", "s3://lake/data"][..],
    ] {
        let out = minio.hashlab(cwd, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let said = text(&out.stderr);
        assert!(
            said.contains("s3://lake/data/small: ETag MISMATCH: the content gives ")
                && said.contains("1 MISMATCHED"),
            "{args:?}: {said}"
        );
    }

    // Moved, missing and new objects, as audit reports them for a directory.
    minio.put("lake", "data/moved/a.txt", b"alpha\n");
    minio.delete("lake", "data/a.txt");
    minio.delete("lake", "data/nested/deep/x/y.dat");
    minio.put("lake", "data/new", b"brand new");
    let audit = minio.hashlab(cwd, &["audit", "--json", "lake.sha256", "s3://lake/data"]);
    assert_eq!(audit.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert_eq!(report["moved"][0][0], "s3://lake/data/a.txt", "{report}");
    assert_eq!(report["moved"][0][1], "s3://lake/data/moved/a.txt");
    assert_eq!(report["missing"][0], "s3://lake/data/nested/deep/x/y.dat");
    assert_eq!(report["new"][0], "s3://lake/data/new");
    assert_eq!(report["changed"][0], "s3://lake/data/small");
    assert_eq!(report["counts"]["matched"], 3);
    let check = minio.hashlab(
        cwd,
        &[
            "check",
            "--allow-remote",
            "--ignore-missing",
            "--quiet",
            "lake.sha256",
        ],
    );
    assert_eq!(check.status.code(), Some(1), "small still fails");
    assert!(
        !text(&check.stdout).contains("a.txt"),
        "{}",
        text(&check.stdout)
    );
    drop(manifest);
}

#[test]
fn object_store_errors_are_one_line_each() {
    let Some(minio) = start_minio() else { return };
    minio.create_bucket("present");
    minio.put("present", "k/x", b"x");
    let cwd = std::env::temp_dir();
    let one_line = |out: &Output, expected: &str| {
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert_eq!(text(&out.stderr), format!("hashlab: {expected}\n"));
        assert!(out.stdout.is_empty());
    };
    one_line(
        &minio.hashlab(&cwd, &["sum", "s3://absent/k"]),
        "s3://absent/k: no such bucket",
    );
    one_line(
        &minio.hashlab_env(&cwd, &["sum", "s3://present/k"], &[("AWS_SECRET_ACCESS_KEY", "wrong-secret")]),
        "s3://present/k: access denied: the request signature does not match (check AWS_SECRET_ACCESS_KEY)",
    );
    one_line(
        &minio.hashlab_env(&cwd, &["sum", "s3://present/k"], &[("AWS_ACCESS_KEY_ID", "nobody")]),
        "s3://present/k: access denied: the access key id is not known to the server (AWS_ACCESS_KEY_ID)",
    );
    one_line(
        &minio.hashlab(&cwd, &["sum", "s3://present/nothing-here"]),
        "s3://present/nothing-here: no object at or under this URL",
    );
    // A port nothing listens on (bound, then released).
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let started = Instant::now();
    one_line(
        &minio.hashlab_env(
            &cwd,
            &["sum", "s3://present/k"],
            &[("AWS_ENDPOINT_URL", &format!("http://{closed}"))],
        ),
        "s3://present/k: cannot connect: connection refused",
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "retried too long"
    );
    // A manifest line naming a missing object is unreadable, like a missing file.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.sha256"),
        "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  s3://present/k/x\n\
         2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  s3://present/k/gone\n",
    )
    .unwrap();
    let check = minio.hashlab(dir.path(), &["check", "--allow-remote", "m.sha256"]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(
        text(&check.stdout),
        "s3://present/k/x: OK\ns3://present/k/gone: FAILED open or read\n"
    );
    assert!(text(&check.stderr).contains("hashlab: s3://present/k/gone: no such object\n"));
    let check = minio.hashlab(
        dir.path(),
        &["check", "--allow-remote", "--ignore-missing", "m.sha256"],
    );
    assert!(check.status.success(), "{}", text(&check.stderr));
    // Keys from a profile of a shared credentials file, as the AWS CLI reads them.
    std::fs::write(
        dir.path().join("credentials"),
        format!(
            "[other]\naws_access_key_id = x\naws_secret_access_key = y\n[minio]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
            minio.access_key, minio.secret_key
        ),
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashlab"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("AWS_") {
            command.env_remove(k);
        }
    }
    let profile = command
        .args(["sum", "s3://present/k"])
        .env("AWS_ENDPOINT_URL", &minio.endpoint)
        .env(
            "AWS_SHARED_CREDENTIALS_FILE",
            dir.path().join("credentials"),
        )
        .env("AWS_CONFIG_FILE", dir.path().join("no-config"))
        .env("AWS_PROFILE", "minio")
        .output()
        .unwrap();
    assert!(profile.status.success(), "{}", text(&profile.stderr));
    assert_eq!(
        text(&profile.stdout),
        "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  s3://present/k/x\n"
    );
    // --verify-etag needs objects.
    let usage = minio.hashlab(dir.path(), &["sum", "--verify-etag", "m.sha256"]);
    assert_eq!(usage.status.code(), Some(2));
}

/// `sum --update` over a prefix: a new key is added, a rewritten object
/// (new ETag) read again, a deleted one dropped with --prune, and the rest
/// left unread; the result is what a fresh `sum` of the prefix lists.
#[test]
fn sum_update_follows_a_prefix() {
    let Some(minio) = start_minio() else { return };
    minio.create_bucket("grow");
    for (key, bytes) in [("p/a", &b"alpha"[..]), ("p/b", b"beta"), ("p/c", b"gamma")] {
        minio.put("grow", key, bytes);
    }
    let work = tempfile::tempdir().unwrap();
    let cwd = work.path();
    for (manifest, flags) in [("grow.sha256", &[][..]), ("grow.json", &["--json"][..])] {
        let mut args = vec!["sum", "s3://grow/p", "-o", manifest];
        args.extend_from_slice(flags);
        let made = minio.hashlab(cwd, &args);
        assert!(made.status.success(), "{}", text(&made.stderr));
        // The first update records each object's ETag.
        assert!(minio
            .hashlab(cwd, &["sum", "--update", manifest, "s3://grow/p"])
            .status
            .success());
    }
    minio.put("grow", "p/b", b"BETA, rewritten");
    minio.put("grow", "p/new", b"new object");
    minio
        .runtime
        .block_on(minio.store("grow").delete(&Key::parse("p/c").unwrap()))
        .unwrap();
    let fresh = minio.hashlab(cwd, &["sum", "s3://grow/p"]);
    for manifest in ["grow.sha256", "grow.json"] {
        let out = minio.hashlab(
            cwd,
            &[
                "sum",
                "--update",
                manifest,
                "--prune",
                "s3://grow/p",
                "--json",
            ],
        );
        assert!(out.status.success(), "{manifest}: {}", text(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            report["added"],
            serde_json::json!(["s3://grow/p/new"]),
            "{manifest}"
        );
        assert_eq!(report["changed"], serde_json::json!(["s3://grow/p/b"]));
        assert_eq!(report["removed"], serde_json::json!(["s3://grow/p/c"]));
        assert_eq!(
            report["unchanged"], 1,
            "{manifest}: s3://grow/p/a is not read"
        );
    }
    let mut want = digests(&fresh.stdout);
    want.sort();
    let mut got = digests(&std::fs::read(cwd.join("grow.sha256")).unwrap());
    got.sort();
    assert_eq!(got, want);
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(cwd.join("grow.json")).unwrap()).unwrap();
    let mut got: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap().into(),
                r["digest"].as_str().unwrap().into(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(got, want);
    // Objects read by the update carry their ETag; the one not read keeps its row.
    let tagged: Vec<&str> = rows
        .iter()
        .filter(|r| r["etag"].is_string())
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert_eq!(tagged, ["s3://grow/p/b", "s3://grow/p/new"], "{rows:?}");
}

#[test]
fn bench_like_measures_a_prefix_and_checks_it_against_sum_url() {
    let Some(minio) = start_minio() else { return };
    minio.create_bucket("shape");
    let mut total = 0u64;
    for i in 0..60u64 {
        let size = 500 + (i * 7919) % 40_000;
        minio.put(
            "shape",
            &format!("blobs/{i:03}"),
            &vec![i as u8; size as usize],
        );
        total += size;
    }
    minio.put("shape", "blobs/large", &vec![9u8; 3 << 20]);
    total += 3 << 20;
    let scratch = tempfile::tempdir().unwrap();
    let cwd = scratch.path();
    let out = minio.hashlab(
        cwd,
        &[
            "bench",
            "--like",
            "s3://shape/blobs",
            "-a",
            "blake3,sha256",
            "--max-time",
            "2",
            "--verify",
            "sha256",
            "--format",
            "json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["shape"]["source"], "objects");
    assert_eq!(report["shape"]["path"], "s3://shape/blobs");
    assert_eq!(report["shape"]["files"], 61.0);
    assert_eq!(report["shape"]["bytes"], total as f64);
    assert_eq!(report["projections"].as_array().unwrap().len(), 2);
    let v = &report["verified"][0];
    assert_eq!(v["algorithm"], "sha256");
    assert_eq!(
        (v["files"].as_u64(), v["bytes"].as_u64()),
        (Some(61), Some(total))
    );
    assert!(v["measured"].as_f64().unwrap() > 0.0 && v["projected_cached"].as_f64().unwrap() > 0.0);

    // A bucket that is not there: one line naming the URL, exit 1, nothing on stdout.
    let out = minio.hashlab(cwd, &["bench", "--like", "s3://nobucket/x", "-a", "blake3"]);
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stderr);
    assert!(said.starts_with("hashlab: s3://nobucket/x"), "{said}");
    assert_eq!(said.trim_end().lines().count(), 1, "{said}");
    assert!(out.stdout.is_empty());
}
