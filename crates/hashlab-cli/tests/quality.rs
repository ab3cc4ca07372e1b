//! `hashlab quality` end to end: verdict in the exit status, every format,
//! usage errors. The suite's statistics are tested in hashlab-quality.

use std::process::{Command, Output};

fn quality(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .arg("quality")
        .args(args)
        .output()
        .expect("run hashlab")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_failing_hash_exits_1_with_its_table() {
    let out = quality(&["-a", "crc32c", "--quick"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("crc32c on backend "), "{text}");
    let avalanche = text
        .lines()
        .find(|l| l.starts_with("avalanche"))
        .expect("an avalanche row");
    assert!(avalanche.ends_with("FAIL"), "{avalanche}");
    assert!(avalanche.contains("bias 100.0%"), "{avalanche}");
    assert!(text
        .trim_end()
        .lines()
        .last()
        .unwrap()
        .starts_with("crc32c: FAIL ("));
    assert!(
        out.stderr.is_empty(),
        "no progress bar off a terminal: {}",
        stderr(&out)
    );
}

#[test]
fn a_passing_hash_exits_0_and_json_is_the_report() {
    // rapidhash passes every SMHasher3 test, its seed tests included (XXH64,
    // here before them, fails SMHasher3's Seed BIC and ours).
    let out = quality(&["-a", "RapidHash", "--quick", "--seed", "5", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["algorithm"], "rapidhash");
    assert_eq!(report["seed_bits"], 64);
    assert!(report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["test"] == "seed-avalanche"));
    assert_eq!(report["seed"], 5);
    assert_eq!(report["plan"], "quick");
    assert_eq!(report["failed"], 0);
    let tests = report["tests"].as_array().unwrap();
    assert_eq!(report["passed"].as_u64().unwrap() as usize, tests.len());
    for test in tests {
        assert_eq!(test["passed"], true);
        assert!(test["worst"]["p_value"].is_number());
        assert!(test["threshold"].as_str().unwrap().len() > 2);
    }
}

#[test]
fn csv_and_markdown_have_one_row_per_test() {
    let csv = quality(&["-a", "siphash-2-4", "--quick", "--format", "csv"]);
    assert_eq!(csv.status.code(), Some(0), "{}", stderr(&csv));
    let mut reader = csv::Reader::from_reader(csv.stdout.as_slice());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "test");
    assert_eq!(&headers[6], "result");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert!(
        rows.iter().any(|r| &r[0] == "key avalanche"),
        "keyed: key tests run"
    );
    assert!(rows.iter().all(|r| &r[6] == "PASS"));

    let md = quality(&["-a", "siphash-2-4", "--quick", "--format", "md"]);
    let text = stdout(&md);
    let table_rows = text.lines().filter(|l| l.starts_with("| ")).count();
    assert_eq!(
        table_rows,
        rows.len() + 2,
        "header, rule, one row per test: {text}"
    );
    assert!(text.contains("**siphash-2-4: PASS ("), "{text}");
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let out = quality(&["-a", "sha-257", "--quick"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let message = stderr(&out);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("sha-257"), "{message}");

    let out = quality(&["-a", "sha256", "-b", "nope", "--quick"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("hashlab: --backend: "),
        "{}",
        stderr(&out)
    );

    let out = quality(&["--quick"]);
    assert_eq!(out.status.code(), Some(2));
}
