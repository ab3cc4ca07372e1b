//! One update of a manifest at a time. An update reads the manifest (and
//! its sidecar), hashes, and writes both back: two at once would each write
//! what it read plus its own additions, and the second rename would lose the
//! first's. The lock is `flock(2)` (std's `File::lock`, which Python's
//! `fcntl.flock` meets) on the manifest itself, so no lock file is left
//! beside it; since an update replaces the manifest by renaming a new file
//! over it, a lock taken on a file that has since been replaced is let go
//! and taken again on the file the name now holds.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// Held while a manifest is read, updated and written; dropping it lets the
/// next update in.
#[derive(Debug)]
pub struct ManifestLock {
    _file: File,
}

/// Why a manifest could not be locked.
#[derive(Debug)]
pub enum LockError {
    /// Another update still held it when the wait ran out.
    Busy {
        waited: Duration,
    },
    Io(io::Error),
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Busy { waited } => write!(
                f,
                "another update of it is still running after {} s; try again when it ends",
                waited.as_secs()
            ),
            LockError::Io(e) => write!(f, "cannot lock it: {}", crate::io_message(e)),
        }
    }
}

impl std::error::Error for LockError {}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    true
}

/// Locks the manifest at `path` for an update, waiting up to `wait` for
/// another update to end; `waiting` is called once if it has to wait.
/// `Ok(None)`: nothing to lock (no such file, or not a regular file, which
/// an update writes through rather than replaces); reading it then says why.
pub fn lock_manifest(
    path: &Path,
    wait: Duration,
    waiting: &mut dyn FnMut(),
) -> Result<Option<ManifestLock>, LockError> {
    let start = Instant::now();
    let mut told = false;
    let mut pause = Duration::from_millis(10);
    loop {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(LockError::Io(e)),
        }
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(LockError::Io(e)),
        };
        match file.try_lock() {
            Ok(()) => {
                let locked = file.metadata().map_err(LockError::Io)?;
                match std::fs::metadata(path) {
                    Ok(now) if same_file(&locked, &now) => {
                        return Ok(Some(ManifestLock { _file: file }))
                    }
                    // Replaced while this waited: the new file is the one to lock.
                    Ok(_) => continue,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(LockError::Io(e)),
                }
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                if start.elapsed() >= wait {
                    return Err(LockError::Busy {
                        waited: start.elapsed(),
                    });
                }
                if !told {
                    told = true;
                    waiting();
                }
                std::thread::sleep(pause.min(wait.saturating_sub(start.elapsed())));
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(LockError::Io(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_makes_the_next_wait_then_give_up() {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path().join("m");
        std::fs::write(&m, b"x").unwrap();
        let held = lock_manifest(&m, Duration::ZERO, &mut || {})
            .unwrap()
            .unwrap();
        let mut told = 0;
        let err = lock_manifest(&m, Duration::from_millis(100), &mut || told += 1).unwrap_err();
        assert!(matches!(err, LockError::Busy { .. }), "{err}");
        assert_eq!(told, 1);
        drop(held);
        assert!(lock_manifest(&m, Duration::ZERO, &mut || {})
            .unwrap()
            .is_some());
    }

    #[test]
    fn a_lock_on_a_replaced_file_is_taken_again_on_the_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path().join("m");
        std::fs::write(&m, b"old").unwrap();
        let old = File::open(&m).unwrap();
        old.lock().unwrap();
        // As an update writes: a new file renamed over the name.
        std::fs::write(dir.path().join("new"), b"new").unwrap();
        std::fs::rename(dir.path().join("new"), &m).unwrap();
        // The old file is still locked, the name's new file is free.
        assert!(lock_manifest(&m, Duration::ZERO, &mut || {})
            .unwrap()
            .is_some());
        assert!(
            lock_manifest(&dir.path().join("absent"), Duration::ZERO, &mut || {})
                .unwrap()
                .is_none()
        );
    }
}
