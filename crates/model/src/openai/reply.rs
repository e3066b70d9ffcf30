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
    decoder: SseDecoder,
    /// Set when the server answered with one JSON completion instead of a stream (some
    /// servers ignore `stream: true`); its body is collected here and read at the end.
    whole_body: Option<Vec<u8>>,
    assembler: Option<Assembler>,
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
        body: body.to_string().into_bytes(),
        first_call_number,
    };
    futures::stream::unfold(state, next).boxed()
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
                whole_body: is_json(&response).then(Vec::new),
                transport,
                response,
                decoder: SseDecoder::default(),
                assembler: Some(Assembler::new(first_call_number)),
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
        let piece = tokio::time::timeout(idle, streaming.response.chunk()).await;
        match piece {
            Err(_) => {
                let error = streaming.transport.timeout("waiting for the next chunk");
                streaming.pending.push_back(Err(error));
            }
            Ok(Err(source)) if source.is_timeout() => {
                let error = streaming.transport.timeout("waiting for the next chunk");
                streaming.pending.push_back(Err(error));
            }
            Ok(Err(source)) => streaming
                .pending
                .push_back(Err(ModelError::Stream { source })),
            Ok(Ok(None)) => {
                let events = match streaming.whole_body.take() {
                    Some(body) => vec![
                        String::from_utf8_lossy(&body).into_owned(),
                        "[DONE]".to_owned(),
                    ],
                    None => streaming.decoder.finish(),
                };
                streaming.handle(events);
                if let Some(assembler) = streaming.assembler.take() {
                    streaming.pending.extend(assembler.finish(false));
                }
            }
            Ok(Ok(Some(bytes))) if streaming.whole_body.is_some() => {
                if let Some(body) = streaming.whole_body.as_mut() {
                    body.extend_from_slice(&bytes);
                    if body.len() > MAX_WHOLE_BODY {
                        streaming.whole_body = None;
                        streaming.assembler = None;
                        streaming.pending.push_back(Err(ModelError::Protocol {
                            detail: format!("the completion is larger than {MAX_WHOLE_BODY} bytes"),
                        }));
                    }
                }
            }
            Ok(Ok(Some(bytes))) => {
                let events = streaming.decoder.feed(&bytes);
                streaming.handle(events);
            }
        }
    }
}

fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().contains("json"))
}

impl Streaming {
    fn handle(&mut self, events: Vec<String>) {
        for data in events {
            let Some(assembler) = self.assembler.as_mut() else {
                return;
            };
            if data.trim() == "[DONE]" {
                if let Some(assembler) = self.assembler.take() {
                    self.pending.extend(assembler.finish(true));
                }
                return;
            }
            let result = serde_json::from_str::<Chunk>(&data)
                .map_err(|error| ModelError::Protocol {
                    detail: format!(
                        "cannot read a stream chunk ({error}): {}",
                        data.chars().take(200).collect::<String>()
                    ),
                })
                .and_then(|chunk| assembler.apply(chunk));
            match result {
                Ok(events) => self.pending.extend(events.into_iter().map(Ok)),
                Err(error) => {
                    self.assembler = None;
                    self.pending.push_back(Err(error));
                    return;
                }
            }
        }
    }
}
