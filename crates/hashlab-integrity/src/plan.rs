//! How a `sum` run hashes and writes: its columns (one resolved algorithm
//! each), how many files at once, how each file is read, and how its lines
//! look. Made once from a [`SumRequest`]; `hashlab sum`, `bench --file` and
//! the Python package's file functions all hash through it, so they read a
//! file the same way.

use std::fmt;
use std::path::Path;
use std::time::SystemTime;

use hashlab::{Choice, FileBound, HashError, HashParams, LineForm, Registry};

use crate::cancel::Cancel;
use crate::lines::{
    escape_name, escaping_for, gnu_line_as, hashdeep_line, sfv_banner, sfv_comment, sfv_line,
    tag_line, LineStyle, NameEscaping, UnwritableName,
};
use crate::many::{Fanout, FileDigests, HashJob, MAX_JOBS};
use crate::read::ReadStrategy;
use crate::walk::reads_from_spinning_disk;

/// What `sum` computes when asked for no algorithm (as `sha256sum` does);
/// `audit --download` hashes with it too.
pub const DEFAULT_ALGORITHM: &str = "sha256";

/// What a caller asks of a `sum` run, in the library's terms.
#[derive(Debug, Clone, Default)]
pub struct SumRequest {
    /// Algorithm names as the user spelled them; repeats are dropped.
    pub algorithms: Vec<String>,
    /// One backend for every column; `None`: each algorithm's default.
    pub backend: Option<String>,
    pub params: HashParams,
    /// BSD-tagged lines for every column (GNU lines otherwise, except where
    /// the algorithm's lines are always tagged).
    pub tagged: bool,
    /// End lines with NUL, names unescaped (coreutils' `-z`).
    pub zero_terminated: bool,
    /// Hash as git names a blob: `blob <size>\0` first.
    pub git_blob: bool,
    /// One hashdeep line per file (size, every digest, name) under its header.
    pub hashdeep: bool,
    /// Files hashed at once; `None`: one per core, or one on a rotating disk.
    pub jobs: Option<usize>,
    /// Allow memory maps (the CLI's `--no-mmap` turns them off).
    pub allow_mmap: bool,
    /// How each digest is written in a line.
    pub digest_form: DigestForm,
    /// Lines without names: the digest alone (b3sum's `--no-names`).
    pub no_names: bool,
    /// `cksum`'s lines (`VALUE SIZE NAME`) for every column, as `cksum -a
    /// crc32b` prints CRC-32; the algorithms whose digest is a number only.
    pub cksum_lines: bool,
    /// SFV lines (`NAME CRC`, as `rhash --sfv` writes them) under the
    /// header [`SumPlan::sfv_header`] writes: SFV files hold CRC-32 only.
    pub sfv: bool,
    /// GNU lines with coreutils' binary marker, `<hex> *name` (`sha256sum -b`).
    pub binary_marker: bool,
    /// Name standard input (`-`) in `VALUE COUNT NAME` lines, as cksum and
    /// sum do when it was named among the operands (without operands they
    /// leave the name out).
    pub name_standard_input: bool,
    /// A number's digest (xxHash's, a CRC's) written least significant
    /// byte first, its tag `TAG_LE`, as `xxhsum --little-endian` writes it.
    pub little_endian: bool,
    /// Untagged lines with the digest's prefix (`XXH3_<hex>  NAME`, as
    /// xxhsum 0.8.2 and later write `-H3`) for the algorithms that have one,
    /// where their lines would otherwise be tagged.
    pub digest_prefix: bool,
}

/// How a digest is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DigestForm {
    /// Lowercase hex, as every tool writes by default.
    #[default]
    Hex,
    /// Standard base64 with padding (coreutils' `cksum --base64`); `check`
    /// reads it back in GNU and tagged lines alike.
    Base64,
    /// The digest's bytes and nothing else (`cksum --raw`, `b3sum --raw`):
    /// one column of one input.
    Raw,
}

/// Why a request cannot be planned. Names no flag: the caller says which of
/// its options each variant is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// A name, backend or parameter the registry refuses.
    Hash(HashError),
    NoAlgorithm,
    /// git names objects with SHA-1 or SHA-256 only.
    NotAGitObjectFormat {
        algorithm: String,
    },
    /// hashdeep reads only its own columns (MD5, SHA-1, SHA-256...).
    NotAHashdeepColumn {
        algorithm: String,
    },
    /// The algorithm's output changes between versions or machines, so a
    /// manifest of it could not be checked later.
    UnstableOutput {
        algorithm: String,
    },
    NoJobs,
    /// hashdeep's lines hold hex digests and names.
    HashdeepForm,
    /// Raw bytes have no separator between columns.
    RawNeedsOneColumn,
    /// cksum's lines print a digest as a number.
    NotANumber {
        algorithm: String,
    },
    /// SFV files hold one checksum, CRC-32.
    NotSfv {
        algorithm: String,
    },
    /// SFV lines hold a name and its CRC in hex, newline-ended, in no other form.
    SfvForm,
    /// More files at once than threads may be started.
    TooManyJobs {
        jobs: usize,
        limit: usize,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Hash(e) => e.fmt(f),
            PlanError::NoAlgorithm => f.write_str("no algorithm given"),
            PlanError::NotAGitObjectFormat { algorithm } => write!(
                f,
                "git names objects with sha1 or sha256, not {algorithm}"
            ),
            PlanError::NotAHashdeepColumn { algorithm } => write!(
                f,
                "hashdeep reads md5, sha1 and sha256, not {algorithm}"
            ),
            PlanError::UnstableOutput { algorithm } => write!(
                f,
                "{algorithm} is not stable across versions or machines, so a manifest of it could not be checked later"
            ),
            PlanError::NoJobs => f.write_str("at least one file must be hashed at a time"),
            PlanError::HashdeepForm => {
                f.write_str("hashdeep lines hold hex digests and names, in no other form")
            }
            PlanError::NotANumber { algorithm } => write!(
                f,
                "cksum's lines print a CRC as a number, and {algorithm}'s digest is not one"
            ),
            PlanError::NotSfv { algorithm } => {
                write!(f, "SFV files hold CRC-32 (crc32) only, not {algorithm}")
            }
            PlanError::SfvForm => f.write_str(
                "SFV lines hold a name and its CRC in hex, one a line, in no other form",
            ),
            PlanError::RawNeedsOneColumn => {
                f.write_str("raw digests are written for one algorithm at a time")
            }
            PlanError::TooManyJobs { jobs, limit } => {
                write!(f, "{jobs} is over the limit of {limit}")
            }
        }
    }
}

impl std::error::Error for PlanError {}

impl From<HashError> for PlanError {
    fn from(e: HashError) -> Self {
        PlanError::Hash(e)
    }
}

/// One algorithm of a run: what computes it and how its lines look.
#[derive(Debug, Clone)]
pub struct Column {
    pub choice: Choice,
    /// The BSD tag at this output length (`BLAKE2b-256`).
    pub tag: String,
    pub style: LineStyle,
    /// Written before a GNU line's digest (`XXH3_`).
    pub prefix: String,
    /// The digest's bytes reversed (`--little-endian`).
    pub reversed: bool,
    /// How names are escaped in its GNU lines (as the tool that checks them reads them).
    pub escaping: NameEscaping,
}

/// Everything decided about a run before the first file is read.
#[derive(Debug, Clone)]
pub struct SumPlan {
    pub columns: Vec<Column>,
    pub jobs: usize,
    /// How each file is read: set by the slowest column, whatever the order
    /// the algorithms were given in.
    pub strategy: ReadStrategy,
    /// One column whose backend can spread one file over several threads.
    pub tree_parallel: bool,
    pub git_blob: bool,
    pub hashdeep: bool,
    pub terminator: u8,
    zero_terminated: bool,
    pub digest_form: DigestForm,
    pub no_names: bool,
    /// SFV lines, under [`SumPlan::sfv_header`].
    pub sfv: bool,
    binary_marker: bool,
    name_standard_input: bool,
    /// The columns as they hash an object's ranges (see `fanout_for_ranges`).
    range_choices: Vec<Choice>,
    /// Whether the reading was decided for a rotating disk.
    rotating: bool,
    /// What was asked, for the steps that decide more of the plan later.
    request: SumRequest,
}

impl SumPlan {
    /// Resolves every algorithm once, refuses what cannot be written, and
    /// decides the reading. `sample`: a few of the files to be read, to tell
    /// a rotating disk (where several readers, or threads faulting one map,
    /// make the head seek); a caller that plans before it knows its files
    /// gives none and calls [`SumPlan::reading`] once it does. Building the
    /// plan is validating the request: a run builds one and carries it.
    pub fn new(
        registry: &Registry,
        request: &SumRequest,
        sample: &[&Path],
    ) -> Result<SumPlan, PlanError> {
        plans::count();
        let mut columns: Vec<Column> = Vec::new();
        for name in request
            .algorithms
            .iter()
            .map(|n| n.trim())
            .filter(|n| !n.is_empty())
        {
            // Found once: a repeat is dropped, and what the run cannot
            // write refused, before anything is resolved.
            let found = registry.find(name)?;
            let algorithm = found.algorithm();
            if columns.iter().any(|c| c.choice.name() == algorithm.name) {
                continue;
            }
            let name = || algorithm.name.clone();
            if !algorithm.stable {
                return Err(PlanError::UnstableOutput { algorithm: name() });
            }
            if request.git_blob && !algorithm.git_object_format {
                return Err(PlanError::NotAGitObjectFormat { algorithm: name() });
            }
            if request.sfv && !algorithm.sfv {
                return Err(PlanError::NotSfv { algorithm: name() });
            }
            if request.hashdeep && algorithm.hashdeep_column.is_none() {
                return Err(PlanError::NotAHashdeepColumn { algorithm: name() });
            }
            let choice = found.resolve(request.backend.as_deref(), &request.params)?;
            if request.cksum_lines && !algorithm.integer_digest {
                return Err(PlanError::NotANumber { algorithm: name() });
            }
            columns.push(column(choice, request));
        }
        if columns.is_empty() {
            return Err(PlanError::NoAlgorithm);
        }
        refuse_form(request, columns.len())?;
        match request.jobs {
            Some(0) => return Err(PlanError::NoJobs),
            Some(n) if n > MAX_JOBS => {
                return Err(PlanError::TooManyJobs {
                    jobs: n,
                    limit: MAX_JOBS,
                })
            }
            _ => {}
        }
        // Jobs and reading are decided by `decide_reading`, below.
        SumPlan {
            columns,
            jobs: 1,
            strategy: ReadStrategy::for_hash(FileBound::Hash, false),
            tree_parallel: false,
            git_blob: request.git_blob,
            hashdeep: request.hashdeep,
            terminator: if request.zero_terminated {
                b'\0'
            } else {
                b'\n'
            },
            zero_terminated: request.zero_terminated,
            binary_marker: request.binary_marker,
            name_standard_input: request.name_standard_input,
            digest_form: request.digest_form,
            no_names: request.no_names,
            sfv: request.sfv,
            range_choices: Vec::new(),
            rotating: false,
            request: request.clone(),
        }
        .decide_reading(reads_from_spinning_disk(sample))
    }

    /// The same plan for reading `sample`, a few of the files to be read,
    /// as [`SumPlan::new`] would have decided it: resolves nothing.
    pub fn reading(self, sample: &[&Path]) -> Result<SumPlan, PlanError> {
        let rotating = reads_from_spinning_disk(sample);
        if rotating == self.rotating {
            return Ok(self);
        }
        self.decide_reading(rotating)
    }

    /// Jobs, the read strategy and each column's multi-threading, from the
    /// columns and whether the files are on a rotating disk.
    fn decide_reading(mut self, rotating: bool) -> Result<SumPlan, PlanError> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.jobs = match self.request.jobs {
            Some(n) => n,
            None if rotating => 1,
            None => cores,
        };
        self.rotating = rotating;
        self.tree_parallel = self.columns.len() == 1 && self.columns[0].choice.backend().parallel;
        self.strategy = ReadStrategy::for_cores(
            slowest(&self.columns),
            self.tree_parallel,
            self.request.allow_mmap && !rotating,
            cores,
        )
        .from_disk(rotating)
        .sharing_cores_with(self.columns.len());
        let parallel_hash = self.strategy.parallel_hash;
        // Object-store ranges of megabytes arrive on one thread while others
        // fetch: a tree-parallel hash spreads each range over the cores.
        let tree_parallel = self.tree_parallel;
        self.range_choices = self
            .columns
            .iter()
            .map(|c| c.choice.with_parallel(tree_parallel && cores > 1))
            .collect::<Result<Vec<_>, _>>()?;
        for column in &mut self.columns {
            column.choice = column.choice.with_parallel(parallel_hash)?;
        }
        Ok(self)
    }

    /// The same plan writing tagged or GNU lines, SFV's, and digests in
    /// `digest_form`, refused as [`SumPlan::new`] refuses such a request:
    /// `sum --update` tries the forms a manifest's line may be in on the
    /// plan it has, resolving nothing again.
    pub fn with_lines(
        &self,
        tagged: bool,
        sfv: bool,
        digest_form: DigestForm,
    ) -> Result<SumPlan, PlanError> {
        let request = SumRequest {
            tagged,
            sfv,
            digest_form,
            ..self.request.clone()
        };
        let mut columns = Vec::with_capacity(self.columns.len());
        for c in &self.columns {
            if sfv && !c.choice.algorithm().sfv {
                return Err(PlanError::NotSfv {
                    algorithm: c.choice.name().to_string(),
                });
            }
            columns.push(column(c.choice.clone(), &request));
        }
        refuse_form(&request, columns.len())?;
        Ok(SumPlan {
            columns,
            sfv,
            digest_form,
            request,
            ..self.clone()
        })
    }

    /// The same plan with the column of `algorithm` (a canonical name)
    /// alone, where it has one.
    pub fn alone(&self, algorithm: &str) -> Option<SumPlan> {
        let at = self
            .columns
            .iter()
            .position(|c| c.choice.name() == algorithm)?;
        Some(SumPlan {
            columns: vec![self.columns[at].clone()],
            range_choices: self.range_choices.get(at).cloned().into_iter().collect(),
            ..self.clone()
        })
    }

    /// The same plan with the reader thread on or off, as a caller that knows
    /// the machine's other load decides (Dask workers sharing its cores):
    /// cores taken by others are not free for a tree-parallel hash either.
    pub fn with_read_ahead(mut self, read_ahead: bool) -> Result<SumPlan, PlanError> {
        self.strategy.read_ahead = read_ahead;
        if !read_ahead && self.strategy.parallel_hash {
            self.strategy.parallel_hash = false;
            for column in &mut self.columns {
                column.choice = column.choice.with_parallel(false)?;
            }
        }
        Ok(self)
    }

    /// How each file is hashed; `cancel` stops the run (Ctrl-C, SIGTERM).
    pub fn job(&self, cancel: Cancel) -> HashJob {
        HashJob {
            strategy: self.strategy,
            git_blob: self.git_blob,
            cancel,
        }
    }

    /// Fresh hashers for one worker, one per column.
    pub fn fanout(&self) -> Fanout {
        Fanout::new(self.columns.iter().map(|c| c.choice.hasher()).collect())
    }

    /// Fresh hashers for the ranges of objects read from a store: these come
    /// in megabytes on the calling thread, so a tree-parallel hash spreads
    /// each over the cores.
    pub fn fanout_for_ranges(&self) -> Fanout {
        Fanout::new(self.range_choices.iter().map(|c| c.hasher()).collect())
    }

    /// The columns' algorithms, in order.
    pub fn names(&self) -> Vec<&str> {
        self.columns.iter().map(|c| c.choice.name()).collect()
    }

    /// What separates a GNU line's digest from its name: two blanks, or a
    /// blank and coreutils' binary marker.
    fn gnu_separator(&self) -> &'static [u8] {
        if self.binary_marker {
            b" *"
        } else {
            b"  "
        }
    }

    /// The manifest lines for one file: one per column, or one hashdeep line
    /// (`absolute` is the name hashdeep writes and matches: an absolute path);
    /// an error for a name the form cannot hold (SFV's), and then no line.
    pub fn lines(
        &self,
        name: &[u8],
        absolute: &[u8],
        digests: &FileDigests,
    ) -> Result<Vec<u8>, UnwritableName> {
        if self.hashdeep {
            let hex: Vec<String> = digests.digests.iter().map(|d| d.to_hex()).collect();
            let hex: Vec<&str> = hex.iter().map(String::as_str).collect();
            return Ok(hashdeep_line(digests.bytes, &hex, absolute));
        }
        let mut out = Vec::new();
        for (column, digest) in self.columns.iter().zip(&digests.digests) {
            if column.style == LineStyle::Sfv {
                out.extend_from_slice(&sfv_line(name, digest.as_bytes())?);
                continue;
            }
            let reversed: Vec<u8>;
            let bytes = if column.reversed {
                reversed = digest.as_bytes().iter().rev().copied().collect();
                &reversed[..]
            } else {
                digest.as_bytes()
            };
            let hex = match self.digest_form {
                DigestForm::Hex if column.reversed => {
                    bytes.iter().map(|b| format!("{b:02x}")).collect()
                }
                DigestForm::Hex => digest.to_hex(),
                DigestForm::Base64 => {
                    use base64::Engine;
                    base64::engine::general_purpose::STANDARD.encode(bytes)
                }
                DigestForm::Raw => {
                    out.extend_from_slice(bytes);
                    continue;
                }
            };
            let hex = if column.prefix.is_empty() {
                hex
            } else {
                format!("{}{hex}", column.prefix)
            };
            let mut line = if self.no_names {
                hex.into_bytes()
            } else if column.style == LineStyle::Cksum {
                let algorithm = column.choice.algorithm();
                let mut l = match algorithm.integer_value(digest.as_bytes()) {
                    Some(value) => algorithm.lines.cksum_fields(value, digests.bytes),
                    None => format!("{hex} {}", digests.bytes),
                }
                .into_bytes();
                // cksum names no file for standard input unless an operand
                // named it, and escapes no name.
                if name != b"-" || self.name_standard_input {
                    l.push(b' ');
                    l.extend_from_slice(name);
                }
                l
            } else if self.zero_terminated {
                // coreutils -z: no escaping, NUL-terminated.
                match column.style {
                    LineStyle::Gnu => [hex.as_bytes(), self.gnu_separator(), name].concat(),
                    LineStyle::Tag => {
                        [column.tag.as_bytes(), b" (", name, b") = ", hex.as_bytes()].concat()
                    }
                    LineStyle::Cksum | LineStyle::Sfv => unreachable!("written above"),
                }
            } else {
                let mut l = match column.style {
                    LineStyle::Gnu => {
                        let mut l = gnu_line_as(&hex, name, column.escaping);
                        if self.binary_marker {
                            // After the backslash of an escaped name, the digest and one blank.
                            let at = usize::from(l[0] == b'\\') + hex.len() + 1;
                            l[at] = b'*';
                        }
                        l
                    }
                    LineStyle::Tag => tag_line(&column.tag, name, &hex),
                    LineStyle::Cksum | LineStyle::Sfv => unreachable!("written above"),
                };
                l.pop();
                l
            };
            line.push(self.terminator);
            out.extend_from_slice(&line);
        }
        Ok(out)
    }

    /// SFV's header, as rhash writes it before the first checksum line: the
    /// banner (naming `generator`, dated `now`), then a comment with the
    /// size and modification time of each of `files` (each the name its line
    /// gives and where it is) that can be examined now; no comment for what
    /// cannot (a missing file, which fails when read), standard input, a
    /// directory, or a name SFV cannot hold (refused by [`SumPlan::lines`]).
    pub fn sfv_header(
        &self,
        generator: &str,
        now: SystemTime,
        files: &[(&[u8], &Path)],
    ) -> Vec<u8> {
        let mut header = sfv_banner(generator, now);
        for (name, path) in files {
            let Ok(meta) = std::fs::metadata(path) else {
                continue;
            };
            if meta.is_dir() {
                continue;
            }
            let modified = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
            if let Ok(comment) = sfv_comment(meta.len(), modified, name) {
                header.extend_from_slice(&comment);
            }
        }
        header
    }

    /// hashdeep's header: the columns, where it ran (`cwd`) and how
    /// (`command`, the arguments), both escaped as coreutils escapes names: a
    /// newline in them would end the comment line and leave the rest as a
    /// broken entry.
    pub fn hashdeep_header(&self, cwd: &[u8], command: &[&[u8]]) -> Vec<u8> {
        let columns: Vec<&str> = self
            .columns
            .iter()
            .map(|c| {
                c.choice
                    .algorithm()
                    .hashdeep_column
                    .as_deref()
                    .unwrap_or(c.choice.name())
            })
            .collect();
        let comment = |bytes: &[u8]| escape_name(bytes).0;
        let mut header = format!(
            "%%%% HASHDEEP-1.0\n%%%% size,{},filename\n## Invoked from: ",
            columns.join(",")
        )
        .into_bytes();
        header.extend_from_slice(&comment(cwd));
        header.extend_from_slice(b"\n## $ ");
        let command: Vec<Vec<u8>> = command.iter().map(|a| comment(a)).collect();
        header.extend_from_slice(&command.join(&b' '));
        header.extend_from_slice(b"\n##\n");
        header
    }
}

/// A column of `choice` as `request` asks its lines written.
fn column(choice: Choice, request: &SumRequest) -> Column {
    let algorithm = choice.algorithm();
    // An asked-for form wins over the algorithm's own: `--tag` gives
    // crc32-posix a line `check` reads back (cksum's lines, like
    // `cksum --check` for its CRC, are not read back).
    let style = if request.sfv {
        LineStyle::Sfv
    } else if request.cksum_lines {
        LineStyle::Cksum
    } else if request.tagged {
        LineStyle::Tag
    } else if request.digest_prefix && algorithm.digest_prefix.is_some() {
        LineStyle::Gnu
    } else if algorithm.lines == LineForm::Tagged {
        LineStyle::Tag
    } else if algorithm.lines.is_cksum_like() {
        LineStyle::Cksum
    } else {
        LineStyle::Gnu
    };
    let reversed = request.little_endian && algorithm.integer_digest;
    let prefix = match (style, &algorithm.digest_prefix) {
        (LineStyle::Gnu, Some(p)) if request.digest_prefix => p.clone(),
        _ => String::new(),
    };
    Column {
        tag: if reversed {
            format!("{}_LE", choice.tag())
        } else {
            choice.tag()
        },
        style,
        prefix,
        reversed,
        escaping: escaping_for(algorithm.lines),
        choice,
    }
}

/// Refuses the forms no line of `columns` columns can be written in.
fn refuse_form(request: &SumRequest, columns: usize) -> Result<(), PlanError> {
    if request.hashdeep && (request.digest_form != DigestForm::Hex || request.no_names) {
        return Err(PlanError::HashdeepForm);
    }
    if request.sfv
        && (request.digest_form != DigestForm::Hex
            || request.no_names
            || request.zero_terminated
            || request.tagged
            || request.hashdeep
            || request.cksum_lines)
    {
        return Err(PlanError::SfvForm);
    }
    if request.digest_form == DigestForm::Raw && columns > 1 {
        return Err(PlanError::RawNeedsOneColumn);
    }
    Ok(())
}

/// How many plans this process has built, counted in debug builds only (as
/// [`hashlab::resolutions`] counts resolutions, and for the same test: one
/// run, one plan); release builds have neither the counter nor its cost.
#[doc(hidden)]
pub mod plans {
    #[cfg(debug_assertions)]
    static BUILT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    #[inline]
    pub(crate) fn count() {
        #[cfg(debug_assertions)]
        BUILT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The plans built so far; `None` in a release build, which counts none.
    pub fn so_far() -> Option<u64> {
        #[cfg(debug_assertions)]
        return Some(BUILT.load(std::sync::atomic::Ordering::Relaxed));
        #[cfg(not(debug_assertions))]
        None
    }
}

/// The bound of the slowest column: one hash-bound column makes the whole
/// read hash-bound, since every column hashes every byte.
fn slowest(columns: &[Column]) -> FileBound {
    if columns
        .iter()
        .any(|c| c.choice.algorithm().file_bound == FileBound::Hash)
    {
        FileBound::Hash
    } else {
        FileBound::Reading
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(algorithms: &[&str]) -> SumPlan {
        let request = SumRequest {
            algorithms: algorithms.iter().map(|a| a.to_string()).collect(),
            allow_mmap: true,
            ..SumRequest::default()
        };
        SumPlan::new(&Registry::default(), &request, &[]).unwrap()
    }

    #[test]
    fn the_slowest_column_sets_the_reading_whatever_the_order() {
        let a = plan(&["xxh3-64", "sha256"]);
        let b = plan(&["sha256", "xxh3-64"]);
        assert_eq!(format!("{:?}", a.strategy), format!("{:?}", b.strategy));
        assert_eq!(
            format!("{:?}", a.strategy),
            format!("{:?}", plan(&["sha256", "sha1"]).strategy)
        );
        // Alone, a hash faster than the page cache has every core copy in
        // turns (where there are two); beside sha256 it is read as sha256 is.
        let alone = plan(&["xxh3-64"]).strategy;
        assert!(alone.reads_in_turns && !alone.mmap);
        assert!(!a.strategy.reads_in_turns);
    }

    #[test]
    fn repeats_are_dropped_and_lines_follow_the_catalog() {
        let p = plan(&["sha256", "SHA-256", "xxh3"]);
        assert_eq!(p.names(), ["sha256", "xxh3-64"]);
        assert_eq!(p.columns[0].style, LineStyle::Gnu);
        assert_eq!(p.columns[1].style, LineStyle::Tag);
    }

    /// An algorithm whose output changes between versions or machines (foldhash,
    /// by its own documentation) is refused by sum with a one-line reason, so
    /// no manifest is written that could not be checked later.
    #[test]
    fn an_unstable_algorithm_is_refused() {
        let mut registry = Registry::default();
        registry
            .register_algorithm(hashlab::Algorithm {
                stable: false,
                ..hashlab::Algorithm::new(
                    "per-process-hash",
                    "Test",
                    hashlab::Class::NonCryptographic,
                    hashlab::OutputRule::Fixed { bytes: 8 },
                )
            })
            .unwrap();
        let request = SumRequest {
            algorithms: vec!["per-process-hash".into()],
            ..SumRequest::default()
        };
        let refused = SumPlan::new(&registry, &request, &[]).unwrap_err();
        assert_eq!(
            refused,
            PlanError::UnstableOutput {
                algorithm: "per-process-hash".into()
            }
        );
        let reason = refused.to_string();
        assert!(
            !reason.contains('\n') && reason.contains("per-process-hash"),
            "{reason}"
        );
    }

    fn sfv_request(algorithms: &[&str]) -> SumRequest {
        SumRequest {
            algorithms: algorithms.iter().map(|a| a.to_string()).collect(),
            sfv: true,
            ..SumRequest::default()
        }
    }

    /// SFV files hold CRC-32 alone, as hex in newline-ended lines: any other
    /// algorithm, a second one, or another digest form is refused by name.
    #[test]
    fn sfv_holds_crc32_alone() {
        let registry = Registry::default();
        let refuse = |request: SumRequest| SumPlan::new(&registry, &request, &[]).unwrap_err();
        for (algorithms, refused) in [
            (&["sha256"][..], "sha256"),
            (&["crc32", "md5"], "md5"),
            (&["crc32c"], "crc32c"),
            (&["crc32-posix"], "crc32-posix"),
        ] {
            let e = refuse(sfv_request(algorithms));
            assert_eq!(
                e,
                PlanError::NotSfv {
                    algorithm: refused.into()
                }
            );
            assert!(!e.to_string().contains('\n'));
        }
        let forms: [fn(&mut SumRequest); 6] = [
            |r| r.digest_form = DigestForm::Base64,
            |r| r.digest_form = DigestForm::Raw,
            |r| r.no_names = true,
            |r| r.zero_terminated = true,
            |r| r.tagged = true,
            |r| r.cksum_lines = true,
        ];
        for (i, form) in forms.into_iter().enumerate() {
            let mut request = sfv_request(&["crc32"]);
            form(&mut request);
            assert_eq!(refuse(request), PlanError::SfvForm, "form {i}");
        }
        // Aliases of CRC-32 are CRC-32, and a repeat is dropped.
        let plan = SumPlan::new(&registry, &sfv_request(&["crc-32", "CRC32B"]), &[]).unwrap();
        assert_eq!(plan.names(), ["crc32"]);
        assert_eq!(plan.columns[0].style, LineStyle::Sfv);
    }

    #[test]
    fn sfv_lines_and_header() {
        let registry = Registry::default();
        let plan = SumPlan::new(&registry, &sfv_request(&["crc32"]), &[]).unwrap();
        let mut hasher = plan.columns[0].choice.hasher();
        hasher.update(b"abc");
        let digests = FileDigests {
            digests: vec![hasher.finalize_reset()],
            bytes: 3,
            modified: None,
            inode: None,
            ctime_ns: None,
        };
        assert_eq!(
            plan.lines(b"a b.txt", b"/x/a b.txt", &digests).unwrap(),
            b"a b.txt 352441C2\n"
        );
        assert_eq!(
            plan.lines(b"n\nl", b"/x/n\nl", &digests),
            Err(UnwritableName::SfvNewline)
        );

        let dir = std::env::temp_dir().join(format!("hashlab-plan-sfv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        std::fs::write(&file, b"abc").unwrap();
        let missing = dir.join("missing");
        let header = plan.sfv_header(
            "hashlab 9",
            std::time::UNIX_EPOCH,
            &[
                (b"f", &file),
                (b"missing", &missing),
                (b"dir", &dir),
                (b";f", &file),
                (b"f 2", &file),
            ],
        );
        let header = String::from_utf8(header).unwrap();
        let lines: Vec<&str> = header.lines().collect();
        assert_eq!(lines.len(), 4, "{header}");
        assert!(
            lines[0].starts_with("; Generated by hashlab 9 on 19"),
            "{header}"
        );
        assert_eq!(lines[1], ";");
        // The size, then the time and name; the time is local, so not compared here.
        assert!(
            lines[2].starts_with(";            3  ") && lines[2].ends_with(" f"),
            "{header}"
        );
        assert!(lines[3].ends_with(" f 2"), "{header}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn refusals_are_typed() {
        let registry = Registry::default();
        let refuse = |request: SumRequest| SumPlan::new(&registry, &request, &[]).unwrap_err();
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            refuse(SumRequest {
                algorithms: names(&["md5"]),
                git_blob: true,
                ..SumRequest::default()
            }),
            PlanError::NotAGitObjectFormat {
                algorithm: "md5".into()
            }
        );
        assert_eq!(
            refuse(SumRequest {
                algorithms: names(&["blake3"]),
                hashdeep: true,
                ..SumRequest::default()
            }),
            PlanError::NotAHashdeepColumn {
                algorithm: "blake3".into()
            }
        );
        assert_eq!(refuse(SumRequest::default()), PlanError::NoAlgorithm);
        assert_eq!(
            refuse(SumRequest {
                algorithms: names(&["sha256"]),
                jobs: Some(0),
                ..SumRequest::default()
            }),
            PlanError::NoJobs
        );
        assert!(matches!(
            refuse(SumRequest {
                algorithms: names(&["sha265"]),
                ..SumRequest::default()
            }),
            PlanError::Hash(HashError::UnknownAlgorithm { .. })
        ));
    }
}
