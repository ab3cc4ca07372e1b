//! Bitrot: one flipped bit, truncation, appended bytes, deletion and moves are
//! each caught by `check` and `audit`, with the right exit codes.

use std::path::{Path, PathBuf};

mod common;
use common::{hashlab_in, text};

struct Store(PathBuf);

impl Store {
    fn new(name: &str) -> Store {
        let root =
            std::env::temp_dir().join(format!("hashlab-bitrot-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("blobs")).unwrap();
        let mut seed = 0x1234_5678_u64;
        for (i, size) in [1usize, 100, 4096, 65_537, 1 << 20].into_iter().enumerate() {
            let data: Vec<u8> = (0..size)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 33) as u8
                })
                .collect();
            std::fs::write(root.join(format!("blobs/b{i}")), data).unwrap();
        }
        Store(root)
    }
    fn path(&self) -> &Path {
        &self.0
    }
    fn blob(&self, i: usize) -> PathBuf {
        self.0.join(format!("blobs/b{i}"))
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn flip_bit(path: &Path, bit: usize) {
    let mut data = std::fs::read(path).unwrap();
    let at = bit % (data.len() * 8);
    data[at / 8] ^= 1 << (at % 8);
    std::fs::write(path, data).unwrap();
}

#[test]
fn every_kind_of_damage_is_reported() {
    for alg in ["sha256", "blake3", "xxh3-128", "crc32c"] {
        let s = Store::new(alg);
        let o = hashlab_in(
            s.path(),
            &["sum", "-r", "-a", alg, "--tag", "blobs", "-o", "MANIFEST"],
        );
        assert!(o.status.success(), "{alg}: {}", text(&o.stderr));
        let check = |expect_ok: bool, what: &str| {
            let o = hashlab_in(s.path(), &["check", "MANIFEST"]);
            assert_eq!(
                o.status.success(),
                expect_ok,
                "{alg} {what}: check\n{}{}",
                text(&o.stdout),
                text(&o.stderr)
            );
            let a = hashlab_in(s.path(), &["audit", "MANIFEST", "blobs"]);
            assert_eq!(
                a.status.success(),
                expect_ok,
                "{alg} {what}: audit\n{}",
                text(&a.stdout)
            );
            (text(&o.stdout), text(&a.stdout))
        };
        check(true, "pristine");
        for (i, bit) in [
            (0usize, 3usize),
            (1, 777),
            (2, 4096 * 8 - 1),
            (3, 12_345),
            (4, 8_000_000),
        ] {
            let before = std::fs::read(s.blob(i)).unwrap();
            flip_bit(&s.blob(i), bit);
            let (c, a) = check(false, "flipped bit");
            assert!(c.contains(&format!("blobs/b{i}: FAILED")), "{alg}: {c}");
            assert!(a.contains(&format!("changed: blobs/b{i}")), "{alg}: {a}");
            std::fs::write(s.blob(i), before).unwrap();
        }
        let original = std::fs::read(s.blob(3)).unwrap();
        std::fs::write(s.blob(3), &original[..original.len() - 1]).unwrap();
        assert!(check(false, "truncated").1.contains("changed: blobs/b3"));
        let mut longer = original.clone();
        longer.push(0);
        std::fs::write(s.blob(3), longer).unwrap();
        assert!(check(false, "appended").1.contains("changed: blobs/b3"));
        std::fs::write(s.blob(3), &original).unwrap();
        check(true, "restored");
        std::fs::rename(s.blob(2), s.path().join("blobs/renamed")).unwrap();
        let (c, a) = check(false, "moved");
        assert!(c.contains("blobs/b2: FAILED open or read"), "{c}");
        assert!(a.contains("moved: blobs/b2 -> blobs/renamed"), "{a}");
        std::fs::remove_file(s.path().join("blobs/renamed")).unwrap();
        let (_, a) = check(false, "deleted");
        assert!(a.contains("missing: blobs/b2"), "{a}");
    }
}

#[test]
fn audit_reads_hashdeep_manifests_and_reports_new_files() {
    let s = Store::new("hashdeep");
    let o = hashlab_in(
        s.path(),
        &[
            "sum",
            "-r",
            "-a",
            "md5,sha256",
            "--format",
            "hashdeep",
            "blobs",
            "-o",
            "hd",
        ],
    );
    assert!(o.status.success());
    let a = hashlab_in(s.path(), &["audit", "hd", "blobs", "--json"]);
    assert!(a.status.success(), "{}", text(&a.stdout));
    std::fs::write(s.path().join("blobs/extra"), "x").unwrap();
    let a = hashlab_in(s.path(), &["audit", "hd", "blobs", "--json"]);
    assert_eq!(a.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["passed"], false);
    assert_eq!(v["counts"]["new"], 1);
    assert_eq!(v["counts"]["matched"], 5);
    let bad = hashlab_in(s.path(), &["audit", "nope", "blobs"]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        text(&bad.stderr),
        "hashlab: nope: No such file or directory\n"
    );
}

/// Rewrites a file with one bit flipped and puts its modification time back,
/// as a careless tool would leave it (its status-change time moves on;
/// bitrot on the disk would leave that too).
fn flip_bit_keeping_mtime(path: &Path, bit: usize) {
    let modified = std::fs::metadata(path).unwrap().modified().unwrap();
    flip_bit(path, bit);
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_modified(modified).unwrap();
}

#[test]
fn changed_only_skips_files_with_the_recorded_size_and_time_and_says_so() {
    let store = Store::new("changed-only");
    let dir = store.path();
    let sum = hashlab_in(dir, &["sum", "-r", "--json", "-o", "m.json", "blobs"]);
    assert!(sum.status.success(), "{}", text(&sum.stderr));
    let hd = hashlab_in(
        dir,
        &["sum", "-r", "--format", "hashdeep", "-o", "m.hd", "blobs"],
    );
    assert!(hd.status.success(), "{}", text(&hd.stderr));

    // Nothing changed: all assumed, nothing hashed, exit 0, the caveat on stderr.
    let quiet = hashlab_in(dir, &["audit", "--changed-only", "m.json", "blobs"]);
    assert_eq!(quiet.status.code(), Some(0), "{}", text(&quiet.stderr));
    assert!(
        text(&quiet.stdout).contains("5 assumed"),
        "{}",
        text(&quiet.stdout)
    );
    assert!(text(&quiet.stderr).contains("bitrot changes none of them"));

    // b2 is rewritten with one bit flipped and its mtime put back (same
    // size and mtime, a new status-change time); b3 grows.
    flip_bit_keeping_mtime(&store.blob(2), 77);
    std::fs::write(
        store.blob(3),
        b"grown and rewritten, longer than it was before",
    )
    .unwrap();
    let fast = hashlab_in(
        dir,
        &["audit", "--changed-only", "--json", "m.json", "blobs"],
    );
    assert_eq!(fast.status.code(), Some(1), "{}", text(&fast.stderr));
    let report: serde_json::Value = serde_json::from_slice(&fast.stdout).unwrap();
    assert_eq!(
        report["changed"],
        serde_json::json!(["blobs/b2", "blobs/b3"])
    );
    assert_eq!(report["counts"]["assumed"], 3);
    // A manifest that records sizes and mtimes only (`sum --json` before it
    // recorded inodes and status-change times) is blind to b2, as to bitrot.
    let mut entries: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("m.json")).unwrap()).unwrap();
    for e in &mut entries {
        let e = e.as_object_mut().unwrap();
        assert!(e.remove("inode").is_some() && e.remove("ctime_ns").is_some());
    }
    std::fs::write(dir.join("old.json"), serde_json::to_vec(&entries).unwrap()).unwrap();
    let blind = hashlab_in(
        dir,
        &["audit", "--changed-only", "--json", "old.json", "blobs"],
    );
    let report: serde_json::Value = serde_json::from_slice(&blind.stdout).unwrap();
    assert_eq!(report["changed"], serde_json::json!(["blobs/b3"]));
    assert_eq!(report["counts"]["assumed"], 4);
    assert!(report["assumed"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("blobs/b2")));

    // The full audit finds the rot the fast one cannot.
    let full = hashlab_in(dir, &["audit", "--json", "m.json", "blobs"]);
    let report: serde_json::Value = serde_json::from_slice(&full.stdout).unwrap();
    assert_eq!(
        report["changed"],
        serde_json::json!(["blobs/b2", "blobs/b3"])
    );

    // hashdeep's manifest records sizes only: a rewrite of the same size is assumed.
    let by_size = hashlab_in(dir, &["audit", "--changed-only", "--json", "m.hd", "blobs"]);
    let report: serde_json::Value = serde_json::from_slice(&by_size.stdout).unwrap();
    assert_eq!(report["changed"], serde_json::json!(["blobs/b3"]));

    // A manifest that records neither: a usage error, nothing audited.
    let gnu = hashlab_in(dir, &["sum", "-r", "-o", "m.sha256", "blobs"]);
    assert!(gnu.status.success());
    let refused = hashlab_in(dir, &["audit", "--changed-only", "m.sha256", "blobs"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("m.sha256"),
        "{}",
        text(&refused.stderr)
    );
    assert!(refused.stdout.is_empty());
}
