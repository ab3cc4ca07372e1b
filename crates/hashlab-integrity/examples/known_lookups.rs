//! The library's side of `scripts/bench-known.py`: loads known sets as
//! `hashlab match -k` does, then times lookups on one thread, half of them
//! digests of the set and half random ones (which a set of millions almost
//! never holds), in random order. Prints one JSON object.
//!
//!   cargo run --release -p hashlab-integrity --example known_lookups -- [--names] [--probes N] SET...

use std::time::Instant;

use hashlab::Registry;
use hashlab_integrity::{load_set, KnownBuilder, SetOptions};

fn main() {
    let mut names = false;
    let mut probes = 4_000_000usize;
    let mut sets = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--names" => names = true,
            "--probes" => {
                probes = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--probes N")
            }
            _ => sets.push(arg),
        }
    }
    assert!(
        !sets.is_empty(),
        "usage: known_lookups [--names] [--probes N] SET..."
    );
    let registry = Registry::default();
    let start = Instant::now();
    let mut builder = KnownBuilder::new(names);
    for set in &sets {
        if let Err(e) = load_set(
            &mut builder,
            &registry,
            set.as_ref(),
            &SetOptions::default(),
        ) {
            eprintln!("known_lookups: {set}: {e}");
            std::process::exit(1);
        }
    }
    let known = builder.finish();
    let load = start.elapsed().as_secs_f64();
    let table = &known.tables()[0];
    // xorshift: the probes' order and the misses' bytes, the same every run.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut queries: Vec<Vec<u8>> = Vec::with_capacity(probes);
    for i in 0..probes {
        if i % 2 == 0 {
            queries.push(table.record(next() as usize % table.len()).to_vec());
        } else {
            let miss: Vec<u8> = (0..table.width()).map(|_| next() as u8).collect();
            queries.push(miss);
        }
    }
    let start = Instant::now();
    let found = queries.iter().filter(|q| table.find(q).is_some()).count();
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{{\"load_seconds\": {load:.3}, \"distinct\": {}, \"heap_bytes\": {}, \"lookups\": {probes}, \"found\": {found}, \"lookups_per_second\": {:.0}}}",
        table.len(),
        known.heap_bytes(),
        probes as f64 / seconds
    );
}
