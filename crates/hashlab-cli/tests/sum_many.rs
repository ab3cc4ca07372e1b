//! `hashlab sum` over many files: walking, lists, NUL endings, parallel jobs,
//! several algorithms from one read, git object ids and atomic manifests.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{hashlab_in, text};

struct Tree(PathBuf);

impl Tree {
    fn new(name: &str) -> Tree {
        let root =
            std::env::temp_dir().join(format!("hashlab-summany-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, body) in [
            ("data/b.txt", "bee\n"),
            ("data/a.txt", "ay\n"),
            ("data/sub/c.bin", "sea"),
            ("data/sub/skip.tmp", "tmp"),
            ("data/Z", "zed"),
        ] {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink("a.txt", root.join("data/link")).unwrap();
        Tree(root)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `-o` must never leave its temporary file behind.
fn assert_no_temp_files(dir: &Path) {
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn names_of(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| l.split_once("  ").unwrap().1.to_string())
        .collect()
}

#[test]
fn recursive_is_sorted_relative_and_skips_links() {
    let t = Tree::new("walk");
    let o = hashlab_in(t.path(), &["sum", "-r", "data", "--exclude", "*.tmp"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        names_of(&text(&o.stdout)),
        ["data/Z", "data/a.txt", "data/b.txt", "data/sub/c.bin"]
    );
    let o = hashlab_in(t.path(), &["sum", "-r", "-L", "data"]);
    assert!(names_of(&text(&o.stdout)).contains(&"data/link".to_string()));
    // Without -r a directory is an error, as coreutils says.
    let o = hashlab_in(t.path(), &["sum", "data"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stderr), "hashlab: data: Is a directory\n");
    // The manifest checks out with coreutils.
    let o = hashlab_in(t.path(), &["sum", "-r", "data"]);
    std::fs::write(t.path().join("m"), &o.stdout).unwrap();
    if let Ok(c) = Command::new("sha256sum")
        .current_dir(t.path())
        .args(["-c", "m"])
        .output()
    {
        assert!(c.status.success(), "{}", text(&c.stdout));
    }
}

#[test]
fn parallel_jobs_give_the_same_bytes_in_the_same_order() {
    let t = Tree::new("jobs");
    for i in 0..60 {
        std::fs::write(
            t.path().join(format!("data/f{i:03}")),
            vec![i as u8; 1000 * (60 - i)],
        )
        .unwrap();
    }
    let one = hashlab_in(t.path(), &["sum", "-r", "-j", "1", "-a", "blake3", "data"]);
    let four = hashlab_in(t.path(), &["sum", "-r", "-j", "4", "-a", "blake3", "data"]);
    assert!(one.status.success());
    assert_eq!(one.stdout, four.stdout);
    assert_eq!(text(&one.stdout).lines().count(), 65);
    let o = hashlab_in(t.path(), &["sum", "-j", "0", "data/Z"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn files_from_lists_and_nul_endings() {
    let t = Tree::new("list");
    std::fs::write(t.path().join("list"), "data/a.txt\ndata/Z\n").unwrap();
    std::fs::write(t.path().join("list0"), "data/a.txt\0data/Z\0").unwrap();
    let a = hashlab_in(t.path(), &["sum", "--files-from", "list"]);
    let b = hashlab_in(t.path(), &["sum", "--files-from", "list0", "-0"]);
    assert_eq!(names_of(&text(&a.stdout)), ["data/a.txt", "data/Z"]);
    assert_eq!(a.stdout, b.stdout);
    let z = hashlab_in(t.path(), &["sum", "-z", "data/a.txt", "data/Z"]);
    let zs = text(&z.stdout);
    assert_eq!(zs.matches('\0').count(), 2);
    assert!(!zs.contains('\n'));
    if let Ok(c) = Command::new("sha256sum")
        .current_dir(t.path())
        .args(["-z", "data/a.txt", "data/Z"])
        .output()
    {
        assert_eq!(z.stdout, c.stdout, "byte-identical to sha256sum -z");
    }
    let o = hashlab_in(t.path(), &["sum", "--files-from", "missing-list"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "hashlab: --files-from: missing-list: No such file or directory\n"
    );
}

#[test]
fn several_algorithms_from_one_read() {
    let t = Tree::new("multi");
    let o = hashlab_in(
        t.path(),
        &["sum", "-a", "md5,sha256", "--tag", "data/a.txt"],
    );
    let expected = format!(
        "MD5 (data/a.txt) = {}\nSHA256 (data/a.txt) = {}\n",
        digest_with("md5", b"ay\n"),
        digest_with("sha256", b"ay\n")
    );
    assert_eq!(text(&o.stdout), expected);
    let gnu = hashlab_in(
        t.path(),
        &["sum", "-a", "md5,sha256", "data/a.txt", "data/Z"],
    );
    assert_eq!(
        text(&gnu.stdout).lines().count(),
        4,
        "one line per file per algorithm"
    );
    // coreutils' cksum checks mixed tagged lines.
    std::fs::write(t.path().join("m"), &o.stdout).unwrap();
    if let Ok(c) = Command::new("cksum")
        .current_dir(t.path())
        .args(["-c", "m"])
        .output()
    {
        if c.status.code() != Some(2) {
            assert!(c.status.success(), "{}{}", text(&c.stdout), text(&c.stderr));
        }
    }
}

fn digest_with(alg: &str, data: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("hashlab-digest-{alg}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("x"), data).unwrap();
    let o = hashlab_in(&dir, &["sum", "-a", alg, "x"]);
    std::fs::remove_dir_all(&dir).unwrap();
    text(&o.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn git_object_ids_match_git() {
    let t = Tree::new("git");
    let o = hashlab_in(
        t.path(),
        &["sum", "--git", "-a", "sha1", "data/a.txt", "data/sub/c.bin"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    for (format, alg) in [("sha1", "sha1"), ("sha256", "sha256")] {
        let repo = t.path().join(format!("repo-{format}"));
        let init = Command::new("git")
            .args(["init", "-q", &format!("--object-format={format}")])
            .arg(&repo)
            .status();
        let Ok(init) = init else {
            hashlab_testkit::skip("git is not installed");
            return;
        };
        assert!(init.success());
        for file in ["data/a.txt", "data/sub/c.bin", "data/Z"] {
            let ours = hashlab_in(t.path(), &["sum", "--git", "-a", alg, file]);
            let theirs = Command::new("git")
                .current_dir(&repo)
                .args(["hash-object", "--no-filters"])
                .arg(t.path().join(file))
                .output()
                .unwrap();
            assert_eq!(
                text(&ours.stdout).split_whitespace().next().unwrap(),
                text(&theirs.stdout).trim(),
                "{alg} {file}"
            );
        }
    }
    let o = hashlab_in(t.path(), &["sum", "--git", "-a", "md5", "data/Z"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--git: git names objects with sha1 or sha256, not md5"));
}

#[test]
fn output_file_is_replaced_atomically() {
    let t = Tree::new("atomic");
    std::fs::write(t.path().join("MANIFEST"), "old\n").unwrap();
    let o = hashlab_in(t.path(), &["sum", "-r", "data", "-o", "MANIFEST"]);
    assert!(o.status.success());
    assert!(o.stdout.is_empty());
    let m = std::fs::read_to_string(t.path().join("MANIFEST")).unwrap();
    assert_eq!(m.lines().count(), 5);
    // A usage error leaves the old manifest alone.
    std::fs::write(t.path().join("MANIFEST"), "old\n").unwrap();
    let o = hashlab_in(t.path(), &["sum", "-a", "nope", "data/Z", "-o", "MANIFEST"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(t.path().join("MANIFEST")).unwrap(),
        "old\n"
    );
    // A manifest that cannot be created: one line naming it, not our temp file.
    let o = hashlab_in(t.path(), &["sum", "data/Z", "-o", "no-such-dir/MANIFEST"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "hashlab: no-such-dir/MANIFEST: No such file or directory\n"
    );
    assert_no_temp_files(t.path());
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_leaves_the_old_manifest_and_no_temp_file() {
    use std::io::Write;
    let t = Tree::new("interrupt");
    std::fs::write(t.path().join("MANIFEST"), "old\n").unwrap();
    let fifo = t.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Reading the FIFO blocks until we write: the run is mid-way, deterministically.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(t.path())
        .args([
            "sum",
            "-j",
            "1",
            "data/a.txt",
            "fifo",
            "data/Z",
            "-o",
            "MANIFEST",
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    std::thread::sleep(std::time::Duration::from_millis(200));
    // Non-blocking: a plain open for writing would wait forever for a reader
    // if the child had died. ENXIO means no reader yet.
    use std::os::unix::fs::OpenOptionsExt;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut writer = loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
        {
            Ok(w) => break w,
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("hashlab ended before reading the FIFO: {status}");
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "hashlab never opened the FIFO"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("open the FIFO: {e}"),
        }
    };
    // The FIFO may already be given up (a run stops waiting on it within a
    // tenth of a second of the signal): then this write finds no reader.
    let _ = writer.write_all(b"late");
    drop(writer);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(
        std::fs::read_to_string(t.path().join("MANIFEST")).unwrap(),
        "old\n"
    );
    assert_no_temp_files(t.path());
}

#[test]
fn hashdeep_manifests_pass_hashdeep_audit() {
    let t = Tree::new("hashdeep");
    let o = hashlab_in(
        t.path(),
        &[
            "sum",
            "-r",
            "-a",
            "md5,sha256",
            "--format",
            "hashdeep",
            "data",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let manifest = text(&o.stdout);
    assert!(manifest.starts_with("%%%% HASHDEEP-1.0\n%%%% size,md5,sha256,filename\n"));
    let first = manifest
        .lines()
        .find(|l| !l.starts_with('%') && !l.starts_with('#'))
        .unwrap();
    assert!(
        first.starts_with("3,") && first.ends_with("/data/Z"),
        "{first}"
    );
    std::fs::write(t.path().join("hd"), &o.stdout).unwrap();
    let files = [
        "data/Z",
        "data/a.txt",
        "data/b.txt",
        "data/sub/c.bin",
        "data/sub/skip.tmp",
    ];
    let audit = || {
        Command::new("hashdeep")
            .current_dir(t.path())
            .args(["-a", "-k", "hd"])
            .args(files)
            .output()
    };
    match audit() {
        Ok(a) => {
            assert!(a.status.success(), "{}{}", text(&a.stdout), text(&a.stderr));
            std::fs::write(t.path().join("data/b.txt"), "bitrot\n").unwrap();
            assert_eq!(
                audit().unwrap().status.code(),
                Some(1),
                "a changed file fails the audit"
            );
        }
        Err(_) => hashlab_testkit::skip("hashdeep is not installed (scripts/setup installs it)"),
    }
    let o = hashlab_in(
        t.path(),
        &["sum", "-a", "blake3", "--format", "hashdeep", "data/Z"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("hashdeep reads md5, sha1 and sha256, not blake3"));
}

#[cfg(unix)]
#[test]
fn non_utf8_names_survive_byte_for_byte() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let t = Tree::new("bytes");
    let raw: &[u8] = b"caf\xe9-\xff";
    std::fs::write(t.path().join(OsStr::from_bytes(raw)), b"x").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(t.path())
        .arg("sum")
        .arg(OsStr::from_bytes(raw))
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(
        o.stdout.windows(raw.len()).any(|w| w == raw),
        "raw bytes in the line"
    );
    std::fs::write(t.path().join("m"), &o.stdout).unwrap();
    let c = hashlab_in(t.path(), &["check", "m"]);
    assert!(c.status.success(), "{}{}", text(&c.stdout), text(&c.stderr));
    if let Ok(s) = Command::new("sha256sum")
        .current_dir(t.path())
        .args(["-c", "m"])
        .output()
    {
        assert!(s.status.success());
    }
}

/// A large blake3 file is hashed through a memory map. Truncating it while it
/// is hashed must give an error line and exit 1, never a SIGBUS death; and
/// `--no-mmap` gives the same digest as the map.
#[cfg(unix)]
#[test]
fn a_file_truncated_while_mapped_is_an_error_not_a_crash() {
    let tree = Tree::new("truncated");
    let big = tree.path().join("big");
    let data: Vec<u8> = (0..(24u32 << 20))
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    std::fs::write(&big, &data).unwrap();
    let mapped = hashlab_in(tree.path(), &["sum", "-a", "blake3", "big"]);
    let read = hashlab_in(tree.path(), &["sum", "-a", "blake3", "--no-mmap", "big"]);
    assert!(mapped.status.success() && read.status.success());
    assert_eq!(text(&mapped.stdout), text(&read.stdout));
    assert_eq!(
        text(&mapped.stdout),
        format!("{}  big\n", digest_with("blake3", &data))
    );

    // Truncate the file as soon as the child has it mapped (watched through
    // /proc), so the hashing runs into pages that no longer exist. The file is
    // written, not made sparse, so that it is in the page cache: an uncached
    // file on a disk the kernel calls rotating is read, not mapped.
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        hashlab_testkit::skip("this machine has one core: files are read, not mapped");
        return;
    }
    let chunk = vec![0x5au8; 16 << 20];
    let mut caught = 0;
    for _ in 0..4 {
        let mut file = std::fs::File::create(&big).unwrap();
        for _ in 0..16 {
            std::io::Write::write_all(&mut file, &chunk).unwrap();
        }
        let child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .current_dir(tree.path())
            .args(["sum", "-a", "blake3", "big"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Hashing has begun when the file is mapped and the hashing threads
        // exist (an earlier, brief map only asks the page cache what it holds).
        let maps = format!("/proc/{}/maps", child.id());
        let tasks = format!("/proc/{}/task", child.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            let threads = std::fs::read_dir(&tasks).map_or(0, |d| d.count());
            match std::fs::read_to_string(&maps) {
                Ok(m) if threads > 1 && m.contains(big.to_str().unwrap()) => break,
                Ok(_) => std::thread::yield_now(),
                Err(_) => break, // the child has already exited
            }
        }
        file.set_len(4096).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.code().is_some(),
            "killed by a signal: {:?}",
            out.status
        );
        if !out.status.success() {
            caught += 1;
            assert_eq!(out.status.code(), Some(1));
            assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
            let err = text(&out.stderr);
            assert!(err.contains("big") && err.contains("changed"), "{err}");
        }
    }
    assert!(caught > 0, "no run saw the truncation");
}
