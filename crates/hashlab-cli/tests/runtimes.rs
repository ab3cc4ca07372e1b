//! `hashlab bench --runtime`: each runtime's harness built, checked against
//! hashlab's digests and timed beside the Rust backends; and what becomes of
//! a runtime that is missing, wrong or hung.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{text, Scratch};
use serde_json::Value;

use hashlab_testkit::{skip, under_ci};

/// Harnesses are built once per source and toolchain, in a cache under the
/// target directory that outlives one test run.
fn cache_home() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runtime-cache")
}

/// The Python test environment of scripts/test-python (with the blake3 and
/// xxhash packages), when it has been made.
fn python_venv_bin() -> Option<PathBuf> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/python-venv/bin")
        .canonicalize()
        .ok()?;
    bin.join("python3").is_file().then_some(bin)
}

fn bench(dir: &Path, path: &OsString, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(dir)
        .env("PATH", path)
        .env("XDG_CACHE_HOME", cache_home())
        .arg("bench")
        .args(args)
        .output()
        .expect("run hashlab")
}

/// A short run at 64 bytes of `algorithms` with `runtimes`, plus `more`.
fn quick(dir: &Path, path: &OsString, runtimes: &str, algorithms: &str, more: &[&str]) -> Output {
    let mut args = vec![
        "--runtime",
        runtimes,
        "-a",
        algorithms,
        "--sizes",
        "64",
        "--quick",
        "--max-time",
        "1",
    ];
    args.extend_from_slice(more);
    bench(dir, path, &args)
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("bench --json prints JSON")
}

fn runtime<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["runtimes"]
        .as_array()
        .expect("runtimes listed")
        .iter()
        .find(|r| r["runtime"] == name)
        .unwrap_or_else(|| panic!("{name} is not in the report's runtimes"))
}

/// The backends of `runtime`'s measured single-thread rows of `algorithm`.
fn rows(report: &Value, runtime_name: &str, algorithm: &str) -> Vec<String> {
    let prefix = format!("{runtime_name} ");
    report["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["algorithm"] == algorithm
                && c["backend"].as_str().unwrap().starts_with(&prefix)
                && c["mode"]["kind"] == "streams"
                && c["throughput"]["mb_per_s"]
                    .as_f64()
                    .is_some_and(|v| v > 0.0)
        })
        .map(|c| c["backend"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_runtime_builds_checks_its_digests_and_is_timed_beside_rust() {
    let scratch = Scratch::new("runtimes-all");
    // The test venv first, for Python's blake3 and xxhash packages.
    let mut dirs: Vec<PathBuf> = python_venv_bin().into_iter().collect();
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(dirs).unwrap();
    let out = bench(
        scratch.path(),
        &path,
        &[
            "--runtime",
            "all",
            "-a",
            "sha256,sha512,sha3-256,md5,sha1,blake2b,blake3",
            "--sizes",
            "64,16K",
            "--quick",
            "--max-time",
            "3",
            "--json",
        ],
    );
    let report = json(&out);
    std::fs::write(scratch.path().join("runtimes.json"), &out.stdout).unwrap();
    let required = ["sha256", "sha512", "sha3-256", "md5", "sha1"];
    for name in ["go", "python", "node", "java", "c"] {
        let status = runtime(&report, name);
        if status["state"] != "measured" {
            skip(&format!("runtime {name} was not measured: {status}"));
            continue;
        }
        for alg in required {
            assert!(
                !rows(&report, name, alg).is_empty(),
                "{name} has no {alg} row: {status}"
            );
        }
        // The harness's own cost per message, as the null hasher's row.
        let null = status["overhead_backend"].as_str().unwrap().to_string();
        assert!(
            report["cells"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["algorithm"] == "null" && c["backend"] == null.as_str()),
            "{name}: no overhead row {null}"
        );
        // Every row carries its raw samples, as the Rust rows do.
        for c in report["cells"].as_array().unwrap() {
            if c["backend"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{name} "))
            {
                assert!(!c["samples"].as_array().unwrap().is_empty());
            }
        }
    }
    // Where the runtime's usual libraries have them (Go's modules from the
    // module proxy, Java's BouncyCastle from scripts/setup, the venv's blake3).
    let wanted: &[(&str, &str, &str)] = &[
        ("go", "blake2b", "go golang.org/x/crypto/blake2b"),
        ("go", "blake3", "go lukechampine.com/blake3"),
        ("go", "blake3", "go github.com/zeebo/blake3"),
        ("python", "blake2b", "python hashlib"),
        ("node", "blake2b", "node crypto"),
        ("java", "blake2b", "java BouncyCastle"),
        ("java", "blake3", "java BouncyCastle"),
        ("c", "blake2b", "c libgcrypt"),
    ];
    for (name, alg, library) in wanted {
        if runtime(&report, name)["state"] != "measured" {
            continue;
        }
        let found = rows(&report, name, alg);
        assert!(
            found.iter().any(|b| b == library) || !under_ci(),
            "{library} has no {alg} row: {found:?}; {}",
            runtime(&report, name)
        );
    }
    if python_venv_bin().is_some() {
        assert!(rows(&report, "python", "blake3").contains(&"python blake3".to_string()));
    }
    // The Rust rows are there too, measured in the same rounds.
    assert!(report["cells"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["algorithm"] == "sha256" && c["backend"].as_str().unwrap().find(' ').is_none()));

    // What reads results uses the rows: info lists each runtime's speed,
    // pick --interop ranks by the named ecosystem's measured speed, the
    // report draws them, compare pairs them.
    let file = scratch.path().join("runtimes.json");
    let file = file.to_str().unwrap();
    if runtime(&report, "go")["state"] == "measured" {
        let info = common::hashlab_in(
            scratch.path(),
            &["info", "sha256", "--results", file, "--json"],
        );
        let info: Value = serde_json::from_slice(&info.stdout).unwrap();
        let speeds = info["speeds"].as_array().unwrap();
        assert!(speeds
            .iter()
            .any(|s| s["runtime"] == "go" && s["backend"] == "go crypto/sha256"));
        assert!(speeds.iter().any(|s| s["runtime"].is_null()));

        let pick = common::hashlab_in(
            scratch.path(),
            &[
                "pick",
                "--for",
                "integrity",
                "--interop",
                "go",
                "--size",
                "16K",
                "--results",
                file,
                "--json",
            ],
        );
        assert!(pick.status.success(), "{}", text(&pick.stderr));
        let pick: Value = serde_json::from_slice(&pick.stdout).unwrap();
        let first = &pick["choices"][0]["measured"];
        assert!(
            first["backend"].as_str().unwrap().starts_with("go "),
            "pick --interop go ranks by Go's rows: {first}"
        );
        assert!(pick["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("ranked by the speed measured in go")));
    }
    let html = scratch.path().join("report.html");
    let made = common::hashlab_in(
        scratch.path(),
        &["report", file, "-o", html.to_str().unwrap()],
    );
    assert!(made.status.success(), "{}", text(&made.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Runtimes"));
    assert!(page.contains("python hashlib"));
    let compared = common::hashlab_in(scratch.path(), &["compare", file, file, "--json"]);
    assert!(compared.status.success(), "{}", text(&compared.stderr));
    assert!(text(&compared.stdout).contains("python hashlib"));
}

/// A directory holding only fake runtimes, first on PATH.
fn fake_path(scratch: &Scratch, programs: &[(&str, &str)]) -> OsString {
    use std::os::unix::fs::PermissionsExt;
    let bin = scratch.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, script) in programs {
        let file = bin.join(name);
        std::fs::write(&file, script).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin.into_os_string()
}

fn real_python() -> String {
    let out = Command::new("sh")
        .args(["-c", "command -v python3"])
        .output()
        .unwrap();
    let found = text(&out.stdout).trim().to_string();
    assert!(!found.is_empty(), "python3 is needed to fake a runtime");
    // The shim of pyenv and friends resolves through PATH: the real binary.
    let real = Command::new(&found)
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    text(&real.stdout).trim().to_string()
}

#[test]
fn a_harness_answering_a_wrong_digest_is_left_out() {
    let scratch = Scratch::new("runtimes-wrong");
    // A "python3" speaking the protocol: sha256 from `python liar` is off by
    // one bit, md5 from `python honest` is right.
    let fake = format!(
        r#"#!{}
import hashlib, sys, time
cells = {{}}
def answer(line):
    sys.stdout.write(line + "\n"); sys.stdout.flush()
for raw in sys.stdin:
    f = raw.rstrip("\n").split("\t")
    if f[0] == "hello": answer("hello\tfake 1.0")
    elif f[0] == "offers":
        for o in ["offer\tsha256\tpython liar", "offer\tmd5\tpython honest", "offer\tnull\tpython harness", "end"]:
            answer(o)
    elif f[0] == "digest":
        d = bytearray(hashlib.new(f[1], bytes.fromhex(f[3])).digest())
        if f[2] == "python liar": d[0] ^= 1
        answer("digest\t" + d.hex())
    elif f[0] == "prepare":
        cells[f[1]] = (f[1], int(f[4])); answer("ok")
    elif f[0] == "time":
        n = int(f[2]); m = bytes(cells[f[1]][1]); t = time.perf_counter_ns()
        for _ in range(n): hashlib.md5(m).digest()
        answer("ns\t%d\t0" % (time.perf_counter_ns() - t))
    else: answer("error\tunknown request")
"#,
        real_python()
    );
    let path = fake_path(&scratch, &[("python3", &fake)]);
    let out = quick(scratch.path(), &path, "python", "sha256,md5", &["--json"]);
    let report = json(&out);
    let status = runtime(&report, "python");
    assert_eq!(status["state"], "measured", "{status}");
    let libraries = status["libraries"].as_array().unwrap();
    let liar = libraries
        .iter()
        .find(|l| l["library"] == "python liar")
        .unwrap();
    assert_eq!(liar["state"], "wrong-digest");
    assert!(liar["detail"]
        .as_str()
        .unwrap()
        .contains("sha256 of 0 bytes"));
    assert!(rows(&report, "python", "sha256").is_empty());
    assert_eq!(rows(&report, "python", "md5"), vec!["python honest"]);
    assert!(report["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["backend"] == "python liar"));
    // The table says so too.
    let table = quick(scratch.path(), &path, "python", "sha256", &[]);
    assert!(table.status.success(), "{}", text(&table.stderr));
    assert!(text(&table.stdout).contains("python liar: wrong digest, left out: sha256 of 0 bytes"));
}

#[test]
fn a_hung_harness_is_killed_at_the_deadline_and_the_run_goes_on() {
    let scratch = Scratch::new("runtimes-hung");
    let pid_file = scratch.path().join("node.pid");
    let sleep = ["/usr/bin/sleep", "/bin/sleep"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("sleep(1)");
    // PATH holds only the fake: the shell's sleep by its full name.
    let fake = format!(
        "#!/bin/sh\necho $$ > '{}'\nexec {sleep} 600\n",
        pid_file.display()
    );
    let path = fake_path(&scratch, &[("node", &fake)]);
    let started = std::time::Instant::now();
    let out = quick(
        scratch.path(),
        &path,
        "node",
        "sha256",
        &["--runtime-timeout", "1.5", "--json"],
    );
    let report = json(&out);
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    let status = runtime(&report, "node");
    assert_eq!(status["state"], "timed-out", "{status}");
    assert!(status["detail"].as_str().unwrap().contains("killed"));
    // hashlab's own rows were measured all the same.
    assert!(report["cells"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["algorithm"] == "sha256"));
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(
        !Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "the hung harness {} is still running",
        pid.trim()
    );
}

#[test]
fn a_runtime_not_on_path_is_listed_with_the_reason() {
    let scratch = Scratch::new("runtimes-absent");
    let empty = scratch.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let empty = empty.into_os_string();
    let out = quick(scratch.path(), &empty, "all", "sha256", &["--json"]);
    let report = json(&out);
    for name in ["go", "python", "node", "java", "c"] {
        let status = runtime(&report, name);
        assert_eq!(status["state"], "absent", "{status}");
        assert!(status["detail"]
            .as_str()
            .unwrap()
            .contains("not found on PATH"));
    }
    let table = quick(scratch.path(), &empty, "go", "sha256", &[]);
    assert!(table.status.success());
    assert!(text(&table.stdout).contains("go: absent: go not found on PATH"));
}

#[test]
fn runtime_options_are_checked() {
    let scratch = Scratch::new("runtimes-usage");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cases: &[(&[&str], &str)] = &[
        (&["--runtime", "cobol"], "hashlab: --runtime: 'cobol' is not a runtime"),
        (
            &["--runtime", "go", "--keys"],
            "hashlab: --runtime: runtimes are measured on messages in memory, one thread each: not with short keys",
        ),
        (
            &["--runtime", "go", "--runtime-timeout", "0"],
            "hashlab: --runtime-timeout: 0 is not a number of seconds",
        ),
    ];
    for (args, message) in cases {
        let out = bench(scratch.path(), &path, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.starts_with(message), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
