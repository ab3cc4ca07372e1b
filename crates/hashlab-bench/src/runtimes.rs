//! Speed in the user's own language: each runtime's harness (sources embedded
//! here, written to a cache directory, built there when the runtime compiles)
//! is started, asked what it offers, held to hashlab's own digests, and then
//! timed by the same runner as the Rust backends (see `harness/PROTOCOL.md`).
//!
//! A runtime that is missing, fails to build or answers wrongly is reported
//! with the reason and left out; it never fails the run.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use hashlab::{HashParams, Registry};
use serde::{Deserialize, Serialize};

use crate::harness::{message_byte, Harness, Launch, Offer};

mod cache;
mod problem;
use crate::plan::NULL_ALGORITHM;
use crate::programs::{Output, RunError, Runner};
use cache::{cached, user_id, write};
pub use problem::RuntimeState;
use problem::{absent, failed, harness_problem, Problem};

/// A language runtime hashlab can measure through a harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Runtime {
    Go,
    Python,
    Node,
    Java,
    C,
}

impl Runtime {
    pub const ALL: [Runtime; 5] = [
        Runtime::Go,
        Runtime::Python,
        Runtime::Node,
        Runtime::Java,
        Runtime::C,
    ];

    /// The name `--runtime` takes and rows carry (`go`, `python`...).
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Go => "go",
            Runtime::Python => "python",
            Runtime::Node => "node",
            Runtime::Java => "java",
            Runtime::C => "c",
        }
    }

    /// The ecosystem (as `ecosystem` and `pick --interop` name them) whose
    /// users get `library`'s speed: the runtime's own, except C, whose
    /// libraries are ecosystems of their own (`c libgcrypt` → `libgcrypt`).
    pub fn ecosystem_of(self, library: &str) -> String {
        match self {
            Runtime::C => library.strip_prefix("c ").unwrap_or(library).to_string(),
            _ => self.name().to_string(),
        }
    }

    /// Parses `all` or a comma-separated list of names (`js` and `javascript`
    /// for node, `python3` for python, `golang` for go).
    pub fn parse_list(list: &str) -> Result<Vec<Runtime>, String> {
        let mut out = Vec::new();
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let found: &[Runtime] = match word.to_ascii_lowercase().as_str() {
                "all" => &Runtime::ALL,
                "go" | "golang" => &[Runtime::Go],
                "python" | "python3" | "py" => &[Runtime::Python],
                "node" | "nodejs" | "js" | "javascript" => &[Runtime::Node],
                "java" | "jvm" => &[Runtime::Java],
                "c" => &[Runtime::C],
                _ => {
                    return Err(format!(
                        "'{word}' is not a runtime (known: all, go, python, node, java, c)"
                    ))
                }
            };
            for r in found {
                if !out.contains(r) {
                    out.push(*r);
                }
            }
        }
        if out.is_empty() {
            return Err("no runtime named".into());
        }
        Ok(out)
    }
}

/// Where runtimes are found, where harnesses are built, and how long to wait.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// The PATH runtimes are looked up in and run with.
    pub path: OsString,
    /// Built harnesses are kept here, one directory per source and toolchain.
    pub cache: PathBuf,
    /// Deadline for one answer of a running harness.
    pub answer_deadline: Duration,
    /// Deadline for one build step (a Go build may fetch its modules first).
    pub build_deadline: Duration,
}

impl RuntimeOptions {
    /// This process's PATH, the user's cache directory (`$XDG_CACHE_HOME`
    /// or `~/.cache`, else `hashlab-<uid>` in the temporary directory, a
    /// name of this user's, used only if it is theirs alone: see
    /// `runtimes/cache.rs`) and the default deadlines.
    pub fn from_environment() -> RuntimeOptions {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".cache"))
            })
            .map(|c| c.join("hashlab"))
            .unwrap_or_else(|| std::env::temp_dir().join(format!("hashlab-{}", user_id())))
            .join("harness");
        RuntimeOptions {
            path: std::env::var_os("PATH").unwrap_or_default(),
            cache,
            answer_deadline: Duration::from_secs(20),
            build_deadline: Duration::from_secs(180),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LibraryState {
    /// Its digests matched hashlab's: its rows are in the results.
    Measured,
    /// Known to the harness but not installed here.
    Absent,
    /// It answered a digest other than hashlab's: left out of the results.
    WrongDigest,
    /// Offers none of the algorithms asked for.
    NotAsked,
}

/// One library of a runtime, as the run found it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryStatus {
    /// The backend label of its rows (`go crypto/sha256`).
    pub library: String,
    /// The ecosystem whose programs get its speed (`go`, `libgcrypt`).
    pub ecosystem: String,
    pub state: LibraryState,
    /// The algorithms measured (or, when not asked, offered).
    pub algorithms: Vec<String>,
    /// Why it is absent or was left out.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// One runtime, as the run found it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeStatus {
    /// `go`, `python`, `node`, `java`, `c`.
    pub runtime: String,
    pub state: RuntimeState,
    /// One line for people: what was measured, or why nothing was.
    pub detail: String,
    /// The harness's own version line (runtime and libraries).
    pub version: Option<String>,
    /// The program run (interpreter, or the built harness).
    pub program: Option<String>,
    pub libraries: Vec<LibraryStatus>,
    /// The label of its null hasher's rows (the harness overhead per message).
    pub overhead_backend: Option<String>,
}

/// A harness ready to be timed, with what it will measure.
pub struct StartedRuntime {
    pub runtime: Runtime,
    pub harness: Harness,
    /// (algorithm, library) pairs whose digests matched hashlab's, the null
    /// hasher first.
    pub pairs: Vec<(String, String)>,
    /// Where it was built when the cache could not be trusted: removed
    /// once the harness is done.
    _private: Option<tempfile::TempDir>,
}

/// Inputs every offered algorithm is checked on before anything is timed:
/// empty, one block, several blocks, and past BLAKE3's chunk and tree sizes.
const CHECK_SIZES: [usize; 5] = [0, 3, 200, 1000, 70_000];

/// Starts every runtime asked for and keeps those that answer correctly for
/// at least one of `algorithms`. Never fails: what goes wrong is a status.
pub fn start_runtimes(
    registry: &Registry,
    runtimes: &[Runtime],
    algorithms: &[String],
    options: &RuntimeOptions,
) -> (Vec<StartedRuntime>, Vec<RuntimeStatus>) {
    let mut started = Vec::new();
    let mut statuses = Vec::new();
    for &runtime in runtimes {
        let mut status = RuntimeStatus {
            runtime: runtime.name().into(),
            state: RuntimeState::Failed,
            detail: String::new(),
            version: None,
            program: None,
            libraries: Vec::new(),
            overhead_backend: None,
        };
        match start_one(registry, runtime, algorithms, options, &mut status) {
            Ok(Some(s)) => started.push(s),
            Ok(None) => {}
            Err(problem) => {
                status.state = problem.state;
                status.detail = problem.detail;
            }
        }
        statuses.push(status);
    }
    (started, statuses)
}

fn start_one(
    registry: &Registry,
    runtime: Runtime,
    algorithms: &[String],
    options: &RuntimeOptions,
    status: &mut RuntimeStatus,
) -> Result<Option<StartedRuntime>, Problem> {
    let runner = Runner {
        path: options.path.clone(),
        timeout: options.build_deadline,
    };
    let built = build(registry, runtime, &runner, options)?;
    status.program = Some(built.launch.program.display().to_string());
    let mut harness =
        Harness::start(&built.launch, options.answer_deadline).map_err(harness_problem)?;
    status.version = Some(harness.hello().map_err(harness_problem)?);
    let offers = harness.offers().map_err(harness_problem)?;

    let mut libraries: BTreeMap<String, LibraryStatus> = BTreeMap::new();
    let told_absent = offers.iter().filter_map(|o| match o {
        Offer::Absent { library, reason } => Some((library, reason)),
        Offer::Offered { .. } => None,
    });
    for (library, reason) in built.absent.iter().map(|(l, r)| (l, r)).chain(told_absent) {
        libraries.insert(
            library.clone(),
            LibraryStatus {
                library: library.clone(),
                ecosystem: runtime.ecosystem_of(library),
                state: LibraryState::Absent,
                algorithms: Vec::new(),
                detail: reason.clone(),
            },
        );
    }
    let mut pairs = Vec::new();
    let mut null = None;
    for offer in &offers {
        let Offer::Offered { algorithm, library } = offer else {
            continue;
        };
        if algorithm == NULL_ALGORITHM {
            null.get_or_insert_with(|| library.clone());
            continue;
        }
        let entry = libraries
            .entry(library.clone())
            .or_insert_with(|| LibraryStatus {
                library: library.clone(),
                ecosystem: runtime.ecosystem_of(library),
                state: LibraryState::NotAsked,
                algorithms: Vec::new(),
                detail: String::new(),
            });
        // The registry's own name: a harness may spell an alias.
        let Some(ours) = registry
            .algorithm(algorithm)
            .ok()
            .map(|a| a.name.clone())
            .filter(|name| algorithms.contains(name))
        else {
            if entry.state == LibraryState::NotAsked {
                entry.algorithms.push(algorithm.clone());
            }
            continue;
        };
        match check_digests(registry, &mut harness, &ours, algorithm, library) {
            Ok(()) => {
                if entry.state == LibraryState::NotAsked {
                    entry.state = LibraryState::Measured;
                    entry.algorithms.clear();
                }
                if entry.state == LibraryState::Measured {
                    entry.algorithms.push(ours.clone());
                }
                pairs.push((ours, library.clone()));
            }
            Err(Mismatch::Wrong(why)) => {
                entry.state = LibraryState::WrongDigest;
                entry.algorithms = vec![ours.clone()];
                entry.detail = why;
            }
            Err(Mismatch::Harness(e)) => return Err(harness_problem(e)),
        }
    }
    // A library found wrong on one algorithm is out whole: its other
    // algorithms are not trusted either, whichever were checked first.
    pairs.retain(|(_, l)| {
        libraries
            .get(l)
            .is_none_or(|s| s.state == LibraryState::Measured)
    });
    status.libraries = libraries.into_values().collect();
    let Some(null) = null else {
        return Err(failed(
            "the harness offers no null hasher: its overhead cannot be measured",
        ));
    };
    status.overhead_backend = Some(null.clone());
    let measured: Vec<&LibraryStatus> = status
        .libraries
        .iter()
        .filter(|l| l.state == LibraryState::Measured)
        .collect();
    if pairs.is_empty() {
        status.state = RuntimeState::Failed;
        status.detail = "offers none of the algorithms asked for".into();
        return Ok(None);
    }
    status.state = RuntimeState::Measured;
    status.detail = format!(
        "{} algorithm(s) from {}",
        pairs.len(),
        measured
            .iter()
            .map(|l| l.library.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    pairs.insert(0, (NULL_ALGORITHM.to_string(), null));
    Ok(Some(StartedRuntime {
        runtime,
        harness,
        pairs,
        _private: built.private,
    }))
}

enum Mismatch {
    Wrong(String),
    Harness(crate::harness::HarnessError),
}

fn check_digests(
    registry: &Registry,
    harness: &mut Harness,
    ours: &str,
    theirs: &str,
    library: &str,
) -> Result<(), Mismatch> {
    let choice = registry
        .resolve(ours, None, &HashParams::default())
        .map_err(|e| Mismatch::Wrong(format!("hashlab cannot compute {ours}: {e}")))?;
    let mut hasher = choice.hasher();
    for size in CHECK_SIZES {
        let input: Vec<u8> = (0..size).map(message_byte).collect();
        let mut expected = vec![0u8; choice.output_len()];
        hasher.hash_message_into(&input, &mut expected);
        let got = harness
            .digest(theirs, library, &input)
            .map_err(Mismatch::Harness)?;
        if got != expected {
            return Err(Mismatch::Wrong(format!(
                "{ours} of {size} bytes: {} answered {}, hashlab {}",
                library,
                hashlab::hex::encode(&got),
                hashlab::hex::encode(&expected)
            )));
        }
    }
    Ok(())
}

/// A harness ready to start, the libraries its build left out, and the
/// private directory it was built in, if it was.
struct Built {
    launch: Launch,
    absent: Vec<(String, String)>,
    private: Option<tempfile::TempDir>,
}

fn program(runner: &Runner, names: &[&str]) -> Result<PathBuf, Problem> {
    names
        .iter()
        .find_map(|n| runner.find(n))
        .ok_or_else(|| absent(format!("{} not found on PATH", names.join(" or "))))
}

/// The first line a toolchain prints of its version (stdout or stderr).
fn version_line(runner: &Runner, program: &Path, args: &[&str]) -> Result<String, Problem> {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    let out = runner
        .run(program, &args, Duration::from_secs(30))
        .map_err(|e| failed(format!("{}: {e}", program.display())))?;
    let text = if out.stdout.trim().is_empty() {
        &out.stderr
    } else {
        &out.stdout
    };
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}

mod sources {
    pub const GO_MAIN: &str = include_str!("../harness/go/main.go");
    pub const GO_EXTRAS: &str = include_str!("../harness/go/extras.go");
    pub const GO_MOD_EXTRAS: &str = include_str!("../harness/go/go.mod.extras");
    pub const GO_SUM_EXTRAS: &str = include_str!("../harness/go/go.sum.extras");
    pub const PYTHON: &str = include_str!("../harness/python/harness.py");
    pub const NODE: &str = include_str!("../harness/node/harness.js");
    pub const JAVA_MAIN: &str = include_str!("../harness/java/Harness.java");
    pub const JAVA_BC: &str = include_str!("../harness/java/BcDigests.java");
    pub const C: &str = include_str!("../harness/c/harness.c");
}

/// The Go modules the extras build adds, by the label of their rows.
const GO_EXTRA_LIBRARIES: [&str; 6] = [
    "go golang.org/x/crypto/blake2b",
    "go golang.org/x/crypto/blake2s",
    "go lukechampine.com/blake3",
    "go github.com/zeebo/blake3",
    "go github.com/zeebo/xxh3",
    "go github.com/cespare/xxhash/v2",
];

fn build(
    registry: &Registry,
    runtime: Runtime,
    runner: &Runner,
    options: &RuntimeOptions,
) -> Result<Built, Problem> {
    match runtime {
        Runtime::Python => {
            let python = program(runner, &["python3", "python"])?;
            let dir = cached(
                registry,
                &options.cache,
                "python",
                &[sources::PYTHON],
                |dir| write(dir, "harness.py", sources::PYTHON),
            )?;
            Ok(Built {
                launch: Launch {
                    program: python,
                    args: vec!["-u".into(), dir.path.join("harness.py").into()],
                    env: vec![("PATH".into(), options.path.clone())],
                },
                absent: Vec::new(),
                private: dir.private,
            })
        }
        Runtime::Node => {
            let node = program(runner, &["node", "nodejs"])?;
            let dir = cached(registry, &options.cache, "node", &[sources::NODE], |dir| {
                write(dir, "harness.js", sources::NODE)
            })?;
            Ok(Built {
                launch: Launch {
                    program: node,
                    args: vec![dir.path.join("harness.js").into()],
                    env: vec![("PATH".into(), options.path.clone())],
                },
                absent: Vec::new(),
                private: dir.private,
            })
        }
        Runtime::Go => build_go(registry, runner, options),
        Runtime::Java => build_java(registry, runner, options),
        Runtime::C => build_c(registry, runner, options),
    }
}

fn build_go(
    registry: &Registry,
    runner: &Runner,
    options: &RuntimeOptions,
) -> Result<Built, Problem> {
    let go = program(runner, &["go"])?;
    let version = version_line(runner, &go, &["version"])?;
    let launch = |dir: PathBuf| Launch {
        program: dir.join("harness"),
        args: Vec::new(),
        env: vec![("PATH".into(), options.path.clone())],
    };
    let go_build = |dir: &Path, tags: Option<&str>| -> Result<(), String> {
        let mut command = Command::new(&go);
        command.current_dir(dir).arg("build");
        if let Some(tags) = tags {
            command.arg("-tags").arg(tags);
        }
        command.args(["-trimpath", "-o", "harness", "."]);
        // A user's GOFLAGS=-mod=vendor or similar would refuse our module.
        command.env_remove("GOFLAGS");
        command_ok(runner, command, options.build_deadline)
    };
    let extras = cached(
        registry,
        &options.cache,
        "go-extras",
        &[
            &version,
            sources::GO_MAIN,
            sources::GO_EXTRAS,
            sources::GO_MOD_EXTRAS,
            sources::GO_SUM_EXTRAS,
        ],
        |dir| {
            write(dir, "main.go", sources::GO_MAIN)?;
            write(dir, "extras.go", sources::GO_EXTRAS)?;
            write(dir, "go.mod", sources::GO_MOD_EXTRAS)?;
            write(dir, "go.sum", sources::GO_SUM_EXTRAS)?;
            go_build(dir, Some("extras"))
        },
    );
    let why = match extras {
        Ok(dir) => {
            return Ok(Built {
                launch: launch(dir.path),
                absent: Vec::new(),
                private: dir.private,
            })
        }
        Err(problem) => problem.detail,
    };
    // The standard library alone needs no module: it builds offline.
    let plain = cached(
        registry,
        &options.cache,
        "go",
        &[&version, sources::GO_MAIN],
        |dir| {
            write(dir, "main.go", sources::GO_MAIN)?;
            write(dir, "go.mod", "module hashlabharness\n\ngo 1.22\n")?;
            go_build(dir, None)
        },
    )?;
    Ok(Built {
        launch: launch(plain.path),
        private: plain.private,
        absent: GO_EXTRA_LIBRARIES
            .iter()
            .map(|l| {
                (
                    l.to_string(),
                    format!("its module did not build here: {why}"),
                )
            })
            .collect(),
    })
}

/// A BouncyCastle provider jar: Debian's libbcprov-java, then Maven's local
/// repository (the newest version).
fn bouncycastle_jar() -> Option<PathBuf> {
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/share/java")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("bcprov") && n.ends_with(".jar"))
        })
        .collect();
    debian.sort();
    if let Some(jar) = debian.pop() {
        return Some(jar);
    }
    let home = std::env::var_os("HOME")?;
    let maven = PathBuf::from(home).join(".m2/repository/org/bouncycastle/bcprov-jdk18on");
    let mut versions: Vec<PathBuf> = std::fs::read_dir(&maven)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    versions.sort_by_key(|p| version_key(p));
    versions.into_iter().rev().find_map(|v| {
        let name = v.file_name()?.to_str()?.to_string();
        let jar = v.join(format!("bcprov-jdk18on-{name}.jar"));
        jar.is_file().then_some(jar)
    })
}

fn version_key(path: &Path) -> Vec<u64> {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}

fn build_java(
    registry: &Registry,
    runner: &Runner,
    options: &RuntimeOptions,
) -> Result<Built, Problem> {
    let java = program(runner, &["java"])?;
    let javac = program(runner, &["javac"])
        .map_err(|_| absent("java is on PATH but javac is not (a JRE without a JDK)"))?;
    let version = version_line(runner, &javac, &["-version"])?;
    let jar = bouncycastle_jar();
    let jar_id = jar
        .as_ref()
        .map(|j| {
            let len = std::fs::metadata(j).map(|m| m.len()).unwrap_or(0);
            format!("{} {len}", j.display())
        })
        .unwrap_or_default();
    let dir = cached(
        registry,
        &options.cache,
        "java",
        &[&version, &jar_id, sources::JAVA_MAIN, sources::JAVA_BC],
        |dir| {
            write(dir, "Harness.java", sources::JAVA_MAIN)?;
            let mut command = Command::new(&javac);
            command
                .current_dir(dir)
                .args(["-d", "classes", "Harness.java"]);
            command_ok(runner, command, options.build_deadline)?;
            if let Some(jar) = &jar {
                write(dir, "BcDigests.java", sources::JAVA_BC)?;
                let mut command = Command::new(&javac);
                let classpath = std::env::join_paths([dir.join("classes"), jar.clone()])
                    .map_err(|e| e.to_string())?;
                command.current_dir(dir).arg("-cp").arg(classpath).args([
                    "-d",
                    "classes",
                    "BcDigests.java",
                ]);
                // A jar too old for the harness leaves BouncyCastle out, not Java.
                if let Err(why) = command_ok(runner, command, options.build_deadline) {
                    write(dir, "bouncycastle-absent", &why)?;
                }
            }
            Ok(())
        },
    )?;
    let mut classpath = vec![dir.path.join("classes")];
    classpath.extend(jar.clone());
    let classpath = std::env::join_paths(classpath).map_err(|e| failed(e.to_string()))?;
    let mut absent_libraries = Vec::new();
    if let Ok(why) = std::fs::read_to_string(dir.path.join("bouncycastle-absent")) {
        absent_libraries.push((
            "java BouncyCastle".to_string(),
            format!("{} did not compile: {why}", jar_id),
        ));
    }
    Ok(Built {
        launch: Launch {
            program: java,
            // The parallel and G1 collectors' threads would share the two
            // cores with the measurement: one serial collector, as a small
            // service container gets by default.
            args: vec![
                "-XX:+UseSerialGC".into(),
                "-Xss4m".into(),
                "-cp".into(),
                classpath,
                "Harness".into(),
            ],
            env: vec![("PATH".into(), options.path.clone())],
        },
        absent: absent_libraries,
        private: dir.private,
    })
}

fn build_c(
    registry: &Registry,
    runner: &Runner,
    options: &RuntimeOptions,
) -> Result<Built, Problem> {
    let cc = program(runner, &["cc", "gcc", "clang"])?;
    let version = version_line(runner, &cc, &["--version"])?;
    // Each library is compiled in when its headers and library are here:
    // both, then each alone, then neither (the null hasher only).
    let variants: [(&str, &[(&str, &str)]); 4] = [
        (
            "c-gcrypt-nettle",
            &[("HASHLAB_GCRYPT", "gcrypt"), ("HASHLAB_NETTLE", "nettle")],
        ),
        ("c-gcrypt", &[("HASHLAB_GCRYPT", "gcrypt")]),
        ("c-nettle", &[("HASHLAB_NETTLE", "nettle")]),
        ("c", &[]),
    ];
    let mut why_not: BTreeMap<&str, String> = BTreeMap::new();
    for (name, libs) in variants {
        let built = cached(
            registry,
            &options.cache,
            name,
            &[&version, sources::C],
            |dir| {
                write(dir, "harness.c", sources::C)?;
                let mut command = Command::new(&cc);
                command
                    .current_dir(dir)
                    .args(["-O2", "-o", "harness", "harness.c"]);
                for (define, _) in libs {
                    command.arg(format!("-D{define}"));
                }
                for (_, lib) in libs {
                    command.arg(format!("-l{lib}"));
                }
                command_ok(runner, command, options.build_deadline)
            },
        );
        match built {
            Ok(dir) => {
                let has = |lib: &str| libs.iter().any(|(_, l)| *l == lib);
                let absent = [("gcrypt", "c libgcrypt"), ("nettle", "c nettle")]
                    .iter()
                    .filter(|(lib, _)| !has(lib))
                    .map(|(lib, label)| {
                        let why = why_not
                            .get(lib)
                            .cloned()
                            .unwrap_or_else(|| "not compiled in".into());
                        (
                            label.to_string(),
                            format!("cannot compile against it: {why}"),
                        )
                    })
                    .collect();
                return Ok(Built {
                    launch: Launch {
                        program: dir.path.join("harness"),
                        args: Vec::new(),
                        env: vec![("PATH".into(), options.path.clone())],
                    },
                    absent,
                    private: dir.private,
                });
            }
            Err(problem) => {
                if libs.len() == 1 {
                    why_not.insert(libs[0].1, problem.detail.clone());
                }
                if libs.is_empty() {
                    return Err(problem);
                }
            }
        }
    }
    unreachable!("the last variant returns either way")
}

/// The effective user id, which names the fallback cache.
fn command_ok(runner: &Runner, command: Command, deadline: Duration) -> Result<(), String> {
    let shown = format!("{command:?}");
    match runner.run_command(command, deadline) {
        Ok(Output { code: Some(0), .. }) => Ok(()),
        Ok(out) => Err(first_error_line(&out.stderr, &out.stdout)),
        Err(RunError::TimedOut(after)) => Err(format!(
            "{shown} took longer than {} s",
            after.as_secs_f64()
        )),
        Err(e) => Err(format!("{shown}: {e}")),
    }
}

/// The line of a compiler's output that says what went wrong: not one of
/// Go's progress lines (`go: downloading ...`), which come first and say
/// nothing of the failure that follows them.
fn first_error_line(stderr: &str, stdout: &str) -> String {
    let text = if stderr.trim().is_empty() {
        stdout
    } else {
        stderr
    };
    let progress = |l: &str| {
        ["go: downloading ", "go: finding ", "go: extracting "]
            .iter()
            .any(|p| l.trim_start().starts_with(p))
    };
    let telling = || {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !progress(l))
    };
    let line = telling()
        .find(|l| l.contains("error") || l.contains("cannot") || l.contains("fatal"))
        .or_else(|| telling().next())
        .or_else(|| text.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("failed without a message");
    line.trim().chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_runtimes() {
        assert_eq!(Runtime::parse_list("all").unwrap(), Runtime::ALL.to_vec());
        assert_eq!(
            Runtime::parse_list("go, js,python3,go").unwrap(),
            vec![Runtime::Go, Runtime::Node, Runtime::Python]
        );
        assert!(Runtime::parse_list("cobol")
            .unwrap_err()
            .contains("'cobol' is not a runtime"));
        assert!(Runtime::parse_list(" , ").is_err());
    }

    #[test]
    fn a_failed_go_build_is_told_by_its_cause_not_its_progress() {
        // `go build -tags extras` with GOPROXY=off and an empty module cache.
        let stderr = "go: downloading github.com/cespare/xxhash/v2 v2.3.0\n\
            go: downloading golang.org/x/crypto v0.33.0\n\
            extras.go:8:2: module lookup disabled by GOPROXY=off\n\
            extras.go:9:2: module lookup disabled by GOPROXY=off\n";
        assert_eq!(
            first_error_line(stderr, ""),
            "extras.go:8:2: module lookup disabled by GOPROXY=off"
        );
        assert_eq!(
            first_error_line("", "a.c:1: error: no\n"),
            "a.c:1: error: no"
        );
        assert_eq!(
            first_error_line("go: downloading x v1\n", ""),
            "go: downloading x v1"
        );
    }

    #[test]
    fn maven_versions_sort_numerically() {
        let mut v: Vec<PathBuf> = ["1.9", "1.80", "1.79"].iter().map(PathBuf::from).collect();
        v.sort_by_key(|p| version_key(p));
        assert_eq!(v.last().unwrap(), &PathBuf::from("1.80"));
    }
}
