//! What a store recorded about an object (its ETag, its additional
//! checksums, the sizes of a multipart upload's parts) and how to compute the
//! same values from local bytes, so an upload is checked against the store
//! without downloading it.
//!
//! Every recorded value has one shape: a digest of the whole content, or
//! the digest of the concatenated digests of the parts, followed by `-N`
//! (a multipart ETag is MD5 over the parts' MD5s; S3's COMPOSITE checksums
//! are the same with any of its ten algorithms, as the AWS SDKs compute
//! them). A FULL_OBJECT checksum of a multipart upload is the CRC of the
//! whole content (S3 combines the parts' CRCs into it), shown without `-N`,
//! so it is reproduced as any whole digest. [`Expectation`]
//! says which; [`reproduce`] computes any number of them in one read.

use std::io::{self, Read};

use base64::Engine;
use hashlab::{HashParams, Hasher, Registry};

/// S3's additional checksums: the header each is sent in, and the algorithm
/// of hashlab's catalog it is (what S3 calls it). Every value is the digest's
/// bytes in base64, big-endian for the CRCs and xxHash (xxHash's canonical
/// form, as aws-checksums writes it). In the order they are preferred when a
/// store keeps several: the fastest to reproduce first (XXH3 and the folded
/// CRCs run at memory speed here; the SHA family and MD5 at 0.5-2 GB/s).
pub const S3_CHECKSUMS: [(&str, &str); 10] = [
    ("x-amz-checksum-crc64nvme", "crc64nvme"),
    ("x-amz-checksum-xxhash3", "xxh3-64"),
    ("x-amz-checksum-xxhash128", "xxh3-128"),
    ("x-amz-checksum-crc32c", "crc32c"),
    ("x-amz-checksum-xxhash64", "xxh64"),
    ("x-amz-checksum-crc32", "crc32"),
    ("x-amz-checksum-sha1", "sha1"),
    ("x-amz-checksum-sha256", "sha256"),
    ("x-amz-checksum-sha512", "sha512"),
    ("x-amz-checksum-md5", "md5"),
];

/// S3's name of each checksum algorithm (`ChecksumAlgorithm`, as the API,
/// the SDKs and Batch Operations' reports spell it) and the header that
/// carries it, in the order of [`S3_CHECKSUMS`].
pub const S3_ALGORITHM_NAMES: [(&str, &str); 10] = [
    ("CRC64NVME", "x-amz-checksum-crc64nvme"),
    ("XXHASH3", "x-amz-checksum-xxhash3"),
    ("XXHASH128", "x-amz-checksum-xxhash128"),
    ("CRC32C", "x-amz-checksum-crc32c"),
    ("XXHASH64", "x-amz-checksum-xxhash64"),
    ("CRC32", "x-amz-checksum-crc32"),
    ("SHA1", "x-amz-checksum-sha1"),
    ("SHA256", "x-amz-checksum-sha256"),
    ("SHA512", "x-amz-checksum-sha512"),
    ("MD5", "x-amz-checksum-md5"),
];

/// The header and catalog algorithm of S3's checksum algorithm `name`
/// (`CRC64NVME`, `xxhash3`: S3's names, in any case).
pub fn s3_checksum_named(name: &str) -> Option<(&'static str, &'static str)> {
    let (_, header) = S3_ALGORITHM_NAMES
        .iter()
        .find(|(s3, _)| s3.eq_ignore_ascii_case(name))?;
    S3_CHECKSUMS.iter().find(|(h, _)| h == header).copied()
}

/// GCS's checksums in the object resource, and the algorithms of hashlab's
/// catalog they are (what GCS calls them): the faster first.
pub(crate) const GCS_CHECKSUMS: [(&str, &str); 2] = [("crc32c", "crc32c"), ("md5Hash", "md5")];

/// Azure's checksum property, and the algorithm of hashlab's catalog it is.
pub(crate) const AZURE_CHECKSUMS: [(&str, &str); 1] = [("content-md5", "md5")];

/// The algorithm of an ETag that is a content MD5.
pub const ETAG_ALGORITHM: &str = "md5";

/// The algorithms whose whole-content digest a store may record: S3's
/// additional checksums, the MD5 of a single-part ETag, GCS's checksums and
/// Azure's Content-MD5.
pub fn recordable_algorithms() -> Vec<&'static str> {
    let mut names: Vec<&str> = S3_CHECKSUMS.iter().map(|(_, a)| *a).collect();
    names.push(ETAG_ALGORITHM);
    for (_, algorithm) in GCS_CHECKSUMS.into_iter().chain(AZURE_CHECKSUMS) {
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

    /// Each of S3's ten algorithms as S3 shows it (base64 of the digest's
    /// bytes): the xxHash values are aws-checksums' own test vectors
    /// (tests/xxhash_test.c, the library the AWS SDKs' CRT computes them
    /// with), the CRCs the catalogue's check values, MD5, SHA-1, SHA-256 and
    /// SHA-512 FIPS 180's and RFC 1321's "abc".
    #[test]
    fn every_s3_algorithm_reproduces_published_values() {
        let alphabet = b"abcdefghijklmnopqrstuvwxyz";
        let cases: [(&str, &[u8], &str); 14] = [
            ("XXHASH64", b"Hello world", "c500b0c912b376d8"),
            ("XXHASH64", alphabet, "cfe1f278fa89835c"),
            ("XXHASH3", b"Hello world", "b6acb9d84a38ff74"),
            ("XXHASH3", alphabet, "810f9ca067fbb90c"),
            (
                "XXHASH128",
                b"Hello world",
                "7351f89812f97382b91d05b31e04dd7f",
            ),
            ("xxhash128", alphabet, "db7ca44e84843d67ebe162220154e1e6"),
            ("CRC64NVME", b"123456789", "ae8b14860a799888"),
            ("CRC32", b"123456789", "cbf43926"),
            ("CRC32C", b"123456789", "e3069283"),
            ("MD5", b"abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("SHA1", b"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                "SHA256",
                b"abc",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                "SHA512",
                b"abc",
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
                 2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
            (
                "sha512",
                b"",
                "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce\
                 47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
            ),
        ];
        for (name, data, hex) in cases {
            let (header, algorithm) = s3_checksum_named(name).expect(name);
            let expected = hashlab::hex::decode(hex).unwrap();
            let shown = base64::engine::general_purpose::STANDARD.encode(&expected);
            let whole = checksum_expectation(header, algorithm, &shown, None).unwrap();
            assert_eq!(whole.digest, expected, "{name}");
            let got = reproduce(
                &Registry::default(),
                std::slice::from_ref(&whole),
                &mut &data[..],
            )
            .unwrap();
            assert_eq!(got[0].as_ref().unwrap(), &expected, "{name} of {data:?}");
            assert_eq!(whole.shown(got[0].as_ref().unwrap()), shown);
        }
        // Every algorithm of the table has its S3 name, and S3 names no other.
        assert_eq!(
            S3_ALGORITHM_NAMES.map(|(_, h)| h),
            S3_CHECKSUMS.map(|(h, _)| h)
        );
        assert!(s3_checksum_named("BLAKE3").is_none());
        assert!(s3_checksum_named("").is_none());
    }

    #[test]
    fn composite_checksums_of_every_s3_algorithm_hash_the_parts_digests() {
        // COMPOSITE as the SDKs compute it (botocore, aws-sdk-java-v2): the
        // algorithm over the parts' digests concatenated, then `-N`.
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 31 + 7) as u8).collect();
        let sizes = [1024u64, 1024, 952];
        for (header, algorithm) in S3_CHECKSUMS {
            let mut joined = Vec::new();
            let mut at = 0;
            for size in sizes {
                joined.extend(digest(algorithm, &data[at..at + size as usize]));
                at += size as usize;
            }
            let value = format!(
                "{}-3",
                base64::engine::general_purpose::STANDARD.encode(digest(algorithm, &joined))
            );
            let composite = checksum_expectation(header, algorithm, &value, Some(&sizes)).unwrap();
            let got = reproduce(
                &Registry::default(),
                std::slice::from_ref(&composite),
                &mut &data[..],
            )
            .unwrap();
            assert_eq!(composite.shown(got[0].as_ref().unwrap()), value, "{header}");
            assert_eq!(composite.describe(), format!("{header} of a 3-part upload"));
        }
    }

    #[test]
    fn a_head_carries_every_algorithm_s3_records() {
        let headers: Vec<(String, String)> = S3_CHECKSUMS
            .iter()
            .map(|(h, a)| {
                (
                    h.to_string(),
                    base64::engine::general_purpose::STANDARD.encode(digest(a, b"abc")),
                )
            })
            .collect();
        let header = |name: &str| {
            headers
                .iter()
                .find(|(h, _)| h == name)
                .map(|(_, v)| v.clone())
        };
        let record = StoreRecord::from_s3_head(3, &header);
        let (usable, unusable) = record.expectations();
        assert_eq!(unusable, vec!["the store gave no ETag".to_string()]);
        let found: Vec<&str> = usable.iter().map(|e| e.algorithm.as_str()).collect();
        assert_eq!(found, S3_CHECKSUMS.map(|(_, a)| a).to_vec());
        let computed = reproduce(&Registry::default(), &usable, &mut &b"abc"[..]).unwrap();
        for (expectation, got) in usable.iter().zip(computed) {
            assert_eq!(
                got.unwrap(),
                expectation.digest,
                "{}",
                expectation.algorithm
            );
        }
        for (_, algorithm) in S3_CHECKSUMS {
            assert_eq!(
                record.whole_digest(algorithm).unwrap(),
                digest(algorithm, b"abc")
            );
            assert!(recordable_algorithms().contains(&algorithm));
        }
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
