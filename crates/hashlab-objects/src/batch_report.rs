//! S3 Batch Operations' Compute checksum job, whose completion report holds
//! the checksum S3 computed of every object it was given, read from the
//! stored bytes at rest; compared here with a local manifest. No object is
//! read and nothing is listed: the report was made inside the store, so a
//! bucket of billions of objects is checked with no egress.
//!
//! The report is AWS's documented completion report (`Report_CSV_20180820`):
//! a `manifest.json` naming the result files (each with its MD5), and CSV
//! result files without a header whose columns are the manifest's
//! `ReportSchema`, by default `Bucket, Key, VersionId, TaskStatus,
//! ErrorCode, HTTPStatusCode, ResultMessage`. Keys are URL-encoded as in
//! Batch Operations' CSV manifests (`+` for a space). A Compute checksum
//! task's `ResultMessage` is a JSON object with the checksum
//! (`checksum_base64`, or `checksum_hex`), its algorithm
//! (`checksumAlgorithm`, S3's name: `CRC64NVME`, `XXHASH3`...) and its type
//! (`checksumType`: `FULL_OBJECT` or `COMPOSITE`, a composite value ending
//! in `-N` for N parts).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use base64::Engine;
use hashlab::{HashParams, Registry};
use hashlab_integrity::Recorded;
use serde::Deserialize;

use crate::compare::{TreeComparison, Verdict};
use crate::stored::{s3_checksum_named, ETAG_ALGORITHM};

/// The completion report format whose CSV layout this reads.
pub const REPORT_FORMAT: &str = "Report_CSV_20180820";

/// The columns of a result file when its manifest gives no `ReportSchema`.
const DEFAULT_SCHEMA: &str =
    "Bucket, Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage";

/// What the report says of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportEntry {
    pub bucket: String,
    /// Decoded from the report's URL encoding.
    pub key: String,
    pub version_id: Option<String>,
    pub outcome: Outcome,
}

/// A task's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// S3 computed this checksum of the object.
    Checksum(ReportChecksum),
    /// The task failed, or succeeded without a checksum hashlab reads: why,
    /// in the report's words.
    Failed(String),
}

/// A checksum S3 computed, as the report gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportChecksum {
    /// S3's name (`CRC64NVME`, `XXHASH128`), as the report spells it.
    pub s3_algorithm: String,
    /// The algorithm in hashlab's catalog.
    pub algorithm: String,
    /// `Some(N)`: COMPOSITE over N parts (the digest of the parts' digests).
    pub parts: Option<u32>,
    pub digest: Vec<u8>,
}

impl ReportChecksum {
    /// The value as S3 shows it: base64, with `-N` for a composite one.
    pub fn shown(&self, digest: &[u8]) -> String {
        let text = base64::engine::general_purpose::STANDARD.encode(digest);
        match self.parts {
            None => text,
            Some(n) => format!("{text}-{n}"),
        }
    }

    /// "CRC64NVME FULL_OBJECT", "SHA256 COMPOSITE of 3 parts".
    pub fn describe(&self) -> String {
        match self.parts {
            None => format!("{} FULL_OBJECT", self.s3_algorithm),
            Some(n) => format!("{} COMPOSITE of {n} parts", self.s3_algorithm),
        }
    }
}

/// Why a report could not be read.
#[derive(Debug)]
pub enum ReportError {
    /// A file could not be read.
    Io { path: PathBuf, message: String },
    /// A `manifest.json` that is not a completion report's.
    NotAReportManifest { path: PathBuf, problem: String },
    /// A result file whose MD5 is not the one its manifest records.
    Md5 {
        path: PathBuf,
        recorded: String,
        found: String,
    },
    /// A result file's row that is not one of the schema's.
    Row {
        path: PathBuf,
        row: u64,
        problem: String,
    },
    /// A report with no row.
    Empty { path: PathBuf },
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Io { path, message } => write!(f, "{}: {message}", path.display()),
            ReportError::NotAReportManifest { path, problem } => write!(
                f,
                "{}: not a Batch Operations completion report's manifest.json ({problem})",
                path.display()
            ),
            ReportError::Md5 {
                path,
                recorded,
                found,
            } => write!(
                f,
                "{}: MD5 {found}, the report's manifest.json records {recorded}: the file is not the one S3 wrote",
                path.display()
            ),
            ReportError::Row { path, row, problem } => {
                write!(f, "{}: row {row}: {problem}", path.display())
            }
            ReportError::Empty { path } => write!(f, "{}: the report has no row", path.display()),
        }
    }
}

impl std::error::Error for ReportError {}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ManifestJson {
    format: String,
    #[serde(default)]
    results: Vec<ResultFile>,
    #[serde(default)]
    report_schema: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ResultFile {
    key: String,
    #[serde(rename = "MD5Checksum")]
    md5_checksum: Option<String>,
}

/// Reads a completion report: its `manifest.json` (the result files are
/// found beside it under `results/`, where `aws s3 cp --recursive` of the
/// job's report prefix puts them, each checked against the MD5 the
/// manifest records), or one result CSV file.
pub fn read_report(registry: &Registry, path: &Path) -> Result<Vec<ReportEntry>, ReportError> {
    let bytes = read(path)?;
    let entries = if bytes.trim_ascii_start().starts_with(b"{") {
        read_manifest_json(registry, path, &bytes)?
    } else {
        read_result_csv(path, &bytes, DEFAULT_SCHEMA)?
    };
    if entries.is_empty() {
        return Err(ReportError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(entries)
}

fn read(path: &Path) -> Result<Vec<u8>, ReportError> {
    hashlab_integrity::bounded::read_text(path).map_err(|e| ReportError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn read_manifest_json(
    registry: &Registry,
    path: &Path,
    bytes: &[u8],
) -> Result<Vec<ReportEntry>, ReportError> {
    let not = |problem: String| ReportError::NotAReportManifest {
        path: path.to_path_buf(),
        problem,
    };
    let manifest: ManifestJson =
        serde_json::from_slice(bytes).map_err(|e| not(format!("JSON: {e}")))?;
    if manifest.format != REPORT_FORMAT {
        return Err(not(format!(
            "Format is {:?}; {REPORT_FORMAT} is read",
            manifest.format
        )));
    }
    if manifest.results.is_empty() {
        return Err(not("it lists no result file".into()));
    }
    let schema = manifest.report_schema.as_deref().unwrap_or(DEFAULT_SCHEMA);
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut entries = Vec::new();
    for result in &manifest.results {
        // Only the file's name is taken from the key: a report never makes
        // hashlab read outside the report's own directory.
        let name = result
            .key
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty() && *n != "." && *n != "..")
            .ok_or_else(|| not(format!("result key {:?} names no file", result.key)))?;
        let file = dir.join("results").join(name);
        let bytes = read(&file)?;
        if let Some(recorded) = &result.md5_checksum {
            let mut md5 = registry
                .hasher(ETAG_ALGORITHM, None, &HashParams::default())
                .map_err(|e| not(e.to_string()))?;
            md5.update(&bytes);
            let found = hashlab::hex::encode(md5.finalize_reset().as_bytes());
            if !found.eq_ignore_ascii_case(recorded) {
                return Err(ReportError::Md5 {
                    path: file,
                    recorded: recorded.clone(),
                    found,
                });
            }
        }
        entries.extend(read_result_csv(&file, &bytes, schema)?);
    }
    Ok(entries)
}

/// The columns a result file must have, by their place in the schema.
struct Columns {
    bucket: usize,
    key: usize,
    version: Option<usize>,
    status: usize,
    error_code: Option<usize>,
    message: usize,
    count: usize,
}

fn columns(schema: &str) -> Result<Columns, String> {
    let names: Vec<&str> = schema.split(',').map(str::trim).collect();
    let at = |name: &str| names.iter().position(|n| n.eq_ignore_ascii_case(name));
    let need = |name: &str| at(name).ok_or_else(|| format!("the report schema has no {name}"));
    Ok(Columns {
        bucket: need("Bucket")?,
        key: need("Key")?,
        version: at("VersionId"),
        status: need("TaskStatus")?,
        error_code: at("ErrorCode"),
        message: need("ResultMessage")?,
        count: names.len(),
    })
}

fn read_result_csv(
    path: &Path,
    bytes: &[u8],
    schema: &str,
) -> Result<Vec<ReportEntry>, ReportError> {
    let problem = |row: u64, problem: String| ReportError::Row {
        path: path.to_path_buf(),
        row,
        problem,
    };
    let columns = columns(schema).map_err(|p| problem(0, p))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut entries = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let row = i as u64 + 1;
        let record = record.map_err(|e| problem(row, format!("not CSV: {e}")))?;
        if record.len() != columns.count {
            return Err(problem(
                row,
                format!(
                    "{} fields, the schema has {} ({schema})",
                    record.len(),
                    columns.count
                ),
            ));
        }
        let field = |i: usize| record.get(i).unwrap_or_default();
        let key = decode_key(field(columns.key)).ok_or_else(|| {
            problem(
                row,
                format!("key {:?} is not URL-encoded UTF-8", field(columns.key)),
            )
        })?;
        let version_id = columns
            .version
            .map(field)
            .filter(|v| !v.is_empty() && !v.eq_ignore_ascii_case("null"))
            .map(str::to_string);
        let status = field(columns.status);
        let outcome = if status.eq_ignore_ascii_case("succeeded") {
            match checksum_of(field(columns.message)) {
                Ok(checksum) => Outcome::Checksum(checksum),
                Err(why) => Outcome::Failed(why),
            }
        } else {
            let code = columns.error_code.map(field).unwrap_or_default();
            Outcome::Failed(
                [status, code, field(columns.message)]
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join(": "),
            )
        };
        entries.push(ReportEntry {
            bucket: field(columns.bucket).to_string(),
            key,
            version_id,
            outcome,
        });
    }
    Ok(entries)
}

/// A key as Batch Operations writes it: URL-encoded, `+` for a space.
fn decode_key(encoded: &str) -> Option<String> {
    let spaced = encoded.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8()
        .ok()
        .map(|k| k.into_owned())
}

/// The checksum in a Compute checksum task's result message.
fn checksum_of(message: &str) -> Result<ReportChecksum, String> {
    let not = || format!("the result message {message:?} holds no checksum");
    let value: serde_json::Value = serde_json::from_str(message).map_err(|_| not())?;
    let text = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| value.get(*n).and_then(|v| v.as_str()))
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let s3_algorithm = text(&[
        "checksumAlgorithm",
        "checksum_algorithm",
        "ChecksumAlgorithm",
    ])
    .ok_or_else(not)?;
    let (_, algorithm) = s3_checksum_named(s3_algorithm)
        .ok_or_else(|| format!("{s3_algorithm} is not a checksum algorithm S3 records"))?;
    let kind = text(&["checksumType", "checksum_type", "ChecksumType"]).unwrap_or("FULL_OBJECT");
    let composite = if kind.eq_ignore_ascii_case("COMPOSITE") {
        true
    } else if kind.eq_ignore_ascii_case("FULL_OBJECT") {
        false
    } else {
        return Err(format!(
            "checksum type {kind:?} is neither FULL_OBJECT nor COMPOSITE"
        ));
    };
    let (digest, parts) =
        if let Some(b64) = text(&["checksum_base64", "checksumBase64", "ChecksumBase64"]) {
            let (encoded, parts) = split_count(b64);
            let digest = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .map_err(|_| format!("checksum {b64:?} is not base64"))?;
            (digest, parts)
        } else if let Some(hex) = text(&["checksum_hex", "checksumHex", "ChecksumHex"]) {
            let (encoded, parts) = split_count(hex);
            let digest = hashlab::hex::decode(encoded)
                .map_err(|_| format!("checksum {hex:?} is not hex"))?;
            (digest, parts)
        } else {
            return Err(not());
        };
    let parts = match (composite, parts) {
        (false, None) => None,
        (true, Some(n)) => Some(n),
        (true, None) => {
            // A composite checksum of an object uploaded in one part is its
            // whole digest, shown without a count.
            None
        }
        (false, Some(n)) => {
            return Err(format!("a FULL_OBJECT checksum with a parts count (-{n})"))
        }
    };
    Ok(ReportChecksum {
        s3_algorithm: s3_algorithm.to_ascii_uppercase(),
        algorithm: algorithm.to_string(),
        parts,
        digest,
    })
}

/// `value` as (digest text, N of a trailing `-N`). Base64 and hex never
/// hold `-`.
fn split_count(value: &str) -> (&str, Option<u32>) {
    match value.rsplit_once('-') {
        Some((digest, count)) => match count.parse::<u32>() {
            Ok(n) if n > 0 && !digest.is_empty() => (digest, Some(n)),
            _ => (value, None),
        },
        None => (value, None),
    }
}

/// `s3://bucket/prefix` as (bucket, prefix with its trailing `/`, or empty).
fn bucket_and_prefix(url: &str) -> Option<(&str, String)> {
    let rest = url.strip_prefix("s3://")?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return None;
    }
    let prefix = prefix.trim_end_matches('/');
    Some((
        bucket,
        if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}/")
        },
    ))
}

/// Why a report and a manifest could not be compared at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportCompareError {
    /// Not an `s3://bucket[/prefix]` URL.
    NotAnS3Prefix(String),
}

impl fmt::Display for ReportCompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportCompareError::NotAnS3Prefix(url) => write!(
                f,
                "{url}: not an s3://bucket/prefix (Batch Operations reports are S3's)"
            ),
        }
    }
}

impl std::error::Error for ReportCompareError {}

/// The report's objects under `prefix_url` (`s3://bucket/prefix`) against
/// the manifest's entries, paired by name: the key is the prefix followed
/// by the manifest's name. In the result, `only_local` are the manifest's
/// names the report has no object of, `only_in_store` the report's objects
/// the manifest lacks, and `errors` the objects whose task failed.
///
/// A FULL_OBJECT checksum is compared with the manifest's digest of the same
/// algorithm; a COMPOSITE one with the digest of the digests of the
/// manifest's pieces (`sum --piece`, when the pieces were the upload's
/// parts). Another algorithm is `NotComparable`, with the reason.
pub fn compare_report(
    report: &[ReportEntry],
    manifest: &[Recorded],
    prefix_url: &str,
    registry: &Registry,
) -> Result<TreeComparison, ReportCompareError> {
    let prefix = ReportPrefix::parse(prefix_url)?;
    Ok(compare_under(report, manifest, &prefix, registry))
}

/// The bucket and key prefix a report's keys are compared under, checked
/// before any report is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportPrefix {
    bucket: String,
    /// The keys' prefix with its trailing `/`, or empty.
    prefix: String,
}

impl ReportPrefix {
    /// `s3://bucket[/prefix]`, or why not.
    pub fn parse(url: &str) -> Result<ReportPrefix, ReportCompareError> {
        let (bucket, prefix) = bucket_and_prefix(url)
            .ok_or_else(|| ReportCompareError::NotAnS3Prefix(url.to_string()))?;
        Ok(ReportPrefix {
            bucket: bucket.to_string(),
            prefix,
        })
    }
}

/// [`compare_report`] under a prefix already checked.
pub fn compare_under(
    report: &[ReportEntry],
    manifest: &[Recorded],
    under: &ReportPrefix,
    registry: &Registry,
) -> TreeComparison {
    let (bucket, prefix) = (&under.bucket, &under.prefix);
    let mut found = TreeComparison::default();
    let mut objects: BTreeMap<&str, Vec<&ReportEntry>> = BTreeMap::new();
    for entry in report.iter().filter(|e| &e.bucket == bucket) {
        if let Some(name) = entry.key.strip_prefix(prefix.as_str()) {
            objects.entry(name).or_default().push(entry);
        }
    }
    let mut recorded: BTreeMap<String, Vec<&Recorded>> = BTreeMap::new();
    for entry in manifest {
        let name = String::from_utf8_lossy(&entry.name).into_owned();
        recorded.entry(name).or_default().push(entry);
    }
    for (name, entries) in &recorded {
        let Some(rows) = objects.get(name.as_str()) else {
            found.only_local.push(name.clone());
            continue;
        };
        let [row] = rows.as_slice() else {
            found.errors.push((
                name.clone(),
                format!(
                    "the report has {} rows for this key (versions): compare a report of current versions",
                    rows.len()
                ),
            ));
            continue;
        };
        match &row.outcome {
            Outcome::Failed(why) => found
                .errors
                .push((name.clone(), format!("the task failed: {why}"))),
            Outcome::Checksum(checksum) => {
                found
                    .compared
                    .push((name.clone(), judge(checksum, entries, registry)));
            }
        }
    }
    found.only_in_store = objects
        .keys()
        .filter(|name| !recorded.contains_key(**name))
        .map(|name| name.to_string())
        .collect();
    found
}

fn judge(checksum: &ReportChecksum, entries: &[&Recorded], registry: &Registry) -> Verdict {
    let by = format!("{} of the Compute checksum report", checksum.describe());
    let store = checksum.shown(&checksum.digest);
    let same: Vec<&&Recorded> = entries
        .iter()
        .filter(|e| e.algorithm == checksum.algorithm)
        .collect();
    let Some(entry) = same.first() else {
        let has: Vec<&str> = entries.iter().map(|e| e.algorithm.as_str()).collect();
        return Verdict::NotComparable {
            reason: format!(
                "the report has {} ({}), the manifest {}",
                checksum.s3_algorithm,
                checksum.algorithm,
                has.join(", ")
            ),
        };
    };
    let local = match checksum.parts {
        None if entry.digest.is_empty() => {
            return Verdict::NotComparable {
                reason: "the manifest records this file's pieces only, not its whole digest".into(),
            }
        }
        None => entry.digest.clone(),
        Some(n) => match composite_of_pieces(entry, n, registry) {
            Ok(digest) => digest,
            Err(reason) => return Verdict::NotComparable { reason },
        },
    };
    if local == checksum.digest {
        Verdict::Matched { by }
    } else {
        Verdict::Changed {
            by,
            local: checksum.shown(&local),
            store,
        }
    }
}

/// The composite value of an entry's pieces: its algorithm over their digests.
fn composite_of_pieces(
    entry: &Recorded,
    parts: u32,
    registry: &Registry,
) -> Result<Vec<u8>, String> {
    let Some(pieces) = &entry.pieces else {
        return Err(format!(
            "a COMPOSITE checksum of {parts} parts, and the manifest records the whole file's digest (sum --piece with the upload's part size records the parts')"
        ));
    };
    if pieces.digests.len() != parts as usize {
        return Err(format!(
            "a COMPOSITE checksum of {parts} parts, and the manifest records {} pieces of {} bytes",
            pieces.digests.len(),
            pieces.size
        ));
    }
    let mut hasher = registry
        .hasher(&entry.algorithm, None, &HashParams::default())
        .map_err(|e| e.to_string())?;
    for digest in &pieces.digests {
        hasher.update(digest);
    }
    Ok(hasher.finalize_reset().as_bytes().to_vec())
}
