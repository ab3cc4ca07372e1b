//! One running harness: a program in another runtime that hashes when told
//! to, speaking the line protocol of `harness/PROTOCOL.md` over its stdin and
//! stdout. Every answer is awaited with a deadline; a harness that misses it
//! is killed, so a hung runtime costs one deadline, never the run.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// How to start a harness.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
}

/// What a harness said it offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// `algorithm` computed by `library` (the backend label, e.g. `go crypto/sha256`).
    Offered { algorithm: String, library: String },
    /// A library the harness knows but could not load here, and why.
    Absent { library: String, reason: String },
}

/// Why talking to a harness failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HarnessError {
    /// It did not answer within the deadline (it has been killed).
    TimedOut { request: String, after: Duration },
    /// It exited, or closed its output.
    Exited { request: String, stderr: String },
    /// It answered `error\t...`.
    Refused { request: String, message: String },
    /// It answered something the protocol does not allow.
    Garbled { request: String, answer: String },
    /// It could not be started.
    Spawn(String),
}

impl std::fmt::Display for HarnessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HarnessError::TimedOut { request, after } => write!(
                f,
                "no answer to '{request}' within {} s: the harness was killed",
                after.as_secs_f64()
            ),
            HarnessError::Exited { request, stderr } if stderr.is_empty() => {
                write!(f, "the harness exited before answering '{request}'")
            }
            HarnessError::Exited { request, stderr } => write!(
                f,
                "the harness exited before answering '{request}': {stderr}"
            ),
            HarnessError::Refused { request, message } => {
                write!(f, "'{request}' refused: {message}")
            }
            HarnessError::Garbled { request, answer } => {
                write!(f, "unreadable answer to '{request}': '{answer}'")
            }
            HarnessError::Spawn(why) => write!(f, "cannot start the harness: {why}"),
        }
    }
}

impl std::error::Error for HarnessError {}

/// A started harness. Dropping it ends the process.
pub struct Harness {
    child: Child,
    input: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    stderr: Receiver<String>,
    deadline: Duration,
    dead: bool,
}

/// The bytes of a `prepare`d message, as every harness makes them.
pub fn message_byte(i: usize) -> u8 {
    (i.wrapping_mul(7).wrapping_add(1) & 0xff) as u8
}

impl Harness {
    /// Starts the program; nothing is asked yet. `deadline` bounds every answer.
    pub fn start(launch: &Launch, deadline: Duration) -> Result<Harness, HarnessError> {
        let mut command = Command::new(&launch.program);
        command
            .args(&launch.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &launch.env {
            command.env(k, v);
        }
        let mut child = command
            .spawn()
            .map_err(|e| HarnessError::Spawn(format!("{}: {e}", launch.program.display())))?;
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr = child.stderr.take().expect("stderr was piped");
        // Reader threads, so an answer can be awaited with a deadline.
        let (line_tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        let trimmed = line.trim_end_matches(['\n', '\r']).to_string();
                        if line_tx.send(Ok(trimmed)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = line_tx.send(Err(e));
                        break;
                    }
                }
            }
        });
        let (err_tx, stderr_lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                match line {
                    Ok(l) => {
                        if err_tx.send(l).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        Ok(Harness {
            input: child.stdin.take(),
            child,
            lines,
            stderr: stderr_lines,
            deadline,
            dead: false,
        })
    }

    /// Changes the deadline for the answers that follow.
    pub fn set_deadline(&mut self, deadline: Duration) {
        self.deadline = deadline;
    }

    fn stderr_tail(&self) -> String {
        // Give the stderr reader a moment to collect what the dying process wrote.
        std::thread::sleep(Duration::from_millis(20));
        let lines: Vec<String> = self.stderr.try_iter().collect();
        let start = lines.len().saturating_sub(3);
        lines[start..].join(" / ").chars().take(400).collect()
    }

    fn kill(&mut self) {
        self.dead = true;
        self.input = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn send(&mut self, request: &str) -> Result<(), HarnessError> {
        let shown = shown(request);
        if self.dead {
            return Err(HarnessError::Exited {
                request: shown,
                stderr: String::new(),
            });
        }
        let written = match self.input.as_mut() {
            Some(input) => input
                .write_all(request.as_bytes())
                .and_then(|_| input.write_all(b"\n"))
                .and_then(|_| input.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        written.map_err(|_| {
            let stderr = self.stderr_tail();
            self.kill();
            HarnessError::Exited {
                request: shown,
                stderr,
            }
        })
    }

    fn receive(&mut self, request: &str) -> Result<String, HarnessError> {
        match self.lines.recv_timeout(self.deadline) {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                let stderr = self.stderr_tail();
                self.kill();
                Err(HarnessError::Exited {
                    request: shown(request),
                    stderr,
                })
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(HarnessError::TimedOut {
                    request: shown(request),
                    after: self.deadline,
                })
            }
        }
    }

    /// Sends one request and returns the fields of its one-line answer,
    /// which must start with `expect`.
    fn ask(&mut self, request: &str, expect: &str) -> Result<Vec<String>, HarnessError> {
        self.send(request)?;
        let answer = self.receive(request)?;
        let mut fields: Vec<String> = answer.split('\t').map(str::to_string).collect();
        match fields.first().map(String::as_str) {
            Some(first) if first == expect => Ok(fields.split_off(1)),
            Some("error") => Err(HarnessError::Refused {
                request: shown(request),
                message: fields[1..].join(" "),
            }),
            _ => Err(HarnessError::Garbled {
                request: shown(request),
                answer: answer.chars().take(200).collect(),
            }),
        }
    }

    /// The runtime's own version line.
    pub fn hello(&mut self) -> Result<String, HarnessError> {
        Ok(self.ask("hello", "hello")?.join(" "))
    }

    /// What it offers, and the libraries it knows but lacks.
    pub fn offers(&mut self) -> Result<Vec<Offer>, HarnessError> {
        self.send("offers")?;
        let mut offers = Vec::new();
        loop {
            let line = self.receive("offers")?;
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
                ["end"] => return Ok(offers),
                ["offer", algorithm, library] => offers.push(Offer::Offered {
                    algorithm: algorithm.to_string(),
                    library: library.to_string(),
                }),
                ["absent", library, reason @ ..] => offers.push(Offer::Absent {
                    library: library.to_string(),
                    reason: reason.join(" "),
                }),
                _ => {
                    return Err(HarnessError::Garbled {
                        request: "offers".into(),
                        answer: line.chars().take(200).collect(),
                    })
                }
            }
        }
    }

    /// The digest `library` computes of `input`.
    pub fn digest(
        &mut self,
        algorithm: &str,
        library: &str,
        input: &[u8],
    ) -> Result<Vec<u8>, HarnessError> {
        let request = format!(
            "digest\t{algorithm}\t{library}\t{}",
            hashlab::hex::encode(input)
        );
        let fields = self.ask(&request, "digest")?;
        let hex = fields.first().map(String::as_str).unwrap_or("");
        hashlab::hex::decode(hex).map_err(|_| HarnessError::Garbled {
            request: shown(&request),
            answer: hex.chars().take(200).collect(),
        })
    }

    /// Readies cell `cell`: `library`'s `algorithm` over a message of `size` bytes.
    pub fn prepare(
        &mut self,
        cell: usize,
        algorithm: &str,
        library: &str,
        size: usize,
    ) -> Result<(), HarnessError> {
        self.ask(
            &format!("prepare\t{cell}\t{algorithm}\t{library}\t{size}"),
            "ok",
        )
        .map(|_| ())
    }

    /// Hashes cell `cell`'s message `batch` times; the harness's own clock.
    pub fn time(&mut self, cell: usize, batch: u64) -> Result<Duration, HarnessError> {
        let request = format!("time\t{cell}\t{batch}");
        let fields = self.ask(&request, "ns")?;
        fields
            .first()
            .and_then(|ns| ns.parse::<u64>().ok())
            .map(Duration::from_nanos)
            .ok_or_else(|| HarnessError::Garbled {
                request,
                answer: fields.join("\t"),
            })
    }
}

/// A request as an error names it: a digest's input is cut short.
fn shown(request: &str) -> String {
    let one_line = request.replace('\t', " ");
    if one_line.chars().count() > 80 {
        format!("{}...", one_line.chars().take(77).collect::<String>())
    } else {
        one_line
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if !self.dead {
            // Closing stdin asks it to exit; a harness that lingers is killed.
            self.input = None;
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
