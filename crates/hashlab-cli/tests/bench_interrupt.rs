//! `bench --file` ends within a second of SIGINT or SIGTERM, in the middle
//! of a pass over the file: it waited for the pass to end (a 20 GB file:
//! 56 s after SIGINT).
#![cfg(unix)]

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::Scratch;

/// What a signal may take to end the run: a chunk of the file, the partial
/// report, the process's exit. Far less than one pass over the file.
const PROMPTLY: Duration = Duration::from_secs(1);

#[test]
fn a_file_bench_ends_soon_after_sigint_or_sigterm() {
    let scratch = Scratch::new("bench-interrupt");
    // Sparse: no disk is written, and a pass over it at the speed of the
    // slowest hash here takes several seconds.
    let file = scratch.path().join("big");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .args(["bench", "--quiet", "-a", "ascon-hash256", "--file"])
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let err = std::thread::spawn(move || {
            let mut v = String::new();
            let _ = stderr.read_to_string(&mut v);
            v
        });
        let out = std::thread::spawn(move || {
            let mut v = String::new();
            let _ = stdout.read_to_string(&mut v);
            v
        });
        // Into the first pass over the file (the in-memory cells come first).
        std::thread::sleep(Duration::from_secs(4));
        assert!(
            child.try_wait().unwrap().is_none(),
            "ended before the signal"
        );
        // SAFETY: a signal to our own child, not yet reaped.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let sent = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if sent.elapsed() > Duration::from_secs(120) {
                let _ = child.kill();
                panic!("signal {signal}: still running 120 s later");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let took = sent.elapsed();
        let stderr = err.join().unwrap();
        let stdout = out.join().unwrap();
        eprintln!("signal {signal}: ended {took:?} after it, {status}");
        assert!(took < PROMPTLY, "signal {signal}: ended {took:?} after it");
        assert_eq!(status.code(), Some(130), "signal {signal}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        // What was measured is still printed, marked partial.
        assert!(stdout.contains("partial"), "{stdout}\n{stderr}");
    }
}
