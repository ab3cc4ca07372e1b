//! What the test files share: running the binary in a directory, reading
//! its output, and finding the peer tools its output is compared with.
// Each test file uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A directory of one test's own under the system's temporary directory,
/// removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// An empty one; `name` keeps a test binary's tests apart (the process
    /// id keeps binaries apart).
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("hashlab-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// One holding these files (names relative to it; parent directories made).
    pub fn with_files(name: &str, files: &[(&str, &[u8])]) -> Scratch {
        let scratch = Scratch::new(name);
        for (file, content) in files {
            scratch.write(file, content);
        }
        scratch
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, name: &str, content: &[u8]) {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, content).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the `hashlab` binary under test in `dir`.
pub fn hashlab_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hashlab"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run hashlab")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A peer tool (coreutils, rhash, b3sum, openssl...) when it is installed.
/// Where it is not, says so and returns None; under CI (`HASHLAB_CI`), where
/// scripts/setup has installed every peer, fails instead.
pub fn peer(tool: &str) -> Option<Command> {
    // `openssl` answers `version`, the others `--version`.
    let answers = |arg: &str| {
        Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if answers("--version") || answers("version") {
        return Some(Command::new(tool));
    }
    let reason = format!("{tool} is not installed (scripts/setup installs it)");
    hashlab_testkit::skip(&format!("a peer tool is missing: {reason}"));
    None
}

/// A test server that one of `scripts/` installs and starts on 127.0.0.1
/// (`SCRIPT build`, then `SCRIPT serve`, which prints `export NAME=VALUE`
/// lines, then `# serving`, then runs in the foreground); killed when dropped.
pub struct LocalServer {
    child: std::process::Child,
    /// Held open: the server may write to it, and a closed pipe would kill it.
    _stdout: std::io::BufReader<std::process::ChildStdout>,
    exports: Vec<(String, String)>,
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl LocalServer {
    /// Installs and starts the server of `scripts/NAME`; `None`, after
    /// saying so, where the script exits 3 (its toolchain is missing) and
    /// HASHLAB_CI is not set (with it, that fails the test).
    pub fn start(name: &str) -> Option<LocalServer> {
        use std::io::BufRead;
        use std::process::Stdio;
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../scripts")
            .join(name);
        let build = Command::new("bash")
            .arg(&script)
            .arg("build")
            .stderr(Stdio::piped())
            .output()
            .expect("bash runs the script");
        if build.status.code() == Some(3) {
            let why = String::from_utf8_lossy(&build.stderr);
            hashlab_testkit::skip(&format!(
                "scripts/{name} cannot install its server: {}",
                why.trim()
            ));
            return None;
        }
        assert!(
            build.status.success(),
            "scripts/{name} build failed: {}",
            String::from_utf8_lossy(&build.stderr)
        );
        let mut child = Command::new("bash")
            .arg(&script)
            .arg("serve")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut exports = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "scripts/{name}: the server ended"
            );
            if let Some((key, value)) = line
                .trim()
                .strip_prefix("export ")
                .and_then(|l| l.split_once('='))
            {
                exports.push((key.to_string(), value.trim_matches('\'').to_string()));
            }
            if line.starts_with("# serving") {
                break;
            }
        }
        Some(LocalServer {
            child,
            _stdout: stdout,
            exports,
        })
    }

    /// The value of an `export` line the server printed.
    pub fn export(&self, name: &str) -> &str {
        self.exports
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("the server printed no {name}"))
    }

    /// Waits until `address` (host:port) takes connections.
    pub fn wait_for(&self, address: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::net::TcpStream::connect(address).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "{address} took no connection in 30 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// A directory `bin` in `s` of links named after `tools`, each to the
/// binary under test (which answers as the tool its name gives).
pub fn tool_links(s: &Scratch, tools: &[&str]) -> PathBuf {
    let dir = s.path().join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    for tool in tools {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hashlab"), dir.join(tool)).unwrap();
    }
    dir
}

/// Runs `program` in `dir` with `stdin` on its standard input, in the C
/// locale with UTF-8 (the messages compared are the tools' own words).
pub fn run_piped(program: &Path, dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(program)
        .current_dir(dir)
        .args(args)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = stdin.to_vec();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Limits the address space of the child `command` starts to `bytes`
/// (RLIMIT_AS), so that a run that would allocate without bound fails fast
/// and harmlessly on a shared machine.
pub fn limit_address_space(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
