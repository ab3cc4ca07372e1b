//! One implementation of one algorithm: what it takes, whether it runs
//! here (probed once), and how it builds hashers. The registry holds these;
//! the backend modules make them.

use std::sync::{Arc, OnceLock};

use crate::dispatch::Dispatch;
use crate::{Algorithm, Config, HashError, HashParams, Hasher, KeyRule};

/// Builds a hasher from validated parameters.
pub type Constructor = Arc<dyn Fn(&Config) -> Result<Box<dyn Hasher>, HashError> + Send + Sync>;
/// Says whether a backend can run here, and if not, why.
pub type Probe = Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

/// Whether a backend can run on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendStatus {
    Available,
    Unavailable(String),
}

/// One implementation of one algorithm.
#[derive(Clone)]
pub struct Backend {
    pub algorithm: String,
    /// Short name users pass to `-b` (`openssl`, `rustcrypto`, ...).
    pub name: String,
    /// What code runs, for `list` and reports (crate or library, and how it dispatches).
    pub implementation: String,
    /// Takes a caller's key (algorithms whose key defaults to zeros always get one).
    pub supports_key: bool,
    /// Takes an output length other than the default.
    pub supports_length: bool,
    pub supports_customization: bool,
    /// Takes the parameters of [`Config`] of the same names where its
    /// algorithm has them (a salt, a seed...): one set, since a backend that
    /// implements an algorithm's parameters implements them all.
    pub supports_parameters: bool,
    /// Starts an extendable output at an offset (`Config::seek`).
    pub supports_seek: bool,
    /// Can spread one message over several threads.
    pub parallel: bool,
    /// How it picks its SIMD code on a CPU (restated from its sources; see
    /// [`crate::dispatch`]); `None` for a user's backend that says nothing.
    pub dispatch: Option<&'static Dispatch>,
    probe: Probe,
    /// The probe's answer, asked once: an OpenSSL probe is an `EVP_MD_fetch`.
    /// Shared by the clones of this entry, so by every copy of a registry.
    status: Arc<OnceLock<BackendStatus>>,
    /// The configuration and a hasher at the algorithm's default parameters,
    /// built on the first [`crate::Registry::resolve`] that asks for them, so that
    /// resolving a name again (a Python program's every `new("sha256")`)
    /// builds nothing.
    defaults: Arc<OnceLock<Result<Prototype, HashError>>>,
    constructor: Constructor,
}

/// A configuration and a hasher in its initial state, to copy from.
pub(crate) type Prototype = (Arc<Config>, Arc<std::sync::Mutex<Box<dyn Hasher>>>);

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("algorithm", &self.algorithm)
            .field("name", &self.name)
            .field("implementation", &self.implementation)
            .finish_non_exhaustive()
    }
}

impl Backend {
    /// A backend that supports neither keys, other lengths, nor customization,
    /// and is always available; widen it with the `with_*` methods.
    pub fn new(
        algorithm: &str,
        name: &str,
        implementation: &str,
        constructor: impl Fn(&Config) -> Result<Box<dyn Hasher>, HashError> + Send + Sync + 'static,
    ) -> Self {
        Backend {
            algorithm: algorithm.to_string(),
            name: name.to_string(),
            implementation: implementation.to_string(),
            supports_key: false,
            supports_length: false,
            supports_customization: false,
            supports_parameters: false,
            supports_seek: false,
            parallel: false,
            dispatch: None,
            probe: Arc::new(|| Ok(())),
            status: Arc::new(OnceLock::new()),
            defaults: Arc::new(OnceLock::new()),
            constructor: Arc::new(constructor),
        }
    }
    pub fn with_key(mut self) -> Self {
        self.supports_key = true;
        self
    }
    pub fn with_length(mut self) -> Self {
        self.supports_length = true;
        self
    }
    pub fn with_customization(mut self) -> Self {
        self.supports_customization = true;
        self
    }
    pub fn with_parameters(mut self) -> Self {
        self.supports_parameters = true;
        self
    }
    pub fn with_seek(mut self) -> Self {
        self.supports_seek = true;
        self
    }
    pub fn with_parallel(mut self) -> Self {
        self.parallel = true;
        self
    }
    pub fn with_dispatch(mut self, dispatch: &'static Dispatch) -> Self {
        self.dispatch = Some(dispatch);
        self
    }
    pub fn with_probe(
        mut self,
        probe: impl Fn() -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.probe = Arc::new(probe);
        self.status = Arc::new(OnceLock::new());
        self.defaults = Arc::new(OnceLock::new());
        self
    }

    /// Whether it can run here; probed on the first call only.
    pub fn status(&self) -> &BackendStatus {
        self.status.get_or_init(|| match (self.probe)() {
            Ok(()) => BackendStatus::Available,
            Err(reason) => BackendStatus::Unavailable(reason),
        })
    }

    pub fn is_available(&self) -> bool {
        *self.status() == BackendStatus::Available
    }

    /// Whether this backend can compute `config` for `algorithm` (key, length, customization).
    pub fn check_supports(&self, algorithm: &Algorithm, config: &Config) -> Result<(), HashError> {
        let unsupported = |what: &str| HashError::NotSupportedByBackend {
            algorithm: self.algorithm.clone(),
            backend: self.name.clone(),
            what: what.to_string(),
        };
        let keyed_by_caller =
            matches!(algorithm.key, KeyRule::Optional { .. }) && config.key.is_some();
        if keyed_by_caller && !self.supports_key {
            return Err(unsupported("keys"));
        }
        if config.output_len != algorithm.output.default_len() && !self.supports_length {
            return Err(unsupported(&format!(
                "output lengths other than {} bytes",
                algorithm.output.default_len()
            )));
        }
        if !config.customization.is_empty() && !self.supports_customization {
            return Err(unsupported("customization strings"));
        }
        if config.seek != 0 && !self.supports_seek {
            return Err(unsupported("output offsets"));
        }
        if !self.supports_parameters {
            let default_domain = algorithm.domain.map(|d| d.default);
            let given = [
                (!config.salt.is_empty(), crate::Parameter::Salt),
                (!config.personal.is_empty(), crate::Parameter::Personal),
                (config.seed != 0, crate::Parameter::Seed),
                (config.domain != default_domain, crate::Parameter::Domain),
                (config.context.is_some(), crate::Parameter::Context),
                (config.tree.is_some(), crate::Parameter::Tree),
            ];
            if let Some((_, parameter)) = given.iter().find(|(given, _)| *given) {
                return Err(unsupported(&format!("a {}", parameter.as_str())));
            }
        }
        Ok(())
    }

    /// Checks that it can run here and compute `config`, then builds a hasher.
    pub(crate) fn build(
        &self,
        algorithm: &Algorithm,
        config: &Config,
    ) -> Result<Box<dyn Hasher>, HashError> {
        if let BackendStatus::Unavailable(reason) = self.status() {
            return Err(HashError::BackendUnavailable {
                algorithm: self.algorithm.clone(),
                backend: self.name.clone(),
                reason: reason.clone(),
            });
        }
        self.check_supports(algorithm, config)?;
        self.construct(config)
    }

    /// The prototype at `algorithm`'s default parameters, built once.
    pub(crate) fn defaults(&self, algorithm: &Algorithm) -> Result<Prototype, HashError> {
        self.defaults
            .get_or_init(|| {
                let config = algorithm.resolve(&HashParams::default())?;
                let hasher = self.build(algorithm, &config)?;
                Ok((Arc::new(config), Arc::new(std::sync::Mutex::new(hasher))))
            })
            .clone()
    }

    /// Builds a hasher for a config already checked against this backend.
    pub(crate) fn construct(&self, config: &Config) -> Result<Box<dyn Hasher>, HashError> {
        let hasher = (self.constructor)(config)?;
        debug_assert_eq!(hasher.output_len(), config.output_len);
        Ok(hasher)
    }
}
