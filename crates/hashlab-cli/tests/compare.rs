//! `hashlab compare` on the committed real runs (plain and `--mask-cpu sha`),
//! and bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

use hashlab_bench::comparison::{Comparison, Order};
use hashlab_bench::plan::Mode;

fn hashlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .args(args)
        .env_remove("HASHLAB_DB")
        .output()
        .expect("run hashlab")
}

fn fixture(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "fixtures",
        "results",
        name,
    ]
    .iter()
    .collect();
    path.display().to_string()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn the_table_shows_ratios_marks_noise_and_names_the_flips() {
    let plain = fixture("zen4-plain.json");
    let masked = fixture("zen4-mask-sha.json");
    let out = stdout(&hashlab(&["compare", &plain, &masked]));
    assert!(out.contains("A = zen4-plain: AMD EPYC"), "{out}");
    assert!(out.contains("B = zen4-mask-sha: AMD EPYC"));
    assert!(out.contains("CPU mask sha"));
    assert!(out.contains("Usable CPU features that differ: SHA-NI (masked on B)"));
    let header = out
        .lines()
        .find(|l| l.starts_with("algorithm"))
        .expect("table header");
    for column in ["A MB/s", "A #", "B MB/s", "B #", "B/A"] {
        assert!(header.contains(column), "{header}");
    }
    let sha256_1m = out
        .lines()
        .find(|l| l.starts_with("sha256 ") && l.contains("1 MiB"))
        .expect("sha256 at 1 MiB");
    assert!(sha256_1m.contains("rustcrypto / openssl"), "{sha256_1m}");
    assert!(
        !sha256_1m.ends_with('~'),
        "SHA-NI's loss is significant: {sha256_1m}"
    );
    assert!(
        out.lines().any(|l| l.ends_with(" ~")),
        "some differences are within the noise"
    );
    assert!(out.contains("Ranking flips"));
    let flip = "1 thread: sha256 (A: rustcrypto, B: openssl) ahead on A, behind on B; usable CPU features differ: SHA-NI (masked on B)";
    let at = out
        .find(flip)
        .unwrap_or_else(|| panic!("no {flip:?} in\n{out}"));
    let passed: Vec<&str> = out[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .collect();
    assert!(
        passed
            .iter()
            .any(|l| l.trim_start().starts_with("blake2b at ")),
        "{passed:?}"
    );
}

#[test]
fn json_is_the_comparison_data() {
    let o = hashlab(&[
        "compare",
        &fixture("zen4-plain.json"),
        &fixture("zen4-mask-sha.json"),
        "--json",
    ]);
    let c: Comparison = serde_json::from_str(&stdout(&o)).expect("Comparison JSON");
    assert_eq!(c.inputs.len(), 2);
    assert_eq!(c.inputs[0].label, "zen4-plain");
    let single = Mode::Streams { threads: 1 };
    let sha_vs_blake2b = c
        .flips
        .iter()
        .find(|f| {
            f.mode == single && f.first.algorithm == "sha256" && f.second.algorithm == "blake2b"
        })
        .expect("sha256 falls behind blake2b without SHA-NI");
    assert_eq!(
        sha_vs_blake2b.order,
        vec![Order::FirstAhead, Order::SecondAhead]
    );
    assert_eq!(sha_vs_blake2b.differing_features, vec!["sha".to_string()]);
    // Ranks on each input agree with the throughputs printed beside them.
    for ranking in &c.rankings {
        assert!(ranking
            .order
            .windows(2)
            .all(|w| w[0].mb_per_s >= w[1].mb_per_s));
    }
}

#[test]
fn csv_and_markdown_and_size_selection() {
    let (a, b) = (fixture("zen4-plain.json"), fixture("zen4-mask-sha.json"));
    let csv = stdout(&hashlab(&[
        "compare", &a, &b, "--format", "csv", "--size", "1K,16M",
    ]));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "algorithm,backend,size,mode,threads,input,mb_per_s,rank,ratio_to_first,ratio_low,ratio_high,significant"
    );
    let rows: Vec<&str> = lines.collect();
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r.split(',').nth(2) == Some("1024") || r.split(',').nth(2) == Some("16777216")));
    assert!(rows
        .iter()
        .any(|r| r.starts_with("sha256,openssl,1024,streams,1,zen4-mask-sha,")));

    let md = stdout(&hashlab(&[
        "compare", &a, &b, "--format", "md", "--size", "64",
    ]));
    assert!(
        md.contains("| algorithm | backend | size | threads |"),
        "{md}"
    );
    assert!(md.contains("## Ranking flips"));
}

#[test]
fn bad_inputs_are_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, b"{\"schema_version\": 1, \"tool\": \"hashlab\"").unwrap();
    let missing = dir.path().join("missing.json");
    let plain = fixture("zen4-plain.json");
    for (bad, says) in [
        (&junk, "not hashlab bench results"),
        (&missing, "No such file or directory"),
    ] {
        let o = hashlab(&["compare", &plain, bad.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("hashlab: {}: ", bad.display())) && err.contains(says),
            "{err}"
        );
        assert!(o.stdout.is_empty(), "no partial output");
    }
    let o = hashlab(&["compare", &plain]);
    assert_eq!(o.status.code(), Some(2), "one input is a usage error");
    let o = hashlab(&["compare", &plain, &plain, "--size", "lots"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `fixture` with every sample of every cell negated: what no clock gives.
fn negated(dir: &std::path::Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture("zen4-plain.json")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    for cell in value["cells"].as_array_mut().unwrap() {
        for s in cell["samples"].as_array_mut().unwrap() {
            *s = serde_json::json!(-s.as_f64().unwrap());
        }
    }
    let path = dir.join("negative.json");
    std::fs::write(&path, value.to_string()).unwrap();
    path
}

/// Negative samples once aborted compare ("quantile of nothing", exit 101).
#[test]
fn negative_samples_are_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let negative = negated(dir.path());
    let plain = fixture("zen4-plain.json");
    for args in [
        ["compare", plain.as_str(), negative.to_str().unwrap()],
        ["report", negative.to_str().unwrap(), "-o"],
    ] {
        let mut args = args.to_vec();
        let out = dir.path().join("out.html");
        if args[0] == "report" {
            args.push(out.to_str().unwrap());
        }
        let o = hashlab(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err,
            format!(
                "hashlab: {}: cells[0].samples[0] is {}, not a positive time in seconds: not a measurement\n",
                negative.display(),
                -serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&plain).unwrap())
                    .unwrap()["cells"][0]["samples"][0]
                    .as_f64()
                    .unwrap()
            )
        );
        assert!(o.stdout.is_empty());
        assert!(!out.exists());
    }
}
