//! `pick`: which algorithm for a use, from the facts (what is allowed), the
//! availability table (what the other ends have) and measured speed on one
//! machine (what is fastest), with the reasons spelled out.

use std::time::Duration;

use hashlab::{Class, Registry};
use hashlab_bench::limits::MeasureError;
use hashlab_bench::plan::Mode;
use hashlab_bench::report::{measure, plan_for, Cancel, Report, Request};
use hashlab_bench::runner::Progress;
use hashlab_bench::selection::{Algorithms, Selection};
use hashlab_bench::sizes::size_label;
use hashlab_bench::workbench::inputs_fit;
use serde::Serialize;

use crate::availability::{Availability, Entry, Offer};
use crate::facts::{AlgorithmFacts, Facts, Keyed, LengthExtension, Status};
use crate::speed::{group_thousands, runtime_speed_at, short_keys_speed, speed_at, Measured};

/// What the hash is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Use {
    /// Naming content by its hash, as git does: anyone computes it, an
    /// attacker must not find two contents with one name.
    ContentAddressing,
    /// Detecting corruption of stored data (bitrot).
    Integrity,
    /// Authenticating messages, or a PRF, with a secret key.
    Mac,
    /// Bucketing keys in a hash table.
    HashTable,
    /// Detecting corruption in a transfer.
    Transfer,
}

impl Use {
    pub const ALL: [Use; 5] = [
        Use::ContentAddressing,
        Use::Integrity,
        Use::Mac,
        Use::HashTable,
        Use::Transfer,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Use::ContentAddressing => "content-addressing",
            Use::Integrity => "integrity",
            Use::Mac => "mac",
            Use::HashTable => "hash-table",
            Use::Transfer => "transfer",
        }
    }

    pub fn parse(text: &str) -> Result<Use, String> {
        let t = text.trim().to_ascii_lowercase().replace('_', "-");
        Ok(match t.as_str() {
            "content-addressing" | "content" | "cas" => Use::ContentAddressing,
            "integrity" | "bitrot" => Use::Integrity,
            "mac" | "prf" => Use::Mac,
            "hash-table" | "hashtable" | "table" => Use::HashTable,
            "transfer" | "checksum" => Use::Transfer,
            _ => {
                return Err(format!(
                "'{text}' is not a use (content-addressing, integrity, mac, hash-table, transfer)"
            ))
            }
        })
    }

    /// What the use demands, in one sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Use::ContentAddressing => "content addressing: anyone computes the name; nobody may find two contents with one name",
            Use::Integrity => "integrity of stored data: detect random corruption (bitrot); no attacker assumed",
            Use::Mac => "MAC/PRF with a secret key: nobody without the key may forge a tag",
            Use::HashTable => "hash table: spread keys over buckets fast; keys are not chosen by an attacker unless a minimum security is asked for",
            Use::Transfer => "transfer checksum: detect corruption on the way; no attacker assumed",
        }
    }

    /// A typical message size: git's average blob is a few KiB (seed 001),
    /// files and transfers are read in large chunks, MACs cover messages,
    /// hash tables hash short keys.
    pub fn default_size(self) -> usize {
        match self {
            Use::ContentAddressing => 4 << 10,
            Use::Integrity | Use::Transfer => 1 << 20,
            Use::Mac => 1 << 10,
            Use::HashTable => 16,
        }
    }

    /// The security asked for when `--min-security` is not given.
    pub fn default_min_security(self) -> u32 {
        match self {
            Use::ContentAddressing | Use::Mac => 128,
            Use::Integrity | Use::HashTable | Use::Transfer => 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PickRequest {
    pub use_: Use,
    pub min_security: Option<u32>,
    pub size: Option<usize>,
    /// Ecosystem ids every choice must ship in.
    pub interop: Vec<String>,
}

impl PickRequest {
    pub fn size(&self) -> usize {
        self.size.unwrap_or_else(|| self.use_.default_size())
    }
    pub fn min_security(&self) -> u32 {
        self.min_security
            .unwrap_or_else(|| self.use_.default_min_security())
    }
}

/// The names users weigh first (the seeds' candidates); when one is left out,
/// `pick` says why in its table, the rest only in JSON.
pub const POPULAR: &[&str] = &[
    "sha256",
    "sha1",
    "md5",
    "sha512",
    "sha512-256",
    "sha3-256",
    "blake2b",
    "blake3",
    "k12",
    "xxh3-64",
    "xxh64",
    "crc32c",
    "siphash-2-4",
    "highwayhash-64",
    "hmac-sha256",
];

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exclusion {
    pub algorithm: String,
    pub reason: String,
    pub popular: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidates {
    pub names: Vec<String>,
    pub excluded: Vec<Exclusion>,
}

/// Filters the registry by the facts and the availability table.
pub fn candidates(request: &PickRequest, know: Knowledge) -> Result<Candidates, String> {
    let Knowledge {
        facts,
        table,
        registry,
    } = know;
    let known = table.ecosystem_ids();
    for eco in &request.interop {
        if !known.contains(&eco.as_str()) {
            return Err(format!(
                "'{eco}' is not an ecosystem ({})",
                known.join(", ")
            ));
        }
    }
    let mut names = Vec::new();
    let mut excluded = Vec::new();
    for alg in registry.algorithms() {
        let reason = match facts.get(&alg.name) {
            None => Some("no facts recorded".to_string()),
            Some(f) => refuse(request, f, alg.class, facts)
                .or_else(|| refuse_interop(request, &alg.name, table, registry)),
        };
        match reason {
            Some(reason) => excluded.push(Exclusion {
                algorithm: alg.name.clone(),
                reason,
                popular: POPULAR.contains(&alg.name.as_str()),
            }),
            None => names.push(alg.name.clone()),
        }
    }
    Ok(Candidates { names, excluded })
}

/// Why the facts rule an algorithm out for the use, if they do.
fn refuse(
    request: &PickRequest,
    f: &AlgorithmFacts,
    class: Class,
    facts: &Facts,
) -> Option<String> {
    let min = request.min_security();
    let collision_short = |min: u32| -> Option<String> {
        let Some(bits) = f.effective_collision_bits() else {
            return Some(format!(
                "{} ({})",
                f.status_text,
                facts.cite(&f.status_cite)
            ));
        };
        if bits >= f64::from(min) {
            return None;
        }
        Some(match &f.attack {
            Some(a) if a.collision_bits < f64::from(f.collision_bits.unwrap_or(0)) => format!(
                "collision security about {:.0} bits in practice, under {min}: {} ({})",
                a.collision_bits,
                a.text.split(';').next().unwrap_or(&a.text),
                facts.cite(&a.cite)
            ),
            _ => format!(
                "collision security {bits:.0} bits, under {min} ({})",
                facts.cite(&f.security_cite)
            ),
        })
    };
    let short_output = |need: u32| -> Option<String> {
        (f.output_bits < need).then(|| {
            format!(
                "{}-bit output: a random corruption goes unnoticed with probability 2^-{} per check; this use wants at least {need} bits",
                f.output_bits, f.output_bits
            )
        })
    };
    match request.use_ {
        Use::ContentAddressing => {
            if f.keyed == Keyed::Required {
                return Some(
                    "needs a secret key, but a content address must be computable by anyone".into(),
                );
            }
            collision_short(min)
        }
        Use::Integrity | Use::Transfer => {
            if class == Class::Mac {
                return Some("a MAC: its key buys nothing against random corruption".into());
            }
            short_output(64).or_else(|| (min > 0).then(|| collision_short(min)).flatten())
        }
        Use::Mac => {
            if f.keyed == Keyed::No {
                return Some(
                    "no keyed mode (a secret prefix is no MAC construction; use HMAC, KMAC or a keyed hash)".into(),
                );
            }
            match f.mac_bits {
                None => Some(format!(
                    "no security level claimed as a MAC: {} ({})",
                    f.status_text,
                    facts.cite(&f.status_cite)
                )),
                Some(bits) if bits < min => Some(format!(
                    "MAC security {bits} bits, under {min}: {} ({})",
                    f.mac_note.as_deref().unwrap_or(""),
                    facts.cite(&f.mac_cite)
                )),
                Some(_) => None,
            }
        }
        Use::HashTable => {
            if f.status == Status::Checksum {
                let quality = f.smhasher3.map_or_else(String::new, |s| {
                    format!("; SMHasher3 fails {} of {} tests", s.failed, s.tests)
                });
                return Some(format!(
                    "an error-detecting code, a poor hash-table hash{quality}"
                ));
            }
            // A hash failing a quarter of SMHasher3's tests spreads keys badly
            // somewhere (seed 003 weighed HighwayHash's quality this way).
            if let Some(q) = f.smhasher3.filter(|q| q.failed * 4 > q.tests) {
                return Some(format!(
                    "poor distribution: SMHasher3 fails {} of {} tests ({})",
                    q.failed,
                    q.tests,
                    facts.short(crate::facts::SMHASHER3_SOURCE)
                ));
            }
            if min > 0 && (f.keyed == Keyed::No || !f.prf) {
                return Some(format!(
                    "keys an attacker chooses need a keyed PRF (minimum security {min} bits); this has no key"
                ));
            }
            None
        }
    }
}

/// The speed of `algorithm` in the measured runtimes of `ecosystems`: each
/// one's fastest library, and of those the slowest. `None` when none of
/// them measured it.
fn interop_speed(
    registry: &Registry,
    report: &Report,
    algorithm: &str,
    size: usize,
    ecosystems: &[&str],
) -> Option<Measured> {
    ecosystems
        .iter()
        .filter_map(|eco| runtime_speed_at(registry, report, algorithm, size, eco))
        .min_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))
}

fn refuse_interop(
    request: &PickRequest,
    algorithm: &str,
    table: &Availability,
    registry: &Registry,
) -> Option<String> {
    for eco in &request.interop {
        let entry = table.entry(eco, algorithm, registry)?;
        if !entry.usable_for_interop() {
            return Some(format!(
                "not shipped by {}: {}",
                entry.title,
                entry.describe()
            ));
        }
    }
    None
}

/// One recommended (or merely allowed) algorithm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// 1 for the fastest; `None` when unmeasured.
    pub rank: Option<usize>,
    pub algorithm: String,
    pub measured: Option<Measured>,
    /// The projected time for all of a user's data (`pick --like`), which
    /// ranks instead of `measured`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projected: Option<hashlab_bench::like::Projection>,
    /// One line: speed, availability, standard.
    pub summary: String,
    /// Each fact the choice rests on, with its numbers and sources.
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pick {
    #[serde(rename = "use")]
    pub use_: Use,
    pub use_text: String,
    pub size: usize,
    pub min_security: u32,
    pub interop: Vec<String>,
    /// Where the speeds come from ("zen4-plain.json", or a quick bench here).
    pub speed_source: String,
    /// The CPU the speeds were measured on.
    pub cpu: String,
    /// Measured choices fastest first, then the unmeasured ones.
    pub choices: Vec<Choice>,
    pub excluded: Vec<Exclusion>,
    pub notes: Vec<String>,
}

/// Where speeds come from, for the reasons' wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpeedOrigin {
    /// A results file (maybe from another machine).
    File,
    /// Measured now, on this machine.
    Here,
}

/// What pick knows besides speed.
#[derive(Clone, Copy)]
pub struct Knowledge<'a> {
    pub facts: &'a Facts,
    pub table: &'a Availability,
    pub registry: &'a Registry,
}

/// The speeds pick ranks by.
#[derive(Clone, Copy)]
pub struct Speeds<'a> {
    pub report: &'a Report,
    pub origin: SpeedOrigin,
    /// Names the source in reasons ("zen4-plain.json", "a quick bench here").
    pub label: &'a str,
}

/// Ranks the candidates by their speed at the request's size.
pub fn rank(
    request: &PickRequest,
    know: Knowledge,
    candidates: Candidates,
    speeds: Speeds,
) -> Pick {
    let report = speeds.report;
    let source_label = speeds.label;
    let size = request.size();
    let mut measured = Vec::new();
    let mut unmeasured = Vec::new();
    // A hash table hashes short keys one call each: where the report has
    // them (`bench --keys`), they rank, not a fixed size.
    let by_keys = request.use_ == Use::HashTable
        && report
            .cells
            .iter()
            .any(|c| c.mode == Mode::Keys { chained: false });
    // `--interop` ecosystems whose own runtime the report measured (`bench
    // --runtime`): what counts there is the speed a program in that language
    // gets, not hashlab's.
    let in_runtimes: Vec<&str> = request
        .interop
        .iter()
        .map(String::as_str)
        .filter(|eco| {
            report.runtimes.iter().flat_map(|r| &r.libraries).any(|l| {
                l.ecosystem == *eco && l.state == hashlab_bench::runtimes::LibraryState::Measured
            })
        })
        .collect();
    for name in &candidates.names {
        let speed = if by_keys {
            short_keys_speed(know.registry, report, name)
        } else if !in_runtimes.is_empty() {
            interop_speed(know.registry, report, name, size, &in_runtimes)
                .or_else(|| speed_at(know.registry, report, name, size))
        } else {
            speed_at(know.registry, report, name, size)
        };
        match speed {
            Some(m) => measured.push(m),
            None => unmeasured.push(name.clone()),
        }
    }
    measured.sort_by(|a, b| b.mb_per_s.total_cmp(&a.mb_per_s));
    let env = &report.environment;
    let mask = if env.cpu_mask.is_empty() {
        String::new()
    } else {
        format!(", with {} masked", env.cpu_mask.join(","))
    };
    let cpu = format!("{}{mask}", env.cpu_model);
    let mut choices: Vec<Choice> = measured
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let name = m.algorithm.clone();
            choice(request, know, speeds, &name, Some(m), Some(i + 1))
        })
        .collect();
    choices.extend(
        unmeasured
            .iter()
            .map(|name| choice(request, know, speeds, name, None, None)),
    );
    let mut notes = Vec::new();
    if by_keys {
        notes.push(format!(
            "ranked by short keys of 1 to {} bytes of random length, one hash each (MB/s over their bytes; {source_label})",
            hashlab_bench::selection::KEYS_MAX_LEN
        ));
    } else if let Some(first) = choices.first().and_then(|c| c.measured.as_ref()) {
        if first.size != size {
            notes.push(format!(
                "{source_label} has no cell at {}: speeds are at the nearest measured size, {}",
                size_label(size),
                size_label(first.size)
            ));
        }
    }
    if !in_runtimes.is_empty() && !by_keys {
        notes.push(format!(
            "ranked by the speed measured in {} (bench --runtime: each ecosystem's fastest library; with several, the slowest of them, which a system using all of them waits for); an algorithm none of them measured ranks by hashlab's own speed",
            in_runtimes.join(", ")
        ));
    }
    if !unmeasured.is_empty() {
        let what = if by_keys {
            "short-key result"
        } else {
            "single-thread result"
        };
        notes.push(format!(
            "{source_label} has no {what} for {}: shown as unmeasured, not measured now",
            unmeasured.join(", ")
        ));
    }
    notes.extend(use_notes(request.use_));
    Pick {
        use_: request.use_,
        use_text: request.use_.describe().to_string(),
        size,
        min_security: request.min_security(),
        interop: request.interop.clone(),
        speed_source: source_label.to_string(),
        cpu,
        choices,
        excluded: candidates.excluded,
        notes,
    }
}

pub(crate) fn use_notes(use_: Use) -> Vec<String> {
    match use_ {
        Use::ContentAddressing => vec![
            "length extension does not matter when the length is hashed first, as git's object header does".into(),
        ],
        Use::Integrity | Use::Transfer => vec![
            "no attacker assumed: if a checksum must also stop deliberate tampering (downloads from untrusted mirrors), pick for content addressing instead".into(),
        ],
        Use::HashTable => vec![
            "keys chosen by an attacker (hash flooding): ask for a minimum security of 64 bits to require a keyed PRF with a secret per-table key".into(),
        ],
        Use::Mac => Vec::new(),
    }
}

fn choice(
    request: &PickRequest,
    know: Knowledge,
    speeds: Speeds,
    name: &str,
    measured: Option<Measured>,
    rank: Option<usize>,
) -> Choice {
    let (origin, source_label) = (speeds.origin, speeds.label);
    let mut reasons = Vec::new();
    let speed = match &measured {
        Some(m) => {
            let path = m
                .path
                .as_ref()
                .map(|p| format!(", {} path", p.path))
                .unwrap_or_default();
            let where_ = match origin {
                SpeedOrigin::Here => "here".to_string(),
                SpeedOrigin::File => format!("in {source_label}"),
            };
            let nearest = if m.size != m.requested_size {
                format!(" (nearest measured to {})", size_label(m.requested_size))
            } else {
                String::new()
            };
            let text = format!(
                "{} MB/s {where_} at {}{nearest} ({}{path})",
                group_thousands(m.mb_per_s),
                size_label(m.size),
                m.backend
            );
            reasons.push(format!("speed: {text}"));
            text
        }
        None => {
            reasons.push(format!(
                "speed: unmeasured ({source_label} has no result for it)"
            ));
            "unmeasured".to_string()
        }
    };
    let mut choice = with_speed(request, know, name, &speed, reasons, rank);
    choice.measured = measured;
    choice
}

/// A choice from its speed (`speed`: the summary's words; `reasons`: the
/// speed's reasons so far) and the facts and availability of `name`.
pub(crate) fn with_speed(
    request: &PickRequest,
    know: Knowledge,
    name: &str,
    speed: &str,
    mut reasons: Vec<String>,
    rank: Option<usize>,
) -> Choice {
    let Knowledge {
        facts,
        table,
        registry,
    } = know;
    let f = facts.get(name).expect("candidates have facts");
    reasons.extend(security_reasons(request, f, facts));
    let entries = table.entries(name, registry);
    let availability = availability_text(request, &entries);
    reasons.push(format!("availability: {availability}"));
    let standards = facts.cite(&f.standards);
    reasons.push(format!("defined by: {standards}"));
    let summary = format!("{name}: {speed}; {availability}; {standards}");
    Choice {
        rank,
        algorithm: name.to_string(),
        measured: None,
        projected: None,
        summary,
        reasons,
    }
}

fn security_reasons(request: &PickRequest, f: &AlgorithmFacts, facts: &Facts) -> Vec<String> {
    let mut out = Vec::new();
    let generic = match (f.collision_bits, f.preimage_bits) {
        (Some(c), Some(p)) => Some(format!(
            "collision {c} bits, preimage {p} bits ({})",
            facts.cite(&f.security_cite)
        )),
        _ => None,
    };
    match request.use_ {
        Use::ContentAddressing => {
            out.extend(generic.map(|g| format!("security: {g}")));
            if f.length_extension == LengthExtension::Vulnerable {
                out.push(
                    "length extension: vulnerable; harmless when the length is hashed first".into(),
                );
            }
        }
        Use::Mac => {
            if let Some(bits) = f.mac_bits {
                out.push(format!(
                    "MAC security: {bits} bits, {} ({})",
                    f.mac_note.as_deref().unwrap_or(""),
                    facts.cite(&f.mac_cite)
                ));
            }
            if f.keyed == Keyed::Optional {
                out.push("keyed mode: give it a key; unkeyed it is a plain hash".into());
            }
        }
        Use::HashTable => {
            if let Some(s) = f.smhasher3 {
                out.push(if s.failed == 0 {
                    format!(
                        "quality: passes all {} SMHasher3 tests ({})",
                        s.tests,
                        facts.short(crate::facts::SMHASHER3_SOURCE)
                    )
                } else {
                    format!(
                        "quality: fails {} of {} SMHasher3 tests ({})",
                        s.failed,
                        s.tests,
                        facts.short(crate::facts::SMHASHER3_SOURCE)
                    )
                });
            }
            if f.keyed != Keyed::No && f.prf {
                out.push("keyed PRF: a secret per-table key resists hash flooding".into());
            }
        }
        Use::Integrity | Use::Transfer => {
            out.push(format!(
                "detection: a random corruption slips through with probability 2^-{}",
                f.output_bits
            ));
            if f.keyed == Keyed::Required {
                out.push(
                    "keyed: store one fixed key with the checksums (MinIO does so for bitrot)"
                        .into(),
                );
            }
        }
    }
    if f.status != Status::Sound {
        out.push(format!(
            "status: {} ({})",
            f.status_text,
            facts.cite(&f.status_cite)
        ));
    }
    out
}

/// "ships in every ecosystem asked (go since 1.24, python)" or, without
/// `--interop`, "ships in 11 of 13: openssl, ...".
fn availability_text(request: &PickRequest, entries: &[Entry]) -> String {
    let label = |e: &Entry| match &e.since {
        Some(v) => format!("{} since {v}", e.ecosystem),
        None => e.ecosystem.clone(),
    };
    if !request.interop.is_empty() {
        let asked: Vec<String> = entries
            .iter()
            .filter(|e| request.interop.contains(&e.ecosystem))
            .map(label)
            .collect();
        return format!("in every ecosystem asked ({})", asked.join(", "));
    }
    let shipping: Vec<String> = entries
        .iter()
        .filter(|e| e.offer == Offer::Ships)
        .map(label)
        .collect();
    let packaged: Vec<&str> = entries
        .iter()
        .filter(|e| e.offer == Offer::Package && e.ecosystem != crate::availability::RUST)
        .map(|e| e.ecosystem.as_str())
        .collect();
    let mut text = if shipping.is_empty() {
        "ships in no standard library listed".to_string()
    } else {
        format!(
            "ships in {} of {}: {}",
            shipping.len(),
            entries.len() - 1,
            shipping.join(", ")
        )
    };
    if !packaged.is_empty() {
        text.push_str(&format!("; a package in {}", packaged.join(", ")));
    }
    text
}

/// What [`quick_bench`] would refuse, decided before it runs: the bench's
/// bounds, then whether its inputs can be had on this machine.
pub fn check_quick_bench(
    registry: &Registry,
    algorithms: &[String],
    size: usize,
    use_: Use,
) -> Result<(), MeasureError> {
    let request = quick_bench_request(algorithms, size, use_, &[]);
    request.validate(registry)?;
    let plan = plan_for(registry, &request).map_err(MeasureError::Failed)?;
    Ok(inputs_fit(&plan)?)
}

/// A quick single-thread bench of `algorithms` at exactly `size` on this
/// machine, default backends, for `pick` without a results file.
/// `command_line` is recorded in the report.
pub fn quick_bench(
    registry: &Registry,
    algorithms: &[String],
    size: usize,
    use_: Use,
    command_line: &[String],
    stop: &Cancel,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, MeasureError> {
    let request = quick_bench_request(algorithms, size, use_, command_line);
    measure(registry, &request, stop, progress)
}

/// The bench [`quick_bench`] runs, for a caller to validate before it runs.
pub fn quick_bench_request(
    algorithms: &[String],
    size: usize,
    use_: Use,
    command_line: &[String],
) -> Request {
    let quick = Request::quick();
    Request {
        selection: Selection {
            algorithms: Algorithms::Named(algorithms.to_vec()),
            sizes: vec![size],
            keys: use_ == Use::HashTable,
            also: Vec::new(),
            ..quick.selection
        },
        // A glance for one size: the clock matters less than the wait.
        clock_budget: Duration::from_millis(50),
        command_line: command_line.to_vec(),
        ..quick
    }
}
