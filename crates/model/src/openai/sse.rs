//! A decoder for server-sent events: just enough of the HTML standard's event stream format
//! for Chat Completions streams (`data:` fields, comments, CRLF or LF line ends).

/// Turns the bytes of a stream into the `data` of its events.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    line: Vec<u8>,
    data: Option<String>,
}

impl SseDecoder {
    /// Feeds a piece of the stream and returns the data of each event it completed.
    /// Events and lines may be split anywhere across pieces.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &byte in bytes {
            if byte != b'\n' {
                self.line.push(byte);
                continue;
            }
            if self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
            let line = String::from_utf8_lossy(&self.line).into_owned();
            self.line.clear();
            self.line_done(&line, &mut events);
        }
        events
    }

    /// Dispatches what is left when the stream ends without a final blank line.
    pub(crate) fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            let line = String::from_utf8_lossy(&self.line).into_owned();
            self.line.clear();
            self.line_done(&line, &mut events);
        }
        events.extend(self.data.take());
        events
    }

    fn line_done(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            events.extend(self.data.take());
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        // `event`, `id` and `retry` carry nothing Chat Completions streams use.
        if field == "data" {
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SseDecoder;

    fn check(pieces: &[&str], expected: &[&str]) {
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        for piece in pieces {
            events.extend(decoder.feed(piece.as_bytes()));
        }
        events.extend(decoder.finish());
        assert_eq!(events, expected);
    }

    #[test]
    fn events_split_across_pieces() {
        check(
            &["da", "ta: {\"a\"", ":1}\n", "\ndata: [DONE]\n\n"],
            &["{\"a\":1}", "[DONE]"],
        );
    }

    #[test]
    fn crlf_comments_and_other_fields() {
        check(
            &[": keep-alive\r\n\r\nevent: message\r\ndata:x\r\nid: 3\r\n\r\n"],
            &["x"],
        );
    }

    #[test]
    fn multi_line_data_is_joined() {
        check(&["data: a\ndata: b\n\n"], &["a\nb"]);
    }

    #[test]
    fn unterminated_last_event_is_dispatched_at_the_end() {
        check(&["data: [DONE]"], &["[DONE]"]);
    }

    #[test]
    fn blank_lines_without_data_dispatch_nothing() {
        check(&["\n\n\r\n"], &[]);
    }
}
