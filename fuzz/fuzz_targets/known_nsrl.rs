//! Any bytes as an SQLite file given to `match -k` as NSRL's RDS v3: the
//! reader must never panic, hang or grow without bound (its bounds stop a
//! read and say so), and never write into the database or beside it
//! unless the database holds a write-ahead log (then SQLite's `-shm`).
//! The input is written to a file (SQLite reads files in place);
//! `fuzz/make_nsrl_seeds.py` writes seeds of RDS-shaped databases.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use hashlab::Registry;
use hashlab_integrity::{load_set, KnownBuilder, SetOptions};
use libfuzzer_sys::fuzz_target;

fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("hashlab-fuzz-nsrl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory in the temp dir");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static REGISTRY: Registry = Registry::default();
    }
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let dir = scratch();
    let db = dir.join("rds.db");
    for extra in ["rds.db-wal", "rds.db-shm", "rds.db-journal"] {
        let _ = std::fs::remove_file(dir.join(extra));
    }
    // The second half of the input, when asked, is the database's log.
    let (main, wal) = if selector & 1 == 1 {
        rest.split_at(rest.len() / 2)
    } else {
        (rest, &[][..])
    };
    std::fs::write(&db, main).expect("the database file");
    if !wal.is_empty() {
        std::fs::write(dir.join("rds.db-wal"), wal).expect("the log");
    }
    let options = SetOptions {
        algorithm: [None, Some("md5"), Some("sha1"), Some("crc32")][usize::from(selector >> 1) % 4],
    };
    REGISTRY.with(|registry| {
        let mut builder = KnownBuilder::new(selector & 0x10 != 0);
        let _ = load_set(&mut builder, registry, &db, &options);
        let _ = builder.finish();
    });
    assert_eq!(std::fs::read(&db).expect("the database file"), main, "the database was written");
    if !wal.is_empty() {
        assert_eq!(std::fs::read(dir.join("rds.db-wal")).expect("the log"), wal);
    }
});
