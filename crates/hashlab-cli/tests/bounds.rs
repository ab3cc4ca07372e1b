//! Hostile arguments: every number an option takes, and every allocation or
//! read derived from one, is bounded. A value past a bound is a usage error
//! (exit 2) on one line naming the option and the limit, never a panic, an
//! abort (the release build aborts on panic) or a run without end. Cases that
//! would allocate run under a limit on the child's address space (RLIMIT_AS),
//! so that they fail fast and harmlessly on a shared machine, fixed or not.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use hashlab_bench::plan::Mode;
use hashlab_bench::report::Report;

const MIB: u64 = 1 << 20;

/// Runs hashlab with `args`, under `memory` bytes of address space if given,
/// killed after `deadline` (so an unbounded run fails the test instead of
/// hanging it).
fn run_limited(
    args: &[&str],
    memory: Option<u64>,
    dir: Option<&Path>,
    deadline: Duration,
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashlab"));
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    if let Some(bytes) = memory {
        common::limit_address_space(&mut command, bytes);
    }
    let mut child = command.spawn().expect("run hashlab");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stdout.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let status = child.wait().unwrap();
            let stderr = String::from_utf8_lossy(&err.join().unwrap()).into_owned();
            panic!("hashlab {args:?} still ran after {deadline:?} ({status}); stderr: {stderr}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn run(args: &[&str]) -> Output {
    run_limited(args, None, None, Duration::from_secs(60))
}

/// Exit 2, nothing on stdout, and one line on stderr that starts with
/// `prefix` and names `limit`; no panic message.
fn assert_usage_error(args: &[&str], o: &Output, prefix: &str, limit: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    assert_eq!(o.status.code(), Some(2), "{args:?}: {} {err}", o.status);
    assert!(o.stdout.is_empty(), "{args:?}: output on stdout");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with(prefix), "{args:?}: {err}");
    assert!(
        err.contains(limit),
        "{args:?}: the limit '{limit}' is not named: {err}"
    );
}

const QUICK: &[&str] = &["bench", "-a", "sha256", "--quick", "--quiet"];

/// A short bench with `extra` options (and a budget of 0.2 s unless they set one).
fn bench_with(extra: &[&str]) -> Vec<String> {
    let budget: &[&str] = if extra.contains(&"--max-time") {
        &[]
    } else {
        &["--max-time", "0.2"]
    };
    QUICK
        .iter()
        .chain(budget)
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn numbers_past_their_bounds_are_usage_errors() {
    let cases: &[(&[&str], &str, &str)] = &[
        // Index out of range, capacity overflow and an allocation failure before.
        (
            &["--misalign", "18446744073709547520"],
            "hashlab: --misalign: ",
            "limit of 4095",
        ),
        (
            &["--misalign", "9223372036854775807"],
            "hashlab: --misalign: ",
            "limit of 4095",
        ),
        (
            &["--misalign", "100000000000"],
            "hashlab: --misalign: ",
            "limit of 4095",
        ),
        (
            &["--misalign", "4096"],
            "hashlab: --misalign: ",
            "limit of 4095",
        ),
        (
            &["--sizes", "2000G"],
            "hashlab: --sizes: ",
            "limit of 1 TiB",
        ),
        (
            &[
                "--sizes",
                &(1..=65)
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            ],
            "hashlab: --sizes: ",
            "limit of 64",
        ),
        (&["--threads", "1025"], "hashlab: --threads: ", "1 to 1024"),
        (
            &["--max-time", "1e300"],
            "hashlab: --max-time: ",
            "at most 1000000 s",
        ),
        (
            &["--max-time", "nan"],
            "hashlab: --max-time: ",
            "at most 1000000 s",
        ),
        (
            &["--pin", "18446744073709551615"],
            "hashlab: --pin: ",
            "may run on (allowed: ",
        ),
        (
            &["--pin", "1023"],
            "hashlab: --pin: ",
            "may run on (allowed: ",
        ),
    ];
    for (extra, prefix, limit) in cases {
        let args = bench_with(extra);
        let args = strs(&args);
        assert_usage_error(&args, &run(&args), prefix, limit);
    }
    let args = ["cpu", "--clock-ms", "18446744073709551615"];
    assert_usage_error(
        &args,
        &run(&args),
        "hashlab: --clock-ms: ",
        "limit of 60000 ms",
    );
    let args = ["report", "--max-time", "1e300", "-o", "-"];
    assert_usage_error(
        &args,
        &run(&args),
        "hashlab: --max-time: ",
        "at most 1000000 s",
    );
}

#[test]
fn inputs_larger_than_memory_may_hold_are_usage_errors() {
    // 16 GiB under a 1 GiB address space: the allocator refuses (or, on a
    // machine with less than 16 GiB, the check against physical memory does).
    for extra in [
        &["--sizes", "16G"][..],
        &["--sizes", "1G", "--threads", "1024"],
    ] {
        let args = bench_with(extra);
        let args = strs(&args);
        let o = run_limited(&args, Some(1024 * MIB), None, Duration::from_secs(60));
        assert_usage_error(&args, &o, "hashlab: --sizes/--threads: ", "memory");
    }
    let args = ["pick", "--for", "integrity", "--size", "16G"];
    let o = run_limited(&args, Some(1024 * MIB), None, Duration::from_secs(60));
    assert_usage_error(&args, &o, "hashlab: --size: ", "memory");
}

#[test]
fn key_files_are_read_no_further_than_the_longest_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("abc"), b"abc").unwrap();
    for command in ["sum", "check"] {
        let args = [
            command,
            "-a",
            "hmac-sha256",
            "--key-file",
            "/dev/zero",
            "abc",
        ];
        // Without the bound the read grows until the address space is spent.
        let o = run_limited(
            &args,
            Some(1024 * MIB),
            Some(dir.path()),
            Duration::from_secs(60),
        );
        assert_usage_error(
            &args,
            &o,
            "hashlab: --key-file: /dev/zero: ",
            "longer than 1048576 bytes",
        );
    }
    // A key at the limit is a key.
    std::fs::write(dir.path().join("key"), vec![7u8; 1 << 20]).unwrap();
    let o = run_limited(
        &["sum", "-a", "hmac-sha256", "--key-file", "key", "abc"],
        None,
        Some(dir.path()),
        Duration::from_secs(60),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn unknown_backends_are_usage_errors_listing_the_known_ones() {
    for backends in ["nosuch", "openssl,nosuch", "nosuch,openssl"] {
        let args = bench_with(&["-b", backends]);
        let args = strs(&args);
        let o = run(&args);
        assert_usage_error(
            &args,
            &o,
            "hashlab: --backends: unknown backend 'nosuch' (known: ",
            "ring, rustcrypto, siphasher",
        );
    }
}

#[test]
fn compare_refuses_sizes_no_input_measured() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/results/zen4-plain.json"
    );
    for sizes in ["7", "1K,7"] {
        let args = ["compare", "--size", sizes, fixture, fixture];
        assert_usage_error(
            &args,
            &run(&args),
            "hashlab: --size: 7 B was not measured by any input (measured: 16 B, 64 B,",
            "16 MiB)",
        );
    }
    let args = ["compare", "--size", "1K", fixture, fixture];
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn arguments_that_are_not_utf8_do_not_panic() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"\xff.json");
    std::fs::write(dir.path().join(name), b"abc").unwrap();
    // The command line recorded in bench results and hashdeep headers.
    let runs: [&[&std::ffi::OsStr]; 2] = [
        &[
            "bench".as_ref(),
            "-a".as_ref(),
            "crc32c".as_ref(),
            "--sizes".as_ref(),
            "64".as_ref(),
            "--quick".as_ref(),
            "--max-time".as_ref(),
            "0.1".as_ref(),
            "-q".as_ref(),
            "-o".as_ref(),
            name,
        ],
        &[
            "sum".as_ref(),
            "--format".as_ref(),
            "hashdeep".as_ref(),
            name,
        ],
    ];
    for args in runs {
        let o = Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `--max-time` bounds the run even where one sample takes long: a large
/// message, or a large file. Asserted by what the report says, not by time.
#[test]
fn the_time_budget_holds_for_large_messages_and_files() {
    // One sha3-256 of 512 MiB takes half a second at the fastest: the five
    // rounds --quick wants fit neither in the budget nor in the second of
    // grace the minimum rounds get past it.
    let args = [
        "bench",
        "-a",
        "sha3-256",
        "--baseline",
        "sha3-256",
        "--sizes",
        "512M",
        "--quick",
        "--max-time",
        "0.5",
        "--json",
    ];
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Report = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        (1..5).contains(&report.run.rounds),
        "{} rounds",
        report.run.rounds
    );
    assert!(report
        .warnings
        .iter()
        .any(|w| w.starts_with("the time budget of 0.5 s allowed")));
    assert!(report
        .cells
        .iter()
        .all(|c| c.samples.len() == report.run.rounds));

    // A 256 MiB file (a quarter of a second per sha256 at the fastest), and
    // four algorithms whose warm-up alone spends the budget: each is still
    // measured, in one round.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.bin");
    std::fs::write(&file, vec![5u8; 256 << 20]).unwrap();
    let file = file.to_str().unwrap();
    let args = [
        "bench",
        "-a",
        "sha256,sha512,sha3-256,md5",
        "--sizes",
        "64M",
        "--file",
        file,
        "--quick",
        "--max-time",
        "0.2",
        "--json",
    ];
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Report = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report.run.rounds, 1, "{:?}", report.warnings);
    assert!(report
        .warnings
        .iter()
        .any(|w| w.starts_with("the time budget of 0.2 s allowed 1 round(s)")));
    for alg in ["sha256", "sha512", "sha3-256", "md5"] {
        for file_cell in [false, true] {
            assert!(
                report.cells.iter().any(|c| c.algorithm == alg
                    && matches!(c.mode, Mode::File { .. }) == file_cell
                    && c.throughput.is_some()),
                "{alg} (file: {file_cell}) measured"
            );
        }
    }
}

/// A history file's schema version indexes the migrations: one no hashlab
/// writes (negative) is refused, not used as an index.
#[test]
fn a_history_with_a_negative_schema_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA application_id = 1751933282; PRAGMA user_version = -1;")
        .unwrap();
    drop(conn);
    let db = db.to_str().unwrap();
    for args in [
        &["history", "--db", db][..],
        &[
            "bench",
            "-a",
            "crc32c",
            "--sizes",
            "64",
            "--quick",
            "-q",
            "--max-time",
            "0.1",
            "--save",
            "--db",
            db,
        ],
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("not a hashlab history"), "{args:?}: {err}");
    }
}

/// `--jobs` starts that many threads: a count past the limit is refused (it
/// overflowed the library's arithmetic before).
#[test]
fn job_counts_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("abc"), b"abc").unwrap();
    std::fs::write(
        dir.path().join("M.sha256"),
        b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc\n",
    )
    .unwrap();
    for args in [
        &["sum", "-j", "2305843009213693952", "abc", "abc"][..],
        &["sum", "-j", "1025", "abc", "abc"],
        &["audit", "-j", "2305843009213693952", "M.sha256", "."],
    ] {
        let o = run_limited(args, None, Some(dir.path()), Duration::from_secs(60));
        assert_usage_error(args, &o, "hashlab: --jobs: ", "limit of 1024");
    }
    let o = run_limited(
        &["sum", "-j", "1024", "abc", "abc"],
        None,
        Some(dir.path()),
        Duration::from_secs(60),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
