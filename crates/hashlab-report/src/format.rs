//! Numbers as the page prints them. The exact value goes into a `data-`
//! attribute beside every printed one, so nothing is lost to rounding.

// Numbers in tables and charts print alike: one formatting, in hashlab-table.
pub use hashlab_table::format::{exact, percent, speed};

/// An SVG coordinate, to a tenth of a pixel.
pub fn px(v: f64) -> String {
    let text = format!("{v:.1}");
    match text.strip_suffix(".0") {
        Some(whole) if whole != "-0" => whole.to_string(),
        Some(_) => "0".to_string(),
        None => text,
    }
}

/// Bytes as a cache size: `32 KiB`, `1 MiB`, `32 MiB`.
pub fn bytes(n: u64) -> String {
    hashlab_bench::sizes::size_label(n as usize)
}

/// A command line as a person would type it again: arguments with characters a
/// POSIX shell treats specially go in single quotes.
pub fn shell_command(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./,:=+@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Width of `text` at `font_px` in a proportional sans-serif, estimated from the
/// character count; SVG has no text measurement before a browser lays it out,
/// so layouts leave room for the widest common fonts (DejaVu Sans).
pub fn text_width(text: &str, font_px: f64) -> f64 {
    text.chars().count() as f64 * font_px * 0.62
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(px(3.0), "3");
        assert_eq!(px(-0.01), "0");
        assert_eq!(px(2.71), "2.7");
        assert_eq!(bytes(1 << 20), "1 MiB");
    }

    #[test]
    fn commands_quote_what_a_shell_would_split() {
        let args: Vec<String> = ["hashlab", "bench", "--sizes", "64,1K", "it's", "a b", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            shell_command(&args),
            r"hashlab bench --sizes 64,1K 'it'\''s' 'a b' ''"
        );
    }
}
