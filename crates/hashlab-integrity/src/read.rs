//! Reading files into a hasher in bounded memory.
//!
//! The buffer is page-aligned: on Linux, read() from the page cache into a large
//! unaligned buffer measured about 5x slower here than into an aligned one
//! (1.7 vs 9.3 GB/s at 1 MiB), see docs/design-notes.md.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc;

use hashlab::{FileBound, Hasher};

use crate::cancel::Cancel;

const PAGE: usize = 4096;

/// A reusable page-aligned read buffer.
pub struct ReadBuffer {
    storage: Vec<u8>,
    offset: usize,
    len: usize,
}

impl ReadBuffer {
    /// Default size: large enough that a syscall per chunk is noise, small
    /// enough to stay in L2 while the hasher reads it.
    pub const DEFAULT_SIZE: usize = 256 * 1024;

    pub fn new(len: usize) -> Self {
        let len = len.max(PAGE);
        // Over-allocate by a page and start at the first aligned byte: no unsafe needed.
        let storage = vec![0u8; len + PAGE];
        let offset = storage.as_ptr().align_offset(PAGE);
        ReadBuffer {
            storage,
            offset,
            len,
        }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.offset..self.offset + self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Default for ReadBuffer {
    fn default() -> Self {
        ReadBuffer::new(Self::DEFAULT_SIZE)
    }
}

pub use crate::hashed::Hashed;

/// Feeds everything `reader` yields into `hasher` and finalizes; stops with
/// an [`Interrupted`](crate::Interrupted) error at the first chunk after
/// `cancel` is set. On an error the hasher is reset, so it can be reused for
/// the next file.
pub fn hash_reader(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    buffer: &mut ReadBuffer,
    cancel: &Cancel,
) -> io::Result<Hashed> {
    let fed = feed_reader(reader, hasher, buffer, cancel);
    finish(hasher, fed)
}

/// The digest of what was fed when feeding succeeded; otherwise the hasher
/// is reset, so that it starts clean for the next file either way.
pub(crate) fn finish(hasher: &mut dyn Hasher, fed: io::Result<u64>) -> io::Result<Hashed> {
    match fed {
        Ok(bytes) => Ok(Hashed {
            digest: hasher.finalize_reset(),
            bytes,
        }),
        Err(e) => {
            hasher.reset();
            Err(e)
        }
    }
}

/// Feeds everything `reader` yields into `hasher`, without finalizing;
/// returns the bytes fed.
pub(crate) fn feed_reader(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    buffer: &mut ReadBuffer,
    cancel: &Cancel,
) -> io::Result<u64> {
    let buf = buffer.as_mut_slice();
    let mut bytes = 0u64;
    loop {
        cancel.check()?;
        match reader.read(buf) {
            Ok(0) => return Ok(bytes),
            Ok(n) => {
                hasher.update(&buf[..n]);
                bytes += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn fill(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Chunks in flight between the read-ahead thread and the hasher: one being
/// read, one waiting, one being hashed.
const PIPELINE_BUFFERS: usize = 3;

/// Like `hash_reader`, but a second thread reads the next chunk while this one
/// hashes the last, so the copy out of the page cache and the hash overlap
/// (measured in docs/design-notes.md). Memory: `PIPELINE_BUFFERS` x `chunk` bytes.
pub fn hash_reader_read_ahead(
    reader: &mut (dyn Read + Send),
    hasher: &mut dyn Hasher,
    chunk: usize,
    cancel: &Cancel,
) -> io::Result<Hashed> {
    let (full_tx, full_rx) =
        mpsc::sync_channel::<io::Result<(ReadBuffer, usize)>>(PIPELINE_BUFFERS);
    let (empty_tx, empty_rx) = mpsc::sync_channel::<ReadBuffer>(PIPELINE_BUFFERS);
    for _ in 0..PIPELINE_BUFFERS {
        empty_tx
            .send(ReadBuffer::new(chunk))
            .expect("the channel has room for every buffer");
    }
    let result = std::thread::scope(|scope| {
        scope.spawn(move || {
            // Ends when the input ends, on an error, when the hashing side
            // hangs up (its receivers dropped) or is cancelled: never blocks
            // forever, and reads at most one chunk after a cancel.
            while let Ok(mut buffer) = empty_rx.recv() {
                if cancel.is_cancelled() {
                    break;
                }
                match fill(reader, buffer.as_mut_slice()) {
                    // End of input: dropping `full_tx` ends the hashing loop.
                    Ok(0) => break,
                    Ok(n) => {
                        let last = n < buffer.len();
                        if full_tx.send(Ok((buffer, n))).is_err() || last {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = full_tx.send(Err(e));
                        break;
                    }
                }
            }
        });
        // Owned here so that leaving this closure, even by a panic, hangs up
        // on the reader and the scope can join it.
        let empty_tx = empty_tx;
        let mut bytes = 0u64;
        for message in full_rx {
            cancel.check()?;
            let (buffer, n) = message?;
            hasher.update(&buffer.storage[buffer.offset..buffer.offset + n]);
            bytes += n as u64;
            // The reader may already have finished; then the buffer is just dropped.
            let _ = empty_tx.send(buffer);
        }
        Ok(bytes)
    });
    // The reader stops at a cancel by ending the input: only this side can
    // tell that from a real end.
    let result = result.and_then(|bytes| cancel.check().map(|()| bytes));
    finish(hasher, result)
}

/// How to read files for one backend on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadStrategy {
    /// Bytes per read (and per chunk handed to the read-ahead thread).
    pub chunk: usize,
    /// Let a tree-parallel backend spread each chunk over several threads.
    pub parallel_hash: bool,
    /// Read large files on a second thread while this one hashes.
    pub read_ahead: bool,
    /// Hash large files through a memory map instead (guarded against
    /// truncation, see `mapped`; how the map is read: `mapping`).
    pub mmap: bool,
    /// Several hashers fed from one read each take a core for every chunk
    /// (`Fanout`): no thread is left to read ahead, and a map, where allowed,
    /// is handed to them whole, each reading it with no copy (the first to
    /// touch a page faults it in).
    pub hashers_share_cores: bool,
    /// With `read_ahead`, a large file is read by every core at once, each
    /// copying its own chunk and feeding it to the hasher in turn, instead of
    /// by one reader thread: for a hash faster than the page cache hands out
    /// bytes, the copy is what takes the time, and here it is shared.
    pub reads_in_turns: bool,
    /// Cores this process may use, taken once: on Linux the count reads
    /// cgroup files, a tenth of a millisecond a time.
    pub cores: usize,
}

impl ReadStrategy {
    /// Large files are read ahead on one thread while the hash runs on
    /// another (where maps are allowed, see below, the map takes the place of
    /// the reader: a second thread populates it). A tree-parallel hash
    /// (blake3, XKCP K12) also spreads each chunk over all cores, but only
    /// where a core is left for the reader: on two cores, three busy threads
    /// measured slower and far noisier than the reader plus one hashing
    /// thread (docs/design-notes.md).
    ///
    /// Hashes that run faster than a read from the page cache copies
    /// ([`FileBound::Reading`]: xxHash, CRC, HighwayHash, 12-55 GB/s against
    /// 5-10 GB/s for read() on one core) gain nothing from one reader thread
    /// and lose its hand-offs (a cached 1 GiB file, XXH3: 169 ms read ahead,
    /// 146 ms without). They read in turns: every core copies a chunk of its
    /// own and hashes it when its turn comes, so the copy runs on all cores
    /// while the hash stays in order.
    pub fn for_hash(bound: FileBound, tree_parallel: bool) -> ReadStrategy {
        Self::for_hash_with(bound, tree_parallel, true)
    }

    /// As [`for_hash`](Self::for_hash); `allow_mmap: false` (`--no-mmap`,
    /// or a rotating disk, where threads faulting pages of one map make the head
    /// seek) reads every file with read().
    ///
    /// On two or more cores, large files are hashed through a map. A
    /// tree-parallel hash then has every core fault in and hash its own part
    /// of the file, where with read() one thread copies everything. A hash on
    /// one thread reads the map while the second core populates it ahead (on
    /// Linux, which has MADV_POPULATE_READ): no copy, and no faults on the
    /// hashing core (sha256 on a cached 1 GiB file: measurements in
    /// docs/design-notes.md). Hashes faster than the page cache hands out bytes
    /// read instead: for them a map measured slower than read() into an
    /// aligned buffer (XXH3 4.6-5.4 GB/s mapped against 7.5 GB/s), and
    /// read in turns faster still (docs/design-notes.md).
    pub fn for_hash_with(bound: FileBound, tree_parallel: bool, allow_mmap: bool) -> ReadStrategy {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::for_cores(bound, tree_parallel, allow_mmap, cores)
    }

    /// As [`for_hash_with`](Self::for_hash_with), on `cores` cores.
    pub fn for_cores(
        bound: FileBound,
        tree_parallel: bool,
        allow_mmap: bool,
        cores: usize,
    ) -> ReadStrategy {
        let faster_than_reading = bound == FileBound::Reading;
        let map_helps = tree_parallel || (cfg!(target_os = "linux") && !faster_than_reading);
        let mmap = allow_mmap && map_helps && cores > 1 && cfg!(unix);
        let parallel_hash = tree_parallel && (cores > 2 || mmap);
        ReadStrategy {
            mmap,
            chunk: if parallel_hash {
                4 << 20
            } else {
                ReadBuffer::DEFAULT_SIZE
            },
            parallel_hash,
            read_ahead: cores > 1,
            hashers_share_cores: false,
            reads_in_turns: faster_than_reading && !tree_parallel,
            cores,
        }
    }
}

impl ReadStrategy {
    /// The same, for files whose bytes come from a disk rather than the page
    /// cache, where the disk sets the pace: large files are read in turns
    /// whatever the hash, since two reads in flight keep a disk busier than
    /// one reader thread does (an uncached 1 GiB file, blake3: 1.18 s read
    /// ahead, 0.91 s in turns, `cat` 0.95 s; on a cached file a hash slower
    /// than the copy loses by turns: sha256 0.87 s read ahead, 1.01 s).
    pub fn from_disk(mut self, from_disk: bool) -> ReadStrategy {
        self.reads_in_turns |= from_disk;
        self
    }

    /// The same, for `hashers` algorithms fed from one read, each on a core of
    /// its own: where they already take every core, a reader thread would only
    /// compete with them.
    pub fn sharing_cores_with(mut self, hashers: usize) -> ReadStrategy {
        if hashers > 1 && self.cores <= hashers {
            self.read_ahead = false;
            self.hashers_share_cores = true;
        }
        self
    }
}

impl ReadStrategy {
    /// `Some(populate_ahead)` where a file of `size` bytes is hashed through
    /// a map: hashed by several threads (a tree-parallel hash, or hashers
    /// sharing the cores) the map is handed over whole and they fault in their
    /// own pages; hashed by one thread, a second populates the map ahead of
    /// it, which is the map's form of reading ahead and so needs `read_ahead`.
    #[cfg(unix)]
    fn mapping(&self, size: u64) -> Option<bool> {
        let several_threads = self.parallel_hash || self.hashers_share_cores;
        (self.mmap && size >= MMAP_MIN_SIZE && (several_threads || self.read_ahead))
            .then_some(!several_threads)
    }
}

/// Files at least this large are read ahead on a second thread.
pub const READ_AHEAD_MIN_SIZE: u64 = 4 << 20;

/// Files at least this large are hashed through a map when the strategy says so.
pub const MMAP_MIN_SIZE: u64 = 4 << 20;

/// Hashes one file. Directories fail with the system's "Is a directory" error,
/// as coreutils reports them. Large regular files are mapped (`strategy.mmap`)
/// or read on a second thread in chunks of `buffer.len()` (`strategy.read_ahead`).
pub fn hash_file(
    path: &Path,
    hasher: &mut dyn Hasher,
    buffer: &mut ReadBuffer,
    strategy: &ReadStrategy,
    cancel: &Cancel,
) -> io::Result<Hashed> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    hash_open_file(file, &meta, hasher, buffer, strategy, cancel)
}

/// As [`hash_file`], for a file already open and its metadata (the caller's
/// own fstat). Whatever its size says, the file is read to its end.
pub fn hash_open_file(
    mut file: File,
    meta: &Metadata,
    hasher: &mut dyn Hasher,
    buffer: &mut ReadBuffer,
    strategy: &ReadStrategy,
    cancel: &Cancel,
) -> io::Result<Hashed> {
    if !meta.is_file() {
        // A pipe, FIFO, terminal or device (or a directory, whose read fails).
        #[cfg(unix)]
        let mut reader = Waiting::new(&file, cancel);
        #[cfg(not(unix))]
        let mut reader = &file;
        return hash_reader(&mut reader, hasher, buffer, cancel);
    }
    let size = meta.len();
    if size >= READ_AHEAD_MIN_SIZE {
        read_sequentially(&file);
    }
    #[cfg(unix)]
    if let Some(populate_ahead) = strategy.mapping(size) {
        // A map covers the size, so a size that is not the length would hash
        // too much or too little: such files are read.
        if size_is_length(&file, meta) {
            if let Some(hashed) =
                crate::mapped::hash_mapped(&file, size, hasher, populate_ahead, cancel)?
            {
                // Exactly `size` bytes were hashed: a file that grew meanwhile is
                // caught by the caller's before/after comparison, as with read().
                return Ok(hashed);
            }
        }
    }
    if strategy.read_ahead && size >= READ_AHEAD_MIN_SIZE {
        #[cfg(unix)]
        if strategy.reads_in_turns && size_is_length(&file, meta) {
            let readers = strategy.cores.min(TURN_READERS_MAX);
            return hash_reading_in_turns(&file, size, hasher, buffer.len(), readers, cancel);
        }
        return hash_reader_read_ahead(&mut file, hasher, buffer.len(), cancel);
    }
    hash_reader(&mut file, hasher, buffer, cancel)
}

/// Threads that read one file in turns: on two cores the copy measured
/// twice as fast as one thread's (1 GiB from the page cache: 104 ms against
/// 190 ms); past four, the memory bus rather than the cores sets the pace.
const TURN_READERS_MAX: usize = 4;

/// Hashes the first `size` bytes of `file`, then whatever follows them, with
/// `readers` threads (this one among them) taking chunks in order, copying
/// each with pread() into a buffer of its own and feeding it to `hasher` when
/// all earlier chunks have been fed. The chunk stays in the cache of the core
/// that copied it, and the copies, which are the cost for a hash faster than
/// the page cache, overlap. A chunk that comes short (the file shrank) ends
/// the input there, as a read() would; the caller's before/after comparison
/// reports the change.
#[cfg(unix)]
fn hash_reading_in_turns(
    file: &File,
    size: u64,
    hasher: &mut dyn Hasher,
    chunk: usize,
    readers: usize,
    cancel: &Cancel,
) -> io::Result<Hashed> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Condvar, Mutex};

    struct Turns<'h> {
        hasher: &'h mut dyn Hasher,
        /// The chunk whose turn it is.
        next: u64,
        bytes: u64,
        /// Set by the chunk that ended the input early or failed.
        stopped: Option<io::Result<()>>,
    }
    let chunks = size.div_ceil(chunk as u64);
    let claimed = AtomicU64::new(0);
    let turns = Mutex::new(Turns {
        hasher,
        next: 0,
        bytes: 0,
        stopped: None,
    });
    let turn_taken = Condvar::new();
    let read_in_turns = || {
        let mut buffer = ReadBuffer::new(chunk);
        loop {
            let index = claimed.fetch_add(1, Ordering::Relaxed);
            if index >= chunks {
                return;
            }
            let offset = index * chunk as u64;
            let want = (size - offset).min(chunk as u64) as usize;
            let read = cancel
                .check()
                .and_then(|()| read_at_most(file, &mut buffer.as_mut_slice()[..want], offset));
            let mut state = turns
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            while state.next != index && state.stopped.is_none() {
                state = turn_taken
                    .wait(state)
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            if state.stopped.is_some() {
                return;
            }
            match read {
                Ok(n) => {
                    state.hasher.update(&buffer.as_mut_slice()[..n]);
                    state.bytes += n as u64;
                    if n < want {
                        state.stopped = Some(Ok(()));
                    }
                }
                Err(e) => state.stopped = Some(Err(e)),
            }
            state.next += 1;
            drop(state);
            turn_taken.notify_all();
        }
    };
    let readers = readers.clamp(1, chunks.max(1).try_into().unwrap_or(usize::MAX));
    std::thread::scope(|scope| {
        for _ in 1..readers {
            scope.spawn(read_in_turns);
        }
        read_in_turns();
    });
    let Turns {
        hasher,
        bytes,
        stopped,
        ..
    } = turns
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let fed = match stopped {
        Some(Err(e)) => Err(e),
        Some(Ok(())) => Ok(bytes),
        None => {
            // Read to the end, as read() would: bytes appended since the size
            // was taken are hashed too, and the caller sees the file grew.
            use std::io::{Seek, SeekFrom};
            let mut rest = file;
            rest.seek(SeekFrom::Start(size)).and_then(|_| {
                feed_reader(&mut rest, hasher, &mut ReadBuffer::new(chunk), cancel)
                    .map(|more| bytes + more)
            })
        }
    };
    let fed = fed.and_then(|bytes| cancel.check().map(|()| bytes));
    finish(hasher, fed)
}

/// pread() until `buf` is full or the file ends; returns the bytes read.
#[cfg(unix)]
fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Tells the kernel the file will be read from start to end, which doubles
/// its read-ahead window, as `cat` does: reading an uncached 1 GiB file in
/// 256 KiB chunks without it took 1.10 s, `cat` 0.88 s (docs/design-notes.md).
/// Only advice: where it is refused the reads are the same, only slower.
fn read_sequentially(file: &File) {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain syscall on a descriptor open for the call; offset 0,
        // length 0 = the whole file.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    let _ = file;
}

/// Whether a regular file's reported size is its length. Pseudo file
/// systems report 0 (procfs) or a page (sysfs) whatever a read then yields,
/// FUSE reports what its daemon claims, and an empty size may be either an
/// empty file or one of those: all of them are read to their end.
pub(crate) fn size_is_length(file: &File, meta: &Metadata) -> bool {
    meta.is_file() && meta.len() > 0 && !on_pseudo_file_system(file)
}

#[cfg(target_os = "linux")]
fn on_pseudo_file_system(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // File systems whose sizes are not lengths, from linux/magic.h; the
    // last three have no constant in libc.
    const CONFIGFS_MAGIC: u32 = 0x6265_6570;
    const EFIVARFS_MAGIC: u32 = 0xde5e_81e4;
    const PSTOREFS_MAGIC: u32 = 0x6165_676c;
    let pseudo = [
        libc::PROC_SUPER_MAGIC as u32,
        libc::SYSFS_MAGIC as u32,
        libc::DEBUGFS_MAGIC as u32,
        libc::TRACEFS_MAGIC as u32,
        libc::SECURITYFS_MAGIC as u32,
        libc::SELINUX_MAGIC as u32,
        libc::SMACK_MAGIC as u32,
        libc::CGROUP_SUPER_MAGIC as u32,
        libc::CGROUP2_SUPER_MAGIC as u32,
        libc::BPF_FS_MAGIC as u32,
        libc::RDTGROUP_SUPER_MAGIC as u32,
        libc::NSFS_MAGIC as u32,
        libc::OPENPROM_SUPER_MAGIC as u32,
        libc::USBDEVICE_SUPER_MAGIC as u32,
        libc::XENFS_SUPER_MAGIC as u32,
        libc::FUSE_SUPER_MAGIC as u32,
        CONFIGFS_MAGIC,
        EFIVARFS_MAGIC,
        PSTOREFS_MAGIC,
    ];
    // SAFETY: fstatfs fills a zeroed statfs for a descriptor open for the call.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut fs) } != 0 {
        // Unknown: reading to the end is right whatever the file system.
        return true;
    }
    pseudo.contains(&(fs.f_type as u32))
}

#[cfg(not(target_os = "linux"))]
fn on_pseudo_file_system(_: &File) -> bool {
    false
}

/// Reads a descriptor that may make us wait: a pipe, a FIFO, a terminal.
/// There a read() blocks until data comes, and a signal does not end the
/// wait when its handler was installed with SA_RESTART (as ctrlc installs
/// its own), so each read first waits in poll(2), a tenth of a second at a
/// time, looking at `cancel` in between.
#[cfg(unix)]
pub(crate) struct Waiting<'a> {
    fd: std::os::fd::BorrowedFd<'a>,
    cancel: &'a Cancel,
}

#[cfg(unix)]
impl<'a> Waiting<'a> {
    pub(crate) fn new(fd: &'a impl std::os::fd::AsFd, cancel: &'a Cancel) -> Waiting<'a> {
        Waiting {
            fd: fd.as_fd(),
            cancel,
        }
    }
}

#[cfg(unix)]
impl Read for Waiting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::fd::AsRawFd;
        const WAIT_MS: libc::c_int = 100;
        let fd = self.fd.as_raw_fd();
        loop {
            self.cancel.check()?;
            let mut ready = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd, and a count of one.
            match unsafe { libc::poll(&mut ready, 1, WAIT_MS) } {
                0 => continue,
                // Readable, at its end, or failed: the read says which.
                n if n > 0 => break,
                _ => {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
        // SAFETY: writes at most buf.len() bytes into buf, from a descriptor
        // borrowed for as long as self.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }
}

#[cfg(test)]
mod tests;
