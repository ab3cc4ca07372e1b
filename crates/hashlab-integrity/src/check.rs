//! Verifying a manifest: each line's file is hashed with the algorithm the
//! caller, the line's tag, the manifest's name or the digest's length names,
//! and the outcome handed to the caller as data, in manifest order. An SFV
//! file's lines are CRC-32's.

use std::io::{self, BufRead};
use std::path::Path;

use hashlab::{Algorithm, Choice, HashParams, Hasher, OutputRule, Registry};

use crate::ambiguity::{Lengths, Plan, Settlement};
use crate::bounded::{BoundedLines, LineError};
use crate::cancel::{is_interrupted, Cancel};
use crate::manifest::{
    parse_record, parse_sfv_line, sfv_algorithm, Entry, Framing, GnuReading, Line, TagHint,
};
use crate::read::{hash_file, hash_reader, ReadBuffer, ReadStrategy};

mod outcome;
mod piecewise;
mod words;
pub use outcome::{CheckError, Outcome, Unsettled};
pub use piecewise::{manifest_shape, EntryCheckError, EntryChecker, EntryVerdict, ManifestShape};
pub use words::{verdict_line, ProblemCount};

/// What the caller fixed for every line.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Canonical algorithm name (`-a`); a tag naming another algorithm is then malformed.
    pub algorithm: Option<String>,
    /// Backend for `algorithm`.
    pub backend: Option<String>,
    /// Output length in bytes; a line with a digest of another length is malformed.
    pub length: Option<usize>,
    /// Key, customization, salt, seed... for every line; its length and
    /// multi-threaded mode are decided per line.
    pub params: HashParams,
    /// A listed file that does not exist is skipped silently.
    pub ignore_missing: bool,
    /// Read every file with read(), never through a memory map.
    pub no_mmap: bool,
    /// Set by the caller to stop checking, mid-file: `check` then returns
    /// [`CheckError::Interrupted`].
    pub cancel: Cancel,
    /// How the manifest's records end (`sum -z` writes NUL-terminated ones).
    pub framing: Framing,
}

/// The algorithm a manifest's file name suggests: `x.sha256`, `x.b2`,
/// `SHA256SUMS`, `b3sums.txt`.
pub fn algorithm_from_manifest_name(registry: &Registry, name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let lower = lower.strip_suffix(".txt").unwrap_or(&lower);
    let candidate = if let Some(stem) = lower
        .strip_suffix("sums")
        .or_else(|| lower.strip_suffix("sum"))
        .filter(|s| !s.is_empty() && !s.ends_with('.'))
    {
        stem.rsplit(['/', '.']).next().unwrap_or(stem)
    } else {
        lower.rsplit_once('.')?.1
    };
    // The tools' short names (b2, b3, xxh3, xxh128) are the catalog's aliases.
    registry.algorithm(candidate).ok().map(|a| a.name.clone())
}

/// Which form a manifest's lines take. GNU, BSD-tag and OpenSSL lines mix
/// freely in one manifest, as coreutils reads them; an SFV file's lines
/// (`NAME CRC`) are another form, and `deadbeef 0123abcd` reads as either
/// (a reversed GNU line, or an SFV line), so each manifest is read in one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ManifestForm {
    /// Decided by the first line that is one form and not the other: a `;`
    /// comment (which rhash writes first, and no checksum tool writes) or a
    /// line only SFV reads make it an SFV file; a checksum line that settles
    /// (as [`settle`] says) makes it a checksum manifest.
    #[default]
    Undecided,
    Checksums,
    /// Named `*.sfv`, as rhash and cfv take such a file, or found so.
    Sfv,
}

/// What a manifest's name says about its lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestHint {
    /// The algorithm the name suggests (see [`algorithm_from_manifest_name`]).
    pub algorithm: Option<String>,
    pub form: ManifestForm,
}

impl ManifestHint {
    /// The catalog tag (`SHA256`) of the algorithm the manifest's lines are
    /// expected in, which coreutils names in its warnings: the caller's
    /// `chosen` one, else the one the name or the SFV form tells.
    pub fn expected_tag(&self, registry: &Registry, chosen: Option<&Algorithm>) -> Option<String> {
        if let Some(chosen) = chosen {
            return Some(chosen.tag.clone());
        }
        let named = self
            .algorithm
            .as_ref()
            .and_then(|h| registry.algorithm(h).ok());
        let sfv = || {
            (self.form == ManifestForm::Sfv)
                .then(|| sfv_algorithm(registry))
                .flatten()
        };
        named.or_else(sfv).map(|a| a.tag.clone())
    }
}

/// What `name` says: the algorithm of `x.sha256` or `SHA256SUMS`, and the
/// SFV form of `x.sfv` (any case).
pub fn manifest_hint(registry: &Registry, name: &str) -> ManifestHint {
    let sfv = name
        .rsplit_once('.')
        .is_some_and(|(_, extension)| extension.eq_ignore_ascii_case("sfv"));
    ManifestHint {
        algorithm: algorithm_from_manifest_name(registry, name),
        form: if sfv {
            ManifestForm::Sfv
        } else {
            ManifestForm::Undecided
        },
    }
}

/// The first candidate for an untagged line of this many bytes (what
/// coreutils reads it as, where it has a tool for the length): what `audit`
/// and known-hash sets take it for. `check` tries every candidate instead
/// (see [`crate::ambiguity`]).
pub(crate) fn algorithm_from_length(
    registry: &Registry,
    bytes: usize,
) -> Option<&std::sync::Arc<Algorithm>> {
    crate::ambiguity::candidates(registry, bytes)
        .into_iter()
        .next()
}

/// The algorithm and output length for a line with a digest of `len` bytes:
/// the caller's `chosen` algorithm and `length` first, then the line's tag,
/// the manifest name's `hint`, and the digest's length.
pub(crate) fn settle<'r>(
    registry: &'r Registry,
    chosen: Option<&str>,
    length: Option<usize>,
    tag: Option<&TagHint>,
    len: usize,
    hint: Option<&str>,
) -> Result<(&'r Algorithm, usize), Unsettled> {
    let known = |name: &str| {
        registry
            .algorithm(name)
            .map_err(|_| Unsettled::Undecided { bytes: len })
    };
    let (algorithm, tag_len) = match (chosen, tag) {
        (Some(chosen), Some(tag)) if tag.algorithm != chosen => {
            return Err(Unsettled::OtherAlgorithm {
                tag: tag.algorithm.clone(),
                asked: chosen.to_string(),
            })
        }
        (Some(chosen), tag) => (known(chosen)?, tag.and_then(|t| t.length)),
        (None, Some(tag)) => (known(&tag.algorithm)?, tag.length),
        (None, None) => match hint {
            Some(name) => (known(name)?, None),
            None => (
                algorithm_from_length(registry, len).ok_or(Unsettled::Undecided { bytes: len })?,
                None,
            ),
        },
    };
    let fits = match algorithm.output {
        OutputRule::Fixed { bytes } => bytes == len,
        // b2sum reads the length of a GNU line from its digest.
        rule => {
            let (min, max) = rule.range();
            (min..=max).contains(&len)
        }
    };
    if !fits || tag_len.is_some_and(|t| t != len) || length.is_some_and(|l| l != len) {
        return Err(Unsettled::Length {
            algorithm: algorithm.name.clone(),
            bytes: len,
        });
    }
    Ok((algorithm, len))
}

/// Why a line gave no entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unread {
    /// Not a line of any form this reader knows, or not of the manifest's form.
    NotAChecksumLine,
    Unsettled(Unsettled),
}

/// A line's entry with its algorithm and digest length settled.
pub(crate) type Settled<'r> = (Entry, &'r Algorithm, usize);

/// Reads one manifest's lines, settling its form (see [`ManifestForm`]) as
/// it goes; `check` and `audit` read through it, so they read the same.
pub(crate) struct LineReader<'r, 'a> {
    pub registry: &'r Registry,
    /// The caller's algorithm and length, over what lines say.
    pub chosen: Option<&'a str>,
    pub length: Option<usize>,
    /// The algorithm the manifest's name suggests.
    pub hint: Option<&'a str>,
    pub framing: Framing,
    pub form: ManifestForm,
}

impl<'r> LineReader<'r, '_> {
    /// The entry of one raw line (terminator included or not), `None` for a
    /// comment or blank line. `reading` is the run's GNU reading.
    pub fn read(
        &mut self,
        raw: &[u8],
        reading: &mut GnuReading,
    ) -> Result<Option<Settled<'r>>, Unread> {
        // SFV lines end with a newline; records ended by NUL are checksum lines.
        if self.framing == Framing::Nul {
            self.form = ManifestForm::Checksums;
        }
        match self.form {
            ManifestForm::Checksums => {
                self.checksum_line(parse_record(self.registry, raw, self.framing), reading)
            }
            ManifestForm::Sfv => self.sfv_line(raw),
            ManifestForm::Undecided => {
                if raw.first() == Some(&b';') {
                    self.form = ManifestForm::Sfv;
                    return Ok(None);
                }
                let line = parse_record(self.registry, raw, self.framing);
                // A tag line is a checksum line, whatever SFV would make of it.
                let tagged = matches!(line, Line::Entry(_));
                let read = self.checksum_line(line, reading);
                match read {
                    Ok(Some(_)) => self.form = ManifestForm::Checksums,
                    Err(_) if !tagged => {
                        if let Line::Entry(_) = parse_sfv_line(self.registry, raw) {
                            self.form = ManifestForm::Sfv;
                            return self.sfv_line(raw);
                        }
                    }
                    _ => {}
                }
                read
            }
        }
    }

    fn settle(&self, tag: Option<&TagHint>, len: usize) -> Result<(&'r Algorithm, usize), Unread> {
        settle(self.registry, self.chosen, self.length, tag, len, self.hint)
            .map_err(Unread::Unsettled)
    }

    fn checksum_line(
        &self,
        line: Line,
        reading: &mut GnuReading,
    ) -> Result<Option<Settled<'r>>, Unread> {
        match line {
            Line::Skip => Ok(None),
            Line::Malformed => Err(Unread::NotAChecksumLine),
            Line::Entry(e) if e.size.is_some() => {
                let (algorithm, len) =
                    crate::ambiguity::settle_cksum(self.registry, self.chosen, &e.expected)
                        .map_err(Unread::Unsettled)?;
                Ok(Some((e, algorithm, len)))
            }
            Line::Entry(e) => {
                let (algorithm, len) = self.settle(e.tag.as_ref(), e.expected.len())?;
                Ok(Some((e, algorithm, len)))
            }
            // The digest is checked before the line settles the run's reading, as coreutils does.
            Line::Gnu(g) => {
                let (algorithm, len) = self.settle(g.tag.as_ref(), g.expected.len())?;
                let entry = g.resolve(reading).ok_or(Unread::NotAChecksumLine)?;
                Ok(Some((entry, algorithm, len)))
            }
        }
    }

    fn sfv_line(&self, raw: &[u8]) -> Result<Option<Settled<'r>>, Unread> {
        match parse_sfv_line(self.registry, raw) {
            Line::Entry(e) => {
                let (algorithm, len) = self.settle(e.tag.as_ref(), e.expected.len())?;
                Ok(Some((e, algorithm, len)))
            }
            Line::Skip => Ok(None),
            Line::Malformed | Line::Gnu(_) => Err(Unread::NotAChecksumLine),
        }
    }
}

/// One line's result.
#[derive(Debug)]
pub struct LineResult {
    /// 1-based, counting comments and blank lines, as coreutils numbers them.
    pub line_number: u64,
    /// The file name (unescaped); empty for a malformed line.
    pub name: Vec<u8>,
    pub outcome: Outcome,
    /// Set on the line whose file settled the algorithm of an untagged
    /// digest length (or on which every candidate failed): see [`Settlement`].
    pub settlement: Option<Settlement>,
    /// The catalog tag of a tagged line's algorithm (`SHA256` for
    /// `SHA2-256(f)= ...` too): coreutils' `cksum -c` names the last one in
    /// its messages.
    pub tagged: Option<String>,
}

/// Counts over a whole manifest, as coreutils summarizes them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    pub malformed: u64,
    pub unreadable: u64,
    pub mismatched: u64,
    pub matched: u64,
    pub missing: u64,
}

impl Summary {
    /// At least one line was a checksum line.
    pub fn any_properly_formatted(&self) -> bool {
        self.matched + self.mismatched + self.unreadable + self.missing > 0
    }

    /// The manifest passes: coreutils 9.1's rule, plus `--strict`.
    pub fn passed(&self, strict: bool, ignore_missing: bool) -> bool {
        self.any_properly_formatted()
            && self.mismatched == 0
            && self.unreadable == 0
            && !(ignore_missing && self.matched == 0)
            && !(strict && self.malformed > 0)
    }
}

struct Prepared {
    hasher: Box<dyn Hasher>,
    buffer: ReadBuffer,
    strategy: ReadStrategy,
}

/// Reads a named input that is not a local file (an object-store URL) into a
/// hasher: `None` for a name it does not handle, else the bytes it read.
pub type Opener<'a> = Box<dyn FnMut(&[u8], &mut dyn Hasher) -> Option<io::Result<u64>> + 'a>;

/// The most (algorithm, length) hashers a [`Checker`] keeps: each holds a
/// read buffer, and a manifest of thousands of SHAKE256 lines of different
/// lengths would otherwise keep thousands of them to its end.
const KEPT_HASHERS: usize = 8;

/// Checks manifests, keeping a hasher per (algorithm, length) across lines,
/// the [`KEPT_HASHERS`] last used.
pub struct Checker<'r> {
    registry: &'r Registry,
    options: CheckOptions,
    /// The least recently used first.
    hashers: Vec<((String, usize), Prepared)>,
    /// Every (algorithm, length) resolved so far, kept when its hasher is
    /// dropped: each is resolved once, however the lines alternate.
    choices: std::collections::HashMap<(String, usize), Choice>,
    reading: GnuReading,
    opener: Option<Opener<'r>>,
}

impl<'r> Checker<'r> {
    pub fn new(registry: &'r Registry, options: CheckOptions) -> Checker<'r> {
        Checker {
            registry,
            options,
            hashers: Vec::new(),
            choices: std::collections::HashMap::new(),
            reading: GnuReading::Undecided,
            opener: None,
        }
    }

    /// Names `opener` claims are read through it instead of the file system
    /// (hashlab-objects reads `s3://` and the like this way).
    pub fn with_opener(mut self, opener: Opener<'r>) -> Checker<'r> {
        self.opener = Some(opener);
        self
    }

    /// `choice` (`-a`'s algorithm on the options' backend, with their
    /// parameters, as the caller resolved it to refuse them before any
    /// output) hashes the lines of its length, resolved no second time.
    pub fn with_choice(mut self, choice: Choice) -> Checker<'r> {
        let key = (choice.name().to_string(), choice.output_len());
        self.choices.insert(key, choice);
        self
    }

    /// Reads `manifest` line by line and calls `report` for each line that is
    /// not a comment or blank, before reading the next, so output keeps pace.
    /// `hint` is what the manifest's name says ([`manifest_hint`]);
    /// `from_stdin` makes a line naming `-` malformed, as coreutils has it.
    pub fn check(
        &mut self,
        manifest: &mut dyn BufRead,
        hint: &ManifestHint,
        from_stdin: bool,
        report: &mut dyn FnMut(&LineResult),
    ) -> Result<Summary, CheckError> {
        let mut summary = Summary::default();
        let mut raw = Vec::new();
        let mut line_number = 0u64;
        let end = match self.options.framing {
            Framing::Lines => b'\n',
            Framing::Nul => b'\0',
        };
        let registry = self.registry;
        let chosen = self.options.algorithm.clone();
        let mut lines = LineReader {
            registry,
            chosen: chosen.as_deref(),
            length: self.options.length,
            hint: hint.algorithm.as_deref(),
            framing: self.options.framing,
            form: hint.form,
        };
        // Untagged lines that only their length could settle, per length,
        // and cksum's lines, which name no algorithm whatever the manifest's name.
        let asked = self.options.algorithm.is_some();
        let by_length =
            |e: &Entry| !asked && e.tag.is_none() && (hint.algorithm.is_none() || e.size.is_some());
        let mut lengths = Lengths::default();
        let mut manifest = BoundedLines::new(manifest, end);
        loop {
            match manifest.next_into(&mut raw) {
                Ok(true) => {}
                Ok(false) => break,
                Err(LineError::Io(e)) => return Err(CheckError::Read(e)),
                Err(e) => return Err(CheckError::Bound(e)),
            }
            line_number += 1;
            if self.options.cancel.is_cancelled() {
                return Err(CheckError::Interrupted);
            }
            let entry = match lines.read(&raw, &mut self.reading) {
                Ok(None) => continue,
                Ok(Some(settled)) => Some(settled),
                Err(_) => None,
            }
            .filter(|(e, _, _)| !(from_stdin && e.name == b"-"));
            let tagged = entry
                .as_ref()
                .filter(|(e, _, _)| e.tag.is_some())
                .map(|(_, algorithm, _)| algorithm.tag.clone());
            let (name, outcome, settlement) = match entry {
                None => (Vec::new(), Outcome::Malformed, None),
                Some((entry, algorithm, len)) if by_length(&entry) => {
                    let plan = lengths.plan(registry, &entry, len);
                    let (outcome, settlement) = match plan {
                        Plan::AsRead => (self.verify(&entry, algorithm, len)?, None),
                        Plan::Settled(settled) => (self.verify(&entry, &settled, len)?, None),
                        Plan::Try(candidates) => lengths
                            .probe(&candidates, &entry, len, |a| self.verify(&entry, a, len))?,
                        Plan::Unreadable => (Outcome::Malformed, None),
                    };
                    let name = match outcome {
                        Outcome::Malformed => Vec::new(),
                        _ => entry.name,
                    };
                    (name, outcome, settlement)
                }
                Some((entry, algorithm, len)) => {
                    let outcome = self.verify(&entry, algorithm, len)?;
                    (entry.name, outcome, None)
                }
            };
            match outcome {
                Outcome::Ok => summary.matched += 1,
                Outcome::Failed => summary.mismatched += 1,
                Outcome::Unreadable(_) => summary.unreadable += 1,
                Outcome::Missing => summary.missing += 1,
                Outcome::Malformed => summary.malformed += 1,
            }
            report(&LineResult {
                line_number,
                name,
                outcome,
                settlement,
                tagged,
            });
        }
        Ok(summary)
    }

    fn verify(
        &mut self,
        entry: &Entry,
        algorithm: &Algorithm,
        len: usize,
    ) -> Result<Outcome, CheckError> {
        // A `VALUE COUNT NAME` line holds a number, which the algorithm's
        // own digest length gives.
        let len = match entry.size {
            Some(_) => algorithm.output.default_len(),
            None => len,
        };
        // Out of `self` while `prepared` borrows it.
        let mut opener = self.opener.take();
        let cancel = self.options.cancel.clone();
        let prepared = self.prepare(algorithm, len)?;
        let opened = opener.as_mut().and_then(|open| {
            prepared.hasher.reset();
            open(&entry.name, prepared.hasher.as_mut())
        });
        let result = if let Some(read) = opened {
            read.map(|bytes| crate::read::Hashed {
                digest: prepared.hasher.finalize_reset(),
                bytes,
            })
        } else if entry.name == b"-" {
            let stdin = io::stdin();
            #[cfg(unix)]
            let mut reader = crate::read::Waiting::new(&stdin, &cancel);
            #[cfg(not(unix))]
            let mut reader = stdin.lock();
            hash_reader(
                &mut reader,
                prepared.hasher.as_mut(),
                &mut prepared.buffer,
                &cancel,
            )
        } else {
            hash_file(
                &path_of(&entry.name),
                prepared.hasher.as_mut(),
                &mut prepared.buffer,
                &prepared.strategy,
                &cancel,
            )
        };
        self.opener = opener;
        let outcome = match result {
            Err(e) if is_interrupted(&e) => return Err(CheckError::Interrupted),
            Ok(hashed) if matches(entry, algorithm, &hashed) => Outcome::Ok,
            Ok(_) => Outcome::Failed,
            Err(e) if self.options.ignore_missing && e.kind() == io::ErrorKind::NotFound => {
                Outcome::Missing
            }
            Err(e) => Outcome::Unreadable(e),
        };
        Ok(outcome)
    }

    fn prepare(&mut self, algorithm: &Algorithm, len: usize) -> Result<&mut Prepared, CheckError> {
        let key = (algorithm.name.clone(), len);
        if let Some(at) = self.hashers.iter().position(|(k, _)| *k == key) {
            let used = self.hashers.remove(at);
            self.hashers.push(used);
        } else {
            if self.hashers.len() >= KEPT_HASHERS {
                self.hashers.remove(0);
            }
            let choice = match self.choices.get(&key) {
                Some(choice) => choice.clone(),
                None => {
                    let choice = self.resolve(algorithm, len)?;
                    self.choices.insert(key.clone(), choice.clone());
                    choice
                }
            };
            let strategy = ReadStrategy::for_hash_with(
                algorithm.file_bound,
                choice.backend().parallel,
                !self.options.no_mmap,
            );
            let hasher = choice
                .with_parallel(strategy.parallel_hash)
                .map_err(CheckError::Params)?
                .hasher();
            self.hashers.push((
                key,
                Prepared {
                    hasher,
                    buffer: ReadBuffer::new(strategy.chunk),
                    strategy,
                },
            ));
        }
        Ok(&mut self.hashers.last_mut().expect("pushed above").1)
    }

    /// `algorithm` at `len` bytes on the options' backend (else the
    /// default), with the options' parameters.
    fn resolve(&self, algorithm: &Algorithm, len: usize) -> Result<Choice, CheckError> {
        let registry = self.registry;
        let backend = match &self.options.backend {
            Some(name) => registry.backend(&algorithm.name, name),
            None => registry.default_backend(&algorithm.name).map(|(b, _)| b),
        }
        .map_err(CheckError::Params)?;
        let params = HashParams {
            length: match algorithm.output {
                OutputRule::Fixed { .. } => None,
                _ => Some(len),
            },
            ..self.options.params.clone()
        };
        registry
            .resolve(&algorithm.name, Some(&backend.name), &params)
            .map_err(CheckError::Params)
    }
}

/// Whether what was read matches the line: its digest, and for a `VALUE
/// COUNT NAME` line the value as a number and the count as the
/// algorithm's lines count (bytes for cksum, blocks for the two sums).
fn matches(entry: &Entry, algorithm: &Algorithm, hashed: &crate::read::Hashed) -> bool {
    let digest = hashed.digest.as_bytes();
    match entry.size {
        None => digest == entry.expected.as_slice(),
        Some(count) => {
            fn significant(b: &[u8]) -> &[u8] {
                &b[b.iter().take_while(|&&x| x == 0).count()..]
            }
            significant(digest) == significant(&entry.expected)
                && algorithm.lines.recorded_size(hashed.bytes) == count
        }
    }
}

#[cfg(unix)]
fn path_of(name: &[u8]) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt;
    Path::new(std::ffi::OsStr::from_bytes(name)).to_path_buf()
}

#[cfg(not(unix))]
fn path_of(name: &[u8]) -> std::path::PathBuf {
    Path::new(&*String::from_utf8_lossy(name)).to_path_buf()
}

#[cfg(test)]
mod tests;
