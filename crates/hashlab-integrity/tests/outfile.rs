//! `OutputFile`: every kind of target an output name can be, and every way a
//! write can fail.
#![cfg(unix)]

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;

use hashlab_integrity::{write_file, OutputFile, WriteMode};

fn is_root() -> bool {
    // SAFETY: no memory involved.
    unsafe { libc::geteuid() == 0 }
}

use hashlab_testkit::skip;

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn umask() -> u32 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
}

#[test]
fn a_regular_file_is_replaced_keeping_its_mode_and_owner() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("M");
    fs::write(&m, "old\n").unwrap();
    fs::set_permissions(&m, fs::Permissions::from_mode(0o600)).unwrap();
    if is_root() {
        std::os::unix::fs::chown(&m, Some(4321), Some(8765)).unwrap();
    }
    let mut out = OutputFile::create(&m).unwrap();
    assert_eq!(out.mode(), WriteMode::Replace);
    out.write_all(b"new\n").unwrap();
    // Nothing visible before the commit.
    assert_eq!(fs::read_to_string(&m).unwrap(), "old\n");
    out.commit().unwrap();
    assert_eq!(fs::read_to_string(&m).unwrap(), "new\n");
    let meta = fs::metadata(&m).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o600);
    if is_root() {
        assert_eq!((meta.uid(), meta.gid()), (4321, 8765));
    }
    assert_eq!(entries(dir.path()), ["M"]);
}

#[test]
fn a_new_file_gets_the_umask_mode_not_the_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("new");
    write_file(&m, b"x").unwrap();
    assert_eq!(
        fs::metadata(&m).unwrap().mode() & 0o777,
        0o666 & !umask(),
        "a new file as `>` would make it"
    );
}

#[test]
fn a_symbolic_link_stays_and_its_target_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("store");
    fs::create_dir(&real).unwrap();
    fs::write(real.join("M"), "old\n").unwrap();
    fs::set_permissions(real.join("M"), fs::Permissions::from_mode(0o640)).unwrap();
    // A chain of two links, one relative, one absolute.
    std::os::unix::fs::symlink(real.join("M"), dir.path().join("hop")).unwrap();
    std::os::unix::fs::symlink("hop", dir.path().join("link")).unwrap();
    write_file(dir.path().join("link"), b"new\n").unwrap();
    for name in ["link", "hop"] {
        let meta = fs::symlink_metadata(dir.path().join(name)).unwrap();
        assert!(meta.file_type().is_symlink(), "{name} is still a link");
    }
    assert_eq!(fs::read_to_string(real.join("M")).unwrap(), "new\n");
    assert_eq!(fs::metadata(real.join("M")).unwrap().mode() & 0o777, 0o640);
    assert_eq!(entries(dir.path()), ["hop", "link", "store"]);
    assert_eq!(entries(&real), ["M"]);

    // A dangling link: its target is created; the link stays.
    std::os::unix::fs::symlink("store/later", dir.path().join("dangling")).unwrap();
    write_file(dir.path().join("dangling"), b"made\n").unwrap();
    assert!(fs::symlink_metadata(dir.path().join("dangling"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(real.join("later")).unwrap(), "made\n");

    // A loop is an error, not a hang.
    std::os::unix::fs::symlink("loop-b", dir.path().join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", dir.path().join("loop-b")).unwrap();
    let e = write_file(dir.path().join("loop-a"), b"x").unwrap_err();
    assert!(
        e.to_string()
            .ends_with("loop-a: Too many levels of symbolic links"),
        "{e}"
    );
}

#[test]
fn a_hard_linked_file_is_written_in_place_and_keeps_its_links() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("M");
    fs::write(&m, "the old content, longer than the new\n").unwrap();
    fs::hard_link(&m, dir.path().join("other-name")).unwrap();
    let inode = fs::metadata(&m).unwrap().ino();
    let mut out = OutputFile::create(&m).unwrap();
    assert_eq!(out.mode(), WriteMode::InPlace);
    out.write_all(b"new\n").unwrap();
    out.flush().unwrap();
    // Built aside: the old content is whole until the commit.
    assert_eq!(
        fs::read_to_string(&m).unwrap(),
        "the old content, longer than the new\n"
    );
    out.commit().unwrap();
    for name in ["M", "other-name"] {
        let p = dir.path().join(name);
        assert_eq!(fs::read_to_string(&p).unwrap(), "new\n", "{name}");
        assert_eq!(fs::metadata(&p).unwrap().ino(), inode);
        assert_eq!(fs::metadata(&p).unwrap().nlink(), 2);
    }
    // Longer than before, too.
    let long = vec![b'z'; 300_000];
    write_file(&m, &long).unwrap();
    assert_eq!(fs::read(dir.path().join("other-name")).unwrap(), long);
    // Abandoned: untouched.
    let mut out = OutputFile::create(&m).unwrap();
    out.write_all(b"never\n").unwrap();
    drop(out);
    assert_eq!(fs::read(&m).unwrap(), long);
    assert_eq!(entries(dir.path()), ["M", "other-name"]);
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut got = Vec::new();
            fs::File::open(fifo).unwrap().read_to_end(&mut got).unwrap();
            got
        })
    };
    let mut out = OutputFile::create(&fifo).unwrap();
    assert_eq!(out.mode(), WriteMode::Through);
    out.write_all(b"through\n").unwrap();
    out.commit().unwrap();
    assert_eq!(reader.join().unwrap(), b"through\n");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(entries(dir.path()), ["fifo"]);
}

#[test]
fn a_device_node_is_written_through_and_stays_a_device() {
    if !is_root() {
        return skip("mknod needs root");
    }
    let dir = tempfile::tempdir().unwrap();
    let null = dir.path().join("mynull");
    let name = std::ffi::CString::new(null.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path; 1,3 is /dev/null.
    let made = unsafe { libc::mknod(name.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if made != 0 {
        return skip(&format!(
            "mknod refused here: {}",
            std::io::Error::last_os_error()
        ));
    }
    write_file(&null, b"into the void\n").unwrap();
    let meta = fs::symlink_metadata(&null).unwrap();
    assert!(meta.file_type().is_char_device());
    assert_eq!(meta.rdev(), libc::makedev(1, 3));
    assert_eq!(entries(dir.path()), ["mynull"]);
}

#[test]
fn a_full_device_fails_with_the_targets_name() {
    let e = write_file("/dev/full", &[b'x'; 100]).unwrap_err();
    assert_eq!(e.to_string(), "/dev/full: No space left on device");
    assert!(fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn a_descriptor_link_is_written_through_not_replaced() {
    // What /dev/stdout is: a link to /proc/self/fd/N. Made here on a descriptor
    // of our own, so the system's node is never at stake.
    let dir = tempfile::tempdir().unwrap();
    let behind = dir.path().join("behind");
    let file = fs::File::create(&behind).unwrap();
    use std::os::fd::AsRawFd;
    let link = dir.path().join("stdout-like");
    std::os::unix::fs::symlink(format!("/proc/self/fd/{}", file.as_raw_fd()), &link).unwrap();
    let out = OutputFile::create(&link).unwrap();
    assert_eq!(out.mode(), WriteMode::Through);
    drop(out);
    write_file(&link, b"via the descriptor\n").unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&behind).unwrap(), "via the descriptor\n");
    assert_eq!(entries(dir.path()), ["behind", "stdout-like"]);
}

#[test]
fn an_abandoned_output_leaves_the_old_file_and_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("M");
    fs::write(&m, "old\n").unwrap();
    let mut out = OutputFile::create(&m).unwrap();
    out.write_all(&vec![b'n'; 1 << 20]).unwrap();
    drop(out);
    assert_eq!(fs::read_to_string(&m).unwrap(), "old\n");
    assert_eq!(entries(dir.path()), ["M"]);
}

#[test]
fn links_planted_at_temp_names_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    // Links at every name an attacker could guess from the target's name and
    // our process id, as the old temp names were made.
    let pid = std::process::id();
    for name in [
        format!(".M.hashlab-{pid}.tmp"),
        format!(".M.tmp{pid}"),
        ".M.tmp".to_string(),
        ".M.partial".to_string(),
    ] {
        std::os::unix::fs::symlink("../victim", work.join(name)).unwrap();
    }
    for round in 0..50 {
        write_file(work.join("M"), format!("manifest {round}\n").as_bytes()).unwrap();
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_eq!(fs::read_to_string(work.join("M")).unwrap(), "manifest 49\n");
    assert_eq!(entries(&work).len(), 5, "{:?}", entries(&work));
}

#[test]
fn a_link_planted_in_a_sticky_shared_directory_is_not_followed() {
    if !is_root() {
        return skip("planting a link owned by another user needs root");
    }
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    let link = shared.join("report.html");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(4321), Some(4321)).unwrap();
    let e = write_file(&link, b"x").unwrap_err();
    assert!(e.to_string().contains("not followed"), "{e}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    // The writer's own link there is followed.
    std::os::unix::fs::lchown(&link, Some(0), Some(0)).unwrap();
    write_file(&link, b"mine\n").unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "mine\n");
}

#[test]
fn errors_name_the_file_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir/M");
    let e = write_file(&missing, b"x").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{}: No such file or directory", missing.display())
    );
    let e = write_file(dir.path(), b"x").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{}: Is a directory", dir.path().display())
    );
    let slash = format!("{}/new/", dir.path().display());
    let e = write_file(&slash, b"x").unwrap_err();
    assert!(e.to_string().starts_with(&format!("{slash}: ")), "{e}");
    assert!(entries(dir.path()).is_empty());
}

/// A small tmpfs of our own, unmounted when dropped.
struct SmallDisk(tempfile::TempDir);

impl SmallDisk {
    fn mount(size: &str) -> Option<SmallDisk> {
        if !is_root() {
            skip("mounting a small tmpfs needs root");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
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

    /// Fills the disk but for about `left` bytes.
    fn fill_leaving(&self, left: usize) {
        let mut filler = fs::File::create(self.path().join("filler")).unwrap();
        let chunk = vec![0x5a; 4096];
        while filler.write_all(&chunk).is_ok() {}
        let len = filler.metadata().unwrap().len();
        filler.set_len(len.saturating_sub(left as u64)).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .status();
    }
}

#[test]
fn a_full_disk_leaves_the_old_file_whole_and_no_temp_file() {
    let Some(disk) = SmallDisk::mount("1m") else {
        return;
    };
    let m = disk.path().join("M");
    let linked = disk.path().join("M.link");
    let plain = disk.path().join("P");
    fs::write(&m, "old, linked\n").unwrap();
    fs::hard_link(&m, &linked).unwrap();
    fs::write(&plain, "old, plain\n").unwrap();
    disk.fill_leaving(300 * 1024);
    // Too large for what is left.
    let e = write_file(&plain, &vec![b'p'; 400 * 1024]).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{}: No space left on device", plain.display())
    );
    assert_eq!(fs::read_to_string(&plain).unwrap(), "old, plain\n");
    // Built aside whole, but no room left to copy it over the linked file:
    // that must fail before the old content is touched.
    let e = write_file(&m, &vec![b'l'; 200 * 1024]).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{}: No space left on device", m.display())
    );
    assert!(
        fs::read(&m).unwrap() == b"old, linked\n",
        "the linked file's old content was overwritten"
    );
    assert_eq!(fs::read_to_string(&linked).unwrap(), "old, linked\n");
    assert_eq!(entries(disk.path()), ["M", "M.link", "P", "filler"]);
}

#[test]
fn a_read_only_file_is_not_replaced() {
    const CHILD: &str = "HASHLAB_OUTFILE_READ_ONLY";
    if let Some(target) = std::env::var_os(CHILD) {
        // In the child, as a user without the right to write it.
        let e = write_file(&target, b"new\n").unwrap_err();
        assert!(e.to_string().ends_with(": Permission denied"), "{e}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let m = dir.path().join("M");
    fs::write(&m, "old\n").unwrap();
    fs::set_permissions(&m, fs::Permissions::from_mode(0o444)).unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child
        .args(["--exact", "a_read_only_file_is_not_replaced", "--nocapture"])
        .env(CHILD, &m);
    if is_root() {
        // Root may write anything: the check runs as nobody, owning the file.
        use std::os::unix::process::CommandExt;
        std::os::unix::fs::chown(&m, Some(65534), Some(65534)).unwrap();
        child.uid(65534).gid(65534);
    }
    let o = child.output().unwrap();
    if !o.status.success()
        && String::from_utf8_lossy(&o.stderr).contains("ermission denied (os error 13)")
    {
        return skip(&format!(
            "the test binary cannot run as nobody here: {}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    assert!(o.status.success(), "{o:?}");
    assert_eq!(fs::read_to_string(&m).unwrap(), "old\n");
    assert_eq!(entries(dir.path()), ["M"]);
}

#[test]
fn a_directory_link_planted_in_a_sticky_shared_directory_is_not_followed() {
    if !is_root() {
        return skip("planting a link owned by another user needs root");
    }
    let dir = tempfile::tempdir().unwrap();
    let sticky = dir.path().join("sticky");
    fs::create_dir(&sticky).unwrap();
    fs::set_permissions(&sticky, fs::Permissions::from_mode(0o1777)).unwrap();
    let victims = dir.path().join("victims");
    fs::create_dir(&victims).unwrap();
    fs::write(victims.join("out.txt"), "precious\n").unwrap();
    let link = sticky.join("dirlink");
    std::os::unix::fs::symlink(&victims, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(4321), Some(4321)).unwrap();
    // Through the planted link, directly or behind a link of our own
    // elsewhere, and behind `..`: all refused, the victim untouched.
    let mine = dir.path().join("mine");
    std::os::unix::fs::symlink(link.join("out.txt"), &mine).unwrap();
    let hop = dir.path().join("hop");
    std::os::unix::fs::symlink(&sticky, &hop).unwrap();
    for target in [
        link.join("out.txt"),
        link.join("new.txt"),
        mine.clone(),
        hop.join("dirlink/out.txt"),
        sticky.join("../sticky/dirlink/out.txt"),
    ] {
        let e = write_file(&target, b"x").unwrap_err();
        assert!(e.to_string().contains("not followed"), "{e}");
        assert!(
            e.to_string().contains("dirlink: a symbolic link"),
            "names the link: {e}"
        );
    }
    assert_eq!(
        fs::read_to_string(victims.join("out.txt")).unwrap(),
        "precious\n"
    );
    assert_eq!(entries(&victims), ["out.txt"]);
    // The writer's own link there is followed.
    std::os::unix::fs::lchown(&link, Some(0), Some(0)).unwrap();
    write_file(link.join("out.txt"), b"mine\n").unwrap();
    assert_eq!(
        fs::read_to_string(victims.join("out.txt")).unwrap(),
        "mine\n"
    );
}

#[test]
fn a_file_of_proc_is_refused_for_the_real_reason() {
    // Nothing can be created in /proc, so a temporary file beside it fails
    // with ENOENT; the file itself refuses writes (EACCES, or EIO for root).
    let e = write_file("/proc/version", b"x").unwrap_err();
    let text = e.to_string();
    assert!(
        text == "/proc/version: Permission denied" || text == "/proc/version: Input/output error",
        "{text}"
    );
}
