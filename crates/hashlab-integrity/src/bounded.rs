//! Reading the lines of a file a user passes with a bound on each: a file
//! with no line ends (`/dev/zero`, a disk image given by mistake) would
//! otherwise grow one line until memory runs out. Every reader of lines
//! (`check`, `audit`, `sum --update`, `--files-from`, word lists) reads
//! through here, so they refuse such a file at the same point and say so
//! the same way.

use std::fmt;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// The longest line read, its end not counted: 16 times Linux's PATH_MAX.
/// A name of PATH_MAX bytes written with every byte escaped (JSON's
/// `\u00XX` is the widest, six bytes a byte) beside the longest digest in
/// hex and a tag takes under 25 KiB, so no line hashlab or the tools it
/// reads write comes near it.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// A line longer than the limit: where it starts and the limit it passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLong {
    /// 1-based, counting every line.
    pub line: u64,
    pub limit: usize,
}

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} is longer than {} bytes, the longest line hashlab reads (not a text file?)",
            self.line, self.limit
        )
    }
}

impl std::error::Error for TooLong {}

/// Why lines could not be read.
#[derive(Debug)]
pub enum LineError {
    Io(io::Error),
    TooLong(TooLong),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Io(e) => write!(f, "{}", crate::outfile::io_message(e)),
            LineError::TooLong(t) => write!(f, "{t}"),
        }
    }
}

impl std::error::Error for LineError {}

impl From<io::Error> for LineError {
    fn from(e: io::Error) -> LineError {
        LineError::Io(e)
    }
}

/// Lines (records ended by `end`) of a reader, one at a time, none longer
/// than the limit.
pub struct BoundedLines<R> {
    reader: R,
    end: u8,
    limit: usize,
    number: u64,
}

impl<R: BufRead> BoundedLines<R> {
    pub fn new(reader: R, end: u8) -> BoundedLines<R> {
        BoundedLines::with_limit(reader, end, MAX_LINE_BYTES)
    }

    pub fn with_limit(reader: R, end: u8, limit: usize) -> BoundedLines<R> {
        BoundedLines {
            reader,
            end,
            limit,
            number: 0,
        }
    }

    /// The number of the last line read (0 before the first).
    pub fn line_number(&self) -> u64 {
        self.number
    }

    /// Replaces `line` with the next line, its end kept when it has one;
    /// `false` at the end of the input. A line past the limit is an error
    /// as soon as the limit is passed, before the rest of it is read.
    pub fn next_into(&mut self, line: &mut Vec<u8>) -> Result<bool, LineError> {
        line.clear();
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(LineError::Io(e)),
            };
            if buf.is_empty() {
                if line.is_empty() {
                    return Ok(false);
                }
                self.number += 1;
                return Ok(true);
            }
            let (take, done) = match buf.iter().position(|b| *b == self.end) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            let content = take - usize::from(done);
            if line.len() + content > self.limit {
                return Err(LineError::TooLong(TooLong {
                    line: self.number + 1,
                    limit: self.limit,
                }));
            }
            line.extend_from_slice(&buf[..take]);
            self.reader.consume(take);
            if done {
                self.number += 1;
                return Ok(true);
            }
        }
    }
}

/// All of `reader`, refused as soon as one of its lines (ended by `end`)
/// passes [`MAX_LINE_BYTES`]: for the readers that need a whole manifest
/// or list at once.
pub fn read_to_end(reader: impl Read, end: u8) -> Result<Vec<u8>, LineError> {
    read_to_end_with_limit(reader, end, MAX_LINE_BYTES)
}

/// [`read_to_end`] of the file at `path`.
pub fn read_file(path: &Path, end: u8) -> Result<Vec<u8>, LineError> {
    read_to_end(std::fs::File::open(path)?, end)
}

pub fn read_to_end_with_limit(
    mut reader: impl Read,
    end: u8,
    limit: usize,
) -> Result<Vec<u8>, LineError> {
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    // Bytes of the line under way, and lines ended before it.
    let mut run = 0usize;
    let mut ended = 0u64;
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(out),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(LineError::Io(e)),
        };
        let read = &chunk[..n];
        let mut start = 0;
        for i in read
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == end)
            .map(|(i, _)| i)
        {
            if run + (i - start) > limit {
                break;
            }
            run = 0;
            ended += 1;
            start = i + 1;
        }
        run += n - start;
        if run > limit {
            return Err(LineError::TooLong(TooLong {
                line: ended + 1,
                limit,
            }));
        }
        out.extend_from_slice(read);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Result<Vec<Vec<u8>>, LineError> {
        let mut reader =
            BoundedLines::with_limit(io::BufReader::with_capacity(3, input), b'\n', limit);
        let mut out = Vec::new();
        let mut line = Vec::new();
        while reader.next_into(&mut line)? {
            out.push(line.clone());
        }
        Ok(out)
    }

    #[test]
    fn lines_up_to_the_limit_are_read_whole_with_their_ends() {
        let got = lines(b"abcd\n\nxyz\nlast", 4).unwrap();
        assert_eq!(got, [&b"abcd\n"[..], b"\n", b"xyz\n", b"last"]);
        assert_eq!(
            read_to_end_with_limit(&b"abcd\n\nxyz\nlast"[..], b'\n', 4).unwrap(),
            b"abcd\n\nxyz\nlast"
        );
    }

    #[test]
    fn a_longer_line_is_refused_with_its_number() {
        for input in [&b"ab\nabcde\nx\n"[..], b"ab\nabcde", b"ab\nabcde\n"] {
            match lines(input, 4) {
                Err(LineError::TooLong(t)) => assert_eq!(t, TooLong { line: 2, limit: 4 }),
                other => panic!("{other:?}"),
            }
            match read_to_end_with_limit(input, b'\n', 4) {
                Err(LineError::TooLong(t)) => assert_eq!(t, TooLong { line: 2, limit: 4 }),
                other => panic!("{other:?}"),
            }
        }
        let e = LineError::TooLong(TooLong {
            line: 7,
            limit: 65536,
        });
        assert_eq!(
            e.to_string(),
            "line 7 is longer than 65536 bytes, the longest line hashlab reads (not a text file?)"
        );
    }

    #[test]
    fn an_endless_line_is_refused_after_reading_about_the_limit() {
        // io::repeat never ends: only the bound stops these.
        let mut reader = BoundedLines::new(io::BufReader::new(io::repeat(0)), b'\n');
        let mut line = Vec::new();
        assert!(matches!(
            reader.next_into(&mut line),
            Err(LineError::TooLong(TooLong { line: 1, .. }))
        ));
        assert!(line.capacity() <= 2 * MAX_LINE_BYTES + 8192);
        assert!(matches!(
            read_to_end(io::repeat(b'x'), b'\n'),
            Err(LineError::TooLong(TooLong { line: 1, .. }))
        ));
    }

    #[test]
    fn lines_split_across_reads_are_counted_once() {
        // A reader handing out one byte at a time splits every line.
        struct OneByOne<'a>(&'a [u8]);
        impl Read for OneByOne<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let Some((first, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                buf[0] = *first;
                self.0 = rest;
                Ok(1)
            }
        }
        let input = b"abcd\nabcd\nabcdef\n";
        match read_to_end_with_limit(OneByOne(input), b'\n', 4) {
            Err(LineError::TooLong(t)) => assert_eq!(t.line, 3),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            read_to_end_with_limit(OneByOne(input), b'\n', 6).unwrap(),
            input
        );
        let mut nul = BoundedLines::with_limit(&b"ab\0\0c"[..], b'\0', 2);
        let mut line = Vec::new();
        let mut got = Vec::new();
        while nul.next_into(&mut line).unwrap() {
            got.push(line.clone());
        }
        assert_eq!(got, [&b"ab\0"[..], b"\0", b"c"]);
        assert_eq!(nul.line_number(), 3);
    }
}
