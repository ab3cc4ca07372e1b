//! The standard streams, with every failure seen and none fatal.
//!
//! std's `println!` and `eprintln!` panic when a write fails (and the release
//! build aborts on a panic), and std's `Stdout` and `Stdin` take a closed
//! descriptor (EBADF) for success and for an empty input. So: output goes to
//! descriptor 1 itself and every failure is an error (`hashlab sum f >&-`
//! exits 1 as coreutils does); messages go to standard error and a failure to
//! write them is ignored (the message is lost, the work and its exit code are
//! not); a reader that went away ends the command by SIGPIPE, as it ends
//! coreutils, so `set -o pipefail` still sees the failure.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::failure::Failure;

/// A message line on standard error, never failing: `errln!("hashlab: {x}")`.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::stdio::write_err(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// The name messages go under when hashlab runs as another tool (a link
/// named `sha256sum`): set once, before any message, by `multicall`.
static PROGRAM: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Messages from now on name `program` where they name hashlab.
pub fn set_program(program: &'static str) {
    let _ = PROGRAM.set(program);
}

/// Whose words the program's messages are in: a file it cannot read, and
/// what `check` says beyond its OK and FAILED lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileErrors {
    /// `PROGRAM: NAME: MESSAGE`, in coreutils' words (hashlab's own).
    Coreutils,
    /// Rust's words with the OS error number, as b3sum prints them.
    Rust,
    /// xxhsum's `Error: Could not open 'NAME': MESSAGE. `.
    Xxhsum,
}

static FILE_ERRORS: std::sync::OnceLock<FileErrors> = std::sync::OnceLock::new();

/// File errors from now on are worded as `style` says.
pub fn set_file_errors(style: FileErrors) {
    let _ = FILE_ERRORS.set(style);
}

/// Whose words messages are in.
pub fn file_errors() -> FileErrors {
    FILE_ERRORS.get().copied().unwrap_or(FileErrors::Coreutils)
}

static STDIN_LABEL: std::sync::OnceLock<&'static [u8]> = std::sync::OnceLock::new();

/// Lines name standard input `label` from now on (xxhsum's `stdin`).
pub fn set_stdin_label(label: &'static [u8]) {
    let _ = STDIN_LABEL.set(label);
}

/// The name lines give standard input: `-` unless the program says otherwise.
pub fn stdin_label() -> &'static [u8] {
    STDIN_LABEL.get().copied().unwrap_or(b"-")
}

/// The message for the file shown as `shown` that could not be read, with
/// its newline.
pub fn file_error(shown: &str, error: &io::Error) -> String {
    let words = hashlab_integrity::io_message(error);
    match file_errors() {
        FileErrors::Coreutils => format!("hashlab: {shown}: {words}\n"),
        FileErrors::Rust => format!("hashlab: {shown}: {error}\n"),
        FileErrors::Xxhsum if error.raw_os_error() == Some(21) => {
            format!("hashlab: {shown}: {words} \n")
        }
        FileErrors::Xxhsum => format!("Error: Could not open '{shown}': {words}. \n"),
    }
}

/// Writes `text` to standard error in one piece; a failure is ignored.
pub fn write_err(text: &str) {
    let text = match PROGRAM.get() {
        // Each line's `hashlab: ` is the program's name, as the tool's messages have it.
        Some(program) => text
            .split_inclusive('\n')
            .map(|line| match line.strip_prefix("hashlab: ") {
                Some(rest) => format!("{program}: {rest}"),
                None => line.to_string(),
            })
            .collect(),
        None => text.to_string(),
    };
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Descriptor 1, unbuffered, with its errors as they are.
pub struct Stdout;

impl Write for Stdout {
    #[cfg(unix)]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        use std::os::fd::FromRawFd;
        // SAFETY: descriptor 1 is borrowed for one write and never closed here
        // (ManuallyDrop); if it is not open for writing, write(2) says EBADF.
        let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) });
        file.write(buf)
    }

    #[cfg(not(unix))]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().lock().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes all of `bytes` to standard output.
pub fn write_out(bytes: &[u8]) -> Result<(), Failure> {
    Stdout.write_all(bytes).map_err(Failure::from_write)
}

/// Output of many lines (`sum`, `check`), buffered to suit where it goes: a
/// terminal gets each line at once; a pipe gets lines in batches of at most
/// 4 KiB, and at once when the last batch left 20 ms ago or more (slow files:
/// every line), so that a reader that stops (`| head -1`) is noticed within
/// milliseconds instead of after 64 KiB of lines, hundreds of files hashed
/// for nobody; a file or device gets 64 KiB writes. A line per write to a
/// pipe would cost a system call and a wake-up of the reader per file. A line
/// can still wait in a batch while the next file is read, when that file
/// follows within 20 ms of the last batch.
pub struct LineOutput {
    out: BufWriter<Stdout>,
    batch: Batch,
    last_flush: Instant,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Batch {
    EachLine,
    /// Flushed at `PIPE_BATCH` bytes, or at the first line after `PIPE_WAIT`.
    Pipe,
    Whole,
}

/// A pipe's atomic write size: the reader gets whole batches of lines.
const PIPE_BATCH: usize = 4096;
/// Lines wait no longer than this once another line comes (slow files).
const PIPE_WAIT: Duration = Duration::from_millis(20);

impl Default for LineOutput {
    fn default() -> LineOutput {
        LineOutput::new()
    }
}

impl LineOutput {
    pub fn new() -> LineOutput {
        let batch = if io::stdout().is_terminal() {
            Batch::EachLine
        } else if stdout_is_pipe() {
            Batch::Pipe
        } else {
            Batch::Whole
        };
        let now = Instant::now();
        LineOutput {
            out: BufWriter::with_capacity(64 * 1024, Stdout),
            batch,
            // The first line goes out at once (`| head -1` is answered).
            last_flush: now.checked_sub(PIPE_WAIT).unwrap_or(now),
        }
    }

    pub fn write_line(&mut self, line: &[u8]) -> Result<(), Failure> {
        self.out.write_all(line).map_err(Failure::from_write)?;
        let due = match self.batch {
            Batch::EachLine => true,
            Batch::Pipe => {
                self.out.buffer().len() >= PIPE_BATCH || self.last_flush.elapsed() >= PIPE_WAIT
            }
            Batch::Whole => false,
        };
        if due {
            self.flush()?;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> Result<(), Failure> {
        self.last_flush = Instant::now();
        self.out.flush().map_err(Failure::from_write)
    }
}

/// Whether descriptor 1 is a pipe or a socket (a reader that can go away).
fn stdout_is_pipe() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::FromRawFd;
        use std::os::unix::fs::FileTypeExt;
        // SAFETY: borrowed for one fstat, never closed (ManuallyDrop).
        let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(1) });
        file.metadata()
            .is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket())
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// A closed descriptor 0, 1 or 2 gets /dev/null, opened so that using it
/// still fails with EBADF (read-only for output, write-only for input), as
/// coreutils reports a closed descriptor. Otherwise the next file we open
/// would take its number, and our output (or an error message) would go
/// into it: into a manifest being written, say. Runs before `main` where a
/// constructor can (above); `main` calls it too, for the other systems.
pub fn guard_standard_descriptors() {
    #[cfg(unix)]
    for fd in 0..=2 {
        // SAFETY: fcntl(F_GETFD) only asks about the descriptor.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        if !closed {
            continue;
        }
        let flags = if fd == 0 {
            libc::O_WRONLY
        } else {
            libc::O_RDONLY
        };
        // SAFETY: a NUL-terminated literal. open(2) returns the lowest free
        // number, which is `fd`: the lower ones are open by now.
        let opened = unsafe { libc::open(c"/dev/null".as_ptr(), flags) };
        if opened >= 0 && opened != fd {
            // SAFETY: both descriptors are ours.
            unsafe {
                libc::dup2(opened, fd);
                libc::close(opened);
            }
        }
    }
}

/// Ends the process as the default SIGPIPE action would: the shell sees 141
/// (128 + 13), as for coreutils writing into a closed pipe. Call it only with
/// nothing left to clean up (temporary files are gone by then).
pub fn die_of_broken_pipe() -> ! {
    #[cfg(unix)]
    // SAFETY: restoring the default action and raising a signal touch no
    // memory of ours; SIGPIPE is unblocked first in case it was inherited blocked.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(libc::SIGPIPE);
    }
    std::process::exit(128 + 13)
}

/// clap's help and version, written and checked like any output (clap's own
/// printing ignores a failed write and exits 0); its errors go to stderr, exit 2.
pub fn clap_failure(error: clap::Error) -> Result<std::process::ExitCode, Failure> {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let styled = error.render();
            let text = if colour_on_stdout() {
                styled.ansi().to_string()
            } else {
                styled.to_string()
            };
            write_out(text.as_bytes())?;
            Ok(std::process::ExitCode::SUCCESS)
        }
        _ => {
            let _ = error.print();
            Ok(std::process::ExitCode::from(2))
        }
    }
}

/// Whether help on standard output gets colour: as clap decides it (a
/// terminal, `NO_COLOR` unset, `CLICOLOR_FORCE` to force it).
fn colour_on_stdout() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if set("CLICOLOR_FORCE") {
        return true;
    }
    io::stdout().is_terminal()
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
        && std::env::var_os("CLICOLOR").is_none_or(|v| v != "0")
}

/// The command line as it was typed, for the records reports keep; lossy,
/// since `env::args()` panics on an argument that is not UTF-8 (a path may be).
pub fn command_line() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}
