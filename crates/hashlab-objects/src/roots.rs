//! The reader every command makes, and the objects under root URLs hashed
//! (or their recorded digests taken) one root after another, as `sum` reads
//! them: a root that cannot be listed is one failure named by its URL, and
//! the roots after it are still read.

use hashlab::{Digest, Hasher};
use hashlab_integrity::{Fanout, FileDigests, Opener};

use crate::{is_object_url, EtagVerdict, ObjectDigests, ObjectError, ObjectReader, Settings};

/// The object-store client could not be made (its runtime, its threads).
#[derive(Debug)]
pub struct ClientError(pub std::io::Error);

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "object-store client: {}", self.0)
    }
}

impl std::error::Error for ClientError {}

/// A reader with the default [`Settings`] (the store's configuration from
/// the environment).
pub fn default_reader() -> Result<ObjectReader, ClientError> {
    ObjectReader::new(Settings::default()).map_err(ClientError)
}

/// Takes each object's name (or an unlisted root's URL) and what reading
/// it gave; failing stops the run.
pub type Emit<'a, T, E> = &'a mut dyn FnMut(&str, Result<T, ObjectError>) -> Result<(), E>;

/// A checker's opener for the object-store URLs a manifest names (other
/// names it leaves to the checker): each object read into the hasher by a
/// reader made at the first URL, so that a manifest of files starts no
/// runtime. With `verify_etag`, `on_etag` hears what each object's ETag says.
pub fn url_opener<'a>(
    verify_etag: bool,
    mut on_etag: impl FnMut(&str, EtagVerdict) + 'a,
) -> Opener<'a> {
    let mut reader: Option<ObjectReader> = None;
    Box::new(move |name: &[u8], hasher: &mut dyn Hasher| {
        let url = std::str::from_utf8(name)
            .ok()
            .filter(|n| is_object_url(n))?;
        if reader.is_none() {
            match default_reader() {
                Ok(made) => reader = Some(made),
                Err(e) => return Some(Err(e.0)),
            }
        }
        let reader = reader.as_ref()?;
        let read = reader.read_into(url, verify_etag, &mut |chunk| hasher.update(chunk));
        Some(match read {
            Ok((bytes, verdict)) => {
                if let Some(verdict) = verdict {
                    on_etag(url, verdict);
                }
                Ok(bytes)
            }
            Err(e) => Err(e.to_io()),
        })
    })
}

/// Lists each of `roots` and hashes its objects through `make`'s hashers,
/// handing `emit` each object's name and digests (with `verify_etag`, what
/// its ETag says) in listing order; a root that cannot be listed is handed
/// over as the root's URL and the error. `emit` stops the run by failing.
pub fn hash_roots<E>(
    reader: &ObjectReader,
    roots: &[String],
    make: &dyn Fn() -> Fanout,
    verify_etag: bool,
    emit: Emit<'_, ObjectDigests, E>,
) -> Result<(), E> {
    for root in roots {
        let objects = match reader.list(root) {
            Ok(objects) => objects,
            Err(e) => {
                emit(root, Err(e))?;
                continue;
            }
        };
        reader.hash(&objects, make, verify_etag, &mut |i, result| {
            emit(&objects[i].name, result)
        })?;
    }
    Ok(())
}

/// Lists each of `roots` and hands `emit` the digest by `algorithm` that
/// the store recorded of each object, reading none; an object without one,
/// or a root that cannot be listed, is handed over as an error.
pub fn recorded_roots<E>(
    reader: &ObjectReader,
    roots: &[String],
    algorithm: &str,
    emit: Emit<'_, FileDigests, E>,
) -> Result<(), E> {
    for root in roots {
        let objects = match reader.list(root) {
            Ok(objects) => objects,
            Err(e) => {
                emit(root, Err(e))?;
                continue;
            }
        };
        let recorded = reader.recorded_digests(&objects, algorithm);
        for (object, result) in objects.iter().zip(recorded) {
            let digests = result.map(|(record, digest)| FileDigests {
                digests: vec![Digest(digest)],
                bytes: record.size,
                modified: object.modified,
                inode: None,
                ctime_ns: None,
            });
            emit(&object.name, digests)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_root_is_read_and_one_that_cannot_be_listed_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("t")).unwrap();
        std::fs::write(dir.path().join("t/a"), b"abc").unwrap();
        let root = format!("file://{}/t", dir.path().display());
        let gone = format!("file://{}/gone", dir.path().display());
        let reader = default_reader().unwrap();
        let registry = hashlab::Registry::default();
        let make = || {
            Fanout::new(vec![registry
                .hasher("sha256", None, &Default::default())
                .unwrap()])
        };
        let roots = [gone.clone(), root.clone()];
        let mut seen = Vec::new();
        hash_roots::<()>(&reader, &roots, &make, false, &mut |name, result| {
            seen.push((name.to_string(), result.map(|d| d.digests.bytes)));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert_eq!(seen[0].0, gone);
        assert!(seen[0].1.is_err());
        assert_eq!(seen[1], (format!("{root}/a"), Ok(3)));
        // The local store records no sha256: the object is an error, not
        // skipped; emit's failure ends the run.
        let stopped = recorded_roots(&reader, &roots[1..], "sha256", &mut |name, result| {
            assert!(result.is_err(), "{name}");
            Err(name.to_string())
        });
        assert_eq!(stopped, Err(format!("{root}/a")));
    }

    #[test]
    fn the_opener_reads_urls_and_leaves_other_names_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), b"abc").unwrap();
        let url = format!("file://{}/a", dir.path().display());
        let registry = hashlab::Registry::default();
        let mut hasher = registry
            .hasher("sha256", None, &Default::default())
            .unwrap();
        let mut heard = Vec::new();
        let mut open = url_opener(true, |url, verdict| heard.push((url.to_string(), verdict)));
        assert!(open(b"plain/file", hasher.as_mut()).is_none());
        assert_eq!(open(url.as_bytes(), hasher.as_mut()).unwrap().unwrap(), 3);
        let gone = format!("file://{}/gone", dir.path().display());
        let missing = open(gone.as_bytes(), hasher.as_mut()).unwrap().unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        drop(open);
        assert_eq!(heard.len(), 1);
        assert_eq!(heard[0].0, url);
    }

    #[test]
    fn a_client_failure_is_worded_as_the_commands_say_it() {
        let e = ClientError(std::io::Error::other("no threads"));
        assert_eq!(e.to_string(), "object-store client: no threads");
    }
}
