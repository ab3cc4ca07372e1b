//! Running another program with a deadline and capturing what it prints.
//!
//! Written here because the crates that wait with a timeout (wait-timeout)
//! neither drain the pipes while waiting (a chatty child would block on a full
//! pipe) nor stop the child's own children: a shell script that started a
//! `sleep` would keep our pipes open after the script itself was killed. So
//! the child leads its own process group and the whole group is killed.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished program printed.
#[derive(Debug, Clone)]
pub struct Output {
    /// `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    TimedOut(Duration),
    CannotStart(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::TimedOut(after) => write!(f, "no answer within {:.1} s", after.as_secs_f64()),
            RunError::CannotStart(why) => write!(f, "cannot start: {why}"),
        }
    }
}

/// Where to look for programs and how long to wait for each.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The PATH programs are looked up in and run with.
    pub path: OsString,
    pub timeout: Duration,
}

impl Runner {
    /// The program's full path, if `name` is on this runner's PATH.
    pub fn find(&self, name: &str) -> Option<PathBuf> {
        let cwd = std::env::current_dir().ok()?;
        which::which_in(name, Some(&self.path), cwd).ok()
    }

    /// Runs `program` with `args` and PATH set to this runner's, killing it
    /// (and everything it started) after `timeout`.
    pub fn run(
        &self,
        program: &Path,
        args: &[&OsStr],
        timeout: Duration,
    ) -> Result<Output, RunError> {
        let mut command = Command::new(program);
        command.args(args);
        self.run_command(command, timeout)
    }

    /// Runs a command the caller set up (arguments, directory, environment),
    /// with PATH set to this runner's and no input, as [`Runner::run`] does.
    pub fn run_command(&self, mut command: Command, timeout: Duration) -> Result<Output, RunError> {
        command
            .env("PATH", &self.path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| RunError::CannotStart(e.to_string()))?;
        let stdout = drain(child.stdout.take());
        let stderr = drain(child.stderr.take());
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if start.elapsed() >= timeout => break None,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => {
                    kill_group(&mut child);
                    return Err(RunError::CannotStart(e.to_string()));
                }
            }
        };
        let Some(status) = status else {
            kill_group(&mut child);
            let _ = stdout.join();
            let _ = stderr.join();
            return Err(RunError::TimedOut(timeout));
        };
        // The program is gone; anything it started may still hold the pipes.
        kill_group(&mut child);
        Ok(Output {
            code: status.code(),
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        })
    }
}

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the
        // child leads (process_group(0) above); no memory is touched.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
