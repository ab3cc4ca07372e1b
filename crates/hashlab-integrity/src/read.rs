//! Reading files into a hasher in bounded memory.
//!
//! The buffer is page-aligned: on Linux, read() from the page cache into a large
//! unaligned buffer measured about 5x slower here than into an aligned one
//! (1.7 vs 9.3 GB/s at 1 MiB), see docs/design.md.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc;

use hashlab::{Digest, FileBound, Hasher};

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

/// A finished hash and how many bytes went into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hashed {
    pub digest: Digest,
    pub bytes: u64,
}

/// Feeds everything `reader` yields into `hasher` and finalizes.
/// On an error the hasher is reset, so it can be reused for the next file.
pub fn hash_reader(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    buffer: &mut ReadBuffer,
) -> io::Result<Hashed> {
    let buf = buffer.as_mut_slice();
    let mut bytes = 0u64;
    loop {
        match reader.read(buf) {
            Ok(0) => {
                return Ok(Hashed {
                    digest: hasher.finalize_reset(),
                    bytes,
                })
            }
            Ok(n) => {
                hasher.update(&buf[..n]);
                bytes += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                hasher.reset();
                return Err(e);
            }
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
/// (measured in docs/design.md). Memory: `PIPELINE_BUFFERS` x `chunk` bytes.
pub fn hash_reader_read_ahead(
    reader: &mut (dyn Read + Send),
    hasher: &mut dyn Hasher,
    chunk: usize,
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
            // Ends when the input ends, on an error, or when the hashing side
            // hangs up (its receivers dropped): never blocks forever.
            while let Ok(mut buffer) = empty_rx.recv() {
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
            let (buffer, n) = message?;
            hasher.update(&buffer.storage[buffer.offset..buffer.offset + n]);
            bytes += n as u64;
            // The reader may already have finished; then the buffer is just dropped.
            let _ = empty_tx.send(buffer);
        }
        Ok(bytes)
    });
    match result {
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
}

impl ReadStrategy {
    /// Large files are read ahead on one thread while the hash runs on
    /// another (where maps are allowed, see below, the map takes the place of
    /// the reader: a second thread populates it). A tree-parallel hash
    /// (blake3, XKCP K12) also spreads each chunk over all cores, but only
    /// where a core is left for the reader: on two cores, three busy threads
    /// measured slower and far noisier than the reader plus one hashing
    /// thread (docs/design.md).
    ///
    /// Hashes that run faster than a read from the page cache copies
    /// ([`FileBound::Reading`]: xxHash, CRC, HighwayHash, 12-55 GB/s against
    /// about 10 GB/s for read()) gain nothing from a reader thread and lose
    /// its hand-offs: measured on a cached 1 GiB file, XXH3 took 169 ms read
    /// ahead and 146 ms without.
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
    /// docs/design.md). Hashes faster than the page cache hands out bytes
    /// read instead: for them a map measured slower than read() into an
    /// aligned buffer (XXH3 4.6-5.4 GB/s mapped against 7.5 GB/s).
    pub fn for_hash_with(bound: FileBound, tree_parallel: bool, allow_mmap: bool) -> ReadStrategy {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
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
            read_ahead: cores > 1 && !faster_than_reading,
            hashers_share_cores: false,
        }
    }
}

impl ReadStrategy {
    /// The same, for `hashers` algorithms fed from one read, each on a core of
    /// its own: where they already take every core, a reader thread would only
    /// compete with them.
    pub fn sharing_cores_with(mut self, hashers: usize) -> ReadStrategy {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if hashers > 1 && cores <= hashers {
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
) -> io::Result<Hashed> {
    let file = File::open(path)?;
    let size = file
        .metadata()
        .map(|m| if m.is_file() { m.len() } else { 0 })
        .unwrap_or(0);
    hash_open_file(file, size, hasher, buffer, strategy)
}

/// As [`hash_file`], for a file already open whose size (0 if it is not a
/// regular file) the caller has from its own fstat.
pub fn hash_open_file(
    mut file: File,
    size: u64,
    hasher: &mut dyn Hasher,
    buffer: &mut ReadBuffer,
    strategy: &ReadStrategy,
) -> io::Result<Hashed> {
    #[cfg(unix)]
    if let Some(populate_ahead) = strategy.mapping(size) {
        if let Some(hashed) = crate::mapped::hash_mapped(&file, size, hasher, populate_ahead)? {
            // Exactly `size` bytes were hashed: a file that grew meanwhile is
            // caught by the caller's before/after comparison, as with read().
            return Ok(hashed);
        }
    }
    if strategy.read_ahead && size >= READ_AHEAD_MIN_SIZE {
        return hash_reader_read_ahead(&mut file, hasher, buffer.len());
    }
    hash_reader(&mut file, hasher, buffer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashlab::{HashParams, Registry};

    #[test]
    fn buffer_is_page_aligned() {
        for size in [1, 4096, 100_000, ReadBuffer::DEFAULT_SIZE] {
            let mut b = ReadBuffer::new(size);
            assert_eq!(b.as_mut_slice().as_ptr() as usize % PAGE, 0);
            assert!(b.len() >= size);
        }
    }

    #[test]
    fn reader_in_small_chunks_equals_one_shot() {
        let registry = Registry::default();
        let mut h = registry
            .hasher("sha256", None, &HashParams::default())
            .unwrap();
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
        h.update(&data);
        let expected = h.finalize_reset();
        let mut buffer = ReadBuffer::new(1);
        let got = hash_reader(&mut &data[..], h.as_mut(), &mut buffer).unwrap();
        assert_eq!(got.digest, expected);
        assert_eq!(got.bytes, data.len() as u64);
    }

    #[test]
    fn read_ahead_equals_one_shot_at_every_boundary() {
        let registry = Registry::default();
        let mut h = registry
            .hasher("blake3", None, &HashParams::default())
            .unwrap();
        for len in [0usize, 1, 4095, 4096, 4097, 8192, 3 * 4096 + 5, 100_000] {
            let data: Vec<u8> = (0..len as u32).map(|i| (i * 13) as u8).collect();
            h.update(&data);
            let expected = h.finalize_reset();
            let got = hash_reader_read_ahead(&mut &data[..], h.as_mut(), 4096).unwrap();
            assert_eq!(got.digest, expected, "len {len}");
            assert_eq!(got.bytes, len as u64);
        }
    }

    #[test]
    fn every_way_of_reading_a_large_file_gives_the_same_digests() {
        use crate::many::Fanout;
        let dir = std::env::temp_dir().join(format!("hashlab-read-ways-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data");
        // Past the map and read-ahead thresholds, ending mid-window and mid-page.
        let data: Vec<u8> = (0..(9 << 20) + 4097u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        std::fs::write(&path, &data).unwrap();
        let registry = Registry::default();
        let fanout = || {
            Fanout::new(
                ["sha1", "sha256"]
                    .iter()
                    .map(|a| registry.hasher(a, None, &HashParams::default()).unwrap())
                    .collect(),
            )
        };
        let mut expected = fanout();
        expected.update(&data);
        let expected = expected.finalize_reset();
        let base = ReadStrategy::for_hash(FileBound::Hash, false);
        let ways = [
            ("default", base),
            ("shared cores", base.sharing_cores_with(usize::MAX)),
            (
                "no map",
                ReadStrategy::for_hash_with(FileBound::Hash, false, false),
            ),
            (
                "plain read",
                ReadStrategy {
                    read_ahead: false,
                    mmap: false,
                    ..base
                },
            ),
        ];
        for (way, strategy) in ways {
            let mut h = fanout();
            let got = hash_file(
                &path,
                &mut h,
                &mut ReadBuffer::new(strategy.chunk),
                &strategy,
            )
            .unwrap();
            assert_eq!(got.digest, expected, "{way}");
            assert_eq!(got.bytes, data.len() as u64, "{way}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn read_ahead_reports_errors_and_resets() {
        struct FailsLater(usize);
        impl Read for FailsLater {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("disk on fire"));
                }
                self.0 -= 1;
                let n = buf.len().min(10);
                buf[..n].fill(1);
                Ok(n)
            }
        }
        let registry = Registry::default();
        let mut h = registry
            .hasher("sha256", None, &HashParams::default())
            .unwrap();
        let err = hash_reader_read_ahead(&mut FailsLater(1000), h.as_mut(), 4096).unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
        let empty = hash_reader(&mut io::empty(), h.as_mut(), &mut ReadBuffer::default()).unwrap();
        assert_eq!(
            empty.digest.to_hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn read_error_resets_the_hasher() {
        struct Failing(bool);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 {
                    return Err(io::Error::other("disk on fire"));
                }
                self.0 = true;
                buf[0] = 1;
                Ok(1)
            }
        }
        let registry = Registry::default();
        let mut h = registry
            .hasher("sha256", None, &HashParams::default())
            .unwrap();
        let mut buffer = ReadBuffer::default();
        assert!(hash_reader(&mut Failing(false), h.as_mut(), &mut buffer).is_err());
        let empty = hash_reader(&mut io::empty(), h.as_mut(), &mut buffer).unwrap();
        assert_eq!(
            empty.digest.to_hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
