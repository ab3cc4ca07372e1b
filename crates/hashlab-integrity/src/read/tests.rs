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
    let got = hash_reader(&mut &data[..], h.as_mut(), &mut buffer, &Cancel::new()).unwrap();
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
        let got = hash_reader_read_ahead(&mut &data[..], h.as_mut(), 4096, &Cancel::new()).unwrap();
        assert_eq!(got.digest, expected, "len {len}");
        assert_eq!(got.bytes, len as u64);
    }
}

/// Turns hand chunks over in order at every boundary, and a size that is
/// not the file's length (it grew or shrank after the fstat) hashes what
/// a read() to the end would have.
#[cfg(unix)]
#[test]
fn reading_in_turns_equals_one_shot_whatever_the_size_said() {
    let registry = Registry::default();
    let mut h = registry
        .hasher("xxh3-64", None, &HashParams::default())
        .unwrap();
    let dir = std::env::temp_dir().join(format!("hashlab-turns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("file");
    for len in [1usize, 4095, 4096, 4097, 8192, 3 * 4096 + 5, 100_000] {
        let data: Vec<u8> = (0..len as u32).map(|i| (i * 13) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        h.update(&data);
        let expected = h.finalize_reset();
        for said in [len as u64, len as u64 / 2 + 1, len as u64 + 3 * 4096 + 1] {
            for readers in 1..=3 {
                let got =
                    hash_reading_in_turns(&file, said, h.as_mut(), 4096, readers, &Cancel::new())
                        .unwrap();
                let case = format!("len {len}, size said {said}, {readers} readers");
                assert_eq!(got.digest, expected, "{case}");
                assert_eq!(got.bytes, len as u64, "{case}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
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
        (
            "read in turns",
            ReadStrategy::for_hash_with(FileBound::Reading, false, true),
        ),
    ];
    for (way, strategy) in ways {
        let mut h = fanout();
        let got = hash_file(
            &path,
            &mut h,
            &mut ReadBuffer::new(strategy.chunk),
            &strategy,
            &Cancel::new(),
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
    let err = hash_reader_read_ahead(&mut FailsLater(1000), h.as_mut(), 4096, &Cancel::new())
        .unwrap_err();
    assert_eq!(err.to_string(), "disk on fire");
    let empty = hash_reader(
        &mut io::empty(),
        h.as_mut(),
        &mut ReadBuffer::default(),
        &Cancel::new(),
    )
    .unwrap();
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
    assert!(hash_reader(&mut Failing(false), h.as_mut(), &mut buffer, &Cancel::new()).is_err());
    let empty = hash_reader(&mut io::empty(), h.as_mut(), &mut buffer, &Cancel::new()).unwrap();
    assert_eq!(
        empty.digest.to_hex(),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

/// Sets `cancel` once `after` bytes went through it, as a Ctrl-C
/// arriving mid-file would, and counts every byte it was given.
struct CancelsAfter {
    inner: Box<dyn Hasher>,
    cancel: Cancel,
    after: u64,
    seen: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Hasher for CancelsAfter {
    fn update(&mut self, data: &[u8]) {
        use std::sync::atomic::Ordering;
        let seen = self.seen.fetch_add(data.len() as u64, Ordering::Relaxed);
        if seen + data.len() as u64 >= self.after {
            self.cancel.cancel();
        }
        self.inner.update(data)
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        self.inner.finalize_into_reset(out)
    }
    fn reset(&mut self) {
        self.inner.reset()
    }
    fn output_len(&self) -> usize {
        self.inner.output_len()
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(CancelsAfter {
            inner: self.inner.box_clone(),
            cancel: self.cancel.clone(),
            after: self.after,
            seen: self.seen.clone(),
        })
    }
}

#[test]
fn every_way_of_reading_stops_soon_after_a_cancel() {
    use crate::many::Fanout;
    use std::sync::atomic::Ordering;
    let dir = std::env::temp_dir().join(format!("hashlab-read-cancel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sparse");
    const SIZE: u64 = 192 << 20;
    const CANCEL_AT: u64 = 8 << 20;
    // Sparse: zeros that take no disk space.
    File::create(&path).unwrap().set_len(SIZE).unwrap();
    let plain = ReadStrategy {
        chunk: ReadBuffer::DEFAULT_SIZE,
        parallel_hash: false,
        read_ahead: false,
        mmap: false,
        hashers_share_cores: false,
        reads_in_turns: false,
        cores: 2,
    };
    let ways = [
        ("read()", plain),
        (
            "read ahead",
            ReadStrategy {
                read_ahead: true,
                ..plain
            },
        ),
        (
            "read in turns",
            ReadStrategy {
                read_ahead: true,
                reads_in_turns: true,
                ..plain
            },
        ),
        (
            "map populated ahead",
            ReadStrategy {
                read_ahead: true,
                mmap: true,
                ..plain
            },
        ),
        (
            "map hashed in parallel",
            ReadStrategy {
                parallel_hash: true,
                mmap: true,
                chunk: 4 << 20,
                ..plain
            },
        ),
        (
            "map shared by two hashers",
            ReadStrategy {
                hashers_share_cores: true,
                mmap: true,
                ..plain
            },
        ),
    ];
    let registry = Registry::default();
    for (way, strategy) in ways {
        let cancel = Cancel::new();
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counting = |algorithm: &str| -> Box<dyn Hasher> {
            Box::new(CancelsAfter {
                inner: registry
                    .hasher(algorithm, None, &HashParams::default())
                    .unwrap(),
                cancel: cancel.clone(),
                after: CANCEL_AT,
                seen: seen.clone(),
            })
        };
        let mut hasher = Fanout::new(vec![counting("sha1"), counting("sha256")]);
        let err = hash_file(
            &path,
            &mut hasher,
            &mut ReadBuffer::new(strategy.chunk),
            &strategy,
            &cancel,
        )
        .unwrap_err();
        assert!(crate::is_interrupted(&err), "{way}: {err}");
        // Two hashers see every byte; at most a part of a map (32 MiB)
        // or the chunks in flight go by after the cancel.
        let per_hasher = seen.load(Ordering::Relaxed) / 2;
        assert!(
            per_hasher <= CANCEL_AT + (32 << 20),
            "{way}: {per_hasher} bytes hashed of {SIZE}"
        );
        // The hashers were reset: the next file starts clean.
        let mut reference = Fanout::new(vec![
            registry
                .hasher("sha1", None, &HashParams::default())
                .unwrap(),
            registry
                .hasher("sha256", None, &HashParams::default())
                .unwrap(),
        ]);
        let empty = hash_reader(
            &mut io::empty(),
            &mut hasher,
            &mut ReadBuffer::default(),
            &Cancel::new(),
        )
        .unwrap();
        assert_eq!(empty.digest, reference.finalize_reset(), "{way}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn sizes_of_pseudo_files_are_not_lengths() {
    let dir = std::env::temp_dir().join(format!("hashlab-read-sizes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("some"), b"bytes").unwrap();
    std::fs::write(dir.join("empty"), b"").unwrap();
    let says = |path: &Path| {
        let file = File::open(path).unwrap();
        let meta = file.metadata().unwrap();
        size_is_length(&file, &meta)
    };
    assert!(says(&dir.join("some")));
    assert!(!says(&dir.join("empty")));
    assert!(!says(&dir));
    for pseudo in [
        "/proc/version",
        "/proc/self/status",
        "/sys/kernel/mm/transparent_hugepage/enabled",
    ] {
        if Path::new(pseudo).exists() {
            assert!(!says(Path::new(pseudo)), "{pseudo}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// (read end, write end); std::io::pipe is newer than our rust-version.
#[cfg(unix)]
fn pipe() -> (File, File) {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills two descriptors that we then own.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) }
}

#[cfg(unix)]
#[test]
fn a_wait_on_a_silent_pipe_ends_at_a_cancel() {
    let (reader, writer) = pipe();
    let cancel = Cancel::new();
    let canceller = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            cancel.cancel();
        })
    };
    let registry = Registry::default();
    let mut h = registry
        .hasher("sha256", None, &HashParams::default())
        .unwrap();
    let err = hash_reader(
        &mut Waiting::new(&reader, &cancel),
        h.as_mut(),
        &mut ReadBuffer::default(),
        &cancel,
    )
    .unwrap_err();
    assert!(crate::is_interrupted(&err), "{err}");
    canceller.join().unwrap();
    drop(writer);
    // Uncancelled, the same reader reads to the end of the pipe.
    let (reader, mut writer) = pipe();
    std::io::Write::write_all(&mut writer, b"abc").unwrap();
    drop(writer);
    let cancel = Cancel::new();
    let got = hash_reader(
        &mut Waiting::new(&reader, &cancel),
        h.as_mut(),
        &mut ReadBuffer::default(),
        &cancel,
    )
    .unwrap();
    assert_eq!(
        got.digest.to_hex(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}
