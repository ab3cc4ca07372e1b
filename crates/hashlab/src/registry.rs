use std::sync::Arc;

use crate::algorithm::{edit_distance, squash};
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
    /// Can spread one message over several threads.
    pub parallel: bool,
    probe: Probe,
    constructor: Constructor,
}

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
            parallel: false,
            probe: Arc::new(|| Ok(())),
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
    pub fn with_parallel(mut self) -> Self {
        self.parallel = true;
        self
    }
    pub fn with_probe(
        mut self,
        probe: impl Fn() -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.probe = Arc::new(probe);
        self
    }

    pub fn status(&self) -> BackendStatus {
        match (self.probe)() {
            Ok(()) => BackendStatus::Available,
            Err(reason) => BackendStatus::Unavailable(reason),
        }
    }

    pub fn is_available(&self) -> bool {
        self.status() == BackendStatus::Available
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
        Ok(())
    }

    fn build(&self, algorithm: &Algorithm, config: &Config) -> Result<Box<dyn Hasher>, HashError> {
        if let BackendStatus::Unavailable(reason) = self.status() {
            return Err(HashError::BackendUnavailable {
                algorithm: self.algorithm.clone(),
                backend: self.name.clone(),
                reason,
            });
        }
        self.check_supports(algorithm, config)?;
        let hasher = (self.constructor)(config)?;
        debug_assert_eq!(hasher.output_len(), config.output_len);
        Ok(hasher)
    }
}

/// Every algorithm and every backend, looked up by name at run time.
#[derive(Clone)]
pub struct Registry {
    algorithms: Vec<Algorithm>,
    backends: Vec<Backend>,
}

impl Default for Registry {
    /// Every built-in algorithm and backend.
    fn default() -> Self {
        let mut registry = Registry::empty();
        for algorithm in crate::catalog::algorithms() {
            registry
                .register_algorithm(algorithm)
                .expect("built-in algorithm names are unique");
        }
        for backend in crate::backends::all() {
            registry
                .register_backend(backend)
                .expect("built-in backends name known algorithms, once each");
        }
        registry
    }
}

impl Registry {
    pub fn empty() -> Self {
        Registry {
            algorithms: Vec::new(),
            backends: Vec::new(),
        }
    }

    /// Adds an algorithm. Its name and aliases must not collide with any known name.
    pub fn register_algorithm(&mut self, algorithm: Algorithm) -> Result<(), HashError> {
        let names = std::iter::once(&algorithm.name).chain(algorithm.aliases.iter());
        for name in names {
            if self.algorithms.iter().any(|a| a.is_named(name)) {
                return Err(HashError::Duplicate {
                    what: format!("algorithm name '{name}'"),
                });
            }
        }
        self.algorithms.push(algorithm);
        Ok(())
    }

    /// Adds a backend for an already registered algorithm.
    pub fn register_backend(&mut self, mut backend: Backend) -> Result<(), HashError> {
        let canonical = self.algorithm(&backend.algorithm)?.name.clone();
        backend.algorithm = canonical;
        if self
            .backends
            .iter()
            .any(|b| b.algorithm == backend.algorithm && squash(&b.name) == squash(&backend.name))
        {
            return Err(HashError::Duplicate {
                what: format!("backend '{}' for {}", backend.name, backend.algorithm),
            });
        }
        self.backends.push(backend);
        Ok(())
    }

    pub fn algorithms(&self) -> &[Algorithm] {
        &self.algorithms
    }

    pub fn backends(&self) -> &[Backend] {
        &self.backends
    }

    /// Finds an algorithm by canonical name or alias; the error lists close matches.
    pub fn algorithm(&self, name: &str) -> Result<&Algorithm, HashError> {
        // Canonical names first: callers that build a hasher per key pass them,
        // and the separator-blind match below allocates for every name and alias.
        if let Some(a) = self.algorithms.iter().find(|a| a.name == name) {
            return Ok(a);
        }
        if let Some(a) = self.algorithms.iter().find(|a| a.is_named(name)) {
            return Ok(a);
        }
        Err(HashError::UnknownAlgorithm {
            name: name.to_string(),
            suggestions: self.suggest(name),
        })
    }

    fn suggest(&self, query: &str) -> Vec<String> {
        let q = squash(query);
        let mut scored: Vec<(usize, &str)> = self
            .algorithms
            .iter()
            .filter_map(|a| {
                let best = std::iter::once(&a.name)
                    .chain(a.aliases.iter())
                    .map(|n| {
                        let s = squash(n);
                        if !q.is_empty() && (s.starts_with(&q) || q.starts_with(&s)) {
                            0
                        } else {
                            edit_distance(&q, &s)
                        }
                    })
                    .min()?;
                let limit = (q.len() / 3).clamp(1, 3);
                (best <= limit).then_some((best, a.name.as_str()))
            })
            .collect();
        scored.sort();
        scored
            .into_iter()
            .take(6)
            .map(|(_, n)| n.to_string())
            .collect()
    }

    /// The backends of one algorithm, in registry order.
    pub fn backends_of(&self, algorithm: &str) -> Result<Vec<&Backend>, HashError> {
        let canonical = &self.algorithm(algorithm)?.name;
        Ok(self
            .backends
            .iter()
            .filter(|b| &b.algorithm == canonical)
            .collect())
    }

    pub fn backend(&self, algorithm: &str, backend: &str) -> Result<&Backend, HashError> {
        let backends = self.backends_of(algorithm)?;
        if let Some(b) = backends.iter().find(|b| b.name == backend) {
            return Ok(b);
        }
        let wanted = squash(backend);
        if let Some(b) = backends.iter().find(|b| squash(&b.name) == wanted) {
            return Ok(b);
        }
        Err(HashError::UnknownBackend {
            algorithm: self.algorithm(algorithm)?.name.clone(),
            backend: backend.to_string(),
            known: backends.iter().map(|b| b.name.clone()).collect(),
        })
    }

    /// The default backend and why: the first available entry of the algorithm's
    /// fixed preference list, else the first available backend in registry order.
    pub fn default_backend(&self, algorithm: &str) -> Result<(&Backend, String), HashError> {
        self.default_backend_on(algorithm, &crate::cpu::has)
    }

    /// The default backend on a CPU whose features are `has`: e.g. this CPU with
    /// some features masked, so that a masked benchmark measures the backend a
    /// machine without them would use.
    pub fn default_backend_on(
        &self,
        algorithm: &str,
        has: &dyn Fn(&str) -> bool,
    ) -> Result<(&Backend, String), HashError> {
        let alg = self.algorithm(algorithm)?;
        let backends = self.backends_of(&alg.name)?;
        let mut passed_over = Vec::new();
        for preference in &alg.preference {
            if preference.requires.as_deref().is_some_and(|f| !has(f)) {
                continue;
            }
            if let Some(b) = backends.iter().find(|b| b.name == preference.backend) {
                if passed_over.contains(&b.name) {
                    continue;
                }
                match b.status() {
                    BackendStatus::Available => {
                        let mut why = preference.reason.clone();
                        if !passed_over.is_empty() {
                            why = format!("{why} ({} unavailable here)", passed_over.join(", "));
                        }
                        return Ok((b, why));
                    }
                    BackendStatus::Unavailable(_) => passed_over.push(b.name.clone()),
                }
            }
        }
        backends
            .into_iter()
            .find(|b| b.is_available())
            .map(|b| (b, "the only available backend".to_string()))
            .ok_or(HashError::NoAvailableBackend {
                algorithm: alg.name.clone(),
            })
    }

    /// Builds a hasher: the named backend, or the default one when `backend` is `None`.
    pub fn hasher(
        &self,
        algorithm: &str,
        backend: Option<&str>,
        params: &HashParams,
    ) -> Result<Box<dyn Hasher>, HashError> {
        let alg = self.algorithm(algorithm)?;
        let config = alg.resolve(params)?;
        let backend = match backend {
            Some(name) => self.backend(&alg.name, name)?,
            None => self.default_backend(&alg.name)?.0,
        };
        backend.build(alg, &config)
    }

    /// Checks one backend against the algorithm's known answer (if it has one).
    /// `Ok(false)` means there was nothing to check.
    pub fn self_test(&self, algorithm: &str, backend: &str) -> Result<bool, HashError> {
        let alg = self.algorithm(algorithm)?;
        let Some((message, expected)) = &alg.self_test else {
            return Ok(false);
        };
        let mut hasher = self.hasher(&alg.name, Some(backend), &HashParams::default())?;
        hasher.update(message);
        let got = hasher.finalize_reset().to_hex();
        if &got != expected {
            return Err(HashError::SelfTestFailed {
                algorithm: alg.name.clone(),
                backend: backend.to_string(),
                got,
                expected: expected.clone(),
            });
        }
        Ok(true)
    }

    /// Builds a hasher on one exact backend from an already resolved config.
    pub fn hasher_with_config(
        &self,
        algorithm: &str,
        backend: &str,
        config: &Config,
    ) -> Result<Box<dyn Hasher>, HashError> {
        let alg = self.algorithm(algorithm)?;
        self.backend(&alg.name, backend)?.build(alg, config)
    }
}
