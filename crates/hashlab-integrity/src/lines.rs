//! Manifest lines as the tools users know write them.
//!
//! GNU form: `<hex>  <name>`; BSD tag form: `TAG (<name>) = <hex>`. A name with
//! a backslash, newline or carriage return is written escaped (`\\`, `\n`, `\r`)
//! and the whole line starts with a backslash, exactly as coreutils 9 does, so
//! `sha256sum -c` reads it back. b3sum escapes only `\\` and `\n` (b3sum 1.2
//! refuses `\r`), so BLAKE3's GNU lines follow b3sum; hashdeep escapes nothing.

/// Which line form to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineStyle {
    Gnu,
    Tag,
    /// `cksum`'s `VALUE SIZE NAME`.
    Cksum,
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
        hashlab::LineForm::Gnu | hashlab::LineForm::Tagged | hashlab::LineForm::Cksum => {
            NameEscaping::Coreutils
        }
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
/// start with a size, rejects that line alone.
pub fn hashdeep_line(size: u64, digests: &[&str], name: &[u8]) -> Vec<u8> {
    let needs_escape = name.contains(&b'\n') || name.last() == Some(&b'\r');
    let (name, escaped) = if needs_escape {
        escape_name(name)
    } else {
        (name.to_vec(), false)
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
    fn json_names_keep_their_bytes() {
        assert_eq!(name_base64(b"plain \xc3\xa9"), None);
        let odd = b"nu/bad\xffname";
        assert_eq!(name_from_base64(&name_base64(odd).unwrap()).unwrap(), odd);
        assert_eq!(name_from_base64("not base64!"), None);
    }
}
