//! The probes against fake runtimes: small shell scripts on a PATH of our
//! own, so the mapping and the disagreement logic are tested whatever is
//! installed here, and absent or hanging runtimes are tested too.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use hashlab::Registry;
use hashlab_judge::ecosystem::{
    parse_cksum_help, parse_dotnet_runtimes, parse_openssl_list, probe, EcosystemReport,
    ProbeOptions, ProbeState, RuntimeProbe,
};
use hashlab_judge::Availability;

fn script(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

const OPENSSL: &str = r#"case "$1 $2" in
  "version "*) echo "OpenSSL 3.9.9 1 Jan 2030 (fake)";;
  "list -digest-algorithms") /bin/cat <<'EOF'
Legacy:
  RSA-SHA256 => SHA256
Provided:
  { 2.16.840.1.101.3.4.2.1, SHA-256, SHA2-256, SHA256 } @ default
  { 1.2.840.113549.2.5, MD5, SSL3-MD5 } @ default
  { 1.3.6.1.4.1.1722.12.2.1.16, BLAKE2B-512, BLAKE2b512 } @ default
  SM3 @ default
EOF
  ;;
  "list -mac-algorithms") printf 'Provided MACs:\n  HMAC @ default\n  { 2.16.840.1.101.3.4.2.19, KMAC-128, KMAC128 } @ default\n';;
  *) exit 1;;
esac"#;

const PYTHON: &str = r#"echo '{"version": "3.99.0", "available": ["md5", "sha256", "sha3_256", "shake_128", "whirlpool"], "modules": {"blake3": true, "xxhash": false}}'"#;

const NODE: &str =
    r#"echo '{"version": "v99.0.0", "hashes": ["sha1", "sha256", "blake2b512", "RSA-SHA256"]}'"#;

const JAVA: &str = r#"echo "version 99 FakeVendor"
echo "service MessageDigest SHA-256 SUN"
echo "service MessageDigest BLAKE2B-512 BC"
echo "service Mac HmacSHA256 SunJCE"
echo "class java.util.zip.CRC32C""#;

const GO: &str = r#"case "$1" in
  version) echo "go version go1.23.0 linux/amd64";;
  list) printf 'crypto/md5\ncrypto/sha256\ncrypto/hmac\nhash/crc32\nfmt\n';;
esac"#;

const DOTNET: &str =
    r#"echo "Microsoft.NETCore.App 6.0.2 [/x]"; echo "Microsoft.NETCore.App 8.0.4 [/x]""#;

const RHASH: &str = r#"printf 'CRC32\nCRC32C\nSHA3-256\nTIGER\n'"#;

fn fake_machine(dir: &Path) {
    script(dir, "openssl", OPENSSL);
    script(dir, "python3", PYTHON);
    script(dir, "node", NODE);
    script(dir, "java", JAVA);
    script(dir, "go", GO);
    script(dir, "dotnet", DOTNET);
    script(dir, "sha256sum", "exit 0");
    script(dir, "b3sum", "exit 0");
    script(dir, "rhash", RHASH);
}

fn run_probe(dir: &Path, timeout: Duration) -> EcosystemReport {
    let options = ProbeOptions {
        path: dir.as_os_str().to_owned(),
        timeout,
    };
    probe(&options, &Registry::default(), &Availability::builtin())
}

fn find<'a>(report: &'a EcosystemReport, ecosystem: &str) -> &'a RuntimeProbe {
    report
        .probes
        .iter()
        .find(|p| p.ecosystem == ecosystem)
        .unwrap()
}

fn offered(p: &RuntimeProbe) -> Vec<&str> {
    let mut names: Vec<&str> = p.offered.iter().map(|o| o.algorithm.as_str()).collect();
    names.sort();
    names
}

/// `fixed` plus the canonical names of those of `maybe` (names a fake tool
/// lists that hashlab may or may not have yet) that the registry knows, sorted:
/// what a probe must map, whatever algorithms have been added since.
fn expected(fixed: &[&str], maybe: &[&str]) -> Vec<String> {
    let registry = Registry::default();
    let mut names: Vec<String> = fixed.iter().map(|n| n.to_string()).collect();
    names.extend(
        maybe
            .iter()
            .filter_map(|n| registry.algorithm(n).ok().map(|a| a.name.clone())),
    );
    names.sort();
    names
}

fn disagrees(report: &EcosystemReport, ecosystem: &str, algorithm: &str) -> bool {
    report
        .disagreements
        .iter()
        .any(|d| d.ecosystem == ecosystem && d.algorithm == algorithm)
}

#[test]
fn fake_runtimes_are_mapped_onto_our_names() {
    let dir = tempfile::tempdir().unwrap();
    fake_machine(dir.path());
    let report = run_probe(dir.path(), Duration::from_secs(20));
    for p in &report.probes {
        assert_eq!(p.state, ProbeState::Found, "{}: {}", p.ecosystem, p.detail);
    }

    let openssl = find(&report, "openssl");
    assert_eq!(
        openssl.version.as_deref(),
        Some("OpenSSL 3.9.9 1 Jan 2030 (fake)")
    );
    assert_eq!(
        offered(openssl),
        expected(
            &["blake2b", "hmac-sha256", "kmac128", "md5", "sha256"],
            &["SM3"]
        )
    );
    assert_eq!(
        openssl.other_names.contains(&"SM3".to_string()),
        Registry::default().algorithm("SM3").is_err(),
        "a listed name is offered or other, never both"
    );
    assert!(
        !openssl.other_names.iter().any(|n| n.starts_with("RSA-")),
        "legacy section read"
    );

    let python = find(&report, "python");
    assert_eq!(
        offered(python),
        expected(
            &[
                "blake3",
                "hmac-sha256",
                "md5",
                "sha256",
                "sha3-256",
                "shake128"
            ],
            &["whirlpool"]
        )
    );
    let blake3 = python
        .offered
        .iter()
        .find(|o| o.algorithm == "blake3")
        .unwrap();
    assert!(!blake3.standard && blake3.via.contains("PyPI blake3"));

    assert_eq!(
        offered(find(&report, "node")),
        ["blake2b", "hmac-sha256", "sha1", "sha256"]
    );

    let java = find(&report, "java");
    assert_eq!(
        offered(java),
        ["blake2b", "crc32c", "hmac-sha256", "sha256"]
    );
    let bc = java
        .offered
        .iter()
        .find(|o| o.algorithm == "blake2b")
        .unwrap();
    assert!(
        !bc.standard,
        "a BouncyCastle service is an extra, not the JDK"
    );

    let go = find(&report, "go");
    assert_eq!(go.version.as_deref(), Some("Go 1.23.0"));
    assert_eq!(
        offered(go),
        ["crc32c", "hmac-sha256", "md5", "sha224", "sha256"]
    );

    let dotnet = find(&report, "dotnet");
    assert!(dotnet.inferred);
    assert_eq!(dotnet.version.as_deref(), Some(".NET 8.0.4"));
    let dn = offered(dotnet);
    assert!(
        dn.contains(&"sha3-256") && !dn.contains(&"kmac128"),
        "{dn:?}"
    );

    let cli = find(&report, "cli");
    assert_eq!(
        offered(cli),
        expected(
            &["blake3", "crc32c", "sha256", "sha3-256"],
            &["CRC32", "TIGER"]
        )
    );
}

#[test]
fn disagreements_with_the_table_are_listed_and_the_probe_wins() {
    let dir = tempfile::tempdir().unwrap();
    fake_machine(dir.path());
    let report = run_probe(dir.path(), Duration::from_secs(20));
    // The table says every one of these ships; the fakes lack them.
    assert!(disagrees(&report, "openssl", "sha1"));
    assert!(disagrees(&report, "python", "sha1"));
    assert!(
        disagrees(&report, "go", "sha3-256"),
        "Go 1.23 predates crypto/sha3"
    );
    assert!(disagrees(&report, "cli", "md5"));
    // Present where the table says so: no disagreement. A package found
    // where the table names one is no disagreement either.
    assert!(!disagrees(&report, "openssl", "sha256"));
    assert!(!disagrees(&report, "python", "blake3"));
    assert!(!disagrees(&report, "java", "blake2b"));
    // Inferred answers cannot disagree.
    assert!(!report.disagreements.iter().any(|d| d.ecosystem == "dotnet"));

    let answer = |eco: &str, alg: &str| {
        report
            .answers
            .iter()
            .find(|a| a.ecosystem == eco && a.algorithm == alg)
            .unwrap()
            .clone()
    };
    let sha1 = answer("openssl", "sha1");
    assert_eq!((sha1.here, sha1.from.as_str()), (Some(false), "probe"));
    assert_eq!(answer("dotnet", "kmac128").from, "inferred");
}

#[test]
fn a_runtime_missing_from_path_is_absent_with_a_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "python3", PYTHON);
    let report = run_probe(dir.path(), Duration::from_secs(20));
    assert_eq!(find(&report, "python").state, ProbeState::Found);
    for (eco, line) in [
        ("openssl", "openssl is not on PATH"),
        ("node", "node is not on PATH"),
        ("java", "java is not on PATH"),
        ("go", "go is not on PATH"),
        ("dotnet", "dotnet is not on PATH"),
        ("cli", "none of the *sum tools, cksum or rhash is on PATH"),
    ] {
        let p = find(&report, eco);
        assert_eq!(p.state, ProbeState::Absent, "{eco}");
        assert_eq!(p.detail, line);
        assert!(p.offered.is_empty());
    }
    // Absent runtimes answer from the table and raise no disagreement.
    let node_sha256 = report
        .answers
        .iter()
        .find(|a| a.ecosystem == "node" && a.algorithm == "sha256")
        .unwrap();
    assert_eq!(
        (node_sha256.here, node_sha256.from.as_str()),
        (None, "table")
    );
    assert!(report.disagreements.iter().all(|d| d.ecosystem == "python"));
}

#[test]
fn a_hanging_runtime_times_out_and_a_failing_one_says_why() {
    let dir = tempfile::tempdir().unwrap();
    // The script's child must die with it, or our pipes would stay open.
    script(dir.path(), "node", "/bin/sleep 30");
    script(
        dir.path(),
        "python3",
        "echo 'Fatal Python error: fake' >&2; exit 3",
    );
    let start = Instant::now();
    let report = run_probe(dir.path(), Duration::from_millis(300));
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    let node = find(&report, "node");
    assert_eq!(node.state, ProbeState::TimedOut);
    assert!(
        node.detail.contains("no answer within 0.3 s"),
        "{}",
        node.detail
    );
    let python = find(&report, "python");
    assert_eq!(python.state, ProbeState::Failed);
    assert!(
        python.detail.contains("exit 3: Fatal Python error: fake"),
        "{}",
        python.detail
    );
}

#[test]
fn openssl_1_1_and_3_lists_parse() {
    let v11 = "SHA256\nRSA-SHA256 => SHA256\nsha512-256WithRSAEncryption => SHA512-256\n";
    let names = parse_openssl_list(v11);
    assert!(names.contains(&"SHA256".to_string()) && names.contains(&"SHA512-256".to_string()));
    let v3 = "Legacy:\n  MD5\nProvided:\n  { 2.16.840.1.101.3.4.2.8, SHA3-256 } @ default\n";
    assert_eq!(parse_openssl_list(v3), ["SHA3-256"]);
}

#[test]
fn cksum_and_dotnet_outputs_parse() {
    let help = "Usage: cksum\n\nDIGEST determines the digest algorithm and default output format:\n  sysv      (equivalent to sum -s)\n  sha256    (equivalent to sha256sum)\n  blake2b   (equivalent to b2sum)\n\nWhen checking, ...\n";
    assert_eq!(parse_cksum_help(help), ["sysv", "sha256", "blake2b"]);
    let runtimes = "Microsoft.AspNetCore.App 9.0.1 [/a]\nMicrosoft.NETCore.App 8.0.4 [/x]\nMicrosoft.NETCore.App 9.0.1 [/x]\n";
    assert_eq!(
        parse_dotnet_runtimes(runtimes),
        Some((9, "9.0.1".to_string()))
    );
    assert_eq!(parse_dotnet_runtimes("garbage"), None);
}
