//! The real `Measure`: hashers from the registry over pseudo-random inputs.

use std::collections::{HashMap, TryReserveError};
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use hashlab::{HashParams, Hasher, Registry};
use hashlab_integrity::{
    hash_file, is_interrupted, Cancel, ReadBuffer, ReadStrategy, SumPlan, SumRequest,
};

use crate::limits::RequestError;
use crate::plan::{CellSpec, Mode, Plan};
use crate::runner::Measure;
use crate::stats::SplitMix64;

const PAGE: usize = 4096;

/// Pseudo-random bytes in a page-aligned buffer, starting `misalign` bytes past the boundary.
pub struct Input {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl Input {
    /// Fails, instead of aborting the process, when the buffer cannot be
    /// allocated: sizes come from users and may exceed memory or a limit on it.
    pub fn new(len: usize, misalign: usize, seed: u64) -> Result<Input, TryReserveError> {
        // Saturating: a total past usize::MAX fails the reservation as a capacity overflow.
        let total = len.saturating_add(PAGE).saturating_add(misalign);
        let mut storage: Vec<u8> = Vec::new();
        storage.try_reserve_exact(total)?;
        // Filled in place, chunk by chunk (a multiple of 8 bytes, so the bytes
        // are those of one fill of the whole input): zeroing a multi-GiB
        // buffer and then filling it would write it twice.
        let start = storage.as_ptr().align_offset(PAGE) + misalign;
        storage.resize(start, 0);
        let mut rng = SplitMix64(seed);
        let mut chunk = [0u8; 64 * 1024];
        let mut left = len;
        while left > 0 {
            let n = left.min(chunk.len());
            rng.fill(&mut chunk[..n]);
            storage.extend_from_slice(&chunk[..n]);
            left -= n;
        }
        storage.resize(total, 0);
        Ok(Input {
            storage,
            start,
            len,
        })
    }
    pub fn bytes(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

/// Touches the input and computes nothing: what the harness costs per message.
#[derive(Clone, Default)]
pub struct NullHasher {
    seen: u64,
}

impl Hasher for NullHasher {
    fn update(&mut self, data: &[u8]) {
        // Reading one byte and the length keeps the call from being optimised
        // away without adding work that grows with the size.
        self.seen = self.seen.wrapping_add(data.len() as u64)
            ^ u64::from(data.first().copied().unwrap_or(0));
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        out.copy_from_slice(&self.seen.to_le_bytes());
        self.seen = 0;
    }
    fn reset(&mut self) {
        self.seen = 0;
    }
    fn output_len(&self) -> usize {
        8
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

enum CellState {
    Streams {
        hashers: Vec<Box<dyn Hasher>>,
        size: usize,
    },
    OneStream {
        hasher: Box<dyn Hasher>,
        size: usize,
        pool: rayon::ThreadPool,
    },
    Latency {
        hasher: Box<dyn Hasher>,
        input: Input,
    },
    File {
        hasher: Box<dyn Hasher>,
        buffer: ReadBuffer,
        strategy: ReadStrategy,
        cold: bool,
    },
    Keys {
        hasher: Box<dyn Hasher>,
        keys: ShortKeys,
        chained: bool,
    },
    Table(Box<TableWorkload>),
}

/// A hash table keyed by the words of a list, the cell's algorithm its
/// hasher: the words are inserted into the emptied table (which keeps its
/// capacity, as a reused table does), then looked up, one hash per
/// operation. Entries are (hash, word number), so growing never rehashes.
struct TableWorkload {
    hasher: Box<dyn Hasher>,
    words: crate::words::WordList,
    table: hashbrown::HashTable<(u64, u32)>,
    digest: Vec<u8>,
    /// The next operation: an insert of word `next` below the word count,
    /// a lookup of word `next - count` above it.
    next: usize,
}

impl TableWorkload {
    /// The table's 64-bit hash of a word: the digest's first 8 bytes, little
    /// endian. A shorter digest (CRC-32, xxh32, FNV-1a 32) is spread over 64
    /// bits by a multiply (Fibonacci hashing), as a table that takes a
    /// 32-bit hash must: SwissTable probing reads the top 7 bits.
    fn hash(&mut self, word: usize) -> u64 {
        self.hasher
            .hash_message_into(self.words.word(word), &mut self.digest);
        let mut head = [0u8; 8];
        let n = self.digest.len().min(8);
        head[..n].copy_from_slice(&self.digest[..n]);
        let hash = u64::from_le_bytes(head);
        if n < 8 {
            hash.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        } else {
            hash
        }
    }

    /// Looks up, untimed, the words the next `operations` will touch: the
    /// other cells of a round evict a table of this size (megabytes) from
    /// the caches, and without this a sample would time that refill, more
    /// of it the fewer operations a sample holds (the slower the hash).
    fn warm(&mut self, operations: u64) {
        let count = self.words.len();
        for i in 0..operations.min(2 * count as u64) as usize {
            let word = (self.next + i) % count;
            let hash = self.hash(word);
            let words = &self.words;
            black_box(
                self.table
                    .find(hash, |&(_, w)| words.word(w as usize) == words.word(word)),
            );
        }
    }

    fn run(&mut self, operations: u64) -> Result<(), String> {
        let count = self.words.len();
        for _ in 0..operations {
            if self.next < count {
                if self.next == 0 {
                    self.table.clear();
                }
                let hash = self.hash(self.next);
                self.table
                    .insert_unique(hash, (hash, self.next as u32), |&(h, _)| h);
            } else {
                let word = self.next - count;
                let hash = self.hash(word);
                let words = &self.words;
                let found = self
                    .table
                    .find(hash, |&(_, i)| words.word(i as usize) == words.word(word));
                if black_box(found).is_none() {
                    return Err(format!(
                        "word {word} of {} not found after it was inserted",
                        self.words.path().display()
                    ));
                }
            }
            self.next = (self.next + 1) % (2 * count);
        }
        Ok(())
    }
}

/// Keys of every length from 1 to `max_len` bytes, equally often, in a
/// shuffled order (a branch predictor cannot learn the next length), laid
/// end to end in one buffer.
struct ShortKeys {
    bytes: Vec<u8>,
    /// (start, length) of each key.
    spans: Vec<(usize, usize)>,
    max_len: usize,
}

impl ShortKeys {
    /// Each length this many times: 1,024 keys of 1 to 32 bytes fit in L1.
    const ROUNDS: usize = 32;

    fn new(max_len: usize, seed: u64) -> ShortKeys {
        let mut state = seed;
        let mut next = move || {
            // splitmix64: a fixed, portable sequence for a given seed.
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut lengths: Vec<usize> = (0..Self::ROUNDS).flat_map(|_| 1..=max_len).collect();
        for i in (1..lengths.len()).rev() {
            lengths.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let mut bytes = Vec::new();
        let mut spans = Vec::with_capacity(lengths.len());
        for len in lengths {
            spans.push((bytes.len(), len));
            bytes.extend((0..len).map(|_| next() as u8));
        }
        ShortKeys {
            bytes,
            spans,
            max_len,
        }
    }
}

/// Times real hashers. Inputs are made once per (size, thread) and shared by all cells.
pub struct Workbench<'r> {
    registry: &'r Registry,
    seed: u64,
    misalign: usize,
    inputs: HashMap<(usize, usize), Input>,
    cells: Vec<Option<CellState>>,
    file: Option<std::path::PathBuf>,
    words: Option<crate::words::WordList>,
    pin: Option<usize>,
    notes: Vec<String>,
    /// Stops a file cell's sample mid-file.
    cancel: Cancel,
}

impl<'r> Workbench<'r> {
    pub fn new(registry: &'r Registry, seed: u64, misalign: usize) -> Self {
        Workbench {
            registry,
            seed,
            misalign,
            inputs: HashMap::new(),
            cells: Vec::new(),
            file: None,
            words: None,
            pin: None,
            notes: Vec::new(),
            cancel: Cancel::new(),
        }
    }

    /// A file cell's sample stops at the next chunk once `cancel` is set
    /// (one pass over a large file takes seconds to minutes); the sample is
    /// then cut short, and the runner, seeing the same flag, keeps none of it.
    pub fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = cancel;
        self
    }

    /// The file `Mode::File` cells read.
    pub fn with_file(mut self, path: std::path::PathBuf) -> Self {
        self.file = Some(path);
        self
    }

    /// The word list `Mode::Table` cells insert and look up.
    pub fn with_words(mut self, words: crate::words::WordList) -> Self {
        self.words = Some(words);
        self
    }

    /// Pins the measuring thread to `cpu` (streams threads to the next ones).
    pub fn with_pin(mut self, cpu: usize) -> Result<Self, String> {
        pin_current_thread(cpu)?;
        self.pin = Some(cpu);
        Ok(self)
    }

    fn file_path(&self) -> Result<&std::path::Path, String> {
        self.file
            .as_deref()
            .ok_or_else(|| "a file cell without a file".to_string())
    }

    fn hasher(&self, cell: &CellSpec, parallel: bool) -> Result<Box<dyn Hasher>, String> {
        if cell.is_null() {
            return Ok(Box::new(NullHasher::default()));
        }
        let params = HashParams {
            parallel,
            ..Default::default()
        };
        self.registry
            .hasher(&cell.algorithm, Some(&cell.backend), &params)
            .map_err(|e| e.to_string())
    }

    /// The input key of every stream: (size, thread).
    fn input_keys(cell: &CellSpec) -> impl Iterator<Item = (usize, usize)> + '_ {
        let threads = match cell.mode {
            Mode::Streams { threads } => threads.max(1),
            Mode::OneStream { .. } => 1,
            Mode::Latency | Mode::File { .. } | Mode::Keys { .. } | Mode::Table { .. } => 0,
        };
        (0..threads).map(move |t| (cell.size, t))
    }

    fn input_seed(&self, size: usize, thread: usize) -> u64 {
        self.seed ^ (size as u64) << 8 ^ thread as u64
    }

    /// Allocates every shared input the cells read, before anything is timed,
    /// so that inputs too large for this machine fail the run at once rather
    /// than after minutes of measuring.
    pub fn allocate_inputs(&mut self, cells: &[CellSpec]) -> Result<(), RequestError> {
        let (wanted, total) = wanted_inputs(cells, self.misalign)?;
        for &(size, thread) in wanted.iter() {
            if self.inputs.contains_key(&(size, thread)) {
                continue;
            }
            let input =
                Input::new(size, self.misalign, self.input_seed(size, thread)).map_err(|_| {
                    RequestError::InputsDoNotFit {
                        total,
                        size,
                        copies: wanted.iter().filter(|(s, _)| *s == size).count(),
                    }
                })?;
            self.inputs.insert((size, thread), input);
        }
        Ok(())
    }

    fn ensure_inputs(&mut self, cell: &CellSpec) -> Result<(), String> {
        for (size, thread) in Self::input_keys(cell) {
            if !self.inputs.contains_key(&(size, thread)) {
                let input = Input::new(size, self.misalign, self.input_seed(size, thread))
                    .map_err(|e| format!("an input of {size} bytes: {e}"))?;
                self.inputs.insert((size, thread), input);
            }
        }
        Ok(())
    }
}

fn hash_batch(hasher: &mut dyn Hasher, input: &[u8], out: &mut [u8], batch: u64) {
    for _ in 0..batch {
        hasher.hash_message_into(black_box(input), out);
    }
    black_box(out);
}

impl Measure for Workbench<'_> {
    fn prepare(&mut self, index: usize, cell: &CellSpec) -> Result<(), String> {
        let state = match cell.mode {
            Mode::Streams { threads } => {
                let hashers = (0..threads.max(1))
                    .map(|_| self.hasher(cell, false))
                    .collect::<Result<Vec<_>, _>>()?;
                self.ensure_inputs(cell)?;
                CellState::Streams {
                    hashers,
                    size: cell.size,
                }
            }
            Mode::OneStream { threads } => {
                self.ensure_inputs(cell)?;
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads.max(1))
                    .build()
                    .map_err(|e| format!("thread pool of {threads}: {e}"))?;
                CellState::OneStream {
                    hasher: self.hasher(cell, threads > 1)?,
                    size: cell.size,
                    pool,
                }
            }
            Mode::Keys { chained } => CellState::Keys {
                hasher: self.hasher(cell, false)?,
                keys: ShortKeys::new(cell.size.max(1), self.seed ^ cell.size as u64),
                chained,
            },
            Mode::Table { .. } => {
                let words = self
                    .words
                    .clone()
                    .ok_or("a hash-table cell without a word list")?;
                let hasher = self.hasher(cell, false)?;
                CellState::Table(Box::new(TableWorkload {
                    digest: vec![0u8; hasher.output_len()],
                    table: hashbrown::HashTable::with_capacity(words.len()),
                    hasher,
                    words,
                    next: 0,
                }))
            }
            Mode::Latency => CellState::Latency {
                hasher: self.hasher(cell, false)?,
                input: Input::new(cell.size, self.misalign, self.seed ^ cell.size as u64)
                    .map_err(|e| format!("an input of {} bytes: {e}", cell.size))?,
            },
            Mode::File { cold } => {
                // The plan `hashlab sum` makes for this one file.
                let request = SumRequest {
                    algorithms: vec![cell.algorithm.clone()],
                    backend: Some(cell.backend.clone()),
                    jobs: Some(1),
                    allow_mmap: true,
                    ..SumRequest::default()
                };
                let strategy = SumPlan::new(self.registry, &request, &[])
                    .map_err(|e| format!("{}: {e}", cell.algorithm))?
                    .strategy;
                if cold && !self.notes.iter().any(|n| n.starts_with("cold cache")) {
                    let note = cold_cache_check(self.file_path()?);
                    self.notes.push(note);
                }
                CellState::File {
                    hasher: self.hasher(cell, strategy.parallel_hash)?,
                    buffer: ReadBuffer::new(strategy.chunk),
                    strategy,
                    cold,
                }
            }
        };
        if self.cells.len() <= index {
            self.cells.resize_with(index + 1, || None);
        }
        self.cells[index] = Some(state);
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn sample(&mut self, index: usize, batch: u64) -> Result<Duration, String> {
        let inputs = &self.inputs;
        let pin = self.pin;
        let file = self.file.clone();
        Ok(
            match self
                .cells
                .get_mut(index)
                .and_then(Option::as_mut)
                .ok_or_else(|| format!("cell {index} sampled before it was prepared"))?
            {
                CellState::Streams { hashers, size } if hashers.len() == 1 => {
                    let input = inputs[&(*size, 0)].bytes();
                    let h = hashers[0].as_mut();
                    let mut out = vec![0u8; h.output_len()];
                    let start = Instant::now();
                    hash_batch(h, input, &mut out, batch);
                    start.elapsed()
                }
                CellState::Streams { hashers, size } => {
                    let n = hashers.len();
                    let barrier = Barrier::new(n);
                    std::thread::scope(|scope| {
                        let handles: Vec<_> = hashers
                            .iter_mut()
                            .enumerate()
                            .map(|(t, h)| {
                                let input = inputs[&(*size, t)].bytes();
                                let barrier = &barrier;
                                scope.spawn(move || {
                                    if let Some(cpu) = pin {
                                        // Each stream on its own core; a failure here only loses the pinning.
                                        let _ = pin_current_thread(cpu + t);
                                    }
                                    let mut out = vec![0u8; h.output_len()];
                                    // Thread start-up is not part of the sample: all start together.
                                    barrier.wait();
                                    let start = Instant::now();
                                    hash_batch(h.as_mut(), input, &mut out, batch);
                                    start.elapsed()
                                })
                            })
                            .collect();
                        handles
                            .into_iter()
                            .map(|h| h.join().expect("benchmark thread panicked"))
                            .max()
                            .unwrap_or_default()
                    })
                }
                CellState::OneStream { hasher, size, pool } => {
                    let input = inputs[&(*size, 0)].bytes();
                    let mut out = vec![0u8; hasher.output_len()];
                    pool.install(|| {
                        let start = Instant::now();
                        hash_batch(hasher.as_mut(), input, &mut out, batch);
                        start.elapsed()
                    })
                }
                CellState::Latency { hasher, input } => {
                    let mut out = vec![0u8; hasher.output_len()];
                    let start = Instant::now();
                    for _ in 0..batch {
                        hasher.hash_message_into(input.bytes(), &mut out);
                        // The next message depends on this digest: no overlap between messages.
                        for (b, d) in input.bytes_mut().iter_mut().zip(&out) {
                            *b ^= d;
                        }
                    }
                    black_box(&out);
                    start.elapsed()
                }
                CellState::Keys {
                    hasher,
                    keys,
                    chained,
                } => {
                    let mut out = vec![0u8; hasher.output_len()];
                    let mut scratch = vec![0u8; keys.max_len];
                    let spans = keys.spans.iter().cycle().take(batch as usize);
                    let start = Instant::now();
                    if *chained {
                        for &(at, len) in spans {
                            // The key's first bytes depend on the last hash,
                            // so one call cannot start before the last ends.
                            let key = &mut scratch[..len];
                            key.copy_from_slice(&keys.bytes[at..at + len]);
                            for (k, d) in key.iter_mut().zip(&out) {
                                *k ^= d;
                            }
                            hasher.hash_message_into(key, &mut out);
                        }
                    } else {
                        for &(at, len) in spans {
                            hasher
                                .hash_message_into(black_box(&keys.bytes[at..at + len]), &mut out);
                        }
                    }
                    black_box(&out);
                    start.elapsed()
                }
                CellState::Table(workload) => {
                    workload.warm(batch);
                    let start = Instant::now();
                    workload.run(batch)?;
                    start.elapsed()
                }
                CellState::File {
                    hasher,
                    buffer,
                    strategy,
                    cold,
                } => {
                    let path = file.as_deref().ok_or("a file cell without a file")?;
                    let fail = |e: std::io::Error| format!("{}: {}", path.display(), e);
                    let mut total = Duration::ZERO;
                    for _ in 0..batch {
                        if *cold {
                            drop_pages(&std::fs::File::open(path).map_err(fail)?)?;
                        }
                        let start = Instant::now();
                        let hashed =
                            hash_file(path, hasher.as_mut(), buffer, strategy, &self.cancel);
                        total += start.elapsed();
                        match hashed {
                            Ok(_) => {}
                            Err(e) if is_interrupted(&e) => break,
                            Err(e) => return Err(fail(e)),
                        }
                    }
                    total
                }
            },
        )
    }
}

#[cfg(unix)]
fn drop_pages(file: &std::fs::File) -> Result<(), String> {
    hashlab_integrity::pagecache::drop_cached_pages(file)
}

#[cfg(not(unix))]
fn drop_pages(_file: &std::fs::File) -> Result<(), String> {
    Err("dropping cached pages is only implemented on Unix".into())
}

/// Drops the file's pages once and says, in a sentence, whether that worked.
fn cold_cache_check(path: &std::path::Path) -> String {
    #[cfg(unix)]
    {
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => return format!("cold cache: cannot open {}: {e}", path.display()),
        };
        match hashlab_integrity::pagecache::drop_cached_pages(&file).and_then(|_| hashlab_integrity::pagecache::resident_fraction(&file)) {
            Ok(resident) if resident < 0.05 => format!(
                "cold cache: cached pages of {} dropped before every pass (posix_fadvise DONTNEED; {:.0} % still resident after)",
                path.display(),
                resident * 100.0
            ),
            Ok(resident) => format!(
                "cold cache did NOT work for {}: {:.0} % of its pages stayed cached after posix_fadvise(DONTNEED) (tmpfs or an overlay filesystem?); the file figures are warm-cache figures",
                path.display(),
                resident * 100.0
            ),
            Err(e) => format!("cold cache did NOT work for {}: {e}", path.display()),
        }
    }
    #[cfg(not(unix))]
    {
        format!(
            "cold cache: not supported on this platform; {} was read warm",
            path.display()
        )
    }
}

/// Restricts the calling thread to one CPU.
pub fn pin_current_thread(cpu: usize) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: cpu_set_t is plain data; CPU_SET stays within it for cpu < CPU_SETSIZE,
        // which is checked first.
        unsafe {
            if cpu >= libc::CPU_SETSIZE as usize {
                return Err(format!("CPU {cpu} is out of range"));
            }
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(format!(
                    "pinning to CPU {cpu}: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(format!(
            "pinning to CPU {cpu}: thread pinning is only implemented on Linux"
        ))
    }
}

/// Inputs by (size, thread).
type Wanted = std::collections::BTreeSet<(usize, usize)>;

/// The inputs `cells` share, by (size, thread), and their bytes together;
/// refused when they are more than the memory to be had without paging.
fn wanted_inputs(cells: &[CellSpec], misalign: usize) -> Result<(Wanted, u64), RequestError> {
    let wanted: Wanted = cells.iter().flat_map(Workbench::input_keys).collect();
    let total = wanted.iter().fold(0u64, |sum, (size, _)| {
        sum.saturating_add((*size as u64).saturating_add((PAGE + misalign) as u64))
    });
    // Inputs larger than memory would be paged out while being hashed:
    // refused before the allocator, which may promise more than there is.
    if let Some(memory) = crate::limits::available_memory().filter(|m| total > *m) {
        return Err(RequestError::InputsOverMemory { total, memory });
    }
    Ok((wanted, total))
}

/// Whether the inputs of `plan` can be had: what [`measure`] refuses when it
/// allocates them, asked before it runs. Each is reserved at once and
/// released (no page of it is written), so a limit on this process's
/// address space is met as the run would meet it.
///
/// [`measure`]: crate::report::measure
pub fn inputs_fit(plan: &Plan) -> Result<(), RequestError> {
    let (wanted, total) = wanted_inputs(&plan.cells, plan.misalign)?;
    let mut held: Vec<Vec<u8>> = Vec::with_capacity(wanted.len());
    for &(size, _) in wanted.iter() {
        let mut storage: Vec<u8> = Vec::new();
        storage
            .try_reserve_exact(size.saturating_add(PAGE).saturating_add(plan.misalign))
            .map_err(|_| RequestError::InputsDoNotFit {
                total,
                size,
                copies: wanted.iter().filter(|(s, _)| *s == size).count(),
            })?;
        held.push(storage);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keys_hold_every_length_equally_often_in_no_fixed_order() {
        let keys = ShortKeys::new(32, 7);
        let mut count = [0usize; 33];
        for &(at, len) in &keys.spans {
            count[len] += 1;
            assert!(at + len <= keys.bytes.len());
        }
        assert_eq!(count[0], 0);
        assert!(count[1..].iter().all(|&n| n == ShortKeys::ROUNDS));
        let lengths: Vec<usize> = keys.spans.iter().map(|&(_, len)| len).collect();
        let sorted = lengths.windows(2).all(|w| w[0] <= w[1]);
        let cyclic = lengths.windows(2).all(|w| w[1] == w[0] % 32 + 1);
        assert!(!sorted && !cyclic, "a predictable order of lengths");
        // The same seed gives the same keys; another seed other keys.
        assert_eq!(keys.bytes, ShortKeys::new(32, 7).bytes);
        assert_ne!(keys.bytes, ShortKeys::new(32, 8).bytes);
    }

    #[test]
    fn inputs_are_aligned_random_and_misalignable() {
        let a = Input::new(1000, 0, 1).unwrap();
        assert_eq!(a.bytes().as_ptr() as usize % PAGE, 0);
        assert_eq!(a.bytes().len(), 1000);
        assert!(
            a.bytes().iter().filter(|b| **b == 0).count() < 30,
            "not zeros"
        );
        let b = Input::new(1000, 3, 1).unwrap();
        assert_eq!(b.bytes().as_ptr() as usize % PAGE, 3);
        assert_eq!(a.bytes(), b.bytes(), "same seed, same bytes");
        // Filled in chunks: still the bytes of one fill of the whole input.
        let len = 3 * 64 * 1024 + 13;
        let mut whole = vec![0u8; len];
        SplitMix64(5).fill(&mut whole);
        assert_eq!(Input::new(len, 0, 5).unwrap().bytes(), &whole[..]);
    }

    #[test]
    fn inputs_beyond_memory_are_errors_not_aborts() {
        assert!(Input::new(usize::MAX, 0, 1).is_err());
        assert!(Input::new(usize::MAX - PAGE, usize::MAX, 1).is_err());
        let registry = Registry::default();
        let mut w = Workbench::new(&registry, 7, 0);
        let huge = CellSpec {
            algorithm: "sha256".into(),
            backend: "rustcrypto".into(),
            size: usize::MAX / 2,
            mode: Mode::Streams { threads: 2 },
        };
        let small = CellSpec {
            size: 64,
            ..huge.clone()
        };
        let err = w.allocate_inputs(&[small.clone(), huge]).unwrap_err();
        if crate::limits::available_memory().is_some() {
            assert!(
                matches!(
                    err,
                    RequestError::InputsOverMemory {
                        total: u64::MAX,
                        ..
                    }
                ),
                "{err:?}"
            );
        } else {
            assert!(
                matches!(err, RequestError::InputsDoNotFit { .. }),
                "{err:?}"
            );
        }
        assert!(w.inputs.is_empty(), "nothing allocated");
        w.allocate_inputs(&[small]).unwrap();
        assert_eq!(w.inputs.len(), 2, "one input per stream thread");
    }

    #[test]
    fn inputs_are_checked_before_a_run_as_the_run_allocates_them() {
        let small = CellSpec {
            algorithm: "sha256".into(),
            backend: "rustcrypto".into(),
            size: 64,
            mode: Mode::Streams { threads: 2 },
        };
        let huge = CellSpec {
            size: usize::MAX / 2,
            ..small.clone()
        };
        let plan = |cells: Vec<CellSpec>| Plan {
            cells,
            budget: crate::report::Request::quick().budget,
            seed: 7,
            misalign: 0,
        };
        inputs_fit(&plan(vec![small.clone()])).unwrap();
        let err = inputs_fit(&plan(vec![small, huge])).unwrap_err();
        assert!(
            matches!(
                err,
                RequestError::InputsOverMemory { .. } | RequestError::InputsDoNotFit { .. }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn every_mode_samples_real_work() {
        let registry = Registry::default();
        let mut w = Workbench::new(&registry, 7, 0);
        let modes = [
            Mode::Streams { threads: 1 },
            Mode::Streams { threads: 2 },
            Mode::OneStream { threads: 2 },
            Mode::Latency,
        ];
        for (i, mode) in modes.into_iter().enumerate() {
            let cell = CellSpec {
                algorithm: "blake3".into(),
                backend: "blake3".into(),
                size: if mode == Mode::Latency { 64 } else { 1 << 20 },
                mode,
            };
            w.prepare(i, &cell).unwrap();
            assert!(w.sample(i, 2).unwrap() > Duration::ZERO);
        }
        let null = CellSpec {
            algorithm: crate::plan::NULL_ALGORITHM.into(),
            backend: crate::plan::NULL_BACKEND.into(),
            size: 16,
            mode: Mode::Streams { threads: 1 },
        };
        w.prepare(9, &null).unwrap();
        w.sample(9, 1000).unwrap();
        let err = w
            .prepare(
                10,
                &CellSpec {
                    algorithm: "sha256".into(),
                    backend: "nope".into(),
                    size: 1,
                    mode: Mode::Latency,
                },
            )
            .unwrap_err();
        assert!(err.contains("unknown backend 'nope'"), "{err}");
    }
}
