//! `hashlab cpu` end to end: every format parses, every algorithm appears with
//! the default backend the registry picks, and the clock was measured.

use std::process::{Command, Output};

use hashlab::Registry;

/// A short clock budget keeps the tests quick; the method is tested in hashlab-bench.
fn cpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .arg("cpu")
        .args(["--clock-ms", "20"])
        .args(args)
        .output()
        .expect("run hashlab")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn succeeded(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn defaults() -> Vec<(String, String)> {
    let registry = Registry::default();
    registry
        .algorithms()
        .iter()
        .map(|a| {
            let (backend, _) = registry.default_backend(&a.name).unwrap();
            (a.name.clone(), backend.name.clone())
        })
        .collect()
}

#[test]
fn json_describes_the_machine_and_every_algorithm() {
    let o = cpu(&["--json"]);
    succeeded(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let env = &v["environment"];
    for field in [
        "cpu_model",
        "cpu_vendor",
        "logical_threads",
        "physical_cores",
        "usable_threads",
        "caches",
        "cpuinfo_mhz",
        "cpu_features",
        "os",
        "kernel",
        "governor",
        "hashlab_version",
        "git_commit",
        "rustc",
        "target",
        "command_line",
        "timestamp",
        "clock",
        "cpu_mask",
    ] {
        assert!(env.get(field).is_some(), "environment lacks {field}");
    }
    assert!(env["cpu_model"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(env["logical_threads"].as_u64().unwrap() >= 1);
    let command: Vec<&str> = env["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(&command[1..], ["cpu", "--clock-ms", "20", "--json"]);

    let clock = &env["clock"];
    if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        assert_eq!(clock["source"], "dependent-add-chain");
        let hz = clock["hz"].as_f64().unwrap();
        assert!((3e8..7e9).contains(&hz), "{hz} Hz");
        assert!(!clock["trials"].as_array().unwrap().is_empty());
    } else {
        assert_eq!(clock["source"], "unavailable");
        assert_eq!(clock["hz"].as_f64(), Some(0.0));
    }

    let features = v["features"].as_array().unwrap();
    let names: Vec<&str> = features
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, hashlab::cpu::known_features());
    for f in features {
        let name = f["name"].as_str().unwrap();
        assert_eq!(
            f["present"].as_bool(),
            Some(hashlab::cpu::has(name)),
            "{name}"
        );
        assert!(f["label"].as_str().is_some_and(|l| !l.is_empty()));
    }

    let algorithms = v["algorithms"].as_array().unwrap();
    let listed: Vec<(String, String)> = algorithms
        .iter()
        .map(|a| {
            assert!(a["path"].as_str().is_some_and(|p| !p.is_empty()), "{a}");
            assert!(
                a["path_reason"].as_str().is_some_and(|r| !r.is_empty()),
                "{a}"
            );
            (
                a["algorithm"].as_str().unwrap().to_string(),
                a["backend"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(listed, defaults());
}

#[test]
fn the_path_follows_the_features_detected() {
    let o = cpu(&["--json"]);
    succeeded(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let path_of = |name: &str| {
        v["algorithms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["algorithm"] == name)
            .map(|a| a["path"].as_str().unwrap().to_string())
            .unwrap()
    };
    let has = hashlab::cpu::has;
    if cfg!(target_arch = "x86_64") {
        let blake3 = if has("avx512f") && has("avx512vl") {
            "AVX-512"
        } else if has("avx2") {
            "AVX2"
        } else if has("sse4.1") {
            "SSE4.1"
        } else {
            "SSE2"
        };
        assert_eq!(path_of("blake3"), blake3);
        let registry = Registry::default();
        if registry.default_backend("sha256").unwrap().0.name == "openssl" {
            assert_eq!(path_of("sha256") == "SHA-NI", has("sha"));
        }
    }
}

#[test]
fn json_shorthand_equals_format_json() {
    for args in [&["--json"][..], &["--format", "json"][..]] {
        let o = cpu(args);
        succeeded(&o);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["algorithms"].is_array());
    }
}

#[test]
fn csv_is_one_table_with_every_section() {
    let o = cpu(&["--format", "csv"]);
    succeeded(&o);
    let mut reader = csv::Reader::from_reader(o.stdout.as_slice());
    assert_eq!(
        reader.headers().unwrap(),
        vec!["section", "name", "value", "detail"]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let in_section = |section: &str| {
        rows.iter()
            .filter(|r| &r[0] == section)
            .map(|r| (r[1].to_string(), r[2].to_string()))
            .collect::<Vec<_>>()
    };
    let machine = in_section("machine");
    assert!(machine.iter().any(|(name, _)| name == "model"));
    assert!(machine.iter().any(|(name, _)| name == "core clock"));
    let features = in_section("feature");
    assert_eq!(features.len(), hashlab::cpu::known_features().len());
    for (name, present) in &features {
        let expected = if hashlab::cpu::has(name) { "yes" } else { "no" };
        assert_eq!(present, expected, "{name}");
    }
    let algorithms = in_section("algorithm");
    let expected = defaults();
    assert_eq!(algorithms.len(), expected.len());
    for ((name, value), (algorithm, backend)) in algorithms.iter().zip(&expected) {
        assert_eq!(name, algorithm);
        assert!(
            value.starts_with(&format!("{backend} / ")),
            "{name}: {value}"
        );
    }
}

#[test]
fn table_and_markdown_have_a_section_per_part() {
    let table = cpu(&[]);
    succeeded(&table);
    let md = cpu(&["--format", "md"]);
    succeeded(&md);
    let explicit_table = cpu(&["--format", "table"]);
    succeeded(&explicit_table);

    let table = stdout(&table);
    assert!(table.starts_with("Machine\nproperty"), "{table}");
    assert!(table.contains("\nCPU features that matter for hashing\n"));
    assert!(table.contains("core clock"));
    assert!(stdout(&explicit_table).starts_with("Machine\nproperty"));

    let md = stdout(&md);
    assert!(
        md.starts_with("## Machine\n\n| property | value |\n| --- | --- |\n"),
        "{md}"
    );
    assert!(md.contains("## Default backend and SIMD path per algorithm\n\n| algorithm |"));

    for (algorithm, backend) in defaults() {
        let table_line = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(algorithm.as_str()))
            .unwrap_or_else(|| panic!("table lacks {algorithm}"));
        assert_eq!(table_line.split_whitespace().nth(1), Some(backend.as_str()));
        assert!(
            md.contains(&format!("| {algorithm} | {backend} | ")),
            "markdown lacks {algorithm}"
        );
    }
}

#[test]
fn conflicting_format_options_are_usage_errors() {
    let o = cpu(&["--json", "--format", "csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let o = cpu(&["--format", "yaml"]);
    assert_eq!(o.status.code(), Some(2));
}
