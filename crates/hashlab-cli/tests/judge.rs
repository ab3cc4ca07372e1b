//! `hashlab info`, `ecosystem` and `pick` as users run them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hashlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .args(args)
        .output()
        .unwrap()
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/results")
        .join(name)
        .display()
        .to_string()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn info_shows_sourced_facts_availability_backends_and_measured_speed() {
    let plain = fixture("zen4-plain.json");
    let out = hashlab(&["info", "SHA-256", "--results", &plain]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for needle in [
        "sha256 (SHA-2, cryptographic",
        "collision security  128 bits",
        "NIST SP 800-107 Rev. 1 (2012)",
        "NIST FIPS 180-4 (2015)",
        "Apple CommonCrypto",
        "Backends here",
        "Measured in zen4-plain.json",
        "16 B",
        "16 MiB",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

#[test]
fn info_covers_every_algorithm_in_every_format() {
    let list: serde_json::Value = json(&hashlab(&["list", "--json"]));
    for alg in list.as_array().unwrap() {
        let name = alg["name"].as_str().unwrap();
        let page = json(&hashlab(&["info", name, "--json"]));
        assert_eq!(page["algorithm"], name);
        assert!(!page["fact_lines"].as_array().unwrap().is_empty());
        assert!(
            page["availability"].as_array().unwrap().len() >= 13,
            "{name}"
        );
    }
    let csv = stdout(&hashlab(&["info", "blake3", "--format", "csv"]));
    assert!(csv.starts_with("section,name,value,detail\n"), "{csv}");
    let md = stdout(&hashlab(&["info", "blake3", "--format", "md"]));
    assert!(md.contains("| fact | value | sources |"), "{md}");
}

#[test]
fn info_sha1_names_its_attacks() {
    let page = json(&hashlab(&["info", "sha1", "--format", "json"]));
    let attack = page["facts"]["attack"]["text"].as_str().unwrap();
    assert!(
        attack.contains("SHAttered 2017") && attack.contains("Shambles 2020"),
        "{attack}"
    );
}

#[test]
fn info_errors_are_one_line_with_the_right_exit_code() {
    let out = hashlab(&["info", "sha-0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("hashlab: unknown algorithm"),
        "{}",
        stderr(&out)
    );

    let out = hashlab(&["info", "sha256", "--results", "/nonexistent/r.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "hashlab: /nonexistent/r.json: No such file or directory\n"
    );

    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"cells\": 3}").unwrap();
    let out = hashlab(&["info", "sha256", "--results", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("junk.json: not a hashlab bench JSON report"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    assert!(out.stdout.is_empty());
}

#[test]
fn pick_follows_the_cpu_of_the_results_file() {
    let plain = json(&hashlab(&[
        "pick",
        "--for",
        "content-addressing",
        "--interop",
        "go,python",
        "--results",
        &fixture("zen4-plain.json"),
        "--json",
    ]));
    let masked = json(&hashlab(&[
        "pick",
        "--for",
        "content-addressing",
        "--interop",
        "go,python",
        "--results",
        &fixture("zen4-mask-sha.json"),
        "--json",
    ]));
    assert_eq!(plain["choices"][0]["algorithm"], "sha256");
    assert_eq!(masked["choices"][0]["algorithm"], "sha512-256");
    let summary = plain["choices"][0]["summary"].as_str().unwrap();
    assert!(
        summary.contains("MB/s in zen4-plain.json at 4 KiB (rustcrypto, SHA-NI path)"),
        "{summary}"
    );
}

#[test]
fn pick_table_explains_choices_and_exclusions() {
    let out = hashlab(&[
        "pick",
        "--for",
        "mac",
        "--results",
        &fixture("zen4-plain.json"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Why hmac-sha256"), "{text}");
    assert!(text.contains("Popular candidates left out"), "{text}");
    assert!(text.contains("siphash-2-4"), "{text}");
    let csv = stdout(&hashlab(&[
        "pick",
        "--for",
        "hash-table",
        "--results",
        &fixture("zen4-plain.json"),
        "--format",
        "csv",
    ]));
    assert!(
        csv.starts_with("section,name,value,detail\nchoice,"),
        "{csv}"
    );
}

#[test]
fn pick_refuses_bad_arguments() {
    let out = hashlab(&[
        "pick",
        "--for",
        "content-addressing",
        "--interop",
        "cobol",
        "--results",
        &fixture("zen4-plain.json"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("hashlab: --interop: 'cobol' is not an ecosystem"),
        "{}",
        stderr(&out)
    );
    let out = hashlab(&["pick", "--for", "mac", "--size", "12Q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--size"), "{}", stderr(&out));
    let out = hashlab(&["pick", "--for", "everything"]);
    assert_eq!(out.status.code(), Some(2));
    // Nothing qualifies: say why, exit 1, print nothing on stdout.
    let out = hashlab(&[
        "pick",
        "--for",
        "mac",
        "--min-security",
        "512",
        "--results",
        &fixture("zen4-plain.json"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("hashlab: no algorithm meets --for mac"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn pick_without_results_measures_the_candidates_here() {
    // Two candidates (CommonCrypto and Java both ship only these with 128-bit
    // collision security among SHA-2), measured quickly at exactly 1 KiB.
    let page = json(&hashlab(&[
        "pick",
        "--for",
        "content-addressing",
        "--interop",
        "commoncrypto,java,dotnet",
        "--size",
        "1K",
        "--json",
    ]));
    assert_eq!(page["speed_source"], "a quick bench here");
    let choices = page["choices"].as_array().unwrap();
    let mut names: Vec<&str> = choices
        .iter()
        .map(|c| c["algorithm"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["sha256", "sha384", "sha512"]);
    for c in choices {
        assert_eq!(c["measured"]["size"], 1024, "{c}");
        assert!(
            c["reasons"][0]
                .as_str()
                .unwrap()
                .contains("MB/s here at 1 KiB"),
            "{c}"
        );
    }
}

#[test]
fn pick_like_ranks_by_the_projected_time_on_a_trees_shape() {
    let dir = std::env::temp_dir().join(format!("hashlab-pick-like-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("small")).unwrap();
    for i in 0..60 {
        std::fs::write(
            dir.join("small").join(format!("f{i}")),
            vec![i as u8; 2000 + 37 * i],
        )
        .unwrap();
    }
    std::fs::write(dir.join("large"), vec![7u8; 3 << 20]).unwrap();
    let tree = dir.display().to_string();
    let args = |format: &str| {
        vec![
            "pick".to_string(),
            "--for".into(),
            "content-addressing".into(),
            "--interop".into(),
            "commoncrypto,java,dotnet".into(),
            "--like".into(),
            tree.clone(),
            format.into(),
        ]
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        hashlab(&args)
    };
    let page = json(&run(args("--json")));
    assert_eq!(page["speed_source"], format!("bench --like {tree}"));
    let choices = page["choices"].as_array().unwrap();
    let mut names: Vec<&str> = choices
        .iter()
        .map(|c| c["algorithm"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["sha256", "sha384", "sha512"]);
    let mut last = 0.0;
    for (i, c) in choices.iter().enumerate() {
        assert_eq!(c["rank"], i + 1, "{c}");
        assert!(c["measured"].is_null(), "{c}");
        let p = &c["projected"];
        assert_eq!(p["algorithm"], c["algorithm"]);
        let seconds = p["cached_all"].as_f64().unwrap();
        assert!(seconds > 0.0 && seconds >= last, "{c}");
        last = seconds;
        assert!(
            ["cpu", "per_file"].contains(&p["bound_cached"].as_str().unwrap()),
            "{c}"
        );
        assert_eq!(p["cores"].as_array().unwrap().len(), 4, "{c}");
        let reason = c["reasons"][0].as_str().unwrap();
        assert!(
            reason.starts_with("speed: ") && reason.contains(&format!("for all of {tree} on ")),
            "{reason}"
        );
    }
    assert!(
        page["notes"][0].as_str().unwrap().contains("61 files"),
        "{}",
        page["notes"]
    );
    let table = run(args("--format=table"));
    assert!(table.status.success(), "{}", stderr(&table));
    let text = stdout(&table);
    for part in [
        "Ranked by projected time",
        &format!("shape: bench --like {tree}"),
        "cached, all threads",
        "sha256",
    ] {
        assert!(text.contains(part), "{part:?} not in\n{text}");
    }
    // --like ranks by its own measurement: not with a results file; a path
    // that is not there is one line naming it.
    let out = hashlab(&[
        "pick",
        "--for",
        "integrity",
        "--like",
        &tree,
        "--results",
        &fixture("zen4-plain.json"),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let absent = dir.join("absent").display().to_string();
    let out = hashlab(&["pick", "--for", "integrity", "--like", &absent]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains(&absent), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn fake(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn ecosystem_probes_what_is_on_path() {
    let dir = tempfile::tempdir().unwrap();
    fake(
        dir.path(),
        "python3",
        r#"echo '{"version": "3.99.1", "available": ["md5", "sha256"], "modules": {}}'"#,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .args(["ecosystem", "--json"])
        .env("PATH", dir.path())
        .output()
        .unwrap();
    let report = json(&out);
    let probes = report["probes"].as_array().unwrap();
    let state = |eco: &str| probes.iter().find(|p| p["ecosystem"] == eco).unwrap()["state"].clone();
    assert_eq!(state("python"), "found");
    for eco in ["openssl", "node", "java", "go", "dotnet", "cli"] {
        assert_eq!(state(eco), "absent", "{eco}");
    }
    let disagreements = report["disagreements"].as_array().unwrap();
    assert!(disagreements.iter().any(|d| d["ecosystem"] == "python"
        && d["algorithm"] == "sha1"
        && d["probe"] == "not offered here"));

    let table = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .arg("ecosystem")
        .env("PATH", dir.path())
        .output()
        .unwrap();
    let text = stdout(&table);
    assert!(text.contains("node is not on PATH"), "{text}");
    assert!(text.contains("Python 3.99.1"), "{text}");

    let out = hashlab(&["ecosystem", "--timeout", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `info` shows SMHasher3's published verdict beside hashlab's stored full
/// run, family by family (both are data of hashlab-quality).
#[test]
fn info_shows_both_quality_verdicts() {
    let page = json(&hashlab(&["info", "crc32c", "--json"]));
    let quality = &page["quality"];
    assert_eq!(quality["smhasher3"]["name"], "CRC-32C");
    let theirs: Vec<&str> = quality["smhasher3"]["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap())
        .collect();
    assert!(
        theirs.contains(&"Avalanche") && theirs.contains(&"SeedSparse"),
        "{theirs:?}"
    );
    let ours = quality["hashlab"]["families"].as_array().unwrap();
    let avalanche = ours.iter().find(|f| f["test"] == "avalanche").unwrap();
    assert!(avalanche["failed"].as_u64().unwrap() > 0, "{avalanche}");
    assert!(quality["hashlab"]["source"]
        .as_str()
        .unwrap()
        .contains("plan default"));

    let text = stdout(&hashlab(&["info", "crc32c"]));
    for needle in [
        "Quality by family: SMHasher3 beside hashlab",
        "Avalanche (avalanche)",
        "FAIL [",
        "CRC-32C",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    let csv = stdout(&hashlab(&["info", "crc32c", "--format", "csv"]));
    assert!(
        csv.contains("quality,Avalanche (avalanche),\"SMHasher3: FAIL [3, 4, 5"),
        "{csv}"
    );

    // A hash both pass: every family passes on both sides.
    let sip = json(&hashlab(&["info", "siphash-1-3", "--json"]));
    assert!(sip["quality"]["smhasher3"]["failures"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(sip["quality"]["hashlab"]["failed"], 0);

    // No published SMHasher3 run, no stored run: said, not invented.
    let text = stdout(&hashlab(&["info", "blake2b"]));
    assert!(text.contains("have no run of this function"), "{text}");
    assert!(text.contains("no stored full run"), "{text}");
}
