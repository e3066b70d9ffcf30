//! The model's side of the loop: what it is offered, its reply as it streams (text
//! chunks go to the client at once; the complete reply becomes the turn's event), and
//! the loop's waits that may never come.

use std::sync::Arc;

use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use tokio::sync::mpsc;
use warden_model::{Conversation, Model, ModelError, ModelEvent, ToolCallRequest, ToolSpec};
use warden_tools::{ToolInfo, Toolbox};

use crate::event::Event;
use crate::preview::Files;

/// A model reply still streaming: polled by the driver's loop itself, so an event
/// needs no task hop (and dropping it aborts the request).
pub(super) struct Streaming {
    stream: BoxStream<'static, Result<ModelEvent, ModelError>>,
    reply: Reply,
}

/// A model reply being assembled from its stream.
#[derive(Default)]
struct Reply {
    text: String,
    calls: Vec<ToolCallRequest>,
}

pub(super) enum Step {
    Chunk(String),
    More,
    Done(Event),
}

impl Reply {
    fn take(&mut self, item: Option<Result<ModelEvent, ModelError>>) -> Step {
        match item {
            Some(Ok(ModelEvent::Text(chunk))) => {
                self.text.push_str(&chunk);
                Step::Chunk(chunk)
            }
            Some(Ok(ModelEvent::ToolCall(call))) => {
                self.calls.push(call);
                Step::More
            }
            Some(Ok(ModelEvent::Finished(finish))) => Step::Done(Event::ModelReplied {
                text: std::mem::take(&mut self.text),
                calls: std::mem::take(&mut self.calls),
                finish,
                files: Files::default(),
            }),
            Some(Err(err)) => Step::Done(Event::ModelFailed {
                error: err.to_string(),
            }),
            // Whether a reply that ends without saying why is complete is the turn's
            // decision.
            None => Step::Done(Event::ModelStopped {
                text: std::mem::take(&mut self.text),
                calls: std::mem::take(&mut self.calls),
            }),
        }
    }
}

/// What the model is offered, built from the toolbox's lists and built again only when
/// one of them changed (an MCP server's list changed between model calls).
#[derive(Default)]
pub(super) struct ToolSpecs {
    built_from: Vec<Arc<[ToolInfo]>>,
    specs: Option<Arc<[ToolSpec]>>,
}

impl ToolSpecs {
    pub(super) fn get(&mut self, toolbox: &Toolbox) -> Arc<[ToolSpec]> {
        let lists = toolbox.lists();
        let same = lists.len() == self.built_from.len()
            && lists
                .iter()
                .zip(&self.built_from)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        if let (true, Some(specs)) = (same, &self.specs) {
            return specs.clone();
        }
        let specs: Arc<[ToolSpec]> = lists
            .iter()
            .flat_map(|list| list.iter())
            .map(|tool| ToolSpec {
                name: tool.name.clone(),
                description: tool.description.clone(),
                input_schema: tool.schema.clone(),
            })
            .collect();
        self.built_from = lists;
        self.specs = Some(specs.clone());
        specs
    }
}

impl Streaming {
    /// Asks the model for its reply to `conversation`, offering it `specs`.
    pub(super) fn start(
        model: &dyn Model,
        conversation: &Conversation,
        specs: &[ToolSpec],
    ) -> Streaming {
        Streaming {
            stream: model.respond(conversation, specs),
            reply: Reply::default(),
        }
    }

    /// The next item if the model has it ready now (all of it, for the scripted model).
    pub(super) fn now(&mut self) -> Option<Option<Result<ModelEvent, ModelError>>> {
        self.stream.next().now_or_never()
    }

    /// Takes one item of the reply.
    pub(super) fn take(&mut self, item: Option<Result<ModelEvent, ModelError>>) -> Step {
        self.reply.take(item)
    }
}

/// The next item of the streaming reply; pending for ever when there is none, so that
/// the loop's other branches decide.
pub(super) async fn next_item(
    model: &mut Option<Streaming>,
) -> Option<Result<ModelEvent, ModelError>> {
    match model {
        Some(streaming) => streaming.stream.next().await,
        None => std::future::pending().await,
    }
}

/// The next prompt handed to a running turn; never, for a turn that takes none.
pub(super) async fn next_prompt(
    prompts: Option<&mut mpsc::UnboundedReceiver<String>>,
) -> Option<String> {
    match prompts {
        Some(prompts) => prompts.recv().await,
        None => std::future::pending().await,
    }
}

/// The next tick of the claim poll; never, without one.
pub(super) async fn tick(poll: &mut Option<tokio::time::Interval>) {
    match poll {
        Some(poll) => {
            poll.tick().await;
        }
        None => std::future::pending().await,
    }
}
