//! `sum --update`: against rhash's `-u` on the same tree and the same
//! changes, in each manifest form, killed midway, and given bad input.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{hashlab_in, peer, text, Scratch};

fn run(mut cmd: Command, dir: &Path, args: &[&str]) -> Output {
    cmd.current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// (name, digest) of every line of a GNU manifest.
fn entries(manifest: &[u8]) -> BTreeSet<(String, String)> {
    text(manifest)
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(';'))
        .map(|l| {
            let (digest, name) = l.split_once("  ").expect("a GNU line");
            (name.to_string(), digest.to_string())
        })
        .collect()
}

fn names(set: &BTreeSet<(String, String)>) -> BTreeSet<String> {
    set.iter().map(|(n, _)| n.clone()).collect()
}

/// Sets a file's modification time, as `touch -d` does, so that a change
/// within one timestamp tick is still a change of time.
fn touch(path: &Path, seconds_ago: u64) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::SystemTime::now() - Duration::from_secs(seconds_ago))
        .unwrap();
}

/// The same tree and the same changes (add, modify, delete, touch without
/// change) through `rhash -u` and `hashlab sum --update --prune`: after each
/// step, hashlab's manifest lists exactly what a fresh `rhash -r` lists,
/// `rhash -c` and `hashlab check` accept it, and where rhash's own update
/// differs (it adds new files but neither re-reads changed ones nor drops
/// gone ones) the difference is exactly those files.
#[test]
fn update_agrees_with_rhash_step_by_step() {
    let Some(_) = peer("rhash") else { return };
    let tree = Scratch::with_files(
        "update-rhash",
        &[
            ("d/a", b"alpha"),
            ("d/b", b"beta"),
            ("d/sub/c", b"gamma"),
            ("d/sp ace", b"space"),
        ],
    );
    let dir = tree.path();
    let rhash = |args: &[&str]| run(Command::new("rhash"), dir, args);
    let made = rhash(&["--sha256", "-r", "d"]);
    assert!(made.status.success());
    std::fs::write(dir.join("r.sha256"), &made.stdout).unwrap();
    let made = hashlab_in(dir, &["sum", "-r", "d"]);
    std::fs::write(dir.join("h.sha256"), &made.stdout).unwrap();
    assert_eq!(
        entries(&made.stdout),
        entries(&std::fs::read(dir.join("r.sha256")).unwrap())
    );

    type Step = (&'static str, fn(&Path));
    let steps: [Step; 4] = [
        ("add", |d| {
            std::fs::write(d.join("d/new"), b"new file").unwrap();
            std::fs::write(d.join("d/sub/new2"), b"another").unwrap();
        }),
        ("modify", |d| {
            std::fs::write(d.join("d/a"), b"ALPHA, changed").unwrap();
            // Same size, other content: a new time tells it.
            std::fs::write(d.join("d/b"), b"BETA").unwrap();
            touch(&d.join("d/b"), 0);
        }),
        ("delete", |d| {
            std::fs::remove_file(d.join("d/sub/c")).unwrap()
        }),
        ("touch", |d| touch(&d.join("d/sp ace"), 3600)),
    ];
    let mut stale: BTreeSet<String> = BTreeSet::new();
    for (step, change) in steps {
        let before = std::fs::read(dir.join("h.sha256")).unwrap();
        change(dir);
        assert!(rhash(&["--sha256", "-u", "r.sha256", "-r", "d"])
            .status
            .success());
        let out = hashlab_in(dir, &["sum", "--update", "h.sha256", "--prune", "-r", "d"]);
        assert!(out.status.success(), "{step}: {}", text(&out.stderr));
        let ours = std::fs::read(dir.join("h.sha256")).unwrap();
        let fresh = rhash(&["--sha256", "-r", "d"]);
        assert_eq!(entries(&ours), entries(&fresh.stdout), "{step}");
        let checked = rhash(&["-c", "h.sha256"]);
        assert!(
            checked.status.success(),
            "{step}: {}",
            text(&checked.stdout)
        );
        let checked = hashlab_in(dir, &["check", "h.sha256"]);
        assert!(
            checked.status.success(),
            "{step}: {}",
            text(&checked.stderr)
        );
        let theirs = entries(&std::fs::read(dir.join("r.sha256")).unwrap());
        match step {
            "add" => {
                assert_eq!(theirs, entries(&ours), "rhash -u adds as hashlab does");
                assert_eq!(
                    text(&out.stderr)
                        .lines()
                        .filter(|l| l.starts_with("added: "))
                        .count(),
                    2
                );
                // Every old line keeps its place; the new ones follow.
                assert!(ours.starts_with(&before), "{}", text(&ours));
            }
            "modify" => {
                stale.extend(["d/a".to_string(), "d/b".to_string()]);
                assert!(text(&out.stderr).contains("changed: d/a\n"));
                assert!(text(&out.stderr).contains("changed: d/b\n"));
            }
            "delete" => {
                stale.insert("d/sub/c".to_string());
                assert!(text(&out.stderr).contains("removed: d/sub/c\n"));
            }
            _ => {
                assert!(
                    text(&out.stderr).contains("1 re-read unchanged"),
                    "{}",
                    text(&out.stderr)
                );
                assert_eq!(ours, before, "a touch changes no line");
            }
        }
        let differ: BTreeSet<String> = names(
            &theirs
                .symmetric_difference(&entries(&ours))
                .cloned()
                .collect(),
        );
        assert_eq!(differ, stale, "{step}: rhash -u keeps what changed or went");
    }
    // hashlab brings rhash's own manifest up to date, and rhash then accepts it.
    let out = hashlab_in(dir, &["sum", "--update", "r.sha256", "--prune", "-r", "d"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(rhash(&["-c", "r.sha256"]).status.success());
    assert_eq!(
        entries(&std::fs::read(dir.join("r.sha256")).unwrap()),
        entries(&std::fs::read(dir.join("h.sha256")).unwrap())
    );
    // And rhash -u finds nothing to add to hashlab's.
    let before = std::fs::read(dir.join("h.sha256")).unwrap();
    assert!(rhash(&["--sha256", "-u", "h.sha256", "-r", "d"])
        .status
        .success());
    assert_eq!(
        entries(&std::fs::read(dir.join("h.sha256")).unwrap()),
        entries(&before)
    );
}

/// The second update of an unchanged tree reads no file and writes nothing.
#[test]
fn an_unchanged_tree_is_not_read_again() {
    let tree = Scratch::with_files("update-idle", &[("d/a", b"a"), ("d/b", b"b")]);
    let dir = tree.path();
    let made = hashlab_in(dir, &["sum", "-r", "d", "-o", "m"]);
    assert!(made.status.success());
    let first = hashlab_in(dir, &["sum", "--update", "m", "-r", "d", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    // No sidecar yet: both files are read once, and found unchanged.
    assert_eq!(report["rehashed"].as_array().unwrap().len(), 2);
    assert_eq!(report["written"], false);
    assert!(dir.join("m.hashlab-stat").exists());
    let again = hashlab_in(dir, &["sum", "--update", "m", "-r", "d", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(report["unchanged"], 2);
    assert_eq!(report["rehashed"].as_array().unwrap().len(), 0);
    // The manifest and its sidecar are not files of the tree, wherever they lie.
    let inside = hashlab_in(dir, &["sum", "-r", ".", "-o", "all"]);
    assert!(inside.status.success());
    let out = hashlab_in(dir, &["sum", "--update", "all", "-r", "."]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(&std::fs::read(dir.join("all")).unwrap());
    assert!(!listed.contains("all.hashlab-stat"), "{listed}");
}

/// Without paths, the files the manifest lists are looked at: changed ones
/// re-read, gone ones kept (or pruned), nothing new can be found.
#[test]
fn without_paths_the_listed_files_are_revisited() {
    let tree = Scratch::with_files("update-listed", &[("a", b"1"), ("b", b"2"), ("c", b"3")]);
    let dir = tree.path();
    assert!(hashlab_in(dir, &["sum", "a", "b", "c", "-o", "m.sha256"])
        .status
        .success());
    std::fs::write(dir.join("b"), b"22").unwrap();
    std::fs::remove_file(dir.join("c")).unwrap();
    std::fs::write(dir.join("d"), b"not listed").unwrap();
    let out = hashlab_in(dir, &["sum", "--update", "m.sha256"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("changed: b\n") && err.contains("missing: c (kept"),
        "{err}"
    );
    assert!(!err.contains("added: "), "{err}");
    let out = hashlab_in(dir, &["sum", "--update", "m.sha256", "--prune"]);
    assert!(text(&out.stderr).contains("removed: c\n"));
    let expected = hashlab_in(dir, &["sum", "a", "b"]);
    assert_eq!(
        std::fs::read(dir.join("m.sha256")).unwrap(),
        expected.stdout
    );
}

/// Every form keeps its own: tagged lines with two algorithms, SFV,
/// NUL-ended lines, hashdeep's (which hashdeep then audits), and `sum --json`
/// (which records times itself, so no sidecar is written).
#[test]
fn each_form_keeps_its_form() {
    let tree = Scratch::with_files("update-forms", &[("d/a", b"a"), ("d/b odd\nname", b"b")]);
    let dir = tree.path();
    let forms: [(&str, &[&str]); 5] = [
        ("tagged", &["--tag", "-a", "sha256,blake3"]),
        ("m.sfv", &["--format", "sfv"]),
        ("zero", &["-z", "-a", "md5"]),
        ("deep", &["--format", "hashdeep", "-a", "md5,sha256"]),
        ("j.json", &["--json", "-a", "xxh3-64"]),
    ];
    for (name, flags) in forms {
        let mut args = vec!["sum", "-r", "d", "-o", name];
        args.extend_from_slice(flags);
        if name == "deep" || name == "m.sfv" {
            // Neither form holds a newline in a name.
            args.extend_from_slice(&["--exclude", "*odd*"]);
        }
        let made = hashlab_in(dir, &args);
        assert!(made.status.success(), "{name}: {}", text(&made.stderr));
    }
    std::fs::write(dir.join("d/c"), b"new").unwrap();
    std::fs::write(dir.join("d/a"), b"changed a").unwrap();
    for (name, flags) in forms {
        let zero: &[&str] = if name == "zero" { &["-z"] } else { &[] };
        let mut args = vec!["sum", "--update", name, "-r", "d"];
        args.extend_from_slice(zero);
        if name == "deep" || name == "m.sfv" {
            args.extend_from_slice(&["--exclude", "*odd*"]);
        }
        let out = hashlab_in(dir, &args);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        // What a fresh `sum` in the same form writes, but for headers' times.
        let mut fresh = vec!["sum", "-r", "d"];
        fresh.extend_from_slice(flags);
        if name == "deep" || name == "m.sfv" {
            fresh.extend_from_slice(&["--exclude", "*odd*"]);
        }
        let fresh = hashlab_in(dir, &fresh);
        let updated = std::fs::read(dir.join(name)).unwrap();
        let body = |b: &[u8]| -> BTreeSet<Vec<u8>> {
            let end = if name == "zero" { 0 } else { b'\n' };
            b.split(|c| *c == end)
                .filter(|l| {
                    !l.is_empty()
                        && !l.starts_with(b";")
                        && !l.starts_with(b"#")
                        && !l.starts_with(b"%")
                })
                .filter(|l| {
                    !l.starts_with(b"  \"mtime_ns")
                        && !l.starts_with(b"  \"ctime_ns")
                        && !l.starts_with(b"    \"mtime_ns")
                        && !l.starts_with(b"    \"ctime_ns")
                })
                .map(<[u8]>::to_vec)
                .collect()
        };
        if name == "j.json" {
            let rows = |b: &[u8]| -> BTreeSet<(String, String, u64)> {
                let v: Vec<serde_json::Value> = serde_json::from_slice(b).unwrap();
                v.iter()
                    .map(|r| {
                        (
                            r["file"].as_str().unwrap().to_string(),
                            r["digest"].as_str().unwrap().to_string(),
                            r["bytes"].as_u64().unwrap(),
                        )
                    })
                    .collect()
            };
            assert_eq!(rows(&updated), rows(&fresh.stdout));
            assert!(!dir.join("j.json.hashlab-stat").exists());
        } else {
            assert_eq!(
                body(&updated),
                body(&fresh.stdout),
                "{name}: {}",
                text(&updated)
            );
        }
        let mut check = vec!["check", name];
        check.extend_from_slice(zero);
        if name != "deep" && name != "j.json" {
            let checked = hashlab_in(dir, &check);
            assert!(
                checked.status.success(),
                "{name}: {}",
                text(&checked.stdout)
            );
        }
    }
    if let Some(hashdeep) = peer("hashdeep") {
        let audited = run(
            hashdeep,
            dir,
            &["-r", "-a", "-k", "deep", "-c", "md5,sha256", "d/a", "d/c"],
        );
        assert!(audited.status.success(), "{}", text(&audited.stdout));
    }
    if let Some(rhash) = peer("rhash") {
        let checked = run(rhash, dir, &["-c", "m.sfv"]);
        assert!(checked.status.success(), "{}", text(&checked.stdout));
    }
}

/// Killed with SIGKILL at any moment, an update leaves the old manifest or
/// the new one, whole, and the next update finishes the job; a killed
/// run's temporary file is never listed.
#[test]
fn a_killed_update_leaves_the_old_manifest_whole() {
    let tree = Scratch::new("update-kill");
    let dir = tree.path();
    let big: Vec<u8> = (0..4u32 << 20).map(|i| (i * 7 % 253) as u8).collect();
    for n in 0..24 {
        tree.write(&format!("d/f{n:02}"), &big[n..]);
    }
    assert!(hashlab_in(dir, &["sum", "-r", "d", "-o", "m"])
        .status
        .success());
    let old = std::fs::read(dir.join("m")).unwrap();
    // Every file changes: the update must read all 96 MiB.
    for n in 0..24 {
        tree.write(&format!("d/f{n:02}"), &big[n + 1..]);
    }
    tree.write("d/zz-new", b"new");
    let expected = hashlab_in(dir, &["sum", "-r", "d"]).stdout;
    assert_ne!(old, expected);
    let mut outcomes = BTreeSet::new();
    for delay_ms in [0u64, 2, 10, 30, 60, 120, 250, 500, 1000, 3000] {
        let copy = dir.join("m");
        std::fs::write(&copy, &old).unwrap();
        let _ = std::fs::remove_file(dir.join("m.hashlab-stat"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_hashlab"))
            .current_dir(dir)
            .args(["sum", "--update", "m", "-r", "d", "--jobs", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let status = child.wait().unwrap();
        let now = std::fs::read(&copy).unwrap();
        assert!(
            now == old || now == expected,
            "after {delay_ms} ms: neither the old manifest nor the new:\n{}",
            text(&now)
        );
        outcomes.insert((now == expected, status.success()));
    }
    // Killed early at least once, and let finish at least once.
    assert!(outcomes.contains(&(false, false)), "{outcomes:?}");
    assert!(outcomes.iter().any(|(new, _)| *new), "{outcomes:?}");
    std::fs::write(dir.join("m"), &old).unwrap();
    let out = hashlab_in(dir, &["sum", "--update", "m", "-r", "d"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(dir.join("m")).unwrap(), expected);
}

/// Refusals name the manifest and say why in one line, and leave it as it was.
#[test]
fn bad_input_is_refused_in_one_line() {
    let tree = Scratch::with_files("update-bad", &[("d/a", b"a"), ("d/b", b"b"), ("e/x", b"x")]);
    let dir = tree.path();
    assert!(hashlab_in(dir, &["sum", "-r", "d", "e", "-o", "m.sha256"])
        .status
        .success());
    let good = std::fs::read(dir.join("m.sha256")).unwrap();
    let refused = |args: &[&str], code: i32, says: &str| {
        let out = hashlab_in(dir, args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    refused(
        &["sum", "--update", "m.sha256", "-a", "md5", "-r", "d"],
        2,
        "m.sha256: the manifest holds sha256, not md5",
    );
    refused(
        &["sum", "--update", "m.sha256", "--format", "sfv", "-r", "d"],
        2,
        "--format takes only json",
    );
    refused(
        &["sum", "--update", "nosuch", "-r", "d"],
        1,
        "nosuch: No such file",
    );
    assert_eq!(std::fs::read(dir.join("m.sha256")).unwrap(), good);

    let mut dup = good.clone();
    dup.extend_from_slice(text(&good).lines().next().unwrap().as_bytes());
    dup.push(b'\n');
    std::fs::write(dir.join("dup.sha256"), &dup).unwrap();
    refused(
        &["sum", "--update", "dup.sha256", "-r", "d"],
        1,
        "dup.sha256: line 4: 'd/a' is listed again (first at line 1)",
    );
    let mut damaged = good.clone();
    damaged.extend_from_slice(b"this is no checksum line\n");
    std::fs::write(dir.join("bad.sha256"), &damaged).unwrap();
    refused(
        &["sum", "--update", "bad.sha256", "-r", "d"],
        1,
        "bad.sha256: line 4: improperly formatted checksum line",
    );
    assert_eq!(std::fs::read(dir.join("dup.sha256")).unwrap(), dup);
    assert_eq!(std::fs::read(dir.join("bad.sha256")).unwrap(), damaged);

    // Entries outside the paths given (another tree, `..`, an absolute
    // path) are kept as they are and not read, even with --prune.
    let mut outside = good.clone();
    outside.extend_from_slice(
        format!(
            "{}  ../elsewhere\n{}  /etc/hostname\n",
            "0".repeat(64),
            "1".repeat(64)
        )
        .as_bytes(),
    );
    std::fs::write(dir.join("out.sha256"), &outside).unwrap();
    std::fs::remove_file(dir.join("d/b")).unwrap();
    let out = hashlab_in(
        dir,
        &["sum", "--update", "out.sha256", "--prune", "-r", "d"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("3 outside the paths given"),
        "{}",
        text(&out.stderr)
    );
    let now = text(&std::fs::read(dir.join("out.sha256")).unwrap());
    assert!(
        now.contains("  e/x\n")
            && now.contains("  ../elsewhere\n")
            && now.contains("  /etc/hostname\n")
    );
    assert!(!now.contains("  d/b\n"));
}

/// Drops the inodes and status-change times of a `sum --json` manifest, as
/// one made on another machine (and copied with its tree) has none that hold.
fn forget_inodes(manifest: &Path) {
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
    let rows: Vec<serde_json::Value> = rows
        .into_iter()
        .map(|mut r| {
            r.as_object_mut().unwrap().remove("inode");
            r.as_object_mut().unwrap().remove("ctime_ns");
            r
        })
        .collect();
    std::fs::write(manifest, serde_json::to_vec_pretty(&rows).unwrap()).unwrap();
}

/// `audit --update` reports first, exits as the audit does, and leaves a
/// manifest the next audit passes: changed files with their new digests
/// (even one whose size and time were set back, which only the audit's
/// read shows), moved and new files added, gone ones dropped.
#[test]
fn audit_update_rebaselines_what_the_audit_found() {
    let tree = Scratch::with_files(
        "update-audit",
        &[
            ("d/a", b"alpha"),
            ("d/b", b"beta"),
            ("d/c", b"gamma"),
            ("d/e", b"delta"),
        ],
    );
    let dir = tree.path();
    assert!(
        hashlab_in(dir, &["sum", "-r", "d", "--json", "-o", "m.json"])
            .status
            .success()
    );
    // A manifest that records sizes and times but no inode or ctime, as one
    // made elsewhere (copied with its tree) does.
    forget_inodes(&dir.join("m.json"));
    // d/a rots: same size, its time set back.
    let when = std::fs::metadata(dir.join("d/a"))
        .unwrap()
        .modified()
        .unwrap();
    std::fs::write(dir.join("d/a"), b"ALPHA").unwrap();
    std::fs::File::options()
        .write(true)
        .open(dir.join("d/a"))
        .unwrap()
        .set_modified(when)
        .unwrap();
    std::fs::write(dir.join("d/b"), b"beta, longer").unwrap();
    std::fs::rename(dir.join("d/c"), dir.join("d/c-moved")).unwrap();
    std::fs::remove_file(dir.join("d/e")).unwrap();
    std::fs::write(dir.join("d/new"), b"new").unwrap();

    let plain = hashlab_in(dir, &["audit", "m.json", "d"]);
    assert_eq!(plain.status.code(), Some(1));
    let out = hashlab_in(dir, &["audit", "--update", "m.json", "d"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(out.stdout, plain.stdout, "the report is the audit's");
    let err = text(&out.stderr);
    for line in [
        "changed: d/a\n",
        "changed: d/b\n",
        "added: d/c-moved\n",
        "added: d/new\n",
        "removed: d/c\n",
        "removed: d/e\n",
    ] {
        assert!(err.contains(line), "{line}: {err}");
    }
    let again = hashlab_in(dir, &["audit", "m.json", "d"]);
    assert!(again.status.success(), "{}", text(&again.stdout));
    // Without the audit's read, an update trusts the time set back: only
    // a full read finds such a change.
    std::fs::write(dir.join("d/a"), b"alpha").unwrap();
    std::fs::File::options()
        .write(true)
        .open(dir.join("d/a"))
        .unwrap()
        .set_modified(when)
        .unwrap();
    forget_inodes(&dir.join("m.json"));
    let update = hashlab_in(dir, &["sum", "--update", "m.json", "-r", "d"]);
    assert!(update.status.success());
    assert!(
        !text(&update.stderr).contains("changed: d/a"),
        "{}",
        text(&update.stderr)
    );
    assert_eq!(
        hashlab_in(dir, &["audit", "m.json", "d"]).status.code(),
        Some(1)
    );

    // hashdeep's form, re-baselined, passes hashdeep's own audit.
    assert!(hashlab_in(
        dir,
        &[
            "sum",
            "-r",
            "d",
            "--format",
            "hashdeep",
            "-a",
            "md5,sha256",
            "-o",
            "m.hd"
        ]
    )
    .status
    .success());
    std::fs::write(dir.join("d/b"), b"beta again").unwrap();
    std::fs::write(dir.join("d/more"), b"more").unwrap();
    let out = hashlab_in(dir, &["audit", "--update", "m.hd", "d"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(hashlab_in(dir, &["audit", "m.hd", "d"]).status.success());
    if let Some(hashdeep) = peer("hashdeep") {
        let audited = run(
            hashdeep,
            dir,
            &["-r", "-a", "-k", "m.hd", "-c", "md5,sha256", "d"],
        );
        assert!(audited.status.success(), "{}", text(&audited.stdout));
    }
}

/// Manifests with pieces are refused whole: an update would leave their
/// pieces stale.
#[test]
fn manifests_with_pieces_are_not_updated() {
    let tree = Scratch::with_files("update-pieces", &[("d/a", &[7u8; 3000][..])]);
    let dir = tree.path();
    for (name, flags) in [
        ("p.hd", &["--format", "hashdeep", "-a", "md5,sha256"][..]),
        ("p.json", &["--json"][..]),
    ] {
        let mut args = vec!["sum", "-r", "d", "--piece", "1k", "-o", name];
        args.extend_from_slice(flags);
        assert!(hashlab_in(dir, &args).status.success());
        let before = std::fs::read(dir.join(name)).unwrap();
        let out = hashlab_in(dir, &["sum", "--update", name, "-r", "d"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            text(&out.stderr).contains("records pieces"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(std::fs::read(dir.join(name)).unwrap(), before);
    }
}
