//! Reading a log's lines backwards from its end, so that appending and `tail` cost
//! the same on a log of any size.

use std::io::{self, Read, Seek, SeekFrom};

const CHUNK: u64 = 64 * 1024;

/// One line read from the end of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawLine {
    /// The line's bytes, without its newline.
    pub bytes: Vec<u8>,
    /// False only for a last line that has no trailing newline: a torn write.
    pub terminated: bool,
}

/// Yields the lines of the first `len` bytes of a file, last line first.
#[derive(Debug)]
pub struct RevLines<'a, R> {
    reader: &'a mut R,
    /// Start of the part of the file not yet read into `pending`.
    pos: u64,
    /// Bytes read but not yet yielded: the end of the current line, in file order.
    pending: Vec<u8>,
    /// Whether the next line yielded is the file's last one and has no newline.
    last_is_torn: bool,
    done: bool,
}

impl<'a, R: Read + Seek> RevLines<'a, R> {
    /// Starts at byte `len`, which must be the file's length (or a line end).
    pub fn new(reader: &'a mut R, len: u64) -> io::Result<RevLines<'a, R>> {
        let mut lines = RevLines {
            reader,
            pos: len,
            pending: Vec::new(),
            last_is_torn: false,
            done: len == 0,
        };
        if len > 0 {
            lines.read_chunk()?;
            if lines.pending.last() == Some(&b'\n') {
                lines.pending.pop();
            } else {
                lines.last_is_torn = true;
            }
        }
        Ok(lines)
    }

    /// Reads the chunk before `pos` and puts it in front of `pending`.
    fn read_chunk(&mut self) -> io::Result<()> {
        let start = self.pos.saturating_sub(CHUNK);
        let size = usize::try_from(self.pos - start).unwrap_or(usize::MAX);
        let mut chunk = vec![0; size];
        self.reader.seek(SeekFrom::Start(start))?;
        self.reader.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&self.pending);
        self.pending = chunk;
        self.pos = start;
        Ok(())
    }

    /// The next line towards the start of the file, or `None` at the start.
    pub fn next_line(&mut self) -> io::Result<Option<RawLine>> {
        if self.done {
            return Ok(None);
        }
        loop {
            if let Some(i) = self.pending.iter().rposition(|&b| b == b'\n') {
                let bytes = self.pending.split_off(i + 1);
                self.pending.pop();
                return Ok(Some(self.line(bytes)));
            }
            if self.pos == 0 {
                self.done = true;
                let bytes = std::mem::take(&mut self.pending);
                return Ok(Some(self.line(bytes)));
            }
            self.read_chunk()?;
        }
    }

    fn line(&mut self, bytes: Vec<u8>) -> RawLine {
        let terminated = !std::mem::take(&mut self.last_is_torn);
        RawLine { bytes, terminated }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn lines(data: &[u8]) -> Vec<(String, bool)> {
        let mut cursor = Cursor::new(data.to_vec());
        let mut rev = RevLines::new(&mut cursor, data.len() as u64).expect("open");
        let mut out = Vec::new();
        while let Some(line) = rev.next_line().expect("read") {
            out.push((
                String::from_utf8_lossy(&line.bytes).into_owned(),
                line.terminated,
            ));
        }
        out
    }

    #[test]
    fn yields_lines_from_the_end() {
        let s = |x: &str| x.to_string();
        assert_eq!(lines(b""), vec![]);
        assert_eq!(lines(b"a\n"), vec![(s("a"), true)]);
        assert_eq!(lines(b"a\nb\n"), vec![(s("b"), true), (s("a"), true)]);
        assert_eq!(lines(b"a\nb"), vec![(s("b"), false), (s("a"), true)]);
        assert_eq!(lines(b"\n"), vec![(s(""), true)]);
        assert_eq!(
            lines(b"a\n\nb\n"),
            vec![(s("b"), true), (s(""), true), (s("a"), true)]
        );
    }

    #[test]
    fn lines_longer_than_a_chunk_are_whole() {
        let long = "x".repeat(200_000);
        let data = format!("first\n{long}\nlast");
        let got = lines(data.as_bytes());
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], ("last".to_string(), false));
        assert_eq!(got[1], (long, true));
        assert_eq!(got[2], ("first".to_string(), true));
    }
}
