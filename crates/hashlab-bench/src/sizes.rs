//! Message sizes as users write them: plain integers or `dd`-style suffixes
//! (`K`/`KiB` = 1024, `KB` = 1000, likewise M/MB/MiB and G/GB/GiB).

/// Parses one size. Suffixes are case-insensitive; a trailing `B` alone means bytes.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    if digits.is_empty() {
        return Err(format!(
            "'{text}' is not a size (expected e.g. 64, 1K, 64KB, 10MB)"
        ));
    }
    let multiplier: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "kb" => 1_000,
        "m" | "mib" => 1 << 20,
        "mb" => 1_000_000,
        "g" | "gib" => 1 << 30,
        "gb" => 1_000_000_000,
        other => {
            return Err(format!(
                "'{text}': unknown size suffix '{other}' (use K, KiB, KB, M, MiB, MB, G, GiB, GB)"
            ))
        }
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is too large"))?;
    let bytes = n
        .checked_mul(multiplier)
        .filter(|b| usize::try_from(*b).is_ok())
        .ok_or(format!("'{text}' is too large"))?;
    if bytes == 0 {
        return Err(format!("'{text}': a size must be at least 1 byte"));
    }
    Ok(bytes as usize)
}

/// Parses a comma-separated list, keeping the order given and dropping repeats.
pub fn parse_sizes(text: &str) -> Result<Vec<usize>, String> {
    let mut sizes = Vec::new();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let size = parse_size(part)?;
        if !sizes.contains(&size) {
            sizes.push(size);
        }
    }
    if sizes.is_empty() {
        return Err("no sizes given".into());
    }
    Ok(sizes)
}

/// Short label for a column header: `16 B`, `1 KiB`, `64 KB`, `10 MB`, `1.5 KiB`.
pub fn size_label(bytes: usize) -> String {
    const UNITS: [(usize, &str); 6] = [
        (1 << 30, "GiB"),
        (1_000_000_000, "GB"),
        (1 << 20, "MiB"),
        (1_000_000, "MB"),
        (1 << 10, "KiB"),
        (1_000, "KB"),
    ];
    for (unit, name) in UNITS {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{} {name}", bytes / unit);
        }
    }
    format!("{bytes} B")
}

/// Parses a byte count for `--project` (e.g. `150G`, `2TB`), allowing T/TB/TiB too.
pub fn parse_amount(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    for (suffix, mult) in [
        ("tib", 1u64 << 40),
        ("tb", 1_000_000_000_000),
        ("t", 1 << 40),
    ] {
        if let Some(digits) = lower.strip_suffix(suffix) {
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                let n: u64 = digits
                    .parse()
                    .map_err(|_| format!("'{text}' is too large"))?;
                return n.checked_mul(mult).ok_or(format!("'{text}' is too large"));
            }
        }
    }
    parse_size(t).map(|b| b as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_as_dd() {
        assert_eq!(parse_size("16").unwrap(), 16);
        assert_eq!(parse_size("1K").unwrap(), 1024);
        assert_eq!(parse_size("1KiB").unwrap(), 1024);
        assert_eq!(parse_size("64KB").unwrap(), 64_000);
        assert_eq!(parse_size("10MB").unwrap(), 10_000_000);
        assert_eq!(parse_size("1M").unwrap(), 1 << 20);
        assert_eq!(parse_size("2g").unwrap(), 2 << 30);
        assert_eq!(parse_size("1GB").unwrap(), 1_000_000_000);
        assert_eq!(parse_size("576B").unwrap(), 576);
    }

    #[test]
    fn every_seed_size_is_expressible() {
        let seeds =
            "16,64,256,1024,8192,16384,65536,1048576,256B,1K,8K,16K,64,64KB,10MB,576,1536,4096";
        assert_eq!(parse_sizes(seeds).unwrap().len(), 13, "repeats are dropped");
    }

    #[test]
    fn bad_sizes_say_why() {
        assert!(parse_size("").unwrap_err().contains("not a size"));
        assert!(parse_size("K").unwrap_err().contains("not a size"));
        assert!(parse_size("12Q")
            .unwrap_err()
            .contains("unknown size suffix 'q'"));
        assert!(parse_size("0").unwrap_err().contains("at least 1 byte"));
        assert!(parse_size("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_size("18446744073709551615G")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_size("-5").unwrap_err().contains("not a size"));
        assert!(parse_sizes(",").is_err());
    }

    #[test]
    fn labels() {
        assert_eq!(size_label(16), "16 B");
        assert_eq!(size_label(1024), "1 KiB");
        assert_eq!(size_label(64_000), "64 KB");
        assert_eq!(size_label(10_000_000), "10 MB");
        assert_eq!(size_label(1 << 20), "1 MiB");
        assert_eq!(size_label(1536), "1536 B");
        assert_eq!(parse_amount("150G").unwrap(), 150 << 30);
        assert_eq!(parse_amount("150GB").unwrap(), 150_000_000_000);
        assert_eq!(parse_amount("2TB").unwrap(), 2_000_000_000_000);
    }
}
