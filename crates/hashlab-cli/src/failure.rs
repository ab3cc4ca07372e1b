use std::io;

/// How a command fails; decides the exit code (docs/cli.md).
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments: exit 2.
    Usage(String),
    /// Something went wrong while working: exit 1.
    Runtime(String),
    /// The reader of our output went away (`| head`): end by SIGPIPE, quietly.
    BrokenPipe,
    /// Stopped by SIGINT or SIGTERM where a handler was installed to clean
    /// up: exit 130, as a shell reports an interrupted command.
    Interrupted,
}

impl Failure {
    pub fn from_write(error: io::Error) -> Failure {
        if error.kind() == io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            // coreutils' words: "sha256sum: write error: No space left on device".
            Failure::Runtime(format!("write error: {}", io_message(&error)))
        }
    }
}

impl From<hashlab_integrity::OutputError> for Failure {
    fn from(error: hashlab_integrity::OutputError) -> Failure {
        Failure::Runtime(error.to_string())
    }
}

/// An io::Error as coreutils words it: "No such file or directory", without Rust's "(os error 2)".
pub use hashlab_integrity::io_message;
