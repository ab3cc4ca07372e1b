//! Every reader of a file a user passes holds a bounded amount of memory,
//! whatever the file holds: a file without line ends (`/dev/zero`) is
//! refused with one line naming it and the line, and a file hashed through
//! a memory map does not keep the whole map resident. Each case runs the
//! binary as a child and takes its peak resident memory from wait4(2); the
//! unbounded cases run under a limit on the child's address space
//! (RLIMIT_AS), so that code without the bound fails fast and harmlessly on
//! a shared machine instead of growing until the OOM killer comes.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::Scratch;

const MIB: u64 = 1 << 20;

struct Ran {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    /// Peak resident set, in bytes.
    max_rss: u64,
}

/// Runs hashlab with `args` in `dir`, under `address_space` bytes of
/// address space if given, killed after `deadline`.
fn run_measured(args: &[&str], dir: &Path, address_space: Option<u64>, deadline: Duration) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashlab"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(bytes) = address_space {
        common::limit_address_space(&mut command, bytes);
    }
    // Reaped by wait4 below, which `Child::wait` would not let us call.
    #[allow(clippy::zombie_processes)]
    let mut child = command.spawn().expect("run hashlab");
    let pid = child.id() as libc::pid_t;
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
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // Reaped here rather than by `Child::wait`, which gives no rusage.
        // SAFETY: `pid` is our own unreaped child; both pointers are valid.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(reaped >= 0, "wait4: {}", std::io::Error::last_os_error());
        if reaped == pid {
            break;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            // SAFETY: as above.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            let stderr = String::from_utf8_lossy(&err.join().unwrap()).into_owned();
            panic!("hashlab {args:?} still ran after {deadline:?}; stderr: {stderr}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ran {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout: out.join().unwrap(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
        // Linux gives ru_maxrss in KiB.
        max_rss: usage.ru_maxrss as u64 * 1024,
    }
}

/// Far more than any of these runs needs, and far less than a reader
/// without a bound reaches in the seconds before it is stopped.
const RSS_BOUND: u64 = 256 * MIB;
/// Room for the binary, its threads' stacks and allocator arenas.
const ADDRESS_SPACE: u64 = 4 << 30;
const TOO_LONG: &str = "line 1 is longer than 65536 bytes, the longest line hashlab reads";

#[test]
fn files_without_line_ends_are_refused_in_bounded_memory() {
    let scratch = Scratch::with_files("memory-zero", &[("d/f", b"data\n")]);
    let cases: &[(&[&str], &str)] = &[
        (&["check", "/dev/zero"], "hashlab: /dev/zero: "),
        (&["audit", "/dev/zero", "d"], "hashlab: /dev/zero: "),
        (
            &["sum", "--update", "/dev/zero", "-r", "d"],
            "hashlab: /dev/zero: ",
        ),
        (
            &["sum", "--files-from", "/dev/zero"],
            "hashlab: --files-from: /dev/zero: ",
        ),
        (
            &["bench", "--quick", "--table", "/dev/zero", "-a", "xxh3-64"],
            "hashlab: --table: /dev/zero: ",
        ),
    ];
    for (args, prefix) in cases {
        let ran = refused_in_bounded_memory(args, scratch.path());
        assert!(ran.stdout.is_empty(), "{args:?}: output on stdout");
        assert_eq!(ran.stderr.lines().count(), 1, "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.starts_with(&format!("{prefix}{TOO_LONG}")),
            "{args:?}: {}",
            ran.stderr
        );
    }
}

/// Runs `args` under the address-space limit and checks that it was
/// refused (exit 1 or 2, no panic) below [`RSS_BOUND`].
fn refused_in_bounded_memory(args: &[&str], dir: &Path) -> Ran {
    let ran = run_measured(args, dir, Some(ADDRESS_SPACE), Duration::from_secs(60));
    eprintln!(
        "{args:?}: exit {:?}, max RSS {} KiB",
        ran.code,
        ran.max_rss / 1024
    );
    assert!(!ran.stderr.contains("panicked"), "{args:?}: {}", ran.stderr);
    assert!(
        matches!(ran.code, Some(1 | 2)),
        "{args:?}: exit {:?}: {}",
        ran.code,
        ran.stderr
    );
    assert!(
        ran.max_rss < RSS_BOUND,
        "{args:?}: peak RSS {} MiB",
        ran.max_rss / MIB
    );
    ran
}

/// Failed on b4b9c33 (and after the line bound): `/dev/zero` read with
/// `-z` is an endless run of empty records, which no line bound stops (the
/// readers that take a manifest whole reached 2 GiB and aborted; `check`
/// never ended), and the JSON readers took it whole before parsing it.
#[test]
fn endless_empty_records_and_documents_are_refused_in_bounded_memory() {
    let scratch = Scratch::with_files("memory-zero-z", &[("d/f", b"data\n")]);
    const BLANK: &str = "line 65536 ends a run of 65536 empty lines (not a list of files?)";
    const NOT_JSON: &str = "not a JSON document (it does not start with { or [)";
    let cases: &[(&[&str], String)] = &[
        (
            &["check", "-z", "/dev/zero"],
            format!("hashlab: /dev/zero: {BLANK}"),
        ),
        (
            &["audit", "-z", "/dev/zero", "d"],
            format!("hashlab: /dev/zero: {BLANK}"),
        ),
        (
            &["sum", "-z", "--update", "/dev/zero", "-r", "d"],
            format!("hashlab: /dev/zero: {BLANK}"),
        ),
        (
            &["sum", "-0", "--files-from", "/dev/zero"],
            format!("hashlab: --files-from: /dev/zero: {BLANK}"),
        ),
        (
            &["compare", "/dev/zero", "/dev/zero"],
            format!("hashlab: /dev/zero: {NOT_JSON}"),
        ),
        (
            &["report", "/dev/zero", "-o", "r.html"],
            format!("hashlab: /dev/zero: {NOT_JSON}"),
        ),
        (
            &["info", "sha256", "--results", "/dev/zero"],
            format!("hashlab: /dev/zero: {NOT_JSON}"),
        ),
    ];
    for (args, expected) in cases {
        let ran = refused_in_bounded_memory(args, scratch.path());
        assert_eq!(ran.stderr.trim_end(), expected, "{args:?}");
    }
    assert!(!scratch.path().join("r.html").exists());
}

#[test]
fn a_line_at_the_limit_is_read_and_one_past_it_is_refused() {
    let scratch = Scratch::new("memory-limit");
    // Names of the longest lengths: no such file exists, so a line, once
    // read, is a checksum line whose file cannot be opened.
    let digest = "a".repeat(64);
    let line = |len: usize| {
        let name = "x/".repeat(len);
        format!("{digest}  {}\n", &name[..len - 66])
    };
    scratch.write("at.sha256", line(65536).as_bytes());
    scratch.write("past.sha256", line(65537).as_bytes());
    let at = run_measured(
        &["check", "at.sha256"],
        scratch.path(),
        None,
        Duration::from_secs(60),
    );
    assert_eq!(at.code, Some(1), "{}", at.stderr);
    assert!(
        String::from_utf8_lossy(&at.stdout).ends_with(": FAILED open or read\n"),
        "the line was not read: {}",
        at.stderr
    );
    let past = run_measured(
        &["check", "past.sha256"],
        scratch.path(),
        None,
        Duration::from_secs(60),
    );
    assert_eq!(past.code, Some(1));
    assert!(past.stdout.is_empty());
    assert_eq!(
        past.stderr.trim_end(),
        format!("hashlab: past.sha256: {TOO_LONG} (not a text file?)")
    );
}

/// A sparse file hashed through a map: its pages are given back behind the
/// hash, so a file larger than the bound never holds more than a few spans
/// resident (a whole 100 GB map reached 23.6 GB RSS).
#[test]
fn a_mapped_file_is_not_held_resident_whole() {
    let scratch = Scratch::new("memory-map");
    let big = std::fs::File::create(scratch.path().join("sparse")).unwrap();
    big.set_len(2 << 30).unwrap();
    drop(big);
    // sha256 is hashed on one thread with a second populating the map
    // ahead, blake3 by every core over the map handed out in parts.
    for algorithm in ["sha256", "blake3"] {
        let args = ["sum", "-a", algorithm, "sparse"];
        let ran = run_measured(&args, scratch.path(), None, Duration::from_secs(300));
        eprintln!(
            "{args:?}: exit {:?}, max RSS {} KiB",
            ran.code,
            ran.max_rss / 1024
        );
        assert_eq!(ran.code, Some(0), "{args:?}: {}", ran.stderr);
        // The digests of 2 GiB of zeros, from sha256sum and b3sum.
        let expected = match algorithm {
            "sha256" => "a7c744c13cc101ed66c29f672f92455547889cc586ce6d44fe76ae824958ea51",
            _ => "cbd71ef31685ea2c6ce0c146ef1d160b4d458f29cea2a61536a8a65f195fdb82",
        };
        assert_eq!(
            String::from_utf8_lossy(&ran.stdout),
            format!("{expected}  sparse\n"),
            "{args:?}"
        );
        assert!(
            ran.max_rss < RSS_BOUND,
            "{args:?}: peak RSS {} MiB",
            ran.max_rss / MIB
        );
    }
}

/// `check` keeps a hasher and its read buffer for the (algorithm, length)
/// pairs it used last, not for every pair of the manifest: 3,000 SHAKE256
/// lines of different lengths held 794 MB to the end.
#[test]
fn check_keeps_hashers_for_few_digest_lengths() {
    let scratch = Scratch::new("memory-lengths");
    // Larger than a read buffer, so that every buffer kept is touched whole.
    scratch.write("f", &[7u8; 300_000]);
    let lines: String = (1..=2000)
        .map(|len| format!("{}  f\n", "0".repeat(2 * len)))
        .collect();
    scratch.write("m", lines.as_bytes());
    let args = ["check", "--quiet", "-a", "shake256", "m"];
    let ran = run_measured(&args, scratch.path(), None, Duration::from_secs(120));
    eprintln!(
        "{args:?}: exit {:?}, max RSS {} KiB",
        ran.code,
        ran.max_rss / 1024
    );
    // Every line was checked (and failed: no digest is all zeros).
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout).lines().count(),
        2000,
        "{}",
        ran.stderr
    );
    assert!(
        ran.max_rss < RSS_BOUND,
        "{args:?}: peak RSS {} MiB",
        ran.max_rss / MIB
    );
}
