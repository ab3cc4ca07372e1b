//! Hashing objects in object stores (`s3://`, `gs://`, `az://`, `file://`)
//! through the `object_store` crate, for `hashlab sum|check|audit` and the
//! Python package.
//!
//! The API is blocking: an [`ObjectReader`] owns a tokio runtime and one
//! client per store, and each call runs its requests on that runtime. An
//! object is read as ranges ([`Settings::range_size`]) of which at most
//! [`Settings::requests`] are in flight at once, across objects, and are fed
//! in order to the hashers on the caller's thread: memory stays within
//! `requests × range_size`, and many small objects overlap their round trips
//! as the ranges of one large object do.
//!
//! Names: an object listed under a root URL is named as `hashlab sum -r DIR`
//! names files, the root as given followed by the key below it
//! (`s3://bucket/data` lists `s3://bucket/data/a/b.txt`), so a manifest's
//! names are URLs that `check` reads back and `audit` compares with a new
//! listing. Prints nothing; holds no global state.

mod audit;
mod azure;
pub mod batch_report;
pub mod compare;
mod direct;
mod etag;
mod gcs;
mod problem;
mod roots;
mod rows;
mod s3;
mod store;
pub mod stored;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use futures::{StreamExt, TryStreamExt};
use hashlab::{Hasher, Registry};
use hashlab_integrity::{Fanout, FileDigests};
use object_store::path::Path as Key;
use object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore, ObjectStoreExt};

use etag::EtagCheck;
use store::{Client, Direct};
use stored::StoreRecord;

pub use audit::{audit, AuditOptions, AuditOutcome};
pub use etag::{EtagSummary, EtagVerdict};
pub use problem::Problem;
pub use roots::{default_reader, hash_roots, recorded_roots, url_opener, ClientError};
pub use rows::{ReportAudit, ReportCounts, RowWords, StoreAudit, StoreCounts, REPORT_PROVES};
pub use store::is_object_url;

/// How objects are read.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Bytes per ranged read.
    pub range_size: u64,
    /// Ranged reads in flight at once (across objects).
    pub requests: usize,
    /// Read the store's configuration from the standard environment
    /// variables (`AWS_ACCESS_KEY_ID`, `AWS_ENDPOINT_URL`, `GOOGLE_*`, `AZURE_*`...).
    pub from_env: bool,
    /// object_store configuration keys (`aws_endpoint`, `aws_region`...),
    /// applied over the environment.
    pub options: Vec<(String, String)>,
}

impl Settings {
    pub const DEFAULT_RANGE_SIZE: u64 = 8 << 20;
    pub const DEFAULT_REQUESTS: usize = 8;
    /// The bytes in flight, `requests × range_size`, are held in memory at
    /// once: at most 4 GiB, so that a setting cannot abort the process on an
    /// allocation it could never make.
    pub const MAX_IN_FLIGHT: u64 = 4 << 30;
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            range_size: Settings::DEFAULT_RANGE_SIZE,
            requests: Settings::DEFAULT_REQUESTS,
            from_env: true,
            options: Vec::new(),
        }
    }
}

/// A failure about one URL: the URL, what kind of problem, and one line
/// describing it (never a credential).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectError {
    pub url: String,
    pub problem: Problem,
    pub message: String,
}

impl std::fmt::Display for ObjectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.url, self.message)
    }
}

impl std::error::Error for ObjectError {}

impl ObjectError {
    fn new(url: &str, problem: Problem, message: impl Into<String>) -> ObjectError {
        ObjectError {
            url: url.to_string(),
            problem,
            message: message.into(),
        }
    }

    fn from_store(url: &str, error: &object_store::Error) -> ObjectError {
        let (problem, message) = problem::classify(error);
        ObjectError::new(url, problem, message)
    }

    /// As an `io::Error` (`NotFound` for a missing object), for callers
    /// that report files and objects alike. The message leaves the URL out.
    pub fn to_io(&self) -> std::io::Error {
        let kind = match self.problem {
            Problem::NotFound => std::io::ErrorKind::NotFound,
            Problem::AccessDenied => std::io::ErrorKind::PermissionDenied,
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, self.message.clone())
    }
}

/// A listing under `prefix` sorted by key, each object with its key below
/// the prefix and named `base/key`.
fn keyed(
    mut metas: Vec<ObjectMeta>,
    prefix: &Key,
    base: &str,
    client: &Client,
) -> Vec<(String, ObjectInfo)> {
    metas.sort_by(|a, b| a.location.as_ref().cmp(b.location.as_ref()));
    let skip = if prefix.as_ref().is_empty() {
        0
    } else {
        prefix.as_ref().len() + 1
    };
    metas
        .into_iter()
        .map(|meta| {
            let key = meta
                .location
                .as_ref()
                .get(skip..)
                .unwrap_or_default()
                .to_string();
            let object = info(format!("{base}/{key}"), meta, client);
            (key, object)
        })
        .collect()
}

/// One object to hash.
#[derive(Debug, Clone)]
pub struct ObjectInfo {
    /// The object's name: its root URL as given, then its key below the root.
    pub name: String,
    pub size: u64,
    /// As the store reports it, quotes removed.
    pub e_tag: Option<String>,
    pub modified: Option<SystemTime>,
    store: Arc<dyn ObjectStore>,
    /// S3 only: the requests object_store does not make.
    direct: Option<Direct>,
    key: Key,
}

/// One object's digests.
#[derive(Debug, Clone)]
pub struct ObjectDigests {
    /// One per hasher of the Fanout, as [`FileDigests`] has them.
    pub digests: FileDigests,
    /// With `verify_etag`: what the ETag says.
    pub etag: Option<EtagVerdict>,
}

/// Reads objects: owns the runtime their requests run on and one client per
/// store (`scheme://bucket`), reused across calls.
pub struct ObjectReader {
    runtime: tokio::runtime::Runtime,
    settings: Settings,
    stores: Mutex<HashMap<String, Client>>,
}

impl ObjectReader {
    pub fn new(settings: Settings) -> std::io::Result<ObjectReader> {
        if settings.requests == 0 || settings.range_size == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "requests and range size must be at least 1",
            ));
        }
        let in_flight = (settings.requests as u64).saturating_mul(settings.range_size);
        if in_flight > Settings::MAX_IN_FLIGHT {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} requests of {} bytes are over the limit of {} bytes in flight",
                    settings.requests,
                    settings.range_size,
                    Settings::MAX_IN_FLIGHT
                ),
            ));
        }
        // Two threads move bytes off the sockets while the caller's thread
        // hashes; more would only compete with the hashing for cores.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("hashlab-objects")
            .enable_all()
            .build()?;
        Ok(ObjectReader {
            runtime,
            settings,
            stores: Mutex::new(HashMap::new()),
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The client for `url`'s store and the key the URL names in it.
    fn resolve(&self, url: &str) -> Result<(Client, Key), ObjectError> {
        let split = store::split(url).map_err(|m| ObjectError::new(url, Problem::Usage, m))?;
        // The key as the store names it: `Key::from` would percent-encode a
        // `%` or any non-ASCII byte, naming another object (`ü` as `%C3%BC`).
        // Only a key object_store cannot hold as it is (an empty segment)
        // falls back to that encoding.
        let key = Key::parse(split.key).unwrap_or_else(|_| Key::from(split.key));
        let mut stores = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(client) = stores.get(&split.store_id) {
            return Ok((client.clone(), key));
        }
        // Building a client reads no network: an unreachable endpoint shows
        // at the first request.
        let client = {
            let _enter = self.runtime.enter();
            store::build(&split, self.settings.from_env, &self.settings.options)
                .map_err(|m| ObjectError::new(url, Problem::Usage, m))?
        };
        stores.insert(split.store_id.clone(), client.clone());
        Ok((client, key))
    }

    /// The objects under `root` (a prefix, as `s3://bucket/dir`, with or
    /// without a trailing `/`), sorted by key; or the one object `root` names
    /// when nothing lies under it. An empty bucket lists nothing; a prefix
    /// with nothing at or under it is `NotFound`.
    pub fn list(&self, root: &str) -> Result<Vec<ObjectInfo>, ObjectError> {
        let (client, prefix) = self.resolve(root)?;
        let store = &client.store;
        let base = root.trim_end_matches('/');
        let listing: Result<Vec<ObjectMeta>, object_store::Error> = self.runtime.block_on(async {
            let prefix = (!prefix.as_ref().is_empty()).then_some(&prefix);
            store.list(prefix).try_collect().await
        });
        let metas = listing.map_err(|e| ObjectError::from_store(root, &e))?;
        if metas.is_empty() {
            if prefix.as_ref().is_empty() {
                return Ok(Vec::new());
            }
            let meta = self.runtime.block_on(store.head(&prefix)).map_err(|e| {
                match ObjectError::from_store(root, &e) {
                    e if e.problem == Problem::NotFound => {
                        ObjectError::new(root, Problem::NotFound, "no object at or under this URL")
                    }
                    e => e,
                }
            })?;
            return Ok(vec![info(base.to_string(), meta, &client)]);
        }
        Ok(keyed(metas, &prefix, base, &client)
            .into_iter()
            .map(|(_, object)| object)
            .collect())
    }

    /// The objects under `root` whose keys below it lie after `after` and up
    /// to `until` (both keys below `root`; `None`: from the first, to the
    /// last), sorted by key, each with its key below `root`: one shard of a
    /// listing that several workers share. S3, GCS and Azure list in key
    /// order, so the listing starts after `after` and stops at `until`; a
    /// `file://` tree has no order and is listed whole and filtered.
    pub fn list_range(
        &self,
        root: &str,
        after: Option<&str>,
        until: Option<&str>,
    ) -> Result<Vec<(String, ObjectInfo)>, ObjectError> {
        let (client, prefix) = self.resolve(root)?;
        let store = &client.store;
        let base = root.trim_end_matches('/');
        let full = |key: &str| -> String {
            if prefix.as_ref().is_empty() {
                key.to_string()
            } else {
                format!("{}/{key}", prefix.as_ref())
            }
        };
        let (after, until) = (after.map(full), until.map(full));
        let ordered = !root.starts_with("file:");
        let listing: Result<Vec<ObjectMeta>, object_store::Error> = self.runtime.block_on(async {
            let scope = (!prefix.as_ref().is_empty()).then_some(&prefix);
            let stream = match &after {
                Some(offset) if ordered => {
                    let offset = Key::parse(offset).unwrap_or_else(|_| Key::from(offset.as_str()));
                    store.list_with_offset(scope, &offset)
                }
                _ => store.list(scope),
            };
            let until = until.as_deref();
            let after = after.as_deref();
            let in_range = move |m: &ObjectMeta| {
                after.is_none_or(|a| m.location.as_ref() > a)
                    && until.is_none_or(|u| m.location.as_ref() <= u)
            };
            if ordered {
                stream
                    .try_take_while(|m| {
                        futures::future::ready(Ok(until.is_none_or(|u| m.location.as_ref() <= u)))
                    })
                    .try_filter(|m| futures::future::ready(in_range(m)))
                    .try_collect()
                    .await
            } else {
                stream
                    .try_filter(|m| futures::future::ready(in_range(m)))
                    .try_collect()
                    .await
            }
        });
        let metas = listing.map_err(|e| ObjectError::from_store(root, &e))?;
        Ok(keyed(metas, &prefix, base, &client)
            .into_iter()
            .filter(|(key, _)| !key.is_empty())
            .collect())
    }

    /// The one object `url` names (a HEAD request).
    pub fn stat(&self, url: &str) -> Result<ObjectInfo, ObjectError> {
        let (client, key) = self.resolve(url)?;
        if key.as_ref().is_empty() {
            return Err(ObjectError::new(
                url,
                Problem::Usage,
                "the URL names a bucket, not an object",
            ));
        }
        let meta = self
            .runtime
            .block_on(client.store.head(&key))
            .map_err(|e| ObjectError::from_store(url, &e))?;
        Ok(info(url.to_string(), meta, &client))
    }

    /// An object known by name, size and ETag (from a listing made
    /// elsewhere, e.g. a Dask client's): no request.
    pub fn object(
        &self,
        name: &str,
        size: u64,
        e_tag: Option<String>,
    ) -> Result<ObjectInfo, ObjectError> {
        let (client, key) = self.resolve(name)?;
        Ok(ObjectInfo {
            name: name.to_string(),
            size,
            e_tag,
            modified: None,
            store: client.store,
            direct: client.direct,
            key,
        })
    }

    /// What the store recorded about each object, in order, reading none:
    /// for S3 a HEAD with the additional checksums asked for, and for a
    /// multipart upload one HEAD per part, whose length is the part's size;
    /// elsewhere what the listing gave (size and ETag). `settings.requests`
    /// objects are asked at a time.
    pub fn records(&self, objects: &[ObjectInfo]) -> Vec<Result<StoreRecord, ObjectError>> {
        self.records_with(objects, true)
    }

    fn records_with(
        &self,
        objects: &[ObjectInfo],
        part_sizes: bool,
    ) -> Vec<Result<StoreRecord, ObjectError>> {
        let requests = self.settings.requests;
        self.runtime.block_on(
            futures::stream::iter(objects)
                .map(|object| record_of(object, part_sizes, requests))
                .buffered(requests)
                .collect(),
        )
    }

    /// Each object's digest by `algorithm` as the store recorded it (see
    /// [`StoreRecord::whole_digest`]), with the record: a manifest made of
    /// the store's metadata, reading no object (one HEAD each on S3).
    pub fn recorded_digests(
        &self,
        objects: &[ObjectInfo],
        algorithm: &str,
    ) -> Vec<Result<(StoreRecord, Vec<u8>), ObjectError>> {
        self.records_with(objects, false)
            .into_iter()
            .zip(objects)
            .map(|(record, object)| {
                let record = record?;
                match record.whole_digest(algorithm) {
                    Ok(digest) => Ok((record, digest)),
                    Err(why) => Err(ObjectError::new(&object.name, Problem::NotRecorded, why)),
                }
            })
            .collect()
    }

    /// The part sizes of every object whose ETag is a multipart upload's
    /// (asked of S3; elsewhere `Ok(None)`), to check such ETags.
    fn etag_part_sizes(&self, objects: &[ObjectInfo]) -> Vec<Result<Option<Vec<u64>>, String>> {
        let multipart = |o: &ObjectInfo| {
            matches!(o.direct, Some(Direct::S3(_)))
                && o.e_tag.as_deref().and_then(stored::parts_count).is_some()
        };
        let asked: Vec<ObjectInfo> = objects.iter().filter(|o| multipart(o)).cloned().collect();
        let mut records = self.records(&asked).into_iter();
        objects
            .iter()
            .map(|o| {
                if !multipart(o) {
                    return Ok(None);
                }
                match records.next().expect("one record per object asked") {
                    Ok(record) => Ok(record.part_sizes),
                    Err(e) => Err(e.message),
                }
            })
            .collect()
    }

    /// Hashes `objects` with the hashers `make` builds, and hands each
    /// result to `emit` in order. With `verify_etag`, the ETag is checked
    /// alongside: the MD5 of the content, or for a multipart upload the MD5
    /// of its parts' MD5s, the parts' sizes asked of the store first (a HEAD
    /// per part). `emit` returning an error stops the run.
    pub fn hash<E>(
        &self,
        objects: &[ObjectInfo],
        make: &dyn Fn() -> Fanout,
        verify_etag: bool,
        emit: &mut dyn FnMut(usize, Result<ObjectDigests, ObjectError>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut fanout = make();
        let registry = verify_etag.then(Registry::default);
        let mut part_sizes = if verify_etag {
            self.etag_part_sizes(objects)
        } else {
            Vec::new()
        }
        .into_iter();
        let mut pending: Option<Pending> = None;
        self.stream(objects, &mut |unit, chunk| {
            let object = &objects[unit.object];
            let state = match &mut pending {
                Some(state) => state,
                None => {
                    // The store said how long the object is: a length-first
                    // hash (TupleHash) streams it; ranges that disagree fail.
                    fanout.announce_length(object.size);
                    let etag = registry.as_ref().map(|registry| {
                        match part_sizes.next().expect("one per object") {
                            Ok(sizes) => {
                                EtagCheck::new(registry, object.e_tag.as_deref(), sizes.as_deref())
                            }
                            Err(why) => EtagCheck::Verdict(EtagVerdict::NotComparable {
                                reason: format!("the parts' sizes could not be asked: {why}"),
                            }),
                        }
                    });
                    pending.insert(Pending {
                        object: unit.object,
                        bytes: 0,
                        failed: None,
                        etag,
                    })
                }
            };
            match chunk {
                Ok(bytes) if state.failed.is_none() => {
                    let expected = unit.range.as_ref().map_or(0, |r| r.end - r.start);
                    if bytes.len() as u64 != expected {
                        state.failed = Some(ObjectError::new(
                            &object.name,
                            Problem::Changed,
                            format!(
                                "the store sent {} bytes for a range of {expected}: it changed while it was being read",
                                bytes.len()
                            ),
                        ));
                    } else {
                        fanout.update(bytes);
                        if let Some(etag) = &mut state.etag {
                            etag.update(bytes);
                        }
                        state.bytes += expected;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    if state.failed.is_none() {
                        state.failed = Some(ObjectError::from_store(&object.name, e));
                    }
                }
            }
            if !unit.last {
                return Ok(());
            }
            let done = pending.take().expect("set above");
            let joined = fanout.finalize_reset();
            let result = match done.failed {
                Some(e) => Err(e),
                None => Ok(ObjectDigests {
                    digests: FileDigests {
                        digests: fanout.split(&joined),
                        bytes: done.bytes,
                        modified: object.modified,
                        inode: None,
                        ctime_ns: None,
                    },
                    etag: done.etag.map(EtagCheck::finish),
                }),
            };
            emit(done.object, result)
        })
    }

    /// Reads the object `url` names into `sink`, in order; returns its size
    /// and, with `verify_etag`, what its ETag says (for `check`, which hashes
    /// one named object at a time).
    pub fn read_into(
        &self,
        url: &str,
        verify_etag: bool,
        sink: &mut dyn FnMut(&[u8]),
    ) -> Result<(u64, Option<EtagVerdict>), ObjectError> {
        let object = self.stat(url)?;
        let registry = verify_etag.then(Registry::default);
        let mut etag = registry.as_ref().map(|registry| {
            match self
                .etag_part_sizes(std::slice::from_ref(&object))
                .remove(0)
            {
                Ok(sizes) => EtagCheck::new(registry, object.e_tag.as_deref(), sizes.as_deref()),
                Err(why) => EtagCheck::Verdict(EtagVerdict::NotComparable {
                    reason: format!("the parts' sizes could not be asked: {why}"),
                }),
            }
        });
        let mut failed = None;
        let mut bytes = 0u64;
        self.stream(std::slice::from_ref(&object), &mut |unit, chunk| {
            match chunk {
                Ok(data) if failed.is_none() => {
                    let expected = unit.range.as_ref().map_or(0, |r| r.end - r.start);
                    if data.len() as u64 != expected {
                        failed = Some(ObjectError::new(
                            url,
                            Problem::Changed,
                            "it changed while it was being read",
                        ));
                    } else {
                        sink(data);
                        if let Some(etag) = &mut etag {
                            etag.update(data);
                        }
                        bytes += expected;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    failed.get_or_insert_with(|| ObjectError::from_store(url, e));
                }
            }
            Ok::<(), ()>(())
        })
        .expect("the sink never stops the stream");
        match failed {
            Some(e) => Err(e),
            None => Ok((bytes, etag.map(EtagCheck::finish))),
        }
    }

    /// Fetches every object's ranges, `settings.requests` at a time, and
    /// hands them to `consume` in order (object by object, range by range).
    /// A zero-length object is one unit with no request.
    fn stream<E>(&self, objects: &[ObjectInfo], consume: Consume<'_, E>) -> Result<(), E> {
        let units = plan(objects, self.settings.range_size);
        self.runtime.block_on(async {
            let mut fetched = futures::stream::iter(units.iter())
                .map(|unit| {
                    // Spawned, so the requests progress on the runtime's
                    // threads while this thread hashes; `buffered` keeps at
                    // most `requests` of them alive and yields them in order.
                    let task = unit.range.clone().map(|range| {
                        let object = &objects[unit.object];
                        let options = GetOptions {
                            range: Some(GetRange::Bounded(range)),
                            // A new version mid-read fails the remaining ranges
                            // instead of mixing two versions' bytes.
                            if_match: object.e_tag.as_ref().map(|t| format!("\"{t}\"")),
                            ..Default::default()
                        };
                        let (store, key) = (Arc::clone(&object.store), object.key.clone());
                        tokio::spawn(
                            async move { store.get_opts(&key, options).await?.bytes().await },
                        )
                    });
                    async move {
                        match task {
                            None => Ok(Default::default()),
                            Some(handle) => match handle.await {
                                Ok(result) => result,
                                Err(join) => Err(object_store::Error::JoinError { source: join }),
                            },
                        }
                    }
                })
                .buffered(self.settings.requests);
            let mut at = 0;
            while let Some(result) = fetched.next().await {
                let unit = &units[at];
                at += 1;
                match &result {
                    Ok(bytes) => consume(unit, Ok(bytes))?,
                    Err(e) => consume(unit, Err(e))?,
                }
            }
            Ok(())
        })
    }
}

/// What the store recorded about `object` (see [`ObjectReader::records`]);
/// at most `requests` HEADs of its parts at once.
async fn record_of(
    object: &ObjectInfo,
    part_sizes: bool,
    requests: usize,
) -> Result<StoreRecord, ObjectError> {
    let fail =
        |(problem, message): (Problem, String)| ObjectError::new(&object.name, problem, message);
    let direct = match &object.direct {
        Some(Direct::S3(direct)) => direct,
        Some(Direct::Gcs(direct)) => {
            let record = direct.record(object.key.as_ref()).await.map_err(fail)?;
            return Ok(StoreRecord {
                e_tag: object.e_tag.clone(),
                ..record
            });
        }
        Some(Direct::Azure(direct)) => {
            let record = direct.record(object.key.as_ref()).await.map_err(fail)?;
            return Ok(StoreRecord {
                e_tag: object.e_tag.clone(),
                ..record
            });
        }
        None => {
            return Ok(StoreRecord {
                size: object.size,
                e_tag: object.e_tag.clone(),
                ..StoreRecord::default()
            })
        }
    };
    let key = object.key.as_ref();
    let length = |head: &s3::Head| -> Result<u64, ObjectError> {
        head.get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| {
                ObjectError::new(
                    &object.name,
                    Problem::Other,
                    "the store's answer has no length",
                )
            })
    };
    let head = direct.head(key, None).await.map_err(fail)?;
    let header = |name: &str| {
        head.get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let mut record = StoreRecord::from_s3_head(length(&head)?, &header);
    if let Some(parts) = record.parts.filter(|_| part_sizes) {
        let sizes: Vec<Result<u64, ObjectError>> = futures::stream::iter(1..=parts)
            .map(|part| async move {
                let head = direct.head(key, Some(part)).await.map_err(fail)?;
                length(&head)
            })
            .buffered(requests)
            .collect()
            .await;
        let sizes = sizes
            .into_iter()
            .collect::<Result<Vec<u64>, ObjectError>>()?;
        let total: u64 = sizes.iter().sum();
        if total != record.size {
            return Err(ObjectError::new(
                &object.name,
                Problem::Changed,
                format!(
                    "its parts add up to {total} bytes and the object has {}: it changed while it was being asked",
                    record.size
                ),
            ));
        }
        record.part_sizes = Some(sizes);
    }
    Ok(record)
}

/// Takes each range, in order, as it arrives (or the error that replaced it).
type Consume<'a, E> =
    &'a mut dyn FnMut(&Unit, Result<&[u8], &object_store::Error>) -> Result<(), E>;

struct Pending {
    object: usize,
    bytes: u64,
    failed: Option<ObjectError>,
    etag: Option<EtagCheck>,
}

/// One ranged read of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Unit {
    object: usize,
    /// None for an empty object.
    range: Option<Range<u64>>,
    /// The object's last range.
    last: bool,
}

fn plan(objects: &[ObjectInfo], range_size: u64) -> Vec<Unit> {
    let mut units = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        if object.size == 0 {
            units.push(Unit {
                object: i,
                range: None,
                last: true,
            });
            continue;
        }
        let mut start = 0;
        while start < object.size {
            let end = (start + range_size).min(object.size);
            units.push(Unit {
                object: i,
                range: Some(start..end),
                last: end == object.size,
            });
            start = end;
        }
    }
    units
}

fn info(name: String, meta: ObjectMeta, client: &Client) -> ObjectInfo {
    ObjectInfo {
        name,
        size: meta.size,
        e_tag: meta.e_tag.map(|t| {
            let t = t.strip_prefix("W/").unwrap_or(&t);
            t.trim_matches('"').to_string()
        }),
        modified: Some(meta.last_modified.into()),
        store: Arc::clone(&client.store),
        direct: client.direct.clone(),
        key: meta.location,
    }
}

#[cfg(test)]
mod tests;
