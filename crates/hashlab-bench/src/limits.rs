//! The bounds of a measurement request, and the typed errors for requests
//! beyond them. A request is checked whole before anything is allocated or
//! timed (`Request::validate`, also called by `measure`), so a hostile number
//! is a clear error instead of an overflow, an out-of-range index or an
//! allocation that aborts the process.

use std::fmt;
use std::time::Duration;

use hashlab::Registry;

use crate::request::Request;
use crate::selection::Backends;
use crate::sizes::size_label;

/// Inputs start this many bytes past a page boundary at most: an offset of a
/// page or more gives the same alignment as a smaller one.
pub const MAX_MISALIGN: usize = 4095;
/// The largest message: 1 TiB. Larger inputs fit no machine this runs on;
/// below this, whether one fits is asked of the allocator.
pub const MAX_SIZE: u64 = 1 << 40;
/// Sizes in one request: each is a column of the tables and a set of cells.
pub const MAX_SIZES: usize = 64;
/// Threads of one cell (and the largest `--threads` count).
pub const MAX_THREADS: usize = 1024;
/// The longest time budget: about 11.6 days.
pub const MAX_TIME: Duration = Duration::from_secs(1_000_000);
/// CPUs a thread can be pinned to are numbered below this (glibc's `CPU_SETSIZE`).
pub const MAX_CPUS: usize = 1024;

/// Thread counts as a list gives them (`2,4,all`; `all` is `cores`): one
/// thread first, always, then each other count once, in order.
pub fn parse_threads(text: &str, cores: usize) -> Result<Vec<usize>, String> {
    let mut counts = vec![1];
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let n = if part.eq_ignore_ascii_case("all") {
            cores
        } else {
            part.parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_THREADS).contains(n))
                .ok_or_else(|| {
                    format!("'{part}' is not a thread count (1 to {MAX_THREADS}, or 'all')")
                })?
        };
        if !counts.contains(&n) {
            counts.push(n);
        }
    }
    Ok(counts)
}

/// A request beyond a bound, or one this machine cannot hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    Misalign {
        bytes: usize,
    },
    NoSizes,
    SizeTooLarge {
        size: usize,
    },
    TooManySizes {
        count: usize,
    },
    Threads {
        threads: usize,
    },
    /// The time budget, in seconds as given (not finite, not positive, or too long).
    MaxTime {
        seconds: String,
    },
    /// The clock-measuring budget is over `clock::MAX_BUDGET`.
    ClockBudget {
        millis: u128,
    },
    /// A CPU this process cannot be pinned to.
    Pin {
        cpu: usize,
        allowed: String,
    },
    /// Backend names that no algorithm of the registry has.
    UnknownBackends {
        names: Vec<String>,
        known: Vec<String>,
    },
    /// The pseudo-random inputs need more than this machine's physical memory.
    InputsOverMemory {
        total: u64,
        memory: u64,
    },
    /// The pseudo-random inputs cannot be allocated (a limit on this
    /// process's memory, or the system refused).
    InputsDoNotFit {
        /// Every input together, bytes.
        total: u64,
        /// The input that failed.
        size: usize,
        /// How many inputs of that size (one per stream thread).
        copies: usize,
    },
    /// Runtimes were asked for with a workload their harnesses do not run
    /// (a file, short keys, a hash table, a CPU mask).
    RuntimesWith {
        workload: &'static str,
    },
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::RuntimesWith { workload } => write!(
                f,
                "runtimes are measured on messages in memory, one thread each: not with {workload}"
            ),
            RequestError::Misalign { bytes } => write!(
                f,
                "a misalignment of {bytes} bytes is over the limit of {MAX_MISALIGN} (an offset within a page)"
            ),
            RequestError::NoSizes => write!(f, "no message size given"),
            RequestError::SizeTooLarge { size } => write!(
                f,
                "a message of {size} bytes is over the limit of {} TiB ({MAX_SIZE} bytes)",
                MAX_SIZE >> 40
            ),
            RequestError::TooManySizes { count } => write!(
                f,
                "{count} message sizes are over the limit of {MAX_SIZES}"
            ),
            RequestError::Threads { threads } => write!(
                f,
                "{threads} threads: a thread count is 1 to {MAX_THREADS}"
            ),
            RequestError::MaxTime { seconds } => write!(
                f,
                "{seconds} s is not a time budget: the limit is more than 0 and at most {} s",
                MAX_TIME.as_secs()
            ),
            RequestError::ClockBudget { millis } => write!(
                f,
                "a clock measurement of {millis} ms is over the limit of {} ms",
                crate::clock::MAX_BUDGET.as_millis()
            ),
            RequestError::Pin { cpu, allowed } => write!(
                f,
                "CPU {cpu} is not one this process may run on (allowed: {allowed})"
            ),
            RequestError::UnknownBackends { names, known } => write!(
                f,
                "unknown backend{} {} (known: {})",
                if names.len() == 1 { "" } else { "s" },
                names
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", "),
                known.join(", ")
            ),
            RequestError::InputsOverMemory { total, memory } => write!(
                f,
                "the inputs need {total} bytes, over the limit of the {memory} bytes of memory available"
            ),
            RequestError::InputsDoNotFit {
                total,
                size,
                copies,
            } => write!(
                f,
                "the inputs ({copies} of {} among {total} bytes) cannot be allocated: over the memory this process may use",
                size_label(*size)
            ),
        }
    }
}

impl std::error::Error for RequestError {}

/// Why `measure` failed: a request it refused, or a failure while measuring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeasureError {
    Request(RequestError),
    Failed(String),
}

impl fmt::Display for MeasureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeasureError::Request(e) => e.fmt(f),
            MeasureError::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for MeasureError {}

impl From<RequestError> for MeasureError {
    fn from(e: RequestError) -> MeasureError {
        MeasureError::Request(e)
    }
}

impl From<String> for MeasureError {
    fn from(message: String) -> MeasureError {
        MeasureError::Failed(message)
    }
}

impl Request {
    /// Checks every number of the request against its bound, and every backend
    /// name against the registry, before anything is allocated or timed.
    pub fn validate(&self, registry: &Registry) -> Result<(), RequestError> {
        let selection = &self.selection;
        if self.misalign > MAX_MISALIGN {
            return Err(RequestError::Misalign {
                bytes: self.misalign,
            });
        }
        if selection.sizes.is_empty() {
            return Err(RequestError::NoSizes);
        }
        if selection.sizes.len() > MAX_SIZES {
            return Err(RequestError::TooManySizes {
                count: selection.sizes.len(),
            });
        }
        if let Some(&size) = selection
            .sizes
            .iter()
            .find(|s| **s == 0 || **s as u64 > MAX_SIZE)
        {
            return Err(if size == 0 {
                RequestError::NoSizes
            } else {
                RequestError::SizeTooLarge { size }
            });
        }
        if let Some(&threads) = selection
            .threads
            .iter()
            .find(|t| !(1..=MAX_THREADS).contains(*t))
        {
            return Err(RequestError::Threads { threads });
        }
        let max_time = self.budget.max_time;
        if max_time.is_zero() || max_time > MAX_TIME {
            return Err(RequestError::MaxTime {
                seconds: max_time.as_secs_f64().to_string(),
            });
        }
        if self.clock_budget > crate::clock::MAX_BUDGET {
            return Err(RequestError::ClockBudget {
                millis: self.clock_budget.as_millis(),
            });
        }
        if let Some(cpu) = self.pin {
            check_pin(cpu)?;
        }
        if !self.runtimes.is_empty() {
            let workload = if selection.file.is_some() {
                Some("a file")
            } else if selection.keys {
                Some("short keys")
            } else if selection.table.is_some() {
                Some("a hash table")
            } else if !self.mask.is_empty() {
                Some("a CPU mask")
            } else {
                None
            };
            if let Some(workload) = workload {
                return Err(RequestError::RuntimesWith { workload });
            }
        }
        if let Backends::Named(names) = &selection.backends {
            let unknown: Vec<String> = names
                .iter()
                .filter(|n| {
                    !registry
                        .backends()
                        .iter()
                        .any(|b| registry.backend(&b.algorithm, n).is_ok())
                })
                .cloned()
                .collect();
            if !unknown.is_empty() {
                let mut known: Vec<String> =
                    registry.backends().iter().map(|b| b.name.clone()).collect();
                known.sort();
                known.dedup();
                return Err(RequestError::UnknownBackends {
                    names: unknown,
                    known,
                });
            }
        }
        Ok(())
    }
}

/// The memory that can be had now without paging, in bytes, when the system
/// says: `MemAvailable` on Linux (free memory plus what the page cache would
/// give back), the physical memory elsewhere. Inputs larger than this would
/// measure paging, not hashing.
pub fn available_memory() -> Option<u64> {
    #[cfg(target_os = "linux")]
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
        return parse_mem_available(&text);
    }
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system constants.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && page > 0 {
            return (pages as u64).checked_mul(page as u64);
        }
    }
    None
}

/// `MemAvailable:  123456 kB` of /proc/meminfo, in bytes.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// Seconds as a caller gives them (a command-line or Python float), as a time
/// budget within the bounds.
pub fn time_budget(seconds: f64) -> Result<Duration, RequestError> {
    if seconds.is_finite() && seconds > 0.0 && seconds <= MAX_TIME.as_secs_f64() {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(RequestError::MaxTime {
            seconds: seconds.to_string(),
        })
    }
}

/// Milliseconds as a caller gives them, as a clock-measuring budget within
/// [`clock::MAX_BUDGET`](crate::clock::MAX_BUDGET).
pub fn clock_budget(millis: u64) -> Result<Duration, RequestError> {
    let budget = Duration::from_millis(millis);
    if budget > crate::clock::MAX_BUDGET {
        return Err(RequestError::ClockBudget {
            millis: u128::from(millis),
        });
    }
    Ok(budget)
}

/// The CPUs this process may run on, when the system says.
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Option<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data that sched_getaffinity fills; CPU_ISSET
    // reads within it for every index below CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        Some(
            (0..MAX_CPUS.min(libc::CPU_SETSIZE as usize))
                .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
                .collect(),
        )
    }
}

#[cfg(not(target_os = "linux"))]
fn allowed_cpus() -> Option<Vec<usize>> {
    None
}

/// "0-3, 6" for a sorted list of CPUs.
fn ranges(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

fn check_pin(cpu: usize) -> Result<(), RequestError> {
    match allowed_cpus() {
        Some(allowed) if !allowed.contains(&cpu) => Err(RequestError::Pin {
            cpu,
            allowed: ranges(&allowed),
        }),
        None if cpu >= MAX_CPUS => Err(RequestError::Pin {
            cpu,
            allowed: format!("below {MAX_CPUS}"),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_lists_start_at_one_and_name_each_count_once() {
        assert_eq!(parse_threads("", 8).unwrap(), [1]);
        assert_eq!(parse_threads("4, all,4,1", 8).unwrap(), [1, 4, 8]);
        assert!(parse_threads("0", 8).unwrap_err().starts_with("'0' is not"));
        assert!(parse_threads("2,x", 8).is_err());
    }
    use crate::plan::Budget;
    use crate::selection::{Algorithms, Selection};

    fn request() -> Request {
        Request {
            selection: Selection {
                algorithms: Algorithms::Named(vec!["sha256".into()]),
                backends: Backends::Default,
                sizes: vec![64],
                threads: vec![1],
                latency: false,
                keys: false,
                also: Vec::new(),
                file: None,
                table: None,
            },
            budget: Budget::quick(),
            seed: 1,
            misalign: 0,
            project: None,
            mask: Vec::new(),
            clock_budget: Duration::ZERO,
            command_line: Vec::new(),
            pin: None,
            runtimes: Vec::new(),
            runtime_options: crate::runtimes::RuntimeOptions::from_environment(),
        }
    }

    #[test]
    fn every_bound_is_checked_and_named() {
        let registry = Registry::default();
        assert_eq!(request().validate(&registry), Ok(()));
        let refused = |change: &dyn Fn(&mut Request)| {
            let mut r = request();
            change(&mut r);
            r.validate(&registry).unwrap_err().to_string()
        };
        assert!(refused(&|r| r.misalign = usize::MAX).contains("limit of 4095"));
        assert!(refused(&|r| r.misalign = MAX_MISALIGN + 1).contains("limit of 4095"));
        assert!(refused(&|r| r.selection.sizes = vec![usize::MAX]).contains("limit of 1 TiB"));
        assert!(refused(&|r| r.selection.sizes = (1..=65).collect()).contains("limit of 64"));
        assert!(refused(&|r| r.selection.sizes.clear()).contains("no message size"));
        assert!(refused(&|r| r.selection.threads = vec![1, 0]).contains("1 to 1024"));
        assert!(refused(&|r| r.selection.threads = vec![usize::MAX]).contains("1 to 1024"));
        assert!(refused(&|r| r.budget.max_time = Duration::ZERO).contains("limit"));
        assert!(refused(&|r| r.budget.max_time = Duration::MAX).contains("1000000 s"));
        assert!(refused(&|r| r.clock_budget = Duration::MAX).contains("limit of 60000 ms"));
        assert!(refused(&|r| r.pin = Some(usize::MAX)).contains("may run on"));
        let unknown = refused(&|r| {
            r.selection.backends = Backends::Named(vec!["openssl".into(), "nosuch".into()])
        });
        assert!(
            unknown.starts_with("unknown backend 'nosuch' (known: "),
            "{unknown}"
        );
        assert!(unknown.contains("openssl") && unknown.contains("rustcrypto"));
    }

    #[test]
    fn time_budgets_are_positive_finite_and_bounded() {
        assert_eq!(time_budget(1.5), Ok(Duration::from_millis(1500)));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(time_budget(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn clock_budgets_are_bounded() {
        assert_eq!(clock_budget(60_000), Ok(crate::clock::MAX_BUDGET));
        assert_eq!(
            clock_budget(u64::MAX).unwrap_err().to_string(),
            "a clock measurement of 18446744073709551615 ms is over the limit of 60000 ms"
        );
    }

    #[test]
    fn available_memory_is_read_from_meminfo() {
        let meminfo =
            "MemTotal:       24576000 kB\nMemFree:         1000 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(20_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert!(available_memory().is_some_and(|m| m > 0));
    }

    #[test]
    fn cpu_ranges_read_as_taskset_prints_them() {
        assert_eq!(ranges(&[0, 1, 2, 3, 6, 8, 9]), "0-3, 6, 8-9");
        assert_eq!(ranges(&[]), "");
    }
}
