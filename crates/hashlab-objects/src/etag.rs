//! An object's ETag held to the bytes read: the MD5 it records (of the
//! content, or of a multipart upload's parts), computed as the bytes go by,
//! and the verdicts over a run.

use hashlab::Registry;

use crate::stored;

/// What an ETag says about the MD5 of an object's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EtagVerdict {
    /// The ETag equals the MD5 of the bytes read, or for a multipart upload
    /// the MD5 of its parts' MD5s (`-N`), the parts' sizes asked of the store.
    Matches,
    /// It differs: the value computed from the bytes read, and the ETag.
    Differs { computed: String, e_tag: String },
    /// Nothing to compare with: no ETag, one that is not an MD5 (Azure's
    /// and GCS's are versions, S3's under SSE-KMS random), or a multipart
    /// ETag whose parts' sizes the store did not give.
    NotComparable { reason: String },
}

impl EtagVerdict {
    /// The verdict for what the ETag `expected` computes to (`computed`:
    /// [`stored::Reproducer::finish`]'s value).
    pub fn judge(
        expected: &stored::Expectation,
        computed: Result<Vec<u8>, stored::Unreadable>,
        e_tag: &str,
    ) -> EtagVerdict {
        match computed {
            Ok(value) if value == expected.digest => EtagVerdict::Matches,
            Ok(value) => EtagVerdict::Differs {
                computed: expected.shown(&value),
                e_tag: e_tag.to_string(),
            },
            Err(reason) => EtagVerdict::Differs {
                computed: reason,
                e_tag: e_tag.to_string(),
            },
        }
    }

    /// One line for a person: "matches", "not comparable (...)"...
    pub fn describe(&self) -> String {
        match self {
            EtagVerdict::Matches => "ETag matches the MD5 of the content".into(),
            EtagVerdict::Differs { computed, e_tag } => {
                format!("ETag MISMATCH: the content gives {computed}, the ETag is {e_tag}")
            }
            EtagVerdict::NotComparable { reason } => format!("ETag not comparable ({reason})"),
        }
    }
}

/// The check of one object's ETag while its bytes are read.
pub(crate) enum EtagCheck {
    Computing {
        reproducer: stored::Reproducer,
        e_tag: String,
    },
    Verdict(EtagVerdict),
}

impl EtagCheck {
    /// For an object whose ETag is `e_tag` and whose parts (of a multipart
    /// upload) have `part_sizes`, where the store gave them.
    pub(crate) fn new(
        registry: &Registry,
        e_tag: Option<&str>,
        part_sizes: Option<&[u64]>,
    ) -> EtagCheck {
        let Some(e_tag) = e_tag else {
            return EtagCheck::Verdict(EtagVerdict::NotComparable {
                reason: "the store gave none".into(),
            });
        };
        let expectation = match stored::etag_expectation(e_tag, part_sizes) {
            Ok(expectation) => expectation,
            Err(reason) => return EtagCheck::Verdict(EtagVerdict::NotComparable { reason }),
        };
        match stored::Reproducer::new(registry, vec![expectation]) {
            Ok(reproducer) => EtagCheck::Computing {
                reproducer,
                e_tag: e_tag.to_string(),
            },
            Err(e) => EtagCheck::Verdict(EtagVerdict::NotComparable {
                reason: e.to_string(),
            }),
        }
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        if let EtagCheck::Computing { reproducer, .. } = self {
            reproducer.update(data);
        }
    }

    pub(crate) fn finish(self) -> EtagVerdict {
        match self {
            EtagCheck::Verdict(verdict) => verdict,
            EtagCheck::Computing { reproducer, e_tag } => {
                let expected = reproducer.expectations()[0].clone();
                let computed = reproducer.finish().remove(0);
                EtagVerdict::judge(&expected, computed, &e_tag)
            }
        }
    }
}

/// Counts of ETag verdicts over a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EtagSummary {
    pub matched: u64,
    pub mismatched: u64,
    pub not_comparable: u64,
}

impl EtagSummary {
    pub fn add(&mut self, verdict: &EtagVerdict) {
        match verdict {
            EtagVerdict::Matches => self.matched += 1,
            EtagVerdict::Differs { .. } => self.mismatched += 1,
            EtagVerdict::NotComparable { .. } => self.not_comparable += 1,
        }
    }

    /// Every comparable ETag matched.
    pub fn passed(&self) -> bool {
        self.mismatched == 0
    }

    pub fn describe(&self) -> String {
        format!(
            "{} matched, {} MISMATCHED, {} not comparable",
            self.matched, self.mismatched, self.not_comparable
        )
    }
}
