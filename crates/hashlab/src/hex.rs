//! Lower-case hex, both ways, without pulling in a crate for twenty lines.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Encodes bytes as lower-case hex.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = vec![0u8; bytes.len() * 2];
    encode_into(bytes, &mut out);
    String::from_utf8(out).expect("hex digits are ASCII")
}

/// Writes the lowercase hex of `bytes` into `out` (twice as long) and
/// returns it as text: a digest's hex without an allocation.
pub fn encode_into<'a>(bytes: &[u8], out: &'a mut [u8]) -> &'a str {
    let out = &mut out[..bytes.len() * 2];
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[(b >> 4) as usize];
        pair[1] = DIGITS[(b & 15) as usize];
    }
    std::str::from_utf8(out).expect("hex digits are ASCII")
}

/// Decodes hex (either case). The error says what is wrong and where.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) {
        return Err(format!(
            "odd number of hex digits ({}): hex needs two digits per byte",
            text.len()
        ));
    }
    let raw = text.as_bytes();
    let mut out = Vec::with_capacity(raw.len() / 2);
    for (i, pair) in raw.chunks_exact(2).enumerate() {
        let hi = nibble(pair[0]).ok_or_else(|| bad_char(text, 2 * i))?;
        let lo = nibble(pair[1]).ok_or_else(|| bad_char(text, 2 * i + 1))?;
        out.push(hi << 4 | lo);
    }
    Ok(out)
}

fn bad_char(text: &str, at: usize) -> String {
    let c = text[at..].chars().next().unwrap_or('?');
    format!("'{c}' at position {} is not a hex digit", at + 1)
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        assert_eq!(encode(&[0, 0xab, 0xff]), "00abff");
        let mut out = [b'?'; 8];
        assert_eq!(encode_into(&[0, 0xab, 0xff], &mut out), "00abff");
        assert_eq!(&out[6..], b"??");
        assert_eq!(decode("00ABff").unwrap(), vec![0, 0xab, 0xff]);
        assert_eq!(decode("").unwrap(), Vec::<u8>::new());
        assert!(decode("abc").unwrap_err().contains("odd number"));
        assert!(decode("zz").unwrap_err().contains("'z' at position 1"));
        assert!(decode("0g").unwrap_err().contains("position 2"));
    }
}
