//! Bitrot: one flipped bit, truncation, appended bytes, deletion and moves are
//! each caught by `check` and `audit`, with the right exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hashlab(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run hashlab")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

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
        let o = hashlab(
            s.path(),
            &["sum", "-r", "-a", alg, "--tag", "blobs", "-o", "MANIFEST"],
        );
        assert!(o.status.success(), "{alg}: {}", text(&o.stderr));
        let check = |expect_ok: bool, what: &str| {
            let o = hashlab(s.path(), &["check", "MANIFEST"]);
            assert_eq!(
                o.status.success(),
                expect_ok,
                "{alg} {what}: check\n{}{}",
                text(&o.stdout),
                text(&o.stderr)
            );
            let a = hashlab(s.path(), &["audit", "MANIFEST", "blobs"]);
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
    let o = hashlab(
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
    let a = hashlab(s.path(), &["audit", "hd", "blobs", "--json"]);
    assert!(a.status.success(), "{}", text(&a.stdout));
    std::fs::write(s.path().join("blobs/extra"), "x").unwrap();
    let a = hashlab(s.path(), &["audit", "hd", "blobs", "--json"]);
    assert_eq!(a.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["passed"], false);
    assert_eq!(v["counts"]["new"], 1);
    assert_eq!(v["counts"]["matched"], 5);
    let bad = hashlab(s.path(), &["audit", "nope", "blobs"]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        text(&bad.stderr),
        "hashlab: nope: No such file or directory\n"
    );
}
