//! `xxhsum` (xxHash's own tool): its options, read as xxhsum reads them
//! (`-H` followed by its number in the same argument, letters clustered,
//! long options spelled whole), turned into `hashlab sum` and `hashlab
//! check` arguments.

use std::ffi::OsString;

use super::stop::{help, Stop};

/// xxhsum's refusal of its arguments: its words, its exit code.
fn wrong() -> Stop {
    Stop::Raw(
        "Wrong parameters\n\nUsage: xxhsum [options] [files]\n\
         Try 'xxhsum -h' for the options.\n"
            .into(),
        1,
    )
}

/// What `-H` takes: 0..3 or the widths 32, 64, 128, each the catalog's
/// algorithm and whether xxhsum 0.8.2 and later write its untagged lines
/// with the digest's prefix (`XXH3_`).
const VARIANTS: &[(&[&str], &str, bool)] = &[
    (&["0", "32"], "xxh32", false),
    (&["1", "64"], "xxh64", false),
    (&["2", "128"], "xxh3-128", false),
    (&["3"], "xxh3-64", true),
];

type Variant = (&'static [&'static str], &'static str, bool);

fn variant_of(number: &str) -> Option<&'static Variant> {
    VARIANTS
        .iter()
        .find(|(numbers, _, _)| numbers.contains(&number))
}

#[derive(Default)]
struct Options {
    variant: Option<&'static Variant>,
    check: bool,
    tag: bool,
    little_endian: bool,
    /// Of --quiet, --status and --warn, as check takes them, in order.
    check_flags: Vec<&'static str>,
    operands: Vec<OsString>,
}

fn parse(args: &[OsString]) -> Result<Result<Options, Stop>, Stop> {
    let mut o = Options::default();
    let mut files_only = false;
    for arg in args {
        let bytes = arg.as_encoded_bytes();
        if files_only || bytes == b"-" || bytes.first() != Some(&b'-') {
            o.operands.push(arg.clone());
            continue;
        }
        if bytes == b"--" {
            files_only = true;
            continue;
        }
        if let Some(long) = bytes.strip_prefix(b"--") {
            match long {
                b"check" => o.check = true,
                b"tag" => o.tag = true,
                b"little-endian" => o.little_endian = true,
                b"quiet" => o.check_flags.push("--quiet"),
                b"status" => o.check_flags.push("--status"),
                b"strict" => o.check_flags.push("--strict"),
                b"warn" => o.check_flags.push("--warn"),
                b"ignore-missing" => o.check_flags.push("--ignore-missing"),
                b"help" => return Err(Stop::Print(help("xxhsum"))),
                b"version" => return Err(version()),
                _ => return Ok(Err(wrong())),
            }
            continue;
        }
        let mut rest = &bytes[1..];
        while let Some((&letter, after)) = rest.split_first() {
            rest = after;
            match letter {
                b'H' => {
                    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                    let number = std::str::from_utf8(&rest[..digits]).unwrap_or_default();
                    o.variant = match variant_of(number) {
                        Some(v) => Some(v),
                        None => return Ok(Err(wrong())),
                    };
                    rest = &rest[digits..];
                }
                b'c' => o.check = true,
                b'q' => o.check_flags.push("--quiet"),
                b'w' => o.check_flags.push("--warn"),
                b'h' => return Err(Stop::Print(help("xxhsum"))),
                b'V' => return Err(version()),
                _ => return Ok(Err(wrong())),
            }
        }
    }
    Ok(Ok(o))
}

fn version() -> Stop {
    Stop::Print(format!("xxhsum (hashlab) {}\n", env!("CARGO_PKG_VERSION")))
}

pub(super) fn translate(args: &[OsString]) -> Result<Vec<OsString>, Stop> {
    let o = parse(args)??;
    let mut out: Vec<OsString> = Vec::new();
    if o.check {
        // Each line says its algorithm (its tag, or its length: 8, 16 and
        // 32 digits are XXH32, XXH64 and XXH128 to xxhsum).
        out.push("check".into());
        out.extend(o.check_flags.iter().map(OsString::from));
    } else {
        // --quiet also quiets the benchmark, so xxhsum takes it when
        // hashing too; --status and the rest it ignores there.
        // -H1 (XXH64) is the default.
        let (_, algorithm, prefixed) = o.variant.unwrap_or(&VARIANTS[1]);
        out.extend(["sum".into(), "-a".into(), (*algorithm).into()]);
        if o.little_endian {
            out.push("--little-endian".into());
        }
        if o.tag {
            out.push("--tag".into());
        } else if *prefixed && !o.little_endian {
            // xxhsum 0.8.2 and later write `XXH3_<hex>  NAME`.
            out.push("--digest-prefix".into());
        }
        out.push("--no-progress".into());
    }
    out.push("--".into());
    out.extend(o.operands);
    Ok(out)
}
