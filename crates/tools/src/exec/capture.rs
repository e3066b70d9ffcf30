//! Bounded capture of a command's output: the head and the tail are kept, the middle dropped,
//! because the first lines (the first compiler error) and the last lines (the summary, the exit
//! reason) are what matter.

use std::collections::VecDeque;

use warden_redact::RedactStream;

/// Output kept within a byte budget.
#[derive(Debug)]
pub(crate) struct Capture {
    head: Vec<u8>,
    head_max: usize,
    tail: VecDeque<u8>,
    tail_max: usize,
    dropped: u64,
    /// Known secrets are replaced as the bytes arrive, before head and tail are cut.
    redact: RedactStream,
}

impl Capture {
    /// A capture keeping at most `max` bytes: half from the start, half from the end.
    pub(crate) fn new(max: usize, redact: RedactStream) -> Self {
        let head_max = max / 2;
        Capture {
            head: Vec::new(),
            head_max,
            tail: VecDeque::new(),
            tail_max: max - head_max,
            dropped: 0,
            redact,
        }
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let redacted = self.redact.push(bytes);
        self.keep(&redacted);
    }

    fn keep(&mut self, mut bytes: &[u8]) {
        let room = self.head_max - self.head.len();
        if room > 0 {
            let take = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.len() >= self.tail_max {
            self.dropped += (self.tail.len() + bytes.len() - self.tail_max) as u64;
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_max..]);
            return;
        }
        let over = (self.tail.len() + bytes.len()).saturating_sub(self.tail_max);
        self.tail.drain(..over);
        self.dropped += over as u64;
        self.tail.extend(bytes);
    }

    /// The kept text (invalid UTF-8 replaced) and whether bytes were dropped.
    pub(crate) fn finish(&mut self) -> (String, bool) {
        let rest = self.redact.finish();
        self.keep(&rest);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        if self.dropped == 0 {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return (String::from_utf8_lossy(&all).into_owned(), false);
        }
        let text = format!(
            "{}\n[... {} bytes of output omitted ...]\n{}",
            String::from_utf8_lossy(&self.head),
            self.dropped,
            String::from_utf8_lossy(&tail)
        );
        (text, true)
    }
}

#[cfg(test)]
mod tests {
    use warden_redact::{KnownSecrets, RedactStream};

    use super::Capture;

    fn check(max: usize, chunks: &[&str], expect: (&str, bool)) {
        check_with(KnownSecrets::default().stream(), max, chunks, expect);
    }

    fn check_with(redact: RedactStream, max: usize, chunks: &[&str], expect: (&str, bool)) {
        let mut capture = Capture::new(max, redact);
        for chunk in chunks {
            capture.push(chunk.as_bytes());
        }
        let (text, truncated) = capture.finish();
        assert_eq!((text.as_str(), truncated), expect, "{chunks:?}");
    }

    #[test]
    fn keeps_head_and_tail_within_the_budget() {
        check(8, &["abc"], ("abc", false));
        check(8, &["abcdefgh"], ("abcdefgh", false));
        check(
            8,
            &["abcdefghi"],
            ("abcd\n[... 1 bytes of output omitted ...]\nfghi", true),
        );
        check(
            8,
            &["ab", "cd", "ef", "gh", "ij", "kl"],
            ("abcd\n[... 4 bytes of output omitted ...]\nijkl", true),
        );
        check(
            8,
            &["abcd", "0123456789"],
            ("abcd\n[... 6 bytes of output omitted ...]\n6789", true),
        );
        check(
            0,
            &["abc"],
            ("\n[... 3 bytes of output omitted ...]\n", true),
        );
    }

    /// Regression: a secret cut in two by the gap between head and tail would leave
    /// its halves in the output, out of reach of any later redaction.
    #[test]
    fn a_secret_across_the_gap_is_redacted_before_the_cut() {
        let secrets = KnownSecrets::new([("K_TOKEN", "0123456789")]);
        check_with(
            secrets.stream(),
            20,
            &["abcdefgh01234", "56789", "xxxxxxxxxxxxxxxxxxxxxx"],
            (
                "abcdefgh[r\n[... 29 bytes of output omitted ...]\nxxxxxxxxxx",
                true,
            ),
        );
        check_with(
            secrets.stream(),
            64,
            &["a 01234", "56789 b"],
            ("a [redacted: K_TOKEN] b", false),
        );
    }
}
