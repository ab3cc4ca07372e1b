//! `sum --update` and `audit --update` where users trust them most: a root
//! that is unmounted or renamed drops nothing, and updates of one manifest
//! run at once keep each other's entries (issue 42, high 1 and 3).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{hashlab_in, text, Scratch};

/// Names of a GNU manifest's lines.
fn listed(manifest: &Path) -> BTreeSet<String> {
    text(&std::fs::read(manifest).unwrap())
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split_once("  ").expect("a GNU line").1.to_string())
        .collect()
}

/// The manifest holds what `before` held: the same bytes, or for a JSON
/// manifest (whose keys an update writes in its own order) the same rows.
fn same_entries(manifest: &Path, before: &[u8]) {
    let now = std::fs::read(manifest).unwrap();
    if before.starts_with(b"[") {
        let parse = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap();
        assert_eq!(parse(&now), parse(before));
    } else {
        assert_eq!(text(&now), text(before));
    }
}

fn tree(name: &str) -> Scratch {
    Scratch::with_files(
        name,
        &[
            ("pr/mnt/f1", b"one"),
            ("pr/mnt/f2", b"two"),
            ("pr/mnt/sub/f3", b"three"),
            ("pr/other", b"other"),
        ],
    )
}

#[test]
fn a_root_that_is_gone_prunes_nothing() {
    let t = tree("prune-gone-root");
    let dir = t.path();
    for (manifest, form) in [("pr.sha256", None), ("pr.json", Some("--json"))] {
        let mut args = vec!["sum", "-r", "pr/mnt", "-o", manifest];
        args.extend(form);
        assert!(hashlab_in(dir, &args).status.success());
        let before = std::fs::read(dir.join(manifest)).unwrap();
        std::fs::rename(dir.join("pr/mnt"), dir.join("pr/x")).unwrap();
        for paths in [&["-r", "pr/mnt"][..], &[]] {
            let mut args = vec!["sum", "--update", manifest, "--prune"];
            args.extend(paths);
            let out = hashlab_in(dir, &args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(!err.contains("removed: "), "{args:?}: {err}");
            assert!(err.contains("pr/mnt"), "{args:?}: {err}");
            same_entries(&dir.join(manifest), &before);
        }
        // The same through an audit's update.
        let out = hashlab_in(dir, &["audit", "--update", manifest, "pr/mnt"]);
        assert_ne!(out.status.code(), Some(0), "{}", text(&out.stderr));
        same_entries(&dir.join(manifest), &before);
        std::fs::rename(dir.join("pr/x"), dir.join("pr/mnt")).unwrap();
    }
}

#[test]
fn an_empty_root_does_not_empty_the_manifest() {
    let t = tree("prune-empty-root");
    let dir = t.path();
    assert!(hashlab_in(dir, &["sum", "-r", "pr/mnt", "-o", "m"])
        .status
        .success());
    let before = std::fs::read(dir.join("m")).unwrap();
    // An unmounted disk leaves its mount point: there, readable, empty.
    std::fs::rename(dir.join("pr/mnt"), dir.join("pr/x")).unwrap();
    std::fs::create_dir(dir.join("pr/mnt")).unwrap();
    let out = hashlab_in(dir, &["sum", "--update", "m", "--prune", "-r", "pr/mnt"]);
    let err = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("not emptied"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(std::fs::read(dir.join("m")).unwrap(), before);
}

#[test]
fn what_a_readable_root_shows_gone_is_pruned() {
    let t = tree("prune-readable-root");
    let dir = t.path();
    assert!(hashlab_in(dir, &["sum", "-r", "pr", "-o", "m"])
        .status
        .success());
    std::fs::remove_dir_all(dir.join("pr/mnt/sub")).unwrap();
    std::fs::remove_file(dir.join("pr/mnt/f1")).unwrap();
    let out = hashlab_in(dir, &["sum", "--update", "m", "--prune", "-r", "pr"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        listed(&dir.join("m")),
        BTreeSet::from(["pr/mnt/f2".to_string(), "pr/other".to_string()])
    );
    // Without paths, a file whose directory is still there is gone.
    std::fs::remove_file(dir.join("pr/other")).unwrap();
    let out = hashlab_in(dir, &["sum", "--update", "m", "--prune"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        listed(&dir.join("m")),
        BTreeSet::from(["pr/mnt/f2".to_string()])
    );
}

#[test]
fn a_directory_given_without_recursion_is_not_called_an_entry_kept() {
    let t = tree("update-dir-without-r");
    let dir = t.path();
    assert!(hashlab_in(dir, &["sum", "-r", "pr", "-o", "m"])
        .status
        .success());
    let out = hashlab_in(dir, &["sum", "--update", "m", "pr/mnt"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.lines()
            .any(|l| l
                == "unreadable: pr/mnt: a directory, not a file (no entry under it is dropped)"),
        "{err}"
    );
    assert!(
        !err.contains("pr/mnt: a directory, not a file (kept"),
        "{err}"
    );
}

/// A small random generator (xorshift), seeded from the clock and printed,
/// so that a failure can be replayed with HASHLAB_TEST_SEED.
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let seed = std::env::var("HASHLAB_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        eprintln!("HASHLAB_TEST_SEED={seed}");
        Rng(seed)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Random trees under several roots; while an update with `--prune` runs,
/// roots are renamed away and back. Whatever the timing, every entry whose
/// file is there once the roots are back is still in the manifest, with its
/// digest; files really deleted before the run may go.
#[test]
fn roots_vanishing_mid_update_never_lose_an_entry_whose_file_exists() {
    let t = Scratch::new("prune-vanishing-roots");
    let dir = t.path();
    let mut rng = Rng::new();
    for round in 0..6 {
        let _ = std::fs::remove_dir_all(dir.join("t"));
        let roots: Vec<String> = (0..1 + rng.below(3)).map(|r| format!("t/r{r}")).collect();
        let mut files = Vec::new();
        for root in &roots {
            for f in 0..20 + rng.below(60) {
                let depth = rng.below(3);
                let mut name = root.clone();
                for d in 0..depth {
                    name.push_str(&format!("/d{}", (f + d) % 4));
                }
                name.push_str(&format!("/f{f}"));
                let path = dir.join(&name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, format!("{round} {name}")).unwrap();
                files.push(name);
            }
        }
        let mut args = vec!["sum", "-r", "-o", "m"];
        args.extend(roots.iter().map(String::as_str));
        assert!(hashlab_in(dir, &args).status.success());
        let before = std::fs::read_to_string(dir.join("m")).unwrap();
        for name in &files {
            if rng.below(8) == 0 {
                std::fs::remove_file(dir.join(name)).unwrap();
            }
        }
        let flicker = AtomicBool::new(true);
        let mut update = Command::new(env!("CARGO_BIN_EXE_hashlab"));
        update
            .current_dir(dir)
            .args(["sum", "--update", "m", "--prune", "-r"])
            .args(&roots)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let pause = Duration::from_micros(200 + rng.below(3000));
        let status = std::thread::scope(|s| {
            let renamer = s.spawn(|| {
                let mut n = 0usize;
                while flicker.load(Ordering::Relaxed) {
                    let root = &roots[n % roots.len()];
                    let away = dir.join(format!("{root}.away"));
                    std::fs::rename(dir.join(root), &away).unwrap();
                    std::thread::sleep(pause);
                    std::fs::rename(&away, dir.join(root)).unwrap();
                    std::thread::sleep(pause);
                    n += 1;
                }
            });
            let status = update.status().unwrap();
            flicker.store(false, Ordering::Relaxed);
            renamer.join().unwrap();
            status
        });
        let after = std::fs::read_to_string(dir.join("m")).unwrap();
        let after_lines: BTreeSet<&str> = after.lines().collect();
        for line in before.lines() {
            let name = line.split_once("  ").unwrap().1;
            if dir.join(name).exists() {
                assert!(
                    after_lines.contains(line),
                    "round {round} ({status}): lost '{line}' though {name} is there"
                );
            }
        }
    }
}

/// Updates of one manifest started at once, each adding its own directory:
/// the manifest ends with every one's additions, and each run succeeds.
#[test]
fn concurrent_updates_end_with_the_union_of_their_additions() {
    let t = Scratch::with_files("update-concurrent", &[("base/a", b"a")]);
    let dir = t.path();
    for form in [None, Some("--json")] {
        let manifest = if form.is_some() { "m.json" } else { "m" };
        let mut args = vec!["sum", "-r", "base", "-o", manifest];
        args.extend(form);
        assert!(hashlab_in(dir, &args).status.success());
        let n = 8;
        for i in 0..n {
            t.write(&format!("d{i}/x"), format!("x{i}").as_bytes());
            t.write(&format!("d{i}/y"), format!("y{i}").as_bytes());
        }
        let children: Vec<_> = (0..n)
            .map(|i| {
                Command::new(env!("CARGO_BIN_EXE_hashlab"))
                    .current_dir(dir)
                    .args(["sum", "--update", manifest, "-r", &format!("d{i}")])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", text(&out.stderr));
        }
        if form.is_none() {
            let check = hashlab_in(dir, &["check", manifest]);
            assert!(check.status.success(), "{}", text(&check.stderr));
        }
        let body = std::fs::read_to_string(dir.join(manifest)).unwrap();
        for i in 0..n {
            for f in ["x", "y"] {
                let name = format!("d{i}/{f}");
                assert!(body.contains(&name), "{manifest}: lost {name}:\n{body}");
            }
        }
        assert!(body.contains("base/a"));
    }
}

/// An update that finds the manifest locked says so once, waits, and goes
/// on when the lock is let go.
#[test]
fn an_update_waits_for_the_one_holding_the_manifest() {
    let t = Scratch::with_files("update-waits", &[("a", b"a"), ("b", b"b")]);
    let dir = t.path();
    assert!(hashlab_in(dir, &["sum", "a", "-o", "m"]).status.success());
    let held = std::fs::File::open(dir.join("m")).unwrap();
    held.lock().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(dir)
        .args(["sum", "--update", "m", "b"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    drop(held);
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("another update of it is running; waiting"),
        "{err}"
    );
    assert_eq!(listed(&dir.join("m")).len(), 2);
}

/// Issue 42's low items of `--update`: one file under two names is refused
/// rather than left stale; a CRLF manifest gets CRLF lines; `sum -r d -o
/// d/M` does not hash the old M into the new one.
#[test]
fn two_names_crlf_and_the_output_inside_the_tree() {
    let t = Scratch::with_files("update-low", &[("d/a", b"a"), ("d/b", b"b")]);
    let dir = t.path();
    let a = text(&hashlab_in(dir, &["sum", "d/a"]).stdout);
    let digest = a.split_once("  ").unwrap().0.to_string();
    std::fs::write(dir.join("m"), format!("{digest}  d/a\n{digest}  ./d/a\n")).unwrap();
    std::fs::write(dir.join("d/a"), b"changed").unwrap();
    let out = hashlab_in(dir, &["sum", "--update", "m", "-r", "d"]);
    let err = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("name the same file"), "{err}");

    std::fs::write(dir.join("m"), format!("{digest}  d/a\r\n")).unwrap();
    let out = hashlab_in(dir, &["sum", "--update", "m", "-r", "d"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = std::fs::read(dir.join("m")).unwrap();
    let lines: Vec<&[u8]> = body.split_inclusive(|b| *b == b'\n').collect();
    assert_eq!(lines.len(), 2, "{}", text(&body));
    assert!(
        lines.iter().all(|l| l.ends_with(b"\r\n")),
        "{:?}",
        text(&body)
    );

    for _ in 0..2 {
        let out = hashlab_in(dir, &["sum", "-r", "d", "-o", "d/M"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    assert_eq!(
        listed(&dir.join("d/M")),
        BTreeSet::from(["d/a".into(), "d/b".into()])
    );
    let check = hashlab_in(dir, &["check", "d/M"]);
    assert!(check.status.success(), "{}", text(&check.stderr));
}
