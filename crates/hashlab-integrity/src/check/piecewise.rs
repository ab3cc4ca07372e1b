//! `check` of the manifests that hold pieces (`sum --piece`'s, `hashdeep
//! -p`'s): such a manifest is read whole, not line by line, and each entry
//! is compared with its file (and, where it changed, its pieces say where).

use std::io::{self, BufRead};
use std::path::PathBuf;

use hashlab::{HashError, HashParams, Registry};

use super::Summary;
use crate::bounded::{read_to_end, LineError};
use crate::cancel::{is_interrupted, Cancel};
use crate::manifest::Framing;
use crate::pieces::{Comparer, Comparison, EntryHasher};
use crate::recorded::{read_manifest, LineFault, LineProblem, Manifest, ManifestError};
use crate::recorded::{ReadOptions, Recorded};

/// What a manifest is for `check`, seen before its lines are checked.
pub enum ManifestShape {
    /// It holds pieces (an entry has some, or pieces could not be read,
    /// which the line checker would only call improperly formatted): read
    /// whole, for an [`EntryChecker`].
    Piecewise(Manifest),
    /// Lines for the line checker: its bytes, unread but for what was
    /// looked at.
    Lines(Box<dyn BufRead>),
    /// It could not be read whole.
    Unreadable(LineError),
    /// Its only entries were pieces that could not be read: why each.
    NoEntries(Vec<LineProblem>),
}

/// The shape of the manifest `reader` reads, named `name` (which may tell
/// its algorithm; `algorithm`, the caller's, overrides it). Only hashdeep's
/// (`%%%%`) and JSON (`[`) manifests of lines can hold pieces; any other
/// streams on untouched.
pub fn manifest_shape(
    registry: &Registry,
    mut reader: Box<dyn BufRead>,
    name: &str,
    algorithm: Option<&str>,
    framing: Framing,
) -> ManifestShape {
    let first = match reader.fill_buf() {
        Ok(buf) => buf.first().copied(),
        Err(_) => None,
    };
    if framing == Framing::Nul || !matches!(first, Some(b'%' | b'[')) {
        return ManifestShape::Lines(reader);
    }
    let bytes = match read_to_end(&mut reader, b'\n') {
        Ok(bytes) => bytes,
        Err(e) => return ManifestShape::Unreadable(e),
    };
    let piece_fault = |p: &LineProblem| matches!(p.fault, LineFault::Pieces(_));
    let options = ReadOptions {
        algorithm,
        framing: Framing::Lines,
    };
    match read_manifest(registry, &bytes, name, &options) {
        Ok(m)
            if m.entries.iter().any(|e| e.pieces.is_some())
                || m.problems.iter().any(piece_fault) =>
        {
            ManifestShape::Piecewise(m)
        }
        Err(ManifestError::NoEntries { problems }) if problems.iter().any(piece_fault) => {
            ManifestShape::NoEntries(problems)
        }
        _ => ManifestShape::Lines(Box::new(io::Cursor::new(bytes))),
    }
}

/// One entry compared with its file.
#[derive(Debug)]
pub enum EntryVerdict {
    Intact,
    /// Where it changed, as far as the entry's pieces tell.
    Changed(Comparison),
    Unreadable(io::Error),
}

/// Why a piecewise check stopped.
#[derive(Debug)]
pub enum EntryCheckError {
    /// An entry's algorithm refused the caller's backend or parameters.
    Hasher(HashError),
    Interrupted,
}

/// Compares a piecewise manifest's entries with their files one at a time,
/// counting as the line checker counts, and makes one hasher for each
/// (algorithm, length) group of entries, kept for the next entry of it.
pub struct EntryChecker<'r> {
    registry: &'r Registry,
    backend: Option<String>,
    params: HashParams,
    allow_mmap: bool,
    ignore_missing: bool,
    hashers: Vec<EntryHasher>,
    comparer: Comparer,
    cancel: Cancel,
    summary: Summary,
}

impl<'r> EntryChecker<'r> {
    /// `params` are the run's, a length among them; files are compared on
    /// `jobs` threads; with `ignore_missing`, a file that is not there is
    /// neither a verdict nor counted.
    pub fn new(
        registry: &'r Registry,
        backend: Option<&str>,
        params: &HashParams,
        allow_mmap: bool,
        ignore_missing: bool,
        jobs: usize,
    ) -> EntryChecker<'r> {
        EntryChecker {
            registry,
            backend: backend.map(str::to_string),
            params: params.clone(),
            allow_mmap,
            ignore_missing,
            hashers: Vec::new(),
            comparer: Comparer::new(jobs),
            cancel: Cancel::new(),
            summary: Summary::default(),
        }
    }

    /// `entry` compared with its file, counted; `None` for a missing file
    /// ignored.
    pub fn check(&mut self, entry: &Recorded) -> Result<Option<EntryVerdict>, EntryCheckError> {
        let at = match self.hashers.iter().position(|h| h.hashes(entry)) {
            Some(at) => at,
            None => {
                let backend = self.backend.as_deref();
                let made =
                    EntryHasher::new(self.registry, entry, backend, &self.params, self.allow_mmap)
                        .map_err(EntryCheckError::Hasher)?;
                self.hashers.push(made);
                self.hashers.len() - 1
            }
        };
        let path = path_of(&entry.name);
        let compared = self
            .comparer
            .compare(&path, entry, &self.hashers[at], &self.cancel);
        let summary = &mut self.summary;
        Ok(Some(match compared {
            Ok(c) if c.intact() => {
                summary.matched += 1;
                EntryVerdict::Intact
            }
            Ok(c) => {
                summary.mismatched += 1;
                EntryVerdict::Changed(c)
            }
            Err(e) if is_interrupted(&e) => return Err(EntryCheckError::Interrupted),
            Err(e) if self.ignore_missing && e.kind() == io::ErrorKind::NotFound => {
                return Ok(None)
            }
            Err(e) => {
                summary.unreadable += 1;
                EntryVerdict::Unreadable(e)
            }
        }))
    }

    /// The counts, with the manifest's `problems` (its entries that could
    /// not be read) as its malformed lines.
    pub fn finish(self, problems: &[LineProblem]) -> Summary {
        Summary {
            malformed: problems.len() as u64,
            ..self.summary
        }
    }
}

impl Summary {
    /// A piecewise manifest passes when every entry was read and verified:
    /// an entry whose pieces contradict each other is not, whatever
    /// `--strict` says, as a missing piece line would not be.
    pub fn piecewise_passed(&self, ignore_missing: bool) -> bool {
        self.malformed == 0
            && self.mismatched == 0
            && self.unreadable == 0
            && !(ignore_missing && self.matched == 0)
    }
}

#[cfg(unix)]
fn path_of(name: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(name))
}

#[cfg(not(unix))]
fn path_of(name: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(name).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    fn shape_of(registry: &Registry, bytes: &[u8]) -> ManifestShape {
        let reader = Box::new(io::Cursor::new(bytes.to_vec()));
        manifest_shape(registry, reader, "m", None, Framing::Lines)
    }

    /// A hashdeep manifest recording each of `paths` as `abc`, whole and
    /// in one piece.
    fn hashdeep(paths: &[&std::path::Path]) -> Vec<u8> {
        let mut text =
            "%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n## Invoked from: /x\n##\n".to_string();
        for p in paths {
            let p = p.display();
            text.push_str(&format!("3,{ABC},{p}\n3,{ABC},{p} offset 0-2\n"));
        }
        text.into_bytes()
    }

    #[test]
    fn only_manifests_that_hold_pieces_are_checked_piecewise() {
        let registry = Registry::default();
        let gnu = format!("{ABC}  abc\n");
        assert!(matches!(
            shape_of(&registry, gnu.as_bytes()),
            ManifestShape::Lines(_)
        ));
        let whole =
            b"%%%% HASHDEEP-1.0\n%%%% size,md5,filename\n3,900150983cd24fb0d6963f7d28e17f72,/a\n";
        assert!(matches!(
            shape_of(&registry, whole),
            ManifestShape::Lines(_)
        ));
        let pieces = hashdeep(&[std::path::Path::new("/a")]);
        match shape_of(&registry, &pieces) {
            ManifestShape::Piecewise(m) => assert!(m.entries[0].pieces.is_some()),
            _ => panic!("a manifest with pieces is piecewise"),
        }
        let nul = manifest_shape(
            &registry,
            Box::new(io::Cursor::new(pieces)),
            "m",
            None,
            Framing::Nul,
        );
        assert!(matches!(nul, ManifestShape::Lines(_)));
    }

    #[test]
    fn entries_are_counted_and_one_hasher_serves_a_group() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, gone) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("gone"),
        );
        std::fs::write(&a, b"abc").unwrap();
        std::fs::write(&b, b"abd").unwrap();
        let registry = Registry::default();
        let ManifestShape::Piecewise(manifest) = shape_of(&registry, &hashdeep(&[&a, &b, &gone]))
        else {
            panic!("a manifest with pieces is piecewise")
        };
        let params = HashParams::default();
        let mut checker = EntryChecker::new(&registry, None, &params, true, true, 1);
        let verdicts: Vec<_> = manifest
            .entries
            .iter()
            .map(|e| checker.check(e).unwrap())
            .collect();
        assert!(matches!(verdicts[0], Some(EntryVerdict::Intact)));
        assert!(
            matches!(&verdicts[1], Some(EntryVerdict::Changed(c)) if c.describe().contains("0-2"))
        );
        assert!(verdicts[2].is_none());
        assert_eq!(checker.hashers.len(), 1);
        let summary = checker.finish(&[]);
        assert_eq!(
            (summary.matched, summary.mismatched, summary.unreadable),
            (1, 1, 0)
        );
        assert!(!summary.piecewise_passed(true));
        let mut strict = EntryChecker::new(&registry, None, &params, true, false, 1);
        let missing = strict.check(&manifest.entries[2]).unwrap();
        assert!(matches!(missing, Some(EntryVerdict::Unreadable(_))));
        let key = HashParams {
            key: Some(vec![1; 32]),
            ..HashParams::default()
        };
        let mut keyed = EntryChecker::new(&registry, None, &key, true, false, 1);
        let refused = keyed.check(&manifest.entries[0]);
        assert!(matches!(refused, Err(EntryCheckError::Hasher(_))));
    }
}
