use std::sync::{Arc, OnceLock};

use crate::algorithm::{edit_distance, squash};
use crate::dispatch::Dispatch;
use crate::{Algorithm, Choice, Config, HashError, HashParams, Hasher, KeyRule};

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
    /// built on the first [`Registry::resolve`] that asks for them, so that
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
    fn build(&self, algorithm: &Algorithm, config: &Config) -> Result<Box<dyn Hasher>, HashError> {
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
    fn defaults(&self, algorithm: &Algorithm) -> Result<Prototype, HashError> {
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

/// Every algorithm and every backend, looked up by name at run time.
///
/// A name is looked up once, by [`Registry::resolve`]; what comes back, a
/// [`Choice`], is what callers carry and build hashers from.
#[derive(Clone)]
pub struct Registry {
    algorithms: Vec<Arc<Algorithm>>,
    /// Canonical name to position in `algorithms`: a name a program passes
    /// per message is found without comparing it with every entry.
    by_name: std::collections::HashMap<String, usize>,
    /// Every name and alias in its matching form ([`squash`]) to the same
    /// position: `SHA3_256` is found without squashing every known name, and
    /// a registry of hundreds of backends builds in microseconds.
    by_squashed_name: std::collections::HashMap<String, usize>,
    backends: Vec<Arc<Backend>>,
    /// (algorithm position, squashed backend name) of every backend, so that
    /// a second backend of the same name is refused without a scan.
    backend_names: std::collections::HashSet<(usize, String)>,
    /// Per algorithm (same index), its choice at default parameters on its
    /// default backend, made on the first `resolve` that asks for it: a
    /// program that resolves a name per message (a Python `new("sha256")`)
    /// then copies three `Arc`s instead of choosing the backend again.
    /// Shared by clones; replaced when a backend of the algorithm is added.
    default_choices: Vec<Arc<OnceLock<Result<Choice, HashError>>>>,
}

impl Default for Registry {
    /// Every built-in algorithm, and every backend this build has (the
    /// backends behind cargo features only when their feature is on).
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
            by_name: std::collections::HashMap::new(),
            by_squashed_name: std::collections::HashMap::new(),
            backends: Vec::new(),
            backend_names: std::collections::HashSet::new(),
            default_choices: Vec::new(),
        }
    }

    /// Adds an algorithm. Its name and aliases must not collide with any known name.
    pub fn register_algorithm(&mut self, algorithm: Algorithm) -> Result<(), HashError> {
        let index = self.algorithms.len();
        let mut squashed = Vec::new();
        for name in std::iter::once(&algorithm.name).chain(algorithm.aliases.iter()) {
            let key = squash(name);
            if self.by_squashed_name.contains_key(&key) {
                return Err(HashError::Duplicate {
                    what: format!("algorithm name '{name}'"),
                });
            }
            squashed.push(key);
        }
        self.by_squashed_name
            .extend(squashed.into_iter().map(|key| (key, index)));
        self.by_name.insert(algorithm.name.clone(), index);
        self.algorithms.push(Arc::new(algorithm));
        self.default_choices.push(Arc::new(OnceLock::new()));
        Ok(())
    }

    /// Adds a backend for an already registered algorithm.
    pub fn register_backend(&mut self, mut backend: Backend) -> Result<(), HashError> {
        let index = self.position(&backend.algorithm)?;
        backend.algorithm = self.algorithms[index].name.clone();
        if !self.backend_names.insert((index, squash(&backend.name))) {
            return Err(HashError::Duplicate {
                what: format!("backend '{}' for {}", backend.name, backend.algorithm),
            });
        }
        // The default may change with the new backend.
        self.default_choices[index] = Arc::new(OnceLock::new());
        self.backends.push(Arc::new(backend));
        Ok(())
    }

    pub fn algorithms(&self) -> &[Arc<Algorithm>] {
        &self.algorithms
    }

    pub fn backends(&self) -> &[Arc<Backend>] {
        &self.backends
    }

    /// Finds an algorithm by canonical name or alias; the error lists close matches.
    pub fn algorithm(&self, name: &str) -> Result<&Arc<Algorithm>, HashError> {
        self.position(name).map(|i| &self.algorithms[i])
    }

    /// Where the algorithm `name` names (as [`Algorithm::is_named`] matches)
    /// sits in `algorithms`.
    fn position(&self, name: &str) -> Result<usize, HashError> {
        if let Some(&i) = self.by_name.get(name) {
            return Ok(i);
        }
        self.by_squashed_name
            .get(&squash(name))
            .copied()
            .ok_or_else(|| HashError::UnknownAlgorithm {
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
    pub fn backends_of(&self, algorithm: &str) -> Result<Vec<&Arc<Backend>>, HashError> {
        let canonical = &self.algorithm(algorithm)?.name;
        Ok(self
            .backends
            .iter()
            .filter(|b| &b.algorithm == canonical)
            .collect())
    }

    pub fn backend(&self, algorithm: &str, backend: &str) -> Result<&Arc<Backend>, HashError> {
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
    pub fn default_backend(&self, algorithm: &str) -> Result<(&Arc<Backend>, String), HashError> {
        self.default_backend_on(algorithm, &crate::cpu::has)
    }

    /// The default backend on a CPU whose features are `has`: e.g. this CPU with
    /// some features masked, so that a masked benchmark measures the backend a
    /// machine without them would use.
    pub fn default_backend_on(
        &self,
        algorithm: &str,
        has: &dyn Fn(&str) -> bool,
    ) -> Result<(&Arc<Backend>, String), HashError> {
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

    /// Turns a name, an optional backend and parameters into a [`Choice`]:
    /// the algorithm, the backend (the default one when `backend` is `None`)
    /// and the configuration checked against both. A hasher is built once
    /// here, so anything the backend refuses fails now, not in a worker.
    pub fn resolve(
        &self,
        algorithm: &str,
        backend: Option<&str>,
        params: &HashParams,
    ) -> Result<Choice, HashError> {
        if backend.is_none() && *params == HashParams::default() {
            let index = self.position(algorithm)?;
            return self.default_choices[index]
                .get_or_init(|| self.resolve_on(algorithm, None, params, &crate::cpu::has))
                .clone();
        }
        self.resolve_on(algorithm, backend, params, &crate::cpu::has)
    }

    /// [`Registry::resolve`] on a CPU whose features are `has` (see
    /// [`Registry::default_backend_on`]).
    pub fn resolve_on(
        &self,
        algorithm: &str,
        backend: Option<&str>,
        params: &HashParams,
        has: &dyn Fn(&str) -> bool,
    ) -> Result<Choice, HashError> {
        let alg = self.algorithm(algorithm)?;
        // Parameters first: a bad key or length is the caller's to fix
        // whatever the backend.
        let config = if *params == HashParams::default() {
            None
        } else {
            Some(alg.resolve(params)?)
        };
        let (backend, reason) = match backend {
            Some(name) => (
                self.backend(&alg.name, name)?,
                "named by the caller".to_string(),
            ),
            None => {
                let (default, reason) = self.default_backend_on(&alg.name, has)?;
                match &config {
                    // The default cannot take these parameters (a salt, a
                    // seed): the first available backend that can.
                    Some(config) if default.check_supports(alg, config).is_err() => self
                        .backends_of(&alg.name)?
                        .into_iter()
                        .find(|b| b.is_available() && b.check_supports(alg, config).is_ok())
                        .map(|b| {
                            let why = format!(
                                "the first that takes these parameters ({} does not)",
                                default.name
                            );
                            (b, why)
                        })
                        .unwrap_or((default, reason)),
                    _ => (default, reason),
                }
            }
        };
        let (config, prototype) = match config {
            None => backend.defaults(alg)?,
            Some(config) => {
                let hasher = backend.build(alg, &config)?;
                (Arc::new(config), Arc::new(std::sync::Mutex::new(hasher)))
            }
        };
        Ok(Choice::new(
            Arc::clone(alg),
            Arc::clone(backend),
            config,
            reason,
            prototype,
        ))
    }

    /// Builds a hasher: the named backend, or the default one when `backend`
    /// is `None`. One call, one lookup; a caller that builds many hashers
    /// resolves once and keeps the [`Choice`].
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
        self.resolve(algorithm, Some(backend), &HashParams::default())?
            .self_test()
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
