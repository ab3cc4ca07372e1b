use std::fmt;

/// Everything that can go wrong when an algorithm, backend or parameter is chosen.
/// Messages are one line and name the offending value, so a CLI can print them as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HashError {
    UnknownAlgorithm {
        name: String,
        suggestions: Vec<String>,
    },
    UnknownBackend {
        algorithm: String,
        backend: String,
        known: Vec<String>,
    },
    BackendUnavailable {
        algorithm: String,
        backend: String,
        reason: String,
    },
    NoAvailableBackend {
        algorithm: String,
    },
    KeyNotAccepted {
        algorithm: String,
    },
    BadKeyLength {
        algorithm: String,
        got: usize,
        expected: String,
    },
    LengthNotAccepted {
        algorithm: String,
        fixed: usize,
    },
    LengthOutOfRange {
        algorithm: String,
        got: usize,
        min: usize,
        max: usize,
    },
    CustomizationNotAccepted {
        algorithm: String,
    },
    NotSupportedByBackend {
        algorithm: String,
        backend: String,
        what: String,
    },
    Duplicate {
        what: String,
    },
    SelfTestFailed {
        algorithm: String,
        backend: String,
        got: String,
        expected: String,
    },
    Backend {
        algorithm: String,
        backend: String,
        message: String,
    },
}

impl fmt::Display for HashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HashError::UnknownAlgorithm { name, suggestions } => {
                write!(f, "unknown algorithm '{name}'")?;
                if suggestions.is_empty() {
                    write!(f, " (see 'hashlab list')")
                } else {
                    write!(f, "; did you mean: {}?", suggestions.join(", "))
                }
            }
            HashError::UnknownBackend {
                algorithm,
                backend,
                known,
            } => write!(
                f,
                "unknown backend '{backend}' for {algorithm}; its backends are: {}",
                known.join(", ")
            ),
            HashError::BackendUnavailable {
                algorithm,
                backend,
                reason,
            } => write!(
                f,
                "backend '{backend}' for {algorithm} is unavailable: {reason}"
            ),
            HashError::NoAvailableBackend { algorithm } => {
                write!(f, "no backend for {algorithm} is available on this machine")
            }
            HashError::KeyNotAccepted { algorithm } => {
                write!(f, "{algorithm} takes no key")
            }
            HashError::BadKeyLength {
                algorithm,
                got,
                expected,
            } => write!(
                f,
                "{algorithm} key must be {expected}, got {got} byte{}",
                if *got == 1 { "" } else { "s" }
            ),
            HashError::LengthNotAccepted { algorithm, fixed } => write!(
                f,
                "{algorithm} has a fixed output of {fixed} bytes; no other length is accepted"
            ),
            HashError::LengthOutOfRange {
                algorithm,
                got,
                min,
                max,
            } => write!(
                f,
                "{algorithm} output length must be {min}..={max} bytes, got {got}"
            ),
            HashError::CustomizationNotAccepted { algorithm } => {
                write!(f, "{algorithm} takes no customization string")
            }
            HashError::NotSupportedByBackend {
                algorithm,
                backend,
                what,
            } => write!(
                f,
                "backend '{backend}' for {algorithm} does not support {what}"
            ),
            HashError::Duplicate { what } => write!(f, "{what} is already registered"),
            HashError::SelfTestFailed {
                algorithm,
                backend,
                got,
                expected,
            } => write!(
                f,
                "{algorithm} on backend '{backend}' fails its known-answer test: got {got}, expected {expected}"
            ),
            HashError::Backend {
                algorithm,
                backend,
                message,
            } => write!(f, "{algorithm} ({backend}): {message}"),
        }
    }
}

impl std::error::Error for HashError {}
