//! How `sum`, `check` and `audit` read what they are given: trees with
//! symbolic-link and bind-mount loops.
#![cfg(unix)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{hashlab_in, text};

/// A skipped test must say so, and may only be skipped outside CI.
fn skip(reason: &str) {
    if std::env::var_os("HASHLAB_CI").is_some_and(|v| !v.is_empty()) {
        panic!("cannot skip under HASHLAB_CI: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

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

fn spawn_in(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
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
