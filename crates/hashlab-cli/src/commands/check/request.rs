//! `check`'s arguments turned into what its checker is made of, once: the
//! parameters decoded, `-a`'s algorithm resolved with its key, length and
//! backend, all before any output. A manifest's own algorithms meet the
//! parameters only when it is read: [`manifest_refusal`] words those
//! refusals.

use std::fmt::Display;
use std::sync::Arc;

use hashlab::{Algorithm, Choice, HashParams, Registry};

use crate::cli::CheckArgs;
use crate::failure::Failure;
use crate::shared::args::{secret_params, usage};

pub(super) struct CheckRun {
    /// The parameters without `--length` (the checker applies it per algorithm).
    pub(super) params: HashParams,
    /// `-a`'s algorithm and its resolved choice.
    pub(super) chosen: Option<(Arc<Algorithm>, Choice)>,
}

pub(super) fn request(registry: &Registry, args: &CheckArgs) -> Result<CheckRun, Failure> {
    let params = secret_params(registry, &args.secret)?;
    let Some(name) = &args.algorithm else {
        return Ok(CheckRun {
            params,
            chosen: None,
        });
    };
    let found = registry.find(name).map_err(usage)?;
    let backend = match &args.backend {
        Some(b) => registry
            .backend(&found.algorithm().name, b)
            .map_err(usage)?,
        None => {
            registry
                .default_backend(&found.algorithm().name)
                .map_err(usage)?
                .0
        }
    };
    let with_length = HashParams {
        length: args.length,
        ..params.clone()
    };
    let choice = found
        .resolve(Some(&backend.name), &with_length)
        .map_err(usage)?;
    Ok(CheckRun {
        params,
        chosen: Some((found.algorithm().clone(), choice)),
    })
}

/// A manifest's algorithm refusing the parameters given (a key it does
/// not take, a length out of its range): a usage error naming the manifest.
pub(super) fn manifest_refusal(shown: &str, e: impl Display) -> Failure {
    Failure::Usage(format!("{shown}: {e}"))
}
