//! The command line, as clap parses it. Also compiled by build.rs (for the
//! manual pages and completions), so this file uses only clap and std.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// A hash-function laboratory and integrity tool.
#[derive(Parser, Debug)]
#[command(name = "hashlab", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Every algorithm with its backends, the default backend and why.
    List(ListArgs),
    /// Hash files (or standard input) and print manifest lines.
    Sum(SumArgs),
    /// Print a shell completion script (e.g. `hashlab completions bash > /etc/bash_completion.d/hashlab`).
    Completions(CompletionsArgs),
    /// Print the manual page in roff (e.g. `hashlab man > hashlab.1; man ./hashlab.1`),
    /// or write a page per command into a directory. The build also writes
    /// them into target/<profile>/man.
    Man(ManArgs),
    /// Verify manifests as `sha256sum -c` does (also b2sum, b3sum, xxhsum, rhash and openssl lines).
    Check(CheckArgs),
    /// Compare a tree with a manifest, as `hashdeep -a`: matched, changed, missing, new, moved.
    Audit(AuditArgs),
    /// The files whose digest is (-m, -M) or is not (-x, -X) in known sets, as
    /// hashdeep's matching modes: manifests of any form `audit` reads, or NSRL's RDS v3 database.
    Match(MatchArgs),
    /// This machine as benchmarks see it: CPU, caches, features, measured core
    /// clock, and the SIMD path each algorithm's default backend takes here.
    Cpu(CpuArgs),
    /// Measure throughput per algorithm, backend, message size and thread count.
    Bench(BenchArgs),
    /// Everything about one algorithm: security facts with sources, where it
    /// ships, its backends here, measured speed from a results file.
    Info(InfoArgs),
    /// Which runtimes and tools on this machine offer each algorithm (live
    /// probes, set against the availability table).
    Ecosystem(EcosystemArgs),
    /// Recommend an algorithm for a use, from the facts and measured speed, with reasons.
    Pick(PickArgs),
    /// An offline HTML page with charts (or one chart as SVG) from bench results;
    /// with no results file, runs the bench first.
    Report(ReportArgs),
    /// Statistical quality tests in the spirit of SMHasher (avalanche, bit
    /// independence, sparse, cyclic and differential keys, hash-table buckets,
    /// key sensitivity); exit status 1 when any test fails.
    Quality(QualityArgs),
    /// Results of several runs (machines, masks, saved runs) side by side: ratios,
    /// rankings, and where the ranking flips.
    Compare(CompareArgs),
    /// The runs saved with `hashlab bench --save`.
    History(HistoryArgs),
    /// Make links named md5sum, sha1sum, sha224sum..sha512sum and b2sum in
    /// DIR to this program: called by those names, hashlab takes that tool's
    /// options and writes its lines and messages. A name in DIR that is
    /// anything but such a link already is left as it is, and the run fails.
    InstallLinks(InstallLinksArgs),
}

#[derive(Args, Debug)]
pub struct InstallLinksArgs {
    /// An existing directory (one on PATH before coreutils' own, to stand in for them).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// 10^6 bytes per second.
    Mbps,
    /// 2^20 bytes per second.
    Mibps,
    /// Core cycles per byte.
    Cpb,
    /// Nanoseconds per message.
    Ns,
    /// Every unit, one table each.
    All,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Algorithms, comma-separated (default: the cryptographic hashes and MACs, plus xxh3-64, highwayhash-64, crc32c).
    #[arg(short, long, value_delimiter = ',', conflicts_with_all = ["all", "crypto", "fast"])]
    pub algorithms: Vec<String>,
    /// Every algorithm.
    #[arg(long, conflicts_with_all = ["crypto", "fast"])]
    pub all: bool,
    /// The cryptographic hashes and MACs.
    #[arg(long, conflicts_with = "fast")]
    pub crypto: bool,
    /// The non-cryptographic hashes, keyed hash-table hashes and checksums.
    #[arg(long)]
    pub fast: bool,
    /// Backends, comma-separated (default: each algorithm's default backend).
    #[arg(short, long, value_delimiter = ',', conflicts_with = "all_backends")]
    pub backends: Vec<String>,
    /// Every available backend of each algorithm.
    #[arg(long)]
    pub all_backends: bool,
    /// Message sizes: integers or dd-style suffixes (K/KiB = 1024, KB = 1000, M, MB, G, GB);
    /// at most 64 sizes of up to 1 TiB, whose inputs must fit in memory.
    #[arg(long, value_name = "LIST")]
    pub sizes: Option<String>,
    /// Thread counts, comma-separated; `all` = every core. 1 is always measured.
    #[arg(long, value_name = "LIST", default_value = "1")]
    pub threads: String,
    /// Unit of the table.
    #[arg(long, value_enum, default_value = "mbps")]
    pub unit: Unit,
    /// Speed-up column relative to this algorithm.
    #[arg(long, default_value = crate::bench_defaults::DEFAULT_BASELINE)]
    pub baseline: String,
    /// Time to hash this many bytes (e.g. 150G) on one core and on all.
    #[arg(long, value_name = "AMOUNT")]
    pub project: Option<String>,
    /// Measure small messages as a dependent chain (each digest feeds the next input).
    #[arg(long)]
    pub latency: bool,
    /// Also measure short keys of random length 1 to 32 bytes, one hash per
    /// key as a hash table calls it: ns and cycles per hash, independent and
    /// as a dependent chain.
    #[arg(long)]
    pub keys: bool,
    /// Also measure a hash table over a word list (one word per line;
    /// default /usr/share/dict/words): every word inserted, then looked up,
    /// with each algorithm as the table's hasher; ns and cycles per operation.
    #[arg(long, value_name = "WORDS", num_args = 0..=1, default_missing_value = "/usr/share/dict/words")]
    pub table: Option<PathBuf>,
    /// Start every input this many bytes past a page boundary (0 to 4095).
    #[arg(long, value_name = "BYTES", default_value = "0")]
    pub misalign: usize,
    /// Also hash this file through `sum`'s reading path, to set disk-bound speed beside in-memory speed.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// With --file: drop the file's cached pages before every pass (posix_fadvise DONTNEED).
    #[arg(long, requires = "file")]
    pub cold: bool,
    /// Measure each algorithm on the shape of this tree, manifest with sizes
    /// (hashdeep, `sum --json`) or git repository: its size distribution, a
    /// replica of it hashed through `sum`'s reading path on 1 and all
    /// threads, the storage's read speed from a sample of its files, and the
    /// projected time for all of it here, on 1-64 cores and on Dask workers.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["file", "sizes", "latency", "keys", "table", "runtime", "mask_cpu", "all_backends", "backends", "save", "check_regression"])]
    pub like: Option<PathBuf>,
    /// With --like: also run the real `sum -r` over PATH (every object hashed
    /// with its header, for a git repository) with the three fastest, or
    /// these algorithms, and print projected against measured time.
    #[arg(long, value_name = "LIST", num_args = 0..=1, default_missing_value = "", requires = "like")]
    pub verify: Option<String>,
    /// With --verify: drop PATH's files (yours only) from the page cache
    /// before the first of the two real runs, so it reads from the storage.
    #[arg(long, requires = "verify")]
    pub verify_cold: bool,
    /// With --like: Dask cluster sizes (workers) to project to (default 4,16,64).
    #[arg(long, value_name = "LIST", requires = "like")]
    pub workers: Option<String>,
    /// Measure as if the CPU lacked these features (e.g. sha,avx2): OpenSSL is told
    /// through OPENSSL_ia32cap; backends that cannot be told are left out and listed.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub mask_cpu: Vec<String>,
    /// Pin the measuring thread to this CPU (stream threads take the following ones).
    #[arg(long, value_name = "CPU")]
    pub pin: Option<usize>,
    /// Also measure the algorithms as these runtimes and their usual libraries
    /// compute them (all, or a list of go, python, node, java, c): a harness
    /// per runtime, built in the cache directory on first use, checked against
    /// hashlab's digests, timed in the same rounds as the Rust backends. A
    /// runtime that is missing or wrong is listed with the reason.
    #[arg(long, value_name = "LIST")]
    pub runtime: Option<String>,
    /// With --runtime: how long a runtime's harness may take to answer one
    /// request before it is killed and reported (a build may take longer).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 20.0,
        requires = "runtime"
    )]
    pub runtime_timeout: f64,
    /// Seed for the input bytes and the sampling order.
    #[arg(long, default_value_t = crate::bench_defaults::DEFAULT_SEED)]
    pub seed: u64,
    /// A short run (under 10 s for the default set).
    #[arg(long)]
    pub quick: bool,
    /// Time budget in seconds (default 30; 4 with --quick) of the measurement:
    /// making the inputs, warming up and sampling. Every cell is still measured
    /// once: past the budget, cells are only calibrated and no sample starts after
    /// the first round, except cheap rounds toward the usual minimum (7; 5 with
    /// --quick) that end within a second more. A run ends within one sample of
    /// the budget, or after one calibration and one sample of each cell where
    /// those take longer (seconds per message at multi-GB sizes or with --file);
    /// a short budget gives fewer rounds than usual, as the notes say.
    #[arg(long, value_name = "SECONDS")]
    pub max_time: Option<f64>,
    /// No progress bar, no estimate.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Also write the output to this file (format from --format, else from its extension).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Store the run in the history database (after the results are printed and written).
    #[arg(long)]
    pub save: bool,
    /// Compare with the last run saved on this machine; exit 3 if a cell got
    /// significantly slower (by --regression-threshold or more).
    #[arg(long)]
    pub check_regression: bool,
    /// With --check-regression: the smallest slowdown that counts, in percent
    /// more time per message.
    #[arg(
        long,
        value_name = "PERCENT",
        default_value_t = 5.0,
        requires = "check_regression"
    )]
    pub regression_threshold: f64,
    #[command(flatten)]
    pub db: DbArgs,
}

/// Where the history database is.
#[derive(Args, Debug, Clone)]
pub struct DbArgs {
    /// History database (default: history.sqlite in the platform's data
    /// directory, e.g. ~/.local/share/hashlab).
    #[arg(long, value_name = "PATH", env = "HASHLAB_DB")]
    pub db: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Results written by `hashlab bench --json` (the first is the reference for ratios).
    #[arg(value_name = "RESULTS.json")]
    pub files: Vec<PathBuf>,
    /// Saved runs to compare (after any files), by the ids `hashlab history` lists.
    #[arg(long, value_name = "ID", num_args = 1.., value_delimiter = ',')]
    pub runs: Vec<i64>,
    /// Only these message sizes (e.g. 64,1K,16M).
    #[arg(long, value_name = "LIST")]
    pub size: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Args, Debug)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
    Md,
}

/// `sum`'s formats: the shared data formats, plus hashdeep's manifest.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SumFormat {
    Table,
    Json,
    Csv,
    Md,
    Hashdeep,
    /// `cksum`'s `VALUE SIZE NAME` lines, for the CRCs and other
    /// algorithms whose digest is a number (as `cksum -a crc32b` prints).
    Cksum,
    /// An SFV file of CRC-32s (`NAME CRC` lines under rhash's comment
    /// header, as `rhash --sfv` writes it); `-a crc32` only.
    Sfv,
}

/// `--format` and its `--json` shorthand, shared by every data-printing command.
#[derive(Args, Debug, Clone)]
pub struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Short for --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

impl FormatArgs {
    pub fn chosen(&self) -> Option<Format> {
        if self.json {
            Some(Format::Json)
        } else {
            self.format
        }
    }
}

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Args, Debug)]
pub struct SumArgs {
    /// Algorithm(s), comma-separated (see `hashlab list`; case-insensitive, aliases
    /// accepted). Several are computed from one read of each file, one line each.
    /// Default: sha256; crc32 with --format sfv.
    #[arg(short, long)]
    pub algorithm: Option<String>,
    /// Backend (implementation); default: the algorithm's preferred available one.
    #[arg(short, long)]
    pub backend: Option<String>,
    /// Output length in bytes, for XOFs and variable-length hashes.
    #[arg(short, long, value_name = "BYTES")]
    pub length: Option<usize>,
    /// Walk directories (sorted, symbolic links skipped unless --follow).
    #[arg(short, long)]
    pub recursive: bool,
    /// With -r: follow symbolic links met while walking.
    #[arg(short = 'L', long, requires = "recursive")]
    pub follow: bool,
    /// Skip files and directories whose name or path matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Read the names to hash from this file (one per line; NUL-separated with -0), `-` for stdin.
    #[arg(long, value_name = "FILE")]
    pub files_from: Option<PathBuf>,
    /// With --files-from: names are separated by NUL bytes.
    #[arg(short = '0', long = "null", requires = "files_from")]
    pub null: bool,
    /// End each output line with NUL instead of newline (names are then not escaped), as coreutils -z.
    #[arg(short = 'z', long)]
    pub zero: bool,
    /// Files hashed in parallel (default: every core); output keeps the input order.
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Write the manifest to FILE atomically (temp file, fsync, rename) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The object id git gives each file (`blob <size>\0` + content; sha1 or sha256).
    #[arg(long)]
    pub git: bool,
    /// Read every file with read(), never through a memory map (by default,
    /// on two or more cores, files of 4 MiB and more are mapped, except for
    /// hashes faster than the page cache such as xxh3, and on a rotating disk).
    #[arg(long)]
    pub no_mmap: bool,
    /// Show the progress bar (files, bytes, rate, ETA; stderr, on a terminal) even when the run looks short.
    #[arg(long, conflicts_with = "no_progress")]
    pub progress: bool,
    /// Never show the progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// Bring this manifest up to date with the files named (walked with -r;
    /// none: the files it lists): add files it lacks, re-read files whose
    /// size or modification time (or inode, status-change time, an object's
    /// ETag) moved, keep the rest unread, and rewrite it atomically in its
    /// own form, algorithms, line style and order. Prints what was added,
    /// changed and removed on stderr (`--format json`: on stdout). The
    /// times come from a `sum --json` manifest itself, or from the sidecar
    /// MANIFEST.hashlab-stat written beside others. A file changed with the
    /// same size and times (bitrot, or a deliberate reset of its time) is
    /// found only by a full `check` or `audit`.
    #[arg(long, value_name = "MANIFEST", conflicts_with_all = ["output", "tag", "raw", "base64", "no_names", "git", "verify_etag", "from_store"])]
    pub update: Option<PathBuf>,
    /// With --update: drop the entries of files that are gone (by default
    /// they are kept and reported missing).
    #[arg(long, requires = "update")]
    pub prune: bool,
    #[command(flatten)]
    pub secret: KeyArgs,
    /// BSD-style lines: `TAG (name) = hex`.
    #[arg(long)]
    pub tag: bool,
    /// GNU lines with coreutils' binary marker, `<hex> *name`, as
    /// `sha256sum -b` writes them (`check` reads both forms).
    #[arg(long, conflicts_with_all = ["tag", "json", "format", "no_names", "raw", "update"])]
    pub binary_marker: bool,
    /// Digests in base64 instead of hex, in GNU and tagged lines alike (as
    /// `cksum --base64` writes them); `check` reads them back.
    #[arg(long, conflicts_with_all = ["raw", "json", "format"])]
    pub base64: bool,
    /// A number's digest (xxHash's, a CRC's) least significant byte first,
    /// its tag `TAG_LE`, as `xxhsum --little-endian` writes it.
    #[arg(long, conflicts_with_all = ["json", "format"])]
    pub little_endian: bool,
    /// Untagged lines with the digest's prefix, `XXH3_<hex>  NAME`, as
    /// xxhsum 0.8.2 and later write `-H3` (xxh3-64's lines are tagged otherwise).
    #[arg(long, conflicts_with_all = ["tag", "json", "format"])]
    pub digest_prefix: bool,
    /// The digest's bytes and nothing else, of one input and one algorithm
    /// (as `cksum --raw` and `b3sum --raw`).
    #[arg(long, conflicts_with_all = ["json", "format", "tag", "no_names", "zero", "recursive", "files_from"])]
    pub raw: bool,
    /// Lines without names: the digest alone (as `b3sum --no-names`).
    #[arg(long, conflicts_with_all = ["json", "format"])]
    pub no_names: bool,
    /// Output format instead of manifest lines: a data format, hashdeep's
    /// manifest (`hashdeep -a -k` reads it; md5, sha1 and sha256 only),
    /// cksum's lines, or an SFV file (crc32 only).
    #[arg(long, value_enum)]
    pub format: Option<SumFormat>,
    /// Short for --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Also a digest of every piece of SIZE bytes of each file (`4k`, `1m`
    /// as hashdeep -p takes them; `64K`, `1MiB`), beside the whole file's:
    /// hashdeep's piece lines with --format hashdeep, each row's `pieces`
    /// with --json. `check` and `audit` then name the byte ranges that changed.
    #[arg(long, value_name = "SIZE", conflicts_with_all = ["git", "raw", "verify_etag", "from_store"])]
    pub piece: Option<String>,
    /// Object-store URLs only: compare each object's ETag with the MD5 of its
    /// content, or for a multipart upload (`-N`) with the MD5 of its parts'
    /// MD5s, the parts' sizes asked of the store (S3: a HEAD per part). ETags
    /// that are no MD5 (SSE-KMS, GCS, Azure) are not comparable. A mismatch exits 1.
    #[arg(long)]
    pub verify_etag: bool,
    /// Object-store URLs only: list the digest each object's store recorded
    /// (S3's full-object checksums: crc64nvme, xxh3-64, xxh3-128, crc32c,
    /// xxh64, crc32, sha1, sha256, sha512, md5; md5 also from a single-part ETag; GCS's crc32c and md5Hash; Azure's
    /// Content-MD5), reading no object: one request each. An
    /// object without a value of the -a algorithm is an error naming what
    /// the store has. This shows what was uploaded; only reading (without
    /// this flag) shows the bytes are still intact.
    #[arg(long, conflicts_with = "verify_etag")]
    pub from_store: bool,
    /// Files to hash; none or `-` means standard input. An object-store URL
    /// (`s3://bucket/prefix`, `gs://`, `az://`, `file://`) hashes every object
    /// under it, named as `-r DIR` names files.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CpuArgs {
    /// Time spent measuring the core clock, in milliseconds (at most 60000).
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub clock_ms: u64,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write hashlab.1 and hashlab-<command>.1 into this directory.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct QualityArgs {
    /// Algorithm to test (see `hashlab list`).
    #[arg(short, long)]
    pub algorithm: String,
    /// Backend (default: the one that hashes short keys fastest here; every
    /// backend computes the same function, so only the time changes).
    #[arg(short, long)]
    pub backend: Option<String>,
    /// Fewer keys per test: a run of seconds instead of tens of seconds.
    #[arg(long)]
    pub quick: bool,
    /// Seed of the random keys: the same seed repeats a run exactly.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Algorithm for every line (default: each line's tag, else the manifest's
    /// name such as `x.sha256` or `SHA256SUMS`, else the digest's length).
    #[arg(short, long)]
    pub algorithm: Option<String>,
    /// Backend (implementation) for --algorithm.
    #[arg(short, long, requires = "algorithm")]
    pub backend: Option<String>,
    /// Output length in bytes; lines with a digest of another length are improperly formatted.
    #[arg(short, long, value_name = "BYTES")]
    pub length: Option<usize>,
    #[command(flatten)]
    pub secret: KeyArgs,
    /// Do not print OK for each verified file. Of --quiet, --status and --warn
    /// the last given wins, as in coreutils.
    #[arg(long, overrides_with_all = ["status", "warn"])]
    pub quiet: bool,
    /// Print nothing on standard output; the exit code tells.
    #[arg(long, overrides_with_all = ["quiet", "warn"])]
    pub status: bool,
    /// Exit 1 when a line is improperly formatted.
    #[arg(long)]
    pub strict: bool,
    /// Warn about each improperly formatted line.
    #[arg(short, long, overrides_with_all = ["quiet", "status"])]
    pub warn: bool,
    /// Skip listed files that do not exist.
    #[arg(long)]
    pub ignore_missing: bool,
    /// Read every file with read(), never through a memory map.
    #[arg(long)]
    pub no_mmap: bool,
    /// Read the object-store URLs a manifest's lines name (`s3://`, `gs://`,
    /// `az://`, `file://`), with the credentials of the environment. Without
    /// it such a line fails, and nothing is sent: a manifest from elsewhere
    /// must not make hashlab sign requests to the stores it names.
    #[arg(long)]
    pub allow_remote: bool,
    /// Object-store URLs only (with --allow-remote): compare each object's
    /// ETag with the MD5 of its content, or for a multipart upload with the
    /// MD5 of its parts' MD5s (the parts' sizes asked of the store). A mismatch exits 1.
    #[arg(long, requires = "allow_remote")]
    pub verify_etag: bool,
    /// The manifest's lines end with NUL, as `sum -z` writes them (names are
    /// then taken as they are, never unescaped).
    #[arg(short = 'z', long)]
    pub zero: bool,
    /// Manifests to check; none or `-` means standard input. Lines may name
    /// object-store URLs (as `sum s3://...` writes them), read with --allow-remote.
    #[arg(value_name = "MANIFEST")]
    pub manifests: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// The manifest: GNU or BSD lines as `sum` and the coreutils write,
    /// hashdeep's format, or `sum --json`'s. A line that cannot be read is
    /// one warning (manifest name and line number), and the rest is audited.
    /// Or a directory, followed by one store prefix (`audit DIR
    /// s3://bucket/prefix`): each file is compared with the object under the
    /// prefix at its path, by the checksum the store recorded (reading no
    /// object), as `rclone check` does.
    #[arg(value_name = "MANIFEST")]
    pub manifest: PathBuf,
    /// Directories (walked recursively), files and object-store prefixes
    /// (`s3://bucket/prefix`...) to audit; default: the current directory.
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Algorithm of every line (default: the lines' tags, the manifest's name, the digest length).
    #[arg(short, long)]
    pub algorithm: Option<String>,
    /// The manifest's lines end with NUL, as `sum -z` writes them.
    #[arg(short = 'z', long)]
    pub zero: bool,
    /// Files hashed in parallel (default: every core).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Re-hash only files whose size, modification time, inode or
    /// status-change time differ from the manifest (`sum --json` records all
    /// four, hashdeep's manifests sizes only, older `sum --json` manifests no
    /// inode or status-change time). Faster, but blind to bitrot, which
    /// changes none of them, and, where the manifest records no inode and
    /// status-change time, to a same-size rewrite whose mtime was put back.
    #[arg(long)]
    pub changed_only: bool,
    /// After reporting, rewrite the manifest to describe the tree as it
    /// now is (the re-baseline), atomically, in its own form, algorithms,
    /// line style and order: changed files get their new digests, new and
    /// moved files are added, gone ones dropped. The files the audit read
    /// are not read again. The exit status is still the audit's. Local
    /// directories only.
    #[arg(long)]
    pub update: bool,
    /// `audit DIR URL` only: read every object and compare the hash of its
    /// bytes (-a, default sha256) with the file's, instead of the store's
    /// recorded checksums. Only this shows the stored bytes are intact: bitrot
    /// under the store leaves its checksums as they were.
    #[arg(long)]
    pub download: bool,
    /// Object-store URLs only: compare each object's ETag with the MD5 of its
    /// content, or for a multipart upload (`-N`) with the MD5 of its parts'
    /// MD5s, the parts' sizes asked of the store (S3: a HEAD per part). ETags
    /// that are no MD5 (SSE-KMS, GCS, Azure) are not comparable. A mismatch exits 1.
    #[arg(long)]
    pub verify_etag: bool,
    /// `audit MANIFEST s3://bucket/prefix --batch-report REPORT`: compare the
    /// manifest with the checksums an S3 Batch Operations Compute checksum
    /// job computed of the stored bytes, from its completion report (its
    /// manifest.json with results/ beside it, or one result CSV), reading
    /// no object and no file and asking the store nothing.
    #[arg(long, value_name = "REPORT")]
    pub batch_report: Option<PathBuf>,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// A set of known hashes (repeatable; the sets are one set): GNU or BSD
    /// lines, an SFV file, hashdeep's format (every column hashlab knows of
    /// md5, sha1, sha256), `sum --json`'s, or NSRL's RDS v3 SQLite database
    /// (its FILE table's column of -a, default sha256).
    #[arg(short = 'k', long = "known", value_name = "SET", required = true)]
    pub known: Vec<PathBuf>,
    /// Print the files whose digest is in a known set (the default).
    #[arg(short = 'm', long = "matching", group = "mode")]
    pub matching: bool,
    /// Print the files whose digest is in no known set.
    #[arg(short = 'x', long = "not-matching", group = "mode")]
    pub not_matching: bool,
    /// As -m, with hashdeep's lines (size, each digest, name) under its header.
    #[arg(short = 'M', long = "matching-digests", group = "mode")]
    pub matching_digests: bool,
    /// As -x, with hashdeep's lines (size, each digest, name) under its header.
    #[arg(short = 'X', long = "not-matching-digests", group = "mode")]
    pub not_matching_digests: bool,
    /// With -m or -M: add the name the matched digest was recorded under
    /// (`NAME matches KNOWN`).
    #[arg(short = 'w', long = "which", conflicts_with_all = ["not_matching", "not_matching_digests"])]
    pub which: bool,
    /// Algorithm of every set (default: each manifest's lines, hashdeep's
    /// columns, NSRL's sha256 column).
    #[arg(short, long)]
    pub algorithm: Option<String>,
    /// Walk directories (sorted, symbolic links skipped unless --follow).
    #[arg(short, long)]
    pub recursive: bool,
    /// With -r: follow symbolic links met while walking.
    #[arg(short = 'L', long, requires = "recursive")]
    pub follow: bool,
    /// Skip files and directories whose name or path matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Files hashed in parallel (default: every core); output keeps the input order.
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Read every file with read(), never through a memory map.
    #[arg(long)]
    pub no_mmap: bool,
    /// Files, and directories with -r; none or `-` means standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Key and customization options, shared by `sum` and `check`.
#[derive(Args, Debug, Clone)]
pub struct KeyArgs {
    /// Key as hex.
    #[arg(long, value_name = "HEX", conflicts_with = "key_file")]
    pub key: Option<String>,
    /// Read the key (raw bytes) from a file, so it never shows in `ps`.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// Customization string (KMAC's S, KangarooTwelve's C), as text.
    #[arg(long, value_name = "TEXT", conflicts_with = "custom_hex")]
    pub custom: Option<String>,
    /// Customization string as hex.
    #[arg(long, value_name = "HEX", conflicts_with = "custom_file")]
    pub custom_hex: Option<String>,
    /// Read the customization string (raw bytes) from a file, for strings
    /// too long for a command line (K12's, KMAC's).
    #[arg(long, value_name = "FILE", conflicts_with = "custom")]
    pub custom_file: Option<PathBuf>,
    /// BLAKE2b/BLAKE2s salt as hex (up to 16 / 8 bytes, padded with zeros).
    #[arg(long, value_name = "HEX")]
    pub salt: Option<String>,
    /// BLAKE2b/BLAKE2s personalization as hex (up to 16 / 8 bytes, padded with zeros).
    #[arg(long, value_name = "HEX")]
    pub personal: Option<String>,
    /// Seed of xxHash (XXH32: 32 bits, XXH64 and XXH3: 64 bits), decimal or
    /// 0x-prefixed hex, as xxhsum 0.8.4's --seed takes it.
    #[arg(long, value_name = "N")]
    pub seed: Option<String>,
    /// TurboSHAKE's domain-separation byte, 0x01 to 0x7F (default 0x1F).
    #[arg(long, value_name = "BYTE")]
    pub domain: Option<String>,
    /// BLAKE3 in its key-derivation mode with this context string, as
    /// `b3sum --derive-key` (the input is the key material).
    #[arg(long, value_name = "CONTEXT", conflicts_with_all = ["key", "key_file"])]
    pub derive_key: Option<String>,
    /// Start an extendable output (BLAKE3's) N bytes in, as `b3sum --seek`.
    #[arg(long, value_name = "N")]
    pub seek: Option<u64>,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The algorithm (any name or alias `hashlab list` shows).
    #[arg(value_name = "ALGO")]
    pub algorithm: String,
    /// A `hashlab bench --json` report: its speeds at the smallest and largest size.
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Args, Debug)]
pub struct EcosystemArgs {
    /// Seconds each probe may take (a Java probe three times as long).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,
    #[command(flatten)]
    pub format: FormatArgs,
}

/// What the hash is for.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickUse {
    /// Names for content, as git's object ids: 128-bit collision security by default.
    ContentAddressing,
    /// Bitrot detection in stored data: no attacker, at least 64-bit output.
    Integrity,
    /// MAC or PRF with a secret key: 128-bit MAC security by default.
    Mac,
    /// Hash-table keys: fast on short input; --min-security asks for a keyed PRF.
    HashTable,
    /// Checksums of transfers: no attacker, at least 64-bit output.
    Transfer,
}

#[derive(Args, Debug)]
pub struct PickArgs {
    /// What the hash is for.
    #[arg(long = "for", value_name = "USE", value_enum)]
    pub use_: PickUse,
    /// Least security in bits: collision security (content-addressing,
    /// integrity, transfer), MAC security (mac), a keyed PRF (hash-table).
    #[arg(long, value_name = "BITS")]
    pub min_security: Option<u32>,
    /// Message size to rank at, as in bench (64, 8K, 1MiB); default per use.
    #[arg(long, value_name = "BYTES")]
    pub size: Option<String>,
    /// Keep only algorithms that every listed ecosystem ships (e.g. go,python).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub interop: Vec<String>,
    /// Rank by this `hashlab bench --json` report instead of a quick bench here.
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Rank by the projected time to hash all of PATH here (a tree, a
    /// manifest with sizes or a git repository), each candidate measured on
    /// the shape of its sizes as `bench --like` does, in a few seconds.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["results", "size"])]
    pub like: Option<PathBuf>,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartChoice {
    /// Throughput against message size (every input overlaid).
    Size,
    /// Throughput at one size, fastest first (inputs side by side).
    Bars,
    /// Every raw sample at one size as box plots (one input).
    Box,
    /// Thread-scaling efficiency at one size (one input).
    Scaling,
    /// Backends of each algorithm side by side at one size (one input).
    Backends,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// The whole report: one self-contained HTML file.
    Html,
    /// One chart (--chart) as an SVG file.
    Svg,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results written by `hashlab bench --json -o FILE`; several give one section
    /// each and overlaid lines. None: run the default bench first (threads 1 and all).
    /// A `bench --like --format json` report is a page of its own, alone.
    #[arg(value_name = "RESULTS.json")]
    pub inputs: Vec<PathBuf>,
    /// The file to write, atomically (default: report.html, or CHART.svg with --chart); `-` for standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Message size of the bar, box, backend and scaling charts (default: the largest measured).
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Write this one chart as SVG instead of the page.
    #[arg(long, value_enum)]
    pub chart: Option<ChartChoice>,
    /// html: the page; svg: one chart (with --chart, which implies it).
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,
    /// With no results file: a short bench run (under 10 s for the default set).
    #[arg(long, conflicts_with = "inputs")]
    pub quick: bool,
    /// With no results file: the algorithms to measure, comma-separated (default: bench's default set).
    #[arg(short, long, value_delimiter = ',', conflicts_with = "inputs")]
    pub algorithms: Vec<String>,
    /// With no results file: the time budget of the run, in seconds (as bench --max-time).
    #[arg(long, value_name = "SECONDS", conflicts_with = "inputs")]
    pub max_time: Option<f64>,
    /// With no results file: keep the run in the history database, as `bench --save`
    /// (after the page is written; an interrupted run is not saved).
    #[arg(long, conflicts_with = "inputs")]
    pub save: bool,
    #[command(flatten)]
    pub db: DbArgs,
    /// No progress bar, and the written path is not printed.
    #[arg(short, long)]
    pub quiet: bool,
}
