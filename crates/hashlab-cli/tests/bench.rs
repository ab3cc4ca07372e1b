//! `hashlab bench` end to end: every format, and bad options. Speeds are never
//! asserted here (this machine is shared); only shape, units and consistency.

use std::process::{Command, Output};

use hashlab_bench::plan::Mode;
use hashlab_bench::report::Report;

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .arg("bench")
        .args(args)
        .output()
        .expect("run hashlab")
}

const SMALL: &[&str] = &[
    "-a",
    "crc32c,sha256",
    "--sizes",
    "64,4K",
    "--quick",
    "--max-time",
    "0.3",
];

#[test]
fn json_round_trips_into_the_report_type() {
    let mut args = SMALL.to_vec();
    args.extend(["--json", "--threads", "1,2", "--latency", "--project", "1G"]);
    let o = bench(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Report = serde_json::from_slice(&o.stdout).expect("JSON matches the Report schema");
    assert_eq!(
        report.schema_version,
        hashlab_bench::results::SCHEMA_VERSION
    );
    assert_eq!(report.settings.sizes, vec![64, 4096]);
    assert_eq!(report.settings.threads, vec![1, 2]);
    // 0.3 s is a short budget on a busy machine: fewer rounds than --quick's
    // five are allowed, and then said.
    assert!(report.run.rounds >= 1);
    assert!(
        report.run.rounds >= 5
            || report
                .warnings
                .iter()
                .any(|w| w.starts_with("the time budget of 0.3 s allowed")),
        "{:?}",
        report.warnings
    );
    let env = &report.environment;
    assert!(!env.cpu_model.is_empty() && env.logical_threads >= 1);
    assert!(
        env.command_line.iter().any(|a| a == "--json"),
        "the exact command is recorded"
    );
    if let Some(hz) = report.run.clock_hz {
        let t = report.cells[0].throughput.as_ref().unwrap();
        let cpb = t
            .cycles_per_byte
            .expect("cycles per byte with a measured clock");
        assert!((cpb - hz / t.bytes_per_second).abs() < 1e-9 * cpb.max(1.0));
    }
    for alg in ["crc32c", "sha256", "null"] {
        for size in [64, 4096] {
            let c = report
                .cells
                .iter()
                .find(|c| {
                    c.algorithm == alg && c.size == size && c.mode == Mode::Streams { threads: 1 }
                })
                .unwrap_or_else(|| panic!("{alg} at {size}"));
            assert_eq!(c.samples.len(), report.run.rounds);
            let t = c.throughput.as_ref().unwrap();
            assert!(t.mb_per_s > 0.0);
            assert!((t.mib_per_s * 1.048576 - t.mb_per_s).abs() / t.mb_per_s < 1e-9);
            assert!(
                (t.ns_per_message * 1e-9 * t.bytes_per_second - size as f64).abs()
                    < 1e-6 * size as f64
            );
        }
    }
    assert!(report
        .cells
        .iter()
        .any(|c| c.mode == Mode::Streams { threads: 2 }));
    assert!(report
        .cells
        .iter()
        .any(|c| c.mode == Mode::Latency && c.algorithm == "sha256"));
    assert!(
        report
            .scaling
            .iter()
            .all(|s| s.one_stream_mb_per_s.is_none()),
        "sha256/crc32c have no parallel mode"
    );
    let p = report
        .projections
        .iter()
        .find(|p| p.algorithm == "sha256")
        .unwrap();
    assert_eq!(p.bytes, 1 << 30);
    assert!(p.one_core_seconds.unwrap() > 0.0 && p.all_cores_seconds.is_some());
}

#[test]
fn csv_is_long_form_with_a_header() {
    let mut args = SMALL.to_vec();
    args.extend(["--format", "csv"]);
    let o = bench(&args);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "algorithm,backend,size,mode,threads,batch,samples,outliers,median_seconds,q1_seconds,q3_seconds,mb_per_s,mib_per_s,cycles_per_byte,ns_per_message"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 6, "(null + 2 algorithms) x 2 sizes");
    assert!(rows.iter().all(|r| r.split(',').count() == 15));
}

#[test]
fn markdown_and_table_have_the_size_columns() {
    for (format, marker) in [
        ("md", "| algorithm | backend | 64 B | 4 KiB |"),
        ("table", "algorithm  backend"),
    ] {
        let mut args = SMALL.to_vec();
        args.extend(["--format", format, "--unit", "all"]);
        let o = bench(&args);
        assert!(o.status.success());
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(text.contains(marker), "{format}:\n{text}");
        assert!(text.contains("vs sha256 @ 4 KiB"), "{format}");
        assert!(
            text.contains("MiB/s") && text.contains("ns per message"),
            "{format}"
        );
        assert!(!text.contains("\x1b["), "no colour when not a terminal");
    }
}

#[test]
fn output_file_gets_the_format_of_its_extension() {
    let dir = std::env::temp_dir().join(format!("hashlab-bench-o-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.json");
    let mut args = SMALL.to_vec();
    let p = path.to_str().unwrap().to_string();
    args.extend(["-o", &p, "--quiet"]);
    let o = bench(&args);
    assert!(o.status.success());
    let report: Report = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(!report.cells.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_options_exit_2_with_a_clear_message() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--sizes", "12Q"],
            "hashlab: --sizes: '12Q': unknown size suffix 'q'",
        ),
        (
            &["--sizes", "0"],
            "hashlab: --sizes: '0': a size must be at least 1 byte",
        ),
        (
            &["--threads", "0"],
            "hashlab: --threads: '0' is not a thread count",
        ),
        (
            &["--threads", "x"],
            "hashlab: --threads: 'x' is not a thread count",
        ),
        (
            &["-a", "sha265"],
            "hashlab: unknown algorithm 'sha265'; did you mean: sha224, sha256?",
        ),
        (
            &["--baseline", "nope"],
            "hashlab: --baseline: unknown algorithm 'nope'",
        ),
        (
            &["--project", "lots"],
            "hashlab: --project: 'lots' is not a size",
        ),
        (
            &["--max-time=-1"],
            "hashlab: --max-time: -1 s is not a time budget: the limit is more than 0 and at most 1000000 s",
        ),
        (
            &["-a", "sha256", "-b", "nope"],
            "hashlab: --backends: unknown backend 'nope' (known: ",
        ),
        (
            &["-a", "sha256", "-b", "openssl,nope"],
            "hashlab: --backends: unknown backend 'nope' (known: ",
        ),
        (
            &["-a", "sha256", "-b", "blake3"],
            "hashlab: nothing to measure",
        ),
    ];
    for (args, expected) in cases {
        let o = bench(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with(expected), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert_eq!(
            o.status.code(),
            Some(if expected.contains("nothing to measure") {
                1
            } else {
                2
            }),
            "{args:?}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = bench(&["--all", "--fast"]);
    assert_eq!(o.status.code(), Some(2), "conflicting selections");
}

#[test]
fn a_real_file_through_the_sum_reading_path() {
    let dir = std::env::temp_dir().join(format!("hashlab-bench-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("data.bin");
    std::fs::write(&path, vec![42u8; 3 << 20]).unwrap();
    let p = path.to_str().unwrap().to_string();
    let mut args = SMALL.to_vec();
    args.extend(["--json", "--file", &p, "--cold"]);
    let o = bench(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Report = serde_json::from_slice(&o.stdout).unwrap();
    let files: Vec<_> = report
        .cells
        .iter()
        .filter(|c| c.mode == Mode::File { cold: true })
        .collect();
    assert_eq!(files.len(), 2, "one per algorithm");
    assert!(files
        .iter()
        .all(|c| c.size == 3 << 20 && c.throughput.is_some()));
    assert!(
        report.warnings.iter().any(|w| w.starts_with("cold cache")),
        "says whether dropping the cache worked: {:?}",
        report.warnings
    );
    let o = bench(&["--file", dir.join("missing").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing: No such file or directory"));
    let o = bench(&["--cold"]);
    assert_eq!(o.status.code(), Some(2), "--cold needs --file");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cpu_mask_is_honoured_or_the_backend_is_left_out() {
    let o = bench(&[
        "-a",
        "sha256,md5",
        "--all-backends",
        "--sizes",
        "4K",
        "--quick",
        "--max-time",
        "0.3",
        "--mask-cpu",
        "sha",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Report = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report.settings.mask, vec!["sha".to_string()]);
    assert_eq!(report.environment.cpu_mask, vec!["sha".to_string()]);
    let measured = |alg: &str, backend: &str| {
        report
            .cells
            .iter()
            .any(|c| c.algorithm == alg && c.backend == backend)
    };
    assert!(
        measured("md5", "rustcrypto"),
        "portable code is unaffected by the mask"
    );
    if hashlab::cpu::has("sha") {
        assert!(
            measured("sha256", "openssl"),
            "OpenSSL is told through OPENSSL_ia32cap"
        );
        assert!(report
            .warnings
            .iter()
            .any(|w| w.contains("OPENSSL_ia32cap=:~0x20000000")));
        assert!(!measured("sha256", "rustcrypto"));
        assert!(report.excluded.iter().any(|e| e.algorithm == "sha256"
            && e.backend == "rustcrypto"
            && e.reason.contains("cannot be told")));
    }
    let o = bench(&["--mask-cpu", "warp-drive", "-a", "sha256"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown CPU feature 'warp-drive'"));
}

#[cfg(unix)]
#[test]
fn ctrl_c_keeps_what_was_measured() {
    use std::process::Stdio;
    // At least 7 rounds of about ten cells, four of them 16 MiB messages: seconds
    // of work, so the interrupt lands before the run could finish by itself.
    let child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .args([
            "bench",
            "-a",
            "sha3-512,sha1,md5",
            "--all-backends",
            "--sizes",
            "64,16M",
            "--max-time",
            "60",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: Report =
        serde_json::from_slice(&o.stdout).expect("partial results are still complete JSON");
    assert!(report.run.partial);
    assert!(report.warnings.iter().any(|w| w.starts_with("interrupted")));
    assert!(report
        .cells
        .iter()
        .all(|c| c.samples.len() == report.run.rounds));
}

#[test]
fn short_keys_are_cells_a_table_and_pick_s_hash_table_ranking() {
    let args = [
        "-a",
        "rapidhash,xxh3-64",
        "--sizes",
        "64",
        "--keys",
        "--quick",
        "--max-time",
        "0.3",
        "--json",
    ];
    let o = bench(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Report = serde_json::from_slice(&o.stdout).unwrap();
    assert!(report.settings.keys);
    for alg in ["rapidhash", "xxh3-64"] {
        for chained in [false, true] {
            let c = report
                .cells
                .iter()
                .find(|c| c.algorithm == alg && c.mode == Mode::Keys { chained })
                .unwrap_or_else(|| panic!("{alg} short keys, chained {chained}"));
            assert_eq!(c.size, 32, "keys of 1 to 32 bytes");
            let t = c.throughput.as_ref().unwrap();
            // Throughput counts the keys' mean length, 16.5 bytes.
            assert!((t.ns_per_message * 1e-9 * t.bytes_per_second - 16.5).abs() < 1e-6);
        }
    }
    // The same run as text: the short-keys table, one row per pair.
    let text_args: Vec<&str> = args.iter().copied().filter(|a| *a != "--json").collect();
    let o = bench(&text_args);
    let text = String::from_utf8_lossy(&o.stdout);
    let table = text
        .split("\n\n")
        .find(|block| block.starts_with("Short keys, 1 to 32 bytes"))
        .unwrap_or_else(|| panic!("no short-keys table in:\n{text}"));
    assert!(table.contains("ns per hash") && table.contains("chained ns per hash"));
    assert!(table.lines().any(|l| l.starts_with("rapidhash ")));
    // pick ranks a hash table by those cells when a report has them.
    let dir = std::env::temp_dir().join(format!("hashlab-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("keys.json");
    std::fs::write(&path, serde_json::to_vec(&report).unwrap()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .args(["pick", "--for", "hash-table", "--results"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("ranked by short keys of 1 to 32 bytes"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_hash_table_over_a_word_list_is_a_cell_per_algorithm_and_a_table() {
    let dir = std::env::temp_dir().join(format!("hashlab-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let words = dir.join("words");
    // 2,000 distinct words of 1 to 12 letters, a repeat and blank lines
    // (left out), CRLF line ends (stripped).
    let mut text = String::new();
    for i in 0..2000u32 {
        let len = 1 + (i * 7 % 12) as usize;
        let word: String = (0..len)
            .map(|j| (b'a' + ((i / 26u32.pow(j as u32 % 3)) % 26) as u8) as char)
            .collect();
        text.push_str(&format!("{word}{i}\r\n"));
    }
    text.push_str("\n\na0\r\n");
    std::fs::write(&words, &text).unwrap();
    let args = [
        "-a",
        "crc32,wyhash",
        "--sizes",
        "64",
        "--quick",
        "--max-time",
        "0.3",
        "--json",
        "--table",
    ];
    let mut with_words: Vec<&str> = args.to_vec();
    with_words.push(words.to_str().unwrap());
    let o = bench(&with_words);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Report = serde_json::from_slice(&o.stdout).unwrap();
    let used = report
        .settings
        .table
        .as_ref()
        .expect("the word list in the settings");
    assert_eq!(used.words, 2000, "distinct, non-empty lines");
    let bytes: usize = text
        .lines()
        .filter(|l| !l.is_empty())
        .take(2000)
        .map(|l| l.trim_end_matches('\r').len())
        .sum();
    assert_eq!(used.bytes, bytes);
    for alg in ["crc32", "wyhash"] {
        let c = report
            .cells
            .iter()
            .find(|c| c.algorithm == alg && matches!(c.mode, Mode::Table { .. }))
            .unwrap_or_else(|| panic!("{alg}: no hash-table cell"));
        assert_eq!(c.size, 2000);
        let t = c.throughput.as_ref().unwrap();
        // A message is one insert or lookup of a word of the mean length.
        let mean = bytes as f64 / 2000.0;
        assert!((t.ns_per_message * 1e-9 * t.bytes_per_second - mean).abs() < 1e-6);
    }
    // As text: the hash-table table, fastest first, naming the list.
    let text_args: Vec<&str> = with_words
        .iter()
        .copied()
        .filter(|a| *a != "--json")
        .collect();
    let o = bench(&text_args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let table = out
        .split("\n\n")
        .find(|block| block.starts_with("Hash table: 2000 words of "))
        .unwrap_or_else(|| panic!("no hash-table table in:\n{out}"));
    assert!(table.contains("ns per operation"), "{table}");
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with("crc32 ") || l.starts_with("wyhash "))
            .count(),
        2,
        "{table}"
    );
    // Without a value, the system's word list (scripts/setup installs it).
    let o = bench(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Report = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report.settings.table.unwrap().path, "/usr/share/dict/words");
    // A missing or empty list: one line naming it, exit 2, nothing measured.
    let empty = dir.join("empty");
    std::fs::write(&empty, "\n\n").unwrap();
    for (path, problem) in [
        (dir.join("missing"), "No such file or directory"),
        (empty, "no words (one word per line)"),
    ] {
        let mut bad: Vec<&str> = args.to_vec();
        bad.push(path.to_str().unwrap());
        let o = bench(&bad);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("--table: {}: {problem}", path.display())),
            "{err}"
        );
        assert!(o.stdout.is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A tree of 300 small files and one of 2 MiB, for `bench --like`.
fn like_tree(dir: &std::path::Path) -> u64 {
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let mut total = 0;
    for i in 0..300u64 {
        let size = 512 + (i * 977) % 8192;
        let sub = if i % 2 == 0 { "" } else { "sub" };
        std::fs::write(
            dir.join(sub).join(format!("f{i}")),
            vec![i as u8; size as usize],
        )
        .unwrap();
        total += size;
    }
    std::fs::write(dir.join("large"), vec![1u8; 2 << 20]).unwrap();
    total + (2 << 20)
}

#[test]
fn like_measures_a_tree_and_checks_its_projection_against_a_real_run() {
    let scratch = tempfile::tempdir().unwrap();
    let total = like_tree(scratch.path());
    let tree = scratch.path().to_str().unwrap();
    let o = bench(&[
        "--like",
        tree,
        "-a",
        "xxh3-64,sha256",
        "--max-time",
        "1",
        "--verify",
        "sha256",
        "--workers",
        "2,8",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: hashlab_bench::like::LikeReport =
        serde_json::from_slice(&o.stdout).expect("JSON matches the LikeReport schema");
    assert!(report.shape.exact);
    assert_eq!(report.shape.files, 301.0);
    assert_eq!(report.shape.bytes, total as f64);
    let mut names: Vec<&str> = report
        .projections
        .iter()
        .map(|p| p.algorithm.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["sha256", "xxh3-64"]);
    for p in &report.projections {
        // The walk `sum -r` makes is part of every local time.
        assert!(p.walk > 0.0 && p.cached_one >= p.walk, "{p:?}");
        assert_eq!(p.dask.iter().map(|d| d.cores).collect::<Vec<_>>(), [2, 8]);
        assert_eq!(
            p.cores.iter().map(|c| c.cores).collect::<Vec<_>>(),
            [1, 4, 8, 64]
        );
    }
    assert_eq!(report.verified.len(), 1);
    let v = &report.verified[0];
    assert_eq!(
        (v.algorithm.as_str(), v.files, v.bytes),
        ("sha256", 301, total)
    );
    assert!(v.measured > 0.0 && v.projected_cached > 0.0);

    // The table names the bound and sets measured beside projected.
    let o = bench(&[
        "--like",
        tree,
        "-a",
        "xxh3-64",
        "--max-time",
        "0.5",
        "--verify",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    for heading in [
        "Shape: count and bytes per size band",
        "Projected against a real run",
        "bound",
    ] {
        assert!(text.contains(heading), "{heading} missing from:\n{text}");
    }
}

#[test]
fn like_refuses_bad_input_in_one_line() {
    let scratch = tempfile::tempdir().unwrap();
    like_tree(scratch.path());
    let tree = scratch.path().to_str().unwrap();
    let missing = scratch.path().join("missing");
    let missing = missing.to_str().unwrap();
    for (args, code, says) in [
        (
            vec!["--like", missing],
            1,
            format!("{missing}: No such file or directory"),
        ),
        (
            vec!["--like", tree, "--workers", "0"],
            2,
            "--workers: '0' is not a worker count".into(),
        ),
        (
            vec!["--like", tree, "-a", "nosuchhash"],
            2,
            "nosuchhash".into(),
        ),
        (
            vec!["--like", tree, "--max-time=0"],
            2,
            "--max-time: 0".into(),
        ),
    ] {
        let o = bench(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(&says), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}
