//! Reading a manifest for `audit`: every form `check` reads (GNU, BSD tag and
//! openssl lines, newline- or NUL-terminated, and SFV files), hashdeep's, and
//! `sum --json`'s.
//! A line that cannot be read is one [`LineProblem`] and the rest is read, as
//! `check` goes on past an improperly formatted line.

use hashlab::Registry;
use serde::Deserialize;

use crate::check::{manifest_hint, settle, LineReader, Unread, Unsettled};
use crate::manifest::{unescape, Entry, Framing, GnuReading, TagHint};
use hashlab::Algorithm;

mod entry;
mod gather;
pub use entry::{
    LineFault, LineProblem, Manifest, ManifestError, Place, Recorded, MAX_ALGORITHMS,
    MAX_DIGEST_BYTES,
};
use gather::Gather;

/// How to read a manifest.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions<'a> {
    /// The algorithm of every line (canonical or any name the registry
    /// knows), over what the lines and the manifest's name say.
    pub algorithm: Option<&'a str>,
    /// How checksum lines end; hashdeep and JSON manifests are recognised
    /// by their first bytes whatever this says.
    pub framing: Framing,
}

/// hashdeep's column names for the algorithms both tools know, strongest first.
const HASHDEEP_COLUMNS: &[(&str, &str)] = &[("sha256", "sha256"), ("sha1", "sha1"), ("md5", "md5")];

/// Reads a manifest of any form `check` reads, hashdeep's, or `sum --json`'s.
/// `manifest_name` helps like `x.sha256` does. Lines that cannot be read are
/// listed in [`Manifest::problems`]; it is an error only when none can be.
pub fn read_manifest(
    registry: &Registry,
    bytes: &[u8],
    manifest_name: &str,
    options: &ReadOptions<'_>,
) -> Result<Manifest, ManifestError> {
    let algorithm = match options.algorithm {
        Some(name) => Some(
            registry
                .algorithm(name)
                .map_err(ManifestError::Algorithm)?
                .name
                .as_str(),
        ),
        None => None,
    };
    let manifest = if bytes.starts_with(b"%%%% HASHDEEP-1.0") {
        read_hashdeep(registry, bytes, algorithm)?
    } else if options.framing == Framing::Lines && bytes.trim_ascii_start().starts_with(b"[") {
        read_sum_json(registry, bytes, algorithm)?
    } else {
        read_lines(registry, bytes, manifest_name, algorithm, options.framing)
    };
    if manifest.entries.is_empty() {
        return Err(ManifestError::NoEntries {
            problems: manifest.problems,
        });
    }
    if pairs(&manifest.entries).len() > MAX_ALGORITHMS {
        return Err(ManifestError::TooManyAlgorithms {
            limit: MAX_ALGORITHMS,
        });
    }
    Ok(manifest)
}

/// The distinct (algorithm, digest length) pairs, in order of first use.
pub(crate) fn pairs(recorded: &[Recorded]) -> Vec<(String, usize)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for r in recorded {
        if seen.insert((r.algorithm.as_str(), r.digest.len())) {
            out.push((r.algorithm.clone(), r.digest.len()));
        }
        // A hostile manifest may hold thousands: stop counting past the limit.
        if out.len() > MAX_ALGORITHMS {
            break;
        }
    }
    out
}

fn within_limit(digest: &[u8]) -> Result<(), LineFault> {
    if digest.len() > MAX_DIGEST_BYTES {
        return Err(LineFault::DigestTooLong {
            bytes: digest.len(),
            limit: MAX_DIGEST_BYTES,
        });
    }
    Ok(())
}

/// Reads each line of a checksum manifest as `check` does (its form
/// settled on the way), handing `f` its place, its raw bytes, and its
/// entry with its algorithm (`None` for a comment or blank line) or why it
/// is not one; `f` may stop the reading with an error.
pub(crate) fn each_line<'r, E>(
    registry: &'r Registry,
    bytes: &[u8],
    manifest_name: &str,
    algorithm: Option<&str>,
    framing: Framing,
    mut f: impl FnMut(Place, &[u8], Result<Option<(Entry, &'r Algorithm)>, LineFault>) -> Result<(), E>,
) -> Result<(), E> {
    let hint = manifest_hint(registry, manifest_name);
    let end = match framing {
        Framing::Lines => b'\n',
        Framing::Nul => b'\0',
    };
    let mut lines = LineReader {
        registry,
        chosen: algorithm,
        length: None,
        hint: hint.algorithm.as_deref(),
        framing,
        form: hint.form,
    };
    let mut reading = GnuReading::Undecided;
    for (n, raw) in bytes.split_inclusive(|b| *b == end).enumerate() {
        let read = match lines.read(raw, &mut reading) {
            Ok(read) => Ok(read.map(|(entry, algorithm, _)| (entry, algorithm))),
            Err(Unread::NotAChecksumLine) => Err(LineFault::NotAChecksumLine),
            Err(Unread::Unsettled(why)) => Err(LineFault::Unsettled(why)),
        };
        f(Place::Line(n as u64 + 1), raw, read)?;
    }
    Ok(())
}

fn read_lines(
    registry: &Registry,
    bytes: &[u8],
    manifest_name: &str,
    algorithm: Option<&str>,
    framing: Framing,
) -> Manifest {
    let mut out = Manifest::default();
    let _ = each_line::<()>(
        registry,
        bytes,
        manifest_name,
        algorithm,
        framing,
        |place, _, read| {
            let read = read.and_then(|entry| {
                entry
                    .map(|(entry, algorithm)| {
                        within_limit(&entry.expected).map(|()| {
                            Recorded::new(entry.name, algorithm.name.clone(), entry.expected)
                        })
                    })
                    .transpose()
            });
            match read {
                Ok(Some(r)) => out.entries.push(r),
                Ok(None) => {}
                Err(fault) => out.problems.push(LineProblem { place, fault }),
            }
            Ok(())
        },
    );
    out
}

/// One hashdeep line (`size,digest...,name`, the name last and free to hold
/// commas; a leading backslash: hashlab's escaped name): its size, its
/// `digests` digest fields, and its name.
pub(crate) fn hashdeep_fields(line: &[u8], digests: usize) -> Result<HashdeepLine<'_>, LineFault> {
    let (line, escaped) = match line.strip_prefix(b"\\") {
        Some(rest) => (rest, true),
        None => (line, false),
    };
    let mut fields: Vec<&[u8]> = line.splitn(digests + 2, |b| *b == b',').collect();
    let not_hashdeep = || LineFault::NotHashdeep { digests };
    if fields.len() != digests + 2 {
        return Err(not_hashdeep());
    }
    let size: u64 = std::str::from_utf8(fields[0])
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse().ok())
        .ok_or_else(not_hashdeep)?;
    let raw_name = fields.pop().expect("counted above");
    let name = if escaped {
        unescape(raw_name).ok_or(LineFault::BadName)?
    } else {
        raw_name.to_vec()
    };
    if name.is_empty() || name.contains(&0) {
        return Err(LineFault::BadName);
    }
    fields.remove(0);
    Ok(HashdeepLine {
        size,
        digests: fields,
        name,
        escaped,
    })
}

/// A hashdeep line's fields, read by [`hashdeep_fields`].
pub(crate) struct HashdeepLine<'a> {
    pub size: u64,
    /// The digest fields, in the header's order, as written.
    pub digests: Vec<&'a [u8]>,
    pub name: Vec<u8>,
    /// Written with a leading backslash (a name hashdeep's form cannot hold).
    pub escaped: bool,
}

/// One object of `hashlab sum --json`'s array.
#[derive(Deserialize)]
struct JsonLine {
    /// The name as text; where it is not UTF-8, `file_base64` has its bytes.
    file: String,
    #[serde(default)]
    file_base64: Option<String>,
    algorithm: String,
    digest: String,
    bytes: Option<u64>,
    mtime_ns: Option<u64>,
    #[serde(default)]
    inode: Option<u64>,
    #[serde(default)]
    ctime_ns: Option<u64>,
    #[serde(default)]
    pieces: Option<crate::pieces::JsonPieces>,
}

/// `hashlab sum --json`: our own manifest, the one that records modification
/// times, inodes and status-change times (for `audit --changed-only`).
fn read_sum_json(
    registry: &Registry,
    bytes: &[u8],
    algorithm: Option<&str>,
) -> Result<Manifest, ManifestError> {
    let values: Vec<serde_json::Value> =
        serde_json::from_slice(bytes).map_err(|e| ManifestError::Json(e.to_string()))?;
    let mut out = Manifest::default();
    for (n, value) in values.into_iter().enumerate() {
        let read = || -> Result<Recorded, LineFault> {
            let line: JsonLine =
                serde_json::from_value(value).map_err(|e| LineFault::NotAnEntry(e.to_string()))?;
            let named = algorithm.unwrap_or(&line.algorithm);
            let known = registry
                .algorithm(named)
                .map_err(|_| LineFault::UnknownAlgorithm(named.to_string()))?;
            let digest = hashlab::hex::decode(&line.digest).map_err(|_| LineFault::NotHex)?;
            let tag = TagHint {
                algorithm: known.name.clone(),
                length: None,
            };
            let (known, _) = settle(registry, None, None, Some(&tag), digest.len(), None)
                .map_err(LineFault::Unsettled)?;
            within_limit(&digest)?;
            let name = match &line.file_base64 {
                Some(b64) => crate::lines::name_from_base64(b64).ok_or(LineFault::BadName)?,
                None => line.file.into_bytes(),
            };
            if name.is_empty() || name.contains(&0) {
                return Err(LineFault::BadName);
            }
            let pieces = line
                .pieces
                .map(|p| p.read(&name, line.bytes, digest.len()))
                .transpose()
                .map_err(LineFault::Pieces)?;
            Ok(Recorded {
                pieces,
                size: line.bytes,
                mtime_ns: line.mtime_ns,
                inode: line.inode,
                ctime_ns: line.ctime_ns,
                ..Recorded::new(name, known.name.clone(), digest)
            })
        };
        match read() {
            Ok(r) => out.entries.push(r),
            Err(fault) => out.problems.push(LineProblem {
                place: Place::Entry(n as u64 + 1),
                fault,
            }),
        }
    }
    Ok(out)
}

fn read_hashdeep(
    registry: &Registry,
    bytes: &[u8],
    algorithm: Option<&str>,
) -> Result<Manifest, ManifestError> {
    let mut lines = bytes
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    lines.next();
    let header = lines.next().and_then(|l| l.strip_prefix(b"%%%% ")).ok_or(
        ManifestError::HashdeepHeader("no '%%%% size,...' line after the first"),
    )?;
    let columns: Vec<String> = String::from_utf8_lossy(header)
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    if columns.first().map(String::as_str) != Some("size")
        || columns.last().map(String::as_str) != Some("filename")
    {
        return Err(ManifestError::HashdeepHeader(
            "the columns must start with size and end with filename",
        ));
    }
    let wanted: Vec<&(&str, &str)> = match algorithm {
        Some(name) => {
            let column = HASHDEEP_COLUMNS
                .iter()
                .find(|(_, ours)| *ours == name)
                .ok_or_else(|| ManifestError::NoHashdeepColumn {
                    algorithm: name.to_string(),
                })?;
            vec![column]
        }
        None => HASHDEEP_COLUMNS.iter().collect(),
    };
    let (column, algorithm) = wanted
        .iter()
        .find_map(|(hd, ours)| columns.iter().position(|c| c == hd).map(|i| (i, *ours)))
        .ok_or_else(|| match algorithm {
            Some(name) => ManifestError::NoHashdeepColumn {
                algorithm: name.to_string(),
            },
            None => ManifestError::HashdeepHeader("none of md5, sha1, sha256 is among its columns"),
        })?;
    let expected_len = registry
        .algorithm(algorithm)
        .map_err(ManifestError::Algorithm)?
        .output
        .default_len();
    let digests = columns.len() - 2;
    let mut out = Manifest::default();
    let mut pieces = Gather::default();
    for (n, line) in lines.enumerate() {
        if line.is_empty() || line.starts_with(b"#") || line.starts_with(b"%") {
            continue;
        }
        let read = || -> Result<(Recorded, bool), LineFault> {
            let HashdeepLine {
                size,
                digests: fields,
                name,
                escaped,
            } = hashdeep_fields(line, digests)?;
            let digest = std::str::from_utf8(fields[column - 1])
                .ok()
                .and_then(|hex| hashlab::hex::decode(hex).ok())
                .ok_or(LineFault::NotHex)?;
            if digest.len() != expected_len {
                return Err(LineFault::Unsettled(Unsettled::Length {
                    algorithm: algorithm.to_string(),
                    bytes: digest.len(),
                }));
            }
            Ok((
                Recorded {
                    size: Some(size),
                    ..Recorded::new(name, algorithm.to_string(), digest)
                },
                escaped,
            ))
        };
        match read() {
            Ok((r, escaped)) => pieces.add(r, escaped, Place::Line(n as u64 + 3), &mut out),
            Err(fault) => out.problems.push(LineProblem {
                place: Place::Line(n as u64 + 3),
                fault,
            }),
        }
    }
    pieces.finish(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], name: &str) -> Result<Manifest, ManifestError> {
        read_manifest(&Registry::default(), bytes, name, &ReadOptions::default())
    }

    const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    const MD5_ABC: &str = "900150983cd24fb0d6963f7d28e17f72";

    #[test]
    fn hashdeep_manifests_are_read() {
        let text = format!("%%%% HASHDEEP-1.0\n%%%% size,md5,sha256,filename\n## Invoked from: /x\n##\n3,{MD5_ABC},{SHA256_ABC},/x/a,b\n");
        let r = read(text.as_bytes(), "hd.txt").unwrap();
        assert_eq!(r.entries[0].algorithm, "sha256");
        assert_eq!(r.entries[0].name, b"/x/a,b");
        assert_eq!(r.entries[0].size, Some(3));
        let md5 = ReadOptions {
            algorithm: Some("md5"),
            ..Default::default()
        };
        let r = read_manifest(&Registry::default(), text.as_bytes(), "hd", &md5).unwrap();
        assert_eq!(hashlab::hex::encode(&r.entries[0].digest), MD5_ABC);
        assert!(matches!(
            read(
                b"%%%% HASHDEEP-1.0\n%%%% size,tiger,filename\n1,00,/a\n",
                "hd"
            ),
            Err(ManifestError::HashdeepHeader(_))
        ));
        assert!(read(b"junk\n", "m")
            .unwrap_err()
            .to_string()
            .contains("no properly formatted"));
    }

    /// audit reads an SFV file as check does: CRC-32 lines, `;` comments,
    /// and a line of another form as one problem.
    #[test]
    fn sfv_files_are_read() {
        let text = format!(
            "; Generated by RHash v1.4.3 on 2026-11-24 at 15:34.09\n;\n\
             ;            3  15:34.09 2026-11-24 a b.txt\n\
             a b.txt 352441C2\r\ndeadbeef 0123abcd\n{SHA256_ABC}  abc\n"
        );
        for name in ["m.sfv", "m"] {
            let r = read(text.as_bytes(), name).unwrap();
            let got: Vec<(&[u8], &str, String)> = r
                .entries
                .iter()
                .map(|e| {
                    (
                        e.name.as_slice(),
                        e.algorithm.as_str(),
                        hashlab::hex::encode(&e.digest),
                    )
                })
                .collect();
            assert_eq!(
                got,
                [
                    (&b"a b.txt"[..], "crc32", "352441c2".to_string()),
                    (b"deadbeef", "crc32", "0123abcd".to_string())
                ]
            );
            assert_eq!(
                r.problems,
                [LineProblem {
                    place: Place::Line(6),
                    fault: LineFault::NotAChecksumLine
                }]
            );
        }
        // Named `*.sfv`, a file of the ambiguous line alone is SFV too.
        let r = read(b"deadbeef 0123abcd\n", "M.SFV").unwrap();
        assert_eq!(r.entries[0].name, b"deadbeef");
    }

    #[test]
    fn one_bad_line_is_one_problem_in_every_format() {
        // hashdeep: a name with a newline, written raw, breaks its line in two.
        let text = format!(
            "%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n## $ hashdeep\n##\n\
             3,{SHA256_ABC},/x/good\n3,{SHA256_ABC},/x/bad\nname\n\\3,{SHA256_ABC},/x/es\\ncaped\n3,zz,/x/nothex\n3,{SHA256_ABC},/x/last\n"
        );
        let r = read(text.as_bytes(), "hd").unwrap();
        let names: Vec<&[u8]> = r.entries.iter().map(|e| e.name.as_slice()).collect();
        assert_eq!(
            names,
            [&b"/x/good"[..], b"/x/bad", b"/x/es\ncaped", b"/x/last"]
        );
        let at: Vec<String> = r.problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            at,
            [
                "line 7: not size,digest,filename as the header says",
                "line 9: the digest is not hex"
            ]
        );

        let lines = format!(
            "{SHA256_ABC}  a\nnot a line\n{MD5_ABC}  b\n\\{SHA256_ABC}  bad\\escape\n{SHA256_ABC}  c\n"
        );
        let r = read(lines.as_bytes(), "m.sha256").unwrap();
        assert_eq!(r.entries.len(), 2);
        let at: Vec<Place> = r.problems.iter().map(|p| p.place).collect();
        assert_eq!(at, [Place::Line(2), Place::Line(3), Place::Line(4)]);
        assert!(matches!(
            r.problems[1].fault,
            LineFault::Unsettled(Unsettled::Length { bytes: 16, .. })
        ));

        let json = format!(
            r#"[{{"file":"a","algorithm":"sha256","digest":"{SHA256_ABC}"}},
                {{"file":"b","algorithm":"nosuch","digest":"00"}},
                {{"file":"c","algorithm":"sha256","digest":"xyz"}},
                {{"nofile":1}},
                {{"file":"d","algorithm":"md5","digest":"{SHA256_ABC}"}},
                {{"file":"e","file_base64":"!!","algorithm":"sha256","digest":"{SHA256_ABC}"}},
                {{"file":"f","algorithm":"sha256","digest":"{SHA256_ABC}","bytes":3}}]"#
        );
        let r = read(json.as_bytes(), "m.json").unwrap();
        assert_eq!(r.entries.len(), 2);
        assert_eq!(r.entries[1].size, Some(3));
        let at: Vec<Place> = r.problems.iter().map(|p| p.place).collect();
        assert_eq!(at, [2, 3, 4, 5, 6].map(Place::Entry), "{:?}", r.problems);
        assert!(matches!(
            read(b"[1,", "m.json"),
            Err(ManifestError::Json(_))
        ));
    }

    #[test]
    fn nul_terminated_records_keep_every_byte_of_their_names() {
        let mut z = Vec::new();
        for name in [&b"new\nline"[..], b"cr\r", b"back\\slash", b"\\n"] {
            z.extend_from_slice(SHA256_ABC.as_bytes());
            z.extend_from_slice(b"  ");
            z.extend_from_slice(name);
            z.push(0);
        }
        let options = ReadOptions {
            framing: Framing::Nul,
            ..Default::default()
        };
        let r = read_manifest(&Registry::default(), &z, "m", &options).unwrap();
        let names: Vec<&[u8]> = r.entries.iter().map(|e| e.name.as_slice()).collect();
        assert_eq!(names, [&b"new\nline"[..], b"cr\r", b"back\\slash", b"\\n"]);
        assert!(r.problems.is_empty());
    }

    #[test]
    fn limits_bound_what_a_manifest_can_make_audit_keep() {
        // Thousands of XOF lengths: refused whole, before any file is hashed.
        let many: String = (1..=MAX_ALGORITHMS + 1)
            .map(|n| format!("SHAKE128 (f{n}) = {}\n", "ab".repeat(n)))
            .collect();
        assert_eq!(
            read(many.as_bytes(), "m"),
            Err(ManifestError::TooManyAlgorithms {
                limit: MAX_ALGORITHMS
            })
        );
        let fits: String = (1..=MAX_ALGORITHMS)
            .map(|n| format!("SHAKE128 (f{n}) = {}\n", "ab".repeat(n)))
            .collect();
        assert_eq!(
            read(fits.as_bytes(), "m").unwrap().entries.len(),
            MAX_ALGORITHMS
        );
        // One over-long digest: that line only.
        let long = format!(
            "SHAKE128 (big) = {}\nSHAKE128 (f) = {}\n",
            "ab".repeat(MAX_DIGEST_BYTES + 1),
            "ab".repeat(16)
        );
        let r = read(long.as_bytes(), "m").unwrap();
        assert_eq!(r.entries.len(), 1);
        assert_eq!(
            r.problems[0].fault,
            LineFault::DigestTooLong {
                bytes: MAX_DIGEST_BYTES + 1,
                limit: MAX_DIGEST_BYTES
            }
        );
    }

    #[test]
    fn json_names_are_read_losslessly_and_old_manifests_still_read() {
        let odd = b"nu/bad\xffname";
        let json = format!(
            r#"[{{"file":"{}","file_base64":"{}","algorithm":"sha256","digest":"{SHA256_ABC}","inode":7,"ctime_ns":9}},
                {{"file":"plain","algorithm":"sha256","digest":"{SHA256_ABC}","bytes":3,"mtime_ns":5}}]"#,
            String::from_utf8_lossy(odd),
            crate::lines::name_base64(odd).unwrap()
        );
        let r = read(json.as_bytes(), "m.json").unwrap();
        assert_eq!(r.entries[0].name, odd);
        assert_eq!(
            (r.entries[0].inode, r.entries[0].ctime_ns),
            (Some(7), Some(9))
        );
        assert_eq!(r.entries[1].name, b"plain");
        assert_eq!(
            (r.entries[1].size, r.entries[1].mtime_ns),
            (Some(3), Some(5))
        );
    }
}
