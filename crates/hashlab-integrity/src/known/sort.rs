//! The in-place sort of a known set's digest table: an MSD radix sort by
//! one byte a pass (no second buffer the size of the table), the buckets
//! of the first pass sorted on every core, and the dedup after it.

use rayon::prelude::*;

/// The most leading bits the index goes by: 2^24 buckets, 64 MiB of index
/// for a table of a hundred million digests or more.
pub(super) const PREFIX_BITS: u32 = 24;

/// A digest's first [`PREFIX_BITS`] bits (a shorter digest's padded with zeros).
pub(super) fn prefix(digest: &[u8]) -> u32 {
    let byte = |i: usize| digest.get(i).copied().unwrap_or(0) as u32;
    byte(0) << 16 | byte(1) << 8 | byte(2)
}

/// Below this many records a bucket is sorted on the calling thread.
const PARALLEL_MIN: usize = 1 << 16;
/// Buckets this small are finished by insertion.
const SMALL_BUCKET: usize = 32;

/// Sorts the `width`-byte records of `records` in place (an MSD radix sort,
/// by one byte a pass, which needs no second buffer: a sort by index would
/// cost a copy of the table), moving `origins` (one per record, or empty)
/// with them.
pub(super) fn sort_records(records: &mut [u8], width: usize, origins: &mut [u32]) {
    radix_pass(records, width, origins, 0, true);
}

fn swap_records(records: &mut [u8], width: usize, i: usize, j: usize) {
    let (i, j) = (i.min(j), i.max(j));
    if i == j {
        return;
    }
    let (head, tail) = records.split_at_mut(j * width);
    head[i * width..(i + 1) * width].swap_with_slice(&mut tail[..width]);
}

fn radix_pass(records: &mut [u8], width: usize, origins: &mut [u32], depth: usize, parallel: bool) {
    let n = records.len() / width;
    let carry = !origins.is_empty();
    if n <= SMALL_BUCKET {
        insertion_sort(records, width, origins, depth);
        return;
    }
    if depth >= width {
        return;
    }
    let mut counts = [0usize; 256];
    for record in records.chunks_exact(width) {
        counts[record[depth] as usize] += 1;
    }
    let mut next = [0usize; 256];
    let mut ends = [0usize; 256];
    let mut at = 0;
    for b in 0..256 {
        next[b] = at;
        at += counts[b];
        ends[b] = at;
    }
    for b in 0..256 {
        while next[b] < ends[b] {
            let i = next[b];
            let v = records[i * width + depth] as usize;
            if v == b {
                next[b] += 1;
            } else {
                let j = next[v];
                next[v] += 1;
                swap_records(records, width, i, j);
                if carry {
                    origins.swap(i, j);
                }
            }
        }
    }
    let mut rest: &mut [u8] = records;
    let mut rest_origins: &mut [u32] = origins;
    let mut buckets = Vec::new();
    for &count in &counts {
        let (bucket, tail) = std::mem::take(&mut rest).split_at_mut(count * width);
        rest = tail;
        let (bucket_origins, origins_tail) =
            std::mem::take(&mut rest_origins).split_at_mut(if carry { count } else { 0 });
        rest_origins = origins_tail;
        if count > 1 {
            buckets.push((bucket, bucket_origins));
        }
    }
    if parallel && n >= PARALLEL_MIN {
        buckets
            .into_par_iter()
            .for_each(|(r, o)| radix_pass(r, width, o, depth + 1, false));
    } else {
        for (r, o) in buckets {
            radix_pass(r, width, o, depth + 1, false);
        }
    }
}

/// Sorts a few records whose first `depth` bytes are equal.
fn insertion_sort(records: &mut [u8], width: usize, origins: &mut [u32], depth: usize) {
    let n = records.len() / width;
    let carry = !origins.is_empty();
    for i in 1..n {
        let mut j = i;
        while j > 0
            && records[(j - 1) * width + depth..j * width]
                > records[j * width + depth..(j + 1) * width]
        {
            swap_records(records, width, j - 1, j);
            if carry {
                origins.swap(j - 1, j);
            }
            j -= 1;
        }
    }
}

/// Drops repeated records of a sorted buffer, keeping for each digest the
/// first name it was recorded under (the smallest origin).
pub(super) fn dedup_records(records: &mut Vec<u8>, width: usize, origins: &mut Vec<u32>) {
    let n = records.len() / width;
    if n == 0 {
        return;
    }
    let carry = !origins.is_empty();
    let mut kept = 1;
    for i in 1..n {
        if records[i * width..(i + 1) * width] == records[(kept - 1) * width..kept * width] {
            if carry {
                origins[kept - 1] = origins[kept - 1].min(origins[i]);
            }
            continue;
        }
        if i != kept {
            records.copy_within(i * width..(i + 1) * width, kept * width);
            if carry {
                origins[kept] = origins[i];
            }
        }
        kept += 1;
    }
    records.truncate(kept * width);
    if carry {
        origins.truncate(kept);
    }
}
