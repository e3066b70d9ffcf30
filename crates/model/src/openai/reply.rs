//! The stream of one reply: send the request, decode the events, assemble the reply.

use std::collections::VecDeque;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;

use super::assemble::Assembler;
use super::sse::SseDecoder;
use super::transport::Transport;
use super::wire::Chunk;
use crate::{ModelError, ModelEvent};

/// The largest non-streamed completion Warden reads.
const MAX_WHOLE_BODY: usize = 16 * 1024 * 1024;

type Item = Result<ModelEvent, ModelError>;

enum State {
    Start {
        transport: Arc<Transport>,
        body: Vec<u8>,
        first_call_number: usize,
    },
    Streaming(Box<Streaming>),
    Done,
}

struct Streaming {
    transport: Arc<Transport>,
    /// Dropping the response (with the stream) closes the connection, which is how a
    /// cancelled turn aborts the request.
    response: reqwest::Response,
    decoder: ReplyDecoder,
    pending: VecDeque<Item>,
}

/// The reply's events. The request is sent when the stream is first polled.
pub(crate) fn stream(
    transport: Arc<Transport>,
    body: serde_json::Value,
    first_call_number: usize,
) -> BoxStream<'static, Item> {
    let state = State::Start {
        transport,
        // Serialised straight to bytes: `Display` writes through the formatting
        // machinery, which cost several times as much on a long conversation. A `Value`
        // always serialises (its keys are strings).
        body: serde_json::to_vec(&body).unwrap_or_default(),
        first_call_number,
    };
    futures::stream::unfold(state, next).boxed()
}

/// The events of a complete recorded stream body, decoded exactly as a live reply is.
pub(crate) fn replay(body: &[u8], first_call_number: usize) -> Vec<Item> {
    let mut decoder = ReplyDecoder::new(first_call_number, false);
    let mut events = decoder.feed(body);
    events.extend(decoder.finish());
    events
}

async fn next(state: State) -> Option<(Item, State)> {
    let mut streaming = match state {
        State::Done => return None,
        State::Start {
            transport,
            body,
            first_call_number,
        } => match transport.send(&body).await {
            Err(error) => return Some((Err(error), State::Done)),
            Ok(response) => Box::new(Streaming {
                decoder: ReplyDecoder::new(first_call_number, is_json(&response)),
                transport,
                response,
                pending: VecDeque::new(),
            }),
        },
        State::Streaming(streaming) => streaming,
    };
    loop {
        if let Some(item) = streaming.pending.pop_front() {
            let last = matches!(item, Err(_) | Ok(ModelEvent::Finished(_)));
            let state = if last {
                State::Done
            } else {
                State::Streaming(streaming)
            };
            return Some((item, state));
        }
        let idle = streaming.transport.config().idle_timeout;
        let items = match tokio::time::timeout(idle, streaming.response.chunk()).await {
            Err(_) => vec![Err(streaming
                .transport
                .timeout("waiting for the next chunk"))],
            Ok(Err(source)) if source.is_timeout() => {
                vec![Err(streaming
                    .transport
                    .timeout("waiting for the next chunk"))]
            }
            Ok(Err(source)) => vec![Err(ModelError::Stream { source })],
            Ok(Ok(None)) => streaming.decoder.finish(),
            Ok(Ok(Some(bytes))) => streaming.decoder.feed(&bytes),
        };
        streaming.pending.extend(items);
    }
}

fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().contains("json"))
}

/// Turns the bytes of a reply into events: server-sent events, or one JSON completion from a
/// server that ignored `stream: true`.
struct ReplyDecoder {
    sse: SseDecoder,
    /// Set for a JSON completion; its body is collected here and read at the end.
    whole_body: Option<Vec<u8>>,
    /// `None` once the reply is complete or failed: nothing after that is read.
    assembler: Option<Assembler>,
}

impl ReplyDecoder {
    fn new(first_call_number: usize, json: bool) -> ReplyDecoder {
        ReplyDecoder {
            sse: SseDecoder::default(),
            whole_body: json.then(Vec::new),
            assembler: Some(Assembler::new(first_call_number)),
        }
    }

    /// Feeds a piece of the body.
    fn feed(&mut self, bytes: &[u8]) -> Vec<Item> {
        let Some(body) = self.whole_body.as_mut() else {
            let events = self.sse.feed(bytes);
            return self.handle(events);
        };
        body.extend_from_slice(bytes);
        if body.len() > MAX_WHOLE_BODY {
            self.whole_body = None;
            self.assembler = None;
            return vec![Err(ModelError::Protocol {
                detail: format!("the completion is larger than {MAX_WHOLE_BODY} bytes"),
            })];
        }
        Vec::new()
    }

    /// The body ended.
    fn finish(&mut self) -> Vec<Item> {
        let events = match self.whole_body.take() {
            Some(body) => vec![
                String::from_utf8_lossy(&body).into_owned(),
                "[DONE]".to_owned(),
            ],
            None => self.sse.finish(),
        };
        let mut items = self.handle(events);
        if let Some(assembler) = self.assembler.take() {
            items.extend(assembler.finish(false));
        }
        items
    }

    fn handle(&mut self, events: Vec<String>) -> Vec<Item> {
        let mut items = Vec::new();
        for data in events {
            let Some(assembler) = self.assembler.as_mut() else {
                break;
            };
            if data.trim() == "[DONE]" {
                items.extend(
                    self.assembler
                        .take()
                        .map(|a| a.finish(true))
                        .unwrap_or_default(),
                );
                break;
            }
            match parse_chunk(&data).and_then(|chunk| assembler.apply(chunk)) {
                Ok(events) => items.extend(events.into_iter().map(Ok)),
                Err(error) => {
                    self.assembler = None;
                    items.push(Err(error));
                    break;
                }
            }
        }
        items
    }
}

fn parse_chunk(data: &str) -> Result<Chunk, ModelError> {
    serde_json::from_str::<Chunk>(data).map_err(|error| ModelError::Protocol {
        detail: format!(
            "cannot read a stream chunk ({error}): {}",
            crate::one_line(data)
        ),
    })
}
