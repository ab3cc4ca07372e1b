//! `sum` of object-store URLs: each a prefix, listed, its objects hashed as
//! fetched (or, with `--from-store`, the digests the store recorded).

use std::io;

use hashlab_integrity::{Fanout, FileDigests};
use hashlab_objects::{EtagSummary, EtagVerdict, ObjectReader};

use super::sink::Named;
use crate::failure::Failure;

/// Lists each root URL and hashes its objects through `emit`; a root that
/// cannot be listed is reported as an unreadable file is (and fails the run).
pub(super) fn hash_object_roots(
    reader: &ObjectReader,
    urls: &[String],
    make: &dyn Fn() -> Fanout,
    verify_etag: bool,
    etags: &mut EtagSummary,
    emit: &mut dyn FnMut(Named, io::Result<FileDigests>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    for url in urls {
        let objects = match reader.list(url) {
            Ok(objects) => objects,
            Err(e) => {
                let named = Named {
                    label: url.as_bytes().to_vec(),
                    shown: url.clone(),
                    absolute: url.as_bytes().to_vec(),
                };
                emit(named, Err(e.to_io()))?;
                continue;
            }
        };
        reader.hash(&objects, make, verify_etag, &mut |i, result| {
            let name = objects[i].name.as_bytes().to_vec();
            let named = Named {
                label: name.clone(),
                shown: objects[i].name.clone(),
                absolute: name,
            };
            let result = result.map(|d| {
                if let Some(verdict) = &d.etag {
                    etags.add(verdict);
                    if *verdict != EtagVerdict::Matches {
                        errln!("hashlab: {}: {}", objects[i].name, verdict.describe());
                    }
                }
                d.digests
            });
            emit(named, result.map_err(|e| e.to_io()))
        })?;
    }
    Ok(())
}

/// Lists each root URL and emits the digest by `algorithm` that the store
/// recorded of each object, reading none; an object without one is reported
/// as an unreadable file is.
pub(super) fn recorded_object_roots(
    reader: &ObjectReader,
    urls: &[String],
    algorithm: &str,
    emit: &mut dyn FnMut(Named, io::Result<FileDigests>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let named = |name: &str| Named {
        label: name.as_bytes().to_vec(),
        shown: name.to_string(),
        absolute: name.as_bytes().to_vec(),
    };
    for url in urls {
        let objects = match reader.list(url) {
            Ok(objects) => objects,
            Err(e) => {
                emit(named(url), Err(e.to_io()))?;
                continue;
            }
        };
        let recorded = reader.recorded_digests(&objects, algorithm);
        for (object, result) in objects.iter().zip(recorded) {
            let result = result
                .map(|(record, digest)| FileDigests {
                    digests: vec![hashlab::Digest(digest)],
                    bytes: record.size,
                    modified: object.modified,
                    inode: None,
                    ctime_ns: None,
                })
                .map_err(|e| e.to_io());
            emit(named(&object.name), result)?;
        }
    }
    Ok(())
}
