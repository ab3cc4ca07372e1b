//! What a measurement ran on: the CPU, its caches and features, the system,
//! the build, the command, and the measured core clock. A number without this
//! cannot be compared with anything.
//!
//! Everything is read from Linux's `/proc` and `/sys`; a field that cannot be
//! read there (another OS, a locked-down container) is `None` or "unknown",
//! never a guess. The parsers are small pure functions over the files' text,
//! tested on samples from several machines.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::clock::ClockCalibration;

/// Cache sizes in bytes, as `cpu0` sees them (a shared L3 is the slice cpu0
/// shares, not the sum over the package). `None` when not reported.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
pub struct CacheSizes {
    pub l1d: Option<u64>,
    pub l1i: Option<u64>,
    pub l2: Option<u64>,
    pub l3: Option<u64>,
}

/// The machine, system and build a measurement ran on.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Environment {
    /// "AMD EPYC 7R13 Processor", "Neoverse-N1", or "unknown".
    pub cpu_model: String,
    /// "AuthenticAMD", "GenuineIntel", "Arm", ..., or "unknown".
    pub cpu_vendor: String,
    /// Logical CPUs in the machine.
    pub logical_threads: usize,
    /// Cores, counting each core once however many hardware threads it runs.
    pub physical_cores: Option<usize>,
    /// Logical CPUs this process may run on (affinity and cgroup limits).
    pub usable_threads: usize,
    pub caches: CacheSizes,
    /// cpu0's "cpu MHz" in /proc/cpuinfo: a nominal or last-sampled figure
    /// (a hypervisor's TSC rate, say), kept to compare with `clock`.
    pub cpuinfo_mhz: Option<f64>,
    /// The hashing-relevant features this CPU has (`hashlab::cpu::detected`).
    pub cpu_features: Vec<String>,
    /// "linux", "macos", ... (`std::env::consts::OS`).
    pub os: String,
    /// The kernel release (`uname -r`).
    pub kernel: Option<String>,
    /// The cpufreq scaling governor of cpu0; `None` where there is no cpufreq
    /// (most virtual machines).
    pub governor: Option<String>,
    pub hashlab_version: String,
    /// The git commit the binary was built from, with "-dirty" if the tree
    /// had changes; `None` when built outside a git checkout.
    pub git_commit: Option<String>,
    /// `rustc --version` of the compiler that built this.
    pub rustc: Option<String>,
    pub target: String,
    pub command_line: Vec<String>,
    /// When the environment was captured: UTC, RFC 3339, whole seconds.
    pub timestamp: String,
    pub clock: ClockCalibration,
    /// Features the caller masked off for this measurement.
    pub cpu_mask: Vec<String>,
}

/// Describes this machine now. `command_line` and `mask` are recorded as
/// given; `clock` is a calibration the caller made (`clock::calibrate`), so
/// that the caller decides how much time it gets.
pub fn capture(
    command_line: Vec<String>,
    mask: Vec<String>,
    clock: ClockCalibration,
) -> Environment {
    let cpuinfo = parse_cpuinfo(&read_text("/proc/cpuinfo").unwrap_or_default());
    let usable_threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let logical_threads = if cpuinfo.logical_threads > 0 {
        cpuinfo.logical_threads
    } else {
        usable_threads
    };
    let cpu_vendor = cpuinfo
        .vendor
        .or_else(hashlab::cpu::x86_vendor)
        .unwrap_or_else(|| UNKNOWN.to_string());
    Environment {
        cpu_model: cpuinfo.model.unwrap_or_else(|| UNKNOWN.to_string()),
        cpu_vendor,
        logical_threads,
        physical_cores: count_cores(&read_sibling_lists()).or(cpuinfo.physical_cores),
        usable_threads,
        caches: cache_sizes(&read_cache_entries()),
        cpuinfo_mhz: cpuinfo.mhz,
        cpu_features: hashlab::cpu::detected()
            .into_iter()
            .map(str::to_string)
            .collect(),
        os: std::env::consts::OS.to_string(),
        kernel: read_text("/proc/sys/kernel/osrelease"),
        governor: read_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        hashlab_version: hashlab::VERSION.to_string(),
        git_commit: option_env!("HASHLAB_GIT_COMMIT").map(str::to_string),
        rustc: option_env!("HASHLAB_RUSTC_VERSION").map(str::to_string),
        target: env!("HASHLAB_TARGET").to_string(),
        command_line,
        timestamp: rfc3339_utc(seconds_since_epoch(SystemTime::now())),
        clock,
        cpu_mask: mask,
    }
}

const UNKNOWN: &str = "unknown";

/// A file's text without surrounding whitespace; `None` if unreadable or empty.
fn read_text(path: impl AsRef<Path>) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// (level, type, size) of each of cpu0's caches, as sysfs words them.
fn read_cache_entries() -> Vec<(String, String, String)> {
    let Ok(dir) = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache") else {
        return Vec::new();
    };
    let mut entries = Vec::new();
    for entry in dir.flatten() {
        if !entry.file_name().to_string_lossy().starts_with("index") {
            continue;
        }
        let path = entry.path();
        if let (Some(level), Some(kind), Some(size)) = (
            read_text(path.join("level")),
            read_text(path.join("type")),
            read_text(path.join("size")),
        ) {
            entries.push((level, kind, size));
        }
    }
    entries
}

/// Each logical CPU's list of hardware threads sharing its core.
fn read_sibling_lists() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/sys/devices/system/cpu") else {
        return Vec::new();
    };
    let mut lists = Vec::new();
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_cpu = name
            .strip_prefix("cpu")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if !is_cpu {
            continue;
        }
        let topology = entry.path().join("topology");
        // core_cpus_list is the current name; thread_siblings_list the one older kernels have.
        if let Some(list) = read_text(topology.join("core_cpus_list"))
            .or_else(|| read_text(topology.join("thread_siblings_list")))
        {
            lists.push(list);
        }
    }
    lists
}

/// What `/proc/cpuinfo` says about the CPU.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct CpuInfo {
    pub model: Option<String>,
    pub vendor: Option<String>,
    /// `processor` entries; 0 when there are none.
    pub logical_threads: usize,
    /// Distinct (physical id, core id) pairs, when every entry has both.
    pub physical_cores: Option<usize>,
    /// cpu0's "cpu MHz": on x86 a nominal or last-sampled clock, not a measurement.
    pub mhz: Option<f64>,
}

/// Parses `/proc/cpuinfo` text: x86's "model name"/"vendor_id"; on aarch64,
/// which has neither, the model is named from "CPU implementer"/"CPU part"
/// (several parts on big.LITTLE systems: "Cortex-A55 + Cortex-A76").
pub(crate) fn parse_cpuinfo(text: &str) -> CpuInfo {
    let blocks: Vec<Vec<(&str, &str)>> = text
        .split("\n\n")
        .map(|block| {
            block
                .lines()
                .filter_map(|line| line.split_once(':'))
                .map(|(key, value)| (key.trim(), value.trim()))
                .collect::<Vec<_>>()
        })
        .filter(|fields| !fields.is_empty())
        .collect();
    let first = |key: &str| {
        blocks
            .iter()
            .flatten()
            .find(|(k, v)| *k == key && !v.is_empty())
            .map(|(_, v)| v.to_string())
    };
    let processors: Vec<&Vec<(&str, &str)>> = blocks
        .iter()
        .filter(|b| b.iter().any(|(k, _)| *k == "processor"))
        .collect();
    let field = |block: &[(&str, &str)], key: &str| {
        block
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    };

    let core_ids: Option<Vec<(String, String)>> = processors
        .iter()
        .map(|b| Some((field(b, "physical id")?, field(b, "core id")?)))
        .collect();
    let physical_cores = core_ids.filter(|ids| !ids.is_empty()).map(|mut ids| {
        ids.sort();
        ids.dedup();
        ids.len()
    });

    let mut arm_parts: Vec<(String, String)> = Vec::new();
    for block in &blocks {
        if let (Some(implementer), Some(part)) =
            (field(block, "CPU implementer"), field(block, "CPU part"))
        {
            let id = (implementer.to_lowercase(), part.to_lowercase());
            if !arm_parts.contains(&id) {
                arm_parts.push(id);
            }
        }
    }
    let arm_model = (!arm_parts.is_empty()).then(|| {
        arm_parts
            .iter()
            .map(
                |(implementer, part)| match arm_part_name(implementer, part) {
                    Some(name) => name.to_string(),
                    None => match arm_implementer_name(implementer) {
                        Some(vendor) => format!("{vendor} CPU part {part}"),
                        None => format!("CPU implementer {implementer} part {part}"),
                    },
                },
            )
            .collect::<Vec<_>>()
            .join(" + ")
    });
    let arm_vendor = arm_parts.first().map(|(implementer, _)| {
        arm_implementer_name(implementer)
            .map(str::to_string)
            .unwrap_or_else(|| format!("implementer {implementer}"))
    });

    CpuInfo {
        model: first("model name").or(arm_model),
        vendor: first("vendor_id").or(arm_vendor),
        logical_threads: processors.len(),
        physical_cores,
        mhz: first("cpu MHz").and_then(|v| v.parse().ok()),
    }
}

/// Implementer codes of the MIDR register, as Linux's arm64 cputype.h lists them.
fn arm_implementer_name(code: &str) -> Option<&'static str> {
    Some(match code {
        "0x41" => "Arm",
        "0x42" => "Broadcom",
        "0x43" => "Cavium",
        "0x46" => "Fujitsu",
        "0x48" => "HiSilicon",
        "0x4e" => "NVIDIA",
        "0x50" => "APM",
        "0x51" => "Qualcomm",
        "0x61" => "Apple",
        "0x6d" => "Microsoft",
        "0xc0" => "Ampere",
        _ => return None,
    })
}

/// Arm's own cores (implementer 0x41), by part number, from cputype.h.
fn arm_part_name(implementer: &str, part: &str) -> Option<&'static str> {
    if implementer != "0x41" {
        return None;
    }
    Some(match part {
        "0xd03" => "Cortex-A53",
        "0xd04" => "Cortex-A35",
        "0xd05" => "Cortex-A55",
        "0xd07" => "Cortex-A57",
        "0xd08" => "Cortex-A72",
        "0xd09" => "Cortex-A73",
        "0xd0a" => "Cortex-A75",
        "0xd0b" => "Cortex-A76",
        "0xd0c" => "Neoverse-N1",
        "0xd0d" => "Cortex-A77",
        "0xd40" => "Neoverse-V1",
        "0xd41" => "Cortex-A78",
        "0xd44" => "Cortex-X1",
        "0xd46" => "Cortex-A510",
        "0xd47" => "Cortex-A710",
        "0xd48" => "Cortex-X2",
        "0xd49" => "Neoverse-N2",
        "0xd4f" => "Neoverse-V2",
        "0xd84" => "Neoverse-V3",
        "0xd8e" => "Neoverse-N3",
        _ => return None,
    })
}

/// A sysfs cache size ("32K", "1024K", "8M", or plain bytes) in bytes.
pub(crate) fn parse_cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, multiplier) = match text.as_bytes().last()? {
        b'K' | b'k' => (&text[..text.len() - 1], 1 << 10),
        b'M' | b'm' => (&text[..text.len() - 1], 1 << 20),
        b'G' | b'g' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(multiplier)
}

/// Sorts sysfs (level, type, size) entries into L1d, L1i, L2 and L3.
pub(crate) fn cache_sizes(entries: &[(String, String, String)]) -> CacheSizes {
    let mut caches = CacheSizes::default();
    for (level, kind, size) in entries {
        let slot = match (level.trim(), kind.trim()) {
            ("1", "Data") => &mut caches.l1d,
            ("1", "Instruction") => &mut caches.l1i,
            ("2", "Data" | "Unified") => &mut caches.l2,
            ("3", "Data" | "Unified") => &mut caches.l3,
            _ => continue,
        };
        if let Some(bytes) = parse_cache_size(size) {
            *slot = Some(bytes);
        }
    }
    caches
}

/// Physical cores from each logical CPU's sibling list: CPUs sharing a core
/// share the list ("0,4" or "0-1"), so cores are the distinct lists.
pub(crate) fn count_cores(sibling_lists: &[String]) -> Option<usize> {
    let mut distinct: Vec<&str> = sibling_lists.iter().map(|s| s.trim()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    (!distinct.is_empty()).then_some(distinct.len())
}

/// Seconds since 1970-01-01T00:00:00Z, negative before it.
fn seconds_since_epoch(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs() as i64,
        Err(before) => -(before.duration().as_secs_f64().ceil() as i64),
    }
}

/// `seconds` since the Unix epoch as UTC RFC 3339 ("2024-02-29T12:34:56Z"),
/// using the proleptic Gregorian calendar (Howard Hinnant's days-to-civil).
pub(crate) fn rfc3339_utc(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let second_of_day = seconds.rem_euclid(86_400);
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of a year.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second_of_day / 3_600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ClockSource;

    /// An AWS c6a.xlarge: two cores, two threads each (core ids repeat).
    const AMD_EPYC: &str = "\
processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC 7R13 Processor
stepping\t: 1
cpu MHz\t\t: 2649.998
cache size\t: 512 KB
physical id\t: 0
siblings\t: 4
core id\t\t: 0
cpu cores\t: 2
flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep sse sse2 ssse3 sha_ni avx2

processor\t: 1
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7R13 Processor
cpu MHz\t\t: 2650.000
physical id\t: 0
siblings\t: 4
core id\t\t: 1
cpu cores\t: 2

processor\t: 2
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7R13 Processor
cpu MHz\t\t: 2650.000
physical id\t: 0
siblings\t: 4
core id\t\t: 0
cpu cores\t: 2

processor\t: 3
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 7R13 Processor
cpu MHz\t\t: 2650.000
physical id\t: 0
siblings\t: 4
core id\t\t: 1
cpu cores\t: 2
";

    /// Two sockets of one core each, no SMT.
    const INTEL_XEON: &str = "\
processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 106
model name\t: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz
stepping\t: 6
microcode\t: 0xd000390
cpu MHz\t\t: 2899.968
cache size\t: 55296 KB
physical id\t: 0
siblings\t: 1
core id\t\t: 0
cpu cores\t: 1

processor\t: 1
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz
cpu MHz\t\t: 2899.968
physical id\t: 1
siblings\t: 1
core id\t\t: 0
cpu cores\t: 1
";

    /// An AWS Graviton2 (Neoverse-N1): no model name, no MHz, no core ids.
    const GRAVITON2: &str = "\
processor\t: 0
BogoMIPS\t: 243.75
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x3
CPU part\t: 0xd0c
CPU revision\t: 1

processor\t: 1
BogoMIPS\t: 243.75
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x3
CPU part\t: 0xd0c
CPU revision\t: 1
";

    #[test]
    fn amd_epyc_cpuinfo() {
        let info = parse_cpuinfo(AMD_EPYC);
        assert_eq!(info.model.as_deref(), Some("AMD EPYC 7R13 Processor"));
        assert_eq!(info.vendor.as_deref(), Some("AuthenticAMD"));
        assert_eq!(info.logical_threads, 4);
        assert_eq!(info.physical_cores, Some(2));
        assert_eq!(info.mhz, Some(2649.998));
    }

    #[test]
    fn intel_xeon_cpuinfo() {
        let info = parse_cpuinfo(INTEL_XEON);
        assert_eq!(
            info.model.as_deref(),
            Some("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz")
        );
        assert_eq!(info.vendor.as_deref(), Some("GenuineIntel"));
        assert_eq!(info.logical_threads, 2);
        // Same core id on two sockets: two cores.
        assert_eq!(info.physical_cores, Some(2));
        assert_eq!(info.mhz, Some(2899.968));
    }

    #[test]
    fn aarch64_cpuinfo_names_the_part() {
        let info = parse_cpuinfo(GRAVITON2);
        assert_eq!(info.model.as_deref(), Some("Neoverse-N1"));
        assert_eq!(info.vendor.as_deref(), Some("Arm"));
        assert_eq!(info.logical_threads, 2);
        assert_eq!(info.physical_cores, None);
        assert_eq!(info.mhz, None);
    }

    #[test]
    fn aarch64_unknown_parts_are_shown_not_guessed() {
        let text = GRAVITON2.replace("0xd0c", "0xd99").replace("0x41", "0xc0");
        let info = parse_cpuinfo(&text);
        assert_eq!(info.model.as_deref(), Some("Ampere CPU part 0xd99"));
        assert_eq!(info.vendor.as_deref(), Some("Ampere"));

        let text = GRAVITON2.replace("0x41", "0x99");
        let info = parse_cpuinfo(&text);
        assert_eq!(
            info.model.as_deref(),
            Some("CPU implementer 0x99 part 0xd0c")
        );
        assert_eq!(info.vendor.as_deref(), Some("implementer 0x99"));
    }

    #[test]
    fn big_little_lists_every_core_type() {
        let little = GRAVITON2.replacen("0xd0c", "0xd05", 1);
        let info = parse_cpuinfo(&little.replace("0xd0c", "0xd0b"));
        assert_eq!(info.model.as_deref(), Some("Cortex-A55 + Cortex-A76"));
    }

    #[test]
    fn missing_cpuinfo_says_nothing() {
        assert_eq!(parse_cpuinfo(""), CpuInfo::default());
        let no_model = "processor\t: 0\nBogoMIPS\t: 50.00\n";
        let info = parse_cpuinfo(no_model);
        assert_eq!(info.model, None);
        assert_eq!(info.logical_threads, 1);
    }

    #[test]
    fn cache_sizes_from_sysfs_words() {
        assert_eq!(parse_cache_size("32K"), Some(32 * 1024));
        assert_eq!(parse_cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_cache_size("8M"), Some(8 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size("lots"), None);

        let entry = |l: &str, t: &str, s: &str| (l.to_string(), t.to_string(), s.to_string());
        let epyc = [
            entry("1", "Data", "32K"),
            entry("1", "Instruction", "32K"),
            entry("2", "Unified", "1024K"),
            entry("3", "Unified", "32768K"),
        ];
        assert_eq!(
            cache_sizes(&epyc),
            CacheSizes {
                l1d: Some(32 << 10),
                l1i: Some(32 << 10),
                l2: Some(1 << 20),
                l3: Some(32 << 20),
            }
        );
        let graviton2 = [
            entry("1", "Data", "64K"),
            entry("1", "Instruction", "64K"),
            entry("2", "Unified", "1024K"),
        ];
        let caches = cache_sizes(&graviton2);
        assert_eq!(caches.l1d, Some(64 << 10));
        assert_eq!(caches.l3, None);
        assert_eq!(cache_sizes(&[]), CacheSizes::default());
    }

    #[test]
    fn cores_are_distinct_sibling_lists() {
        let lists = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(count_cores(&lists(&["0,2", "1,3", "0,2", "1,3"])), Some(2));
        assert_eq!(count_cores(&lists(&["0", "1"])), Some(2));
        assert_eq!(count_cores(&lists(&["0-1", "0-1\n"])), Some(1));
        assert_eq!(count_cores(&[]), None);
    }

    #[test]
    fn timestamps_are_utc_rfc3339() {
        // Expected values from `date -u -d @SECONDS +%FT%TZ`.
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_709_210_096), "2024-02-29T12:34:56Z");
        assert_eq!(rfc3339_utc(4_102_444_799), "2099-12-31T23:59:59Z");
        assert_eq!(rfc3339_utc(-86_401), "1969-12-30T23:59:59Z");
    }

    fn unmeasured_clock() -> ClockCalibration {
        ClockCalibration {
            hz: 0.0,
            source: ClockSource::Unavailable,
            trials: Vec::new(),
            spread: 0.0,
        }
    }

    #[test]
    fn capture_records_what_it_was_given_and_the_build() {
        let command = vec!["hashlab".to_string(), "bench".to_string()];
        let mask = vec!["sha".to_string()];
        let env = capture(command.clone(), mask.clone(), unmeasured_clock());
        assert_eq!(env.command_line, command);
        assert_eq!(env.cpu_mask, mask);
        assert_eq!(env.clock, unmeasured_clock());
        assert_eq!(env.hashlab_version, hashlab::VERSION);
        assert_eq!(env.os, std::env::consts::OS);
        assert!(
            env.target.contains(std::env::consts::ARCH),
            "{}",
            env.target
        );
        let detected: Vec<String> = hashlab::cpu::detected()
            .into_iter()
            .map(str::to_string)
            .collect();
        assert_eq!(env.cpu_features, detected);
        assert!(env.logical_threads >= 1 && env.usable_threads >= 1);
        assert!(env.usable_threads <= env.logical_threads);
        if let Some(cores) = env.physical_cores {
            assert!((1..=env.logical_threads).contains(&cores));
        }
        assert!(env
            .rustc
            .as_deref()
            .is_some_and(|v| v.starts_with("rustc ")));
        if let Some(commit) = &env.git_commit {
            let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
            assert!(hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit()));
        }
        let stamp = &env.timestamp;
        assert!(stamp.len() == 20 && stamp.ends_with('Z') && stamp.as_bytes()[10] == b'T');
        assert!(stamp.as_str() >= "2025-01-01");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn capture_reads_this_linux_machine() {
        let env = capture(Vec::new(), Vec::new(), unmeasured_clock());
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
        assert_eq!(env.kernel.as_deref(), Some(release.trim()));
        let governor =
            std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").ok();
        assert_eq!(env.governor.as_deref(), governor.as_deref().map(str::trim));
        assert_ne!(env.cpu_model, "");
        if cfg!(target_arch = "x86_64") {
            assert_ne!(env.cpu_model, UNKNOWN);
            assert_eq!(Some(env.cpu_vendor.clone()), hashlab::cpu::x86_vendor());
        }
    }

    #[test]
    fn environment_round_trips_through_json() {
        let env = capture(
            vec!["hashlab".into()],
            vec!["avx2".into()],
            unmeasured_clock(),
        );
        let json = serde_json::to_string(&env).unwrap();
        let back: Environment = serde_json::from_str(&json).unwrap();
        assert_eq!(back, env);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        for field in [
            "cpu_model",
            "cpu_vendor",
            "logical_threads",
            "physical_cores",
            "caches",
            "cpu_features",
            "kernel",
            "governor",
            "git_commit",
            "rustc",
            "target",
            "timestamp",
            "clock",
            "cpu_mask",
        ] {
            assert!(value.get(field).is_some(), "no {field}");
        }
    }
}
