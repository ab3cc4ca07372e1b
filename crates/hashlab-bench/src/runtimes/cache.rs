//! Where harnesses are built and kept. A built harness runs as the user who
//! runs hashlab, so one is reused only when nobody else could have put it
//! there or changed it since: the cache directory and every directory
//! above it are the user's (or root's) and writable by no one else (a
//! sticky directory such as /tmp excepted, where others cannot replace what
//! is the user's), as ssh checks `~/.ssh` and git its repositories; every
//! file of the build is the user's and matches the digest recorded when it
//! was built, and nothing was added beside them. Otherwise the harness is
//! built again in a fresh private directory (`mkdtemp`, mode 0700), used
//! for this run and removed after it.
//!
//! A build that fails is remembered for a day beside the builds (its cause
//! in `.NAME-KEY.failed`, the key covering the environment a build reads
//! from: proxies and Go's module settings), so that a run without network
//! says why at once instead of trying again, and a day later, or with that
//! file removed or the environment changed, the build is tried again.

use std::io::Read;
use std::path::{Path, PathBuf};

use hashlab::{HashParams, Registry};

use super::problem::{failed, Problem};

/// A harness's directory, and the private one to remove when the run ends.
pub(super) struct BuildDir {
    pub path: PathBuf,
    pub private: Option<tempfile::TempDir>,
}

/// The record of a finished build: its key, then each file's digest.
const RECORD: &str = ".complete";
const RECORD_HEADER: &str = "hashlab-harness 2";

/// The directory of a build keyed by its inputs: reused when a trusted,
/// verified one is there, else built in a private directory (`mkdtemp`)
/// and, when the cache is trusted, renamed into place for the next run.
pub(super) fn cached(
    registry: &Registry,
    cache: &Path,
    name: &str,
    inputs: &[&str],
    make: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<BuildDir, Problem> {
    let key = fingerprint(registry, inputs);
    let dir = cache.join(format!("{name}-{key}"));
    let cache_ok = prepare_cache(cache).is_ok();
    if cache_ok && verify(registry, &dir, &key).is_ok() {
        return Ok(BuildDir {
            path: dir,
            private: None,
        });
    }
    let failure = cache.join(format!(".{name}-{}.failed", failure_key(registry, inputs)));
    if cache_ok {
        if let Some(why) = remembered_failure(&failure) {
            return Err(failed(format!(
                "{name} harness did not build: {why} (remembered from a build under a day ago; remove {} to try again now)",
                failure.display()
            )));
        }
    }
    let scratch = if cache_ok {
        tempfile::Builder::new()
            .prefix(&format!(".{name}-{key}."))
            .tempdir_in(cache)
    } else {
        tempfile::Builder::new()
            .prefix(&format!("hashlab-harness-{name}-"))
            .tempdir()
    }
    .map_err(|e| failed(format!("a private directory for the {name} harness: {e}")))?;
    if let Err(why) = make(scratch.path()).and_then(|()| record(registry, scratch.path(), &key)) {
        if cache_ok {
            remember_failure(cache, &failure, &why);
        }
        return Err(failed(format!("{name} harness did not build: {why}")));
    }
    if cache_ok {
        // A copy of ours that fails its check (left damaged, or changed)
        // makes way; another run's finished copy is checked like any other.
        if dir.exists() && verify(registry, &dir, &key).is_err() && owned_by_us(&dir) {
            let _ = std::fs::remove_dir_all(&dir);
        }
        match std::fs::rename(scratch.path(), &dir) {
            Ok(()) => {
                // Moved: nothing is left where it was built.
                let _ = scratch.keep();
                return Ok(BuildDir {
                    path: dir,
                    private: None,
                });
            }
            // Another run finished the same build first: its copy, checked.
            Err(_) if verify(registry, &dir, &key).is_ok() => {
                return Ok(BuildDir {
                    path: dir,
                    private: None,
                });
            }
            // Used from where it was built, and removed after the run.
            Err(_) => {}
        }
    }
    Ok(BuildDir {
        path: scratch.path().to_path_buf(),
        private: Some(scratch),
    })
}

/// Makes the cache directory (mode 0700) where it is missing, and checks it
/// and every directory above it.
fn prepare_cache(cache: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(cache)
            .map_err(|e| format!("{}: {e}", cache.display()))?;
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let real = std::fs::canonicalize(cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    for dir in real.ancestors() {
        safe_dir(dir)?;
    }
    Ok(())
}

#[cfg(unix)]
fn owned_by_us(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.uid() == user_id())
}

#[cfg(not(unix))]
fn owned_by_us(_: &Path) -> bool {
    true
}

/// A directory on the cache's path: the user's or root's, and writable by
/// no one else unless sticky.
#[cfg(unix)]
fn safe_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if m.uid() != user_id() && m.uid() != 0 {
        return Err(format!("{} belongs to uid {}", dir.display(), m.uid()));
    }
    if m.mode() & 0o022 != 0 && m.mode() & 0o1000 == 0 {
        return Err(format!("{} is writable by others", dir.display()));
    }
    Ok(())
}

#[cfg(not(unix))]
fn safe_dir(_: &Path) -> Result<(), String> {
    Ok(())
}

/// An entry of a build: the user's, writable by no one else, no link.
#[cfg(unix)]
fn safe_entry(path: &Path, m: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    if m.uid() != user_id() {
        return Err(format!("{} belongs to uid {}", path.display(), m.uid()));
    }
    if m.mode() & 0o022 != 0 {
        return Err(format!("{} is writable by others", path.display()));
    }
    if !m.is_dir() && !m.is_file() {
        return Err(format!(
            "{} is neither a file nor a directory",
            path.display()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn safe_entry(_: &Path, _: &std::fs::Metadata) -> Result<(), String> {
    Ok(())
}

/// How long a failed build is remembered.
const FAILURE_MEMORY: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// What a build reads from the environment besides its inputs: a change
/// of any is a new attempt.
const BUILD_ENVIRONMENT: &[&str] = &[
    "GOPROXY",
    "GONOPROXY",
    "GOPRIVATE",
    "GOSUMDB",
    "GONOSUMDB",
    "GOINSECURE",
    "GOPATH",
    "GOMODCACHE",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "ALL_PROXY",
    "all_proxy",
];

fn failure_key(registry: &Registry, inputs: &[&str]) -> String {
    let environment: Vec<String> = BUILD_ENVIRONMENT
        .iter()
        .map(|v| format!("{v}={}", std::env::var(v).unwrap_or_default()))
        .collect();
    let mut all: Vec<&str> = inputs.to_vec();
    all.extend(environment.iter().map(String::as_str));
    fingerprint(registry, &all)
}

/// The cause recorded in `path`, when it is a file of ours that no one
/// else can write, written under [`FAILURE_MEMORY`] ago.
fn remembered_failure(path: &Path) -> Option<String> {
    let m = std::fs::symlink_metadata(path).ok()?;
    safe_entry(path, &m).ok()?;
    let age = m.modified().ok()?.elapsed().ok()?;
    if !m.is_file() || age > FAILURE_MEMORY || m.len() > 64 * 1024 {
        return None;
    }
    let why = std::fs::read_to_string(path).ok()?;
    Some(why.trim_end().to_string()).filter(|w| !w.is_empty())
}

/// Writes `why` to `path` whole or not at all (a temporary file renamed).
fn remember_failure(cache: &Path, path: &Path, why: &str) {
    let Ok(mut file) = tempfile::Builder::new()
        .prefix(".failed.")
        .tempfile_in(cache)
    else {
        return;
    };
    if std::io::Write::write_all(&mut file, why.as_bytes()).is_ok() {
        let _ = file.persist(path);
    }
}

/// (relative name, sha256 hex) of every file under `dir` but the record,
/// sorted; each entry checked with [`safe_entry`] on the way.
fn contents(registry: &Registry, dir: &Path) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let m = std::fs::symlink_metadata(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        safe_entry(&d, &m)?;
        for entry in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            let m =
                std::fs::symlink_metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            safe_entry(&path, &m)?;
            if m.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(dir)
                .expect("under the directory walked")
                .to_str()
                .ok_or_else(|| format!("{}: a name that is not UTF-8", path.display()))?
                .to_string();
            if relative == RECORD {
                continue;
            }
            out.push((relative, digest_file(registry, &path)?));
        }
    }
    out.sort();
    Ok(out)
}

fn record_text(key: &str, files: &[(String, String)]) -> String {
    let mut text = format!("{RECORD_HEADER}\nkey {key}\n");
    for (name, digest) in files {
        text.push_str(&format!("{digest} {name}\n"));
    }
    text
}

/// Writes the record of a finished build in `dir`.
fn record(registry: &Registry, dir: &Path, key: &str) -> Result<(), String> {
    let files = contents(registry, dir)?;
    write(dir, RECORD, &record_text(key, &files))
}

/// Whether `dir` holds a finished build of `key`, safe to run: see the
/// module's comment.
fn verify(registry: &Registry, dir: &Path, key: &str) -> Result<(), String> {
    let record_path = dir.join(RECORD);
    let m = std::fs::symlink_metadata(&record_path)
        .map_err(|e| format!("{}: {e}", record_path.display()))?;
    safe_entry(&record_path, &m)?;
    let recorded = std::fs::read_to_string(&record_path)
        .map_err(|e| format!("{}: {e}", record_path.display()))?;
    let files = contents(registry, dir)?;
    if recorded != record_text(key, &files) {
        return Err(format!("{}: not what was built", dir.display()));
    }
    Ok(())
}

fn digest_file(registry: &Registry, path: &Path) -> Result<String, String> {
    let choice = registry
        .resolve("sha256", None, &HashParams::default())
        .expect("sha256 is always registered");
    let mut hasher = choice.hasher();
    let mut file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let mut out = vec![0u8; choice.output_len()];
    hasher.finalize_into_reset(&mut out);
    Ok(hashlab::hex::encode(&out))
}

/// A short stable name for a build's inputs (sources and toolchain).
pub(super) fn fingerprint(registry: &Registry, inputs: &[&str]) -> String {
    let choice = registry
        .resolve("sha256", None, &HashParams::default())
        .expect("sha256 is always registered");
    let mut hasher = choice.hasher();
    for input in inputs {
        hasher.update(&(input.len() as u64).to_le_bytes());
        hasher.update(input.as_bytes());
    }
    let mut out = vec![0u8; choice.output_len()];
    hasher.finalize_into_reset(&mut out);
    hashlab::hex::encode(&out[..8])
}

pub(super) fn user_id() -> u32 {
    #[cfg(unix)]
    {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() }
    }
    #[cfg(not(unix))]
    {
        0
    }
}

pub(super) fn write(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    std::fs::write(dir.join(name), text).map_err(|e| format!("{}: {e}", dir.join(name).display()))
}
