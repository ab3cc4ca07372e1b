//! `hashlab match`: the files whose digests are, or are not, in known sets,
//! as hashdeep's `-m`, `-x`, `-M`, `-X` and `-w`. The library loads the sets
//! and looks digests up; this hashes, prints and sums up the exit status.

mod request;

use std::io;
use std::path::Path;
use std::process::ExitCode;

use hashlab::Registry;
use hashlab_integrity::{
    escape_name, hash_inputs, hashdeep_line, is_interrupted, Cancel, FileDigests, Hit, Input,
    KnownHash, KnownSets, Lookup,
};

use self::request::{MatchRun, Printing};
use crate::cli::MatchArgs;
use crate::failure::{io_message, Failure};
use crate::shared::name_bytes;
use crate::stdio::LineOutput;

pub(crate) use self::request::validate;

/// The bits of the exit status, as hashdeep's manual gives them.
/// A known digest that no input matched.
pub const UNUSED_KNOWN: u8 = 1;
/// An input that matched no known digest.
pub const UNMATCHED_INPUT: u8 = 2;
/// Bad options or sets, and (unlike hashdeep) an input that could not be read.
pub const USER_ERROR: u8 = 64;
/// Output that could not be written, or anything else not the input's fault.
pub const INTERNAL_ERROR: u8 = 128;

/// A clap outcome for `match`: help and version as they are, errors 64.
pub fn usage_status(code: ExitCode) -> ExitCode {
    if code == ExitCode::SUCCESS {
        code
    } else {
        ExitCode::from(USER_ERROR)
    }
}

pub fn run(args: &MatchArgs) -> Result<ExitCode, Failure> {
    match matching(args) {
        Err(Failure::Usage(message)) => {
            errln!("hashlab: {message}");
            Ok(ExitCode::from(USER_ERROR))
        }
        Err(Failure::Runtime(message)) => {
            errln!("hashlab: {message}");
            Ok(ExitCode::from(INTERNAL_ERROR))
        }
        other => other,
    }
}

fn matching(args: &MatchArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let MatchRun {
        printing,
        known,
        inputs,
        plan,
    } = request::request(&registry, args)?;
    let make = || plan.fanout();
    let job = plan.plan.job(Cancel::new());
    let header = printing
        .digests
        .then(|| hashdeep_header(&registry, known.hashes()));
    let mut matcher = Matcher {
        header,
        printing,
        known,
        out: LineOutput::new(),
        unmatched: false,
        unreadable: false,
    };
    hash_inputs(&inputs, &make, plan.plan.jobs, &job, &mut |i, result| {
        matcher.file(&inputs[i], result)
    })?;
    matcher.out.flush()?;
    let mut status = 0;
    if matcher.known.unused() > 0 {
        status |= UNUSED_KNOWN;
    }
    if matcher.unmatched {
        status |= UNMATCHED_INPUT;
    }
    if matcher.unreadable {
        status |= USER_ERROR;
    }
    Ok(ExitCode::from(status))
}

/// Each file looked up in the sets and printed as `printing` says.
struct Matcher {
    printing: Printing,
    known: KnownSets,
    /// hashdeep's header, written above the first line of -M and -X.
    header: Option<Vec<u8>>,
    out: LineOutput,
    unmatched: bool,
    unreadable: bool,
}

impl Matcher {
    fn file(&mut self, input: &Input, result: io::Result<FileDigests>) -> Result<(), Failure> {
        let (label, shown) = match input {
            Input::File(p) | Input::Problem(p, _) => (name_bytes(p), p.display().to_string()),
            Input::Stdin => (b"-".to_vec(), "-".to_string()),
        };
        let digests = match result {
            Ok(digests) => digests,
            Err(e) if is_interrupted(&e) => return Err(Failure::Interrupted),
            Err(e) => {
                // Lines already printed go first, so the message falls where the file would.
                self.out.flush()?;
                errln!("hashlab: {shown}: {}", io_message(&e));
                self.unreadable = true;
                return Ok(());
            }
        };
        let hit = self.look_up(&digests, &shown)?;
        self.unmatched |= hit.is_none();
        if hit.is_some() != self.printing.matching {
            return Ok(());
        }
        let mut line = if self.printing.digests {
            if let Some(header) = self.header.take() {
                self.out.write_line(&header)?;
            }
            hashdeep_form(&label, &digests)
        } else {
            line_name(&label)
        };
        if let (true, Some(hit)) = (self.printing.which, hit) {
            line.extend_from_slice(b" matches ");
            line.extend_from_slice(&line_name(self.known.name(hit).unwrap_or_default()));
        }
        line.push(b'\n');
        self.out.write_line(&line)
    }

    /// The known entry the file's digests are, if any; digests of which
    /// some are known and some not are no match, said on stderr.
    fn look_up(&mut self, digests: &FileDigests, shown: &str) -> Result<Option<Hit>, Failure> {
        let of_file: Vec<&[u8]> = digests.digests.iter().map(|d| d.as_bytes()).collect();
        Ok(match self.known.lookup(&of_file) {
            Lookup::Known(hit) => Some(hit),
            Lookup::Partial { known: of, unknown } => {
                let names = |hashes: &[usize]| {
                    let names: Vec<&str> = hashes
                        .iter()
                        .map(|&h| self.known.hashes()[h].algorithm.as_str())
                        .collect();
                    names.join(", ")
                };
                self.out.flush()?;
                errln!(
                    "hashlab: {shown}: its {} is a known entry's and its {} is not (a collision?): no match",
                    names(&of),
                    names(&unknown)
                );
                None
            }
            Lookup::Unknown => None,
        })
    }
}

/// A name as a line holds it: as it is, unless a newline (or a carriage
/// return at its end, which readers strip) would break the line; then
/// escaped as coreutils escapes names, the line starting with a backslash,
/// as `sum --format hashdeep` writes such a name.
fn line_name(name: &[u8]) -> Vec<u8> {
    if name.contains(&b'\n') || name.last() == Some(&b'\r') {
        let mut line = vec![b'\\'];
        line.extend_from_slice(&escape_name(name).0);
        line
    } else {
        name.to_vec()
    }
}

/// hashdeep's line of a file (size, each digest, name), without its newline.
fn hashdeep_form(name: &[u8], digests: &FileDigests) -> Vec<u8> {
    let hex: Vec<String> = digests.digests.iter().map(|d| d.to_hex()).collect();
    let hex: Vec<&str> = hex.iter().map(String::as_str).collect();
    let mut line = hashdeep_line(digests.bytes, &hex, name);
    line.pop();
    line
}

/// hashdeep's header above the lines of -M and -X: its columns (hashdeep's
/// names for its algorithms), where and how the command ran.
fn hashdeep_header(registry: &Registry, hashes: &[KnownHash]) -> Vec<u8> {
    let columns: Vec<String> = hashes
        .iter()
        .map(|h| {
            registry
                .algorithm(&h.algorithm)
                .ok()
                .and_then(|a| a.hashdeep_column.clone())
                .unwrap_or_else(|| h.algorithm.clone())
        })
        .collect();
    // A newline in the directory or an argument would end the comment line.
    let comment = |bytes: &[u8]| escape_name(bytes).0;
    let mut header = format!(
        "%%%% HASHDEEP-1.0\n%%%% size,{},filename\n## Invoked from: ",
        columns.join(",")
    )
    .into_bytes();
    if let Ok(cwd) = std::env::current_dir() {
        header.extend_from_slice(&comment(&name_bytes(&cwd)));
    }
    header.extend_from_slice(b"\n## $ ");
    let command: Vec<Vec<u8>> = std::env::args_os()
        .map(|a| comment(&name_bytes(Path::new(&a))))
        .collect();
    header.extend_from_slice(&command.join(&b' '));
    header.extend_from_slice(b"\n##\n");
    header
}
