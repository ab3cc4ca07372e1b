//! Each line's verdict as `check` prints it (`NAME: OK`, `NAME: FAILED`),
//! and what it says of a line it could not read or a file it could not
//! open, in the words of the tool it speaks as.

use hashlab_integrity::{verdict_line, LineResult, Outcome};

use crate::cli::CheckArgs;
use crate::failure::{io_message, Failure};
use crate::shared::quote;
use crate::stdio::{FileErrors, LineOutput};

pub(super) struct LineReporter<'a> {
    args: &'a CheckArgs,
    voice: FileErrors,
    shown: &'a str,
    /// The algorithm expected, as `SHA256 `, for --warn's messages.
    kind: String,
    out: LineOutput,
    /// The first failure to write: nothing more is written after it.
    write_error: Option<Failure>,
    /// Without -a or a telling name, coreutils' `cksum -c` names the
    /// algorithm of the last tagged line read.
    last_tag: Option<String>,
}

impl<'a> LineReporter<'a> {
    pub(super) fn new(
        args: &'a CheckArgs,
        voice: FileErrors,
        shown: &'a str,
        kind: String,
    ) -> Self {
        LineReporter {
            args,
            voice,
            shown,
            kind,
            out: LineOutput::new(),
            write_error: None,
            last_tag: None,
        }
    }

    pub(super) fn report(&mut self, r: &LineResult) {
        if self.write_error.is_some() {
            return;
        }
        if r.tagged.is_some() {
            self.last_tag.clone_from(&r.tagged);
        }
        // xxhsum reads each length as one xxHash variant: that a length's
        // reading was found is no news to its user, only that none matched.
        let quiet_settling = self.voice == FileErrors::Xxhsum
            && r.settlement.as_ref().is_some_and(|s| s.algorithm.is_some());
        if let (Some(settlement), false, false) = (&r.settlement, self.args.status, quiet_settling)
        {
            let _ = self.out.flush();
            errln!(
                "hashlab: {}: {}",
                self.shown,
                settlement.describe(r.line_number)
            );
        }
        let verdict = match &r.outcome {
            Outcome::Ok => (!self.args.quiet).then(|| "OK".to_string()),
            Outcome::Failed => Some("FAILED".to_string()),
            Outcome::Missing => None,
            Outcome::Unreadable(e) => self.unreadable(r, e),
            Outcome::Malformed => {
                self.malformed(r.line_number);
                None
            }
        };
        if let (Some(verdict), false) = (verdict, self.args.status) {
            self.write_verdict(&r.name, &verdict);
        }
    }

    /// The verdict of a listed file that could not be read, its error said
    /// as the voice says it.
    fn unreadable(&mut self, r: &LineResult, e: &std::io::Error) -> Option<String> {
        match self.voice {
            FileErrors::Coreutils => {
                let _ = self.out.flush();
                errln!("hashlab: {}: {}", quote(&r.name), io_message(e));
                Some("FAILED open or read".to_string())
            }
            FileErrors::Rust => Some(format!("FAILED ({e})")),
            FileErrors::Xxhsum => {
                let said = format!(
                    "{}:{}: Could not open or read '{}': {}.\n",
                    self.shown,
                    r.line_number,
                    String::from_utf8_lossy(&r.name),
                    io_message(e)
                );
                if !self.args.status {
                    if let Err(e) = self.out.write_line(said.as_bytes()) {
                        self.write_error = Some(e);
                    }
                }
                None
            }
        }
    }

    /// A line that is no checksum line, said where --warn (or b3sum) says so.
    fn malformed(&mut self, line_number: u64) {
        if self.voice == FileErrors::Xxhsum {
            if self.args.warn {
                let _ = self.out.flush();
                errln!(
                    "{}:{line_number}: Error: Improperly formatted checksum line.",
                    self.shown
                );
            }
            return;
        }
        // b3sum says so of every line it cannot read.
        if self.args.warn || self.voice == FileErrors::Rust {
            let _ = self.out.flush();
            let kind = match (&self.last_tag, self.kind.is_empty()) {
                (Some(tag), true) => format!("{tag} "),
                _ => self.kind.clone(),
            };
            errln!(
                "hashlab: {}: {line_number}: improperly formatted {kind}checksum line",
                self.shown
            );
        }
    }

    fn write_verdict(&mut self, name: &[u8], verdict: &str) {
        let line = verdict_line(name, verdict);
        match self.out.write_line(&line) {
            Ok(()) => {}
            // The checker cannot be stopped mid-manifest, and nothing of
            // ours needs cleaning up: end now, as coreutils does, rather
            // than hash every remaining file for nobody.
            Err(Failure::BrokenPipe) => crate::stdio::die_of_broken_pipe(),
            Err(e) => self.write_error = Some(e),
        }
    }

    /// The manifest's lines all reported: the first write error, if any,
    /// else what is written flushed.
    pub(super) fn finish(mut self) -> Result<(), Failure> {
        if let Some(e) = self.write_error {
            return Err(e);
        }
        self.out.flush()
    }
}
