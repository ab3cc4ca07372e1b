//! The standard streams closed, full, unwritable or hung up: never reported
//! as success, never an abort, and a closed pipe noticed at once.
#![cfg(unix)]

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_hashlab");

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `hashlab ARGS REDIRECTION`, as a shell runs it (`>&-`, `2>/dev/full`...).
fn redirected(dir: &Path, redirection: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" \"$@\" {redirection}"))
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("HASHLAB_DB")
        .output()
        .unwrap()
}

/// Runs `test` on every item and fails listing each item that failed, so
/// one broken command does not hide another.
fn each<T: std::fmt::Debug + std::panic::RefUnwindSafe>(
    items: &[T],
    test: impl Fn(&T) + std::panic::RefUnwindSafe,
) {
    let failed: Vec<&T> = items
        .iter()
        .filter(|item| std::panic::catch_unwind(|| test(item)).is_err())
        .collect();
    assert!(failed.is_empty(), "failed for: {failed:?}");
}

/// `data/abc`, `data/two`, a manifest of both (`M`) and one where both fail
/// and a third file is missing (`BAD`).
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("data")).unwrap();
    fs::write(dir.path().join("data/abc"), "abc").unwrap();
    fs::write(dir.path().join("data/two"), "two").unwrap();
    let o = Command::new(BIN)
        .args(["sum", "-r", "data", "-o", "M"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let zeros = "0".repeat(64);
    fs::write(
        dir.path().join("BAD"),
        format!("{zeros}  data/abc\n{zeros}  data/two\n{zeros}  data/gone\n"),
    )
    .unwrap();
    dir
}

#[test]
fn a_closed_standard_output_is_a_write_error() {
    let dir = scratch();
    let cases: &[&[&str]] = &[
        &["sum", "data/abc"],
        // -a: an untagged line settled by its first file adds a notice on stderr
        &["check", "-a", "sha256", "M"],
        &["list"],
        &["audit", "M", "data"],
        &["--help"],
        &["--version"],
        &["sum", "--help"],
    ];
    each(cases, |args| {
        let o = redirected(dir.path(), ">&-", args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {o:?}");
        assert_eq!(
            text(&o.stderr),
            "hashlab: write error: Bad file descriptor\n",
            "{args:?}"
        );
    });
}

#[test]
fn a_full_standard_output_is_a_write_error() {
    let dir = scratch();
    let cases: &[&[&str]] = &[
        &["sum", "data/abc"],
        // -a: an untagged line settled by its first file adds a notice on stderr
        &["check", "-a", "sha256", "M"],
        &["list"],
        &["--help"],
        &["--version"],
        &["check", "--help"],
    ];
    each(cases, |args| {
        let o = redirected(dir.path(), ">/dev/full", args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {o:?}");
        assert_eq!(
            text(&o.stderr),
            "hashlab: write error: No space left on device\n",
            "{args:?}"
        );
    });
}

#[test]
fn a_closed_standard_input_is_an_error_not_an_empty_input() {
    let dir = scratch();
    let o = redirected(dir.path(), "<&-", &["sum"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(o.stdout, b"", "no digest of an empty input");
    assert_eq!(text(&o.stderr), "hashlab: -: Bad file descriptor\n");
    let o = redirected(dir.path(), "<&-", &["sum", "data/abc", "-"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(text(&o.stdout).lines().count(), 1, "data/abc still hashed");
    let o = redirected(dir.path(), "<&-", &["check"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("read error"), "{o:?}");
    let o = redirected(dir.path(), "<&-", &["sum", "--files-from", "-"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert_eq!(
        text(&o.stderr),
        "hashlab: --files-from: standard input: Bad file descriptor\n"
    );
}

#[test]
fn an_unwritable_standard_error_loses_messages_not_work() {
    let dir = scratch();
    each(&["2>/dev/full", "2>&-"], |redirection| {
        let o = redirected(dir.path(), redirection, &["sum", "data/abc", "nonexist"]);
        assert_eq!(o.status.code(), Some(1), "{redirection}: {o:?}");
        assert!(text(&o.stdout).ends_with("  data/abc\n"), "{o:?}");

        // check: every verdict still on stdout, the exit code still 1.
        let o = redirected(dir.path(), redirection, &["check", "BAD"]);
        assert_eq!(o.status.code(), Some(1), "{redirection}: {o:?}");
        assert_eq!(
            text(&o.stdout),
            "data/abc: FAILED\ndata/two: FAILED\ndata/gone: FAILED open or read\n",
            "{redirection}"
        );

        // Usage errors, ours and clap's.
        let o = redirected(dir.path(), redirection, &["sum", "-a", "nope", "data/abc"]);
        assert_eq!(o.status.code(), Some(2), "{redirection}: {o:?}");
        let o = redirected(dir.path(), redirection, &["sum", "--no-such-flag"]);
        assert_eq!(o.status.code(), Some(2), "{redirection}: {o:?}");
    });
}

#[test]
fn a_closed_pipe_ends_the_command_by_sigpipe() {
    let dir = scratch();
    let cases: &[&[&str]] = &[
        &["check", "-a", "sha256", "BAD"],
        &["sum", "data/abc"],
        &["list"],
    ];
    each(cases, |args| {
        // The reader is gone before the command starts: closed here, not
        // after the spawn, which a loaded machine may delay past the first
        // line (the line then sits in the pipe and the command exits 0).
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = Command::new(BIN)
            .args(*args)
            .current_dir(dir.path())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{args:?}: {o:?}");
        assert_eq!(text(&o.stderr), "", "{args:?}: no complaint");
    });
    // So a failed check stays a failure under pipefail.
    let o = Command::new("bash")
        .arg("-c")
        .arg("set -o pipefail; \"$0\" check BAD | head -1")
        .arg(BIN)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0), "{o:?}");
}

#[test]
fn a_closed_pipe_is_noticed_before_the_next_file() {
    // Another test of this binary that forks at the wrong moment holds a copy
    // of our pipe's read end until its exec, and then the write succeeds: a
    // race of the harness, not of hashlab, so a run ending without SIGPIPE is
    // tried again, and three in a row fail.
    let mut outcomes = Vec::new();
    for _ in 0..3 {
        match closed_pipe_attempt() {
            Ok(()) => return,
            Err(o) => outcomes.push(o),
        }
    }
    panic!("no SIGPIPE in three runs: {outcomes:?}");
}

fn closed_pipe_attempt() -> Result<(), std::process::Output> {
    // data/abc, then a FIFO nobody writes yet: the line of abc must reach the
    // reader before hashlab waits on the FIFO, and once the reader is gone the
    // next line ends the run (no more files read for nobody).
    let dir = scratch();
    let fifo = dir.path().join("fifo");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    let mut child = Command::new(BIN)
        .args(["sum", "-j", "1", "data/abc", "fifo", "data/two"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sent, got) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let mut reader = BufReader::new(stdout);
        let _ = reader.read_line(&mut first);
        // Gone, as `head -1` goes.
        drop(reader);
        let _ = sent.send(first);
    });
    let first = got.recv_timeout(Duration::from_secs(20));
    // Let the FIFO go either way, so the child can end; without blocking, in
    // case the child never opens it.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut writer = loop {
        use std::os::unix::fs::OpenOptionsExt;
        match fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
        {
            Ok(w) => break w,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if child.try_wait().unwrap().is_some() || std::time::Instant::now() > deadline {
                    let _ = child.kill();
                    panic!("hashlab never opened the FIFO: {:?}", child.wait());
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("open the FIFO: {e}"),
        }
    };
    writer.write_all(b"late").unwrap();
    drop(writer);
    let first = first.unwrap_or_else(|_| {
        let _ = child.kill();
        panic!("the first line was held back while the next file was read")
    });
    assert!(first.ends_with("  data/abc\n"), "{first}");
    let o = child.wait_with_output().unwrap();
    if o.status.signal() == Some(libc::SIGPIPE) {
        Ok(())
    } else {
        Err(o)
    }
}
