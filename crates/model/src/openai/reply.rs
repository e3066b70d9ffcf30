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
                let events = streaming.decoder.finish();
                streaming.handle(events);
                if let Some(assembler) = streaming.assembler.take() {
                    streaming.pending.extend(assembler.finish(false));
                }
            }
            Ok(Ok(Some(bytes))) => {
                let events = streaming.decoder.feed(&bytes);
                streaming.handle(events);
            }
        }
    }
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
