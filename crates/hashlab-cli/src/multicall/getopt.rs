//! GNU getopt_long's reading of an argument list, with its error words.

use std::ffi::{OsStr, OsString};

/// An option of the tool: its long name (the key it is known by, given on
/// the command line only when `long_ok`), its short letter, and whether it
/// takes a value.
#[derive(Clone, Copy)]
pub(super) struct Spec {
    pub(super) long: &'static str,
    pub(super) long_ok: bool,
    pub(super) short: Option<char>,
    pub(super) takes_value: bool,
}

pub(super) const fn flag(long: &'static str, short: Option<char>) -> Spec {
    Spec {
        long,
        long_ok: true,
        short,
        takes_value: false,
    }
}

pub(super) const fn valued(long: &'static str, short: Option<char>) -> Spec {
    Spec {
        long,
        long_ok: true,
        short,
        takes_value: true,
    }
}

/// A letter with no long spelling (`sum -r`); `key` names it in [`Parsed`].
pub(super) const fn short_only(key: &'static str, short: char, takes_value: bool) -> Spec {
    Spec {
        long: key,
        long_ok: false,
        short: Some(short),
        takes_value,
    }
}

/// Options (long name and value) in the order given, and the operands.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Parsed {
    pub(super) options: Vec<(&'static str, Option<OsString>)>,
    pub(super) operands: Vec<OsString>,
}

impl Parsed {
    pub(super) fn has(&self, long: &str) -> bool {
        self.options.iter().any(|(l, _)| *l == long)
    }

    pub(super) fn last_value(&self, long: &str) -> Option<&OsString> {
        self.options
            .iter()
            .rev()
            .find(|(l, _)| *l == long)
            .and_then(|(_, v)| v.as_ref())
    }
}

/// Reads `args` as GNU getopt_long does with `options`: a usage message on
/// error, worded as getopt words it.
pub(super) fn getopt(args: &[OsString], options: &[Spec]) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let bytes = arg.as_encoded_bytes();
        if bytes == b"--" {
            parsed.operands.extend(args.by_ref().cloned());
            break;
        }
        if let Some(long) = bytes.strip_prefix(b"--") {
            let option = long_option(arg, long, options, &mut args)?;
            parsed.options.push(option);
        } else if bytes.len() > 1 && bytes[0] == b'-' {
            short_options(&bytes[1..], options, &mut args, &mut parsed)?;
        } else {
            parsed.operands.push(arg.clone());
        }
    }
    Ok(parsed)
}

/// `--name[=value]` (`long`: without the dashes), matched exactly or by an
/// unambiguous prefix; a value it needs is the next argument.
fn long_option<'a>(
    arg: &OsString,
    long: &[u8],
    options: &[Spec],
    rest: &mut impl Iterator<Item = &'a OsString>,
) -> Result<(&'static str, Option<OsString>), String> {
    let (name, inline) = match long.iter().position(|&b| b == b'=') {
        Some(eq) => (&long[..eq], Some(&long[eq + 1..])),
        None => (long, None),
    };
    let name = String::from_utf8_lossy(name);
    let exact = options.iter().find(|o| o.long_ok && o.long == name);
    let matches: Vec<&Spec> = match exact {
        Some(o) => vec![o],
        None => options
            .iter()
            .filter(|o| o.long_ok && o.long.starts_with(name.as_ref()))
            .collect(),
    };
    let spec = match matches.as_slice() {
        [one] => *one,
        [] => return Err(format!("unrecognized option '{}'", arg.to_string_lossy())),
        many => {
            let names: Vec<String> = many.iter().map(|o| format!("'--{}'", o.long)).collect();
            return Err(format!(
                "option '{}' is ambiguous; possibilities: {}",
                arg.to_string_lossy(),
                names.join(" ")
            ));
        }
    };
    let value = match (spec.takes_value, inline) {
        (false, Some(_)) => {
            return Err(format!(
                "option '--{}' doesn't allow an argument",
                spec.long
            ))
        }
        (false, None) => None,
        (true, Some(v)) => Some(os(v)),
        (true, None) => Some(
            rest.next()
                .cloned()
                .ok_or_else(|| format!("option '--{}' requires an argument", spec.long))?,
        ),
    };
    Ok((spec.long, value))
}

/// `-abc` (`letters`: without the dash): each letter an option, the first
/// that takes a value taking the rest of the word or the next argument.
fn short_options<'a>(
    letters: &[u8],
    options: &[Spec],
    rest: &mut impl Iterator<Item = &'a OsString>,
    parsed: &mut Parsed,
) -> Result<(), String> {
    let mut letters = letters;
    while let Some((&letter, after)) = letters.split_first() {
        letters = after;
        let letter = letter as char;
        let spec = options
            .iter()
            .find(|o| o.short == Some(letter))
            .ok_or_else(|| format!("invalid option -- '{letter}'"))?;
        let value = if spec.takes_value {
            let value = if letters.is_empty() {
                rest.next()
                    .cloned()
                    .ok_or_else(|| format!("option requires an argument -- '{letter}'"))?
            } else {
                os(letters)
            };
            letters = &[];
            Some(value)
        } else {
            None
        };
        parsed.options.push((spec.long, value));
    }
    Ok(())
}

fn os(bytes: &[u8]) -> OsString {
    // SAFETY: `bytes` is a piece of an OsString's encoded bytes split at an
    // ASCII byte ('=' or after an ASCII option letter), which the
    // encoding allows.
    unsafe { OsStr::from_encoded_bytes_unchecked(bytes) }.to_os_string()
}
