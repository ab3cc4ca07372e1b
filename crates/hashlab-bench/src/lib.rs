//! The measurement engine: what machine a measurement ran on and how fast its
//! cores were clocked. Prints nothing and keeps no global state; reading the
//! machine's description happens only when a caller asks for it.

pub mod clock;
pub mod environment;
