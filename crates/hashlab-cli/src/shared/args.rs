//! Flag parsing and flag naming shared by the request steps of several
//! commands: the libraries' errors name no flag, these add the one at fault.

use std::io;
use std::path::Path;

use hashlab::{hex, HashError, HashParams, KeyRule, Parameter, Registry};
use hashlab_bench::limits::{MeasureError, RequestError};
use hashlab_integrity::{PlanError, UpdateError, MAX_JOBS};

use crate::cli::KeyArgs;
use crate::failure::{io_message, Failure};

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

/// The longest key any algorithm of the registry takes (HMAC and KMAC: 1 MiB).
fn longest_key(registry: &Registry) -> usize {
    registry
        .algorithms()
        .iter()
        .map(|a| match a.key {
            KeyRule::None => 0,
            KeyRule::Optional { max, .. } | KeyRule::Defaulted { max, .. } => max,
        })
        .max()
        .unwrap_or(0)
}

/// Reads a key file no further than one byte past `limit`, so that a file
/// without end (`/dev/zero`, a pipe) is refused instead of read until memory
/// runs out.
fn read_key_file(path: &Path, limit: usize) -> Result<Vec<u8>, Failure> {
    let fail = |e: io::Error| {
        Failure::Usage(format!(
            "--key-file: {}: {}",
            path.display(),
            io_message(&e)
        ))
    };
    let file = std::fs::File::open(path).map_err(fail)?;
    let mut key = Vec::new();
    io::Read::read_to_end(
        &mut io::Read::take(file, (limit as u64).saturating_add(1)),
        &mut key,
    )
    .map_err(fail)?;
    if key.len() > limit {
        return Err(Failure::Usage(format!(
            "--key-file: {}: longer than {limit} bytes, the limit of the longest key any algorithm takes",
            path.display()
        )));
    }
    Ok(key)
}

/// Reads a customization string from a file, up to the longest any
/// algorithm takes.
fn read_custom_file(path: &Path) -> Result<Vec<u8>, Failure> {
    let fail = |e: io::Error| {
        Failure::Usage(format!(
            "--custom-file: {}: {}",
            path.display(),
            io_message(&e)
        ))
    };
    let file = std::fs::File::open(path).map_err(fail)?;
    let mut bytes = Vec::new();
    let limit = hashlab::XOF_MAX_OUTPUT as u64;
    io::Read::read_to_end(&mut io::Read::take(file, limit + 1), &mut bytes).map_err(fail)?;
    if bytes.len() as u64 > limit {
        return Err(Failure::Usage(format!(
            "--custom-file: {}: longer than {limit} bytes",
            path.display()
        )));
    }
    Ok(bytes)
}

/// A number as xxhsum takes a seed: decimal, or hex after `0x`.
fn parse_seed(text: &str) -> Result<u64, Failure> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse::<u64>(),
    };
    parsed.map_err(|_| {
        Failure::Usage(format!(
            "--seed: '{text}' is not a number from 0 to 2^64-1 (decimal, or hex after 0x)"
        ))
    })
}

/// A byte as `0x1F`, `1F` or `31`.
fn parse_domain(text: &str) -> Result<u8, Failure> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16),
        None => text.parse::<u8>(),
    };
    parsed.map_err(|_| {
        Failure::Usage(format!(
            "--domain: '{text}' is not a byte (0x01 to 0x7F, or decimal)"
        ))
    })
}

/// The parameters of `KeyArgs`, decoded (length and multi-threading are
/// the caller's): `sum`'s and `check`'s.
pub fn secret_params(registry: &Registry, secret: &KeyArgs) -> Result<HashParams, Failure> {
    let hex_option = |flag: &str, text: &Option<String>| {
        text.as_deref()
            .map(|t| hex::decode(t).map_err(|e| Failure::Usage(format!("{flag}: {e}"))))
            .transpose()
    };
    let key = match (&secret.key, &secret.key_file) {
        (Some(text), _) => {
            Some(hex::decode(text).map_err(|e| Failure::Usage(format!("--key: {e}")))?)
        }
        (None, Some(path)) => Some(read_key_file(path, longest_key(registry))?),
        (None, None) => None,
    };
    let customization = match (&secret.custom, &secret.custom_hex, &secret.custom_file) {
        (Some(text), _, _) => Some(text.as_bytes().to_vec()),
        (None, Some(h), _) => {
            Some(hex::decode(h).map_err(|e| Failure::Usage(format!("--custom-hex: {e}")))?)
        }
        (None, None, Some(path)) => Some(read_custom_file(path)?),
        (None, None, None) => None,
    };
    Ok(HashParams {
        key,
        customization,
        salt: hex_option("--salt", &secret.salt)?,
        personal: hex_option("--personal", &secret.personal)?,
        seed: secret.seed.as_deref().map(parse_seed).transpose()?,
        domain: secret.domain.as_deref().map(parse_domain).transpose()?,
        context: secret.derive_key.clone(),
        seek: secret.seek,
        ..HashParams::default()
    })
}

/// A plan's refusal as a usage error naming the option at fault.
pub fn refused(e: PlanError) -> Failure {
    match e {
        PlanError::Hash(e) => usage(e),
        PlanError::NoAlgorithm => Failure::Usage(format!("-a: {e}")),
        PlanError::NotAGitObjectFormat { .. } => Failure::Usage(format!("--git: {e}")),
        PlanError::NotAHashdeepColumn { .. } => Failure::Usage(format!("--format hashdeep: {e}")),
        PlanError::UnstableOutput { .. } => Failure::Usage(format!("-a: {e}")),
        PlanError::NoJobs => Failure::Usage("--jobs: must be at least 1".into()),
        PlanError::HashdeepForm => Failure::Usage(format!("--format hashdeep: {e}")),
        PlanError::RawNeedsOneColumn => Failure::Usage(format!("--raw: {e}")),
        PlanError::NotANumber { .. } => Failure::Usage(format!("--format cksum: {e}")),
        PlanError::NotSfv { .. } | PlanError::SfvForm => {
            Failure::Usage(format!("--format sfv: {e}"))
        }
        PlanError::TooManyJobs { .. } => Failure::Usage(format!("--jobs: {e}")),
    }
}

/// A refusal to update a manifest, naming it (`sum --update`, `audit --update`).
pub fn refusal(shown: &str, e: UpdateError) -> Failure {
    match e {
        e @ (UpdateError::OtherAlgorithms { .. } | UpdateError::TwoLengths { .. }) => {
            Failure::Usage(format!("{shown}: {e}"))
        }
        e => Failure::Runtime(format!("{shown}: {e}")),
    }
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
