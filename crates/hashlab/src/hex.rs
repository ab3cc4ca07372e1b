//! Lower-case hex, both ways. Long inputs are encoded by const-hex (SIMD);
//! a digest of up to 16 bytes (XXH3, the CRCs, MD5) by a table of digit
//! pairs, because const-hex's AVX2 entry costs more than the whole table
//! loop at that length: 6 of a Python `xxh3_64_hexdigest` call's 60 ns.
//! Decoding stays here, because its errors name the offending character and
//! its position.

/// Up to this many input bytes the pair table beats const-hex's SIMD entry.
const TABLE_MAX: usize = 16;

/// The two digits of each byte value.
const PAIRS: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut pairs = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        pairs[b] = [DIGITS[b >> 4], DIGITS[b & 15]];
        b += 1;
    }
    pairs
};

/// Encodes bytes as lower-case hex.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = vec![0u8; bytes.len() * 2];
    encode_into(bytes, &mut out);
    String::from_utf8(out).expect("hex digits are ASCII")
}

/// Writes the lowercase hex of `bytes` into `out` (at least twice as long)
/// and returns it as text: a digest's hex without an allocation.
#[inline]
pub fn encode_into<'a>(bytes: &[u8], out: &'a mut [u8]) -> &'a str {
    let out = &mut out[..bytes.len() * 2];
    if bytes.len() > TABLE_MAX {
        return encode_long(bytes, out);
    }
    // Four bytes' digits per 8-byte store: written two bytes at a time, the
    // digits were read back (by Python's string constructor) before the
    // narrow stores could be forwarded to the wide load.
    let mut quads = bytes.chunks_exact(4);
    let mut outs = out.chunks_exact_mut(8);
    for (four, eight) in (&mut quads).zip(&mut outs) {
        let digits = four.iter().rev().fold(0u64, |word, &b| {
            word << 16 | u64::from(u16::from_le_bytes(PAIRS[b as usize]))
        });
        eight.copy_from_slice(&digits.to_le_bytes());
    }
    let rest_out = outs.into_remainder();
    for (pair, &b) in rest_out.chunks_exact_mut(2).zip(quads.remainder()) {
        pair.copy_from_slice(&PAIRS[b as usize]);
    }
    // SAFETY: every byte written is one of the sixteen ASCII digits.
    unsafe { std::str::from_utf8_unchecked(out) }
}

// Out of line: inlined, its SIMD dispatch made every short encode save and
// restore five registers.
#[inline(never)]
fn encode_long<'a>(bytes: &[u8], out: &'a mut [u8]) -> &'a str {
    const_hex::encode_to_str(bytes, out).expect("the output is twice the input")
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
        // Both encoders, the pair table and const-hex, at and around the switch.
        for len in [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 32, 33, 64, 1000] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let expected: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(encode(&bytes), expected, "{len} bytes");
            let mut out = vec![b'?'; 2 * len + 1];
            assert_eq!(encode_into(&bytes, &mut out), expected, "{len} bytes");
            assert_eq!(out[2 * len], b'?');
        }
    }
}
