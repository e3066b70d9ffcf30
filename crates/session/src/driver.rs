//! The async driver of a turn: carries out the state machine's commands and feeds the
//! results back as events.
//!
//! Everything that reaches the client goes out from this one loop, in order, and only
//! while the turn is live: text chunks and tool progress travel through the loop's
//! channel rather than being sent by the tasks that produce them, so nothing about a
//! turn can follow its `session/prompt` response.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::collections::VecDeque;

use futures::future::BoxFuture;
use futures::stream::{BoxStream, FuturesUnordered};
use futures::{FutureExt, StreamExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use warden_acp_transport::schema::{
    SessionId, StopReason, ToolCallContent, ToolCallStatus, ToolCallUpdateFields,
};
use warden_acp_transport::{ClientHandle, ClientRequestError};
use warden_model::{Conversation, Model, ModelEvent, ToolSpec};
use warden_tools::{Editor, ExecContext, PreparedCall, ToolInfo, Toolbox};

use warden_journal::AnsweredBy;
use warden_turn::{
    Answer, AuditKind, AuditNote, Command, Event, Files, Form, Gate, GrantRequest, Question, Shown,
    Stored, ToolResult, Turn, TurnLimits, Words,
};
use warden_verdict::option_id::{EDIT_OR_NOTE, REJECT_ONCE};

use crate::checkpoint::{CallNotes, Checkpoints, Owner};
use crate::to_acp::{self, permission, updates};

/// Where audit notes go. Recording must not block the turn.
pub trait AuditSink: Send + Sync {
    fn record(&self, session: &SessionId, note: &AuditNote, context: AuditContext);
}

/// What the driver knows of an audit note beyond the turn: how long its answer took,
/// and who gave it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AuditContext {
    pub latency: Option<Duration>,
    /// Who chose the option of an answered call, or whose answer was refused; `None`
    /// when nobody chose (a timeout, a cancel, a failure).
    pub answered_by: Option<AnsweredBy>,
}

/// An answer to a question about a call, with who gave it, and the editor's own answer
/// when it was refused because the question was answered first from another terminal.
struct Answered {
    call_id: String,
    question: u32,
    answer: Answer,
    by: Option<AnsweredBy>,
    refused: Option<String>,
    /// The claim this answer won with a spare, to be synced before the call runs.
    unsynced: Option<warden_journal::Unsynced>,
}

/// Everything a turn works with.
#[derive(Clone)]
pub struct TurnSetup {
    pub session: SessionId,
    pub cwd: PathBuf,
    /// The home folder the permission engine resolves `~` with; the tools use the same.
    pub home: Option<PathBuf>,
    pub client: ClientHandle,
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
    /// The client shows session notices (else they become agent messages).
    pub notices: bool,
    /// The client shows `elicitation/create` forms.
    pub forms: bool,
    /// What a person reads, in the session's language.
    pub words: Words,
    /// The session's journal, when sessions are stored.
    pub checkpoints: Option<Checkpoints>,
    /// Calls a restored session left waiting, settled before the prompt (see
    /// [`Turn::resume`]).
    pub resumed: Vec<warden_turn::Resumed>,
}

impl std::fmt::Debug for TurnSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnSetup")
            .field("session", &self.session)
            .field("cwd", &self.cwd)
            .field("model", &self.model.id())
            .finish_non_exhaustive()
    }
}

/// How often a waiting call's answer file is looked for (`warden pending` from another
/// terminal): the contract promises such an answer is applied within a second.
const CLAIM_POLL: Duration = Duration::from_millis(500);

/// How long stopped tools get to wind down (kill their processes, release editor
/// terminals) before the turn answers its prompt.
const TOOL_WIND_DOWN: Duration = Duration::from_secs(5);

enum Msg {
    Event(Event),
    Progress(String, Vec<ToolCallContent>),
}

/// A model reply still streaming: polled by the driver's loop itself, so an event
/// needs no task hop (and dropping it aborts the request).
struct Streaming {
    stream: BoxStream<'static, Result<ModelEvent, warden_model::ModelError>>,
    reply: Reply,
}

/// How a turn ended.
#[derive(Debug)]
pub struct Driven {
    pub conversation: Conversation,
    pub stop: StopReason,
    /// A prompt the turn took ([`Event::Prompt`]) that never joined the conversation,
    /// because the turn ended first.
    pub unjoined: Option<String>,
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
    let mut journaled = conversation.messages().len();
    let resumed = std::mem::take(&mut setup.resumed);
    let resumed_ids: Vec<String> = resumed.iter().map(|c| c.request.id.clone()).collect();
    // An answer given while no Warden ran was `warden pending`'s: its audit line says so.
    let answered_by: HashMap<String, AnsweredBy> = resumed
        .iter()
        .filter(|c| c.answer.is_some())
        .map(|c| (c.request.id.clone(), AnsweredBy::Pending))
        .collect();
    let (mut turn, first) = if resumed.is_empty() {
        let Some(prompt) = prompt else {
            return Driven {
                conversation,
                stop: StopReason::EndTurn,
                unjoined: None,
            };
        };
        Turn::start(conversation, prompt, setup.limits, setup.words)
    } else {
        let requests: Vec<_> = resumed.iter().map(|c| c.request.clone()).collect();
        let files = warden_turn::load_files(
            &requests,
            &setup.cwd,
            setup.home.as_deref(),
            setup.tool_limits.edit_bytes,
        )
        .await;
        Turn::resume(
            conversation,
            warden_turn::ResumedBatch {
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
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let mut state = DriverState {
        setup,
        tx,
        asks: HashMap::new(),
        answers: FuturesUnordered::new(),
        ready: VecDeque::new(),
        tools: HashMap::new(),
        tool_tasks: Vec::new(),
        model: None,
        audits: Vec::new(),
        sync_before_run: answered_by.keys().cloned().collect(),
        answered_by,
        unsynced: HashMap::new(),
        specs: ToolSpecs::default(),
        notes: CallNotes::keeping_answers_of(resumed_ids),
        poll: None,
        asked: 0,
    };
    state.journal_conversation(&turn, &mut journaled);
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
            // the permission request (the runtime runs on one thread, see decision
            // 0004), and the client would wait for the audit log.
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
        let event = match event {
            // The previews of edits need the files as they are now; they are read off
            // the runtime's thread before the turn sees the reply.
            Event::ModelReplied {
                text,
                calls,
                finish,
                files: _,
            } => {
                let files = warden_turn::load_files(
                    &calls,
                    &state.setup.cwd,
                    state.setup.home.as_deref(),
                    state.setup.tool_limits.edit_bytes,
                )
                .await;
                // The user's hooks (`[[hook]]`) are processes: they run here, awaited,
                // before the turn judges the calls with what they said.
                let proposed = calls
                    .iter()
                    .map(|c| (c.name.clone(), c.arguments.clone()))
                    .collect();
                state.setup.gate.clone().consult_hooks(proposed).await;
                Event::ModelReplied {
                    text,
                    calls,
                    finish,
                    files,
                }
            }
            event => event,
        };
        if let (Some(c), Event::ModelReplied { text, .. } | Event::ModelStopped { text, .. }) =
            (&state.setup.checkpoints, &event)
            && !text.is_empty()
        {
            c.stage(&warden_journal::Record::AgentText { text: text.clone() });
        }
        let gate = state.setup.gate.clone();
        queue.extend(turn.handle(event, gate.as_ref()));
        state.journal_conversation(&turn, &mut journaled);
    };
    state.journal_conversation(&turn, &mut journaled);
    if let Some(c) = &state.setup.checkpoints {
        c.flush();
    }
    state.wind_down().await;
    // Spare answer files for the next turn's requests, made while nobody waits.
    if let Some(c) = &state.setup.checkpoints {
        c.replenish();
    }
    let unjoined = turn.take_unjoined_prompt();
    Driven {
        conversation: turn.into_conversation(),
        stop,
        unjoined,
    }
}

/// A model reply being assembled from its stream.
#[derive(Default)]
struct Reply {
    text: String,
    calls: Vec<warden_model::ToolCallRequest>,
}

enum Step {
    Chunk(String),
    More,
    Done(Event),
}

impl Reply {
    fn take(&mut self, item: Option<Result<ModelEvent, warden_model::ModelError>>) -> Step {
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

/// An open question: a permission request (or its form) waiting for its answer.
struct Ask {
    question: u32,
    withdraw: CancellationToken,
    since: Instant,
}

struct DriverState {
    setup: TurnSetup,
    tx: mpsc::UnboundedSender<Msg>,
    asks: HashMap<String, Ask>,
    /// The answers to open permission requests, polled by the loop itself: an answer
    /// needs no task hop, and dropping these futures withdraws their requests
    /// (`$/cancel_request`) at once, before the turn's answer.
    answers: FuturesUnordered<BoxFuture<'static, Option<Answered>>>,
    /// Events that are already known (a model reply that was ready at once).
    ready: VecDeque<Event>,
    tools: HashMap<String, CancellationToken>,
    tool_tasks: Vec<JoinHandle<()>>,
    model: Option<Streaming>,
    /// What is known of each call, for its journal records.
    notes: CallNotes,
    /// The timer that looks for answers given from another terminal, while calls wait.
    poll: Option<tokio::time::Interval>,
    /// How many permission requests the turn sent.
    asked: usize,
    /// Audit notes not yet handed to the log, in order, with their answer latencies.
    audits: Vec<(AuditNote, AuditContext)>,
    /// Who answered each call whose `Answered` audit note is still to come.
    answered_by: HashMap<String, AnsweredBy>,
    /// Claims the editor's answers won with a spare, synced before their calls run.
    unsynced: HashMap<String, warden_journal::Unsynced>,
    /// Calls of a restored session settled with an answer given while no Warden ran:
    /// the journal, which records that the answer was applied, is synced before such a
    /// call runs (see `restore.rs`).
    sync_before_run: std::collections::HashSet<String>,
    specs: ToolSpecs,
}

/// What the model is offered, built from the toolbox's lists and built again only when
/// one of them changed (an MCP server's list changed between model calls).
#[derive(Default)]
struct ToolSpecs {
    built_from: Vec<Arc<[ToolInfo]>>,
    specs: Option<Arc<[ToolSpec]>>,
}

impl ToolSpecs {
    fn get(&mut self, toolbox: &Toolbox) -> Arc<[ToolSpec]> {
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

impl DriverState {
    /// Journals the conversation's new entries, and for each new tool result its
    /// call's `finished` record.
    fn journal_conversation(&mut self, turn: &Turn, journaled: &mut usize) {
        let Some(c) = &self.setup.checkpoints else {
            return;
        };
        let messages = turn.conversation().messages();
        for message in messages.iter().skip(*journaled) {
            // A prompt is recorded for the replay as it joins the conversation (a prompt
            // a resumed turn took joins after the calls in flight).
            if let warden_model::Message::User { text } = message {
                c.stage(&warden_journal::Record::UserMessage { text: text.clone() });
            }
            let message = crate::stored::message(message);
            let finished = crate::checkpoint::finished(&message);
            c.stage(&warden_journal::Record::Conversation { message });
            if let Some(finished) = finished
                && let warden_journal::Record::Finished(f) = &finished
                && self.notes.is_written(&f.call)
            {
                c.stage(&finished);
            }
        }
        *journaled = messages.len();
    }

    /// An answer given from another terminal to the open question of one of the calls
    /// that wait, if any: its request is withdrawn, and the answer goes to the turn as
    /// the editor's would.
    fn claimed_elsewhere(&mut self) -> Option<Event> {
        let c = self.setup.checkpoints.as_ref()?;
        let (call_id, claim) = self.asks.iter().find_map(|(id, ask)| {
            c.claimed_elsewhere(id, ask.question)
                .map(|claim| (id.clone(), claim))
        })?;
        // Removed here, so that the next look does not find the same answer again.
        if let Some(ask) = self.asks.remove(&call_id) {
            ask.withdraw.cancel();
        }
        c.write(&crate::checkpoint::answered(&claim));
        tracing::info!(call = %call_id, option = %claim.option, "answered from another terminal (warden pending)");
        self.answered_by.insert(call_id.clone(), claim.by);
        Some(Event::Answered {
            call_id,
            question: claim.question,
            answer: Answer::Selected {
                option_id: claim.option,
                edited_input: None,
                note: claim.note,
            },
        })
    }

    /// The event of an answer; who gave it is kept for its audit note, and an editor's
    /// answer that came second is audited as refused.
    fn answered(&mut self, reply: Answered) -> Event {
        let Answered {
            call_id,
            question,
            answer,
            by,
            refused,
            unsynced,
        } = reply;
        if let Some(unsynced) = unsynced {
            self.unsynced.insert(call_id.clone(), unsynced);
        }
        if let Some(by) = by {
            self.answered_by.insert(call_id.clone(), by);
        }
        if let (Some(option_id), Some(first)) = (refused, by) {
            let (tool, args) = self
                .notes
                .call(&call_id)
                .map(|c| (c.tool.clone(), c.args.clone()))
                .unwrap_or_default();
            let reason = format!(
                "a second answer was refused; the call was answered before by {}",
                first.as_words()
            );
            tracing::info!(call = %call_id, option = %option_id, "{reason}");
            self.audits.push((
                AuditNote {
                    call_id: call_id.clone(),
                    tool,
                    args,
                    kind: AuditKind::Refused { option_id, reason },
                },
                AuditContext {
                    latency: None,
                    answered_by: Some(AnsweredBy::Editor),
                },
            ));
        }
        Event::Answered {
            call_id,
            question,
            answer,
        }
    }

    fn record_audits(&mut self) {
        for (note, context) in self.audits.drain(..) {
            self.setup.audit.record(&self.setup.session, &note, context);
        }
    }

    /// Writes what this step staged in the journal, then waits for the next event;
    /// `None` when something was handled without one (a text chunk or tool progress was
    /// forwarded, or a withdrawn request let go).
    async fn wait(
        &mut self,
        rx: &mut mpsc::UnboundedReceiver<Msg>,
        prompts: Option<&mut mpsc::UnboundedReceiver<String>>,
        cancel: &CancellationToken,
        cancel_sent: bool,
    ) -> Option<Event> {
        if let Some(c) = &self.setup.checkpoints {
            c.flush();
        }
        let msg = tokio::select! {
            biased;
            () = cancel.cancelled(), if !cancel_sent => return Some(Event::Cancel),
            Some(text) = next_prompt(prompts) => return Some(Event::Prompt { text }),
            Some(reply) = self.answers.next(), if !self.answers.is_empty() => {
                return Some(self.answered(reply?));
            }
            item = next_item(&mut self.model) => return self.take_reply(item),
            msg = rx.recv() => msg,
            _ = tick(&mut self.poll), if !self.asks.is_empty() && self.setup.checkpoints.is_some() => {
                return self.claimed_elsewhere();
            }
        };
        match msg {
            Some(Msg::Event(event)) => Some(event),
            Some(Msg::Progress(call_id, content)) => {
                self.setup.client.notify(updates::update(
                    &self.setup.session,
                    &call_id,
                    ToolCallUpdateFields::new().content(content),
                ));
                None
            }
            // The driver holds a sender, so the channel cannot close; treat it as a
            // cancel all the same rather than spin.
            None => Some(Event::Cancel),
        }
    }

    /// Carries out one command; `Some` when the turn ends.
    fn execute(&mut self, command: Command, turn: &Turn) -> Option<StopReason> {
        if let Some(c) = &self.setup.checkpoints {
            self.note(c.clone(), &command);
        }
        let session = &self.setup.session;
        match command {
            Command::Show { view, shown } => {
                let notification = to_acp::shown(session, &view, shown);
                self.setup.client.notify(notification);
            }
            Command::ShowInvalid {
                call_id,
                tool,
                args,
            } => {
                let notification = updates::proposed_invalid(session, &call_id, &tool, &args);
                self.setup.client.notify(notification);
            }
            Command::Running { call_id } => {
                let notification = updates::status(session, &call_id, ToolCallStatus::InProgress);
                self.setup.client.notify(notification);
            }
            Command::Failed { call_id, reason } => {
                let notification = updates::failed(session, &call_id, &reason);
                self.setup.client.notify(notification);
            }
            Command::Finished { call_id, result } => {
                let notification = updates::finished(session, &call_id, result);
                self.setup.client.notify(notification);
            }
            Command::Say(text) => {
                let notification = updates::message_chunk(session, text);
                self.setup.client.notify(notification);
            }
            Command::Ask(question) => self.ask(*question),
            Command::Elicit(form) => self.elicit(*form),
            Command::Withdraw { call_id } => {
                if let Some(ask) = self.asks.remove(&call_id) {
                    ask.withdraw.cancel();
                }
            }
            Command::Run { call_id, call } => self.run_tool(call_id, *call),
            Command::Store(request) => self.store_grant(*request),
            Command::Stop { call_id } => {
                if let Some(token) = self.tools.remove(&call_id) {
                    token.cancel();
                }
            }
            Command::CallModel => self.call_model(turn.conversation()),
            Command::Audit(note) => {
                let context = match &note.kind {
                    AuditKind::Answered { .. } => AuditContext {
                        latency: self.asks.remove(&note.call_id).map(|a| a.since.elapsed()),
                        answered_by: self.answered_by.remove(&note.call_id),
                    },
                    _ => AuditContext::default(),
                };
                self.audits.push((*note, context));
            }
            Command::Tell(notice) => {
                let notification = to_acp::notice::to_update(session, &notice, self.setup.notices);
                self.setup.client.notify(notification);
            }
            Command::End(stop) => return Some(to_acp::stop_reason(stop)),
        }
        None
    }

    /// Writes down what a command says about a call: its evaluation, what the client
    /// is shown, that it is about to run (a question is written down as it is sent,
    /// [`Self::note_question`]).
    fn note(&mut self, c: Checkpoints, command: &Command) {
        match command {
            Command::Audit(note) => {
                if let AuditKind::Evaluated { verdict } = &note.kind {
                    self.notes
                        .evaluated(&note.call_id, &note.tool, &note.args, verdict);
                }
            }
            Command::Show { view, shown } => match shown {
                Shown::First => {
                    let kind = crate::stored::tool_kind(to_acp::content::kind(view.kind));
                    self.notes.shown(&view.call_id, &view.title, kind);
                }
                // A call shown again (edited, or asked again after a restart).
                Shown::Again | Shown::Edited => self.notes.retitled(&view.call_id, &view.title),
            },
            Command::ShowInvalid { call_id, tool, .. } => {
                let title = updates::invalid_title(tool);
                self.notes
                    .shown(call_id, &title, warden_journal::ToolKind::Other);
            }
            Command::Run { call_id, .. } => self.notes.propose(&c, call_id),
            _ => {}
        }
    }

    /// Writes down a question as it is sent: the options it offers, the call as it
    /// shows it, and the question itself.
    fn note_question(
        &mut self,
        c: &Checkpoints,
        question: &Question,
        request: &warden_acp_transport::schema::RequestPermissionRequest,
    ) {
        let call_id = question.call_id();
        let options = request
            .options
            .iter()
            .map(|o| warden_journal::OfferedOption {
                id: o.option_id.0.to_string(),
                name: o.name.clone(),
                kind: crate::stored::option_kind(o.kind),
            })
            .collect();
        self.notes.offered(call_id, options);
        // The call as this question shows it, then the question: a load finds the latest
        // question's arguments, risk and options.
        self.notes.propose_for_question(c, call_id);
        c.asking(call_id, question.number);
        // Written with what was staged before it (the reply's conversation entry, the
        // call's `proposed` record) before the request is sent: a request the client saw
        // is one the journal knows was asked.
        self.asked += 1;
        c.write(&warden_journal::Record::Asked {
            call: call_id.to_owned(),
            request: self.asked.to_string(),
            question: question.number,
            edited: question.edited,
        });
        // Spare answer files, so that the answer is claimed without creating one
        // (nothing is done when the session has them).
        c.replenish();
        if self.poll.is_none() {
            // The first look is one period from now: an `interval`'s first tick is at
            // once, when the call was only just asked (and its old answer file, if any,
            // just removed), and it would cost the request's path a look at the disk.
            let mut poll =
                tokio::time::interval_at(tokio::time::Instant::now() + CLAIM_POLL, CLAIM_POLL);
            poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            self.poll = Some(poll);
        }
    }

    fn ask(&mut self, question: Question) {
        let request = permission::request(&self.setup.session, &question, self.setup.words);
        if let Some(c) = self.setup.checkpoints.clone() {
            self.note_question(&c, &question, &request);
        }
        // Sent here, in the loop, so the request is on the wire before anything the
        // loop sends later.
        let pending = self.setup.client.send_permission_request(&request);
        self.await_answer(
            (question.call_id().to_owned(), question.number),
            pending,
            question.timeout(),
            "the client answered with an error",
            |response| match serde_json::from_value(response) {
                Ok(response) => permission::read_answer(response),
                Err(err) => Answer::Failed {
                    reason: warden_model::one_line(&format!(
                        "the client's answer is malformed: {err}"
                    )),
                },
            },
        );
    }

    /// Opens the form of a call and feeds its answer back like a permission answer; a
    /// form that cannot be built is a failed answer, a denial.
    fn elicit(&mut self, form: Form) {
        let request = match to_acp::elicit::request(&self.setup.session, &form, self.setup.words) {
            Ok(request) => request,
            Err(err) => {
                self.ready.push_back(Event::Answered {
                    call_id: form.call_id,
                    question: form.question,
                    answer: Answer::Failed {
                        reason: format!("the form could not be shown ({err})"),
                    },
                });
                return;
            }
        };
        let pending = self.setup.client.send(request);
        let args = form.args;
        self.await_answer(
            (form.call_id, form.question),
            pending,
            form.timeout,
            "the client answered the form with an error",
            move |response| to_acp::elicit::read(response, &args),
        );
    }

    /// Waits for the user's answer to a call (a permission request or its form): the
    /// wait can be withdrawn with the call, and whatever comes back becomes the call's
    /// [`Answer`], fail closed: only a response that `read` accepts can allow.
    fn await_answer<T>(
        &mut self,
        (call_id, question): (String, u32),
        pending: warden_acp_transport::PendingRequest<T>,
        timeout: Option<Duration>,
        rejected: &'static str,
        read: impl FnOnce(T) -> Answer + Send + 'static,
    ) where
        T: warden_acp_transport::JsonRpcResponse + Send + 'static,
    {
        let withdraw = CancellationToken::new();
        self.asks.insert(
            call_id.clone(),
            Ask {
                question,
                withdraw: withdraw.clone(),
                since: Instant::now(),
            },
        );
        let checkpoints = self.setup.checkpoints.clone();
        self.answers.push(Box::pin(async move {
            let answer = match pending.wait(timeout, &withdraw).await {
                Ok(response) => read(response),
                Err(ClientRequestError::Timeout { .. }) => Answer::TimedOut,
                // Withdrawn by the turn itself: it already settled the call.
                Err(ClientRequestError::Withdrawn { .. }) => return None,
                // With the connection gone nobody can answer; the turn is over.
                Err(ClientRequestError::Disconnected { .. }) => Answer::Cancelled,
                // One line, whole: the reason ends up in a sentence for the model and
                // the user.
                Err(ClientRequestError::Rejected { error, .. }) => Answer::Failed {
                    reason: warden_model::one_line(&format!("{rejected}: {error}")),
                },
            };
            let chosen = chosen(&answer);
            let reply = match checkpoints {
                Some(c) => claim_answer(c, (call_id, question), answer).await,
                None => Answered {
                    call_id,
                    question,
                    answer,
                    by: chosen.then_some(AnsweredBy::Editor),
                    refused: None,
                    unsynced: None,
                },
            };
            Some(reply)
        }));
    }

    fn run_tool(&mut self, call_id: String, call: PreparedCall) {
        let claim = self.unsynced.remove(&call_id);
        let sync_journal = self.sync_before_run.remove(&call_id);
        let token = CancellationToken::new();
        self.tools.insert(call_id.clone(), token.clone());
        let tx = self.tx.clone();
        let cwd = self.setup.cwd.clone();
        let home = self.setup.home.clone();
        let editor = self.setup.editor.clone();
        let limits = self.setup.tool_limits.clone();
        let secrets = self.setup.secrets.clone();
        let toolbox = self.setup.toolbox.clone();
        let checkpoints = self.setup.checkpoints.clone();
        self.tool_tasks.push(tokio::spawn(async move {
            // The call is written down as running before it starts: a journal without
            // this record proves the call never started (the write reaches the kernel,
            // which a killed process does not lose), so a restart never runs it again.
            // It is not synced: every allowed call would wait for the disk. What must
            // hold across a power loss is the answer's claim, which is synced before an
            // asked call runs, and a restart runs again only calls that were asked
            // (`restore.rs`). When the record cannot be written, the call does not run.
            // The answer that lets the call run is on disk before anything of the call
            // happens: a claim made with a spare is synced here, on the blocking pool,
            // after the client was told the call is in progress.
            let durable = match (claim, &checkpoints) {
                (Some(claim), Some(c)) => {
                    let c = c.clone();
                    match tokio::task::spawn_blocking(move || c.make_durable(claim)).await {
                        Ok(synced) => synced.map_err(|e| e.to_string()),
                        Err(e) => Err(e.to_string()),
                    }
                }
                (None, Some(c)) if sync_journal => {
                    let c = c.clone();
                    match tokio::task::spawn_blocking(move || c.sync_journal()).await {
                        Ok(synced) => synced.map_err(|e| e.to_string()),
                        Err(e) => Err(e.to_string()),
                    }
                }
                _ => Ok(()),
            };
            let recorded = durable
                .map_err(|e| format!("its answer could not be written to disk ({e})"))
                .and_then(|()| match &checkpoints {
                    Some(c) => c
                        .try_write(&warden_journal::Record::Running {
                            call: call_id.clone(),
                        })
                        .map_err(|e| {
                            format!("it could not be recorded in the session's journal ({e})")
                        }),
                    None => Ok(()),
                });
            if let Err(e) = recorded {
                let text = format!("The call did not run: {e}.");
                let result = ToolResult {
                    ok: false,
                    timed_out: false,
                    content: Vec::new(),
                    raw_output: serde_json::Value::String(text.clone()),
                    for_model: text,
                };
                let _ = tx.send(Msg::Event(Event::ToolFinished { call_id, result }));
                return;
            }
            let progress_tx = tx.clone();
            let progress_id = call_id.clone();
            let progress_secrets = secrets.clone();
            let progress = move |content: Vec<warden_tools::Content>| {
                let content = to_acp::content::content(progress_secrets.redact_content(content));
                let _ = progress_tx.send(Msg::Progress(progress_id.clone(), content));
            };
            let output = toolbox
                .run(
                    &call,
                    ExecContext {
                        cwd: &cwd,
                        home: home.as_deref(),
                        editor,
                        cancel: token,
                        limits,
                        progress: &progress,
                        secrets: &secrets,
                        secret_files: secret_files(&cwd, home.as_deref()),
                    },
                )
                .await;
            // The one point where a tool's output becomes what the model and the client
            // are given: no secret value passes it.
            let output = secrets.redact_output(output);
            let result = ToolResult {
                ok: output.ok,
                timed_out: output.timed_out,
                content: output.content,
                raw_output: output.raw_output,
                for_model: output.for_model,
            };
            let _ = tx.send(Msg::Event(Event::ToolFinished { call_id, result }));
        }));
    }

    /// Stores a grant off the protocol's thread (it may wait for the grants file's
    /// lock) and feeds the result back to the turn.
    fn store_grant(&mut self, request: GrantRequest) {
        let GrantRequest {
            call_id,
            call,
            verdict,
            scope,
            effect,
        } = request;
        let gate = self.setup.gate.clone();
        let tx = self.tx.clone();
        let checkpoints = self.setup.checkpoints.clone();
        self.tool_tasks.push(tokio::spawn(async move {
            let stored = tokio::task::spawn_blocking(move || {
                let grant = gate.remember(&call, &verdict, scope, effect)?;
                // A session's own grant is journaled with the session, so that loading
                // it brings the grant back (stored grants live in their own file).
                if let (Some(c), Some(grant)) = (&checkpoints, &grant)
                    && grant.scope == warden_permissions::Scope::Session
                {
                    c.write(&warden_journal::Record::Grant {
                        grant: grant.clone(),
                    });
                }
                Ok::<_, warden_turn::RememberError>(())
            })
            .await;
            let stored = match stored {
                Ok(Ok(())) => Stored::Yes,
                Ok(Err(err)) => Stored::No {
                    reason: err.to_string(),
                },
                Err(err) => Stored::No {
                    reason: format!("storing it failed: {err}"),
                },
            };
            let _ = tx.send(Msg::Event(Event::GrantStored {
                call_id,
                scope,
                effect,
                stored,
            }));
        }));
    }

    fn call_model(&mut self, conversation: &Conversation) {
        let specs = self.specs.get(&self.setup.toolbox);
        let stream = self.setup.model.respond(conversation, &specs);
        // A reply still streaming from an earlier call is dropped, which aborts it.
        self.model = Some(Streaming {
            stream,
            reply: Reply::default(),
        });
        // Whatever the model has ready now (all of it, for the scripted model) is taken
        // here; the rest is polled by the loop (`next`).
        while let Some(item) = self
            .model
            .as_mut()
            .and_then(|streaming| streaming.stream.next().now_or_never())
        {
            if let Some(event) = self.take_reply(item) {
                self.ready.push_back(event);
            }
        }
    }

    /// Takes one item of the streaming reply: a text chunk goes to the client, and the
    /// complete reply comes back as its event (and the stream is dropped).
    fn take_reply(
        &mut self,
        item: Option<Result<ModelEvent, warden_model::ModelError>>,
    ) -> Option<Event> {
        let streaming = self.model.as_mut()?;
        match streaming.reply.take(item) {
            Step::Chunk(text) => {
                self.setup
                    .client
                    .notify(updates::message_chunk(&self.setup.session, text));
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
        for (_, ask) in self.asks.drain() {
            ask.withdraw.cancel();
        }
        for (_, token) in self.tools.drain() {
            token.cancel();
        }
        // Dropping the pending answers withdraws their requests now, before the answer.
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

/// The next item of the streaming reply; pending for ever when there is none, so that
/// the loop's other branches decide.
async fn next_item(
    model: &mut Option<Streaming>,
) -> Option<Result<ModelEvent, warden_model::ModelError>> {
    match model {
        Some(streaming) => streaming.stream.next().await,
        None => std::future::pending().await,
    }
}

/// The next prompt handed to a running turn; never, for a turn that takes none.
async fn next_prompt(prompts: Option<&mut mpsc::UnboundedReceiver<String>>) -> Option<String> {
    match prompts {
        Some(prompts) => prompts.recv().await,
        None => std::future::pending().await,
    }
}

/// The next tick of the claim poll; never, without one.
async fn tick(poll: &mut Option<tokio::time::Interval>) {
    match poll {
        Some(poll) => {
            poll.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// Whether a person chose an option (rather than no answer coming: a timeout, a
/// cancel, a failure).
fn chosen(answer: &Answer) -> bool {
    matches!(answer, Answer::Selected { .. })
}

/// Claims a call for the editor's answer before the turn sees it: with a spare answer
/// file, here, by linking it under the call's name, and synced before the call runs
/// (`run_tool`); without one, whole and synced on the blocking pool. When the call was
/// answered first from another terminal, that answer is the one used, and the editor's
/// is refused. When the claim cannot be made, the answer is a denial.
async fn claim_answer(
    c: Checkpoints,
    (call_id, question): (String, u32),
    answer: Answer,
) -> Answered {
    let by = chosen(&answer).then_some(AnsweredBy::Editor);
    let (option, note) = match &answer {
        // Not an answer yet: it opens the form, whose answer is the one claimed.
        Answer::Selected { option_id, .. } if option_id == EDIT_OR_NOTE => {
            return Answered {
                call_id,
                question,
                answer,
                by,
                refused: None,
                unsynced: None,
            };
        }
        Answer::Selected {
            option_id, note, ..
        } => (option_id.clone(), note.clone()),
        Answer::Cancelled => (REJECT_ONCE.to_owned(), None),
        Answer::TimedOut => (REJECT_ONCE.to_owned(), Some("no answer in time".to_owned())),
        Answer::Failed { reason } => (REJECT_ONCE.to_owned(), Some(reason.clone())),
    };
    let claim = warden_journal::Claim {
        call: call_id.clone(),
        question,
        option: option.clone(),
        by: AnsweredBy::Editor,
        note,
        at_ms: warden_journal::now_ms(),
    };
    let failed = |e: String| Answered {
        call_id: call_id.clone(),
        question,
        answer: Answer::Failed {
            reason: warden_model::one_line(&format!("the answer could not be recorded: {e}")),
        },
        by: None,
        refused: None,
        unsynced: None,
    };
    // With a spare answer file ready, the claim is taken here without creating a file
    // or waiting for the disk (it is synced before the call runs); without one, all of
    // it happens on the blocking pool.
    let owner = match c.claim_now(&claim) {
        Some(owner) => owner.map_err(|e| e.to_string()),
        None => match tokio::task::spawn_blocking(move || c.claim(claim)).await {
            Ok(owner) => owner.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        },
    };
    match owner {
        Ok(Owner::This(unsynced)) => Answered {
            call_id,
            question,
            answer,
            by,
            refused: None,
            unsynced,
        },
        Ok(Owner::First(first)) => Answered {
            call_id,
            question,
            answer: Answer::Selected {
                option_id: first.option,
                edited_input: None,
                note: first.note,
            },
            by: Some(first.by),
            // What the editor chose, when it chose: its answer came second.
            refused: by.map(|_| option),
            unsynced: None,
        },
        Err(e) => failed(e),
    }
}

/// Which files hold secrets, by the policy engine's classification, for the tools (which
/// do not compile the engine): `fs_search` leaves them out.
fn secret_files(
    cwd: &std::path::Path,
    home: Option<&std::path::Path>,
) -> warden_tools::SecretFiles {
    let mut ctx = warden_permissions::Context::new(cwd);
    if let Some(home) = home {
        ctx = ctx.with_home(home);
    }
    std::sync::Arc::new(move |path| warden_permissions::holds_secrets(path, &ctx))
}
