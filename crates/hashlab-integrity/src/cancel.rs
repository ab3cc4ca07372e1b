//! Stopping a hash in the middle of a file: the caller (a signal handler, a
//! Python interpreter that saw Ctrl-C) sets a flag it shares with the work,
//! and every hashing loop looks at it between chunks. The flag travels with
//! the job, never in a global, so two runs in one process stop separately.

use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared "stop" flag. Clones share it; the default one is never set
/// unless someone holding a clone sets it.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every loop holding a clone to stop at its next chunk. Only an
    /// atomic store: safe to call from a signal-handling thread.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        // Relaxed: the flag carries no data, and a loop that sees it one
        // chunk late still stops within a fraction of a second.
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for loops that look at a plain flag (the bench
    /// runner between samples) while the hashing they call takes this.
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }

    /// `Err(Interrupted)` once cancelled: the `?` between chunks.
    pub fn check(&self) -> io::Result<()> {
        if self.is_cancelled() {
            Err(interrupted())
        } else {
            Ok(())
        }
    }
}

/// The error of work stopped by its [`Cancel`]. It travels inside an
/// `io::Error` (the type every read returns), of kind `Other` rather than
/// `Interrupted`, which means EINTR and makes `std`'s loops retry;
/// [`is_interrupted`] tells it from a real failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

pub(crate) fn interrupted() -> io::Error {
    io::Error::other(Interrupted)
}

/// Whether `error` means the work was cancelled rather than that it failed.
pub fn is_interrupted(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|e| e.is::<Interrupted>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag_and_the_error_is_recognised() {
        let cancel = Cancel::new();
        let other = cancel.clone();
        assert!(cancel.check().is_ok());
        other.cancel();
        let err = cancel.check().unwrap_err();
        assert!(is_interrupted(&err));
        assert_eq!(err.to_string(), "interrupted");
        assert!(!is_interrupted(&io::Error::other("interrupted")));
        assert!(!is_interrupted(&io::Error::from(
            io::ErrorKind::Interrupted
        )));
        assert!(!Cancel::default().is_cancelled());
    }
}
