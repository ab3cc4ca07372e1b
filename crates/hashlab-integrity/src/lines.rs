//! Manifest lines as the tools users know write them.
//!
//! GNU form: `<hex>  <name>`; BSD tag form: `TAG (<name>) = <hex>`. A name with
//! a backslash, newline or carriage return is written escaped (`\\`, `\n`, `\r`)
//! and the whole line starts with a backslash, exactly as coreutils 9 does, so
//! `sha256sum -c` reads it back. b3sum escapes only `\\` and `\n` (b3sum 1.2
//! refuses `\r`), so BLAKE3's GNU lines follow b3sum; hashdeep escapes nothing.
//! SFV files (`NAME CRC32`, as `rhash --sfv` writes them) escape nothing
//! either, and refuse the names they cannot hold.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Datelike, Local, TimeZone, Timelike};

/// Which line form to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineStyle {
    Gnu,
    Tag,
    /// `cksum`'s `VALUE SIZE NAME`.
    Cksum,
    /// SFV's `NAME CRC`.
    Sfv,
}

/// The name as it goes into a line, and whether the line needs the leading backslash.
pub fn escape_name(name: &[u8]) -> (Vec<u8>, bool) {
    if !name.iter().any(|b| matches!(b, b'\\' | b'\n' | b'\r')) {
        return (name.to_vec(), false);
    }
    (escaped(name, true), true)
}

/// `name` with backslash and newline written `\\` and `\n`, and a carriage
/// return `\r` when `carriage_return` says so: the one escaping loop of
/// coreutils' lines, b3sum's lines and coreutils' printed names.
pub(crate) fn escaped(name: &[u8], carriage_return: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len() + 4);
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' if carriage_return => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    out
}

/// Whose escaping a GNU line follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameEscaping {
    /// coreutils 9: `\\`, `\n` and `\r`.
    Coreutils,
    /// b3sum: `\\` and `\n`; a carriage return is written as it is, which
    /// b3sum reads back, except as a name's last byte: coreutils and hashlab
    /// take a CR before the newline for a CRLF line end, so there it is
    /// written `\r`, which hashlab reads and b3sum 1.2 refuses with
    /// "Invalid backslash escape" (an error on that line, never a wrong name).
    B3sum,
}

/// The escaping of `sum`'s GNU lines for an algorithm whose lines take
/// `form` (its catalog entry): the tool that reads them is b3sum for BLAKE3,
/// a coreutils program otherwise.
pub fn escaping_for(form: hashlab::LineForm) -> NameEscaping {
    match form {
        hashlab::LineForm::B3sum => NameEscaping::B3sum,
        hashlab::LineForm::Gnu
        | hashlab::LineForm::Tagged
        | hashlab::LineForm::Cksum
        | hashlab::LineForm::BsdSum
        | hashlab::LineForm::SysvSum => NameEscaping::Coreutils,
    }
}

/// [`escape_name`] as `escaping` has it.
pub fn escape_name_as(name: &[u8], escaping: NameEscaping) -> (Vec<u8>, bool) {
    match escaping {
        NameEscaping::Coreutils => escape_name(name),
        NameEscaping::B3sum => {
            let last_is_cr = name.last() == Some(&b'\r');
            if !name.iter().any(|b| matches!(b, b'\\' | b'\n')) && !last_is_cr {
                return (name.to_vec(), false);
            }
            let mut out = escaped(name, false);
            if last_is_cr {
                out.pop();
                out.extend_from_slice(b"\\r");
            }
            (out, true)
        }
    }
}

/// `<hex>  <name>\n`, escaped as coreutils does.
pub fn gnu_line(hex: &str, name: &[u8]) -> Vec<u8> {
    gnu_line_as(hex, name, NameEscaping::Coreutils)
}

/// `<hex>  <name>\n`, escaped as `escaping` says.
pub fn gnu_line_as(hex: &str, name: &[u8], escaping: NameEscaping) -> Vec<u8> {
    let (name, escaped) = escape_name_as(name, escaping);
    let mut line = Vec::with_capacity(hex.len() + name.len() + 4);
    if escaped {
        line.push(b'\\');
    }
    line.extend_from_slice(hex.as_bytes());
    line.extend_from_slice(b"  ");
    line.extend_from_slice(&name);
    line.push(b'\n');
    line
}

/// `TAG (<name>) = <hex>\n`, escaped as coreutils does.
pub fn tag_line(tag: &str, name: &[u8], hex: &str) -> Vec<u8> {
    let (name, escaped) = escape_name(name);
    let mut line = Vec::with_capacity(tag.len() + name.len() + hex.len() + 8);
    if escaped {
        line.push(b'\\');
    }
    line.extend_from_slice(tag.as_bytes());
    line.extend_from_slice(b" (");
    line.extend_from_slice(&name);
    line.extend_from_slice(b") = ");
    line.extend_from_slice(hex.as_bytes());
    line.push(b'\n');
    line
}

/// One line of hashdeep's format: `size,<hex>,...,name`. hashdeep escapes
/// nothing, so a name holding a newline, or ending in a carriage return
/// (which hashdeep strips as a CRLF line end), cannot be written so that it
/// reads it: such a name is escaped as coreutils escapes it, the line
/// starting with a backslash. hashlab reads it back; hashdeep, whose lines
/// start with a size, rejects that line alone. So is a name that ends as a
/// piece line's does (`NAME offset 0-9`, `hashdeep -p`), which would read
/// back as a piece of NAME.
pub fn hashdeep_line(size: u64, digests: &[&str], name: &[u8]) -> Vec<u8> {
    let needs_escape = name.contains(&b'\n') || name.last() == Some(&b'\r');
    let (name, escaped) = if needs_escape {
        escape_name(name)
    } else {
        (name.to_vec(), names_a_piece(name))
    };
    let mut line =
        Vec::with_capacity(name.len() + 24 + digests.iter().map(|d| d.len() + 1).sum::<usize>());
    if escaped {
        line.push(b'\\');
    }
    line.extend_from_slice(size.to_string().as_bytes());
    for digest in digests {
        line.push(b',');
        line.extend_from_slice(digest.as_bytes());
    }
    line.push(b',');
    line.extend_from_slice(&name);
    line.push(b'\n');
    line
}

/// Why a name cannot be written in a line of the form asked for. SFV
/// escapes nothing, and its readers (rhash's `-c` is the reference) take
/// some names for others: those are refused rather than written to be
/// misread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnwritableName {
    /// A newline would end the line: rhash writes such a name as it is, and
    /// its `-c` then reads two broken lines.
    SfvNewline,
    /// An SFV line starting with `;` (or `#`, which rhash and hashlab skip
    /// too) is a comment: the file would silently go unchecked.
    SfvCommentMark(u8),
    /// Readers trim the blanks around a name (rhash does).
    SfvBlankEnd,
    /// Readers take a backslash for a directory separator, as in the
    /// Windows paths SFV files hold (rhash does).
    SfvBackslash,
}

impl fmt::Display for UnwritableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnwritableName::SfvNewline => {
                f.write_str("an SFV line cannot hold a name with a newline (SFV escapes nothing)")
            }
            UnwritableName::SfvCommentMark(mark) => write!(
                f,
                "a name starting with '{}' would read as an SFV comment",
                char::from(*mark)
            ),
            UnwritableName::SfvBlankEnd => f.write_str(
                "SFV readers (rhash -c) trim the blanks at a name's ends, so this name would read as another",
            ),
            UnwritableName::SfvBackslash => f.write_str(
                "SFV readers (rhash -c) take a backslash for a directory separator, so this name would read as another",
            ),
        }
    }
}

impl std::error::Error for UnwritableName {}

/// `name` if an SFV line can hold it: what [`crate::parse_sfv_line`] reads
/// back as exactly this name.
fn sfv_name(name: &[u8]) -> Result<&[u8], UnwritableName> {
    use crate::manifest::is_sfv_blank;
    match (name.first(), name.last()) {
        (Some(&mark @ (b';' | b'#')), _) => Err(UnwritableName::SfvCommentMark(mark)),
        _ if name.contains(&b'\n') => Err(UnwritableName::SfvNewline),
        (Some(&first), Some(&last)) if is_sfv_blank(first) || is_sfv_blank(last) => {
            Err(UnwritableName::SfvBlankEnd)
        }
        _ if name.contains(&b'\\') => Err(UnwritableName::SfvBackslash),
        _ => Ok(name),
    }
}

/// `NAME CRC\n`, the CRC in upper-case hex as rhash writes it.
pub fn sfv_line(name: &[u8], digest: &[u8]) -> Result<Vec<u8>, UnwritableName> {
    let name = sfv_name(name)?;
    let mut line = Vec::with_capacity(name.len() + digest.len() * 2 + 2);
    line.extend_from_slice(name);
    line.push(b' ');
    line.extend_from_slice(hashlab::hex::encode(digest).to_ascii_uppercase().as_bytes());
    line.push(b'\n');
    Ok(line)
}

/// SFV's banner as rhash writes it (`; Generated by RHash v1.4.3 on
/// 2026-11-24 at 15:34.09`, local time, then `;`), naming `generator`
/// instead; rhash's second line, its author's credit, is rhash's own.
pub fn sfv_banner(generator: &str, now: SystemTime) -> Vec<u8> {
    banner_at(generator, local_time(now))
}

/// One comment of SFV's header, as rhash writes one per file before its
/// first checksum line: `; `, the size right-aligned in 12 columns, two
/// spaces, the modification time as `hh:mm.ss YYYY-MM-DD` (local time), a
/// space and the name.
pub fn sfv_comment(
    size: u64,
    modified: SystemTime,
    name: &[u8],
) -> Result<Vec<u8>, UnwritableName> {
    Ok(comment_at(size, local_time(modified), sfv_name(name)?))
}

fn banner_at<Tz: TimeZone>(generator: &str, now: Option<DateTime<Tz>>) -> Vec<u8> {
    let (date, time) = date_and_time(now);
    format!("; Generated by {generator} on {date} at {time}\n;\n").into_bytes()
}

fn comment_at<Tz: TimeZone>(size: u64, modified: Option<DateTime<Tz>>, name: &[u8]) -> Vec<u8> {
    let (date, time) = date_and_time(modified);
    let mut line = format!("; {size:>12}  {time} {date} ").into_bytes();
    line.extend_from_slice(name);
    line.push(b'\n');
    line
}

/// `YYYY-MM-DD` and `hh:mm.ss`; for a time the calendar cannot hold, the
/// date rhash prints when `localtime` fails (`1900-01-00`, `00:00.00`).
fn date_and_time<Tz: TimeZone>(t: Option<DateTime<Tz>>) -> (String, String) {
    match t {
        Some(t) => (
            format!("{:04}-{:02}-{:02}", t.year(), t.month(), t.day()),
            format!("{:02}:{:02}.{:02}", t.hour(), t.minute(), t.second()),
        ),
        None => ("1900-01-00".into(), "00:00.00".into()),
    }
}

/// `t` in the local time zone (`TZ`, else the system's), to the second
/// below; `None` past the calendar's range (a file's time can be anything).
fn local_time(t: SystemTime) -> Option<DateTime<Local>> {
    let seconds = match t.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).ok()?,
        Err(before) => {
            let d = before.duration();
            let whole = i64::try_from(d.as_secs()).ok()?;
            -whole - i64::from(d.subsec_nanos() > 0)
        }
    };
    Some(DateTime::from_timestamp(seconds, 0)?.with_timezone(&Local))
}

/// A name's bytes for a JSON manifest, beside its display text: base64
/// (standard alphabet, padded) when the name is not UTF-8, since JSON text
/// can only hold it with replacement characters; `None` when the text is exact.
pub fn name_base64(name: &[u8]) -> Option<String> {
    use base64::Engine;
    std::str::from_utf8(name)
        .is_err()
        .then(|| base64::engine::general_purpose::STANDARD.encode(name))
}

/// The bytes [`name_base64`] wrote, or `None` when `text` is not its output.
pub fn name_from_base64(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

/// Whether a name ends as the name of a hashdeep piece line does. The
/// syntax lives with the writer of hashdeep lines, which must not write a
/// whole-file name that reads back as a piece.
pub(crate) fn names_a_piece(name: &[u8]) -> bool {
    split_offset(name).is_some()
}

/// The name and range of a hashdeep piece line's name (`NAME offset 0-1023`).
pub(crate) fn split_offset(name: &[u8]) -> Option<(&[u8], u64, u64)> {
    const MARK: &[u8] = b" offset ";
    let at = name.windows(MARK.len()).rposition(|w| w == MARK)?;
    let range = std::str::from_utf8(&name[at + MARK.len()..]).ok()?;
    let (start, end) = range.split_once('-')?;
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    Some((&name[..at], number(start)?, number(end)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_untouched() {
        assert_eq!(gnu_line("ab", b"f.txt"), b"ab  f.txt\n");
        assert_eq!(tag_line("SHA256", b"f.txt", "ab"), b"SHA256 (f.txt) = ab\n");
    }

    #[test]
    fn odd_names_are_escaped_like_coreutils() {
        assert_eq!(gnu_line("ab", b"a\\b"), b"\\ab  a\\\\b\n");
        assert_eq!(gnu_line("ab", b"c\nd"), b"\\ab  c\\nd\n");
        assert_eq!(gnu_line("ab", b"e\rf"), b"\\ab  e\\rf\n");
        assert_eq!(tag_line("MD5", b"a\\b", "ab"), b"\\MD5 (a\\\\b) = ab\n");
    }

    #[test]
    fn blake3_lines_are_escaped_as_b3sum_reads_them() {
        let registry = hashlab::Registry::default();
        let lines = |name: &str| registry.algorithm(name).unwrap().lines;
        let b3 = |name: &[u8]| gnu_line_as("ab", name, escaping_for(lines("blake3")));
        assert_eq!(b3(b"e\rf"), b"ab  e\rf\n");
        assert_eq!(b3(b"a\\b\rc"), b"\\ab  a\\\\b\rc\n");
        assert_eq!(b3(b"c\nd"), b"\\ab  c\\nd\n");
        // A CR last would read as a CRLF line end: escaped there only.
        assert_eq!(b3(b"e\r"), b"\\ab  e\\r\n");
        assert_eq!(b3(b"\r\r"), b"\\ab  \r\\r\n");
        assert_eq!(escaping_for(lines("sha256")), NameEscaping::Coreutils);
    }

    #[test]
    fn hashdeep_lines_escape_only_what_hashdeep_cannot_hold() {
        assert_eq!(
            hashdeep_line(3, &["aa", "bb"], b"/x/a,b"),
            b"3,aa,bb,/x/a,b\n"
        );
        assert_eq!(hashdeep_line(0, &["aa"], b"a\\b\rc"), b"0,aa,a\\b\rc\n");
        assert_eq!(hashdeep_line(1, &["aa"], b"n\nl\\"), b"\\1,aa,n\\nl\\\\\n");
        assert_eq!(hashdeep_line(1, &["aa"], b"cr\r"), b"\\1,aa,cr\\r\n");
    }

    #[test]
    fn sfv_lines_are_rhash_s() {
        let crc = [0x35, 0x24, 0x41, 0xc2];
        assert_eq!(sfv_line(b"abc.txt", &crc).unwrap(), b"abc.txt 352441C2\n");
        // Inner blanks and carriage returns, and UTF-8, are written as they are.
        let odd: &[&[u8]] = &[
            b"a b\tc",
            b"c\rr",
            b"x;#",
            "\u{e9}t\u{e9}".as_bytes(),
            b"d/f",
        ];
        let registry = hashlab::Registry::default();
        for &name in odd {
            let line = sfv_line(name, &crc).unwrap();
            assert_eq!(line, [name, b" 352441C2\n"].concat());
            // ...and read back as the same name.
            match crate::parse_sfv_line(&registry, &line) {
                crate::Line::Entry(e) => assert_eq!(e.name, name),
                other => panic!("{other:?}"),
            }
        }
        // What SFV cannot hold is refused, in lines and comments alike.
        for (name, refusal) in [
            (&b"n\nl"[..], UnwritableName::SfvNewline),
            (b"l\n", UnwritableName::SfvNewline),
            (b";x", UnwritableName::SfvCommentMark(b';')),
            (b"#x", UnwritableName::SfvCommentMark(b'#')),
            (b" lead", UnwritableName::SfvBlankEnd),
            (b"trail ", UnwritableName::SfvBlankEnd),
            (b"cr\r", UnwritableName::SfvBlankEnd),
            (b"\x0bv", UnwritableName::SfvBlankEnd),
            (b"tab\t", UnwritableName::SfvBlankEnd),
            (b"back\\slash", UnwritableName::SfvBackslash),
        ] {
            assert_eq!(sfv_line(name, &crc), Err(refusal), "{name:?}");
            assert_eq!(sfv_comment(0, UNIX_EPOCH, name), Err(refusal));
            let message = refusal.to_string();
            assert!(!message.contains('\n'), "{message}");
        }
    }

    #[test]
    fn sfv_header_lines_are_rhash_s() {
        use chrono::FixedOffset;
        // 2001-02-03 04:05:06 in UTC+05:30, a zone off the hour.
        let offset = FixedOffset::east_opt(5 * 3600 + 1800).unwrap();
        let t = DateTime::from_timestamp(981_173_106, 0)
            .unwrap()
            .with_timezone(&offset);
        assert_eq!(
            banner_at("hashlab 0.1.0", Some(t)),
            b"; Generated by hashlab 0.1.0 on 2001-02-03 at 09:35.06\n;\n"
        );
        assert_eq!(
            comment_at(3, Some(t), b"a b.txt"),
            b";            3  09:35.06 2001-02-03 a b.txt\n"
        );
        // Wider than 12 digits: the column grows, as rhash's does.
        assert_eq!(
            comment_at(12_345_678_901_234, Some(t), b"big"),
            b"; 12345678901234  09:35.06 2001-02-03 big\n"
        );
        // A time the calendar cannot hold prints as rhash prints one localtime() refuses.
        assert_eq!(
            comment_at::<FixedOffset>(0, None, b"f"),
            b";            0  00:00.00 1900-01-00 f\n"
        );
    }

    #[test]
    fn any_file_time_converts_without_panicking() {
        use std::time::Duration;
        let before = UNIX_EPOCH - Duration::from_millis(1500);
        let utc = |t| local_time(t).map(|l| l.timestamp());
        assert_eq!(utc(before), Some(-2));
        assert_eq!(utc(UNIX_EPOCH + Duration::from_secs(7)), Some(7));
        for far in [Duration::from_secs(i64::MAX as u64), Duration::MAX] {
            if let Some(t) = UNIX_EPOCH.checked_add(far) {
                assert_eq!(local_time(t), None);
                let _ = sfv_comment(1, t, b"f").unwrap();
            }
            if let Some(t) = UNIX_EPOCH.checked_sub(far) {
                assert_eq!(local_time(t), None);
            }
        }
    }

    #[test]
    fn json_names_keep_their_bytes() {
        assert_eq!(name_base64(b"plain \xc3\xa9"), None);
        let odd = b"nu/bad\xffname";
        assert_eq!(name_from_base64(&name_base64(odd).unwrap()).unwrap(), odd);
        assert_eq!(name_from_base64("not base64!"), None);
    }
}
