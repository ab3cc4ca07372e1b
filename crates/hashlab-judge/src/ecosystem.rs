//! Live probes of this machine: which of our algorithms each installed runtime
//! and tool really offers, set against the static table.
//!
//! Every probe runs a program found on the given PATH, with a deadline, and
//! maps the names it prints onto registry names. A runtime that is not on the
//! PATH is reported absent, one that hangs is reported timed out; nothing here
//! prints. A probe's answer beats the table for this machine, and where the
//! two disagree the disagreement is listed.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::time::Duration;

use hashlab::Registry;
use serde::{Deserialize, Serialize};

use crate::availability::{Availability, Offer};
use crate::run::{Output, RunError, Runner};

/// How to probe.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// The PATH runtimes are looked up in (and run with).
    pub path: OsString,
    /// Deadline for one command; a Java probe gets three times as long,
    /// since it starts a JVM and compiles its source first.
    pub timeout: Duration,
}

/// One of our algorithms, as a probe found it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Offered {
    pub algorithm: String,
    /// The name or tool that offers it here ("hashlib sha3_256", "b3sum").
    pub via: String,
    /// From the standard library or default install (as opposed to an
    /// extra package that happens to be installed).
    pub standard: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeState {
    Found,
    /// Not on the PATH.
    Absent,
    TimedOut,
    /// Ran but failed, or printed nothing we could read.
    Failed,
}

/// What one probe found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeProbe {
    pub ecosystem: String,
    /// The program asked ("python3"), or a description for the tool scan.
    pub runtime: String,
    pub state: ProbeState,
    /// One line for people: what was found, or why nothing was.
    pub detail: String,
    pub version: Option<String>,
    pub path: Option<String>,
    /// What the probe asked the runtime.
    pub method: String,
    pub offered: Vec<Offered>,
    /// Names the runtime offers that are not hashlab algorithms.
    pub other_names: Vec<String>,
    /// The offer was inferred from the version, not observed (then it
    /// cannot disagree with the table).
    pub inferred: bool,
}

impl RuntimeProbe {
    fn new(ecosystem: &str, runtime: &str, method: &str) -> RuntimeProbe {
        RuntimeProbe {
            ecosystem: ecosystem.into(),
            runtime: runtime.into(),
            state: ProbeState::Found,
            detail: String::new(),
            version: None,
            path: None,
            method: method.into(),
            offered: Vec::new(),
            other_names: Vec::new(),
            inferred: false,
        }
    }

    fn absent(mut self, why: String) -> RuntimeProbe {
        self.state = ProbeState::Absent;
        self.detail = why;
        self
    }

    fn failed(mut self, error: RunError, what: &str) -> RuntimeProbe {
        self.state = match error {
            RunError::TimedOut(_) => ProbeState::TimedOut,
            RunError::CannotStart(_) => ProbeState::Failed,
        };
        self.detail = format!("{what}: {error}");
        self
    }

    fn unreadable(mut self, what: &str, output: &Output) -> RuntimeProbe {
        self.state = ProbeState::Failed;
        let code = output
            .code
            .map_or_else(|| "killed by a signal".to_string(), |c| format!("exit {c}"));
        let said = first_line(&output.stderr).unwrap_or_else(|| "no output we could read".into());
        self.detail = format!("{what}: {code}: {said}");
        self
    }

    /// Adds an offer unless the algorithm is already offered (the first way wins).
    fn offer(&mut self, algorithm: &str, via: String, standard: bool) {
        if !self.offered.iter().any(|o| o.algorithm == algorithm) {
            self.offered.push(Offered {
                algorithm: algorithm.into(),
                via,
                standard,
            });
        }
    }

    fn offers(&self, algorithm: &str) -> Option<&Offered> {
        self.offered.iter().find(|o| o.algorithm == algorithm)
    }

    fn finish(mut self) -> RuntimeProbe {
        self.other_names.sort();
        self.other_names.dedup();
        if self.detail.is_empty() {
            let version = self
                .version
                .clone()
                .unwrap_or_else(|| "version unknown".into());
            self.detail = match &self.path {
                Some(p) => format!("{version} at {p}"),
                None => version,
            };
        }
        self
    }
}

/// A probe and the table disagreeing about one algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    pub ecosystem: String,
    pub algorithm: String,
    /// What the table says ("ships", "package blake3").
    pub table: String,
    /// What the probe found ("offered here by hashlib sha512_256", "not offered here").
    pub probe: String,
}

/// One cell of the answer: the probe's if the runtime was probed, else the table's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub ecosystem: String,
    pub algorithm: String,
    pub table: Offer,
    /// `None` when the runtime is absent or its probe failed.
    pub here: Option<bool>,
    pub via: Option<String>,
    /// "probe", "inferred" or "table".
    pub from: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EcosystemReport {
    pub probes: Vec<RuntimeProbe>,
    pub answers: Vec<Answer>,
    pub disagreements: Vec<Disagreement>,
}

/// Probes every runtime, in parallel, and compares the answers with the table.
pub fn probe(options: &ProbeOptions, registry: &Registry, table: &Availability) -> EcosystemReport {
    let runner = Runner {
        path: options.path.clone(),
        timeout: options.timeout,
    };
    let probes: Vec<RuntimeProbe> = std::thread::scope(|scope| {
        let runner = &runner;
        let handles = vec![
            scope.spawn(move || probe_openssl(runner, registry)),
            scope.spawn(move || probe_python(runner, registry)),
            scope.spawn(move || probe_node(runner, registry)),
            scope.spawn(move || probe_java(runner, registry)),
            scope.spawn(move || probe_go(runner)),
            scope.spawn(move || probe_dotnet(runner, table)),
            scope.spawn(move || probe_cli(runner, registry)),
        ];
        handles
            .into_iter()
            .map(|h| h.join().expect("a probe thread panicked"))
            .collect()
    });
    compare(probes, registry, table)
}

/// Sets probes against the table: the answers, and where they disagree.
pub fn compare(
    probes: Vec<RuntimeProbe>,
    registry: &Registry,
    table: &Availability,
) -> EcosystemReport {
    let mut answers = Vec::new();
    let mut disagreements = Vec::new();
    for probe in &probes {
        for alg in registry.algorithms() {
            let Some(entry) = table.entry(&probe.ecosystem, &alg.name, registry) else {
                continue;
            };
            let found = probe.state == ProbeState::Found;
            let offered = probe.offers(&alg.name);
            answers.push(Answer {
                ecosystem: probe.ecosystem.clone(),
                algorithm: alg.name.clone(),
                table: entry.offer,
                here: found.then_some(offered.is_some()),
                via: offered.map(|o| o.via.clone()),
                from: match (found, probe.inferred) {
                    (false, _) => "table",
                    (true, true) => "inferred",
                    (true, false) => "probe",
                }
                .into(),
            });
            if !found || probe.inferred {
                continue;
            }
            let table_ships = entry.offer == Offer::Ships;
            let probe_ships = offered.is_some_and(|o| o.standard);
            let unknown_package = entry.offer == Offer::Absent && offered.is_some();
            if table_ships != probe_ships || unknown_package {
                disagreements.push(Disagreement {
                    ecosystem: probe.ecosystem.clone(),
                    algorithm: alg.name.clone(),
                    table: entry.describe(),
                    probe: match offered {
                        Some(o) if o.standard => format!("offered here by {}", o.via),
                        Some(o) => format!("offered here only by {} (an installed extra)", o.via),
                        None => "not offered here".into(),
                    },
                });
            }
        }
    }
    EcosystemReport {
        probes,
        answers,
        disagreements,
    }
}

fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// Our canonical name for a runtime's name, if it is one of ours.
fn ours(registry: &Registry, name: &str) -> Option<String> {
    registry.algorithm(name).ok().map(|a| a.name.clone())
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn run_args(
    runner: &Runner,
    program: &Path,
    args: &[OsString],
    timeout: Duration,
) -> Result<Output, RunError> {
    let refs: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
    runner.run(program, &refs, timeout)
}

// ------------------------------------------------------------------ OpenSSL

/// Names in `openssl list -digest-algorithms` / `-mac-algorithms` output:
/// OpenSSL 3 "{ oid, NAME, ALIAS } @ provider" lines, and the 1.1 "A => B" form.
/// When the output has a "Provided" section (OpenSSL 3), only that section is
/// read: the legacy section above it repeats the names with RSA aliases.
pub fn parse_openssl_list(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("Provided"))
        .map_or(0, |i| i + 1);
    let mut names = Vec::new();
    for &line in &lines[start..] {
        if line.is_empty() || line.ends_with(':') {
            continue;
        }
        let body = line.split(" @ ").next().unwrap_or(line);
        let body = body.trim_matches(|c| c == '{' || c == '}' || c == ' ');
        for part in body
            .split([',', '='])
            .map(|p| p.trim_matches(|c| c == '>' || c == ' '))
        {
            let is_oid =
                part.chars().next().is_some_and(|c| c.is_ascii_digit()) && part.contains('.');
            if !part.is_empty() && !is_oid {
                names.push(part.to_string());
            }
        }
    }
    names
}

fn probe_openssl(runner: &Runner, registry: &Registry) -> RuntimeProbe {
    let mut p = RuntimeProbe::new(
        "openssl",
        "openssl",
        "openssl version; openssl list -digest-algorithms; openssl list -mac-algorithms",
    );
    let Some(exe) = runner.find("openssl") else {
        return p.absent("openssl is not on PATH".into());
    };
    p.path = Some(exe.display().to_string());
    let version = match run_args(runner, &exe, &os(&["version"]), runner.timeout) {
        Ok(out) if out.success() => first_line(&out.stdout),
        Ok(out) => return p.unreadable("openssl version", &out),
        Err(e) => return p.failed(e, "openssl version"),
    };
    p.version = version.clone();
    let digests = match run_args(
        runner,
        &exe,
        &os(&["list", "-digest-algorithms"]),
        runner.timeout,
    ) {
        Ok(out) if out.success() => parse_openssl_list(&out.stdout),
        Ok(out) => return p.unreadable("openssl list -digest-algorithms", &out),
        Err(e) => return p.failed(e, "openssl list -digest-algorithms"),
    };
    // OpenSSL 1.1 has no MAC list; a failure here only means fewer MACs found.
    let macs = match run_args(
        runner,
        &exe,
        &os(&["list", "-mac-algorithms"]),
        runner.timeout,
    ) {
        Ok(out) if out.success() => parse_openssl_list(&out.stdout),
        _ => Vec::new(),
    };
    for name in &digests {
        match ours(registry, name) {
            Some(alg) => p.offer(&alg, format!("digest {name}"), true),
            None => p.other_names.push(name.clone()),
        }
    }
    let has_mac = |wanted: &str| macs.iter().any(|m| m.eq_ignore_ascii_case(wanted));
    if has_mac("HMAC") {
        for (digest, mac) in [("sha256", "hmac-sha256"), ("sha512", "hmac-sha512")] {
            if p.offers(digest).is_some() {
                p.offer(
                    mac,
                    format!("EVP_MAC HMAC over {}", digest.to_uppercase()),
                    true,
                );
            }
        }
    }
    if has_mac("SIPHASH") {
        p.offer("siphash-2-4", "EVP_MAC SIPHASH".into(), true);
        // c-rounds/d-rounds parameters exist from OpenSSL 3.0 on.
        if version
            .as_deref()
            .is_some_and(|v| v.starts_with("OpenSSL 3"))
        {
            p.offer(
                "siphash-1-3",
                "EVP_MAC SIPHASH (c-rounds=1, d-rounds=3)".into(),
                true,
            );
        }
    }
    for (mac, ours_name) in [("KMAC-128", "kmac128"), ("KMAC-256", "kmac256")] {
        if has_mac(mac) {
            p.offer(ours_name, format!("EVP_MAC {mac}"), true);
        }
    }
    p.finish()
}

// ------------------------------------------------------------------ Python

/// Importable modules that bring our algorithms: (module, package, algorithms).
const PYTHON_MODULES: &[(&str, &str, &[&str])] = &[
    ("blake3", "blake3", &["blake3"]),
    (
        "xxhash",
        "xxhash",
        &["xxh32", "xxh64", "xxh3-64", "xxh3-128"],
    ),
    ("crc32c", "crc32c", &["crc32c"]),
    ("siphashc", "siphashc", &["siphash-2-4"]),
    ("Crypto.Hash.KangarooTwelve", "pycryptodome", &["k12"]),
    (
        "Crypto.Hash.TurboSHAKE128",
        "pycryptodome",
        &["turboshake128"],
    ),
    (
        "Crypto.Hash.TurboSHAKE256",
        "pycryptodome",
        &["turboshake256"],
    ),
    ("Crypto.Hash.KMAC128", "pycryptodome", &["kmac128"]),
    ("Crypto.Hash.KMAC256", "pycryptodome", &["kmac256"]),
    ("Crypto.Hash.cSHAKE128", "pycryptodome", &["cshake128"]),
    ("Crypto.Hash.cSHAKE256", "pycryptodome", &["cshake256"]),
    (
        "Crypto.Hash.TupleHash128",
        "pycryptodome",
        &["tuplehash128"],
    ),
    (
        "Crypto.Hash.TupleHash256",
        "pycryptodome",
        &["tuplehash256"],
    ),
];

const PYTHON_PROBE: &str = r#"
import hashlib, importlib.util, json, sys
def present(module):
    try:
        return importlib.util.find_spec(module) is not None
    except Exception:
        return False
print(json.dumps({
    "version": sys.version.split()[0],
    "available": sorted(hashlib.algorithms_available),
    "modules": {m: present(m) for m in sys.argv[1:]},
}))
"#;

#[derive(Deserialize)]
struct PythonAnswer {
    version: String,
    available: Vec<String>,
    modules: std::collections::BTreeMap<String, bool>,
}

fn probe_python(runner: &Runner, registry: &Registry) -> RuntimeProbe {
    let mut p = RuntimeProbe::new(
        "python",
        "python3",
        "hashlib.algorithms_available; importlib.util.find_spec for PyPI modules",
    );
    let Some(exe) = runner.find("python3") else {
        return p.absent("python3 is not on PATH".into());
    };
    p.path = Some(exe.display().to_string());
    let mut args = os(&["-c", PYTHON_PROBE]);
    args.extend(PYTHON_MODULES.iter().map(|(m, _, _)| OsString::from(m)));
    let out = match run_args(runner, &exe, &args, runner.timeout) {
        Ok(out) => out,
        Err(e) => return p.failed(e, "python3"),
    };
    let answer: PythonAnswer = match serde_json::from_str(out.stdout.trim()) {
        Ok(a) if out.success() => a,
        _ => return p.unreadable("python3", &out),
    };
    p.version = Some(format!("Python {}", answer.version));
    for name in &answer.available {
        match ours(registry, name) {
            Some(alg) => p.offer(&alg, format!("hashlib {name}"), true),
            None => p.other_names.push(name.clone()),
        }
    }
    for (digest, mac) in [("sha256", "hmac-sha256"), ("sha512", "hmac-sha512")] {
        if p.offers(digest).is_some() {
            p.offer(mac, format!("hmac with hashlib {digest}"), true);
        }
    }
    for (module, package, algorithms) in PYTHON_MODULES {
        if answer.modules.get(*module) == Some(&true) {
            for alg in *algorithms {
                p.offer(alg, format!("PyPI {package} ({module}, installed)"), false);
            }
        }
    }
    p.finish()
}

// ------------------------------------------------------------------ Node.js

const NODE_PROBE: &str =
    "const c = require('crypto'); console.log(JSON.stringify({version: process.version, hashes: c.getHashes()}));";

#[derive(Deserialize)]
struct NodeAnswer {
    version: String,
    hashes: Vec<String>,
}

fn probe_node(runner: &Runner, registry: &Registry) -> RuntimeProbe {
    let mut p = RuntimeProbe::new("node", "node", "crypto.getHashes()");
    let Some(exe) = runner.find("node") else {
        return p.absent("node is not on PATH".into());
    };
    p.path = Some(exe.display().to_string());
    let out = match run_args(runner, &exe, &os(&["-e", NODE_PROBE]), runner.timeout) {
        Ok(out) => out,
        Err(e) => return p.failed(e, "node"),
    };
    let answer: NodeAnswer = match serde_json::from_str(out.stdout.trim()) {
        Ok(a) if out.success() => a,
        _ => return p.unreadable("node", &out),
    };
    p.version = Some(format!("Node.js {}", answer.version));
    for name in &answer.hashes {
        match ours(registry, name) {
            Some(alg) => p.offer(&alg, format!("crypto.createHash('{name}')"), true),
            None => p.other_names.push(name.clone()),
        }
    }
    for (digest, mac) in [("sha256", "hmac-sha256"), ("sha512", "hmac-sha512")] {
        if p.offers(digest).is_some() {
            p.offer(mac, format!("crypto.createHmac('{digest}')"), true);
        }
    }
    p.finish()
}

// ------------------------------------------------------------------ Java

const JAVA_PROBE: &str = r#"
import java.security.Provider;
import java.security.Security;

public class Probe {
    public static void main(String[] args) {
        System.out.println("version " + System.getProperty("java.version") + " " + System.getProperty("java.vendor"));
        for (Provider p : Security.getProviders()) {
            for (Provider.Service s : p.getServices()) {
                if (s.getType().equals("MessageDigest") || s.getType().equals("Mac")) {
                    System.out.println("service " + s.getType() + " " + s.getAlgorithm() + " " + p.getName());
                }
            }
        }
        for (String c : args) {
            try {
                Class.forName(c);
                System.out.println("class " + c);
            } catch (Throwable t) {
            }
        }
    }
}
"#;

/// Classes outside the JCA that offer our algorithms.
const JAVA_CLASSES: &[(&str, &str)] = &[("java.util.zip.CRC32C", "crc32c")];

/// Providers that come with the JDK; any other (BouncyCastle, ...) was added.
fn jdk_provider(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("sun")
        || lower.starts_with("jdk")
        || lower.starts_with("apple")
        || lower == "xmldsig"
}

fn probe_java(runner: &Runner, registry: &Registry) -> RuntimeProbe {
    let mut p = RuntimeProbe::new(
        "java",
        "java",
        "java Probe.java: Security providers' MessageDigest and Mac services; Class.forName for java.util.zip.CRC32C",
    );
    let Some(exe) = runner.find("java") else {
        return p.absent("java is not on PATH".into());
    };
    p.path = Some(exe.display().to_string());
    let dir = match tempfile::Builder::new()
        .prefix("hashlab-java-probe")
        .tempdir()
    {
        Ok(d) => d,
        Err(e) => return p.failed(RunError::CannotStart(e.to_string()), "temporary directory"),
    };
    let source = dir.path().join("Probe.java");
    if let Err(e) = std::fs::write(&source, JAVA_PROBE) {
        return p.failed(RunError::CannotStart(e.to_string()), "writing Probe.java");
    }
    let mut args = vec![source.into_os_string()];
    args.extend(JAVA_CLASSES.iter().map(|(c, _)| OsString::from(c)));
    let out = match run_args(runner, &exe, &args, runner.timeout * 3) {
        Ok(out) => out,
        Err(e) => return p.failed(e, "java Probe.java"),
    };
    if !out.success() || !out.stdout.starts_with("version ") {
        return p.unreadable("java Probe.java", &out);
    }
    for line in out.stdout.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            ["version", rest @ ..] => p.version = Some(format!("Java {}", rest.join(" "))),
            ["service", kind, name, provider] => match ours(registry, name) {
                Some(alg) => p.offer(
                    &alg,
                    format!("{kind} {name} ({provider})"),
                    jdk_provider(provider),
                ),
                None => p.other_names.push(format!("{kind} {name}")),
            },
            ["class", class] => {
                if let Some((_, alg)) = JAVA_CLASSES.iter().find(|(c, _)| c == class) {
                    p.offer(alg, (*class).to_string(), true);
                }
            }
            _ => {}
        }
    }
    p.finish()
}

// ------------------------------------------------------------------ Go

/// Standard-library packages and the algorithms they implement.
const GO_PACKAGES: &[(&str, &[&str])] = &[
    ("crypto/md5", &["md5"]),
    ("crypto/sha1", &["sha1"]),
    ("crypto/sha256", &["sha224", "sha256"]),
    (
        "crypto/sha512",
        &["sha384", "sha512", "sha512-224", "sha512-256"],
    ),
    (
        "crypto/sha3",
        &[
            "sha3-224", "sha3-256", "sha3-384", "sha3-512", "shake128", "shake256",
        ],
    ),
    ("hash/crc32", &["crc32c"]),
];

/// The HMACs `crypto/hmac` makes of the digests above: (digest, HMAC).
const GO_HMACS: [(&str, &str); 2] = [("sha256", "hmac-sha256"), ("sha512", "hmac-sha512")];

fn probe_go(runner: &Runner) -> RuntimeProbe {
    let mut p = RuntimeProbe::new("go", "go", "go version; go list std");
    let Some(exe) = runner.find("go") else {
        return p.absent("go is not on PATH".into());
    };
    p.path = Some(exe.display().to_string());
    match run_args(runner, &exe, &os(&["version"]), runner.timeout) {
        Ok(out) if out.success() => {
            // "go version go1.26.8 linux/amd64"
            p.version = out
                .stdout
                .split_whitespace()
                .find_map(|w| w.strip_prefix("go1").map(|rest| format!("Go 1{rest}")));
        }
        Ok(out) => return p.unreadable("go version", &out),
        Err(e) => return p.failed(e, "go version"),
    }
    let packages: BTreeSet<String> =
        match run_args(runner, &exe, &os(&["list", "std"]), runner.timeout) {
            Ok(out) if out.success() => out.stdout.lines().map(|l| l.trim().to_string()).collect(),
            Ok(out) => return p.unreadable("go list std", &out),
            Err(e) => return p.failed(e, "go list std"),
        };
    for (package, algorithms) in GO_PACKAGES {
        if packages.contains(*package) {
            for alg in *algorithms {
                p.offer(alg, (*package).to_string(), true);
            }
        }
    }
    if packages.contains("crypto/hmac") {
        for (digest, mac) in GO_HMACS {
            if p.offers(digest).is_some() {
                p.offer(mac, format!("crypto/hmac with crypto/{digest}"), true);
            }
        }
    }
    p.finish()
}

// ------------------------------------------------------------------ .NET

/// The highest major version in `dotnet --list-runtimes` output
/// ("Microsoft.NETCore.App 8.0.11 [/usr/share/dotnet/...]").
pub fn parse_dotnet_runtimes(text: &str) -> Option<(u32, String)> {
    text.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            (words.next()? == "Microsoft.NETCore.App").then_some(())?;
            let version = words.next()?;
            let major = version.split('.').next()?.parse::<u32>().ok()?;
            Some((major, version.to_string()))
        })
        .max_by_key(|(major, _)| *major)
}

fn version_at_least(have: u32, since: &str) -> bool {
    since
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
        .is_none_or(|m| have >= m)
}

fn probe_dotnet(runner: &Runner, table: &Availability) -> RuntimeProbe {
    let mut p = RuntimeProbe::new(
        "dotnet",
        "dotnet",
        "dotnet --list-runtimes; classes by .NET version",
    );
    let Some(exe) = runner.find("dotnet") else {
        return p.absent("dotnet is not on PATH".into());
    };
    p.path = Some(exe.display().to_string());
    let out = match run_args(runner, &exe, &os(&["--list-runtimes"]), runner.timeout) {
        Ok(out) => out,
        Err(e) => return p.failed(e, "dotnet --list-runtimes"),
    };
    let Some((major, version)) = parse_dotnet_runtimes(&out.stdout).filter(|_| out.success())
    else {
        return p.unreadable("dotnet --list-runtimes", &out);
    };
    p.version = Some(format!(".NET {version}"));
    p.inferred = true;
    if let Some(eco) = table.ecosystem("dotnet") {
        for alg in &eco.ships {
            if eco
                .since
                .get(alg)
                .is_none_or(|s| version_at_least(major, s))
            {
                p.offer(alg, format!(".NET {major} (from the table)"), true);
            }
        }
    }
    p.detail = format!(
        ".NET {version} at {}: algorithms inferred from the version (probing the classes needs a compiled program)",
        exe.display()
    );
    p.finish()
}

// ------------------------------------------------------------------ command-line tools

/// Tools whose names say what they compute: (tool, algorithms, package or
/// `None` for coreutils).
const CLI_TOOLS: &[(&str, &[&str], Option<&str>)] = &[
    ("md5sum", &["md5"], None),
    ("sha1sum", &["sha1"], None),
    ("sha224sum", &["sha224"], None),
    ("sha256sum", &["sha256"], None),
    ("sha384sum", &["sha384"], None),
    ("sha512sum", &["sha512"], None),
    ("b2sum", &["blake2b"], None),
    ("b3sum", &["blake3"], Some("b3sum")),
    (
        "xxhsum",
        &["xxh32", "xxh64", "xxh3-128", "xxh3-64"],
        Some("xxhash"),
    ),
    ("xxh32sum", &["xxh32"], Some("xxhash")),
    ("xxh64sum", &["xxh64"], Some("xxhash")),
    ("xxh128sum", &["xxh3-128"], Some("xxhash")),
    ("xxh3sum", &["xxh3-64"], Some("xxhash")),
    (
        "shasum",
        &[
            "sha1",
            "sha224",
            "sha256",
            "sha384",
            "sha512",
            "sha512-224",
            "sha512-256",
        ],
        Some("perl"),
    ),
];

/// The digest names `cksum --help` lists under "DIGEST determines ...".
pub fn parse_cksum_help(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("DIGEST determines") {
            inside = true;
            continue;
        }
        if inside {
            let trimmed = line.trim();
            if trimmed.is_empty() || !line.starts_with(' ') {
                break;
            }
            if let Some(name) = trimmed.split_whitespace().next() {
                names.push(name.to_string());
            }
        }
    }
    names
}

fn probe_cli(runner: &Runner, registry: &Registry) -> RuntimeProbe {
    let mut p = RuntimeProbe::new(
        "cli",
        "*sum tools",
        "coreutils and peer tools on PATH; cksum --help; rhash --list-hashes",
    );
    let mut found = Vec::new();
    for (tool, algorithms, package) in CLI_TOOLS {
        if runner.find(tool).is_some() {
            found.push(*tool);
            for alg in *algorithms {
                let via = match package {
                    None => format!("{tool} (coreutils)"),
                    Some(pkg) => format!("{tool} (package {pkg})"),
                };
                p.offer(alg, via, package.is_none());
            }
        }
    }
    if let Some(cksum) = runner.find("cksum") {
        found.push("cksum");
        if let Ok(out) = run_args(runner, &cksum, &os(&["--help"]), runner.timeout) {
            for name in parse_cksum_help(&out.stdout) {
                match ours(registry, &name) {
                    Some(alg) => p.offer(&alg, format!("cksum -a {name} (coreutils)"), true),
                    None => p.other_names.push(format!("cksum -a {name}")),
                }
            }
        }
    }
    if let Some(rhash) = runner.find("rhash") {
        found.push("rhash");
        if let Ok(out) = run_args(runner, &rhash, &os(&["--list-hashes"]), runner.timeout) {
            for name in out.stdout.lines().map(str::trim).filter(|l| !l.is_empty()) {
                match ours(registry, name) {
                    Some(alg) => p.offer(
                        &alg,
                        format!("rhash --{} (package rhash)", name.to_lowercase()),
                        false,
                    ),
                    None => p.other_names.push(format!("rhash {name}")),
                }
            }
        }
    }
    if found.is_empty() {
        return p.absent("none of the *sum tools, cksum or rhash is on PATH".into());
    }
    p.detail = format!("found {}", found.join(", "));
    p.finish()
}

// ------------------------------------------------------------------ what the fixed tables cover

/// Algorithms the table gives a Python package for that no probe imports, and why.
pub const PYTHON_UNPROBED: &[(&str, &str)] = &[
    (
        "highwayhash-64",
        "the module name of its PyPI binding is not verified",
    ),
    (
        "highwayhash-128",
        "the module name of its PyPI binding is not verified",
    ),
    (
        "highwayhash-256",
        "the module name of its PyPI binding is not verified",
    ),
];

/// What the probes that look algorithms up in a fixed table of their own can
/// find: for `go`, the standard-library packages (`GO_PACKAGES`) and the
/// HMACs `crypto/hmac` makes of them; for `python`, the PyPI modules
/// (`PYTHON_MODULES`). `None` for the other ecosystems, whose probes read
/// what the runtime lists (hashlib, OpenSSL, Node, Java's providers, `cksum`)
/// or, for .NET, the table itself.
pub fn fixed_probe_table(ecosystem: &str) -> Option<Vec<&'static str>> {
    match ecosystem {
        "go" => Some(
            GO_PACKAGES
                .iter()
                .flat_map(|(_, algorithms)| algorithms.iter().copied())
                .chain(GO_HMACS.iter().map(|(_, mac)| *mac))
                .collect(),
        ),
        "python" => Some(
            PYTHON_MODULES
                .iter()
                .flat_map(|(_, _, algorithms)| algorithms.iter().copied())
                .collect(),
        ),
        _ => None,
    }
}
