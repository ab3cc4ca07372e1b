use std::sync::{Arc, OnceLock};

use crate::algorithm::{edit_distance, squash};
use crate::backend::{Backend, BackendStatus};
use crate::{Algorithm, Choice, Config, HashError, HashParams, Hasher};

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
    /// Per algorithm (same index), the positions of its backends in
    /// `backends`, in registry order: an algorithm's backends are found
    /// without comparing every backend's algorithm name.
    backends_by_algorithm: Vec<Vec<usize>>,
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
            backends_by_algorithm: Vec::new(),
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
        self.backends_by_algorithm.push(Vec::new());
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
        self.backends_by_algorithm[index].push(self.backends.len());
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
        Ok(self.backends_at(self.position(algorithm)?).collect())
    }

    fn backends_at(&self, index: usize) -> impl Iterator<Item = &Arc<Backend>> {
        self.backends_by_algorithm[index]
            .iter()
            .map(|&b| &self.backends[b])
    }

    pub fn backend(&self, algorithm: &str, backend: &str) -> Result<&Arc<Backend>, HashError> {
        self.backend_at(self.position(algorithm)?, backend)
    }

    fn backend_at(&self, index: usize, backend: &str) -> Result<&Arc<Backend>, HashError> {
        if let Some(b) = self.backends_at(index).find(|b| b.name == backend) {
            return Ok(b);
        }
        let wanted = squash(backend);
        if let Some(b) = self.backends_at(index).find(|b| squash(&b.name) == wanted) {
            return Ok(b);
        }
        Err(HashError::UnknownBackend {
            algorithm: self.algorithms[index].name.clone(),
            backend: backend.to_string(),
            known: self.backends_at(index).map(|b| b.name.clone()).collect(),
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
        self.default_backend_at(self.position(algorithm)?, has)
    }

    fn default_backend_at(
        &self,
        index: usize,
        has: &dyn Fn(&str) -> bool,
    ) -> Result<(&Arc<Backend>, String), HashError> {
        let alg = &self.algorithms[index];
        let mut passed_over = Vec::new();
        for preference in &alg.preference {
            if preference.requires.as_deref().is_some_and(|f| !has(f)) {
                continue;
            }
            if let Some(b) = self
                .backends_at(index)
                .find(|b| b.name == preference.backend)
            {
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
        self.backends_at(index)
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
        self.find(algorithm)?.resolve(backend, params)
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
        self.find(algorithm)?.resolve_on(backend, params, has)
    }

    /// The algorithm `name` names, found once: a caller that must look at
    /// the algorithm before resolving it (to drop a repeat, or refuse it for
    /// what it is) resolves the [`Found`] without the name being looked up again.
    pub fn find(&self, name: &str) -> Result<Found<'_>, HashError> {
        Ok(Found {
            registry: self,
            index: self.position(name)?,
        })
    }

    fn resolve_at(
        &self,
        index: usize,
        backend: Option<&str>,
        params: &HashParams,
        has: &dyn Fn(&str) -> bool,
    ) -> Result<Choice, HashError> {
        let alg = &self.algorithms[index];
        // Parameters first: a bad key or length is the caller's to fix
        // whatever the backend.
        let config = if *params == HashParams::default() {
            None
        } else {
            Some(alg.resolve(params)?)
        };
        let (backend, reason) = match backend {
            Some(name) => (
                self.backend_at(index, name)?,
                "named by the caller".to_string(),
            ),
            None => {
                let (default, reason) = self.default_backend_at(index, has)?;
                match &config {
                    // The default cannot take these parameters (a salt, a
                    // seed): the first available backend that can.
                    Some(config) if default.check_supports(alg, config).is_err() => self
                        .backends_at(index)
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
        resolutions::count();
        let index = self.position(algorithm)?;
        let alg = &self.algorithms[index];
        let config = alg.resolve(params)?;
        let backend = match backend {
            Some(name) => self.backend_at(index, name)?,
            None => self.default_backend_at(index, &crate::cpu::has)?.0,
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
        resolutions::count();
        let index = self.position(algorithm)?;
        self.backend_at(index, backend)?
            .build(&self.algorithms[index], config)
    }
}

/// An algorithm of a [`Registry`], found by [`Registry::find`] and not yet
/// resolved.
#[derive(Clone, Copy)]
pub struct Found<'r> {
    registry: &'r Registry,
    index: usize,
}

impl<'r> Found<'r> {
    pub fn algorithm(&self) -> &'r Arc<Algorithm> {
        &self.registry.algorithms[self.index]
    }

    /// [`Registry::resolve`] of this algorithm.
    pub fn resolve(&self, backend: Option<&str>, params: &HashParams) -> Result<Choice, HashError> {
        resolutions::count();
        let registry = self.registry;
        if backend.is_none() && *params == HashParams::default() {
            return registry.default_choices[self.index]
                .get_or_init(|| registry.resolve_at(self.index, None, params, &crate::cpu::has))
                .clone();
        }
        registry.resolve_at(self.index, backend, params, &crate::cpu::has)
    }

    /// [`Registry::resolve_on`] of this algorithm.
    pub fn resolve_on(
        &self,
        backend: Option<&str>,
        params: &HashParams,
        has: &dyn Fn(&str) -> bool,
    ) -> Result<Choice, HashError> {
        resolutions::count();
        self.registry.resolve_at(self.index, backend, params, has)
    }
}

/// How many names this process has turned into an implementation
/// ([`Found::resolve`] and so [`Registry::resolve`], [`Found::resolve_on`], [`Registry::hasher`],
/// [`Registry::hasher_with_config`]), counted in debug builds only, so that
/// a test can hold a run to one resolution per name where a timing could
/// only be flaky. The one piece of global state outside the SIGBUS guard
/// (docs/design.md): a count the CLI reports on request and nothing reads
/// to decide anything; release builds have neither the counter nor its cost.
#[doc(hidden)]
pub mod resolutions {
    #[cfg(debug_assertions)]
    static RESOLVED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    #[inline]
    pub(crate) fn count() {
        #[cfg(debug_assertions)]
        RESOLVED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The resolutions so far; `None` in a release build, which counts none.
    pub fn so_far() -> Option<u64> {
        #[cfg(debug_assertions)]
        return Some(RESOLVED.load(std::sync::atomic::Ordering::Relaxed));
        #[cfg(not(debug_assertions))]
        None
    }
}
