//! Reading the lines of a file a user passes with a bound on each: a file
//! with no line ends (`/dev/zero`, a disk image given by mistake) would
//! otherwise grow one line until memory runs out. Every reader of lines
//! (`check`, `audit`, `sum --update`, `--files-from`, word lists) reads
//! through here, so they refuse such a file at the same point and say so
//! the same way.
//!
//! Two more bounds close what a line bound leaves open: a run of empty
//! records (`/dev/zero` read with `-z` is nothing else, forever), and the
//! whole of what is read at once from something that is not a regular file
//! (a pipe or a device may never end; a regular file is as large as it is).

use std::fmt;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// The longest line read, its end not counted: 16 times Linux's PATH_MAX.
/// A name of PATH_MAX bytes written with every byte escaped (JSON's
/// `\u00XX` is the widest, six bytes a byte) beside the longest digest in
/// hex and a tag takes under 25 KiB, so no line hashlab or the tools it
/// reads write comes near it.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The most empty lines in a row: a manifest or a list has a few at most,
/// and an endless run of them (`/dev/zero` read with `-z`) is not one.
pub const MAX_BLANK_RUN: u64 = 65_536;

/// The most bytes read whole from a pipe, a device or standard input. A
/// regular file may be as large as it is (plus this much, should it grow
/// while read).
pub const MAX_STREAM_BYTES: u64 = 1 << 30;

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
    /// [`MAX_BLANK_RUN`] empty lines in a row, the last of them this one.
    Blank {
        line: u64,
    },
    /// More than this many bytes from something that is not a regular file.
    Endless {
        limit: u64,
    },
    /// A document read as JSON that does not start as JSON does.
    NotJson,
    /// A document read as text that holds a NUL byte.
    NotText,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Io(e) => write!(f, "{}", crate::outfile::io_message(e)),
            LineError::TooLong(t) => write!(f, "{t}"),
            LineError::Blank { line } => write!(
                f,
                "line {line} ends a run of {MAX_BLANK_RUN} empty lines (not a list of files?)"
            ),
            LineError::Endless { limit } => write!(
                f,
                "more than {} MiB from a pipe or device, the most hashlab reads whole from one (save it to a file first)",
                limit >> 20
            ),
            LineError::NotText => write!(f, "not a text file (it holds a NUL byte)"),
            LineError::NotJson => write!(f, "not a JSON document (it does not start with {{ or [)"),
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
    blank_run: u64,
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
            blank_run: 0,
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
                self.blank_run = if line.len() == 1 {
                    self.blank_run + 1
                } else {
                    0
                };
                if self.blank_run >= MAX_BLANK_RUN {
                    return Err(LineError::Blank { line: self.number });
                }
                return Ok(true);
            }
        }
    }
}

/// All of `reader` (a pipe, standard input), refused as soon as one of its
/// lines (ended by `end`) passes [`MAX_LINE_BYTES`], [`MAX_BLANK_RUN`] of
/// them in a row are empty, or the whole passes [`MAX_STREAM_BYTES`]: for
/// the readers that need a whole manifest or list at once.
pub fn read_to_end(reader: impl Read, end: u8) -> Result<Vec<u8>, LineError> {
    read_bounded(reader, end, MAX_LINE_BYTES, MAX_STREAM_BYTES)
}

/// [`read_to_end`] of the file at `path`; a regular file is read whatever
/// its size.
pub fn read_file(path: &Path, end: u8) -> Result<Vec<u8>, LineError> {
    let file = std::fs::File::open(path)?;
    let total = whole_bound(&file.metadata()?);
    read_bounded(file, end, MAX_LINE_BYTES, total)
}

/// How much of a file may be read whole: a regular file as large as it is
/// (and as much again as a stream, should it grow while read), anything
/// else as much as a stream.
pub fn whole_bound(meta: &std::fs::Metadata) -> u64 {
    if meta.is_file() {
        meta.len().saturating_add(MAX_STREAM_BYTES)
    } else {
        MAX_STREAM_BYTES
    }
}

/// [`read_to_end`] with `total` in place of [`MAX_STREAM_BYTES`], for a
/// reader of a regular file whose size the caller knows.
pub fn read_to_end_within(reader: impl Read, end: u8, total: u64) -> Result<Vec<u8>, LineError> {
    read_bounded(reader, end, MAX_LINE_BYTES, total)
}

/// All of the text document at `path` (a report's CSV or JSON, whose lines
/// may be long), bounded in its whole as [`read_json`] is; a NUL byte, which
/// no text holds, is refused where it is met.
pub fn read_text(path: &Path) -> Result<Vec<u8>, LineError> {
    let mut file = std::fs::File::open(path)?;
    let total = whole_bound(&file.metadata()?);
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => return Ok(out),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(LineError::Io(e)),
        };
        if chunk[..n].contains(&0) {
            return Err(LineError::NotText);
        }
        if (out.len() + n) as u64 > total {
            return Err(LineError::Endless { limit: total });
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

/// All of the JSON document at `path` (a results file), bounded only in its
/// whole: a regular file as large as it is, anything else to
/// [`MAX_STREAM_BYTES`]. What does not open as JSON does (`{` or `[` after
/// white space) is refused at its first byte, not read whole first: a
/// device of zeros given by mistake costs nothing.
pub fn read_json(path: &Path) -> Result<Vec<u8>, LineError> {
    let file = std::fs::File::open(path)?;
    let total = whole_bound(&file.metadata()?);
    let mut reader = io::BufReader::new(file);
    let mut skipped = 0u64;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(LineError::Io(e)),
        };
        if buf.is_empty() {
            return Ok(Vec::new());
        }
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) if matches!(buf[i], b'{' | b'[') => break,
            Some(_) => return Err(LineError::NotJson),
            None => {
                let n = buf.len();
                reader.consume(n);
                skipped += n as u64;
                if skipped > total {
                    return Err(LineError::Endless { limit: total });
                }
            }
        }
    }
    // Lines of any length: a document is not read as lines.
    read_bounded(reader, b'\n', usize::MAX, total.saturating_sub(skipped))
}

pub fn read_to_end_with_limit(
    reader: impl Read,
    end: u8,
    limit: usize,
) -> Result<Vec<u8>, LineError> {
    read_bounded(reader, end, limit, MAX_STREAM_BYTES)
}

fn read_bounded(
    mut reader: impl Read,
    end: u8,
    limit: usize,
    total: u64,
) -> Result<Vec<u8>, LineError> {
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    // Bytes of the line under way, lines ended before it, and how many of
    // the last of those were empty.
    let mut run = 0usize;
    let mut ended = 0u64;
    let mut blank_run = 0u64;
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
            blank_run = if run + (i - start) == 0 {
                blank_run + 1
            } else {
                0
            };
            run = 0;
            ended += 1;
            start = i + 1;
            if blank_run >= MAX_BLANK_RUN {
                return Err(LineError::Blank { line: ended });
            }
        }
        run += n - start;
        if run > limit {
            return Err(LineError::TooLong(TooLong {
                line: ended + 1,
                limit,
            }));
        }
        if (out.len() + n) as u64 > total {
            return Err(LineError::Endless { limit: total });
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
    fn an_endless_run_of_empty_lines_is_refused() {
        let mut reader = BoundedLines::new(io::BufReader::new(io::repeat(0)), b'\0');
        let mut line = Vec::new();
        let mut read = 0u64;
        let error = loop {
            match reader.next_into(&mut line) {
                Ok(true) => read += 1,
                Ok(false) => panic!("io::repeat ended"),
                Err(e) => break e,
            }
        };
        assert_eq!(read, MAX_BLANK_RUN - 1);
        assert!(matches!(error, LineError::Blank { line } if line == MAX_BLANK_RUN));
        assert!(matches!(
            read_to_end(io::repeat(0), b'\0'),
            Err(LineError::Blank { line }) if line == MAX_BLANK_RUN
        ));
        // Fewer in a row, and empty lines between others, are lines.
        let mut input = vec![b'\n'; MAX_BLANK_RUN as usize - 1];
        input.extend_from_slice(b"x\n");
        input.extend(vec![b'\n'; MAX_BLANK_RUN as usize - 1]);
        assert_eq!(read_to_end(&input[..], b'\n').unwrap(), input);
        assert_eq!(lines(&input, 4).unwrap().len(), input.len() - 1);
    }

    #[test]
    fn what_is_read_whole_from_a_stream_is_bounded() {
        let input = b"ab\ncd\nef\n";
        assert!(matches!(
            read_bounded(&input[..], b'\n', 4, 6),
            Err(LineError::Endless { limit: 6 })
        ));
        assert_eq!(read_bounded(&input[..], b'\n', 4, 9).unwrap(), input);
        assert_eq!(
            LineError::Endless { limit: MAX_STREAM_BYTES }.to_string(),
            "more than 1024 MiB from a pipe or device, the most hashlab reads whole from one (save it to a file first)"
        );
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
