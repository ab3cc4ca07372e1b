//! What a store recorded about an object (its ETag, its additional
//! checksums, the sizes of a multipart upload's parts) and how to compute the
//! same values from local bytes, so an upload is checked against the store
//! without downloading it.
//!
//! Every recorded value has one shape: a digest of the whole content, or
//! the digest of the concatenated digests of the parts, followed by `-N`
//! (a multipart ETag is MD5 over the parts' MD5s; S3's COMPOSITE checksums
//! are the same with CRC-32, CRC-32C, SHA-1 or SHA-256). [`Expectation`]
//! says which; [`reproduce`] computes any number of them in one read.

use std::io::{self, Read};

use base64::Engine;
use hashlab::{HashParams, Hasher, Registry};

/// S3's additional checksums: the header each is sent in, and the algorithm
/// of hashlab's catalog it is (what S3 calls it). In the order they are
/// preferred when a store keeps several: the fastest to reproduce first.
pub const S3_CHECKSUMS: [(&str, &str); 5] = [
    ("x-amz-checksum-crc64nvme", "crc64nvme"),
    ("x-amz-checksum-crc32c", "crc32c"),
    ("x-amz-checksum-crc32", "crc32"),
    ("x-amz-checksum-sha1", "sha1"),
    ("x-amz-checksum-sha256", "sha256"),
];

/// The algorithm of an ETag that is a content MD5.
pub const ETAG_ALGORITHM: &str = "md5";

/// The algorithms whose whole-content digest a store may record: S3's
/// additional checksums, the MD5 of a single-part ETag, GCS's checksums and
/// Azure's Content-MD5.
pub fn recordable_algorithms() -> Vec<&'static str> {
    let mut names: Vec<&str> = S3_CHECKSUMS.iter().map(|(_, a)| *a).collect();
    names.push(ETAG_ALGORITHM);
    for (_, algorithm) in crate::gcs::GCS_CHECKSUMS
        .into_iter()
        .chain(crate::azure::AZURE_CHECKSUMS)
    {
        if !names.contains(&algorithm) {
            names.push(algorithm);
        }
    }
    names
}

/// What a recorded value covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// The whole content.
    Whole,
    /// The parts of a multipart upload, of these sizes in order: the value is
    /// the digest of their digests concatenated.
    Parts(Vec<u64>),
}

/// Where a recorded value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// An additional checksum (the response header that carried it).
    Checksum(String),
    /// The ETag.
    ETag,
}

/// One value the store recorded, with what reproduces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    pub source: Source,
    /// Canonical name in hashlab's catalog.
    pub algorithm: String,
    pub layout: Layout,
    /// The recorded digest (of the whole, or of the parts' digests).
    pub digest: Vec<u8>,
}

impl Expectation {
    /// The value as the store shows it: base64 (`...==` or `...==-N`) for a
    /// checksum, hex (`...` or `...-N`) for an ETag.
    pub fn shown(&self, digest: &[u8]) -> String {
        let text = match self.source {
            Source::Checksum(_) => base64::engine::general_purpose::STANDARD.encode(digest),
            Source::ETag => hashlab::hex::encode(digest),
        };
        match &self.layout {
            Layout::Whole => text,
            Layout::Parts(sizes) => format!("{text}-{}", sizes.len()),
        }
    }

    /// "x-amz-checksum-crc64nvme", "ETag of a 3-part upload"...
    pub fn describe(&self) -> String {
        let what = match &self.source {
            Source::Checksum(header) => header.clone(),
            Source::ETag => "ETag".to_string(),
        };
        match &self.layout {
            Layout::Whole => what,
            Layout::Parts(sizes) => format!("{what} of a {}-part upload", sizes.len()),
        }
    }
}

/// Why a value the store shows cannot be read as a digest hashlab
/// reproduces: the text of the reason.
pub type Unreadable = String;

/// An additional checksum as S3 shows it (`base64`, or `base64-N` for a
/// composite one) read into an expectation. `part_sizes` are needed for a
/// composite value; `None` leaves it unreadable.
pub fn checksum_expectation(
    header: &str,
    algorithm: &str,
    value: &str,
    part_sizes: Option<&[u64]>,
) -> Result<Expectation, Unreadable> {
    let (encoded, parts) = split_parts(value)
        .ok_or_else(|| format!("{header}: {value:?} is not a base64 digest with an optional -N"))?;
    let digest = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| format!("{header}: {value:?} is not base64"))?;
    Ok(Expectation {
        source: Source::Checksum(header.to_string()),
        algorithm: algorithm.to_string(),
        layout: layout(parts, part_sizes)?,
        digest,
    })
}

/// An ETag (quotes removed) read as an expectation where it is an MD5: of
/// the content (32 hex digits) or of a multipart upload's parts (`hex-N`,
/// which needs `part_sizes`). Anything else (an ETag under SSE-KMS, Azure's
/// and GCS's versions) is unreadable.
pub fn etag_expectation(
    e_tag: &str,
    part_sizes: Option<&[u64]>,
) -> Result<Expectation, Unreadable> {
    let not_md5 = || format!("the ETag {e_tag} is not an MD5 of the content");
    let (hex, parts) = split_parts(e_tag).ok_or_else(not_md5)?;
    let digest = hashlab::hex::decode(hex)
        .ok()
        .filter(|d| d.len() == 16)
        .ok_or_else(not_md5)?;
    Ok(Expectation {
        source: Source::ETag,
        algorithm: ETAG_ALGORITHM.to_string(),
        layout: layout(parts, part_sizes)?,
        digest,
    })
}

/// `value` as (digest text, parts count if `-N` follows).
fn split_parts(value: &str) -> Option<(&str, Option<u32>)> {
    match value.rsplit_once('-') {
        None => Some((value, None)),
        Some((digest, count)) => {
            let count: u32 = count.parse().ok().filter(|&n| n > 0)?;
            (!digest.is_empty()).then_some((digest, Some(count)))
        }
    }
}

/// The parts count of a value shown as `digest-N` (a multipart upload's).
pub(crate) fn parts_count(value: &str) -> Option<u32> {
    split_parts(value)?.1
}

fn layout(parts: Option<u32>, part_sizes: Option<&[u64]>) -> Result<Layout, Unreadable> {
    match (parts, part_sizes) {
        (None, _) => Ok(Layout::Whole),
        (Some(count), Some(sizes)) if sizes.len() == count as usize => {
            Ok(Layout::Parts(sizes.to_vec()))
        }
        (Some(count), Some(sizes)) => Err(format!(
            "the value is over {count} parts, the store listed {}",
            sizes.len()
        )),
        (Some(count), None) => Err(format!(
            "the value is over {count} parts whose sizes the store did not give"
        )),
    }
}

/// What a store recorded about one object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreRecord {
    pub size: u64,
    /// Quotes removed.
    pub e_tag: Option<String>,
    /// (response header, algorithm in hashlab's catalog, value as shown) of
    /// each additional checksum, in the order of [`S3_CHECKSUMS`].
    pub checksums: Vec<(String, String, String)>,
    /// `FULL_OBJECT` or `COMPOSITE`, as S3's `x-amz-checksum-type` says.
    pub checksum_type: Option<String>,
    /// A multipart upload's parts count, from the ETag's or a checksum's `-N`.
    pub parts: Option<u32>,
    /// The parts' sizes, where the store was asked for them.
    pub part_sizes: Option<Vec<u64>>,
}

impl StoreRecord {
    /// A record from the headers of an S3 HEAD (`header` looks one up by its
    /// lower-case name).
    pub fn from_s3_head(size: u64, header: &dyn Fn(&str) -> Option<String>) -> StoreRecord {
        let e_tag = header("etag").map(|t| {
            let t = t.strip_prefix("W/").unwrap_or(&t);
            t.trim_matches('"').to_string()
        });
        let checksums: Vec<(String, String, String)> = S3_CHECKSUMS
            .iter()
            .filter_map(|(name, algorithm)| {
                header(name).map(|v| (name.to_string(), algorithm.to_string(), v))
            })
            .collect();
        let parts = e_tag
            .as_deref()
            .and_then(parts_count)
            .or_else(|| checksums.iter().find_map(|(_, _, v)| parts_count(v)))
            .or_else(|| header("x-amz-mp-parts-count").and_then(|n| n.parse().ok()));
        StoreRecord {
            size,
            e_tag,
            checksums,
            checksum_type: header("x-amz-checksum-type"),
            parts,
            part_sizes: None,
        }
    }

    /// The digest of the whole content by `algorithm` (a canonical name), as
    /// the store recorded it: a full-object checksum, or for MD5 a
    /// single-part ETag. Otherwise why not, naming what the store has.
    pub fn whole_digest(&self, algorithm: &str) -> Result<Vec<u8>, Unreadable> {
        let (usable, _) = self.expectations();
        if let Some(found) = usable
            .iter()
            .find(|e| e.algorithm == algorithm && e.layout == Layout::Whole)
        {
            return Ok(found.digest.clone());
        }
        let parts = |value: &str| match parts_count(value) {
            Some(n) => format!(" of a {n}-part upload"),
            None => String::new(),
        };
        let mut kept: Vec<String> = self
            .checksums
            .iter()
            .map(|(header, _, value)| format!("{header}{}", parts(value)))
            .collect();
        kept.extend(self.e_tag.iter().map(|tag| format!("ETag{}", parts(tag))));
        Err(format!(
            "the store recorded no {algorithm} of the whole object (it has {})",
            if kept.is_empty() {
                "none".to_string()
            } else {
                kept.join(", ")
            }
        ))
    }

    /// Every recorded value hashlab can reproduce, most preferred first (the
    /// additional checksums in the order of [`S3_CHECKSUMS`], then the
    /// ETag), and why each of the others cannot be.
    pub fn expectations(&self) -> (Vec<Expectation>, Vec<Unreadable>) {
        let sizes = self.part_sizes.as_deref();
        let mut usable = Vec::new();
        let mut unusable = Vec::new();
        for (header, algorithm, value) in &self.checksums {
            match checksum_expectation(header, algorithm, value, sizes) {
                Ok(e) => usable.push(e),
                Err(why) => unusable.push(why),
            }
        }
        match &self.e_tag {
            None => unusable.push("the store gave no ETag".to_string()),
            Some(tag) => match etag_expectation(tag, sizes) {
                Ok(e) => usable.push(e),
                Err(why) => unusable.push(why),
            },
        }
        (usable, unusable)
    }
}

/// One expectation's progress through the bytes.
struct Progress {
    hasher: Box<dyn Hasher>,
    /// Parts only: the parts' digests so far, the part being hashed, the
    /// bytes left in it, and whether bytes came past the last part.
    part_digests: Vec<u8>,
    part: usize,
    left_in_part: u64,
    overrun: bool,
}

/// Computes the values of expectations over bytes given in pieces, as they
/// arrive: the digest of the whole, or the digest of the parts' digests.
pub struct Reproducer {
    expectations: Vec<Expectation>,
    progress: Vec<Progress>,
}

impl Reproducer {
    pub fn new(
        registry: &Registry,
        expectations: Vec<Expectation>,
    ) -> Result<Reproducer, hashlab::HashError> {
        let mut progress = Vec::with_capacity(expectations.len());
        for expectation in &expectations {
            let left_in_part = match &expectation.layout {
                Layout::Whole => 0,
                Layout::Parts(sizes) => sizes.first().copied().unwrap_or(0),
            };
            progress.push(Progress {
                hasher: registry.hasher(&expectation.algorithm, None, &HashParams::default())?,
                part_digests: Vec::new(),
                part: 0,
                left_in_part,
                overrun: false,
            });
        }
        Ok(Reproducer {
            expectations,
            progress,
        })
    }

    pub fn expectations(&self) -> &[Expectation] {
        &self.expectations
    }

    pub fn update(&mut self, data: &[u8]) {
        for (expectation, state) in self.expectations.iter().zip(&mut self.progress) {
            let Layout::Parts(sizes) = &expectation.layout else {
                state.hasher.update(data);
                continue;
            };
            let mut data = data;
            while !data.is_empty() {
                if state.part >= sizes.len() {
                    state.overrun = true;
                    break;
                }
                let take = state.left_in_part.min(data.len() as u64) as usize;
                state.hasher.update(&data[..take]);
                data = &data[take..];
                state.left_in_part -= take as u64;
                if state.left_in_part == 0 {
                    state
                        .part_digests
                        .extend_from_slice(state.hasher.finalize_reset().as_bytes());
                    state.part += 1;
                    state.left_in_part = sizes.get(state.part).copied().unwrap_or(0);
                }
            }
        }
    }

    /// Each expectation's value over the bytes given; where the bytes do not
    /// fill the parts exactly, the reason instead.
    pub fn finish(self) -> Vec<Result<Vec<u8>, Unreadable>> {
        self.expectations
            .iter()
            .zip(self.progress)
            .map(|(expectation, mut state)| match &expectation.layout {
                Layout::Whole => Ok(state.hasher.finalize_reset().as_bytes().to_vec()),
                Layout::Parts(sizes) => {
                    // A zero-length part (an empty upload of one part) is
                    // finished by no byte: its digest is of nothing.
                    while state.part < sizes.len() && state.left_in_part == 0 {
                        state
                            .part_digests
                            .extend_from_slice(state.hasher.finalize_reset().as_bytes());
                        state.part += 1;
                        state.left_in_part = sizes.get(state.part).copied().unwrap_or(0);
                    }
                    if state.overrun || state.part < sizes.len() {
                        let total: u64 = sizes.iter().sum();
                        let more = if state.overrun { "more" } else { "fewer" };
                        return Err(format!(
                            "the parts hold {total} bytes and the content has {more}"
                        ));
                    }
                    state.hasher.update(&state.part_digests);
                    Ok(state.hasher.finalize_reset().as_bytes().to_vec())
                }
            })
            .collect()
    }
}

/// [`Reproducer`] over everything `reader` gives, read once.
pub fn reproduce(
    registry: &Registry,
    expectations: &[Expectation],
    reader: &mut dyn Read,
) -> io::Result<Vec<Result<Vec<u8>, Unreadable>>> {
    let mut reproducer = Reproducer::new(registry, expectations.to_vec())
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut buffer = vec![0u8; 256 << 10];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => reproducer.update(&buffer[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(reproducer.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(algorithm: &str, data: &[u8]) -> Vec<u8> {
        let mut hasher = Registry::default()
            .hasher(algorithm, None, &HashParams::default())
            .unwrap();
        hasher.update(data);
        hasher.finalize_reset().as_bytes().to_vec()
    }

    fn md5(data: &[u8]) -> Vec<u8> {
        digest("md5", data)
    }

    #[test]
    fn a_multipart_etag_is_the_md5_of_the_parts_md5s() {
        let data: Vec<u8> = (0..2500u32).map(|i| (i * 7) as u8).collect();
        let mut joined = md5(&data[..1000]);
        joined.extend(md5(&data[1000..2000]));
        joined.extend(md5(&data[2000..]));
        let tag = format!("{}-3", hashlab::hex::encode(&md5(&joined)));
        let expectation = etag_expectation(&tag, Some(&[1000, 1000, 500])).unwrap();
        let got = reproduce(
            &Registry::default(),
            std::slice::from_ref(&expectation),
            &mut &data[..],
        )
        .unwrap();
        let got = got[0].as_ref().unwrap();
        assert_eq!(got, &expectation.digest);
        assert_eq!(expectation.shown(got), tag);
        assert_eq!(expectation.describe(), "ETag of a 3-part upload");
    }

    #[test]
    fn whole_and_composite_checksums_come_from_one_read() {
        // CRC-32 of "abc" is 0x352441c2: S3 shows its four bytes, big-endian, in base64.
        let whole =
            checksum_expectation("x-amz-checksum-crc32", "crc32", "NSRBwg==", None).unwrap();
        // Composite over parts "ab" and "c": CRC-32 of CRC32("ab") || CRC32("c").
        let crc = |d: &[u8]| digest("crc32", d);
        let mut joined = crc(b"ab");
        joined.extend(crc(b"c"));
        let value = format!(
            "{}-2",
            base64::engine::general_purpose::STANDARD.encode(crc(&joined))
        );
        let composite =
            checksum_expectation("x-amz-checksum-crc32", "crc32", &value, Some(&[2, 1])).unwrap();
        let got = reproduce(
            &Registry::default(),
            &[whole.clone(), composite.clone()],
            &mut &b"abc"[..],
        )
        .unwrap();
        assert_eq!(got[0].as_ref().unwrap(), &whole.digest);
        assert_eq!(composite.shown(got[1].as_ref().unwrap()), value);
    }

    #[test]
    fn content_that_does_not_fill_the_parts_is_said_so() {
        let expectation =
            etag_expectation("900150983cd24fb0d6963f7d28e17f72-2", Some(&[2, 2])).unwrap();
        for data in [&b"abc"[..], b"abcde"] {
            let got = reproduce(
                &Registry::default(),
                std::slice::from_ref(&expectation),
                &mut &data[..],
            )
            .unwrap();
            assert!(got[0]
                .as_ref()
                .unwrap_err()
                .contains("the parts hold 4 bytes"));
        }
    }

    #[test]
    fn values_that_are_not_digests_are_refused_with_the_reason() {
        for e_tag in [
            "",
            "abc",
            "900150983cd24fb0d6963f7d28e17f72-x",
            "0x1-2",
            "zz",
        ] {
            assert!(etag_expectation(e_tag, None).is_err(), "{e_tag}");
        }
        let err = etag_expectation("900150983cd24fb0d6963f7d28e17f72-3", None).unwrap_err();
        assert!(err.contains("over 3 parts"), "{err}");
        let err =
            etag_expectation("900150983cd24fb0d6963f7d28e17f72-3", Some(&[1, 2])).unwrap_err();
        assert!(err.contains("the store listed 2"), "{err}");
        assert!(checksum_expectation("h", "crc32", "not base64!", None).is_err());
        assert_eq!(
            etag_expectation("900150983CD24FB0D6963F7D28E17F72", None)
                .unwrap()
                .layout,
            Layout::Whole
        );
    }
}
