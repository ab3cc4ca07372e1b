//! Turning the names a user gave (files, directories with `-r`, a list file)
//! into the files to hash, in a deterministic order.

use std::io;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// One thing to hash, or why a name could not be expanded.
#[derive(Debug)]
pub enum Input {
    File(PathBuf),
    Stdin,
    /// Reported at its place in the output order, like a read error.
    Problem(PathBuf, io::Error),
}

#[derive(Debug, Default)]
pub struct WalkOptions {
    pub recursive: bool,
    /// Follow symbolic links met while walking (names given explicitly are always followed).
    pub follow_symlinks: bool,
    pub exclude: Option<GlobSet>,
}

/// Builds the matcher of excluded names; the error names the bad pattern.
pub fn exclude_set(patterns: &[String]) -> Result<Option<GlobSet>, String> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        builder.add(Glob::new(p).map_err(|e| format!("'{p}': {e}"))?);
    }
    builder.build().map(Some).map_err(|e| e.to_string())
}

fn excluded(path: &Path, options: &WalkOptions) -> bool {
    let Some(set) = &options.exclude else {
        return false;
    };
    // A pattern may name the file (`*.tmp`) or a path (`build/**`).
    set.is_match(path) || path.file_name().is_some_and(|n| set.is_match(n))
}

/// A directory met again inside itself, through a symbolic link (followed
/// with `follow_symlinks`) or a bind mount: walking it would never end. It is
/// reported as an [`Input::Problem`] at its place, once where it is met, and
/// not entered; the walk goes on, as `find` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSystemLoop {
    /// The directory on the way down that it is the same directory as.
    pub ancestor: PathBuf,
}

impl std::fmt::Display for FileSystemLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "file system loop: the same directory as {}, which contains it",
            self.ancestor.display()
        )
    }
}

impl std::error::Error for FileSystemLoop {}

/// The first `n` plain files among `inputs`: the sample a plan's reading
/// is chosen from (`SumPlan::reading`).
pub fn first_files<'a>(inputs: impl IntoIterator<Item = &'a Input>, n: usize) -> Vec<&'a Path> {
    inputs
        .into_iter()
        .filter_map(|i| match i {
            Input::File(p) => Some(p.as_path()),
            _ => None,
        })
        .take(n)
        .collect()
}

/// Expands the inputs in order. Directories are walked only with `recursive`
/// (without it they stay as they are and fail when read, as coreutils reports
/// them); entries are visited in byte order of their names; paths keep the
/// form the user gave (`dir/sub/file` under `dir`).
pub fn expand(inputs: &[PathBuf], options: &WalkOptions) -> Vec<Input> {
    let mut out = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" {
            out.push(Input::Stdin);
            continue;
        }
        let dir = if options.recursive {
            std::fs::metadata(input).ok().filter(|m| m.is_dir())
        } else {
            None
        };
        match dir {
            Some(meta) => walk_dir(input, &meta, options, &mut Vec::new(), &mut out),
            None if !excluded(input, options) => out.push(Input::File(input.clone())),
            None => {}
        }
    }
    out
}

/// What identifies a directory whatever the path to it: (device, inode).
#[cfg(unix)]
type DirId = (u64, u64);
#[cfg(not(unix))]
type DirId = ();

#[cfg(unix)]
fn dir_id(meta: &std::fs::Metadata) -> Option<DirId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn dir_id(_: &std::fs::Metadata) -> Option<DirId> {
    None
}

/// Walks `dir`; `above` holds the directories on the way down to it, the
/// only ones a loop can lead back to (as `find` and walkdir check: a
/// directory reached twice by two links, not inside itself, is walked twice).
/// walkdir is not used because it checks for loops only when it follows
/// links, and a bind mount makes one without any.
fn walk_dir(
    dir: &Path,
    meta: &std::fs::Metadata,
    options: &WalkOptions,
    above: &mut Vec<(DirId, PathBuf)>,
    out: &mut Vec<Input>,
) {
    let id = dir_id(meta);
    if let Some(id) = id {
        if let Some((_, ancestor)) = above.iter().find(|(a, _)| *a == id) {
            let found = FileSystemLoop {
                ancestor: ancestor.clone(),
            };
            out.push(Input::Problem(dir.to_path_buf(), io::Error::other(found)));
            return;
        }
    }
    let mut entries: Vec<(PathBuf, std::fs::FileType)> = match std::fs::read_dir(dir) {
        Ok(rd) => {
            let mut v = Vec::new();
            for entry in rd {
                match entry.and_then(|e| e.file_type().map(|t| (e.path(), t))) {
                    Ok(item) => v.push(item),
                    Err(e) => out.push(Input::Problem(dir.to_path_buf(), e)),
                }
            }
            v
        }
        Err(e) => {
            out.push(Input::Problem(dir.to_path_buf(), e));
            return;
        }
    };
    entries.sort_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    if let Some(id) = id {
        above.push((id, dir.to_path_buf()));
    }
    for (path, kind) in entries {
        if excluded(&path, options) {
            continue;
        }
        if kind.is_file() {
            out.push(Input::File(path));
            continue;
        }
        if kind.is_symlink() && !options.follow_symlinks {
            continue;
        }
        // A directory, or a link followed: what it is, and for a directory
        // which one (the d_type of an entry says neither).
        if !kind.is_dir() && !kind.is_symlink() {
            // Sockets, FIFOs and devices met while walking are skipped:
            // reading a FIFO could block forever.
            continue;
        }
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => walk_dir(&path, &m, options, above, out),
            Ok(m) if m.is_file() => out.push(Input::File(path)),
            Ok(_) => {}
            Err(e) => out.push(Input::Problem(path, e)),
        }
    }
    if id.is_some() {
        above.pop();
    }
}

/// Names from a `--files-from` list: one per line, or NUL-separated. Empty
/// entries are skipped; a CR before a line end is kept (it may be part of a name).
pub fn parse_file_list(bytes: &[u8], nul_separated: bool) -> Vec<PathBuf> {
    let sep = if nul_separated { b'\0' } else { b'\n' };
    bytes
        .split(|b| *b == sep)
        .filter(|name| !name.is_empty())
        .map(path_from_bytes)
        .collect()
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// Whether the file lives on a rotating disk, where parallel reads make the
/// head seek between files and run slower than one reader (b3sum's users saw
/// this). `None` when the kernel does not say (not Linux, a virtual device).
pub fn on_rotating_disk(path: &Path) -> Option<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let dev = std::fs::metadata(path).ok()?.dev();
        let (major, minor) = (libc::major(dev), libc::minor(dev));
        let base = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
        // A partition has no queue of its own: its disk, one level up, does.
        for disk in [base.clone(), base.join("..")] {
            if let Ok(text) = std::fs::read_to_string(disk.join("queue/rotational")) {
                let driver = std::fs::read_link(disk.join("device/driver")).ok();
                let driver = driver.as_deref().and_then(Path::file_name);
                if !flag_describes_the_media(driver.and_then(|d| d.to_str())) {
                    return None;
                }
                return Some(text.trim() == "1");
            }
        }
        None
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        None
    }
}

/// Whether a disk's rotational flag says anything about its media, given its
/// driver. virtio-blk has no way to hear it from the host and leaves every
/// disk at the kernel's default, rotating: on this project's virtio disk
/// (an SSD or network volume under the host) the plan for spinning disks
/// (one reader, no maps) made an uncached 1 GiB blake3 0.88x `cat`'s time,
/// where maps hashed by both cores made it 1.03x (`b3sum` 1.05x, ten rounds
/// interleaved, docs/design-notes.md).
fn flag_describes_the_media(driver: Option<&str>) -> bool {
    driver != Some("virtio_blk")
}

/// Whether reading these files (a sample of a run's first ones) means moving a
/// disk head: they live on a rotating disk (as the kernel reports it) and are
/// not already in the page cache. Virtual disks often claim to rotate (virtio's
/// default), and a cached file does not touch the disk at all, so the flag
/// alone would serialise every run there. Empty files say nothing either way.
pub fn reads_from_spinning_disk(sample: &[&Path]) -> bool {
    let Some(first) = sample.first() else {
        return false;
    };
    if on_rotating_disk(first) != Some(true) {
        return false;
    }
    #[cfg(unix)]
    {
        let uncached = |path: &&Path| {
            // Only regular files with bytes: opening a FIFO would block.
            if !std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0) {
                return false;
            }
            let Ok(file) = std::fs::File::open(path) else {
                return false;
            };
            !crate::pagecache::resident_fraction_sampled(&file, 64).is_ok_and(|share| share >= 0.5)
        };
        sample.iter().any(uncached)
    }
    #[cfg(not(unix))]
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(inputs: &[Input]) -> Vec<String> {
        inputs
            .iter()
            .map(|i| match i {
                Input::File(p) => p.display().to_string(),
                Input::Stdin => "-".into(),
                Input::Problem(p, e) => format!("!{}: {e}", p.display()),
            })
            .collect()
    }

    #[test]
    fn walks_sorted_skips_links_and_excludes() {
        let root = std::env::temp_dir().join(format!("hashlab-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("b/deep")).unwrap();
        std::fs::create_dir_all(root.join("a")).unwrap();
        for f in ["z.txt", "a/1", "b/deep/x", "b/skip.tmp", "B"] {
            std::fs::write(root.join(f), f).unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("z.txt"), root.join("link")).unwrap();
        let r = root.display().to_string();
        let opts = WalkOptions {
            recursive: true,
            follow_symlinks: false,
            exclude: exclude_set(&["*.tmp".into()]).unwrap(),
        };
        let got = names(&expand(std::slice::from_ref(&root), &opts));
        assert_eq!(
            got,
            vec![
                format!("{r}/B"),
                format!("{r}/a/1"),
                format!("{r}/b/deep/x"),
                format!("{r}/z.txt")
            ]
        );
        let follow = WalkOptions {
            recursive: true,
            follow_symlinks: true,
            exclude: None,
        };
        let got = names(&expand(std::slice::from_ref(&root), &follow));
        assert!(got.contains(&format!("{r}/link")) && got.contains(&format!("{r}/b/skip.tmp")));
        // Without -r a directory stays a name, to fail when read.
        let flat = names(&expand(
            &[root.clone(), PathBuf::from("-")],
            &WalkOptions::default(),
        ));
        assert_eq!(flat, vec![r.clone(), "-".into()]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn loops_are_problems_met_once_and_links_to_one_directory_are_walked_twice() {
        use std::os::unix::fs::symlink;
        let root = std::env::temp_dir().join(format!("hashlab-walk-loops-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("top/a/b")).unwrap();
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::fs::write(root.join("top/a/b/leaf"), "l").unwrap();
        std::fs::write(root.join("elsewhere/x"), "x").unwrap();
        symlink(".", root.join("top/self")).unwrap();
        symlink("../..", root.join("top/a/b/up")).unwrap();
        symlink("../elsewhere", root.join("top/one")).unwrap();
        symlink("../elsewhere", root.join("top/two")).unwrap();
        let top = root.join("top");
        let follow = WalkOptions {
            recursive: true,
            follow_symlinks: true,
            exclude: None,
        };
        let walked = expand(std::slice::from_ref(&top), &follow);
        let t = top.display().to_string();
        let loop_message =
            format!("file system loop: the same directory as {t}, which contains it");
        assert_eq!(
            names(&walked),
            vec![
                format!("{t}/a/b/leaf"),
                format!("!{t}/a/b/up: {loop_message}"),
                format!("{t}/one/x"),
                format!("!{t}/self: {loop_message}"),
                format!("{t}/two/x"),
            ]
        );
        // The problem is data a caller can tell from a read error.
        let Input::Problem(_, e) = &walked[1] else {
            panic!("not a problem")
        };
        let found = e.get_ref().unwrap().downcast_ref::<FileSystemLoop>();
        assert_eq!(found.map(|f| f.ancestor.clone()), Some(top.clone()));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn rotation_is_read_from_the_kernel_where_it_says() {
        let here = std::env::temp_dir();
        // Whatever the disk, the answer is a clear yes/no or "unknown", never a panic.
        let _ = on_rotating_disk(&here);
        assert_eq!(on_rotating_disk(Path::new("/nonexistent/hashlab")), None);
        // virtio-blk reports every disk as rotating: the flag is its default.
        assert!(!flag_describes_the_media(Some("virtio_blk")));
        assert!(flag_describes_the_media(Some("sd")));
        assert!(flag_describes_the_media(Some("nvme")));
        assert!(flag_describes_the_media(None));
    }

    #[test]
    fn file_lists() {
        assert_eq!(parse_file_list(b"a\nb c\n\nd", false).len(), 3);
        assert_eq!(
            parse_file_list(b"a\nb\0c\0", true),
            vec![PathBuf::from("a\nb"), PathBuf::from("c")]
        );
        assert!(exclude_set(&["[".into()]).unwrap_err().starts_with("'['"));
    }
}
