//! The keys of the hash-table workload: a word list, one word per line.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where Debian's `wamerican` and most Unix systems keep their word list.
pub const SYSTEM_WORDS: &str = "/usr/share/dict/words";

/// Distinct words of a file, in file order: empty lines and repeats left out
/// (a repeat would be a lookup, not an insert), a trailing `\r` dropped.
#[derive(Clone)]
pub struct WordList {
    path: PathBuf,
    /// The words end to end.
    bytes: Arc<Vec<u8>>,
    /// (start, length) of each word in `bytes`.
    spans: Arc<Vec<(usize, usize)>>,
}

impl fmt::Debug for WordList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WordList")
            .field("path", &self.path)
            .field("words", &self.len())
            .finish()
    }
}

#[derive(Debug)]
pub enum WordListError {
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    Empty {
        path: PathBuf,
    },
    TooMany {
        path: PathBuf,
    },
    /// A bound of the line reader passed (a line longer than any word, an
    /// endless run of empty lines): a file that is not a word list.
    NotAList {
        path: PathBuf,
        error: hashlab_integrity::bounded::LineError,
    },
}

impl fmt::Display for WordListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WordListError::Read { path, error } => write!(f, "{}: {error}", path.display()),
            WordListError::NotAList { path, error } => write!(f, "{}: {error}", path.display()),
            WordListError::Empty { path } => {
                write!(f, "{}: no words (one word per line)", path.display())
            }
            WordListError::TooMany { path } => write!(
                f,
                "{}: more than {} words",
                path.display(),
                WordList::MAX_WORDS
            ),
        }
    }
}

impl std::error::Error for WordListError {}

impl WordList {
    /// Table entries are 32-bit word numbers.
    pub const MAX_WORDS: usize = u32::MAX as usize;

    pub fn read(path: &Path) -> Result<WordList, WordListError> {
        use hashlab_integrity::bounded::LineError;
        let text = hashlab_integrity::bounded::read_file(path, b'\n').map_err(|e| match e {
            LineError::Io(error) => WordListError::Read {
                path: path.to_path_buf(),
                error,
            },
            error => WordListError::NotAList {
                path: path.to_path_buf(),
                error,
            },
        })?;
        WordList::from_bytes(path, &text)
    }

    /// The words of `text` (what [`WordList::read`] found in `path`).
    pub fn from_bytes(path: &Path, text: &[u8]) -> Result<WordList, WordListError> {
        let mut seen = std::collections::HashSet::new();
        let mut bytes = Vec::new();
        let mut spans = Vec::new();
        for line in text.split(|&b| b == b'\n') {
            let word = line.strip_suffix(b"\r").unwrap_or(line);
            if word.is_empty() || !seen.insert(word) {
                continue;
            }
            spans.push((bytes.len(), word.len()));
            bytes.extend_from_slice(word);
        }
        if spans.is_empty() {
            return Err(WordListError::Empty {
                path: path.to_path_buf(),
            });
        }
        if spans.len() > Self::MAX_WORDS {
            return Err(WordListError::TooMany {
                path: path.to_path_buf(),
            });
        }
        Ok(WordList {
            path: path.to_path_buf(),
            bytes: Arc::new(bytes),
            spans: Arc::new(spans),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The bytes of all words together.
    pub fn total_bytes(&self) -> usize {
        self.bytes.len()
    }

    pub fn word(&self, index: usize) -> &[u8] {
        let (start, len) = self.spans[index];
        &self.bytes[start..start + len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_distinct_lines_without_line_ends() {
        let list =
            WordList::from_bytes(Path::new("w"), b"apple\r\nbanana\n\napple\ncherry").unwrap();
        let words: Vec<&[u8]> = (0..list.len()).map(|i| list.word(i)).collect();
        assert_eq!(words, [&b"apple"[..], b"banana", b"cherry"]);
        assert_eq!(list.total_bytes(), 17);
    }

    #[test]
    fn an_empty_or_missing_list_is_an_error_naming_the_file() {
        let empty = WordList::from_bytes(Path::new("/x/empty"), b"\n\r\n").unwrap_err();
        assert_eq!(empty.to_string(), "/x/empty: no words (one word per line)");
        let missing = WordList::read(Path::new("/nonexistent/words")).unwrap_err();
        assert!(
            missing.to_string().starts_with("/nonexistent/words: "),
            "{missing}"
        );
    }
}
