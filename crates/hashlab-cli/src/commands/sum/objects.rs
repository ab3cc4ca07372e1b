//! `sum` of object-store URLs: each a prefix, listed, its objects hashed as
//! fetched (or, with `--from-store`, the digests the store recorded) by
//! hashlab-objects; here each becomes a named result, an unlisted root or
//! unreadable object failing as an unreadable file does.

use std::io;

use hashlab_integrity::{Fanout, FileDigests};
use hashlab_objects::{hash_roots, recorded_roots, EtagSummary, EtagVerdict, ObjectReader};

use super::sink::Named;
use crate::failure::Failure;

fn named(name: &str) -> Named {
    Named {
        label: name.as_bytes().to_vec(),
        shown: name.to_string(),
        absolute: name.as_bytes().to_vec(),
    }
}

/// Each root's objects hashed through `emit`, each ETag that did not
/// match said as it comes and every one tallied in `etags`.
pub(super) fn hash_object_roots(
    reader: &ObjectReader,
    urls: &[String],
    make: &dyn Fn() -> Fanout,
    verify_etag: bool,
    etags: &mut EtagSummary,
    emit: &mut dyn FnMut(Named, io::Result<FileDigests>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    hash_roots(reader, urls, make, verify_etag, &mut |name, result| {
        let result = result.map(|d| {
            if let Some(verdict) = &d.etag {
                etags.add(verdict);
                if *verdict != EtagVerdict::Matches {
                    errln!("hashlab: {name}: {}", verdict.describe());
                }
            }
            d.digests
        });
        emit(named(name), result.map_err(|e| e.to_io()))
    })
}

/// The digest by `algorithm` the store recorded of each root's object,
/// through `emit`.
pub(super) fn recorded_object_roots(
    reader: &ObjectReader,
    urls: &[String],
    algorithm: &str,
    emit: &mut dyn FnMut(Named, io::Result<FileDigests>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    recorded_roots(reader, urls, algorithm, &mut |name, result| {
        emit(named(name), result.map_err(|e| e.to_io()))
    })
}
