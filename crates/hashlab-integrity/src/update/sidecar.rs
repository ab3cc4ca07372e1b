//! The sidecar that records, beside a manifest whose form has no place
//! for them, the stamps of the files it lists.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::listing::{Listing, Stamp};

/// The sidecar of a manifest whose form records no times: `<name>.hashlab-stat`.
pub fn sidecar_path(manifest: &Path) -> PathBuf {
    let mut name = manifest.as_os_str().to_owned();
    name.push(".hashlab-stat");
    PathBuf::from(name)
}

/// The sidecar: each file's stamp when it was hashed, and a check that ties
/// it to the digest the manifest then had. Text, one line a file
/// (`size mtime inode ctime etag check name`, tab-separated, `-` for none,
/// the name last and escaped as GNU lines escape it): a manifest of
/// millions of files has a sidecar read and written in a fraction of the
/// time hashing them takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sidecar {
    pub files: Vec<SidecarEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidecarEntry {
    pub name: Vec<u8>,
    pub stamp: Stamp,
    /// The first 8 bytes of the file's digest by the manifest's first algorithm.
    pub check: [u8; 8],
}

const SIDECAR_HEADER: &[u8] = b"hashlab-stat 1\n";

/// The bytes a sidecar entry checks: the start of the digest by `algorithm`.
pub(super) fn check_of(digest: &[u8]) -> Option<[u8; 8]> {
    digest.get(..8).and_then(|d| d.try_into().ok())
}

impl Sidecar {
    /// Reads a sidecar; `None` when it is damaged or of another version, and
    /// then every file is read again (nothing is lost but time).
    pub fn parse(bytes: &[u8]) -> Option<Sidecar> {
        let body = bytes.strip_prefix(SIDECAR_HEADER)?;
        let mut files = Vec::new();
        for line in body.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let mut fields = line.splitn(7, |b| *b == b'\t');
            let mut number = || -> Option<Option<u64>> {
                match fields.next()? {
                    b"-" => Some(None),
                    digits => Some(Some(std::str::from_utf8(digits).ok()?.parse().ok()?)),
                }
            };
            let (size, mtime_ns, inode, ctime_ns) = (number()?, number()?, number()?, number()?);
            let etag = match fields.next()? {
                b"-" => None,
                tag => Some(String::from_utf8(tag.to_vec()).ok()?),
            };
            let check: [u8; 8] = hashlab::hex::decode(std::str::from_utf8(fields.next()?).ok()?)
                .ok()?
                .try_into()
                .ok()?;
            let name = fields.next()?;
            let name = match name.strip_prefix(b"\\") {
                Some(escaped) => crate::manifest::unescape(escaped)?,
                None => name.to_vec(),
            };
            files.push(SidecarEntry {
                name,
                stamp: Stamp {
                    size,
                    mtime_ns,
                    inode,
                    ctime_ns,
                    etag,
                },
                check,
            });
        }
        Some(Sidecar { files })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        use std::io::Write;
        let mut out = SIDECAR_HEADER.to_vec();
        let number = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
        for e in &self.files {
            let etag = e
                .stamp
                .etag
                .as_deref()
                .filter(|t| !t.is_empty() && !t.contains(['\t', '\n', '\r']))
                .unwrap_or("-");
            let _ = write!(
                out,
                "{}\t{}\t{}\t{}\t{etag}\t{}\t",
                number(e.stamp.size),
                number(e.stamp.mtime_ns),
                number(e.stamp.inode),
                number(e.stamp.ctime_ns),
                hashlab::hex::encode(&e.check)
            );
            let (name, escaped) = crate::lines::escape_name(&e.name);
            if escaped {
                out.push(b'\\');
            }
            out.extend_from_slice(&name);
            out.push(b'\n');
        }
        out
    }

    /// Puts each entry's stamp on the listed file it describes, where the
    /// check still matches the manifest's digest.
    pub fn apply(&self, listing: &mut Listing) {
        let Some((first, _)) = listing.columns.first().cloned() else {
            return;
        };
        let by_name: HashMap<&[u8], usize> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.as_slice(), i))
            .collect();
        for listed in &mut listing.files {
            let Some(entry) = by_name.get(listed.name.as_slice()).map(|&i| &self.files[i]) else {
                continue;
            };
            let digest = listed.digests.iter().find(|(a, _)| *a == first);
            if digest.and_then(|(_, d)| check_of(d)) != Some(entry.check) {
                continue;
            }
            let size = listed.stamp.size;
            listed.stamp = entry.stamp.clone();
            if size.is_some() && size != entry.stamp.size {
                // hashdeep's own size column disagrees: not the same file.
                listed.stamp.mtime_ns = None;
                listed.stamp.etag = None;
            }
        }
    }
}
