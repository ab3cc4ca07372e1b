//! Reading manifest lines back: the GNU form (`<hex>  name`, `<hex> *name`),
//! the BSD tag form (`TAG (name) = <hex>`) and `openssl dgst` lines
//! (`SHA2-256(name)= <hex>`), with coreutils' escaping of odd names. A
//! digest may be hex or, as coreutils 9.2 and later write it with
//! `--base64`, standard base64 with padding. SFV files (`name CRC32`, `;`
//! comments, as rhash and cfv write them) are read line by line too.
//!
//! Parsing knows nothing about which algorithm a GNU line belongs to; it hands
//! back the tag (if any) and the digest, and `check` decides.

use hashlab::Registry;

/// What one manifest line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A tagged checksum line, ready to verify.
    Entry(Entry),
    /// A `<hex> ...` line: its name depends on the run's [`GnuReading`].
    Gnu(GnuLine),
    /// A comment (`#` first) or an empty line: coreutils skips both without counting them.
    Skip,
    /// Not a checksum line in any form this reader knows.
    Malformed,
}

/// One checksum line, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The tag of a BSD or OpenSSL line, resolved against the registry.
    pub tag: Option<TagHint>,
    /// The expected digest, decoded from hex.
    pub expected: Vec<u8>,
    /// The file name, unescaped.
    pub name: Vec<u8>,
    /// GNU `*` marker: coreutils reads in binary mode; on POSIX it changes nothing.
    pub binary: bool,
    /// The file's size in bytes, which a `cksum` line (`VALUE SIZE NAME`)
    /// records beside its CRC: a file of another size fails. `None` for
    /// every other line form.
    pub size: Option<u64>,
}

/// How a run reads `<hex> name` lines. coreutils settles on the first such
/// line it accepts and keeps to it across all manifests, so that a file
/// renamed to start with a space or `*` cannot switch the reading midway.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GnuReading {
    #[default]
    Undecided,
    /// `<hex>  name` / `<hex> *name`.
    Standard,
    /// `<hex> name`, as BSD `md5 -r` writes it.
    Reversed,
}

/// A `<hex><blank>rest` line before the name is settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GnuLine {
    /// The expected digest, decoded from hex.
    pub expected: Vec<u8>,
    /// The algorithm a prefix of the digest names (`XXH3_<hex>`, see
    /// `Algorithm::digest_prefix`); `None` for a bare digest.
    pub tag: Option<TagHint>,
    rest: Vec<u8>,
    escaped: bool,
}

impl GnuLine {
    /// The entry under `reading`, updating it as coreutils does; `None` when
    /// the line does not fit the reading already chosen or its name is bad.
    /// Call it only for a line whose digest suits its algorithm: coreutils
    /// decides the reading after checking the digest.
    pub fn resolve(&self, reading: &mut GnuReading) -> Option<Entry> {
        let r = &self.rest;
        let reversed_shape = r.len() == 1 || !matches!(r[0], b' ' | b'*');
        let (raw, binary) = if reversed_shape {
            if *reading == GnuReading::Standard {
                return None;
            }
            *reading = GnuReading::Reversed;
            (&r[..], false)
        } else if *reading != GnuReading::Reversed {
            *reading = GnuReading::Standard;
            (&r[1..], r[0] == b'*')
        } else {
            (&r[..], false)
        };
        Some(Entry {
            tag: self.tag.clone(),
            expected: self.expected.clone(),
            name: name_of(raw, self.escaped)?,
            binary,
            size: None,
        })
    }
}

fn name_of(raw: &[u8], escaped: bool) -> Option<Vec<u8>> {
    if escaped {
        unescape(raw)
    } else if raw.contains(&0) {
        None
    } else {
        Some(raw.to_vec())
    }
}

/// The algorithm a tag names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagHint {
    /// Canonical algorithm name, as the registry has it.
    pub algorithm: String,
    /// Output length in bytes when the tag states it (`BLAKE2b-256`, or a
    /// plain tag of a fixed- or variable-length algorithm, which means its
    /// default length); `None` for an XOF tag without bits, whose length is
    /// the digest's.
    pub length: Option<usize>,
}

/// Resolves a tag to an algorithm and, where the tag says so, a length.
/// Tags are matched exactly as the tools write them (`SHA256`, `BLAKE2b-256`,
/// `SHA2-256`): coreutils calls `sha256 (f) = ...` improperly formatted, and
/// so does `check`, as for every other line coreutils rejects.
pub fn resolve_tag(registry: &Registry, tag: &str) -> Option<TagHint> {
    let plain = |algorithm: &hashlab::Algorithm| TagHint {
        algorithm: algorithm.name.clone(),
        length: (!algorithm.output.is_xof()).then(|| algorithm.output.default_len()),
    };
    if let Some(a) = registry.algorithms().iter().find(|a| a.tag == tag) {
        return Some(plain(a));
    }
    // Other tools' spellings (OpenSSL's `SHA2-256`, `BLAKE2b512`), from the catalog.
    for algorithm in registry.algorithms() {
        if let Some(foreign) = algorithm.foreign_tags.iter().find(|f| f.tag == tag) {
            return Some(match foreign.length {
                Some(len) => TagHint {
                    algorithm: algorithm.name.clone(),
                    length: Some(len),
                },
                None => plain(algorithm),
            });
        }
    }
    // `TAG-BITS`, as b2sum writes a non-default length.
    let (base, bits) = tag.rsplit_once('-')?;
    if bits.is_empty() || !bits.bytes().all(|b| b.is_ascii_digit()) || bits.len() > 9 {
        return None;
    }
    let bits: usize = bits.parse().ok()?;
    if bits == 0 || !bits.is_multiple_of(8) {
        return None;
    }
    let algorithm = registry.algorithms().iter().find(|a| a.tag == base)?;
    Some(TagHint {
        algorithm: algorithm.name.clone(),
        length: Some(bits / 8),
    })
}

fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_tag_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'/' | b'_')
}

/// coreutils' `filename_unescape`: only `\\`, `\n` and `\r` are valid; any
/// other backslash sequence, or a NUL, makes the line malformed.
pub(crate) fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut bytes = name.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'\\' => match bytes.next() {
                Some(b'\\') => out.push(b'\\'),
                Some(b'n') => out.push(b'\n'),
                Some(b'r') => out.push(b'\r'),
                _ => return None,
            },
            0 => return None,
            _ => out.push(b),
        }
    }
    Some(out)
}

/// A digest as hex or, failing that, as padded standard base64. The two
/// cannot be confused at any digest length a hash has by default (above two
/// bytes): hex is twice the digest's length, base64 four thirds of it
/// rounded up to four, and base64 of a real digest is all hex digits only by
/// a chance of about (22/64)^length. `sum --base64` writes digests of 1 to 3
/// bytes too (`-a blake2b -l 1`): those are read, and a word of prose that
/// decodes so (`word  name`) has a length no untagged line settles without
/// `-a` and `-l`. Where the length is known (a `-BITS` tag), the form that
/// gives it wins: 3 bytes of base64 may be 4 hex digits.
fn decode_digest(text: &[u8], length: Option<usize>) -> Option<Vec<u8>> {
    use base64::Engine;
    let base64 = || {
        if !text.len().is_multiple_of(4) {
            return None;
        }
        base64::engine::general_purpose::STANDARD.decode(text).ok()
    };
    match length {
        Some(len) if text.len() != 2 * len => base64().filter(|d| d.len() == len),
        // Unpadded, 1-3 bytes of base64 are 4 letters: a word of prose.
        _ => decode_hex(text).or_else(|| base64().filter(|d| d.len() >= 4 || text.ends_with(b"="))),
    }
}

fn decode_hex(text: &[u8]) -> Option<Vec<u8>> {
    if text.is_empty() || !text.len().is_multiple_of(2) {
        return None;
    }
    let nibble = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    text.chunks(2)
        .map(|pair| Some(nibble(pair[0])? << 4 | nibble(pair[1])?))
        .collect()
}

/// How a manifest's records end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Framing {
    /// Lines end with `\n` or `\r\n`; a line starting with a backslash has
    /// its name escaped, as coreutils writes it.
    #[default]
    Lines,
    /// Records end with NUL, as `sum -z` (coreutils `-z`) writes them: a
    /// name is exactly its bytes, newlines and carriage returns included,
    /// and never escaped.
    Nul,
}

/// Parses one line. Trailing `\n` and `\r\n` are removed here, so a line from
/// `read_until(b'\n')` can be passed as it is.
pub fn parse_line(registry: &Registry, raw: &[u8]) -> Line {
    parse_record(registry, raw, Framing::Lines)
}

/// Parses one record of a manifest framed as `framing` says; its terminator
/// (`\n`, `\r\n` or NUL) may be passed with it.
pub fn parse_record(registry: &Registry, raw: &[u8], framing: Framing) -> Line {
    if raw.first() == Some(&b'#') {
        return Line::Skip;
    }
    let line = match framing {
        Framing::Lines => {
            let line = raw.strip_suffix(b"\n").unwrap_or(raw);
            line.strip_suffix(b"\r").unwrap_or(line)
        }
        Framing::Nul => raw.strip_suffix(b"\0").unwrap_or(raw),
    };
    if line.is_empty() {
        return Line::Skip;
    }
    parse_entry(registry, line, framing == Framing::Lines).unwrap_or(Line::Malformed)
}

fn parse_entry(registry: &Registry, line: &[u8], escapes: bool) -> Option<Line> {
    if let Some(entry) = parse_cksum(line) {
        return Some(Line::Entry(entry));
    }
    let mut i = line.iter().take_while(|&&b| is_white(b)).count();
    let escaped = escapes && line.get(i) == Some(&b'\\');
    if escaped {
        i += 1;
    }
    let rest = &line[i..];
    let tag_len = rest.iter().take_while(|&&b| is_tag_byte(b)).count();
    let after_tag = &rest[tag_len..];
    if tag_len > 0 && (after_tag.starts_with(b" (") || after_tag.starts_with(b"(")) {
        // Not every tag-shaped word starts a tag line: a GNU name may begin with " (".
        if let Some(entry) = parse_tagged(registry, rest, tag_len, escaped) {
            return Some(Line::Entry(entry));
        }
    }
    parse_gnu(registry, rest, escaped).map(Line::Gnu)
}

fn parse_tagged(registry: &Registry, rest: &[u8], tag_len: usize, escaped: bool) -> Option<Entry> {
    let tag = std::str::from_utf8(&rest[..tag_len]).ok()?;
    // `XXH64_LE`: xxhsum --little-endian's digest, least significant byte
    // first, of a hash whose digest is a number.
    let (hint, little_endian) = match resolve_tag(registry, tag) {
        Some(hint) => (hint, false),
        None => {
            let hint = resolve_tag(registry, tag.strip_suffix("_LE")?)?;
            let number = registry
                .algorithm(&hint.algorithm)
                .is_ok_and(|a| a.integer_digest);
            (number.then_some(hint)?, true)
        }
    };
    let mut body = &rest[tag_len..];
    body = body.strip_prefix(b" ").unwrap_or(body);
    body = body.strip_prefix(b"(")?;
    // BSD md5 and sha1 do not escape names, so the name ends at the last ')', as coreutils reads it.
    let close = body.iter().rposition(|&b| b == b')')?;
    let raw_name = &body[..close];
    let mut tail = &body[close + 1..];
    while tail.first().is_some_and(|&b| is_white(b)) {
        tail = &tail[1..];
    }
    tail = tail.strip_prefix(b"=")?;
    while tail.first().is_some_and(|&b| is_white(b)) {
        tail = &tail[1..];
    }
    let mut expected = decode_digest(tail, hint.length)?;
    if little_endian {
        expected.reverse();
    }
    let name = name_of(raw_name, escaped)?;
    Some(Entry {
        tag: Some(hint),
        expected,
        name,
        binary: false,
        size: None,
    })
}

/// `cksum`'s `VALUE SIZE NAME` (coreutils' default `-a crc` and `-a
/// crc32b`, and `sum -s`'s `VALUE BLOCKS NAME`): the value and the count in
/// decimal, one space after each, the name as it is (cksum escapes
/// nothing). `sum -r` pads: a 5-digit value, then the count right-aligned
/// in 5 columns (`00097     1 f`). The value is held as the 4-byte
/// big-endian number and `size` as the count the line gives; which
/// algorithm it is, and so what the count counts, is settled later
/// (`hashlab::LineForm::recorded_size`). Taken before a one-blank GNU line
/// (`<hex> name`), whose digest would have to be all decimal digits and 8 or
/// 10 of them, and whose name would have to start with digits and a space.
fn parse_cksum(line: &[u8]) -> Option<Entry> {
    let decimal = |field: &[u8], max_digits: usize| {
        if field.is_empty() || field.len() > max_digits || !field.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(field).ok()?.parse::<u64>().ok()
    };
    let space = line.iter().position(|&b| b == b' ')?;
    let (value_field, mut rest) = (&line[..space], &line[space + 1..]);
    // `sum -r`'s padding: the count's field is 5 columns wide when the
    // value's is 5 digits, and only then may it start with spaces.
    if value_field.len() == 5 && rest.first() == Some(&b' ') {
        let pad = rest.iter().take_while(|&&b| b == b' ').count();
        let digits = rest[pad..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if pad + digits != 5 {
            return None;
        }
        rest = &rest[pad..];
    }
    let mut fields = rest.splitn(2, |&b| b == b' ');
    let value = decimal(value_field, 10)?;
    let size = decimal(fields.next()?, 20)?;
    let name = fields.next()?;
    if name.is_empty() || name.contains(&0) {
        return None;
    }
    let value = u32::try_from(value).ok()?;
    Some(Entry {
        tag: None,
        expected: value.to_be_bytes().to_vec(),
        name: name.to_vec(),
        binary: false,
        size: Some(size),
    })
}

fn parse_gnu(registry: &Registry, rest: &[u8], escaped: bool) -> Option<GnuLine> {
    let hex_len = rest.iter().take_while(|&&b| !is_white(b)).count();
    let (tag, digest) = prefixed(registry, &rest[..hex_len]);
    let expected = decode_digest(digest, tag.as_ref().and_then(|t| t.length))?;
    // One blank (space or tab) ends the digest; what follows is `[ *]name`
    // or, in the reversed form, the name itself.
    let after = &rest[hex_len..];
    if after.len() < 2 || !is_white(after[0]) {
        return None;
    }
    Some(GnuLine {
        expected,
        tag,
        rest: after[1..].to_vec(),
        escaped,
    })
}

/// The algorithm a digest's prefix names, and the digest after it: xxhsum
/// 0.8.2 writes `-H3`'s lines as `XXH3_<hex>  name`.
fn prefixed<'d>(registry: &Registry, word: &'d [u8]) -> (Option<TagHint>, &'d [u8]) {
    for algorithm in registry.algorithms() {
        let Some(prefix) = &algorithm.digest_prefix else {
            continue;
        };
        if let Some(digest) = word.strip_prefix(prefix.as_bytes()) {
            let hint = TagHint {
                algorithm: algorithm.name.clone(),
                length: (!algorithm.output.is_xof()).then(|| algorithm.output.default_len()),
            };
            return (Some(hint), digest);
        }
    }
    (None, word)
}

/// The algorithm SFV files record (CRC-32): the catalog entry that says so.
pub fn sfv_algorithm(registry: &Registry) -> Option<&std::sync::Arc<hashlab::Algorithm>> {
    registry.algorithms().iter().find(|a| a.sfv)
}

/// The blanks rhash trims around an SFV line's fields (its `rhash_isspace`:
/// space, tab, and `\n`, `\v`, `\f`, `\r`).
pub(crate) fn is_sfv_blank(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// Parses one line of an SFV file as rhash reads it: `NAME CRC`, the CRC 8
/// hex digits (either case) at the line's end after one or more blanks, the
/// name what comes before, without the blanks at its ends, and with each
/// backslash read as `/` (SFV comes from Windows, where `dir\file` is a
/// path: rhash reads it so). Blank lines and lines starting with `;` or `#`
/// are [`Line::Skip`] (a `;` or `#` after a blank is not a comment, and the
/// line is malformed, as rhash has it). SFV escapes nothing else.
pub fn parse_sfv_line(registry: &Registry, raw: &[u8]) -> Line {
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() || matches!(line[0], b';' | b'#') {
        return Line::Skip;
    }
    sfv_entry(registry, line).map_or(Line::Malformed, Line::Entry)
}

fn sfv_entry(registry: &Registry, line: &[u8]) -> Option<Entry> {
    let algorithm = sfv_algorithm(registry)?;
    let start = line.iter().position(|&b| !is_sfv_blank(b))?;
    let end = line.iter().rposition(|&b| !is_sfv_blank(b))? + 1;
    let line = &line[start..end];
    let split = line.len().checked_sub(8)?;
    let expected = decode_hex(&line[split..])?;
    let before = &line[..split];
    let name_end = before.iter().rposition(|&b| !is_sfv_blank(b))? + 1;
    if name_end == before.len()
        || before.contains(&0)
        || expected.len() != algorithm.output.default_len()
    {
        return None;
    }
    let name = before[..name_end]
        .iter()
        .map(|&b| if b == b'\\' { b'/' } else { b })
        .collect();
    Some(Entry {
        tag: Some(TagHint {
            algorithm: algorithm.name.clone(),
            length: Some(expected.len()),
        }),
        expected,
        name,
        binary: false,
        size: None,
    })
}

/// How coreutils prints a checked name: escaped, with the caller adding a
/// leading backslash, only when it holds a newline (coreutils 9.1; a
/// carriage return is printed as it is).
pub fn display_name(name: &[u8]) -> (Vec<u8>, bool) {
    if !name.contains(&b'\n') {
        return (name.to_vec(), false);
    }
    (crate::lines::escaped(name, false), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    fn parse(line: &[u8]) -> Line {
        parse_line(&Registry::default(), line)
    }

    fn entry(line: &[u8]) -> Entry {
        match parse(line) {
            Line::Entry(e) => e,
            Line::Gnu(g) => g
                .resolve(&mut GnuReading::Standard)
                .expect("standard reading"),
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(line)),
        }
    }

    /// Malformed, or no name under the standard reading.
    fn rejected(line: &[u8]) -> bool {
        match parse(line) {
            Line::Malformed => true,
            Line::Gnu(g) => g.resolve(&mut GnuReading::Standard).is_none(),
            _ => false,
        }
    }

    fn hint(algorithm: &str, length: Option<usize>) -> Option<TagHint> {
        Some(TagHint {
            algorithm: algorithm.into(),
            length,
        })
    }

    #[test]
    fn gnu_text_and_binary() {
        let e = entry(format!("{SHA256_ABC}  a b.txt\n").as_bytes());
        assert_eq!(e.name, b"a b.txt");
        assert_eq!(e.tag, None);
        assert!(!e.binary);
        assert_eq!(hashlab::hex::encode(&e.expected), SHA256_ABC);
        assert_eq!(
            entry(format!("{SHA256_ABC}\t name").as_bytes()).name,
            b"name"
        );
        let e = entry(format!("{SHA256_ABC} *bin\r\n").as_bytes());
        assert_eq!(e.name, b"bin");
        assert!(e.binary);
        // Trailing spaces belong to the name; uppercase hex and leading blanks are accepted.
        let e = entry(format!("  {}  x ", SHA256_ABC.to_uppercase()).as_bytes());
        assert_eq!(e.name, b"x ");
        assert_eq!(hashlab::hex::encode(&e.expected), SHA256_ABC);
    }

    #[test]
    fn base64_digests_read_as_coreutils_writes_them() {
        // `cksum -a sha256 --base64` and `--base64 --untagged` (coreutils 9.2+).
        let b64 = "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=";
        let e = entry(format!("SHA256 (abc) = {b64}").as_bytes());
        assert_eq!(hashlab::hex::encode(&e.expected), SHA256_ABC);
        assert_eq!(e.name, b"abc");
        let e = entry(format!("{b64}  abc").as_bytes());
        assert_eq!(hashlab::hex::encode(&e.expected), SHA256_ABC);
        // `sum --base64 -l 1..3` (b2sum's and b3sum's shortest digests).
        for (text, hex) in [("qw==", "ab"), ("q80=", "abcd")] {
            assert_eq!(
                hashlab::hex::encode(&entry(format!("{text}  f").as_bytes()).expected),
                hex
            );
        }
        // Unpadded, 3 bytes are a word unless a tag says 3 bytes; 4 hex digits are 2 bytes.
        assert!(rejected(b"q83v  f"));
        assert_eq!(entry(b"abcd  f").expected, [0xab, 0xcd]);
        let e = entry(b"BLAKE2b-24 (f) = abcd");
        assert_eq!(hashlab::hex::encode(&e.expected), "69b71d");
        assert!(rejected(b"BLAKE2b-24 (f) = abcdef12"));
        // Unpadded, or with characters outside the alphabet: not a digest.
        assert!(rejected(
            format!("{}  abc", b64.trim_end_matches('=')).as_bytes()
        ));
        assert!(rejected(
            b"ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=  abc"
        ));
    }

    #[test]
    fn escaped_names() {
        let e = entry(format!("\\{SHA256_ABC}  a\\\\b\\nc\\rd\n").as_bytes());
        assert_eq!(e.name, b"a\\b\nc\rd");
        let e = entry(format!("\\SHA256 (x\\ny) = {SHA256_ABC}").as_bytes());
        assert_eq!(e.name, b"x\ny");
        // An unknown escape, or a backslash at the end, is not a valid line.
        assert!(rejected(format!("\\{SHA256_ABC}  a\\tb").as_bytes()));
        assert!(rejected(format!("\\{SHA256_ABC}  ab\\").as_bytes()));
        assert!(rejected(
            format!("\\SHA256 (a\\tb) = {SHA256_ABC}").as_bytes()
        ));
        // Without the leading backslash a name is literal.
        assert_eq!(
            entry(format!("{SHA256_ABC}  a\\nb").as_bytes()).name,
            b"a\\nb"
        );
    }

    #[test]
    fn tags_of_every_tool() {
        let cases: &[(&str, Option<TagHint>, usize)] = &[
            ("SHA256 (f) = ", hint("sha256", Some(32)), 32),
            ("MD5 (f) = ", hint("md5", Some(16)), 16),
            ("BLAKE2b-256 (f) = ", hint("blake2b", Some(32)), 32),
            ("BLAKE2b (f) = ", hint("blake2b", Some(64)), 64),
            ("XXH3 (f) = ", hint("xxh3-64", Some(8)), 8),
            ("XXH64 (f) = ", hint("xxh64", Some(8)), 8),
            ("XXH32 (f) = ", hint("xxh32", Some(4)), 4),
            ("XXH128 (f) = ", hint("xxh3-128", Some(16)), 16),
            ("SHA3-256 (f) = ", hint("sha3-256", Some(32)), 32),
            ("CRC32C (f) = ", hint("crc32c", Some(4)), 4),
            ("SHA512-256 (f) = ", hint("sha512-256", Some(32)), 32),
            ("SHAKE128 (f) = ", hint("shake128", None), 16),
            ("SHAKE128-512 (f) = ", hint("shake128", Some(64)), 64),
            ("SHA2-256(f)= ", hint("sha256", Some(32)), 32),
            ("SHA256(f)= ", hint("sha256", Some(32)), 32),
            ("SHA2-512/256(f)= ", hint("sha512-256", Some(32)), 32),
            ("BLAKE2b512(f)= ", hint("blake2b", Some(64)), 64),
            ("BLAKE2B-512(f)= ", hint("blake2b", Some(64)), 64),
            ("BLAKE2S-256(f)= ", hint("blake2s", Some(32)), 32),
            ("SHAKE-128(f)= ", hint("shake128", None), 16),
        ];
        for (prefix, tag, bytes) in cases {
            let line = format!("{prefix}{}\n", "ab".repeat(*bytes));
            let e = entry(line.as_bytes());
            assert_eq!(&e.tag, tag, "{line}");
            assert_eq!(e.name, b"f", "{line}");
            assert_eq!(e.expected, vec![0xab; *bytes], "{line}");
        }
    }

    #[test]
    fn the_first_gnu_line_settles_the_reading() {
        let gnu = |line: &str| match parse(line.as_bytes()) {
            Line::Gnu(g) => g,
            other => panic!("{line}: {other:?}"),
        };
        let mut reading = GnuReading::Undecided;
        let e = gnu("ab name").resolve(&mut reading).unwrap();
        assert_eq!(
            (e.name.as_slice(), reading),
            (&b"name"[..], GnuReading::Reversed)
        );
        // Once reversed, a standard-looking line keeps its blanks in the name.
        assert_eq!(gnu("ab  x").resolve(&mut reading).unwrap().name, b" x");
        assert_eq!(gnu("ab *x").resolve(&mut reading).unwrap().name, b"*x");

        let mut reading = GnuReading::Undecided;
        let e = gnu("ab *x").resolve(&mut reading).unwrap();
        assert!(e.binary);
        assert_eq!(
            (e.name.as_slice(), reading),
            (&b"x"[..], GnuReading::Standard)
        );
        assert_eq!(gnu("ab name").resolve(&mut reading), None);
        // A single character after the blank is always the reversed form.
        assert_eq!(gnu("ab  ").resolve(&mut reading), None);
        assert_eq!(
            gnu("ab  ")
                .resolve(&mut GnuReading::Undecided)
                .unwrap()
                .name,
            b" "
        );
    }

    #[test]
    fn xxhsum_0_8_2_prefixes_xxh3_digests() {
        // xxhsum 0.8.2's `-H3` line for "abc".
        let e = entry(b"XXH3_78af5f94892f3950  abc\n");
        assert_eq!(e.tag, hint("xxh3-64", Some(8)));
        assert_eq!(e.name, b"abc");
        assert_eq!(hashlab::hex::encode(&e.expected), "78af5f94892f3950");
        assert!(rejected(b"XXH3_  abc"));
        assert!(rejected(b"XXH3_78af5f94892f395  abc"));
        // Only the catalog's prefix, in its case.
        assert!(rejected(b"xxh3_78af5f94892f3950  abc"));
        assert!(rejected(b"XXH64_78af5f94892f3950  abc"));
    }

    #[test]
    fn cksum_lines_hold_the_crc_and_the_size() {
        // `cksum abc` (coreutils): the POSIX CRC of "abc", 3 bytes.
        let e = entry(b"1219131554 3 abc\n");
        assert_eq!(e.tag, None);
        assert_eq!(e.size, Some(3));
        assert_eq!(e.expected, 1219131554u32.to_be_bytes());
        assert_eq!(e.name, b"abc");
        // Names as they are, blanks and backslashes included.
        assert_eq!(entry(b"0 0 a b\\n ").name, b"a b\\n ");
        // A one-blank GNU line whose digest is not decimal stays one.
        assert!(matches!(parse(b"1234abcd 3 abc"), Line::Gnu(_)));
        // `sum -r`'s padded count, and a count too wide to pad.
        let e = entry(b"00097     1 f\n");
        assert_eq!(
            (e.expected, e.size, e.name),
            (97u32.to_be_bytes().to_vec(), Some(1), b"f".to_vec())
        );
        let e = entry(b"12345 123456 a b");
        assert_eq!((e.size, e.name), (Some(123456), b"a b".to_vec()));
        assert_eq!(entry(b"00000     0  sp").name, b" sp");
        for line in [
            &b"4294967296 3 abc"[..], // over 32 bits
            b"1 2",                   // no name
            b"1 2 ",
            b"1  2 abc",
            b"00097    1 f", // a padded count 5 columns wide or none
            b"00097      1 f",
            b"0097     1 f",
            b"-1 2 abc",
            b"1 +2 abc",
        ] {
            assert!(
                !matches!(parse(line), Line::Entry(Entry { size: Some(_), .. })),
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn tag_names_end_at_the_last_parenthesis() {
        let e = entry(format!("SHA256 (a (b) c) = {SHA256_ABC}").as_bytes());
        assert_eq!(e.name, b"a (b) c");
        let e = entry(format!("XXH64 (lit\\nname) = {}", "00".repeat(8)).as_bytes());
        assert_eq!(e.name, b"lit\\nname");
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        assert_eq!(parse(b"# SHA256 (x) = 00\n"), Line::Skip);
        assert_eq!(parse(b"\n"), Line::Skip);
        assert_eq!(parse(b"\r\n"), Line::Skip);
        assert_eq!(parse(b""), Line::Skip);
    }

    #[test]
    fn malformed_lines() {
        for line in [
            "bad line",
            "abc  name",                    // odd number of hex digits
            "zz  name",                     // not hex
            "ab",                           // no name, no separator
            "NOSUCH (f) = ab",              // unknown tag
            "SHA256 (f) ab",                // no '='
            "SHA256 (f = ab",               // no ')'
            "SHA256 (f) = ",                // no digest
            "SHA256 (f) = abc",             // odd digest
            "BLAKE2b-7 (f) = ab",           // bits not a multiple of 8
            "BLAKE2b-0 (f) = ab",           // zero bits
            "BLAKE2b-99999999999 (f) = ab", // absurd bits
            "sha256 (f) = ab",              // coreutils' tags are upper case
            "Sha256 (f) = ab",
            "blake2b-512 (f) = ab",
            "blake2B (f) = ab",
            "sha2-256(f)= ab",
            "xxh64 (f) = ab",
        ] {
            assert_eq!(parse(line.as_bytes()), Line::Malformed, "{line}");
        }
        let mut reading = GnuReading::Undecided;
        for line in [&b"ab  na\0me"[..], b"\\ab  a\\tb", b"ab\t\tname"] {
            match parse(line) {
                Line::Gnu(g) => assert_eq!(g.resolve(&mut reading), None),
                other => assert_eq!(other, Line::Malformed),
            }
        }
    }

    #[test]
    fn huge_lines_and_junk_never_panic() {
        let huge = vec![b'a'; 1 << 20];
        assert_eq!(parse(&huge), Line::Malformed);
        let mut huge_name = b"ab  ".to_vec();
        huge_name.extend(std::iter::repeat_n(b'n', 1 << 20));
        assert_eq!(entry(&huge_name).name.len(), 1 << 20);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 0..2000 {
            let junk: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // Bias towards the bytes the parser looks at.
                    b"\\()= *#\r\nab0SHA256-"
                        .get((state % 40) as usize)
                        .copied()
                        .unwrap_or(state as u8)
                })
                .collect();
            let _ = parse(&junk);
        }
    }

    fn sfv(line: &[u8]) -> Line {
        parse_sfv_line(&Registry::default(), line)
    }

    fn sfv_read(line: &[u8]) -> (Vec<u8>, String) {
        match sfv(line) {
            Line::Entry(e) => {
                assert_eq!(e.tag, hint("crc32", Some(4)));
                (e.name, hashlab::hex::encode(&e.expected))
            }
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(line)),
        }
    }

    #[test]
    fn sfv_lines_name_then_crc() {
        let abc = |name: &[u8]| (name.to_vec(), "352441c2".to_string());
        assert_eq!(sfv_read(b"abc.txt 352441C2\n"), abc(b"abc.txt"));
        // Lowercase hex; CRLF and LF ends; blanks around the fields, as rhash takes them.
        assert_eq!(sfv_read(b"abc.txt 352441c2"), abc(b"abc.txt"));
        assert_eq!(sfv_read(b"abc.txt 352441C2\r\n"), abc(b"abc.txt"));
        assert_eq!(sfv_read(b"abc.txt 352441c2 \t\r\n"), abc(b"abc.txt"));
        assert_eq!(sfv_read(b"abc.txt\t352441C2"), abc(b"abc.txt"));
        assert_eq!(sfv_read(b"  abc.txt    352441C2"), abc(b"abc.txt"));
        assert_eq!(sfv_read(b"\tabc.txt \t 352441C2"), abc(b"abc.txt"));
        // The CRC is the last field: the name keeps its inner blanks.
        assert_eq!(sfv_read(b"a b\tc.txt 352441C2"), abc(b"a b\tc.txt"));
        assert_eq!(sfv_read(b"x 12345678 352441C2"), abc(b"x 12345678"));
        assert_eq!(sfv_read(b"c\rr 352441C2\r\n"), abc(b"c\rr"));
        // A backslash is Windows' directory separator, as rhash reads it.
        assert_eq!(
            sfv_read(b"CD1\\sub dir\\f.rar 352441C2"),
            abc(b"CD1/sub dir/f.rar")
        );
    }

    #[test]
    fn sfv_comments_and_blank_lines_are_skipped() {
        for line in [
            &b"; Generated by RHash v1.4.3 on 2026-11-24 at 15:34.09\n"[..],
            b";            3  15:34.09 2026-11-24 abc.txt 352441C2\r\n",
            b";",
            b"# a comment",
            b"\n",
            b"\r\n",
            b"",
        ] {
            assert_eq!(sfv(line), Line::Skip, "{:?}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn bad_sfv_lines_are_malformed() {
        for line in [
            &b"abc.txt"[..],
            b"352441C2",    // no name
            b"   352441C2", // no name but blanks
            b"  ; comment", // a comment only at the line's start, as rhash has it
            b" ",
            b"abc.txt 352441C",   // 7 digits
            b"abc.txt 352441C22", // 9 digits
            b"abc.txt 352441G2",  // not hex
            b"abc.txt352441C2",   // no separator
            b"a\0b 352441C2",     // a NUL in the name
            b"abc.txt 0x52441C2",
            b"abc.txt 352441C2 x",
            b"SHA256 (abc.txt) = 352441c2x",
            b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc.txt",
        ] {
            assert_eq!(
                sfv(line),
                Line::Malformed,
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
        // A registry without SFV's algorithm reads no SFV line.
        let mut registry = Registry::empty();
        for algorithm in Registry::default().algorithms().iter().filter(|a| !a.sfv) {
            registry.register_algorithm((**algorithm).clone()).unwrap();
        }
        assert_eq!(
            parse_sfv_line(&registry, b"abc.txt 352441C2"),
            Line::Malformed
        );
    }

    #[test]
    fn names_print_as_coreutils_9_1_prints_them() {
        assert_eq!(display_name(b"plain"), (b"plain".to_vec(), false));
        assert_eq!(
            display_name(b"back\\slash"),
            (b"back\\slash".to_vec(), false)
        );
        assert_eq!(display_name(b"cr\rname"), (b"cr\rname".to_vec(), false));
        assert_eq!(display_name(b"b\\a\nc"), (b"b\\\\a\\nc".to_vec(), true));
    }
}
