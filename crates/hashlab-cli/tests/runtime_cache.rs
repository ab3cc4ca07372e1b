//! `bench --runtime`'s harness cache runs nothing that someone else could
//! have put there (issue 42, high 2): a cached harness owned by another
//! user, in a directory others can write, or changed since it was built is
//! built again privately; the Node harness loads no package from a
//! `node_modules` above the cache; without HOME and XDG_CACHE_HOME the
//! cache is no name shared by every user of $TMPDIR.

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{hashlab_in, peer, text, Scratch};
use serde_json::Value;

/// A short `bench --runtime RUNTIME -a sha256 --json` with this cache home
/// (None: neither HOME nor XDG_CACHE_HOME, and `tmp` as TMPDIR).
fn bench(dir: &Path, runtime: &str, cache_home: Option<&Path>, tmp: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hashlab"));
    command.current_dir(dir).env("TMPDIR", tmp);
    match cache_home {
        Some(home) => command.env("XDG_CACHE_HOME", home),
        None => command.env_remove("XDG_CACHE_HOME").env_remove("HOME"),
    };
    command
        .args([
            "bench",
            "--runtime",
            runtime,
            "-a",
            "sha256",
            "--sizes",
            "64",
        ])
        .args(["--quick", "--max-time", "1", "--json"])
        .output()
        .expect("run hashlab")
}

/// The runtime's state in the report ("measured" when it ran and answered).
fn state(out: &Output, runtime: &str) -> String {
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = report["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["runtime"] == runtime)
        .unwrap()
        .clone();
    status["state"].as_str().unwrap().to_string()
}

/// The cached build of `name` (`python-<key>`) under a cache directory.
fn build_dir(harness: &Path, name: &str) -> PathBuf {
    std::fs::read_dir(harness)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{name}-")))
        })
        .unwrap_or_else(|| panic!("no {name} build in {}", harness.display()))
}

fn sha256_of(path: &Path) -> String {
    let out = hashlab_in(
        Path::new("/"),
        &["sum", "-a", "sha256", path.to_str().unwrap()],
    );
    text(&out.stdout)[..64].to_string()
}

/// Makes the cached Python harness write `marker` when it runs; with
/// `consistent`, its build record is rewritten to match, as whoever planted
/// it could do.
fn plant(build: &Path, marker: &Path, consistent: bool) {
    let script = build.join("harness.py");
    let original = std::fs::read_to_string(&script).unwrap();
    std::fs::write(
        &script,
        format!(
            "open({:?}, 'w').write('ran')\n{original}",
            marker.to_str().unwrap()
        ),
    )
    .unwrap();
    if consistent {
        let record = build.join(".complete");
        let old = std::fs::read_to_string(&record).unwrap();
        let new: String = old
            .lines()
            .map(|l| match l.split_once(' ') {
                Some((_, "harness.py")) => format!("{} harness.py\n", sha256_of(&script)),
                _ => format!("{l}\n"),
            })
            .collect();
        assert_ne!(old, new);
        std::fs::write(&record, new).unwrap();
    }
}

fn chown_all(path: &Path, owner: &str) {
    let status = Command::new("chown")
        .args(["-R", owner])
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

fn is_root() -> bool {
    let probe = std::env::temp_dir().join(format!("hashlab-uid-{}", std::process::id()));
    std::fs::write(&probe, b"").unwrap();
    let uid = std::fs::metadata(&probe).unwrap().uid();
    let _ = std::fs::remove_file(&probe);
    uid == 0
}

#[test]
fn a_cached_harness_runs_only_when_it_is_ours_alone_and_as_built() {
    let Some(_) = peer("python3") else { return };
    let scratch = Scratch::new("runtime-cache-trust");
    let dir = scratch.path();
    let home = dir.join("cache");
    let harness = home.join("hashlab/harness");
    let marker = dir.join("planted-ran");
    assert_eq!(
        state(&bench(dir, "python", Some(&home), dir), "python"),
        "measured"
    );
    let build = build_dir(&harness, "python");

    // Changed after it was built, its record left as it was.
    plant(&build, &marker, false);
    assert_eq!(
        state(&bench(dir, "python", Some(&home), dir), "python"),
        "measured"
    );
    assert!(!marker.exists(), "a changed harness ran");
    let rebuilt = build_dir(&harness, "python");
    assert!(!std::fs::read_to_string(rebuilt.join("harness.py"))
        .unwrap()
        .contains("planted-ran"));

    // Changed with a record to match, in a directory others can write.
    plant(&rebuilt, &marker, true);
    std::fs::set_permissions(&harness, std::fs::Permissions::from_mode(0o777)).unwrap();
    assert_eq!(
        state(&bench(dir, "python", Some(&home), dir), "python"),
        "measured"
    );
    assert!(!marker.exists(), "a harness in a world-writable cache ran");
    std::fs::set_permissions(&harness, std::fs::Permissions::from_mode(0o700)).unwrap();

    // The same, owned by another user.
    if !is_root() {
        hashlab_testkit::skip("a cache owned by another user (needs root to chown)");
        return;
    }
    chown_all(&home.join("hashlab"), "nobody");
    assert_eq!(
        state(&bench(dir, "python", Some(&home), dir), "python"),
        "measured"
    );
    assert!(!marker.exists(), "a harness owned by nobody ran");
}

#[test]
fn without_home_the_cache_is_the_users_own() {
    let Some(_) = peer("python3") else { return };
    let scratch = Scratch::new("runtime-cache-nohome");
    let dir = scratch.path();
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    assert_eq!(
        state(&bench(dir, "python", None, &tmp), "python"),
        "measured"
    );
    assert!(!tmp.join("hashlab").exists(), "a name every user shares");
    let own = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("hashlab-")
        })
        .expect("a cache of this user's in TMPDIR");
    let meta = std::fs::metadata(&own).unwrap();
    assert_eq!(
        meta.mode() & 0o077,
        0,
        "{} is open to others",
        own.display()
    );

    // Made first by someone else, it is not used.
    if !is_root() {
        hashlab_testkit::skip("a cache made by another user (needs root to chown)");
        return;
    }
    let marker = dir.join("planted-ran");
    plant(&build_dir(&own.join("harness"), "python"), &marker, true);
    chown_all(&own, "nobody");
    assert_eq!(
        state(&bench(dir, "python", None, &tmp), "python"),
        "measured"
    );
    assert!(!marker.exists(), "a harness in another user's cache ran");
}

#[test]
fn the_node_harness_loads_nothing_from_above_its_directory() {
    let Some(_) = peer("node") else { return };
    let scratch = Scratch::new("runtime-cache-node");
    let dir = scratch.path();
    let home = dir.join("cache");
    let marker = dir.join("planted-ran");
    for above in [home.clone(), home.join("hashlab/harness")] {
        let package = above.join("node_modules/hash-wasm");
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(
            package.join("package.json"),
            r#"{"name": "hash-wasm", "version": "0.0.1", "main": "index.js"}"#,
        )
        .unwrap();
        std::fs::write(
            package.join("index.js"),
            format!(
                "require('fs').writeFileSync({:?}, 'ran');\nmodule.exports = {{}};\n",
                marker.to_str().unwrap()
            ),
        )
        .unwrap();
    }
    assert_eq!(
        state(&bench(dir, "node", Some(&home), dir), "node"),
        "measured"
    );
    assert!(
        !marker.exists(),
        "a planted node_modules above the cache ran"
    );
}

/// `bench --runtime go` with `GOPROXY` set and an empty module cache: the
/// modules of the extra libraries cannot be fetched.
fn bench_go_offline(dir: &Path, cache: &Path, modules: &Path, proxy: &str) -> (Value, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(dir)
        .env("XDG_CACHE_HOME", cache)
        .env("GOPROXY", proxy)
        .env("GOMODCACHE", modules)
        .args(["bench", "--runtime", "go", "-a", "sha256", "--sizes", "64"])
        .args(["--quick", "--max-time", "1", "--json"])
        .output()
        .expect("run hashlab");
    let took = started.elapsed();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let go = report["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["runtime"] == "go")
        .unwrap()
        .clone();
    (go, took)
}

/// The reason given for the BLAKE3 module of the Go harness.
fn blake3_detail(go: &Value) -> String {
    go["libraries"]
        .as_array()
        .unwrap_or_else(|| panic!("no libraries: {go}"))
        .iter()
        .find(|l| l["library"] == "go lukechampine.com/blake3")
        .unwrap_or_else(|| panic!("no lukechampine.com/blake3: {go}"))["detail"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Failed on b4b9c33: a Go build that failed (no network for its modules)
/// was tried again on every run. Its cause is remembered beside the cache
/// and given at once; another proxy setting is another attempt.
#[test]
fn a_failed_build_is_remembered_not_retried_each_run() {
    if peer("go").is_none() {
        return;
    }
    let scratch = Scratch::with_files("runtime-failed", &[]);
    let cache = scratch.path().join("cache");
    let modules = scratch.path().join("modules");
    std::fs::create_dir_all(&modules).unwrap();
    let (first, _) = bench_go_offline(scratch.path(), &cache, &modules, "off");
    assert_eq!(
        first["state"], "measured",
        "the standard library's harness: {first}"
    );
    let why = blake3_detail(&first);
    assert!(why.contains("GOPROXY=off"), "{why}");
    assert!(!why.contains("remembered"), "{why}");
    let failed: Vec<_> = std::fs::read_dir(cache.join("hashlab/harness"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".failed"))
        .collect();
    assert_eq!(failed.len(), 1, "one failure remembered");
    let (second, _) = bench_go_offline(scratch.path(), &cache, &modules, "off");
    let again = blake3_detail(&second);
    assert!(again.contains("GOPROXY=off"), "{again}");
    assert!(
        again.contains("remembered from a build under a day ago"),
        "{again}"
    );
    // Another environment is another attempt, told as such.
    let (third, _) = bench_go_offline(scratch.path(), &cache, &modules, "http://127.0.0.1:9");
    let other = blake3_detail(&third);
    assert!(!other.contains("remembered"), "{other}");
    // A day later (the record's time moved back), the build is tried again.
    let record = failed[0].path();
    let old = std::time::SystemTime::now() - Duration::from_secs(25 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&record)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let (fourth, _) = bench_go_offline(scratch.path(), &cache, &modules, "off");
    assert!(!blake3_detail(&fourth).contains("remembered"));
}
