//! Every command that writes a file the user names (`sum -o` in each format,
//! `bench -o`, `report -o` page and chart, `man --dir`): what the name is
//! (a file with a mode and owner, a symbolic link, a hard link, a FIFO, a
//! device, a descriptor link), what was planted beside it, and a full disk.
#![cfg(unix)]

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn is_root() -> bool {
    // SAFETY: no memory involved.
    unsafe { libc::geteuid() == 0 }
}

use hashlab_testkit::skip;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/results/zen4-plain.json")
}

/// One way of writing an output file: the arguments around `-o PATH`, and a
/// piece of text its output always holds.
struct Case {
    name: &'static str,
    args: fn(&Path, &Path) -> Vec<OsString>,
    marker: &'static str,
}

fn words(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

fn with_output(mut args: Vec<OsString>, out: &Path) -> Vec<OsString> {
    args.push("-o".into());
    args.push(out.into());
    args
}

/// `data` is a directory holding a file `abc`.
const CASES: &[Case] = &[
    Case {
        name: "sum",
        args: |data, out| with_output(vec!["sum".into(), data.join("abc").into()], out),
        marker: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    },
    Case {
        name: "sum --json",
        args: |data, out| {
            with_output(
                vec!["sum".into(), "--json".into(), data.join("abc").into()],
                out,
            )
        },
        marker: "\"digest\": \"ba7816bf",
    },
    Case {
        name: "sum --format csv",
        args: |data, out| {
            with_output(
                vec![
                    "sum".into(),
                    "--format".into(),
                    "csv".into(),
                    data.join("abc").into(),
                ],
                out,
            )
        },
        marker: "file,algorithm,backend,bytes,digest",
    },
    Case {
        name: "sum --format hashdeep",
        args: |data, out| {
            with_output(
                vec![
                    "sum".into(),
                    "--format".into(),
                    "hashdeep".into(),
                    data.join("abc").into(),
                ],
                out,
            )
        },
        marker: "%%%% HASHDEEP-1.0",
    },
    Case {
        name: "bench -o",
        args: |_, out| {
            with_output(
                words(&[
                    "bench",
                    "-a",
                    "crc32c",
                    "--sizes",
                    "64",
                    "--threads",
                    "1",
                    "--quick",
                    "--max-time",
                    "0.2",
                    "-q",
                    "--json",
                ]),
                out,
            )
        },
        marker: "\"cells\"",
    },
    Case {
        name: "report -o (page)",
        args: |_, out| {
            let mut args = words(&["report", "-q"]);
            args.push(fixture().into());
            with_output(args, out)
        },
        marker: "<!DOCTYPE html>",
    },
    Case {
        name: "report --chart -o (SVG)",
        args: |_, out| {
            let mut args = words(&["report", "-q", "--chart", "bars"]);
            args.push(fixture().into());
            with_output(args, out)
        },
        marker: "<svg",
    },
];

/// A scratch directory with `data/abc`.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("data")).unwrap();
    fs::write(dir.path().join("data/abc"), "abc").unwrap();
    dir
}

fn command(args: &[OsString], dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hashlab"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("HASHLAB_DB")
        .stdin(Stdio::null());
    cmd
}

/// Runs to the end or is killed at the deadline (a test must fail, not hang).
fn run_with_deadline(mut cmd: Command, limit: Duration) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let (sent, got) = std::sync::mpsc::channel();
    // Reads both pipes while waiting, so a large output cannot stall the child.
    std::thread::spawn(move || {
        let _ = sent.send(child.wait_with_output());
    });
    match got.recv_timeout(limit) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            // SAFETY: our own child, not yet reaped (the waiting thread has not returned).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("still running after {limit:?}");
        }
    }
}

fn run(case: &Case, dir: &Path, out: &Path) -> Output {
    let args = (case.args)(&dir.join("data"), out);
    let o = run_with_deadline(command(&args, dir), Duration::from_secs(60));
    assert!(
        o.status.success(),
        "{}: {:?}: {}",
        case.name,
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Runs `test` for every case and fails listing every case that failed, so
/// one broken command does not hide another.
fn for_each_case(test: impl Fn(&Case) + std::panic::RefUnwindSafe) {
    let failed: Vec<&str> = CASES
        .iter()
        .filter(|case| std::panic::catch_unwind(|| test(case)).is_err())
        .map(|case| case.name)
        .collect();
    assert!(failed.is_empty(), "failed for: {failed:?}");
}

fn holds(path: &Path, marker: &str) -> bool {
    String::from_utf8_lossy(&fs::read(path).unwrap()).contains(marker)
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_replaced_file_keeps_its_mode_and_owner() {
    for_each_case(|case| {
        let dir = scratch();
        let out = dir.path().join("OUT");
        fs::write(&out, "old").unwrap();
        fs::set_permissions(&out, fs::Permissions::from_mode(0o600)).unwrap();
        if is_root() {
            std::os::unix::fs::chown(&out, Some(4321), Some(8765)).unwrap();
        }
        run(case, dir.path(), &out);
        assert!(holds(&out, case.marker), "{}", case.name);
        let meta = fs::metadata(&out).unwrap();
        assert_eq!(meta.mode() & 0o7777, 0o600, "{}: mode", case.name);
        if is_root() {
            assert_eq!(
                (meta.uid(), meta.gid()),
                (4321, 8765),
                "{}: owner",
                case.name
            );
        }
        assert_eq!(entries(dir.path()), ["OUT", "data"], "{}", case.name);
    });
}

#[test]
fn a_symbolic_link_stays_a_link_and_its_target_is_written() {
    for_each_case(|case| {
        let dir = scratch();
        fs::create_dir(dir.path().join("real")).unwrap();
        fs::write(dir.path().join("real/T"), "old").unwrap();
        let link = dir.path().join("L");
        std::os::unix::fs::symlink("real/T", &link).unwrap();
        run(case, dir.path(), &link);
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{}: the link was replaced",
            case.name
        );
        assert!(
            holds(&dir.path().join("real/T"), case.marker),
            "{}",
            case.name
        );
        assert_eq!(entries(&dir.path().join("real")), ["T"], "{}", case.name);
        assert_eq!(entries(dir.path()), ["L", "data", "real"], "{}", case.name);
    });
}

#[test]
fn a_hard_linked_file_keeps_its_other_names() {
    for_each_case(|case| {
        let dir = scratch();
        let out = dir.path().join("OUT");
        fs::write(&out, "old").unwrap();
        fs::hard_link(&out, dir.path().join("OTHER")).unwrap();
        let inode = fs::metadata(&out).unwrap().ino();
        run(case, dir.path(), &out);
        for name in ["OUT", "OTHER"] {
            let p = dir.path().join(name);
            assert!(holds(&p, case.marker), "{}: {name}", case.name);
            assert_eq!(fs::metadata(&p).unwrap().ino(), inode, "{}", case.name);
        }
        assert_eq!(
            entries(dir.path()),
            ["OTHER", "OUT", "data"],
            "{}",
            case.name
        );
    });
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    for_each_case(|case| {
        let dir = scratch();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let (sent, got) = std::sync::mpsc::channel();
        {
            let fifo = fifo.clone();
            // Left behind, blocked, if the FIFO is never opened for writing:
            // the test fails below rather than waiting for it.
            std::thread::spawn(move || {
                let _ = sent.send(fs::read(fifo).unwrap());
            });
        }
        run(case, dir.path(), &fifo);
        assert!(
            fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
            "{}: the FIFO was replaced",
            case.name
        );
        let read = got
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{}: nothing came through the FIFO", case.name));
        assert!(
            String::from_utf8_lossy(&read).contains(case.marker),
            "{}",
            case.name
        );
        assert_eq!(entries(dir.path()), ["data", "fifo"], "{}", case.name);
    });
}

#[test]
fn a_device_node_is_written_through_and_stays_a_device() {
    if !is_root() {
        return skip("mknod needs root");
    }
    let mknod = |path: &Path| {
        let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path; 1,3 is /dev/null.
        unsafe { libc::mknod(name.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) == 0 }
    };
    let probe = tempfile::tempdir().unwrap();
    if !mknod(&probe.path().join("null")) {
        return skip(&format!(
            "mknod refused: {}",
            std::io::Error::last_os_error()
        ));
    }
    for_each_case(|case| {
        let dir = scratch();
        let null = dir.path().join("mynull");
        assert!(mknod(&null));
        run(case, dir.path(), &null);
        let meta = fs::symlink_metadata(&null).unwrap();
        assert!(
            meta.file_type().is_char_device(),
            "{}: the device was replaced",
            case.name
        );
        assert_eq!(entries(dir.path()), ["data", "mynull"], "{}", case.name);
    });
}

#[test]
fn a_descriptor_link_such_as_dev_stdout_is_written_through() {
    // What /dev/stdout is, made in the test's own directory so the system's
    // node is never at stake.
    for_each_case(|case| {
        let dir = scratch();
        let link = dir.path().join("stdout");
        std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
        let o = run(case, dir.path(), &link);
        assert!(
            String::from_utf8_lossy(&o.stdout).contains(case.marker),
            "{}: not on standard output",
            case.name
        );
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{}: the link was replaced",
            case.name
        );
        assert_eq!(entries(dir.path()), ["data", "stdout"], "{}", case.name);
    });
}

#[test]
fn links_planted_at_guessable_temp_names_are_not_followed() {
    // The process id is known before the program runs when a shell execs it:
    // plant links at every temp name the old code made from it.
    for_each_case(|case| {
        let dir = scratch();
        let victim = dir.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let work = dir.path().join("work");
        fs::create_dir(&work).unwrap();
        let args = (case.args)(&dir.path().join("data"), Path::new("OUT"));
        let script = r#"for n in ".OUT.hashlab-$$.tmp" ".OUT.tmp$$" .hashlab.1.partial; do ln -s ../victim "$n"; done; exec "$@""#;
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(script)
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_hashlab"))
            .args(&args)
            .current_dir(&work)
            .env_remove("HASHLAB_DB");
        let o = run_with_deadline(cmd, Duration::from_secs(60));
        assert!(o.status.success(), "{}: {o:?}", case.name);
        assert_eq!(
            fs::read_to_string(&victim).unwrap(),
            "precious",
            "{}",
            case.name
        );
        assert!(holds(&work.join("OUT"), case.marker), "{}", case.name);
    });
    // `man --dir` writes a page per command: the same for each of them.
    let dir = scratch();
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious").unwrap();
    let pages = dir.path().join("pages");
    fs::create_dir(&pages).unwrap();
    let script = r#"for p in hashlab hashlab-sum hashlab-check; do ln -s ../victim ".$p.1.partial"; done; exec "$@" man --dir ."#;
    let o = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(&pages)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(holds(&pages.join("hashlab-sum.1"), ".TH"));
}

/// A small tmpfs of the test's own, unmounted when dropped.
struct SmallDisk(tempfile::TempDir);

impl SmallDisk {
    fn mount() -> Option<SmallDisk> {
        if !is_root() {
            skip("mounting a small tmpfs needs root");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
            .arg(dir.path())
            .status();
        match status {
            Ok(s) if s.success() => Some(SmallDisk(dir)),
            other => {
                skip(&format!("mount -t tmpfs failed here: {other:?}"));
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

#[test]
fn a_full_disk_leaves_the_old_file_whole_and_no_temp_file() {
    let Some(disk) = SmallDisk::mount() else {
        return;
    };
    // Inputs outside the small disk: enough files that every output is
    // larger than the room left (sum of 400 files: 40 KB and more).
    let dir = scratch();
    for i in 0..400 {
        fs::write(dir.path().join(format!("data/f{i:03}")), i.to_string()).unwrap();
    }
    let old = "the previous output, which must survive\n";
    for_each_case(|case| {
        // What an earlier case left is not this one's doing.
        for name in entries(disk.path()) {
            fs::remove_file(disk.path().join(name)).unwrap();
        }
        let out = disk.path().join("OUT");
        fs::write(&out, old).unwrap();
        // Fill all but a few KiB.
        {
            use std::io::Write;
            let mut filler = fs::File::create(disk.path().join("filler")).unwrap();
            while filler.write_all(&[0x5a; 4096]).is_ok() {}
            let len = filler.metadata().unwrap().len();
            filler.set_len(len.saturating_sub(4096)).unwrap();
        }
        let mut args = (case.args)(&dir.path().join("data"), &out);
        if case.name.starts_with("sum") {
            args.insert(1, "-r".into());
            args.insert(2, dir.path().join("data").into());
        }
        let o = run_with_deadline(command(&args, dir.path()), Duration::from_secs(60));
        assert_eq!(o.status.code(), Some(1), "{}: {o:?}", case.name);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("hashlab: {}: No space left on device\n", out.display()),
            "{}",
            case.name
        );
        assert_eq!(fs::read_to_string(&out).unwrap(), old, "{}", case.name);
        assert_eq!(entries(disk.path()), ["OUT", "filler"], "{}", case.name);
    });
}
