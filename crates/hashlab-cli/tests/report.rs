//! `hashlab report` end to end: the page and one chart from the committed real
//! results, a fresh run when no results are given, and bad input (one line,
//! non-zero exit, no output file). The charts' values are checked against the
//! JSON in hashlab-report's own tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn report(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .arg("report")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run hashlab")
}

fn fixture(name: &str) -> String {
    format!(
        "{}/../../fixtures/results/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hashlab-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn writes_one_self_contained_page_and_prints_its_path() {
    let dir = scratch("page");
    let (plain, masked) = (fixture("zen4-plain"), fixture("zen4-mask-sha"));
    let o = report(&[&plain, &masked, "-o", "out.html"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        PathBuf::from(printed.trim()),
        std::fs::canonicalize(dir.join("out.html")).unwrap()
    );
    assert_eq!(files_in(&dir), ["out.html"], "no temporary file left");
    let html = std::fs::read_to_string(dir.join("out.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    for part in [
        "zen4-plain: AMD EPYC",
        "zen4-mask-sha: AMD EPYC as if without SHA-NI",
        "All inputs together",
        "Cycles per byte",
        "prefers-color-scheme: dark",
        "@media print",
        "hashlab bench --all --threads 1,2 --max-time 60 --mask-cpu sha",
        // Two inputs: `hashlab compare`'s table and flips are a section.
        "href=\"#comparison\"",
        "Usable CPU features that differ: SHA-NI (masked on B)",
        "Ranking flips (each order significant on its input, by the same test)",
        "Throughput side by side",
        // The quality panel: stored verdicts beside speed.
        "Quality beside speed",
        "href=\"#quality\"",
        "SMHasher3: failed / tests",
        // CRC-32C's row: linear, it fails every family but one, said in a
        // few words so that the row stays a few lines tall.
        "all 24 but zeroes, long-neighbors",
    ] {
        assert!(html.contains(part), "the page lacks {part:?}");
    }
    assert!(!html.contains("<script") && !html.contains("<link"));
}

#[test]
fn writes_one_chart_as_svg() {
    let dir = scratch("chart");
    let plain = fixture("zen4-plain");
    let o = report(
        &[
            "--chart",
            "size",
            "--format",
            "svg",
            "-o",
            "chart.svg",
            &plain,
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(dir.join("chart.svg")).unwrap();
    assert!(
        svg.starts_with("<?xml")
            && svg.contains("<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\"")
    );
    // Without -o a chart is named after itself; `-o -` writes to standard output.
    let o = report(&["--chart", "bars", "--size", "64K", &plain], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(dir.join("bars.svg"))
        .unwrap()
        .contains("Throughput at 64 KiB"));
    let o = report(&["--chart", "box", "-o", "-", &plain], &dir);
    assert!(o.status.success());
    assert!(String::from_utf8(o.stdout)
        .unwrap()
        .contains("Spread of the samples"));
}

#[test]
fn bad_input_is_one_line_with_no_output_file() {
    let dir = scratch("bad");
    std::fs::write(dir.join("cut.json"), b"{\"schema_version\": 1, \"tool\": ").unwrap();
    std::fs::write(dir.join("other.json"), b"{\"name\": \"not results\"}").unwrap();
    std::fs::write(dir.join("keep.html"), b"the previous report").unwrap();
    let plain = fixture("zen4-plain");
    let cases: [(&[&str], &str); 3] = [
        (
            &[&plain, "cut.json", "-o", "keep.html"],
            "hashlab: cut.json: not valid JSON: EOF while parsing a value at line 1 column 30\n",
        ),
        (
            &["other.json", "-o", "keep.html"],
            "hashlab: other.json: not hashlab bench results (no schema_version; write them with `hashlab bench --json -o FILE`)\n",
        ),
        (
            &["missing.json", "-o", "keep.html"],
            "hashlab: missing.json: No such file or directory\n",
        ),
    ];
    for (args, message) in cases {
        let o = report(args, &dir);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&o), message);
        assert!(o.stdout.is_empty());
        assert_eq!(
            std::fs::read(dir.join("keep.html")).unwrap(),
            b"the previous report"
        );
    }
    let o = report(&["cut.json"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        files_in(&dir),
        ["cut.json", "keep.html", "other.json"],
        "no report.html, no temporary file"
    );
}

#[test]
fn arguments_that_cannot_work_are_refused() {
    let dir = scratch("usage");
    let (plain, masked) = (fixture("zen4-plain"), fixture("zen4-mask-sha"));
    let usage: [&[&str]; 4] = [
        &["--format", "svg", &plain],
        &["--chart", "size", "--format", "html", &plain],
        &["--chart", "box", &plain, &masked],
        &["--size", "12Q", &plain],
    ];
    for args in usage {
        let o = report(args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
    let o = report(&["--size", "8K", &plain], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o)
        .starts_with("hashlab: --size 8 KiB: not measured in zen4-plain (measured: 16 B,"));
    let o = report(&["--chart", "backends", &plain], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--all-backends"));
    assert!(files_in(&dir).is_empty());
}

#[test]
fn without_results_it_runs_the_bench_first() {
    let dir = scratch("fresh");
    let o = report(
        &[
            "-a",
            "sha256,crc32c",
            "--quick",
            "--max-time",
            "0.3",
            "-q",
            "-o",
            "fresh.html",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "-q prints no path");
    let html = std::fs::read_to_string(dir.join("fresh.html")).unwrap();
    assert!(html.contains("this machine: "));
    for alg in ["sha256", "crc32c"] {
        assert!(
            html.contains(&format!("data-key=\"mbps:this machine:{alg}:")),
            "{alg}"
        );
    }
    // The exact command is recorded: this one, not a bench command.
    assert!(html.contains("report -a sha256,crc32c --quick --max-time 0.3 -q -o fresh.html"));
    if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        assert!(
            html.contains("efficiency-streams-"),
            "threads 1 and all are measured"
        );
    }
}

#[test]
fn a_fresh_run_is_kept_in_the_history_with_save() {
    let dir = scratch("save");
    let args = [
        "-a",
        "crc32c",
        "--quick",
        "--max-time",
        "0.2",
        "-q",
        "--save",
        "--db",
        "h.sqlite",
        "-o",
        "saved.html",
    ];
    let o = report(&args, &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("saved as run 1"), "{}", stderr(&o));
    let listed = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .args(["history", "--db", "h.sqlite", "--format", "json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(listed.status.success());
    let runs: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "{runs}");
    assert!(runs.to_string().contains("report -a crc32c"), "{runs}");

    // A damaged database costs the page nothing: written, then exit 1.
    std::fs::write(dir.join("h.sqlite"), vec![0x5a; 4096]).unwrap();
    std::fs::remove_file(dir.join("saved.html")).unwrap();
    let o = report(&args, &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("damaged"), "{}", stderr(&o));
    assert!(dir.join("saved.html").exists());
}

#[test]
fn save_needs_a_run_of_its_own() {
    let dir = scratch("save-files");
    let o = report(&[&fixture("zen4-plain"), "--save"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(files_in(&dir).is_empty());
}

#[test]
fn a_like_report_is_a_page_of_its_own() {
    let dir = scratch("like");
    let like = fixture("like-tree");
    let o = report(&[&like, "-q", "-o", "like.html"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "-q prints nothing");
    let html = std::fs::read_to_string(dir.join("like.html")).unwrap();
    for part in [
        "hashlab bench --like: mixed-tree",
        "id=\"like-shape\"",
        "id=\"like-projected\"",
        "Dask, 16 workers",
        "Projected against a real run",
    ] {
        assert!(html.contains(part), "the page lacks {part:?}");
    }
    // Shown alone, and not as a chart: usage errors naming the file, no output.
    let plain = fixture("zen4-plain");
    for args in [
        vec![plain.as_str(), like.as_str(), "-o", "two.html"],
        vec!["--chart", "bars", like.as_str(), "-o", "two.html"],
    ] {
        let o = report(&args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("like-tree.json: "), "{err}");
    }
    assert_eq!(files_in(&dir), ["like.html"]);
    // A like report that does not read as one says why, with its name.
    let broken = dir.join("broken.json");
    std::fs::write(&broken, br#"{"shape": 1, "projections": []}"#).unwrap();
    let o = report(&[broken.to_str().unwrap(), "-o", "b.html"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("broken.json: not a hashlab bench --like report"),
        "{}",
        stderr(&o)
    );
}
