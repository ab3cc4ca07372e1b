//! Manifest lines as the tools users know write them.
//!
//! GNU form: `<hex>  <name>`; BSD tag form: `TAG (<name>) = <hex>`. A name with
//! a backslash, newline or carriage return is written escaped (`\\`, `\n`, `\r`)
//! and the whole line starts with a backslash, exactly as coreutils 9 does, so
//! `sha256sum -c` reads it back.

/// Which line form to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineStyle {
    Gnu,
    Tag,
}

/// The name as it goes into a line, and whether the line needs the leading backslash.
pub fn escape_name(name: &[u8]) -> (Vec<u8>, bool) {
    if !name.iter().any(|b| matches!(b, b'\\' | b'\n' | b'\r')) {
        return (name.to_vec(), false);
    }
    let mut out = Vec::with_capacity(name.len() + 4);
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    (out, true)
}

/// `<hex>  <name>\n`, escaped as coreutils does.
pub fn gnu_line(hex: &str, name: &[u8]) -> Vec<u8> {
    let (name, escaped) = escape_name(name);
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
}
