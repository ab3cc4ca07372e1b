//! One table of fixed-width digests, sorted and without repeats, with
//! the index that makes a lookup one read and a short binary search.

use super::sort::{dedup_records, prefix, sort_records, PREFIX_BITS};
use super::{KnownError, MAX_ENTRIES};

/// Records are compacted (sorted, repeats dropped) once this many have come
/// out of order, and again each time the count doubles, so that a set of
/// many repeats (NSRL lists a file once per package holding it) never holds
/// more than twice its distinct digests.
pub(super) const COMPACT_MIN: usize = 1 << 20;

#[derive(Debug)]
pub(super) struct TableBuilder {
    algorithm: String,
    width: usize,
    /// Which of the run's hashes its digests are compared with.
    pub(super) hash: usize,
    records: Vec<u8>,
    /// The name of each record, parallel to `records` (empty without names).
    pub(super) origins: Vec<u32>,
    carry_origins: bool,
    /// Every record so far is in ascending order without repeats (sets
    /// written in digest order need no sort at all).
    in_order: bool,
    /// Records after the last compaction.
    settled: usize,
}

impl TableBuilder {
    pub(super) fn new(
        algorithm: String,
        width: usize,
        hash: usize,
        carry_origins: bool,
    ) -> TableBuilder {
        TableBuilder {
            algorithm,
            width,
            hash,
            records: Vec::new(),
            origins: Vec::new(),
            carry_origins,
            in_order: true,
            settled: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.records.len() / self.width
    }

    pub(super) fn push(&mut self, digest: &[u8], origin: u32) -> Result<(), KnownError> {
        let n = self.len();
        if self.in_order && n > 0 {
            match digest.cmp(&self.records[(n - 1) * self.width..]) {
                // A repeat: the first name it was recorded under stays.
                std::cmp::Ordering::Equal => return Ok(()),
                std::cmp::Ordering::Less => self.in_order = false,
                std::cmp::Ordering::Greater => {}
            }
        }
        if n as u64 >= MAX_ENTRIES {
            return Err(KnownError::TooManyEntries { limit: MAX_ENTRIES });
        }
        self.records.extend_from_slice(digest);
        if self.carry_origins {
            self.origins.push(origin);
        }
        if !self.in_order && n + 1 >= COMPACT_MIN.max(2 * self.settled) {
            self.compact();
        }
        Ok(())
    }

    fn compact(&mut self) {
        sort_records(&mut self.records, self.width, &mut self.origins);
        dedup_records(&mut self.records, self.width, &mut self.origins);
        self.in_order = true;
        self.settled = self.len();
    }

    pub(super) fn finish(mut self) -> DigestTable {
        if !self.in_order {
            self.compact();
        }
        self.records.shrink_to_fit();
        self.origins.shrink_to_fit();
        let n = self.len();
        // A bucket for about every eight records: a lookup's binary search
        // then touches two or three cache lines where one of 2^16 buckets
        // (150 records of a 10-million table) took eight misses, for half a
        // byte of index a record.
        let bits = (usize::BITS - n.saturating_sub(1).leading_zeros()).saturating_sub(3);
        let bits = bits.min(PREFIX_BITS).min(8 * self.width as u32);
        let shift = PREFIX_BITS - bits;
        let mut starts = vec![0u32; (1usize << bits) + 1];
        for record in self.records.chunks_exact(self.width) {
            starts[(prefix(record) >> shift) as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        DigestTable {
            algorithm: self.algorithm,
            width: self.width,
            hash: self.hash,
            used: vec![0u64; n.div_ceil(64)],
            records: self.records,
            origins: self.origins,
            starts,
            shift,
        }
    }
}

/// The distinct known digests of one algorithm and length, sorted, with
/// which of them an input has matched.
#[derive(Debug)]
pub struct DigestTable {
    algorithm: String,
    width: usize,
    pub(super) hash: usize,
    records: Vec<u8>,
    pub(super) origins: Vec<u32>,
    /// Where each bucket of records sharing their leading bits starts:
    /// bucket `prefix >> shift` is `starts[b]..starts[b + 1]`.
    starts: Vec<u32>,
    shift: u32,
    /// One bit per record: matched by an input.
    used: Vec<u64>,
}

impl DigestTable {
    /// The algorithm's canonical name.
    pub fn algorithm(&self) -> &str {
        &self.algorithm
    }

    /// The digests' length in bytes.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Which of [`KnownSets::hashes`] its digests are compared with.
    pub fn hash(&self) -> usize {
        self.hash
    }

    /// Distinct digests.
    pub fn len(&self) -> usize {
        self.records.len() / self.width
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Bytes held: digests, index, names' places and used bits.
    pub fn heap_bytes(&self) -> usize {
        self.records.capacity()
            + self.origins.capacity() * 4
            + self.starts.capacity() * 4
            + self.used.capacity() * 8
    }

    /// The `i`-th distinct digest, in ascending order.
    pub fn record(&self, i: usize) -> &[u8] {
        &self.records[i * self.width..(i + 1) * self.width]
    }

    /// Where `digest` is among the table's records, if it is there.
    pub fn find(&self, digest: &[u8]) -> Option<usize> {
        if digest.len() != self.width || self.records.is_empty() {
            return None;
        }
        let bucket = (prefix(digest) >> self.shift) as usize;
        let (mut lo, mut hi) = (
            self.starts[bucket] as usize,
            self.starts[bucket + 1] as usize,
        );
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.record(mid).cmp(digest) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    pub(super) fn mark(&mut self, i: usize) {
        self.used[i / 64] |= 1 << (i % 64);
    }

    /// Distinct digests no input has matched.
    pub fn unused(&self) -> usize {
        self.len()
            - self
                .used
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum::<usize>()
    }
}
