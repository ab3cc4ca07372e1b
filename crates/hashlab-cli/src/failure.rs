use std::io;

/// How a command fails; decides the exit code (docs/cli.md).
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments: exit 2.
    Usage(String),
    /// Something went wrong while working: exit 1.
    Runtime(String),
    /// The reader of our output went away (`| head`): stop quietly.
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
            Failure::Runtime(format!("writing output: {}", io_message(&error)))
        }
    }
}

/// An io::Error as coreutils words it: "No such file or directory", without Rust's "(os error 2)".
pub fn io_message(error: &io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}
