//! The async driver of a turn: the loop that carries out the turn's commands and feeds
//! what happens back as events. The model's stream, the answers, the tools' tasks and
//! the wind-down are its business; what a person sees goes to an [`Outlet`], what is
//! written down to a [`Journal`], and each call's state in flight lives in one place
//! ([`calls`]).
//!
//! Everything that reaches the client goes out from this one loop, in order, and only
//! while the turn is live: text chunks and tool progress travel through the loop's
//! channel rather than being sent by the tasks that produce them, so nothing about a
//! turn can follow its end.

mod answers;
mod calls;
mod record;
mod reply;
#[cfg(test)]
mod tests;
mod tools;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use warden_model::{Conversation, Model};
use warden_tools::{Editor, Toolbox};

use crate::audit::{AuditContext, AuditKind, AuditNote, AuditSink};
use crate::command::{Command, Stop};
use crate::event::Event;
use crate::gate::Gate;
use crate::journal::Journal;
use crate::outlet::{Outlet, Update};
use crate::turn::{Resumed, ResumedBatch, Turn, TurnLimits};
use crate::words::Words;

use calls::{Answered, Calls};
use reply::{Step, Streaming, ToolSpecs};

/// Everything a turn works with.
#[derive(Clone)]
pub struct TurnSetup {
    pub cwd: PathBuf,
    /// The home folder the permission engine resolves `~` with; the tools use the same.
    pub home: Option<PathBuf>,
    /// Where what the turn shows and asks goes.
    pub outlet: Arc<dyn Outlet>,
    pub gate: Arc<dyn Gate + Send + Sync>,
    pub model: Arc<dyn Model>,
    /// The session's tools: what the model is offered, and what runs a call.
    pub toolbox: Toolbox,
    pub editor: Option<Arc<dyn Editor>>,
    pub limits: TurnLimits,
    pub tool_limits: warden_tools::Limits,
    /// Warden's own secrets: kept out of tool processes, redacted from tool output.
    pub secrets: Arc<warden_tools::Secrets>,
    pub audit: Arc<dyn AuditSink>,
    /// The client shows forms (to edit a call or leave a note).
    pub forms: bool,
    /// What a person reads, in the session's language.
    pub words: Words,
    /// The session's journal, when sessions are stored.
    pub journal: Option<Arc<dyn Journal>>,
    /// Calls a restored session left waiting, settled before the prompt (see
    /// [`Turn::resume`]).
    pub resumed: Vec<Resumed>,
}

impl std::fmt::Debug for TurnSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnSetup")
            .field("cwd", &self.cwd)
            .field("model", &self.model.id())
            .finish_non_exhaustive()
    }
}

/// How often a waiting call's answer from elsewhere is looked for (`warden pending`
/// from another terminal): the contract promises such an answer is applied within a
/// second.
const CLAIM_POLL: Duration = Duration::from_millis(500);

/// How long stopped tools get to wind down (kill their processes, release editor
/// terminals) before the turn ends.
const TOOL_WIND_DOWN: Duration = Duration::from_secs(5);

/// What the loop's own tasks send it.
enum Msg {
    Event(Event),
    Progress(String, Vec<warden_tools::Content>),
    /// A grant was stored; one of the session's own is written down with it.
    Granted(Box<warden_permissions::Grant>),
}

/// How a turn ended.
#[derive(Debug)]
pub struct Driven {
    pub conversation: Conversation,
    pub stop: Stop,
    /// A prompt the turn took ([`Event::Prompt`]) that never joined the conversation,
    /// because the turn ended first.
    pub unjoined: Option<String>,
}

struct DriverState {
    setup: TurnSetup,
    tx: mpsc::UnboundedSender<Msg>,
    /// Each call in flight: its open question, its running tool, who answered it and
    /// what it is written down as.
    calls: Calls,
    /// The answers to open questions, polled by the loop itself: an answer needs no
    /// task hop, and dropping these futures withdraws their questions at once.
    answers: FuturesUnordered<BoxFuture<'static, Option<Answered>>>,
    /// Events that are already known (a model reply that was ready at once).
    ready: VecDeque<Event>,
    tool_tasks: Vec<JoinHandle<()>>,
    model: Option<Streaming>,
    /// The timer that looks for answers given from elsewhere, while calls wait.
    poll: Option<tokio::time::Interval>,
    /// How many questions the turn asked.
    asked: usize,
    /// Audit notes not yet handed to the log, in order, with their answer latencies.
    audits: Vec<(AuditNote, AuditContext)>,
    specs: ToolSpecs,
    /// How many entries of the conversation are written down.
    journaled: usize,
}

/// Runs one turn to its end. A turn for `prompt`; or, without one, a restored session's
/// turn that asks again the calls it left waiting ([`TurnSetup::resumed`]) and goes on
/// where it stopped, taking a prompt that arrives on `prompts` meanwhile as its own.
pub async fn drive(
    mut setup: TurnSetup,
    conversation: Conversation,
    prompt: Option<String>,
    cancel: CancellationToken,
    mut prompts: Option<&mut mpsc::UnboundedReceiver<String>>,
) -> Driven {
    let journaled = conversation.messages().len();
    let resumed = std::mem::take(&mut setup.resumed);
    if resumed.is_empty() && prompt.is_none() {
        return Driven {
            conversation,
            stop: Stop::EndTurn,
            unjoined: None,
        };
    }
    let calls = Calls::resuming(&resumed, setup.journal.as_deref());
    let (mut turn, first) = start(&setup, conversation, prompt, resumed).await;
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let mut state = DriverState {
        setup,
        tx,
        calls,
        answers: FuturesUnordered::new(),
        ready: VecDeque::new(),
        tool_tasks: Vec::new(),
        model: None,
        poll: None,
        asked: 0,
        audits: Vec::new(),
        specs: ToolSpecs::default(),
        journaled,
    };
    state.journal_conversation(&turn);
    let mut queue: VecDeque<Command> = first.into();
    let mut cancel_sent = false;
    let stop = 'turn: loop {
        while let Some(command) = queue.pop_front() {
            if let Some(stop) = state.execute(command, &turn) {
                state.record_audits();
                break 'turn stop;
            }
        }
        if !state.audits.is_empty() {
            // The audit log's writer thread is woken only once what this step sent is
            // written: woken earlier, it competes for the core that is about to write
            // the question (the runtime runs on one thread), and the client would wait
            // for the audit log.
            tokio::task::yield_now().await;
            state.record_audits();
        }
        let event = match state.ready.pop_front() {
            Some(event) => event,
            None => match state
                .wait(&mut rx, prompts.as_deref_mut(), &cancel, cancel_sent)
                .await
            {
                Some(Event::Cancel) => {
                    cancel_sent = true;
                    Event::Cancel
                }
                Some(event) => event,
                None => continue,
            },
        };
        let event = state.prepare(event).await;
        let gate = state.setup.gate.clone();
        queue.extend(turn.handle(event, gate.as_ref()));
        state.journal_conversation(&turn);
    };
    state.end(&turn).await;
    let unjoined = turn.take_unjoined_prompt();
    Driven {
        conversation: turn.into_conversation(),
        stop,
        unjoined,
    }
}

/// The turn and its first commands: a fresh turn for `prompt`, or a restored session's
/// turn that settles the calls it left waiting first.
async fn start(
    setup: &TurnSetup,
    conversation: Conversation,
    prompt: Option<String>,
    resumed: Vec<Resumed>,
) -> (Turn, Vec<Command>) {
    let (mut turn, first) = if resumed.is_empty() {
        let prompt = prompt.unwrap_or_default();
        Turn::start(conversation, prompt, setup.limits, setup.words)
    } else {
        let requests: Vec<_> = resumed.iter().map(|c| c.request.clone()).collect();
        let files = crate::preview::load(
            &requests,
            &setup.cwd,
            setup.home.as_deref(),
            setup.tool_limits.edit_bytes,
        )
        .await;
        Turn::resume(
            conversation,
            ResumedBatch {
                calls: resumed,
                files,
            },
            prompt,
            setup.limits,
            setup.forms,
            setup.words,
            setup.gate.as_ref(),
        )
    };
    turn.offer_forms(setup.forms);
    (turn, first)
}

impl DriverState {
    /// Completes what an event needs before the turn sees it: the previews of a reply's
    /// edits need the files as they are now (read off the runtime's thread), and the
    /// user's hooks (`[[hook]]`, processes) run, awaited, before the turn judges the
    /// calls with what they said.
    async fn prepare(&mut self, event: Event) -> Event {
        let event = match event {
            Event::ModelReplied {
                text,
                calls,
                finish,
                files: _,
            } => {
                let files = crate::preview::load(
                    &calls,
                    &self.setup.cwd,
                    self.setup.home.as_deref(),
                    self.setup.tool_limits.edit_bytes,
                )
                .await;
                let proposed = calls
                    .iter()
                    .map(|c| (c.name.clone(), c.arguments.clone()))
                    .collect();
                self.setup.gate.clone().consult_hooks(proposed).await;
                Event::ModelReplied {
                    text,
                    calls,
                    finish,
                    files,
                }
            }
            event => event,
        };
        if let (Some(journal), Event::ModelReplied { text, .. } | Event::ModelStopped { text, .. }) =
            (&self.setup.journal, &event)
            && !text.is_empty()
        {
            journal.stage(crate::journal::Entry::AgentText(text));
        }
        event
    }

    /// The turn is over: what it wrote is written, the model stopped, what is pending
    /// withdrawn and the tools stopped, within a bounded time.
    async fn end(&mut self, turn: &Turn) {
        self.journal_conversation(turn);
        if let Some(journal) = &self.setup.journal {
            journal.flush();
        }
        self.wind_down().await;
        // Made ready for the next turn's questions while nobody waits.
        if let Some(journal) = &self.setup.journal {
            journal.prepare_answers();
        }
    }

    fn record_audits(&mut self) {
        for (note, context) in self.audits.drain(..) {
            self.setup.audit.record(&note, context);
        }
    }

    /// Writes what this step staged in the journal, then waits for the next event;
    /// `None` when something was handled without one (a text chunk or tool progress was
    /// forwarded, or a withdrawn question let go).
    async fn wait(
        &mut self,
        rx: &mut mpsc::UnboundedReceiver<Msg>,
        prompts: Option<&mut mpsc::UnboundedReceiver<String>>,
        cancel: &CancellationToken,
        cancel_sent: bool,
    ) -> Option<Event> {
        if let Some(journal) = &self.setup.journal {
            journal.flush();
        }
        let looks = self.calls.any_asked() && self.setup.journal.is_some();
        let msg = tokio::select! {
            biased;
            () = cancel.cancelled(), if !cancel_sent => return Some(Event::Cancel),
            Some(text) = reply::next_prompt(prompts) => return Some(Event::Prompt { text }),
            Some(reply) = futures::StreamExt::next(&mut self.answers), if !self.answers.is_empty() => {
                return Some(self.answered(reply?));
            }
            item = reply::next_item(&mut self.model) => return self.take_reply(item),
            msg = rx.recv() => msg,
            () = reply::tick(&mut self.poll), if looks => {
                return self.answered_elsewhere();
            }
        };
        match msg {
            Some(Msg::Event(event)) => Some(event),
            Some(Msg::Progress(call_id, content)) => {
                self.setup.outlet.update(Update::Progress {
                    call_id: &call_id,
                    content,
                });
                None
            }
            Some(Msg::Granted(grant)) => {
                if let Some(journal) = &self.setup.journal {
                    journal.write(crate::journal::Entry::Grant(&grant));
                }
                None
            }
            // The driver holds a sender, so the channel cannot close; treat it as a
            // cancel all the same rather than spin.
            None => Some(Event::Cancel),
        }
    }

    /// Carries out one command; `Some` when the turn ends.
    fn execute(&mut self, command: Command, turn: &Turn) -> Option<Stop> {
        // What is noted of a call is for its journal records (and for the audit of an
        // answer refused by a claim, which only a journal makes): without a journal the
        // hot path copies nothing.
        if self.setup.journal.is_some() {
            self.note(&command);
        }
        let outlet = self.setup.outlet.clone();
        match command {
            Command::Show { view, shown } => outlet.update(Update::Show { view: &view, shown }),
            Command::ShowInvalid {
                call_id,
                tool,
                args,
            } => outlet.update(Update::ShowInvalid {
                call_id: &call_id,
                tool: &tool,
                args: &args,
            }),
            Command::Running { call_id } => outlet.update(Update::Running { call_id: &call_id }),
            Command::Failed { call_id, reason } => outlet.update(Update::Failed {
                call_id: &call_id,
                reason: &reason,
            }),
            Command::Finished { call_id, result } => outlet.update(Update::Finished {
                call_id: &call_id,
                result,
            }),
            Command::Say(text) => outlet.update(Update::Say(text)),
            Command::Tell(notice) => outlet.update(Update::Tell(&notice)),
            Command::Ask(question) => self.ask(*question),
            Command::Elicit(form) => self.elicit(*form),
            Command::Withdraw { call_id } => self.calls.withdraw(&call_id),
            Command::Run { call_id, call } => self.run_tool(call_id, *call),
            Command::Store(request) => self.store_grant(*request),
            Command::Stop { call_id } => self.calls.stop_tool(&call_id),
            Command::CallModel => self.call_model(turn.conversation()),
            Command::Audit(note) => {
                let context = match &note.kind {
                    AuditKind::Answered { .. } => self.calls.answer_context(&note.call_id),
                    _ => AuditContext::default(),
                };
                self.audits.push((*note, context));
            }
            Command::End(stop) => return Some(stop),
        }
        None
    }

    fn call_model(&mut self, conversation: &Conversation) {
        let specs = self.specs.get(&self.setup.toolbox);
        // A reply still streaming from an earlier call is dropped, which aborts it.
        let streaming = Streaming::start(self.setup.model.as_ref(), conversation, &specs);
        self.model = Some(streaming);
        // Whatever the model has ready now is taken here; the rest is polled by the loop.
        while let Some(item) = self.model.as_mut().and_then(Streaming::now) {
            if let Some(event) = self.take_reply(item) {
                self.ready.push_back(event);
            }
        }
        // The answers this reply's questions may take are made ready while the model
        // thinks, not when the first question is asked: that would wake a thread of the
        // blocking pool, a few microseconds, on the question's path.
        if let Some(journal) = &self.setup.journal {
            journal.prepare_answers();
        }
    }

    /// Takes one item of the streaming reply: a text chunk goes to the client, and the
    /// complete reply comes back as its event (and the stream is dropped).
    fn take_reply(
        &mut self,
        item: Option<Result<warden_model::ModelEvent, warden_model::ModelError>>,
    ) -> Option<Event> {
        match self.model.as_mut()?.take(item) {
            Step::Chunk(text) => {
                self.setup.outlet.update(Update::Say(text));
                None
            }
            Step::More => None,
            Step::Done(event) => {
                self.model = None;
                Some(event)
            }
        }
    }

    /// At the end of a turn: stop the model, withdraw what is pending, stop the tools
    /// and give them a bounded time to clean up.
    async fn wind_down(&mut self) {
        // Dropping the reply's stream closes its connection.
        self.model = None;
        self.calls.wind_down();
        // Dropping the pending answers withdraws their questions now.
        self.answers = FuturesUnordered::new();
        let tasks = std::mem::take(&mut self.tool_tasks);
        if tokio::time::timeout(TOOL_WIND_DOWN, futures::future::join_all(tasks))
            .await
            .is_err()
        {
            tracing::warn!("tools did not stop within {TOOL_WIND_DOWN:?} of the turn's end");
        }
    }
}
