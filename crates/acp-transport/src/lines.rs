//! The line layer under the SDK: reads stdin with a size limit and backpressure, and
//! writes the SDK's outgoing lines.
//!
//! The SDK queues incoming lines on an unbounded channel, so a client that sends
//! 100,000 requests at once would otherwise grow the process without bound. This layer
//! keeps at most [`ServeOptions::max_in_flight`](crate::ServeOptions) client requests
//! between reading and answering: a request line takes a permit before it is handed
//! on, and the permit comes back when the response to its id is written. Responses
//! and notifications from the client never wait, because a turn may be waiting for
//! exactly that response. `session/prompt` takes no permit either: its answer comes at
//! the end of a turn that may itself wait for the client.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::splice::Splices;
use crate::trace::{Direction, Trace};

/// Just enough of a JSON-RPC message to route it.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
}

enum Kind {
    /// A request from the peer, with its id in canonical form.
    Request { id: String, method: String },
    /// A response (from either side), with its id in canonical form.
    Response { id: String },
    /// A notification, or something the SDK will reject on its own.
    Other,
}

fn classify(line: &[u8]) -> Kind {
    let Ok(probe) = serde_json::from_slice::<Probe<'_>>(line) else {
        return Kind::Other;
    };
    // Ids are compared in canonical form so that `1` and `1.0`-style spellings, or
    // different string escapes, cannot make a permit leak.
    let canonical = |raw: &RawValue| {
        serde_json::from_str::<serde_json::Value>(raw.get())
            .map(|v| v.to_string())
            .unwrap_or_else(|_| raw.get().to_owned())
    };
    match (probe.id, probe.method) {
        (Some(id), Some(method)) if id.get() != "null" => Kind::Request {
            id: canonical(id),
            method: method.into_owned(),
        },
        (Some(id), None) => Kind::Response { id: canonical(id) },
        _ => Kind::Other,
    }
}

/// Client requests that were handed to the SDK and not answered yet.
#[derive(Debug)]
pub(crate) struct InFlight {
    permits: Arc<Semaphore>,
    held: Mutex<HashMap<String, OwnedSemaphorePermit>>,
}

impl InFlight {
    pub(crate) fn new(max: usize) -> InFlight {
        InFlight {
            permits: Arc::new(Semaphore::new(max.max(1))),
            held: Mutex::new(HashMap::new()),
        }
    }

    async fn admit(&self, id: String) {
        // The semaphore is never closed, so acquiring can only fail if it were.
        let Ok(permit) = self.permits.clone().acquire_owned().await else {
            return;
        };
        if let Ok(mut held) = self.held.lock() {
            held.insert(id, permit);
        }
    }

    fn answered(&self, id: &str) {
        if let Ok(mut held) = self.held.lock() {
            held.remove(id);
        }
    }
}

/// What the reader saw at the end of its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadEnd {
    Eof,
    Error,
}

/// Reads newline-delimited messages from `input` and hands them to `to_sdk`.
///
/// A line longer than `max_line_bytes` is never held in memory whole: the reader
/// skips to its end, logs why, and answers with an invalid-request error.
pub(crate) async fn read_lines<R>(
    input: R,
    max_line_bytes: usize,
    to_sdk: mpsc::Sender<std::io::Result<String>>,
    to_client: mpsc::Sender<String>,
    in_flight: Arc<InFlight>,
    trace: Option<Arc<Trace>>,
) -> ReadEnd
where
    R: AsyncRead + Unpin,
{
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    let mut oversized: Option<usize> = None;
    loop {
        let buf = match reader.fill_buf().await {
            Ok(buf) => buf,
            Err(err) => {
                tracing::error!(%err, "reading stdin failed");
                return ReadEnd::Error;
            }
        };
        if buf.is_empty() {
            // A last line without its newline still counts.
            if oversized.is_none() && !line.is_empty() {
                let taken = std::mem::take(&mut line);
                forward(&taken, &to_sdk, &to_client, &in_flight, trace.as_deref()).await;
            }
            return ReadEnd::Eof;
        }
        let (chunk, consumed, complete) = match memchr(buf) {
            Some(pos) => (&buf[..pos], pos + 1, true),
            None => (buf, buf.len(), false),
        };
        match &mut oversized {
            Some(seen) => *seen += chunk.len(),
            None if line.len() + chunk.len() > max_line_bytes => {
                oversized = Some(line.len() + chunk.len());
                line = Vec::new();
            }
            None => line.extend_from_slice(chunk),
        }
        reader.consume(consumed);
        if !complete {
            continue;
        }
        if let Some(seen) = oversized.take() {
            tracing::warn!(
                bytes = seen,
                limit = max_line_bytes,
                "refused a message longer than the line limit"
            );
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {
                    "code": -32600,
                    "message": format!(
                        "Invalid request: a message of at least {seen} bytes exceeds the limit of {max_line_bytes} bytes"
                    ),
                }
            });
            if to_client.send(error.to_string()).await.is_err() {
                return ReadEnd::Error;
            }
            continue;
        }
        let taken = std::mem::take(&mut line);
        if !forward(&taken, &to_sdk, &to_client, &in_flight, trace.as_deref()).await {
            return ReadEnd::Error;
        }
    }
}

fn memchr(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n')
}

/// Hands one line to the SDK; false once the SDK side has gone away.
async fn forward(
    line: &[u8],
    to_sdk: &mpsc::Sender<std::io::Result<String>>,
    to_client: &mpsc::Sender<String>,
    in_flight: &InFlight,
    trace: Option<&Trace>,
) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return true;
    }
    if let Some(trace) = trace {
        trace.record(Direction::In, line);
    }
    // JSON text is UTF-8 (RFC 8259): anything else is a parse error, answered here,
    // because a lossy conversion would turn it into a different, valid message.
    let Ok(text) = std::str::from_utf8(line) else {
        tracing::warn!("refused a message that is not valid UTF-8");
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32700, "message": "Parse error: the message is not valid UTF-8"}
        });
        return to_client.send(error.to_string()).await.is_ok();
    };
    if let Kind::Request { id, method } = classify(line)
        && method != "session/prompt"
    {
        in_flight.admit(id).await;
    }
    to_sdk.send(Ok(text.to_owned())).await.is_ok()
}

/// The id of a response among the lines Warden writes, in the canonical form
/// [`classify`] gives. A line with the SDK's layout is read from its head: `{"jsonrpc":
/// "2.0",` then `"method"` (a notification), or `"id":<id>,` then `"method"` (a
/// request) or `"result"`/`"error"` (a response), where an id is a number or a string
/// without escapes. Parsing the whole line read every byte of every permission request
/// only to learn it is not a response. Any other line is classified whole.
fn response_id(line: &[u8]) -> Option<String> {
    let parsed = || match classify(line) {
        Kind::Response { id } => Some(id),
        _ => None,
    };
    let Some(rest) = line.strip_prefix(br#"{"jsonrpc":"2.0","#) else {
        return parsed();
    };
    if rest.starts_with(br#""method":"#) {
        return None;
    }
    let Some(rest) = rest.strip_prefix(br#""id":"#) else {
        return parsed();
    };
    let Some(len) = plain_id_len(rest) else {
        return parsed();
    };
    let (id, rest) = rest.split_at(len);
    match rest.strip_prefix(b",") {
        Some(next) if next.starts_with(br#""method":"#) => None,
        Some(next) if next.starts_with(br#""result":"#) || next.starts_with(br#""error":"#) => {
            std::str::from_utf8(id).ok().map(str::to_owned)
        }
        _ => parsed(),
    }
}

/// The length of an id at the start of `text` that is already in canonical form: digits
/// followed by a comma, or a string with no escape and no control character.
fn plain_id_len(text: &[u8]) -> Option<usize> {
    if let Some(string) = text.strip_prefix(b"\"") {
        let end = string
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        return (string[end] == b'"').then_some(end + 2);
    }
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    (digits > 0 && text.get(digits) == Some(&b',')).then_some(digits)
}

/// Writes outgoing lines, releasing the permit of each client request it answers.
/// Parameters written as text by Warden go into their lines here ([`Splices`]).
pub(crate) async fn write_lines<W>(
    output: W,
    mut from_sdk: mpsc::Receiver<String>,
    in_flight: Arc<InFlight>,
    trace: Option<Arc<Trace>>,
    splices: Arc<Splices>,
) -> std::io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let mut output = tokio::io::BufWriter::with_capacity(64 * 1024, output);
    while let Some(line) = from_sdk.recv().await {
        let line = splices.apply(line);
        write_one(&mut output, &line, &in_flight, trace.as_deref()).await?;
        // Write whatever else is already queued before flushing, so a burst of
        // updates costs one system call rather than one each.
        while let Ok(line) = from_sdk.try_recv() {
            let line = splices.apply(line);
            write_one(&mut output, &line, &in_flight, trace.as_deref()).await?;
        }
        output.flush().await?;
    }
    output.flush().await
}

async fn write_one<W: AsyncWrite + Unpin>(
    output: &mut W,
    line: &str,
    in_flight: &InFlight,
    trace: Option<&Trace>,
) -> std::io::Result<()> {
    debug_assert!(!line.contains('\n'), "a protocol line must be one line");
    if let Some(trace) = trace {
        trace.record(Direction::Out, line.as_bytes());
    }
    output.write_all(line.as_bytes()).await?;
    output.write_all(b"\n").await?;
    if let Some(id) = response_id(line.as_bytes()) {
        in_flight.answered(&id);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expect: &str) {
        let got = match classify(line.as_bytes()) {
            Kind::Request { id, method } => format!("request {id} {method}"),
            Kind::Response { id } => format!("response {id}"),
            Kind::Other => "other".to_owned(),
        };
        assert_eq!(got, expect, "{line}");
    }

    #[test]
    fn classifies_messages_by_shape() {
        check(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
            "request 1 initialize",
        );
        check(
            r#"{"jsonrpc":"2.0","id":"a\u0062","method":"x"}"#,
            r#"request "ab" x"#,
        );
        check(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#, "response 7");
        check(r#"{"jsonrpc":"2.0","method":"session/cancel"}"#, "other");
        check(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#, "other");
        check("{not json", "other");
        check("[1,2]", "other");
    }

    /// Reading a written line's head finds the responses, and their ids, that parsing
    /// the whole line finds, for every layout (the SDK's and others).
    #[test]
    fn a_written_line_is_a_response_exactly_when_parsing_it_says_so() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":7,"result":{"a":1}}"#,
            r#"{"jsonrpc":"2.0","id":"4d30-aa","result":null}"#,
            r#"{"jsonrpc":"2.0","id":"a\u0062","result":null}"#,
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":-3,"result":1}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"result":1}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":"r1","method":"session/request_permission","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":12,"method":"fs/read_text_file","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"id":1,"result":2}}"#,
            r#"{"id":9,"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","result":{},"id":"late"}"#,
            r#"{"jsonrpc":"2.0","id":"unterminated"#,
            r#"{"jsonrpc":"2.0","id":5}"#,
            "{not json",
        ];
        for line in lines {
            let parsed = match classify(line.as_bytes()) {
                Kind::Response { id } => Some(id),
                _ => None,
            };
            assert_eq!(response_id(line.as_bytes()), parsed, "{line}");
        }
        assert_eq!(
            response_id(lines[1].as_bytes()).as_deref(),
            Some(r#""4d30-aa""#)
        );
        assert_eq!(response_id(lines[0].as_bytes()).as_deref(), Some("7"));
    }

    async fn read_all(input: &[u8], max: usize) -> (Vec<String>, Vec<String>) {
        let (sdk_tx, mut sdk_rx) = mpsc::channel(16);
        let (client_tx, mut client_rx) = mpsc::channel(16);
        let in_flight = Arc::new(InFlight::new(8));
        let end = read_lines(input, max, sdk_tx, client_tx, in_flight, None).await;
        assert_eq!(end, ReadEnd::Eof);
        let mut to_sdk = Vec::new();
        while let Ok(Ok(line)) = sdk_rx.try_recv() {
            to_sdk.push(line);
        }
        let mut to_client = Vec::new();
        while let Ok(line) = client_rx.try_recv() {
            to_client.push(line);
        }
        (to_sdk, to_client)
    }

    #[tokio::test]
    async fn an_oversized_line_is_refused_and_the_next_line_still_arrives() {
        let big = format!("{{\"x\":\"{}\"}}", "a".repeat(100));
        let input = format!("{big}\n{{\"jsonrpc\":\"2.0\",\"method\":\"n\"}}\n");
        let (to_sdk, to_client) = read_all(input.as_bytes(), 50).await;
        assert_eq!(to_sdk, vec![r#"{"jsonrpc":"2.0","method":"n"}"#]);
        assert_eq!(to_client.len(), 1);
        assert!(to_client[0].contains("-32600"), "{}", to_client[0]);
    }

    #[tokio::test]
    async fn invalid_utf8_is_a_parse_error_and_is_not_passed_on() {
        let (to_sdk, to_client) = read_all(b"{\"a\":\"\xff\"}\n{\"b\":2}\n", 1024).await;
        assert_eq!(to_sdk, vec![r#"{"b":2}"#]);
        assert_eq!(to_client.len(), 1);
        assert!(to_client[0].contains("-32700"), "{}", to_client[0]);
    }

    #[tokio::test]
    async fn blank_lines_are_skipped_and_a_last_line_without_newline_counts() {
        let (to_sdk, _) = read_all(b"\n  \r\n{\"a\":1}\r\n{\"b\":2}", 1024).await;
        assert_eq!(to_sdk, vec![r#"{"a":1}"#, r#"{"b":2}"#]);
    }

    #[tokio::test]
    async fn requests_wait_for_a_permit_until_an_answer_is_written() {
        let in_flight = Arc::new(InFlight::new(1));
        let (sdk_tx, mut sdk_rx) = mpsc::channel(16);
        let (client_tx, _client_rx) = mpsc::channel(16);
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}\n";
        let reader = tokio::spawn(read_lines(
            &input[..],
            1024,
            sdk_tx,
            client_tx,
            in_flight.clone(),
            None,
        ));
        let first = sdk_rx.recv().await.and_then(Result::ok);
        assert_eq!(
            first.as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#)
        );
        // The second request cannot pass until the first is answered.
        tokio::task::yield_now().await;
        assert!(sdk_rx.try_recv().is_err());
        let (out_tx, out_rx) = mpsc::channel(4);
        out_tx
            .send(r#"{"jsonrpc":"2.0","id":1,"result":null}"#.to_owned())
            .await
            .ok();
        drop(out_tx);
        let mut written = Vec::new();
        write_lines(
            &mut written,
            out_rx,
            in_flight.clone(),
            None,
            Arc::new(Splices::new()),
        )
        .await
        .ok();
        let second = sdk_rx.recv().await.and_then(Result::ok);
        assert_eq!(
            second.as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":2,"method":"b"}"#)
        );
        assert_eq!(reader.await.ok(), Some(ReadEnd::Eof));
        assert_eq!(written, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}\n");
    }
}
