//! Hashing a file through a memory map, without dying of SIGBUS.
//!
//! A map lets a tree-parallel hash (blake3) give the whole file to all cores at
//! once, each core faulting in its own pages; that is how b3sum beats any
//! single reader thread. A hash that runs on one thread reads the map while a
//! second thread fills in its page tables ahead of it (`MADV_POPULATE_READ`):
//! neither copies the file, and the hashing thread takes no page faults.
//!
//! The price of a map is SIGBUS: if another process truncates the file while
//! we read it, touching a page past the new end kills the process. We refuse
//! that price. While a map is hashed, its address range is registered in a
//! small table; a SIGBUS handler that finds the faulting address there maps
//! zero pages over the rest of the range (so the faulting
//! instruction, retried, reads zeros), marks the map as damaged and returns.
//! The hash is then thrown away and the file reported as changed while read.
//! A SIGBUS anywhere else goes to the handler that was there before (or the
//! default action, which ends the process as it would have without us).
//!
//! The table and the handler are process-wide state, the one exception to the
//! rule that the libraries hold none: a process has exactly one SIGBUS
//! disposition, so there is nowhere else to keep them.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

use hashlab::Hasher;

use crate::cancel::Cancel;
use crate::hashed::Hashed;

/// Maps hashed at the same time (one per file in flight). When every slot is
/// taken, the caller reads the file instead.
const SLOTS: usize = 64;
/// A slot being claimed or released: its range is not yet (or no longer) valid.
const CLAIMED: usize = usize::MAX;

struct Guard {
    start: AtomicUsize,
    end: AtomicUsize,
    damaged: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)] // only used to initialise the table
const FREE: Guard = Guard {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    damaged: AtomicBool::new(false),
};

static GUARDS: [Guard; SLOTS] = [FREE; SLOTS];

struct Installed {
    previous: libc::sigaction,
    page: usize,
}

static HANDLER: OnceLock<Option<Installed>> = OnceLock::new();

fn install() -> Option<&'static Installed> {
    HANDLER
        .get_or_init(|| {
            // SAFETY: sysconf and sigaction are called with valid arguments;
            // `previous` is written by the kernel before it is read.
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page <= 0 {
                    return None;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGBUS, &action, &mut previous) != 0 {
                    return None;
                }
                Some(Installed {
                    previous,
                    page: page as usize,
                })
            }
        })
        .as_ref()
}

/// Runs on the faulting thread. Only async-signal-safe work: atomics, mmap and
/// sigaction (mmap is not on POSIX's list, but on Linux it is a plain system
/// call with no user-space locks).
extern "C" fn on_sigbus(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid siginfo for a SA_SIGINFO handler.
    let address = unsafe { (*info).si_addr() } as usize;
    let Some(Some(installed)) = HANDLER.get() else {
        return;
    };
    for guard in &GUARDS {
        let start = guard.start.load(Ordering::Acquire);
        let end = guard.end.load(Ordering::Acquire);
        if start == 0 || start == CLAIMED || address < start || address >= end {
            continue;
        }
        let from = address & !(installed.page - 1);
        // SAFETY: [from, end) lies inside a live map that this module owns
        // (registered, and released only after the hashing returned).
        let zeros = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zeros != libc::MAP_FAILED {
            guard.damaged.store(true, Ordering::Release);
            return;
        }
    }
    // Not one of ours: behave as if we had never been installed.
    let previous = installed.previous;
    if previous.sa_sigaction == libc::SIG_DFL || previous.sa_sigaction == libc::SIG_IGN {
        // SAFETY: restoring a disposition; returning re-runs the faulting
        // instruction, which now gets the default action.
        unsafe { libc::sigaction(libc::SIGBUS, &previous, std::ptr::null_mut()) };
    } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous handler was installed with this signature.
        let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(previous.sa_sigaction) };
        handler(signal, info, context);
    } else {
        // SAFETY: the previous handler was installed with this signature.
        let handler: extern "C" fn(libc::c_int) =
            unsafe { std::mem::transmute(previous.sa_sigaction) };
        handler(signal);
    }
}

/// A registered range; released when dropped.
struct Registration(&'static Guard);

impl Registration {
    fn claim(start: usize, len: usize) -> Option<Registration> {
        let guard = GUARDS.iter().find(|g| {
            g.start
                .compare_exchange(0, CLAIMED, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        guard.damaged.store(false, Ordering::Relaxed);
        guard.end.store(start + len, Ordering::Release);
        guard.start.store(start, Ordering::Release);
        Some(Registration(guard))
    }

    fn damaged(&self) -> bool {
        self.0.damaged.load(Ordering::Acquire)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.0.start.store(CLAIMED, Ordering::Release);
        self.0.end.store(0, Ordering::Release);
        self.0.start.store(0, Ordering::Release);
    }
}

/// Hashes `size` bytes of `file` through a map. `Ok(None)`: no map could be
/// made or guarded here (the caller reads the file instead). `populate_ahead`:
/// a second thread faults the pages in ahead of the hasher (for a hash that
/// runs on one thread; a tree-parallel one, or several hashers each on a core
/// of its own, fault their own pages).
pub fn hash_mapped(
    file: &File,
    size: u64,
    hasher: &mut dyn Hasher,
    populate_ahead: bool,
    cancel: &Cancel,
) -> io::Result<Option<Hashed>> {
    hash_mapped_then(file, size, hasher, populate_ahead, cancel, || {})
}

/// Pages are populated and hashed in windows of this size...
const POPULATE_WINDOW: usize = 4 << 20;
/// ...and population runs at most this many windows ahead of the hash: on a
/// disk faster than the hash, an unbounded run ahead would fault in more of a
/// large file than memory holds, and evict what the hash has yet to read.
const POPULATE_WINDOWS_AHEAD: usize = 16;
/// A map hashed by several threads is handed to them in parts this large,
/// so that a cancel is seen between parts: from a disk reading 100 MB/s, a
/// part takes a third of a second. A part is whole chunks of every tree hash
/// (1 KiB for BLAKE3, 8 KiB for K12), so the hashes split no chunk.
const SHARED_WINDOW: usize = 32 << 20;

/// Hashed pages of a map are given back this many bytes at a time. A map's
/// pages count in the process's memory until they are unmapped, and the
/// kernel frees them only under pressure: a whole 100 GB sparse file mapped
/// and hashed reached 23.6 GB RSS where read() stays at 8.6 MB. Given back
/// behind the hash, a map holds at most this span, the windows populated
/// ahead of it and a part in flight.
const RELEASE_SPAN: usize = 64 << 20;

/// Gives back the pages of a map behind the hash, a span at a time: like
/// mapping and unmapping it in windows, with one map and one guard.
struct Behind<'m> {
    map: &'m [u8],
    released: usize,
}

impl<'m> Behind<'m> {
    fn new(map: &'m [u8]) -> Behind<'m> {
        Behind { map, released: 0 }
    }

    /// `map[..upto]` is hashed and will not be read again. `upto` ends a
    /// part or window (whole pages), so every release starts on a page.
    fn hashed(&mut self, upto: usize) {
        if upto - self.released >= RELEASE_SPAN {
            release(&self.map[self.released..upto]);
            self.released = upto;
        }
    }
}

/// Drops `part`'s pages from this process's page tables. The map is private
/// and never written, so this drops no data: the file's pages stay in the
/// page cache, and a page touched again (none is) would be read back from it.
#[cfg(target_os = "linux")]
fn release(part: &[u8]) {
    advise(part, libc::MADV_DONTNEED);
}

/// Elsewhere MADV_DONTNEED may only be a hint; the pages go with the map.
#[cfg(not(target_os = "linux"))]
fn release(_: &[u8]) {}

/// Hashes `map` on this thread while another asks the kernel to fill in its
/// page tables a few windows ahead. With read() (even read ahead on another
/// thread) every byte is copied once more and the hashing core takes the
/// copy from the other core's cache; a map populated by the other core costs
/// the hashing thread neither the copy nor the page faults.
/// Returns false where `cancel` stopped it before the end.
#[cfg(target_os = "linux")]
fn hash_populating_ahead(map: &[u8], hasher: &mut dyn Hasher, cancel: &Cancel) -> bool {
    use std::sync::mpsc;
    let (permits, permitted) = mpsc::channel::<()>();
    for _ in 0..POPULATE_WINDOWS_AHEAD {
        let _ = permits.send(());
    }
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let windows: Vec<&[u8]> = map.chunks(POPULATE_WINDOW).collect();
            // From a disk, populating a window page by page waits on one small
            // read after another: sequential access widens the kernel's read
            // ahead, and each window's read starts while the last is faulted
            // in (uncached 1 GiB sha256: 1.12 s without either, 0.68-0.71 s
            // with both, as fast as read(); docs/design-notes.md).
            advise(map, libc::MADV_SEQUENTIAL);
            if let Some(first) = windows.first() {
                advise(first, libc::MADV_WILLNEED);
            }
            for (i, window) in windows.iter().enumerate() {
                // The hasher hangs up when it is done: stop populating.
                if permitted.recv().is_err() {
                    break;
                }
                if let Some(next) = windows.get(i + 1) {
                    advise(next, libc::MADV_WILLNEED);
                }
                // EINVAL before Linux 5.14; EFAULT where the file shrank (it
                // returns an error where a read would raise SIGBUS). Either way
                // the hasher faults its own pages and the guard catches the rest.
                if !advise(window, libc::MADV_POPULATE_READ) {
                    break;
                }
            }
        });
        let mut finished = true;
        let mut behind = Behind::new(map);
        let mut hashed = 0;
        for window in map.chunks(POPULATE_WINDOW) {
            if cancel.is_cancelled() {
                finished = false;
                break;
            }
            hasher.update(window);
            hashed += window.len();
            behind.hashed(hashed);
            let _ = permits.send(());
        }
        // Hanging up stops the populating thread at its next window.
        drop(permits);
        finished
    })
}

/// madvise(2) on part of a live map; false where the kernel refused.
#[cfg(target_os = "linux")]
fn advise(part: &[u8], advice: libc::c_int) -> bool {
    // SAFETY: every part passed here starts page-aligned (the map does, and
    // windows are whole pages) and lies inside a live map that outlives the
    // call. The advice given only reads ahead or faults pages in.
    unsafe { libc::madvise(part.as_ptr() as *mut libc::c_void, part.len(), advice) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn hash_populating_ahead(map: &[u8], hasher: &mut dyn Hasher, cancel: &Cancel) -> bool {
    hash_in_parts(map, hasher, cancel, POPULATE_WINDOW)
}

/// Feeds `map` to `hasher` in parts of `part` bytes, looking at `cancel`
/// between them; false where it stopped before the end.
fn hash_in_parts(map: &[u8], hasher: &mut dyn Hasher, cancel: &Cancel, part: usize) -> bool {
    let mut behind = Behind::new(map);
    let mut hashed = 0;
    for window in map.chunks(part) {
        if cancel.is_cancelled() {
            return false;
        }
        hasher.update(window);
        hashed += window.len();
        behind.hashed(hashed);
    }
    true
}

/// As [`hash_mapped`]; `after_mapping` runs between mapping and hashing (tests
/// use it to truncate the file under the map).
fn hash_mapped_then(
    file: &File,
    size: u64,
    hasher: &mut dyn Hasher,
    populate_ahead: bool,
    cancel: &Cancel,
    after_mapping: impl FnOnce(),
) -> io::Result<Option<Hashed>> {
    let Ok(len) = usize::try_from(size) else {
        return Ok(None);
    };
    if len == 0 || install().is_none() {
        return Ok(None);
    }
    // SAFETY: the map may change under us if another process writes or
    // truncates the file. Writes only change the bytes hashed (the caller
    // compares size and mtime before and after, as it does for read());
    // truncation raises SIGBUS, which the registered guard turns into an error.
    let map = match unsafe { memmap2::MmapOptions::new().len(len).map(file) } {
        Ok(map) => map,
        Err(_) => return Ok(None),
    };
    let Some(registration) = Registration::claim(map.as_ptr() as usize, len) else {
        return Ok(None);
    };
    after_mapping();
    let finished = if populate_ahead {
        hash_populating_ahead(&map, hasher, cancel)
    } else {
        // No madvise: for a tree-parallel hash MADV_SEQUENTIAL and MAP_POPULATE
        // both measured no faster on a cached file (populate faults everything
        // in on one thread first); for several hashers sharing the map,
        // MADV_SEQUENTIAL made no difference on an uncached one.
        hash_in_parts(&map, hasher, cancel, SHARED_WINDOW)
    };
    let damaged = registration.damaged();
    drop(registration);
    drop(map);
    if !finished {
        hasher.reset();
        return Err(crate::cancel::interrupted());
    }
    if damaged {
        hasher.reset();
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "changed while it was being read: it shrank under the memory map",
        ));
    }
    Ok(Some(Hashed {
        digest: hasher.finalize_reset(),
        bytes: size,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashlab::{HashParams, Registry};
    use std::io::Write;

    fn temp_file(len: usize) -> (std::path::PathBuf, Vec<u8>) {
        let dir =
            std::env::temp_dir().join(format!("hashlab-mapped-{}-{}", std::process::id(), len));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data");
        let data: Vec<u8> = (0..len as u32)
            .map(|i| (i.wrapping_mul(31) >> 3) as u8)
            .collect();
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&data)
            .unwrap();
        (path, data)
    }

    #[test]
    fn a_mapped_file_hashes_like_its_bytes() {
        // Windows of the populating thread end inside the file and at its end.
        for len in [3 << 20, POPULATE_WINDOW, 2 * POPULATE_WINDOW + 4099] {
            let (path, data) = temp_file(len);
            let registry = Registry::default();
            for algorithm in ["sha256", "blake3", "xxh3-64"] {
                for populate_ahead in [false, true] {
                    let params = HashParams {
                        parallel: !populate_ahead,
                        ..HashParams::default()
                    };
                    let mut h = registry.hasher(algorithm, None, &params).unwrap();
                    h.update(&data);
                    let expected = h.finalize_reset();
                    let file = File::open(&path).unwrap();
                    let got = hash_mapped(
                        &file,
                        data.len() as u64,
                        h.as_mut(),
                        populate_ahead,
                        &Cancel::new(),
                    )
                    .unwrap()
                    .expect("maps work here");
                    assert_eq!(got.digest, expected, "{algorithm} {len} {populate_ahead}");
                    assert_eq!(got.bytes, data.len() as u64);
                }
            }
            std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
        }
    }

    #[test]
    fn truncation_under_the_map_is_an_error_not_a_crash() {
        let len = POPULATE_WINDOW + (1 << 20);
        let (path, data) = temp_file(len);
        let registry = Registry::default();
        for algorithm in ["sha256", "blake3"] {
            for populate_ahead in [false, true] {
                std::fs::write(&path, &data).unwrap();
                let params = HashParams {
                    parallel: !populate_ahead,
                    ..HashParams::default()
                };
                let mut h = registry.hasher(algorithm, None, &params).unwrap();
                let file = File::open(&path).unwrap();
                let err = hash_mapped_then(
                    &file,
                    data.len() as u64,
                    h.as_mut(),
                    populate_ahead,
                    &Cancel::new(),
                    || {
                        let shrink = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                        shrink.set_len(100_000).unwrap();
                    },
                )
                .unwrap_err();
                assert!(err.to_string().contains("shrank"), "{algorithm}: {err}");
                // The hasher was reset and the slot released: the next file is fine.
                let whole = hash_mapped(&file, 100_000, h.as_mut(), populate_ahead, &Cancel::new())
                    .unwrap()
                    .unwrap();
                h.update(&data[..100_000]);
                assert_eq!(whole.digest, h.finalize_reset(), "{algorithm}");
            }
        }
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
