//! How `sum`, `check` and `audit` read what they are given: trees with
//! symbolic-link and bind-mount loops, inputs whose size is not known before
//! reading (pipes, FIFOs, /proc and /sys files) and interrupts in the middle
//! of a large file.
#![cfg(unix)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{hashlab_in, text};

use hashlab_testkit::skip;

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let root =
            std::env::temp_dir().join(format!("hashlab-reading-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        Dir(root)
    }
    fn path(&self) -> &Path {
        &self.0
    }
    fn write(&self, name: &str, body: &[u8]) {
        let p = self.0.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
    fn link(&self, target: &str, name: &str) {
        std::os::unix::fs::symlink(target, self.0.join(name)).unwrap();
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Waits for `child` at most `limit`; kills it and fails the test if it is
/// still running then (a walk in a loop, a hash that ignores an interrupt).
fn finish_within(mut child: Child, limit: Duration, what: &str) -> Output {
    fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut v);
            }
            v
        })
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// The binary, with SIGINT and SIGTERM at their default action: a test
/// started in the background by a shell without job control inherits SIGINT
/// ignored, and a run that installs no handler rightly keeps ignoring it, as
/// `sha256sum` does.
fn hashlab_with_default_signals() -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashlab"));
    // SAFETY: signal(2) is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            for signal in [libc::SIGINT, libc::SIGTERM] {
                if libc::signal(signal, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    command
}

fn spawn_in(dir: &Path, args: &[&str]) -> Child {
    hashlab_with_default_signals()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn names_in(stdout: &[u8]) -> Vec<String> {
    text(stdout)
        .lines()
        .map(|l| l.split_once("  ").unwrap().1.to_string())
        .collect()
}

#[test]
fn symbolic_link_loops_are_reported_once_each_and_the_walk_goes_on() {
    let d = Dir::new("links");
    d.write("loop/file.txt", b"top\n");
    d.write("loop/a/b/leaf", b"leaf\n");
    d.write("shared/s.txt", b"shared\n");
    std::fs::create_dir_all(d.path().join("loop/d")).unwrap();
    d.link(".", "loop/self");
    d.link("..", "loop/d/up");
    d.link("../..", "loop/a/b/up2");
    // Two links to one directory outside the tree: no loop, both hashed (as find -L lists both).
    d.link("../shared", "loop/l1");
    d.link("../shared", "loop/l2");
    d.link("nowhere", "loop/dangling");
    for jobs in ["1", "2"] {
        let child = spawn_in(d.path(), &["sum", "-r", "-L", "-j", jobs, "loop"]);
        let o = finish_within(child, Duration::from_secs(30), "sum -r -L over loops");
        // find -L exits 1 after a loop, and so do we.
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        assert_eq!(
            names_in(&o.stdout),
            [
                "loop/a/b/leaf",
                "loop/file.txt",
                "loop/l1/s.txt",
                "loop/l2/s.txt"
            ]
        );
        let stderr = text(&o.stderr);
        let loops: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("file system loop"))
            .collect();
        assert_eq!(
            loops,
            [
                "hashlab: loop/a/b/up2: file system loop: the same directory as loop, which contains it",
                "hashlab: loop/d/up: file system loop: the same directory as loop, which contains it",
                "hashlab: loop/self: file system loop: the same directory as loop, which contains it",
            ],
            "{stderr}"
        );
        assert!(
            stderr.contains("hashlab: loop/dangling: No such file or directory"),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 4, "{stderr}");
    }
    // Without -L the links are not followed: no loop, nothing to report.
    let o = hashlab_in(d.path(), &["sum", "-r", "loop"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(names_in(&o.stdout), ["loop/a/b/leaf", "loop/file.txt"]);
}

/// A directory bind-mounted inside itself: the same directory (device and
/// inode) again below itself, which `find` reports as a loop and no symbolic
/// link makes, so every walker meets it (`sum -r` without -L, `audit`).
struct BindLoop {
    dir: Dir,
    mounted: PathBuf,
}

impl BindLoop {
    fn new(name: &str) -> Option<BindLoop> {
        let dir = Dir::new(name);
        dir.write("tree/f", b"f\n");
        let mounted = dir.path().join("tree/sub");
        std::fs::create_dir_all(&mounted).unwrap();
        let ok = Command::new("mount")
            .arg("--bind")
            .arg(dir.path().join("tree"))
            .arg(&mounted)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(BindLoop { dir, mounted })
    }
}

impl Drop for BindLoop {
    fn drop(&mut self) {
        // Unmounted before the directory is removed: a mount point cannot be.
        let _ = Command::new("umount").arg("-l").arg(&self.mounted).status();
    }
}

#[test]
fn bind_mount_loops_end_the_walks_of_sum_and_audit() {
    let Some(bind) = BindLoop::new("bind") else {
        skip("cannot bind-mount here (needs root and CAP_SYS_ADMIN)");
        return;
    };
    let root = bind.dir.path();
    let child = spawn_in(root, &["sum", "-r", "tree"]);
    let o = finish_within(child, Duration::from_secs(30), "sum -r over a bind mount");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(names_in(&o.stdout), ["tree/f"]);
    assert_eq!(
        text(&o.stderr),
        "hashlab: tree/sub: file system loop: the same directory as tree, which contains it\n"
    );
    std::fs::write(
        root.join("M.sha256"),
        "092fcfbbcfca3b5be7ae1b5e58538e92c35ab273ae13664fed0d67484c8e78a6  tree/f\n",
    )
    .unwrap();
    let child = spawn_in(root, &["audit", "M.sha256", "tree"]);
    let o = finish_within(child, Duration::from_secs(30), "audit over a bind mount");
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}{}", text(&o.stderr));
    assert!(stdout.contains("tree/sub: file system loop"), "{stdout}");
    assert!(stdout.contains("1 matched"), "{stdout}");
}

/// The object id `git hash-object` gives `bytes`, in a repository of
/// `format` (sha256 ids exist only inside a sha256 repository).
fn git_blob_id(repos: &Path, format: &str, bytes: &[u8]) -> Option<String> {
    let repo = repos.join(format!("repo-{format}"));
    if !repo.exists() {
        let init = Command::new("git")
            .args(["init", "-q", &format!("--object-format={format}")])
            .arg(&repo)
            .status()
            .ok()?;
        assert!(init.success());
    }
    let mut git = Command::new("git")
        .current_dir(&repo)
        .args(["hash-object", "--no-filters", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = git.stdin.take().unwrap();
    let body = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&body));
    let out = git.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    Some(text(&out.stdout).trim().to_string())
}

fn first_field(stdout: &[u8]) -> String {
    text(stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// `sum --git` of `bytes` arriving through a pipe on standard input.
fn sum_git_of_stdin(alg: &str, bytes: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .args(["sum", "--git", "-a", alg])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let body = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&body));
    let out = finish_within(child, Duration::from_secs(60), "sum --git of a pipe");
    writer.join().unwrap().unwrap();
    out
}

/// Stable pseudo files: their size says 0 (procfs) or 4096 (sysfs), not their length.
fn stable_pseudo_files() -> Vec<&'static str> {
    let candidates = [
        "/proc/version",
        "/proc/sys/kernel/ostype",
        "/sys/kernel/mm/transparent_hugepage/enabled",
    ];
    let present: Vec<&str> = candidates
        .into_iter()
        .filter(|p| std::fs::read(p).is_ok_and(|b| !b.is_empty()))
        .collect();
    if present.len() < candidates.len() {
        skip("some of /proc/version, /proc/sys/kernel/ostype, /sys/kernel/mm/transparent_hugepage/enabled are missing");
    }
    present
}

#[test]
fn git_ids_of_inputs_of_unknown_size_match_git() {
    let d = Dir::new("git");
    if Command::new("git").arg("--version").output().is_err() {
        skip("git is not installed");
        return;
    }
    // Past the bound up to which an input of unknown size is kept in memory.
    let large: Vec<u8> = (0..(9u32 << 20) + 3)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for alg in ["sha1", "sha256"] {
        let id = |bytes: &[u8]| git_blob_id(d.path(), alg, bytes).unwrap();
        for (what, bytes) in [
            ("abc", b"abc".as_slice()),
            ("empty", b"".as_slice()),
            ("large", large.as_slice()),
        ] {
            let o = sum_git_of_stdin(alg, bytes);
            assert!(o.status.success(), "{alg} {what}: {}", text(&o.stderr));
            assert_eq!(first_field(&o.stdout), id(bytes), "{alg} {what} on stdin");
        }
        // A pipe named on the command line (/dev/fd/N), as bash's <(...) gives it.
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "exec \"$0\" sum --git -a {alg} <(printf abc) <(printf '')"
            ))
            .arg(env!("CARGO_BIN_EXE_hashlab"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        let ids: Vec<String> = text(&o.stdout)
            .lines()
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect();
        assert_eq!(ids, [id(b"abc"), id(b"")], "{alg} <(printf ...)");
        // A FIFO.
        let fifo = d.path().join(format!("fifo-{alg}"));
        assert!(Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let writer = {
            let (fifo, body) = (fifo.clone(), large.clone());
            std::thread::spawn(move || std::fs::write(fifo, body))
        };
        let child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .args(["sum", "--git", "-a", alg])
            .arg(&fifo)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = finish_within(child, Duration::from_secs(60), "sum --git of a FIFO");
        writer.join().unwrap().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(first_field(&o.stdout), id(&large), "{alg} FIFO");
        // Files whose size is not their length: git itself trusts the size
        // (`git hash-object /proc/version` gives the empty blob's id), so the
        // reference is git given the bytes.
        for file in stable_pseudo_files() {
            let bytes = std::fs::read(file).unwrap();
            let o = hashlab_in(d.path(), &["sum", "--git", "-a", alg, file]);
            assert!(o.status.success(), "{file}: {}", text(&o.stderr));
            assert_eq!(first_field(&o.stdout), id(&bytes), "{alg} {file}");
        }
        // A regular file, as `git hash-object FILE` reads it; and as standard input.
        d.write("regular", &large[..100_000]);
        let o = hashlab_in(d.path(), &["sum", "--git", "-a", alg, "regular"]);
        assert_eq!(first_field(&o.stdout), id(&large[..100_000]), "{alg} file");
        let o = Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .args(["sum", "--git", "-a", alg])
            .stdin(std::fs::File::open(d.path().join("regular")).unwrap())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(
            first_field(&o.stdout),
            id(&large[..100_000]),
            "{alg} < file"
        );
    }
}

#[test]
fn files_whose_size_is_not_their_length_are_read_to_their_end() {
    let d = Dir::new("pseudo");
    let files = stable_pseudo_files();
    let theirs = Command::new("sha256sum").args(&files).output().unwrap();
    assert!(theirs.status.success());
    for extra in [&[][..], &["--no-mmap"][..], &["-j", "1"][..]] {
        let o = hashlab_in(d.path(), &[&["sum"][..], extra, &files].concat());
        assert!(o.status.success(), "{extra:?}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout), text(&theirs.stdout), "{extra:?}");
    }
    std::fs::write(d.path().join("M.sha256"), &theirs.stdout).unwrap();
    let o = hashlab_in(d.path(), &["check", "M.sha256"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let expected: String = files.iter().map(|f| format!("{f}: OK\n")).collect();
    assert_eq!(text(&o.stdout), expected);
    let o = hashlab_in(d.path(), &[&["audit", "M.sha256"][..], &files].concat());
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    assert!(
        text(&o.stdout).contains(&format!("{} matched", files.len())),
        "{}",
        text(&o.stdout)
    );
}

/// A sparse file far larger than can be hashed in the time allowed: its
/// holes read as zeros at memory speed, and it takes no disk space.
fn huge_sparse_file(d: &Dir) -> PathBuf {
    let path = d.path().join("huge");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(200 << 30)
        .unwrap();
    path
}

fn signal(child: &Child, name: &str) {
    assert!(Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap()
        .success());
}

/// What the directory holds besides the big file and the manifest: `-o`'s
/// temporary files, had any been left.
fn leftovers(d: &Dir) -> Vec<String> {
    std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "huge" && n != "M")
        .collect()
}

/// Hashing 200 GiB takes minutes; an interrupted run must end in seconds.
const INTERRUPTED_WITHIN: Duration = Duration::from_secs(20);

#[test]
fn an_interrupt_ends_the_hash_of_a_large_file_at_once() {
    let d = Dir::new("interrupt");
    huge_sparse_file(&d);
    // Every way a large file is read: a populated map (sha256), a map hashed
    // by every core (blake3), read() (xxh3-64), a map shared by two hashers,
    // a reader thread (--no-mmap), and -j with two files (workers).
    let ways: [&[&str]; 6] = [
        &["-a", "sha256"],
        &["-a", "blake3"],
        &["-a", "xxh3-64"],
        &["-a", "sha1,sha256"],
        &["-a", "sha256", "--no-mmap"],
        &["-a", "sha256", "-j", "2", "huge"],
    ];
    for (i, way) in ways.iter().enumerate() {
        let sig = if i % 2 == 0 { "INT" } else { "TERM" };
        std::fs::write(d.path().join("M"), "old\n").unwrap();
        let args = [&["sum", "huge", "-o", "M"][..], way].concat();
        let child = spawn_in(d.path(), &args);
        std::thread::sleep(Duration::from_millis(1500));
        signal(&child, sig);
        let o = finish_within(
            child,
            INTERRUPTED_WITHIN,
            &format!("{args:?} after SIG{sig}"),
        );
        assert_eq!(o.status.code(), Some(130), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("interrupted"),
            "{}",
            text(&o.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join("M")).unwrap(),
            "old\n"
        );
        assert_eq!(leftovers(&d), Vec::<String>::new(), "{args:?}");
    }
    // Without -o nothing needs cleaning up: the signal ends the run as it
    // ends sha256sum; so it does for check and audit.
    std::fs::write(
        d.path().join("M"),
        format!("{}  huge\n", "0".repeat(64)).as_bytes(),
    )
    .unwrap();
    let runs: [&[&str]; 3] = [&["sum", "huge"], &["check", "M"], &["audit", "M", "huge"]];
    for args in runs {
        let child = spawn_in(d.path(), args);
        std::thread::sleep(Duration::from_millis(1500));
        signal(&child, "INT");
        let o = finish_within(child, INTERRUPTED_WITHIN, &format!("{args:?} after SIGINT"));
        assert!(!o.status.success(), "{args:?}");
    }
}

#[test]
fn an_interrupt_ends_a_run_waiting_on_an_empty_pipe() {
    let d = Dir::new("pipe");
    std::fs::write(d.path().join("M"), "old\n").unwrap();
    // Standard input is a pipe nobody writes to, held open: the read blocks.
    let mut child = hashlab_with_default_signals()
        .current_dir(d.path())
        .args(["sum", "-o", "M"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let held_open = child.stdin.take();
    std::thread::sleep(Duration::from_millis(1000));
    signal(&child, "INT");
    let o = finish_within(child, INTERRUPTED_WITHIN, "sum -o M of a silent pipe");
    drop(held_open);
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(d.path().join("M")).unwrap(),
        "old\n"
    );
    assert_eq!(leftovers(&d), Vec::<String>::new());
}

/// TupleHash encodes its input's length before the bytes. Every way of
/// giving `sum` the same bytes, whether the length is known first (a file,
/// standard input redirected from one, a map or a reader thread) or only at
/// the end (a pipe, a FIFO, a /proc file: held, then spooled past 8 MiB),
/// gives the digest of the one-string tuple, alone or beside another hash.
#[test]
fn length_first_hashes_read_every_kind_of_input_alike() {
    let d = Dir::new("tuplehash");
    // Past the bound up to which an input of unknown size is kept in memory.
    let large: Vec<u8> = (0..(9u32 << 20) + 3)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    std::fs::write(d.path().join("large"), &large).unwrap();
    std::fs::write(d.path().join("abc"), b"abc").unwrap();
    let bin = env!("CARGO_BIN_EXE_hashlab");
    let shell = |script: &str| -> String {
        let o = Command::new("bash")
            .arg("-c")
            .arg(script)
            .arg(bin)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{script}: {}", text(&o.stderr));
        first_field(&o.stdout)
    };
    // pycryptodome's TupleHash128 of the tuple ("abc",).
    assert_eq!(
        shell("exec \"$0\" sum -a tuplehash128 abc"),
        "873195cadfea6bc6a71cdd903da87afb49fd232d71db817c3abcad48ad8a7898"
    );
    for alg in ["tuplehash128", "tuplehash256"] {
        let reference = shell(&format!("exec \"$0\" sum -a {alg} large"));
        for (how, script) in [
            (
                "read, not mapped",
                format!("exec \"$0\" sum --no-mmap -a {alg} large"),
            ),
            (
                "stdin from the file",
                format!("exec \"$0\" sum -a {alg} < large"),
            ),
            ("a pipe", format!("cat large | \"$0\" sum -a {alg}")),
            ("<(...)", format!("exec \"$0\" sum -a {alg} <(cat large)")),
            (
                "on two threads",
                format!("exec \"$0\" sum -j 2 -a {alg} abc large | tail -1"),
            ),
        ] {
            assert_eq!(shell(&script), reference, "{alg}, {how}");
        }
        // Beside a hash that does not need the length, in one pass.
        let o = Command::new(bin)
            .args(["sum", "-a", &format!("sha256,{alg}"), "large"])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        let lines = text(&o.stdout);
        assert!(
            lines.lines().any(|l| l.starts_with(&reference)),
            "{alg} beside sha256: {lines}"
        );
        // Files whose size (0, a page) is not their length.
        for pseudo in stable_pseudo_files() {
            assert_eq!(
                shell(&format!("exec \"$0\" sum -a {alg} {pseudo}")),
                shell(&format!("cat {pseudo} | \"$0\" sum -a {alg}")),
                "{alg} of {pseudo}"
            );
        }
    }
}
