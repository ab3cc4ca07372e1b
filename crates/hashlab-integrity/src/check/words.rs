//! What a check says beyond its counts, as coreutils words it: each line's
//! `NAME: VERDICT`, how an untagged digest length was read, and the
//! problems counted after a manifest.

use super::Summary;
use crate::ambiguity::Settlement;
use crate::manifest::display_name;

/// `NAME: VERDICT`, newline-ended, the name escaped as `check` escapes it
/// (a leading backslash marks the line where it was).
pub fn verdict_line(name: &[u8], verdict: &str) -> Vec<u8> {
    let (name, escaped) = display_name(name);
    let mut line = Vec::with_capacity(name.len() + 24);
    if escaped {
        line.push(b'\\');
    }
    line.extend_from_slice(&name);
    line.extend_from_slice(b": ");
    line.extend_from_slice(verdict.as_bytes());
    line.push(b'\n');
    line
}

impl Settlement {
    /// What trying this length's candidates found, from the line numbered
    /// `line_number`: the algorithm now reading the manifest's lines of that
    /// length (and, where it has no security claim, the ones that did not
    /// match), or that none matched the line's file.
    pub fn describe(&self, line_number: u64) -> String {
        match &self.algorithm {
            Some(algorithm) => {
                let passed_over = &self.tried[..self.tried.len().saturating_sub(1)];
                let fall = if self.below_cryptographic {
                    format!(
                        " (no security claim: {} did not match)",
                        passed_over.join(", ")
                    )
                } else {
                    String::new()
                };
                format!(
                    "read as {algorithm}{fall}: the lines' length and the first file; give -a to choose"
                )
            }
            None => format!(
                "{line_number}: no algorithm of a {}-byte digest matched the file (tried {}); give -a to choose",
                self.bytes,
                self.tried.join(", ")
            ),
        }
    }
}

/// One kind of problem a manifest's check counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProblemCount {
    pub count: u64,
    /// `line is improperly formatted`: the words after a count of one.
    pub one: &'static str,
    /// `lines are improperly formatted`: after any other count.
    pub many: &'static str,
}

impl ProblemCount {
    /// `3 lines are improperly formatted`.
    pub fn words(&self) -> String {
        let words = if self.count == 1 { self.one } else { self.many };
        format!("{} {words}", self.count)
    }
}

impl Summary {
    /// What went wrong, as coreutils and xxhsum count it after a manifest:
    /// malformed lines, unreadable files, mismatches, those that happened.
    pub fn problems(&self) -> Vec<ProblemCount> {
        let count = |count, one, many| ProblemCount { count, one, many };
        [
            count(
                self.malformed,
                "line is improperly formatted",
                "lines are improperly formatted",
            ),
            count(
                self.unreadable,
                "listed file could not be read",
                "listed files could not be read",
            ),
            count(
                self.mismatched,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            ),
        ]
        .into_iter()
        .filter(|p| p.count > 0)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_counted_in_coreutils_words_and_order() {
        let summary = Summary {
            malformed: 1,
            mismatched: 2,
            ..Summary::default()
        };
        let said: Vec<String> = summary.problems().iter().map(ProblemCount::words).collect();
        assert_eq!(
            said,
            [
                "1 line is improperly formatted",
                "2 computed checksums did NOT match"
            ]
        );
        assert!(Summary::default().problems().is_empty());
    }

    #[test]
    fn a_name_with_a_newline_marks_its_verdict_line() {
        assert_eq!(verdict_line(b"a", "OK"), b"a: OK\n");
        assert_eq!(verdict_line(b"a\nb", "FAILED"), b"\\a\\nb: FAILED\n");
    }

    #[test]
    fn a_settlement_says_what_read_the_length_or_that_nothing_did() {
        let mut settled = Settlement {
            bytes: 4,
            algorithm: Some("crc32".into()),
            tried: vec!["fnv1a32".into(), "crc32".into()],
            below_cryptographic: true,
        };
        assert_eq!(
            settled.describe(3),
            "read as crc32 (no security claim: fnv1a32 did not match): the lines' length and the first file; give -a to choose"
        );
        settled.algorithm = None;
        assert_eq!(
            settled.describe(3),
            "3: no algorithm of a 4-byte digest matched the file (tried fnv1a32, crc32); give -a to choose"
        );
    }
}
