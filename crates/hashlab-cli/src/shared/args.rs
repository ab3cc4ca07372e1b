//! Flag parsing and flag naming shared by the request steps of several
//! commands: the libraries' errors name no flag, these add the one at fault.

use hashlab::{HashError, Parameter};
use hashlab_bench::limits::{MeasureError, RequestError};
use hashlab_integrity::many::MAX_JOBS;

use crate::failure::Failure;

/// Turns a parameter error into a usage error that names the option at fault
/// (the libraries name no flags).
pub fn usage(error: HashError) -> Failure {
    let option = match &error {
        HashError::KeyNotAccepted { .. } | HashError::BadKeyLength { .. } => "--key: ",
        HashError::LengthNotAccepted { .. } | HashError::LengthOutOfRange { .. } => "--length: ",
        HashError::CustomizationNotAccepted { .. } => "--custom: ",
        HashError::ParameterNotAccepted { parameter, .. }
        | HashError::ParameterLength { parameter, .. } => match parameter {
            Parameter::Salt => "--salt: ",
            Parameter::Personal => "--personal: ",
            Parameter::Seed => "--seed: ",
            Parameter::Domain => "--domain: ",
            Parameter::Context => "--derive-key: ",
            // The command line has no tree options; the Python package does.
            Parameter::Tree => "",
            Parameter::Seek => "--seek: ",
        },
        HashError::SeedOutOfRange { .. } => "--seed: ",
        HashError::DomainOutOfRange { .. } => "--domain: ",
        HashError::KeyAndContext { .. } => "--derive-key: ",
        HashError::UnknownBackend { .. } | HashError::BackendUnavailable { .. } => "--backend: ",
        HashError::NotSupportedByBackend { .. } => "--backend: ",
        _ => "",
    };
    let message = match &error {
        HashError::UnknownAlgorithm { suggestions, .. } if suggestions.is_empty() => {
            format!("{error} (see 'hashlab list')")
        }
        _ => error.to_string(),
    };
    Failure::Usage(format!("{option}{message}"))
}

/// `--jobs` past the most threads the hashing starts.
pub fn jobs_over_limit(jobs: usize) -> Failure {
    Failure::Usage(format!("--jobs: {jobs} is over the limit of {MAX_JOBS}"))
}

/// A request the library refused, as a usage error naming the option at fault.
pub fn request_error(error: RequestError) -> Failure {
    let option = match &error {
        RequestError::Misalign { .. } => "--misalign",
        RequestError::NoSizes
        | RequestError::SizeTooLarge { .. }
        | RequestError::TooManySizes { .. } => "--sizes",
        RequestError::InputsDoNotFit { .. } | RequestError::InputsOverMemory { .. } => {
            "--sizes/--threads"
        }
        RequestError::Threads { .. } => "--threads",
        RequestError::MaxTime { .. } => "--max-time",
        RequestError::Pin { .. } => "--pin",
        RequestError::UnknownBackends { .. } => "--backends",
        RequestError::RuntimesWith { .. } => "--runtime",
        // Set by this command, not by an option.
        RequestError::ClockBudget { .. } => "internal",
    };
    Failure::Usage(format!("{option}: {error}"))
}

/// What `measure` failed with, as this command reports it.
pub fn measure_error(error: MeasureError) -> Failure {
    match error {
        MeasureError::Request(e) => request_error(e),
        MeasureError::Failed(message) => Failure::Runtime(message),
    }
}
