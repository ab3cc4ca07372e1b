use std::fmt;

/// A parameter besides the key, length and customization string, named in
/// errors so that a caller can say which of its own options it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Parameter {
    Salt,
    Personal,
    Seed,
    Domain,
    Context,
    Tree,
    Seek,
}

impl Parameter {
    pub fn as_str(self) -> &'static str {
        match self {
            Parameter::Salt => "salt",
            Parameter::Personal => "personalization",
            Parameter::Seed => "seed",
            Parameter::Domain => "domain byte",
            Parameter::Context => "key-derivation context",
            Parameter::Tree => "tree parameters",
            Parameter::Seek => "output offset",
        }
    }
}

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
    ParameterNotAccepted {
        algorithm: String,
        parameter: Parameter,
    },
    ParameterLength {
        algorithm: String,
        parameter: Parameter,
        got: usize,
        min: usize,
        max: usize,
    },
    SeedOutOfRange {
        algorithm: String,
        bits: u32,
    },
    DomainOutOfRange {
        algorithm: String,
        got: u8,
        min: u8,
        max: u8,
    },
    /// A tree parameter outside what the algorithm's parameter block holds.
    TreeOutOfRange {
        algorithm: String,
        what: String,
    },
    /// A key and a key-derivation context are two different modes.
    KeyAndContext {
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
                    Ok(())
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
            HashError::ParameterNotAccepted {
                algorithm,
                parameter,
            } => write!(f, "{algorithm} takes no {}", parameter.as_str()),
            HashError::ParameterLength {
                algorithm,
                parameter,
                got,
                min,
                max,
            } => {
                let range = if min == max {
                    format!("exactly {min}")
                } else {
                    format!("{min} to {max}")
                };
                write!(
                    f,
                    "{algorithm}'s {} must be {range} bytes, not {got}",
                    parameter.as_str()
                )
            }
            HashError::SeedOutOfRange { algorithm, bits } => {
                write!(f, "{algorithm} takes {bits}-bit seeds")
            }
            HashError::DomainOutOfRange {
                algorithm,
                got,
                min,
                max,
            } => write!(
                f,
                "{algorithm}'s domain byte must be 0x{min:02X} to 0x{max:02X}, not 0x{got:02X}"
            ),
            HashError::TreeOutOfRange { algorithm, what } => {
                write!(f, "{algorithm}'s tree parameters: {what}")
            }
            HashError::KeyAndContext { algorithm } => write!(
                f,
                "{algorithm} takes a key or a key-derivation context, not both"
            ),
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
