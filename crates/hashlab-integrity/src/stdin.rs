//! Standard input, read from descriptor 0 itself.
//!
//! std's `Stdin` takes a closed descriptor (EBADF) for an empty input, so
//! `hashlab sum <&-` printed the empty input's digest with exit 0; coreutils
//! reports "standard input: Bad file descriptor". Reading the descriptor
//! directly lets that error through.

use std::io::{self, Read};

/// Reads standard input, unbuffered; see the module documentation.
#[derive(Debug, Default, Clone, Copy)]
pub struct StandardInput;

impl Read for StandardInput {
    #[cfg(unix)]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::fd::FromRawFd;
        // SAFETY: descriptor 0 is borrowed for one read and never closed here
        // (ManuallyDrop); if it is not open, read(2) says EBADF.
        let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(0) });
        file.read(buf)
    }

    #[cfg(not(unix))]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        io::stdin().lock().read(buf)
    }
}
