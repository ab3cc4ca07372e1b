//! Writing a file the user named (a manifest, results, a report) so that
//! nothing it replaces is lost and nothing planted beside it is followed.
//!
//! [`OutputFile::create`] looks at what the name is now and picks one of three
//! ways to write it:
//!
//! - **A regular file, or nothing yet**: the output goes to a temporary file
//!   created exclusively (`O_EXCL`, random name, so a link planted at a
//!   guessable name is never followed) in the same directory, which gets the
//!   old file's owner and mode (a new file gets the umask's usual mode), is
//!   synced, and is renamed over the file on [`OutputFile::commit`]. A reader
//!   sees the old content or the new, never a mix; a failure at any point
//!   removes the temporary file and leaves the old file as it was.
//! - **A regular file with other hard links** (or one in a directory we may
//!   not create files in): a rename would split it from its other names, so
//!   the output is built whole in an unnamed temporary file first and only
//!   then copied over the file's own content, after reserving the space.
//!   A failed or interrupted run leaves the old content whole; the copy
//!   itself is the one window in which a crash of the machine (or SIGKILL)
//!   leaves a mix.
//! - **Anything else** (a FIFO, a terminal or other device, a socket,
//!   `/dev/stdout` and the other `/proc` descriptor links): written straight
//!   through, as `sort -o` does; such a target cannot be replaced.
//!
//! A symbolic link is followed to its final target and that file is replaced:
//! the link stays a link. As the kernel's `protected_symlinks` does for
//! `open`, a link in a world-writable sticky directory (`/tmp`) is followed
//! only when it belongs to the writer or to the directory's owner, whether
//! it is the file's own name or a directory on the way (`/tmp/dir/out`).
//! (The kernel applies that rule to the last component only, so this module
//! walks the directories itself.) A file of /proc or /sys is written
//! through: nothing can be created beside it to rename over it.
//!
//! Dropping an `OutputFile` without committing discards the output: the
//! temporary file is removed and the target is untouched (except a
//! write-through target, which has had what was written).

use std::fmt;
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Output is handed to the file in pieces of this size.
const BUFFER_SIZE: usize = 64 * 1024;

/// How many symbolic links are followed before giving up (Linux's limit).
const MAX_LINKS: usize = 40;

/// Why an output file could not be written; names the file as the caller
/// gave it, never the temporary file beside it.
#[derive(Debug)]
pub struct OutputError {
    path: PathBuf,
    source: io::Error,
}

impl OutputError {
    pub fn new(path: impl Into<PathBuf>, source: io::Error) -> OutputError {
        OutputError {
            path: path.into(),
            source,
        }
    }

    /// The file the caller asked for.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn io_error(&self) -> &io::Error {
        &self.source
    }
}

/// An I/O error in the system's words, without Rust's " (os error N)", as
/// coreutils says them ("No such file or directory").
pub fn io_message(error: &io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), io_message(&self.source))
    }
}

impl std::error::Error for OutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// An output file being written; see the module documentation.
pub struct OutputFile {
    target: PathBuf,
    way: Option<Way>,
}

enum Way {
    Replace {
        temp: BufWriter<NamedTempFile>,
        dest: PathBuf,
        old: Option<Box<Metadata>>,
    },
    InPlace {
        temp: BufWriter<File>,
        dest: File,
    },
    Through {
        out: BufWriter<File>,
    },
}

/// How the output reaches the target; for callers that report or test it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// A temporary file renamed over the target.
    Replace,
    /// Built aside, then copied over the target's own content (hard links).
    InPlace,
    /// Straight into a FIFO, device, socket or descriptor.
    Through,
}

impl OutputFile {
    /// Prepares to write `target`; nothing visible changes until `commit`
    /// (except for a write-through target, see the module documentation).
    pub fn create(target: impl AsRef<Path>) -> Result<OutputFile, OutputError> {
        let target = target.as_ref().to_path_buf();
        match choose(&target) {
            Ok(way) => Ok(OutputFile {
                target,
                way: Some(way),
            }),
            Err(e) => Err(OutputError::new(target, e)),
        }
    }

    /// The file as the caller named it.
    pub fn target(&self) -> &Path {
        &self.target
    }

    pub fn mode(&self) -> WriteMode {
        match self.way.as_ref().expect("present until commit or drop") {
            Way::Replace { .. } => WriteMode::Replace,
            Way::InPlace { .. } => WriteMode::InPlace,
            Way::Through { .. } => WriteMode::Through,
        }
    }

    /// Makes the output the target's content: renames, or copies in place,
    /// or flushes the last bytes through.
    pub fn commit(mut self) -> Result<(), OutputError> {
        let way = self.way.take().expect("present until commit or drop");
        finish(way).map_err(|e| OutputError::new(self.target.clone(), e))
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self.way.as_mut().expect("present until commit or drop") {
            Way::Replace { temp, .. } => temp,
            Way::InPlace { temp, .. } => temp,
            Way::Through { out } => out,
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    /// Hands buffered bytes to the temporary file (or the write-through
    /// target); the target itself changes only on `commit`.
    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // Abandoned: what is still buffered is dropped, not flushed, and a
        // named temporary file removes itself.
        match self.way.take() {
            Some(Way::Replace { temp, .. }) => drop(temp.into_parts()),
            Some(Way::InPlace { temp, .. }) => drop(temp.into_parts()),
            Some(Way::Through { out }) => drop(out.into_parts()),
            None => {}
        }
    }
}

/// Writes `bytes` as the whole content of `target`, as `OutputFile` does.
pub fn write_file(target: impl AsRef<Path>, bytes: &[u8]) -> Result<(), OutputError> {
    let mut out = OutputFile::create(target)?;
    if let Err(e) = out.write_all(bytes) {
        return Err(OutputError::new(out.target().to_path_buf(), e));
    }
    out.commit()
}

fn choose(target: &Path) -> io::Result<Way> {
    refuse_protected_directories(target)?;
    // "dir/" can only be a directory: let the system say why it cannot be written.
    if ends_with_separator(target) {
        return through(target, OpenOptions::new().write(true).create(true));
    }
    // Following every link, the /proc descriptor links included.
    match fs::metadata(target) {
        Ok(meta) if !meta.is_file() => return through(target, OpenOptions::new().write(true)),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let dest = match resolve_links(target)? {
        Resolved::Path(dest) => dest,
        // /dev/stdout onto a regular file: that descriptor's file, as sort -o writes it.
        Resolved::Descriptor => {
            return through(target, OpenOptions::new().write(true).truncate(true))
        }
    };
    if dest != target {
        refuse_protected_directories(&dest)?;
    }
    match fs::symlink_metadata(&dest) {
        Ok(meta) if meta.is_file() && on_pseudo_file_system(&dest) => {
            through(&dest, OpenOptions::new().write(true).truncate(true))
        }
        Ok(meta) if meta.is_file() => {
            // Writable, as a shell's `>` would need it: a read-only file is
            // not replaced behind its owner's back.
            check_writable(&dest)?;
            if link_count(&meta) > 1 {
                return in_place(&dest);
            }
            replace(&dest, Some(meta))
        }
        // It changed between the two looks: treat it as what it is now.
        Ok(_) => through(&dest, OpenOptions::new().write(true)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => replace(&dest, None),
        Err(e) => Err(e),
    }
}

fn through(path: &Path, options: &OpenOptions) -> io::Result<Way> {
    let file = options.open(path)?;
    Ok(Way::Through {
        out: BufWriter::with_capacity(BUFFER_SIZE, file),
    })
}

fn replace(dest: &Path, old: Option<Metadata>) -> io::Result<Way> {
    let dir = parent_dir(dest);
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(short_name(dest));
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp").rand_bytes(8);
    #[cfg(unix)]
    {
        // The mode any new file gets (0666 less the umask), not tempfile's 0600;
        // an existing file's own mode is set before the rename.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    match builder.tempfile_in(dir) {
        Ok(temp) => Ok(Way::Replace {
            temp: BufWriter::with_capacity(BUFFER_SIZE, temp),
            dest: dest.to_path_buf(),
            old: old.map(Box::new),
        }),
        // A writable file in a directory we may not add to: write it in place.
        Err(e) if old.is_some() && e.kind() == io::ErrorKind::PermissionDenied => in_place(dest),
        Err(e) => Err(e),
    }
}

fn in_place(dest: &Path) -> io::Result<Way> {
    let file = OpenOptions::new().write(true).open(dest)?;
    // Unnamed (O_TMPFILE where the system has it): nothing to find or leave behind.
    let temp = tempfile::tempfile_in(parent_dir(dest)).or_else(|_| tempfile::tempfile())?;
    Ok(Way::InPlace {
        temp: BufWriter::with_capacity(BUFFER_SIZE, temp),
        dest: file,
    })
}

fn finish(way: Way) -> io::Result<()> {
    match way {
        Way::Replace { temp, dest, old } => {
            let temp = temp.into_inner().map_err(io::IntoInnerError::into_error)?;
            if let Some(old) = &old {
                keep_owner_and_mode(temp.as_file(), old)?;
            }
            temp.as_file().sync_all()?;
            // On failure the returned temporary file is dropped, which removes it.
            temp.persist(&dest).map_err(|e| e.error)?;
            // The rename is durable once the directory is synced; not every
            // file system can sync a directory, and the data is in place anyway.
            if let Ok(dir) = File::open(parent_dir(&dest)) {
                let _ = dir.sync_all();
            }
            Ok(())
        }
        Way::InPlace { temp, mut dest } => {
            let mut temp = temp.into_inner().map_err(io::IntoInnerError::into_error)?;
            let len = temp.stream_position()?;
            if len > dest.metadata()?.len() {
                // A full disk must fail here, before the first old byte is overwritten.
                reserve(&dest, len)?;
            }
            temp.seek(SeekFrom::Start(0))?;
            dest.seek(SeekFrom::Start(0))?;
            let copied = io::copy(&mut (&temp).take(len), &mut dest)?;
            if copied != len {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the temporary copy of the output came back short",
                ));
            }
            dest.set_len(len)?;
            dest.sync_all()
        }
        Way::Through { out } => {
            let mut out = out.into_inner().map_err(io::IntoInnerError::into_error)?;
            out.flush()
        }
    }
}

enum Resolved {
    /// The file a chain of links ends at (perhaps not existing yet).
    Path(PathBuf),
    /// A `/proc/PID/fd/N` link: an open descriptor, not a name to rename over.
    Descriptor,
}

/// Follows the links at the end of `path` one by one, as open(2) would, to
/// the name of the file that is really there.
fn resolve_links(path: &Path) -> io::Result<Resolved> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Resolved::Path(path)),
            Err(e) => return Err(e),
        };
        if !meta.file_type().is_symlink() {
            return Ok(Resolved::Path(path));
        }
        if in_procfs(&path) {
            return Ok(Resolved::Descriptor);
        }
        refuse_protected_link(&path, &meta)?;
        let next = fs::read_link(&path)?;
        path = match path.parent() {
            Some(dir) if next.is_relative() => dir.join(next),
            _ => next,
        };
    }
    #[cfg(unix)]
    return Err(io::Error::from_raw_os_error(libc::ELOOP));
    #[cfg(not(unix))]
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The directory holding `path`: `.` for a bare name.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The file name, cut so that `.NAME.XXXXXXXX.tmp` fits in 255 bytes.
fn short_name(path: &Path) -> std::ffi::OsString {
    let name = path.file_name().unwrap_or_default();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = name.as_bytes();
        std::ffi::OsStr::from_bytes(&bytes[..bytes.len().min(200)]).to_os_string()
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy()
            .chars()
            .take(100)
            .collect::<String>()
            .into()
    }
}

/// Whether we may write the file, asked without opening it (an open for
/// writing would tell file watchers it was written).
#[cfg(unix)]
fn check_writable(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: a NUL-terminated path; faccessat only reads it.
    let allowed =
        unsafe { libc::faccessat(libc::AT_FDCWD, name.as_ptr(), libc::W_OK, libc::AT_EACCESS) };
    if allowed == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(unix))]
fn check_writable(path: &Path) -> io::Result<()> {
    OpenOptions::new().write(true).open(path).map(drop)
}

fn ends_with_separator(path: &Path) -> bool {
    let text = path.as_os_str().as_encoded_bytes();
    text.len() > 1 && std::path::is_separator(*text.last().unwrap_or(&0) as char)
}

#[cfg(unix)]
fn link_count(meta: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.nlink()
}

#[cfg(not(unix))]
fn link_count(_meta: &Metadata) -> u64 {
    1
}

/// The replacement gets the old file's owner, group and mode. Owner and
/// group need privileges we may lack (a group we are not in): then the file
/// is ours, as any rewrite by another user makes it, and the mode still holds.
#[cfg(unix)]
fn keep_owner_and_mode(file: &File, old: &Metadata) -> io::Result<()> {
    use std::os::unix::fs::{fchown, MetadataExt, PermissionsExt};
    if fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
        let _ = fchown(file, None, Some(old.gid()));
    }
    // After the chown, which may clear set-user-ID and set-group-ID bits.
    file.set_permissions(fs::Permissions::from_mode(old.mode() & 0o7777))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(file: &File, old: &Metadata) -> io::Result<()> {
    file.set_permissions(old.permissions())
}

/// Allocates the target's blocks up to `len` without changing its size.
#[cfg(target_os = "linux")]
fn reserve(file: &File, len: u64) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::off_t::try_from(len)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "output too large"))?;
    // SAFETY: a valid descriptor we own; fallocate touches no memory of ours.
    let done = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, 0, len) };
    if done == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        // A file system without fallocate: the copy finds out instead.
        Some(libc::EOPNOTSUPP | libc::ENOSYS | libc::EINVAL) => Ok(()),
        _ => Err(error),
    }
}

#[cfg(not(target_os = "linux"))]
fn reserve(_file: &File, _len: u64) -> io::Result<()> {
    Ok(())
}

/// Whether `path` is a link of /proc, such as `/proc/self/fd/1` (what
/// `/dev/stdout` points to): it names an open descriptor, whose file may be
/// unnamed, deleted or shared with the shell that opened it.
#[cfg(target_os = "linux")]
fn in_procfs(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const PROC_SUPER_MAGIC: i64 = 0x9fa0;
    let Ok(dir) = std::ffi::CString::new(parent_dir(path).as_os_str().as_bytes()) else {
        return false;
    };
    let mut stats = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: a NUL-terminated path and a buffer of the size statfs writes.
    let done = unsafe { libc::statfs(dir.as_ptr(), stats.as_mut_ptr()) };
    // SAFETY: statfs filled the buffer when it returned 0.
    // f_type is i64 on some targets and narrower on others.
    #[allow(clippy::unnecessary_cast)]
    let proc = done == 0 && unsafe { stats.assume_init() }.f_type as i64 == PROC_SUPER_MAGIC;
    proc
}

#[cfg(not(target_os = "linux"))]
fn in_procfs(path: &Path) -> bool {
    // fdescfs and the like: the descriptor directories by their usual names.
    let dir = parent_dir(path);
    dir == Path::new("/dev/fd") || dir.starts_with("/proc")
}

/// One step of a path being walked by [`refuse_protected_directories`].
enum Step {
    Root,
    Parent,
    Name(std::ffi::OsString),
}

fn steps(path: &Path) -> Vec<Step> {
    use std::path::Component;
    path.components()
        .filter_map(|c| match c {
            Component::RootDir | Component::Prefix(_) => Some(Step::Root),
            Component::ParentDir => Some(Step::Parent),
            Component::CurDir => None,
            Component::Normal(name) => Some(Step::Name(name.to_os_string())),
        })
        .collect()
}

/// Walks the directories of `path` as the kernel resolves them, following
/// each link among them after [`refuse_protected_link`] has looked at it:
/// `protected_symlinks` guards only a path's last component, so a link
/// planted in /tmp as a directory (`-o /tmp/dir/out`) would lead the write
/// into whatever its owner chose. Where the walk cannot go on (a name that
/// does not exist, a directory we may not search), it stops, and the write
/// itself says why it fails.
fn refuse_protected_directories(path: &Path) -> io::Result<()> {
    let Some(dirs) = path.parent() else {
        return Ok(());
    };
    // Steps still to take, the next one last.
    let mut pending: Vec<Step> = steps(dirs);
    pending.reverse();
    let mut at = PathBuf::new();
    let mut links = 0;
    while let Some(step) = pending.pop() {
        let name = match step {
            Step::Root => {
                at = PathBuf::from(std::path::MAIN_SEPARATOR_STR);
                continue;
            }
            Step::Parent => {
                at.push("..");
                continue;
            }
            Step::Name(name) => name,
        };
        let next = at.join(&name);
        let meta = match fs::symlink_metadata(&next) {
            Ok(meta) => meta,
            Err(_) => return Ok(()),
        };
        if !meta.file_type().is_symlink() {
            at = next;
            continue;
        }
        if in_procfs(&next) {
            // /proc/self/fd/N/...: an open directory, not a name planted anywhere.
            return Ok(());
        }
        // Named, as the file asked for is not the link refused.
        refuse_protected_link(&next, &meta)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {}", next.display(), e)))?;
        links += 1;
        if links > MAX_LINKS {
            #[cfg(unix)]
            return Err(io::Error::from_raw_os_error(libc::ELOOP));
            #[cfg(not(unix))]
            return Err(io::Error::other("too many levels of symbolic links"));
        }
        let target = fs::read_link(&next)?;
        // A relative target goes on from the link's directory, `at`.
        let mut followed = steps(&target);
        followed.reverse();
        pending.extend(followed);
    }
    Ok(())
}

/// Whether `path` is on a file system of the kernel's own (/proc, /sys),
/// where a file can be written but no file created beside it.
#[cfg(target_os = "linux")]
fn on_pseudo_file_system(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const PROC_SUPER_MAGIC: i64 = 0x9fa0;
    const SYSFS_MAGIC: i64 = 0x6265_6572;
    let Ok(dir) = std::ffi::CString::new(parent_dir(path).as_os_str().as_bytes()) else {
        return false;
    };
    let mut stats = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: a NUL-terminated path and a buffer of the size statfs writes.
    let done = unsafe { libc::statfs(dir.as_ptr(), stats.as_mut_ptr()) };
    // SAFETY: statfs filled the buffer when it returned 0.
    // f_type is i64 on some targets and narrower on others.
    #[allow(clippy::unnecessary_cast)]
    let kind = (done == 0).then(|| unsafe { stats.assume_init() }.f_type as i64);
    matches!(kind, Some(PROC_SUPER_MAGIC | SYSFS_MAGIC))
}

#[cfg(not(target_os = "linux"))]
fn on_pseudo_file_system(_path: &Path) -> bool {
    false
}

/// As `fs.protected_symlinks`: in a world-writable sticky directory, a link
/// is followed only when the writer or the directory's owner owns it, so a
/// link planted in /tmp under the name about to be written is not.
#[cfg(unix)]
fn refuse_protected_link(link: &Path, meta: &Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let dir = fs::metadata(parent_dir(link))?;
    let sticky_and_open = dir.mode() & 0o1002 == 0o1002;
    // SAFETY: geteuid cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    if sticky_and_open && meta.uid() != me && meta.uid() != dir.uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "a symbolic link in a world-writable sticky directory, owned by neither you nor the directory's owner: not followed",
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_protected_link(_link: &Path, _meta: &Metadata) -> io::Result<()> {
    Ok(())
}
