//! The prompt turn as a state machine.
//!
//! A turn reacts to a closed set of [`Event`]s (the model's reply, an answer, a tool's
//! result, a cancel) and answers each with [`Command`]s (show a call, ask a question,
//! run a call, call the model, end the turn). It does no I/O: the agent's driver carries
//! the commands out and feeds the events back, so every rule here is tested without a
//! wire, a model or a clock.
//!
//! Calls are deferred, not asked one by one: when a model reply proposes a batch of calls,
//! the allowed ones run at once, every call that needs the user is asked at the same
//! time, and the model is called again only when the whole batch is settled.
//!
//! Effects are commands too: storing a grant is [`Command::Store`], whose result
//! comes back as [`Event::GrantStored`], so the turn never waits on a file lock.
//!
//! Invariants:
//! - A call is shown ([`Command::Show`], pending) before anything else about it.
//! - A call runs only after an `allow` verdict or an `allow-*` answer to a question
//!   that offered that option; every other answer is a denial.
//! - Each question takes one answer. A call may be asked more than once (an edit that
//!   raised its risk, a restart); each question is question n of its call, and only an
//!   answer to the call's latest question is taken: an answer to an earlier question
//!   changes nothing.
//! - After [`Command::End`] the turn emits nothing more.
//! - Every call of the conversation gets a result, so the next model request sees a
//!   well-formed history even after a cancel.
//! - What is stored for an "always" answer is the grant the request proposed, never
//!   one computed again.
//! - The model is called again only when every call of the batch is settled and every
//!   grant it stored has been written.

use warden_i18n::Args;
use warden_model::{Conversation, FinishReason, ToolCallRequest, ToolOutcome};
use warden_permissions::{Decision, Risk};
use warden_tools::Content;

use crate::audit::{AnswerOutcome, AuditKind, AuditNote};
use crate::choice::{self, Answer, Choice};
use crate::command::{Command, GrantRequest, Stop};
use crate::event::{Event, Stored, ToolResult};
use crate::gate::{Gate, GrantEffect, GrantScope, Prepared, Verdict};
use crate::notice::{Notice, Severity};
use crate::preview::{self, Files};
use crate::view::{CallView, Form, Question, Shown};
use crate::words::Words;

mod said;

use said::Said;

/// Bounds on one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnLimits {
    /// Model requests per turn; past it the turn ends with `max_turn_requests`.
    pub max_model_requests: u32,
    /// Permission requests waiting at once; past it calls are denied.
    pub max_pending: usize,
    /// Permission requests per turn; past it calls are denied.
    pub max_asks: usize,
}

impl Default for TurnLimits {
    fn default() -> TurnLimits {
        TurnLimits {
            max_model_requests: 50,
            max_pending: 16,
            max_asks: 64,
        }
    }
}

/// Where a call stands. Each state holds what it needs, and nothing else.
#[derive(Debug, Clone)]
enum CallState {
    /// Waiting for the user's answer (boxed: it is by far the largest state).
    Asking(Box<Waiting>),
    Running,
    /// Settled: it ran, or it never will.
    Done,
}

/// A call waiting for the user's answer to question `question`, a request that offered
/// `offered` (or to the form it opened).
#[derive(Debug, Clone)]
struct Waiting {
    question: u32,
    prepared: Prepared,
    verdict: Verdict,
    /// What the call showed (its preview and risk), for a request asked again.
    content: Vec<Content>,
    offered: Vec<Choice>,
}

#[derive(Debug, Clone)]
struct Call {
    id: String,
    tool: String,
    state: CallState,
    /// How many questions were asked about it, in this turn and before a restart.
    questions: u32,
}

/// A call a restored session left open after asking it, to settle before anything
/// else of the turn (see [`Turn::resume`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Resumed {
    /// The call as its latest question showed it.
    pub request: ToolCallRequest,
    /// How many questions were asked about it before (the latest one's number).
    pub asked: u32,
    /// The answer to its latest question, given while no Warden ran, to apply rather
    /// than ask again.
    pub answer: Option<StoredAnswer>,
}

/// The calls a restored session left open, with what their previews need from disk
/// (read by the driver, as for a model's reply): a call asked again shows its diff as
/// it did the first time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResumedBatch {
    pub calls: Vec<Resumed>,
    pub files: Files,
}

/// An answer to a restored call's latest question (from `warden pending`).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAnswer {
    pub option_id: String,
    pub note: Option<String>,
    /// The risk the question showed: a call whose risk rose since is asked again.
    pub shown_risk: Risk,
}

impl Call {
    fn is_asking(&self) -> bool {
        matches!(self.state, CallState::Asking(_))
    }

    fn is_done(&self) -> bool {
        matches!(self.state, CallState::Done)
    }
}

/// One prompt turn.
#[derive(Debug)]
pub struct Turn {
    conversation: Conversation,
    /// What a person reads, in the session's language.
    words: Words,
    limits: TurnLimits,
    batch: Vec<Call>,
    notes: Vec<(String, String)>,
    /// What the current batch's previews read from disk.
    files: Files,
    model_requests: u32,
    asks: usize,
    /// Grants asked to be stored whose result has not come back.
    storing: usize,
    /// What each grant asked to be stored covers, in words, by call: the notice that
    /// it was stored names it.
    stored_words: Vec<(String, String)>,
    /// The client shows forms: requests offer `edit-or-note`.
    forms: bool,
    ended: bool,
    /// A prompt that has not joined the conversation yet: the user's prompt while the
    /// calls a restored session left waiting are settled first (see [`Turn::resume`]),
    /// or one the turn took while it ran ([`Event::Prompt`]). It joins the conversation
    /// after the results of the calls in flight.
    prompt: Option<String>,
}

impl Turn {
    /// Starts a turn for `prompt`: the prompt joins the conversation and the model is
    /// asked for its reply.
    pub fn start(
        mut conversation: Conversation,
        prompt: String,
        limits: TurnLimits,
        words: Words,
    ) -> (Turn, Vec<Command>) {
        conversation.push_user(prompt);
        let turn = Turn {
            conversation,
            limits,
            words,
            batch: Vec::new(),
            notes: Vec::new(),
            files: Files::default(),
            model_requests: 1,
            asks: 0,
            storing: 0,
            stored_words: Vec::new(),
            forms: false,
            ended: false,
            prompt: None,
        };
        (turn, vec![Command::CallModel])
    }

    /// Starts a turn in a restored session whose last reply left `waiting` calls
    /// without a result: they are judged again by today's policy, as a batch of their
    /// own. A call whose latest question was answered while no Warden ran is settled
    /// with that answer, without a new question (unless a deny rule now denies it, or
    /// its risk rose above what the question showed); the others are asked again, as
    /// their next question, when the policy asks. The client already has their
    /// `tool_call`: they are shown again with a `tool_call_update`. Once they are
    /// settled, the model is asked, as if the turn had never stopped, after `prompt`
    /// joined the conversation when there is one (a turn started as the session is
    /// restored has none, until the user sends one: [`Event::Prompt`]). The reply that
    /// proposed them is already in the conversation.
    pub fn resume(
        conversation: Conversation,
        waiting: ResumedBatch,
        prompt: Option<String>,
        limits: TurnLimits,
        forms: bool,
        words: Words,
        gate: &dyn Gate,
    ) -> (Turn, Vec<Command>) {
        let ResumedBatch {
            calls: waiting,
            files,
        } = waiting;
        let mut turn = Turn {
            conversation,
            limits,
            words,
            batch: Vec::new(),
            notes: Vec::new(),
            files,
            model_requests: 0,
            asks: 0,
            storing: 0,
            stored_words: Vec::new(),
            forms,
            ended: false,
            prompt,
        };
        let mut out = Vec::new();
        // Every call joins the batch before any stored answer is applied, so that the
        // batch is settled (and the model asked) only once all of them are.
        let answers: Vec<_> = waiting
            .into_iter()
            .filter_map(|resumed| turn.propose_again(resumed, gate, &mut out))
            .collect();
        for (id, question, answer) in answers {
            turn.on_answer(&id, question, answer, gate, &mut out);
        }
        turn.continue_if_settled(&mut out);
        (turn, out)
    }

    /// Offers "approve with edits" and "deny with a note" as a form (for clients that
    /// advertise `elicitation.form`).
    pub fn offer_forms(&mut self, forms: bool) {
        self.forms = forms;
    }

    /// The conversation so far: what the model is asked to answer.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// The conversation, once the turn is over, for the session to keep.
    pub fn into_conversation(self) -> Conversation {
        self.conversation
    }

    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// The prompt the turn took that never joined the conversation, because the turn
    /// ended first (the model failed, a limit, a cancel): the caller decides its fate.
    pub fn take_unjoined_prompt(&mut self) -> Option<String> {
        self.prompt.take()
    }

    /// Reacts to one event.
    pub fn handle(&mut self, event: Event, gate: &dyn Gate) -> Vec<Command> {
        if self.ended {
            return Vec::new();
        }
        let mut out = Vec::new();
        match event {
            Event::ModelReplied {
                text,
                calls,
                finish,
                files,
            } => {
                self.files = files;
                self.on_reply(text, calls, finish, gate, &mut out);
            }
            Event::ModelStopped { text, calls } => {
                // A reply that ends without saying why is taken as finished if it said
                // something and asked for nothing; otherwise it is incomplete, and none
                // of its calls may run on arguments that may be cut short.
                if calls.is_empty() && !text.is_empty() {
                    self.on_reply(text, calls, FinishReason::EndTurn, gate, &mut out);
                } else {
                    let message = self.words.plain("agent-reply-incomplete");
                    self.fail(message, &mut out);
                }
            }
            Event::ModelFailed { error } => {
                // Quoted, on one line: an error may carry JSON or HTML that would
                // otherwise be read as Markdown.
                let error = warden_model::code_span(&warden_model::one_line(&error));
                let message = self
                    .words
                    .text("agent-model-failed", &Args::new().with("error", error));
                self.fail(message, &mut out);
            }
            Event::Answered {
                call_id,
                question,
                answer,
            } => self.on_answer(&call_id, question, answer, gate, &mut out),
            Event::ToolFinished { call_id, result } => self.on_tool(&call_id, result, &mut out),
            Event::GrantStored {
                call_id,
                scope,
                effect,
                stored,
            } => self.on_stored(&call_id, scope, effect, stored, gate, &mut out),
            Event::Cancel => self.cancel(&mut out),
            Event::Prompt { text } => match &mut self.prompt {
                // Only one prompt is handed to a turn; a second would be a driver's bug,
                // and it is kept rather than lost.
                Some(waiting) => {
                    waiting.push_str("\n\n");
                    waiting.push_str(&text);
                }
                None => self.prompt = Some(text),
            },
        }
        out
    }

    fn fail(&mut self, message: String, out: &mut Vec<Command>) {
        out.push(Command::Say(message));
        self.end(Stop::EndTurn, out);
    }

    fn on_reply(
        &mut self,
        text: String,
        calls: Vec<ToolCallRequest>,
        finish: FinishReason,
        gate: &dyn Gate,
        out: &mut Vec<Command>,
    ) {
        self.conversation.push_assistant(text, calls.clone());
        if finish == FinishReason::MaxTokens {
            // Calls cut off at the token limit may carry truncated arguments: none runs.
            for call in &calls {
                self.conversation.push_tool_result(
                    call.id.clone(),
                    call.name.clone(),
                    ToolOutcome::Cancelled,
                    "The reply was cut off at the token limit; this call did not run.".to_owned(),
                );
            }
            self.end(Stop::MaxTokens, out);
            return;
        }
        if calls.is_empty() {
            let stop = match finish {
                FinishReason::Refusal => Stop::Refusal,
                _ => Stop::EndTurn,
            };
            // A prompt the turn took while the model answered is answered now.
            if stop == Stop::EndTurn && self.prompt.is_some() {
                self.ask_model(out);
                return;
            }
            self.end(stop, out);
            return;
        }
        for request in calls {
            self.propose(request, gate, out);
        }
        self.continue_if_settled(out);
    }

    fn propose(&mut self, request: ToolCallRequest, gate: &dyn Gate, out: &mut Vec<Command>) {
        let Some((prepared, verdict, content)) = self.judge(&request, false, gate, out) else {
            return;
        };
        let mut questions = 0;
        let state = self.decide(&request.id, prepared, verdict, content, &mut questions, out);
        self.batch.push(Call {
            id: request.id,
            tool: request.name,
            state,
            questions,
        });
    }

    /// A call a restored session left open (see [`Turn::resume`]); the stored answer to
    /// apply to its waiting question, when it has one that still stands.
    fn propose_again(
        &mut self,
        resumed: Resumed,
        gate: &dyn Gate,
        out: &mut Vec<Command>,
    ) -> Option<(String, u32, Answer)> {
        let Resumed {
            request,
            asked,
            answer,
        } = resumed;
        let (prepared, verdict, content) = self.judge(&request, true, gate, out)?;
        let (id, tool) = (request.id, request.name);
        let mut questions = asked;
        let raised = |answer: &StoredAnswer| {
            verdict.decision == Decision::Ask && verdict.risk > answer.shown_risk
        };
        let Some(answer) = answer.filter(|a| verdict.decision != Decision::Deny && !raised(a))
        else {
            let state = self.decide(&id, prepared, verdict, content, &mut questions, out);
            self.batch.push(Call {
                id,
                tool,
                state,
                questions,
            });
            return None;
        };
        // The answer stands for the question it was given to, as if it had just come.
        let offered = choice::offered(&verdict, self.forms);
        self.batch.push(Call {
            id: id.clone(),
            tool,
            state: CallState::Asking(Box::new(Waiting {
                question: asked,
                prepared,
                verdict,
                content,
                offered,
            })),
            questions,
        });
        let answer = Answer::Selected {
            option_id: answer.option_id,
            edited_input: None,
            note: answer.note,
        };
        Some((id, asked, answer))
    }

    /// Prepares and evaluates a proposed call and shows it: its `tool_call` (or, for a
    /// call the client was shown before a restart, a `tool_call_update` with all of it),
    /// then its evaluation's audit note. `None` when the call is invalid: it is then
    /// settled, failed.
    fn judge(
        &mut self,
        request: &ToolCallRequest,
        shown_before: bool,
        gate: &dyn Gate,
        out: &mut Vec<Command>,
    ) -> Option<(Prepared, Verdict, Vec<Content>)> {
        let id = request.id.clone();
        let tool = request.name.clone();
        // Evaluated before the first notification, which shows the risk in words; the
        // notification still goes out before anything else about the call.
        let (prepared, verdict) = match gate.prepare_and_evaluate(&request.name, &request.arguments)
        {
            Ok(judged) => judged,
            Err(reason) => {
                out.push(Command::ShowInvalid {
                    call_id: id.clone(),
                    tool: request.name.clone(),
                    args: request.arguments.clone(),
                });
                out.push(audit(
                    &id,
                    &tool,
                    &request.arguments,
                    AuditKind::Malformed {
                        reason: reason.to_string(),
                    },
                ));
                let said = Said::invalid(self.words, &reason.to_string());
                self.finish(&id, &tool, ToolOutcome::Failed, said, out);
                self.batch.push(Call {
                    id,
                    tool,
                    state: CallState::Done,
                    questions: 0,
                });
                return None;
            }
        };
        let content = preview::content(&prepared, &verdict, &self.files, self.words);
        let shown = if shown_before {
            Shown::Again
        } else {
            Shown::First
        };
        out.push(Command::Show {
            view: Box::new(CallView::new(&id, &prepared, content.clone())),
            shown,
        });
        out.push(evaluation_note(&id, &prepared, &verdict));
        Some((prepared, verdict, content))
    }

    /// Acts on a call's verdict: run it, deny it, or ask it as its next question
    /// (`questions` counts the questions asked about it). The call is not in a waiting
    /// state in the batch while this runs; the state returned is its new one.
    fn decide(
        &mut self,
        id: &str,
        prepared: Prepared,
        verdict: Verdict,
        content: Vec<Content>,
        questions: &mut u32,
        out: &mut Vec<Command>,
    ) -> CallState {
        let tool = prepared.tool.clone();
        match verdict.decision {
            Decision::Allow => self.run(id, prepared, out),
            Decision::Deny => {
                let said = Said::denied_by_policy(self.words, &verdict);
                self.finish(id, &tool, ToolOutcome::Denied, said, out);
                CallState::Done
            }
            Decision::Ask => {
                let waiting = self.batch.iter().filter(|c| c.is_asking()).count();
                if waiting >= self.limits.max_pending || self.asks >= self.limits.max_asks {
                    let said = Said::too_many(self.words, &self.limits, &verdict);
                    self.finish(id, &tool, ToolOutcome::Denied, said, out);
                    return CallState::Done;
                }
                self.asks += 1;
                *questions += 1;
                let edited = prepared.args != self.proposed_args(id);
                let offered = choice::offered(&verdict, self.forms);
                out.push(Command::Ask(Box::new(Question {
                    number: *questions,
                    edited,
                    view: CallView::new(id, &prepared, content.clone()),
                    verdict: verdict.clone(),
                    choices: offered.clone(),
                })));
                CallState::Asking(Box::new(Waiting {
                    question: *questions,
                    offered,
                    prepared,
                    verdict,
                    content,
                }))
            }
        }
    }

    fn run(&self, id: &str, prepared: Prepared, out: &mut Vec<Command>) -> CallState {
        out.push(Command::Running {
            call_id: id.to_owned(),
        });
        out.push(Command::Run {
            call_id: id.to_owned(),
            call: Box::new(prepared.call),
        });
        CallState::Running
    }

    /// Ends a call that does not run (or no longer runs): a failed update and a result
    /// for the model.
    fn finish(
        &mut self,
        id: &str,
        tool: &str,
        outcome: ToolOutcome,
        said: Said,
        out: &mut Vec<Command>,
    ) {
        out.push(Command::Failed {
            call_id: id.to_owned(),
            reason: said.person,
        });
        self.conversation
            .push_tool_result(id.to_owned(), tool.to_owned(), outcome, said.model);
    }

    fn position(&self, call_id: &str) -> Option<usize> {
        self.batch.iter().position(|c| c.id == call_id)
    }

    fn on_answer(
        &mut self,
        call_id: &str,
        question: u32,
        answer: Answer,
        gate: &dyn Gate,
        out: &mut Vec<Command>,
    ) {
        let Some(index) = self.position(call_id) else {
            return;
        };
        // A late answer to a request that was already settled (withdrawn because a
        // grant covered it, or answered twice), or an answer to an earlier question
        // than the one the call waits for, changes nothing: each question takes one
        // answer, and only the latest question's can let the call run.
        match &self.batch[index].state {
            CallState::Asking(waiting) if waiting.question == question => {}
            _ => return,
        }
        let (id, tool) = (self.batch[index].id.clone(), self.batch[index].tool.clone());
        let CallState::Asking(waiting) =
            std::mem::replace(&mut self.batch[index].state, CallState::Done)
        else {
            return;
        };
        let Waiting {
            question,
            prepared,
            verdict,
            content,
            offered,
        } = *waiting;
        let args = prepared.args.clone();
        let note_of = |outcome, option_id, note, reason| {
            audit(
                &id,
                &tool,
                &args,
                answered(outcome, option_id, note, reason),
            )
        };
        match answer {
            Answer::Cancelled => {
                out.push(note_of(AnswerOutcome::Cancelled, None, None, None));
                // The answered call is closed here (its request needs no withdrawal);
                // `cancel` closes every other open call, all before the turn's answer.
                let said = Said::cancelled(self.words);
                self.finish(&id, &tool, ToolOutcome::Cancelled, said, out);
                self.cancel(out);
                return;
            }
            Answer::TimedOut => {
                out.push(note_of(AnswerOutcome::TimedOut, None, None, None));
                let said = Said::timed_out(self.words, verdict.timeout);
                self.finish(&id, &tool, ToolOutcome::TimedOut, said, out);
            }
            Answer::Failed { reason } => {
                tracing::warn!(call = %id, %reason, "permission request failed; denying");
                out.push(note_of(
                    AnswerOutcome::Error,
                    None,
                    None,
                    Some(reason.clone()),
                ));
                let said = Said::answer_failed(self.words, &reason);
                self.finish(&id, &tool, ToolOutcome::Denied, said, out);
            }
            Answer::Selected {
                option_id,
                edited_input,
                note,
            } => {
                let picked = Picked {
                    index,
                    waiting: Waiting {
                        question,
                        prepared,
                        verdict,
                        content,
                        offered,
                    },
                    option_id,
                    edited_input,
                    note,
                };
                if !self.on_picked(picked, gate, out) {
                    return;
                }
            }
        }
        self.continue_if_settled(out);
    }

    /// The user picked an option of the latest question about a call; `false` when
    /// the turn must not go on from here (the call is still asked, or allowed and on
    /// its way, or the user stopped the turn).
    fn on_picked(&mut self, picked: Picked, gate: &dyn Gate, out: &mut Vec<Command>) -> bool {
        let Picked {
            index,
            waiting,
            option_id,
            edited_input,
            note,
        } = picked;
        let (id, tool) = (self.batch[index].id.clone(), self.batch[index].tool.clone());
        let audit_of = |outcome, option_id, note, reason| {
            let kind = answered(outcome, option_id, note, reason);
            audit(&id, &tool, &waiting.prepared.args, kind)
        };
        match choice::choice(&option_id, &waiting.offered) {
            None => {
                tracing::warn!(call = %id, %option_id, "unknown or unoffered option; denying");
                let reason = format!("the client chose `{option_id}`, which was not offered");
                let said = Said::not_offered(self.words, &option_id);
                out.push(audit_of(
                    AnswerOutcome::Error,
                    Some(option_id),
                    note,
                    Some(reason),
                ));
                self.finish(&id, &tool, ToolOutcome::Denied, said, out);
                true
            }
            Some(Choice::EditOrNote) => {
                // Still asking: the form's answer settles the call.
                out.push(Command::Elicit(Box::new(Form {
                    call_id: id.clone(),
                    question: waiting.question,
                    title: waiting.prepared.title.clone(),
                    args: waiting.prepared.args.clone(),
                    timeout: waiting.verdict.timeout,
                })));
                self.batch[index].state = CallState::Asking(Box::new(waiting));
                false
            }
            Some(choice) if choice.allows() => {
                let allowed = Allowed {
                    index,
                    prepared: waiting.prepared,
                    verdict: waiting.verdict,
                    choice,
                    edited_input,
                    note,
                };
                self.on_allow(allowed, gate, out);
                false
            }
            Some(choice) => {
                out.push(audit_of(
                    AnswerOutcome::Denied,
                    Some(option_id),
                    note.clone(),
                    None,
                ));
                if choice == Choice::RejectProject {
                    let Waiting {
                        prepared, verdict, ..
                    } = waiting;
                    let (scope, effect) = (GrantScope::Project, GrantEffect::Deny);
                    self.store(&id, prepared, verdict, scope, effect, out);
                }
                let said = Said::denied_by_user(self.words, note.as_deref());
                self.finish(&id, &tool, ToolOutcome::Denied, said, out);
                if choice == Choice::RejectAndStop {
                    self.stop_by_user(out);
                    return false;
                }
                true
            }
        }
    }

    fn on_allow(&mut self, allowed: Allowed, gate: &dyn Gate, out: &mut Vec<Command>) {
        let Allowed {
            index,
            mut prepared,
            mut verdict,
            choice,
            edited_input,
            note,
        } = allowed;
        let (id, tool) = (self.batch[index].id.clone(), self.batch[index].tool.clone());
        let original_args = prepared.args.clone();
        // The audit line of this answer, to the question as it was asked.
        let granted = |note: Option<String>, reason: Option<String>| {
            let option_id = Some(choice.option_id().to_owned());
            let kind = answered(AnswerOutcome::Granted, option_id, note, reason);
            audit(&id, &tool, &original_args, kind)
        };
        if let Some(edited) = edited_input {
            // Edited input is a new call: validated, evaluated again, and a deny still
            // wins. An edit that raises the risk must be asked about again.
            let (edited_call, edited_verdict) = match gate.prepare_and_evaluate(&tool, &edited) {
                Ok(judged) => judged,
                Err(reason) => {
                    out.push(audit(
                        &id,
                        &tool,
                        &edited,
                        answered(
                            AnswerOutcome::Error,
                            Some(choice.option_id().to_owned()),
                            note,
                            Some(reason.to_string()),
                        ),
                    ));
                    let said = Said::edited_invalid(self.words, &reason.to_string());
                    self.finish(&id, &tool, ToolOutcome::Failed, said, out);
                    self.continue_if_settled(out);
                    return;
                }
            };
            out.push(evaluation_note(&id, &edited_call, &edited_verdict));
            let raised = edited_verdict.risk > verdict.risk;
            let content = preview::content(&edited_call, &edited_verdict, &self.files, self.words);
            out.push(Command::Show {
                view: Box::new(CallView::new(&id, &edited_call, content.clone())),
                shown: Shown::Edited,
            });
            if edited_verdict.decision == Decision::Deny
                || (edited_verdict.decision == Decision::Ask && raised)
            {
                if let Some(note) = note {
                    self.notes.push((id.clone(), note));
                }
                // The answer was to the question as it was; the edited call is a new
                // question (or a denial), and only its own answer can run it.
                out.push(granted(
                    None,
                    Some("approved with edits that need a new answer".to_owned()),
                ));
                self.decide_again(index, edited_call, edited_verdict, content, out);
                self.continue_if_settled(out);
                return;
            }
            prepared = edited_call;
            verdict = edited_verdict;
        }
        out.push(granted(note.clone(), None));
        let scope = match choice {
            Choice::AllowSession => Some(GrantScope::Session),
            Choice::AllowProject => Some(GrantScope::Project),
            _ => None,
        };
        if let Some(scope) = scope {
            self.store(
                &id,
                prepared.clone(),
                verdict,
                scope,
                GrantEffect::Allow,
                out,
            );
        }
        if let Some(note) = note {
            self.notes.push((id.clone(), note));
        }
        self.batch[index].state = self.run(&id, prepared, out);
        self.continue_if_settled(out);
    }

    /// Asks the driver to store an answer for later calls.
    fn store(
        &mut self,
        id: &str,
        prepared: Prepared,
        verdict: Verdict,
        scope: GrantScope,
        effect: GrantEffect,
        out: &mut Vec<Command>,
    ) {
        self.storing += 1;
        let words = verdict
            .proposal_words()
            .map(str::to_owned)
            .unwrap_or_else(|| self.words.plain("agent-this-exact-call"));
        self.stored_words.push((id.to_owned(), words));
        out.push(Command::Store(Box::new(GrantRequest {
            call_id: id.to_owned(),
            call: prepared,
            verdict,
            scope,
            effect,
        })));
    }

    /// A grant was stored (or not): the user is told, and calls of the batch still
    /// waiting for the user may now be decided by it.
    fn on_stored(
        &mut self,
        call_id: &str,
        scope: GrantScope,
        effect: GrantEffect,
        stored: Stored,
        gate: &dyn Gate,
        out: &mut Vec<Command>,
    ) {
        self.storing = self.storing.saturating_sub(1);
        let title = match (effect, scope) {
            (GrantEffect::Allow, GrantScope::Session) => "agent-grant-stored-allow-session",
            (GrantEffect::Allow, GrantScope::Project) => "agent-grant-stored-allow-project",
            (GrantEffect::Deny, GrantScope::Session) => "agent-grant-stored-deny-session",
            (GrantEffect::Deny, GrantScope::Project) => "agent-grant-stored-deny-project",
        };
        let what = self
            .proposal_words(call_id)
            .unwrap_or_else(|| self.words.plain("agent-this-exact-call"));
        let args = Args::new().with("what", what);
        match stored {
            Stored::Yes => {
                out.push(Command::Tell(Notice::new(
                    Severity::Info,
                    self.words.text(title, &args),
                    Some(self.words.plain("agent-grant-stored-detail")),
                )));
                self.reconsider_waiting(gate, out);
            }
            // The user's answer for this call still stands; only the memory of it is lost.
            Stored::No { reason } => {
                tracing::warn!(call = %call_id, %reason, "could not store the grant");
                out.push(Command::Tell(Notice::new(
                    Severity::Warning,
                    self.words.text("agent-grant-not-stored", &args),
                    Some(warden_model::one_line(&reason)),
                )));
            }
        }
        self.continue_if_settled(out);
    }

    /// The words of the grant stored for `call_id`, remembered from when it was asked.
    fn proposal_words(&self, call_id: &str) -> Option<String> {
        self.stored_words
            .iter()
            .find(|(id, _)| id == call_id)
            .map(|(_, words)| words.clone())
    }

    /// After a stored answer, calls of the batch still waiting for the user may now be
    /// decided by it: their requests are withdrawn and the new verdict applies.
    fn reconsider_waiting(&mut self, gate: &dyn Gate, out: &mut Vec<Command>) {
        for index in 0..self.batch.len() {
            let CallState::Asking(waiting) = &self.batch[index].state else {
                continue;
            };
            let verdict = gate.evaluate(&waiting.prepared);
            if verdict.decision == Decision::Ask {
                continue;
            }
            let id = self.batch[index].id.clone();
            let CallState::Asking(waiting) =
                std::mem::replace(&mut self.batch[index].state, CallState::Done)
            else {
                continue;
            };
            let Waiting {
                prepared, content, ..
            } = *waiting;
            out.push(Command::Withdraw {
                call_id: id.clone(),
            });
            out.push(evaluation_note(&id, &prepared, &verdict));
            self.decide_again(index, prepared, verdict, content, out);
        }
    }

    /// Decides again about a call of the batch (edited, or covered by a grant stored
    /// since): its new state, asked as its next question when the verdict asks.
    fn decide_again(
        &mut self,
        index: usize,
        prepared: Prepared,
        verdict: Verdict,
        content: Vec<Content>,
        out: &mut Vec<Command>,
    ) {
        let id = self.batch[index].id.clone();
        let mut questions = self.batch[index].questions;
        let state = self.decide(&id, prepared, verdict, content, &mut questions, out);
        self.batch[index].questions = questions;
        self.batch[index].state = state;
    }

    /// The arguments the model proposed for a call, from the reply in the conversation
    /// (a question that shows other arguments shows the user's edit).
    fn proposed_args(&self, call_id: &str) -> serde_json::Value {
        self.conversation
            .messages()
            .iter()
            .rev()
            .find_map(|m| match m {
                warden_model::Message::Assistant { tool_calls, .. } => {
                    tool_calls.iter().find(|c| c.id == call_id)
                }
                _ => None,
            })
            .map(|c| {
                let mut args = c.arguments.clone();
                // The model's own risk estimate is no argument of the call.
                if let Some(object) = args.as_object_mut() {
                    object.remove("risk_level");
                }
                args
            })
            .unwrap_or_default()
    }

    fn on_tool(&mut self, call_id: &str, result: ToolResult, out: &mut Vec<Command>) {
        let Some(index) = self.position(call_id) else {
            return;
        };
        if !matches!(self.batch[index].state, CallState::Running) {
            return;
        }
        self.batch[index].state = CallState::Done;
        let outcome = match (result.ok, result.timed_out) {
            (true, _) => ToolOutcome::Completed,
            (false, true) => ToolOutcome::TimedOut,
            (false, false) => ToolOutcome::Failed,
        };
        let (id, tool) = (self.batch[index].id.clone(), self.batch[index].tool.clone());
        let for_model = result.for_model.clone();
        out.push(Command::Finished {
            call_id: id.clone(),
            result,
        });
        self.conversation
            .push_tool_result(id, tool, outcome, for_model);
        self.continue_if_settled(out);
    }

    /// When every call of the batch is settled and every grant written, the notes join
    /// the conversation and the model is asked again (or the turn ends at its request
    /// limit).
    fn continue_if_settled(&mut self, out: &mut Vec<Command>) {
        // An empty batch was settled already (and the model asked then).
        if self.ended
            || self.storing > 0
            || self.batch.is_empty()
            || !self.batch.iter().all(Call::is_done)
        {
            return;
        }
        self.batch.clear();
        self.stored_words.clear();
        for (call_id, note) in std::mem::take(&mut self.notes) {
            self.conversation.push_user_note(call_id, note);
        }
        self.ask_model(out);
    }

    /// Asks the model for its next reply, after a prompt waiting to join the
    /// conversation joined it (the limit of model requests counts from each prompt), or
    /// ends the turn at that limit.
    fn ask_model(&mut self, out: &mut Vec<Command>) {
        if let Some(prompt) = self.prompt.take() {
            self.conversation.push_user(prompt);
            self.model_requests = 0;
        }
        if self.model_requests >= self.limits.max_model_requests {
            let args = Args::new().with("limit", self.limits.max_model_requests);
            out.push(Command::Say(self.words.text("agent-request-limit", &args)));
            self.end(Stop::MaxModelRequests, out);
            return;
        }
        self.model_requests += 1;
        out.push(Command::CallModel);
    }

    /// Cancels the turn: pending requests are withdrawn, running tools stopped, every
    /// open call marked failed, and then the turn ends `cancelled`.
    fn cancel(&mut self, out: &mut Vec<Command>) {
        self.close_open_calls(Said::cancelled(self.words), out);
        self.end(Stop::Cancelled, out);
    }

    /// The user denied a call and stopped the turn (`reject-and-stop`): every other
    /// open call is closed without running, as on a cancel, the user is told, and the
    /// turn ends as finished rather than cancelled: the user chose to stop it.
    fn stop_by_user(&mut self, out: &mut Vec<Command>) {
        self.close_open_calls(Said::stopped(self.words), out);
        out.push(Command::Say(self.words.plain("agent-stopped-turn")));
        self.end(Stop::EndTurn, out);
    }

    /// Closes every call of the batch that is not settled: its question withdrawn or
    /// its tool stopped, and `reason` as its result.
    fn close_open_calls(&mut self, said: Said, out: &mut Vec<Command>) {
        for index in 0..self.batch.len() {
            let (id, tool) = (self.batch[index].id.clone(), self.batch[index].tool.clone());
            match self.batch[index].state {
                CallState::Done => continue,
                CallState::Asking(_) => out.push(Command::Withdraw {
                    call_id: id.clone(),
                }),
                CallState::Running => out.push(Command::Stop {
                    call_id: id.clone(),
                }),
            }
            self.finish(&id, &tool, ToolOutcome::Cancelled, said.clone(), out);
            self.batch[index].state = CallState::Done;
        }
        self.batch.clear();
        self.notes.clear();
    }

    fn end(&mut self, stop: Stop, out: &mut Vec<Command>) {
        self.ended = true;
        out.push(Command::End(stop));
    }
}

/// An allow answer being carried out.
/// An option the user picked, with the question it answers.
struct Picked {
    index: usize,
    waiting: Waiting,
    option_id: String,
    edited_input: Option<serde_json::Value>,
    note: Option<String>,
}

struct Allowed {
    index: usize,
    prepared: Prepared,
    verdict: Verdict,
    choice: Choice,
    edited_input: Option<serde_json::Value>,
    note: Option<String>,
}

fn answered(
    outcome: AnswerOutcome,
    option_id: Option<String>,
    note: Option<String>,
    reason: Option<String>,
) -> AuditKind {
    AuditKind::Answered {
        outcome,
        option_id,
        note,
        reason,
    }
}

fn evaluation_note(id: &str, prepared: &Prepared, verdict: &Verdict) -> Command {
    audit(
        id,
        &prepared.tool,
        &prepared.args,
        AuditKind::Evaluated {
            verdict: verdict.clone(),
        },
    )
}

fn audit(id: &str, tool: &str, args: &serde_json::Value, kind: AuditKind) -> Command {
    Command::Audit(Box::new(AuditNote {
        call_id: id.to_owned(),
        tool: tool.to_owned(),
        args: args.clone(),
        kind,
    }))
}

#[cfg(test)]
mod tests;
