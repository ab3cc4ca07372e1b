use std::fmt;
use std::sync::{Arc, Mutex};

use crate::{Algorithm, Backend, Config, HashError, HashParams, Hasher};

/// A resolved choice: the algorithm, the backend and the checked
/// configuration, made once by [`crate::Registry::resolve`] from a name.
///
/// Everything downstream (a `sum` worker, a benchmark cell, a Python object,
/// a quality run) carries this value and builds hashers from it with no name
/// lookup and no availability probe. Cloning it is a few reference counts.
#[derive(Clone)]
pub struct Choice {
    algorithm: Arc<Algorithm>,
    backend: Arc<Backend>,
    config: Arc<Config>,
    reason: Arc<str>,
    /// A hasher in its initial state, copied by [`Choice::hasher`]: a copy is
    /// one allocation, where building one can cost a provider lookup
    /// (OpenSSL's `EVP_MD_fetch`). Behind a mutex because hashers are `Send`
    /// but not `Sync`, and a choice is shared between threads.
    prototype: Arc<Mutex<Box<dyn Hasher>>>,
}

impl Choice {
    pub(crate) fn new(
        algorithm: Arc<Algorithm>,
        backend: Arc<Backend>,
        config: Arc<Config>,
        reason: String,
        prototype: Arc<Mutex<Box<dyn Hasher>>>,
    ) -> Choice {
        Choice {
            algorithm,
            backend,
            config,
            reason: reason.into(),
            prototype,
        }
    }

    pub fn algorithm(&self) -> &Algorithm {
        &self.algorithm
    }

    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The algorithm's canonical name.
    pub fn name(&self) -> &str {
        &self.algorithm.name
    }

    /// The backend's name.
    pub fn backend_name(&self) -> &str {
        &self.backend.name
    }

    /// Why this backend: the preference that chose it, or that the caller named it.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Output length in bytes, as configured.
    pub fn output_len(&self) -> usize {
        self.config.output_len
    }

    /// The BSD tag of this configuration (`BLAKE2b-256` for a 32-byte BLAKE2b).
    pub fn tag(&self) -> String {
        self.algorithm.tag_for_length(self.config.output_len)
    }

    /// A hasher in the initial (keyed) state.
    pub fn hasher(&self) -> Box<dyn Hasher> {
        // A poisoned lock means a panic while copying; the prototype itself is
        // never mutated, so it is still good.
        let prototype = self
            .prototype
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        prototype.box_clone()
    }

    /// The same algorithm and backend with the multi-threaded mode on or off
    /// (a backend without one ignores it).
    pub fn with_parallel(&self, parallel: bool) -> Result<Choice, HashError> {
        if self.config.parallel == parallel {
            return Ok(self.clone());
        }
        let config = Config {
            parallel,
            ..(*self.config).clone()
        };
        self.with_config(config)
    }

    /// The same algorithm and backend with other parameters (another key, as
    /// a keyed test makes one per key), checked as [`crate::Registry::resolve`]
    /// checks them, without looking anything up.
    pub fn with_params(&self, params: &HashParams) -> Result<Choice, HashError> {
        let config = self.algorithm.resolve(params)?;
        self.backend.check_supports(&self.algorithm, &config)?;
        self.with_config(config)
    }

    fn with_config(&self, config: Config) -> Result<Choice, HashError> {
        let prototype = self.backend.construct(&config)?;
        Ok(Choice {
            algorithm: Arc::clone(&self.algorithm),
            backend: Arc::clone(&self.backend),
            config: Arc::new(config),
            reason: Arc::clone(&self.reason),
            prototype: Arc::new(Mutex::new(prototype)),
        })
    }

    /// The same choice, explained differently (a caller that chose the
    /// backend by its own measure says which).
    pub fn with_reason(&self, reason: &str) -> Choice {
        Choice {
            reason: reason.into(),
            ..self.clone()
        }
    }

    /// Checks this backend against the algorithm's known answer, if it has
    /// one, at default parameters. `Ok(false)`: nothing to check.
    pub fn self_test(&self) -> Result<bool, HashError> {
        let Some((message, expected)) = &self.algorithm.self_test else {
            return Ok(false);
        };
        let mut hasher = if self.config.is_default_for(&self.algorithm) {
            self.hasher()
        } else {
            self.with_params(&HashParams::default())?.hasher()
        };
        hasher.update(message);
        let got = hasher.finalize_reset().to_hex();
        if &got != expected {
            return Err(HashError::SelfTestFailed {
                algorithm: self.algorithm.name.clone(),
                backend: self.backend.name.clone(),
                got,
                expected: expected.clone(),
            });
        }
        Ok(true)
    }
}

impl fmt::Debug for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Choice")
            .field("algorithm", &self.algorithm.name)
            .field("backend", &self.backend.name)
            .field("config", &self.config)
            .finish()
    }
}
