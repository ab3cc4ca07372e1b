//! `audit` and the manifests it shares with `check`: every format `sum`
//! writes reads back to the same names whatever bytes they hold, a bad line
//! costs one warning, a manifest cannot make hashlab talk to the network or
//! keep gigabytes, and what is not a missing file is not called missing.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{hashlab_in, text};

fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("hashlab-audit-{name}-"))
        .tempdir()
        .unwrap()
}

use hashlab_testkit::skip;

fn summary_line(o: &Output) -> String {
    text(&o.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

/// A stand-in object store on 127.0.0.1 that answers every request with
/// 404 and counts the connections and the requests signed with `key_id`.
struct Listener {
    port: u16,
    connections: Arc<AtomicUsize>,
    signed: Arc<AtomicUsize>,
}

impl Listener {
    fn start(key_id: &'static str) -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let signed = Arc::new(AtomicUsize::new(0));
        let (c, s) = (Arc::clone(&connections), Arc::clone(&signed));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                c.fetch_add(1, Ordering::SeqCst);
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                if String::from_utf8_lossy(&request).contains(key_id) {
                    s.fetch_add(1, Ordering::SeqCst);
                }
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        Listener {
            port,
            connections,
            signed,
        }
    }

    /// `hashlab` with this listener as the S3 endpoint and made-up credentials.
    fn hashlab(&self, dir: &Path, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hashlab"));
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("AWS_") {
                command.env_remove(k);
            }
        }
        command
            .current_dir(dir)
            .args(args)
            .env(
                "AWS_ENDPOINT_URL",
                format!("http://127.0.0.1:{}", self.port),
            )
            .env("AWS_ACCESS_KEY_ID", "AKIDHASHLABTEST")
            .env("AWS_SECRET_ACCESS_KEY", "not-a-secret")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ALLOW_HTTP", "true")
            .output()
            .unwrap()
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

#[test]
fn manifest_urls_are_followed_only_with_allow_remote() {
    let s = scratch("remote");
    let listener = Listener::start("AKIDHASHLABTEST");
    std::fs::write(s.path().join("a"), "abc").unwrap();
    let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    std::fs::write(
        s.path().join("m.sha256"),
        format!("{abc}  a\n{abc}  s3://any-bucket/key\n"),
    )
    .unwrap();

    let refused = listener.hashlab(s.path(), &["check", "m.sha256"]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
    assert_eq!(
        text(&refused.stdout),
        "a: OK\ns3://any-bucket/key: FAILED open or read\n"
    );
    let err = text(&refused.stderr);
    assert!(
        err.lines().next().is_some_and(
            |l| l.starts_with("hashlab: s3://any-bucket/key: ") && l.contains("--allow-remote")
        ),
        "{err}"
    );
    assert!(err.contains("1 listed file could not be read"), "{err}");
    // audit never reads what a manifest's lines name: only the paths given.
    let audit = listener.hashlab(s.path(), &["audit", "m.sha256", "a"]);
    assert!(
        text(&audit.stdout).contains("missing: s3://any-bucket/key"),
        "{}",
        text(&audit.stdout)
    );
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        listener.connections(),
        0,
        "a connection without --allow-remote"
    );

    let allowed = listener.hashlab(s.path(), &["check", "--allow-remote", "m.sha256"]);
    assert_eq!(allowed.status.code(), Some(1));
    assert_eq!(
        text(&allowed.stdout),
        "a: OK\ns3://any-bucket/key: FAILED open or read\n"
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(listener.connections() >= 1, "--allow-remote read nothing");
    assert!(
        listener.signed.load(Ordering::SeqCst) >= 1,
        "the request carried the credentials"
    );
    // --verify-etag reads objects, so it needs the flag too.
    let etag = listener.hashlab(s.path(), &["check", "--verify-etag", "m.sha256"]);
    assert_eq!(etag.status.code(), Some(2), "{}", text(&etag.stderr));
}

/// Names holding every byte but NUL and '/', first, inside and last.
fn odd_names() -> Vec<Vec<u8>> {
    let names: std::collections::BTreeSet<Vec<u8>> = (1..=255u8)
        .filter(|&b| b != b'/')
        .flat_map(|b| [vec![b, b'x'], vec![b'x', b, b'x'], vec![b'x', b]])
        .collect();
    names.into_iter().collect()
}

fn path_of(dir: &Path, name: &[u8]) -> PathBuf {
    dir.join(std::ffi::OsStr::from_bytes(name))
}

#[test]
fn every_byte_in_names_round_trips_through_every_manifest_format() {
    let s = scratch("names");
    let tree = s.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    let names = odd_names();
    for (i, name) in names.iter().enumerate() {
        std::fs::write(path_of(&tree, name), format!("{i}")).unwrap();
    }
    let count = names.len();
    // (manifest, sum's options, check's options: None where check does not
    // read the format, audit's options).
    type Format<'a> = (&'a str, &'a [&'a str], Option<&'a [&'a str]>, &'a [&'a str]);
    let formats: &[Format] = &[
        ("m.sha256", &[], Some(&[]), &[]),
        ("m.tag", &["--tag", "-a", "md5,sha256"], Some(&[]), &[]),
        ("m.b3", &["-a", "blake3"], Some(&[]), &[]),
        ("m.xxh3", &["-a", "xxh3-64"], Some(&[]), &[]),
        ("m.z", &["-z"], Some(&["-z"]), &["-z"]),
        (
            "m.ztag",
            &["-z", "--tag", "-a", "blake2b"],
            Some(&["-z"]),
            &["-z"],
        ),
        (
            "m.hd",
            &["--format", "hashdeep", "-a", "md5,sha256"],
            None,
            &[],
        ),
        ("m.json", &["--json"], None, &[]),
    ];
    for (manifest, sum_args, check_args, audit_args) in formats {
        let mut args = vec!["sum", "-r", "-o", manifest];
        args.extend_from_slice(sum_args);
        args.push("t");
        let sum = hashlab_in(s.path(), &args);
        assert!(sum.status.success(), "{args:?}: {}", text(&sum.stderr));
        if let Some(check_args) = check_args {
            let mut args = vec!["check"];
            args.extend_from_slice(check_args);
            args.push(manifest);
            let check = hashlab_in(s.path(), &args);
            let lines = if *manifest == "m.tag" {
                2 * count
            } else {
                count
            };
            assert_eq!(
                (
                    check.status.code(),
                    text(&check.stdout).matches(": OK").count()
                ),
                (Some(0), lines),
                "{args:?}: {}",
                text(&check.stderr)
            );
            // A name that tells no algorithm (`m.z`): check says what it found the lines to be.
            assert!(
                text(&check.stderr)
                    .lines()
                    .all(|l| l.contains(": read as sha256: the lines' length and the first file")),
                "{args:?}: {}",
                text(&check.stderr)
            );
        }
        let mut args = vec!["audit"];
        args.extend_from_slice(audit_args);
        args.extend_from_slice(&[manifest, "t"]);
        let audit = hashlab_in(s.path(), &args);
        assert_eq!(
            summary_line(&audit),
            format!(
                "audit passed: {count} matched, 0 changed, 0 missing, 0 new, 0 moved, 0 unreadable"
            ),
            "{args:?}: {}{}",
            text(&audit.stdout),
            text(&audit.stderr)
        );
        assert!(audit.stderr.is_empty(), "{args:?}: {}", text(&audit.stderr));
    }
}

#[test]
fn blake3_lines_are_what_b3sum_reads() {
    if Command::new("b3sum").arg("--version").output().is_err() {
        return skip("b3sum is not installed (scripts/setup installs it)");
    }
    let s = scratch("b3sum");
    // Every name but those ending in CR, which b3sum 1.2 cannot be given
    // in a line coreutils-style readers also read (lines.rs says why), and
    // those that are not UTF-8: b3sum 1.2 reads no manifest holding one
    // ("stream did not contain valid UTF-8").
    let names: Vec<Vec<u8>> = odd_names()
        .into_iter()
        .filter(|n| n.last() != Some(&b'\r') && std::str::from_utf8(n).is_ok())
        .collect();
    for (i, name) in names.iter().enumerate() {
        std::fs::write(path_of(s.path(), name), format!("{i}")).unwrap();
    }
    let sum = hashlab_in(
        s.path(),
        &["sum", "-r", "-a", "blake3", "-o", "../m.b3", "."],
    );
    assert!(sum.status.success(), "{}", text(&sum.stderr));
    let check = Command::new("b3sum")
        .current_dir(s.path())
        .args(["--check", "../m.b3"])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "b3sum --check: {}",
        text(&check.stderr)
    );
    assert_eq!(text(&check.stdout).matches(": OK").count(), names.len());
    std::fs::remove_file(s.path().join("../m.b3")).unwrap();
}

#[test]
fn a_bad_line_is_one_warning_and_the_rest_is_audited() {
    let s = scratch("bad-lines");
    let tree = s.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    for n in ["a", "b", "new\nline", "z"] {
        std::fs::write(tree.join(n), n).unwrap();
    }
    let hd = hashlab_in(
        s.path(),
        &["sum", "-r", "--format", "hashdeep", "-o", "m.hd", "t"],
    );
    assert!(hd.status.success());
    // As hashdeep itself writes a name with a newline: raw, over two lines.
    let mut bytes = std::fs::read(s.path().join("m.hd")).unwrap();
    let escaped = bytes
        .split(|b| *b == b'\n')
        .position(|l| l.starts_with(b"\\"))
        .expect("the escaped line") as u64
        + 1;
    let text_of = String::from_utf8(bytes.clone()).unwrap();
    let raw = text_of
        .replace("\\1", "1")
        .replace("new\\nline", "new\nline");
    bytes = raw.into_bytes();
    std::fs::write(s.path().join("raw.hd"), &bytes).unwrap();
    let a = hashlab_in(s.path(), &["audit", "raw.hd", "t"]);
    let err = text(&a.stderr);
    assert_eq!(
        err,
        format!(
            "hashlab: raw.hd: line {}: not size,digest,filename as the header says\n",
            escaped + 1
        ),
        "{}",
        text(&a.stdout)
    );
    // The rest is audited: three files match; the one whose line broke is
    // missing under its first half's name, and new under its own.
    let out = text(&a.stdout);
    assert!(out.contains("3 matched"), "{out}");
    assert_eq!(a.status.code(), Some(1));

    // GNU lines and JSON entries, likewise.
    let gnu = hashlab_in(s.path(), &["sum", "-r", "-o", "m.sha256", "t"]);
    assert!(gnu.status.success());
    let mut lines = std::fs::read(s.path().join("m.sha256")).unwrap();
    lines.extend_from_slice(b"this is no checksum line\n");
    std::fs::write(s.path().join("m.sha256"), &lines).unwrap();
    let a = hashlab_in(s.path(), &["audit", "m.sha256", "t"]);
    assert_eq!(
        text(&a.stderr),
        "hashlab: m.sha256: line 5: improperly formatted checksum line\n"
    );
    assert_eq!(a.status.code(), Some(0), "{}", text(&a.stdout));
    let json = hashlab_in(s.path(), &["sum", "-r", "--json", "-o", "m.json", "t"]);
    assert!(json.status.success());
    let mut entries: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(s.path().join("m.json")).unwrap()).unwrap();
    entries[1]["digest"] = "not hex".into();
    std::fs::write(
        s.path().join("m.json"),
        serde_json::to_vec(&entries).unwrap(),
    )
    .unwrap();
    let a = hashlab_in(s.path(), &["audit", "--json", "m.json", "t"]);
    assert_eq!(
        text(&a.stderr),
        "hashlab: m.json: entry 2: the digest is not hex\n"
    );
    let report: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(report["counts"]["matched"], 3);
    assert_eq!(report["counts"]["new"], 1);
    assert_eq!(
        report["manifest_problems"],
        serde_json::json!(["entry 2: the digest is not hex"])
    );
}

#[test]
fn audit_usage_errors_and_bounds() {
    let s = scratch("usage");
    std::fs::write(s.path().join("f"), "abc").unwrap();
    let sum = hashlab_in(s.path(), &["sum", "f", "-o", "m.sha256"]);
    assert!(sum.status.success());
    let unknown = hashlab_in(s.path(), &["audit", "-a", "nosuch", "m.sha256", "f"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown.stderr));
    assert!(text(&unknown.stderr).contains("nosuch"));
    // md5 over sha256 digests: each line says why, and no option audit lacks is named.
    let md5 = hashlab_in(s.path(), &["audit", "-a", "md5", "m.sha256", "f"]);
    let err = text(&md5.stderr);
    assert!(!err.contains("--length"), "{err}");
    assert!(
        err.contains("m.sha256: line 1: a 32-byte digest is not a md5 digest here"),
        "{err}"
    );
    assert_eq!(md5.status.code(), Some(1));

    // A hostile manifest: one XOF length per line, each a hasher run over
    // every file and a digest kept per new file (4 GB for 2,000 lines and
    // files). Refused, naming the limit, before anything is hashed.
    let hostile: String = (1..=17)
        .map(|n| format!("SHAKE128 (f) = {}\n", "ab".repeat(n)))
        .collect();
    std::fs::write(s.path().join("hostile"), hostile).unwrap();
    let o = hashlab_in(s.path(), &["audit", "hostile", "f"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        "hashlab: hostile: more than 16 algorithm and length pairs; audit hashes every file with each, and takes at most 16\n"
    );
    assert!(o.stdout.is_empty());
    let long = format!("SHAKE128 (f) = {}\n", "ab".repeat(129));
    std::fs::write(s.path().join("long"), long).unwrap();
    let o = hashlab_in(s.path(), &["audit", "long", "f"]);
    assert!(
        text(&o.stderr)
            .contains("line 1: a 129-byte digest; audit compares digests of at most 128 bytes"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn links_are_said_to_be_links_not_missing() {
    let s = scratch("links");
    let tree = s.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("target"), "t").unwrap();
    std::fs::write(tree.join("link"), "l").unwrap();
    let sum = hashlab_in(s.path(), &["sum", "-r", "-o", "m.sha256", "t"]);
    assert!(sum.status.success());
    std::fs::remove_file(tree.join("link")).unwrap();
    std::os::unix::fs::symlink("target", tree.join("link")).unwrap();
    let a = hashlab_in(s.path(), &["audit", "m.sha256", "t"]);
    assert_eq!(
        text(&a.stdout),
        "skipped: t/link: a symbolic link, which audit does not follow\n\
         audit FAILED: 1 matched, 0 changed, 0 missing, 0 new, 0 moved, 0 unreadable, 1 skipped (not files audit reads)\n"
    );
    assert_eq!(a.status.code(), Some(1));
}

/// Runs `hashlab` as user nobody (the test runs as root, for whom no
/// directory is unreadable), or as it is when the test is not root.
fn hashlab_unprivileged(dir: &Path, args: &[&str]) -> Option<Output> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(hashlab_in(dir, args));
    }
    let probe = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_hashlab"))
        .arg("--version")
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return None;
    }
    Some(
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_hashlab"))
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap(),
    )
}

#[test]
fn files_in_unreadable_directories_are_unreadable_not_missing() {
    use std::os::unix::fs::PermissionsExt;
    let s = scratch("unreadable");
    let tree = s.path().join("t");
    std::fs::create_dir_all(tree.join("closed")).unwrap();
    std::fs::write(tree.join("open"), "o").unwrap();
    std::fs::write(tree.join("closed/inner"), "i").unwrap();
    let sum = hashlab_in(s.path(), &["sum", "-r", "-o", "m.sha256", "t"]);
    assert!(sum.status.success());
    for p in [s.path(), tree.as_path()] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::set_permissions(
        s.path().join("m.sha256"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    std::fs::set_permissions(tree.join("open"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(tree.join("closed"), std::fs::Permissions::from_mode(0o311)).unwrap();
    let Some(a) = hashlab_unprivileged(s.path(), &["audit", "m.sha256", "t"]) else {
        std::fs::set_permissions(tree.join("closed"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        return skip("running as root without setpriv to drop privileges");
    };
    std::fs::set_permissions(tree.join("closed"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = text(&a.stdout);
    assert!(!out.contains("missing: "), "{out}{}", text(&a.stderr));
    assert!(
        out.contains("unreadable: t/closed/inner: in ") && out.contains("which could not be read"),
        "{out}"
    );
    assert!(out.contains("unreadable: t/closed: "), "{out}");
    assert_eq!(a.status.code(), Some(1));
}

#[test]
fn changed_only_notices_files_swapped_within_one_timestamp_tick() {
    let s = scratch("swap");
    let tree = s.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    let tick = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    for (n, body) in [("a", "AAAA"), ("b", "BBBB"), ("c", "CCCC")] {
        let p = tree.join(n);
        std::fs::write(&p, body).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(tick)
            .unwrap();
    }
    let sum = hashlab_in(s.path(), &["sum", "-r", "--json", "-o", "m.json", "t"]);
    assert!(sum.status.success());
    let quiet = hashlab_in(
        s.path(),
        &["audit", "--changed-only", "--json", "m.json", "t"],
    );
    let report: serde_json::Value = serde_json::from_slice(&quiet.stdout).unwrap();
    assert_eq!(report["counts"]["assumed"], 3, "{report}");
    std::fs::rename(tree.join("a"), tree.join("tmp")).unwrap();
    std::fs::rename(tree.join("b"), tree.join("a")).unwrap();
    std::fs::rename(tree.join("tmp"), tree.join("b")).unwrap();
    let fast = hashlab_in(
        s.path(),
        &["audit", "--changed-only", "--json", "m.json", "t"],
    );
    let report: serde_json::Value = serde_json::from_slice(&fast.stdout).unwrap();
    assert_eq!(
        report["changed"],
        serde_json::json!(["t/a", "t/b"]),
        "{report}"
    );
    assert_eq!(report["assumed"], serde_json::json!(["t/c"]));
    assert_eq!(fast.status.code(), Some(1));
}

#[test]
fn moves_are_found_in_linear_time_and_pair_duplicates() {
    let s = scratch("moves");
    let tree = s.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    for (n, body) in [("d1", "dup"), ("d2", "dup"), ("e", "e"), ("u", "u")] {
        std::fs::write(tree.join(n), body).unwrap();
    }
    let sum = hashlab_in(s.path(), &["sum", "-r", "-o", "m.sha256", "t"]);
    assert!(sum.status.success());
    for n in ["d1", "d2", "e", "u"] {
        std::fs::remove_file(tree.join(n)).unwrap();
    }
    std::fs::write(tree.join("x-dup"), "dup").unwrap();
    std::fs::write(tree.join("e1"), "e").unwrap();
    std::fs::write(tree.join("e2"), "e").unwrap();
    let a = hashlab_in(s.path(), &["audit", "m.sha256", "t"]);
    assert_eq!(
        text(&a.stdout),
        "missing: t/d2\nmissing: t/u\nmoved: t/d1 -> t/x-dup\nmoved: t/e -> t/e1\nnew: t/e2\n\
         audit FAILED: 0 matched, 0 changed, 2 missing, 1 new, 2 moved, 0 unreadable\n"
    );
}

/// Failed on b4b9c33: a new file named `z⏎audit passed: 1 matched` printed
/// its name as it is, so the output held a line of its own that read as a
/// passed verdict. Names are escaped as coreutils escapes them, the line
/// starting with a backslash, in the text and in the tables alike.
#[test]
fn a_name_cannot_forge_a_verdict_line() {
    let s = scratch("forged");
    let tree = s.path().join("t");
    std::fs::create_dir(&tree).unwrap();
    std::fs::write(tree.join("a"), "a").unwrap();
    let sum = hashlab_in(s.path(), &["sum", "-r", "-o", "m.sha256", "t"]);
    assert!(sum.status.success());
    std::fs::write(tree.join("z\naudit passed: 1 matched"), "z").unwrap();
    std::fs::write(tree.join("a"), "b").unwrap();
    std::fs::rename(tree.join("a"), tree.join("a\nb")).unwrap();
    let a = hashlab_in(s.path(), &["audit", "m.sha256", "t"]);
    assert_eq!(a.status.code(), Some(1));
    let out = text(&a.stdout);
    for line in out.lines() {
        assert!(
            !line.starts_with("audit passed") && !line.starts_with('b'),
            "a name made a line of its own: {line:?} in\n{out}"
        );
    }
    assert!(out.starts_with("missing: t/a\n"), "{out}");
    assert!(out.contains("\\new: t/a\\nb\n"), "{out}");
    assert!(
        out.contains("\\new: t/z\\naudit passed: 1 matched\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "audit FAILED: 0 matched, 0 changed, 1 missing, 2 new, 0 moved, 0 unreadable\n"
        ),
        "{out}"
    );
    for format in ["table", "md"] {
        let t = hashlab_in(s.path(), &["audit", "m.sha256", "t", "--format", format]);
        let out = text(&t.stdout);
        assert!(
            out.lines()
                .all(|l| !l.starts_with("audit passed") && !l.starts_with('b')),
            "{format}: a name made a line of its own:\n{out}"
        );
        assert!(
            out.contains("t/z\\naudit passed: 1 matched"),
            "{format}:\n{out}"
        );
    }
    // The same when the tree is audited against a store (here file://).
    let store = s.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let url = format!("file://{}/", store.display());
    for format in [None, Some("table")] {
        let mut args = vec!["audit", "t", url.as_str()];
        args.extend(format.iter().flat_map(|f| ["--format", *f]));
        let o = hashlab_in(s.path(), &args);
        let out = text(&o.stdout);
        assert!(
            out.lines()
                .all(|l| !l.starts_with("audit passed") && !l.starts_with('b')),
            "{format:?}: a name made a line of its own:\n{out}"
        );
        assert!(
            out.contains("z\\naudit passed: 1 matched"),
            "{format:?}:\n{out}"
        );
    }
}
