//! The prompt turn as a state machine.
//!
//! A turn reacts to a closed set of [`Event`]s (the model's reply, a permission
//! answer, a tool's result, a cancel) and answers each with [`Command`]s (send an
//! update, ask for permission, run a tool, call the model, end the turn). It does no
//! I/O: the async driver in `driver.rs` carries the commands out and feeds the events
//! back, so every rule here is tested without a wire, a model or a clock.
//!
//! Calls are deferred, not asked one by one: when a model reply proposes a batch of calls,
//! the allowed ones run at once, every call that needs the user is asked at the same
//! time, and the model is called again only when the whole batch is settled.
//!
//! Invariants:
//! - A call's `tool_call` (pending) is sent before anything else about it.
//! - A call runs only after an `allow` verdict or an `allow-*` answer to a request
//!   that offered that option; every other answer is a denial.
//! - After [`Command::End`] the turn emits nothing more.
//! - Every call of the conversation gets a result, so the next model request sees a
//!   well-formed history even after a cancel.

use std::time::Duration;

use warden_acp_transport::schema::{
    CreateElicitationRequest, RequestPermissionRequest, SessionId, SessionNotification, StopReason,
    ToolCallContent, ToolCallStatus, ToolCallUpdateFields,
};
use warden_model::{Conversation, FinishReason, ToolCallRequest, ToolOutcome, denied_content};
use warden_permissions::Decision;

use crate::elicit;
use crate::gate::{Gate, GrantEffect, GrantScope, Prepared, Verdict};
use crate::notice::{Notice, Severity};
use crate::permission::{self, Answer, Choice};
use crate::preview::{self, Files};
use crate::updates;

/// What a call that a cancel closed says.
const CANCELLED: &str = "Cancelled: the turn was cancelled before this call finished.";

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

/// The result of running one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub ok: bool,
    /// The tool itself ran out of time.
    pub timed_out: bool,
    pub content: Vec<ToolCallContent>,
    pub raw_output: serde_json::Value,
    /// What the model is told.
    pub for_model: String,
}

/// Something that happened to the turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The model's complete reply (its text was already streamed by the driver).
    ModelReplied {
        text: String,
        calls: Vec<ToolCallRequest>,
        finish: FinishReason,
        /// What the previews of the calls need from disk, read by the driver.
        files: Files,
    },
    /// The model could not answer; `message` says why, for the user.
    ModelFailed { message: String },
    /// The client answered (or did not answer) a permission request.
    Answered { call_id: String, answer: Answer },
    /// A tool finished.
    ToolFinished { call_id: String, result: ToolResult },
    /// `session/cancel`, or Warden is shutting down.
    Cancel,
}

/// What an audit entry says happened.
#[derive(Debug, Clone, PartialEq)]
pub enum AuditKind {
    /// The engine's evaluation of a call.
    Evaluated { verdict: Verdict },
    /// A call that could not be read (decided as a denial).
    Malformed { reason: String },
    /// What became of a request to the user: `granted`, `denied`, `cancelled`,
    /// `timed_out` or `error`.
    Answered {
        outcome: &'static str,
        option_id: Option<String>,
        note: Option<String>,
        reason: Option<String>,
    },
}

/// One line for the audit log.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditNote {
    pub call_id: String,
    pub tool: String,
    pub args: serde_json::Value,
    pub kind: AuditKind,
}

/// What the driver must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Notify(Box<SessionNotification>),
    AskPermission {
        call_id: String,
        request: Box<RequestPermissionRequest>,
        timeout: Option<Duration>,
    },
    /// Open the form to approve with edits or deny with a note (`elicitation/create`);
    /// its answer comes back as the call's [`Event::Answered`].
    Elicit {
        call_id: String,
        request: Box<CreateElicitationRequest>,
        args: serde_json::Value,
        timeout: Option<Duration>,
    },
    /// Withdraw a pending permission request (`$/cancel_request`).
    Withdraw {
        call_id: String,
    },
    RunTool {
        call_id: String,
        tool: String,
        args: serde_json::Value,
    },
    /// Stop a running tool.
    StopTool {
        call_id: String,
    },
    /// Ask the model for its next reply to the conversation.
    CallModel,
    Audit(Box<AuditNote>),
    /// Tell the user something that is not a reply (a session notice, or a message).
    Tell(Notice),
    /// Answer the prompt. Always the last command of a turn.
    End(StopReason),
}

#[derive(Debug, Clone, PartialEq)]
enum Status {
    Asking { offered: Vec<Choice> },
    Running,
    Done,
}

#[derive(Debug, Clone)]
struct Call {
    id: String,
    tool: String,
    prepared: Option<Prepared>,
    verdict: Option<Verdict>,
    /// What the call showed before it ran (its preview and risk), for its request.
    content: Vec<ToolCallContent>,
    status: Status,
}

/// One prompt turn.
#[derive(Debug)]
pub struct Turn {
    session: SessionId,
    conversation: Conversation,
    limits: TurnLimits,
    batch: Vec<Call>,
    notes: Vec<(String, String)>,
    /// What the current batch's previews read from disk.
    files: Files,
    model_requests: u32,
    asks: usize,
    /// The client shows forms: requests offer `edit-or-note`.
    forms: bool,
    ended: bool,
}

impl Turn {
    /// Starts a turn for `prompt`: the prompt joins the conversation and the model is
    /// asked for its reply.
    pub fn start(
        session: SessionId,
        mut conversation: Conversation,
        prompt: String,
        limits: TurnLimits,
    ) -> (Turn, Vec<Command>) {
        conversation.push_user(prompt);
        let turn = Turn {
            session,
            conversation,
            limits,
            batch: Vec::new(),
            notes: Vec::new(),
            files: Files::default(),
            model_requests: 1,
            asks: 0,
            forms: false,
            ended: false,
        };
        (turn, vec![Command::CallModel])
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
            Event::ModelFailed { message } => {
                out.push(self.notify(updates::message_chunk(&self.session, message)));
                self.end(StopReason::EndTurn, &mut out);
            }
            Event::Answered { call_id, answer } => self.on_answer(&call_id, answer, gate, &mut out),
            Event::ToolFinished { call_id, result } => self.on_tool(&call_id, result, &mut out),
            Event::Cancel => self.cancel(&mut out),
        }
        out
    }

    fn notify(&self, notification: SessionNotification) -> Command {
        Command::Notify(Box::new(notification))
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
            self.end(StopReason::MaxTokens, out);
            return;
        }
        if calls.is_empty() {
            let stop = match finish {
                FinishReason::Refusal => StopReason::Refusal,
                _ => StopReason::EndTurn,
            };
            self.end(stop, out);
            return;
        }
        for request in calls {
            self.propose(request, gate, out);
        }
        self.continue_if_settled(out);
    }

    fn propose(&mut self, request: ToolCallRequest, gate: &dyn Gate, out: &mut Vec<Command>) {
        let mut call = Call {
            id: request.id.clone(),
            tool: request.name.clone(),
            prepared: None,
            verdict: None,
            content: Vec::new(),
            status: Status::Done,
        };
        let prepared = match gate.prepare(&request.name, &request.arguments) {
            Ok(prepared) => prepared,
            Err(reason) => {
                out.push(self.notify(updates::proposed_invalid(
                    &self.session,
                    &call.id,
                    &request.name,
                    &request.arguments,
                )));
                out.push(audit(
                    &call,
                    &request.arguments,
                    AuditKind::Malformed {
                        reason: reason.to_string(),
                    },
                ));
                let reason = format!("Invalid call: {reason}");
                self.finish(&call, ToolOutcome::Failed, &reason, out);
                self.batch.push(call);
                return;
            }
        };
        // Evaluated before the first notification, which shows the risk in words; the
        // notification still goes out before anything else about the call.
        let verdict = gate.evaluate(&prepared);
        call.content = preview::content(&prepared, &verdict, &self.files);
        out.push(self.notify(updates::proposed(
            &self.session,
            &call.id,
            &prepared,
            call.content.clone(),
        )));
        out.push(evaluation_note(&call, &prepared, &verdict));
        call.prepared = Some(prepared);
        call.verdict = Some(verdict);
        self.decide(&mut call, out);
        self.batch.push(call);
    }

    /// Acts on the call's verdict: run it, deny it, or ask.
    fn decide(&mut self, call: &mut Call, out: &mut Vec<Command>) {
        let (Some(prepared), Some(verdict)) = (call.prepared.clone(), call.verdict.clone()) else {
            return;
        };
        match verdict.decision {
            Decision::Allow => self.run(call, out),
            Decision::Deny => {
                let reason = format!("Denied by policy: {}", verdict.reason);
                self.finish(call, ToolOutcome::Denied, &reason, out);
            }
            Decision::Ask => {
                let waiting = self
                    .batch
                    .iter()
                    .filter(|c| matches!(c.status, Status::Asking { .. }))
                    .count();
                if waiting >= self.limits.max_pending || self.asks >= self.limits.max_asks {
                    let reason = format!(
                        "Denied without asking: too many permission requests in this turn \
                         (at most {} waiting at once and {} per turn). {}",
                        self.limits.max_pending, self.limits.max_asks, verdict.reason
                    );
                    self.finish(call, ToolOutcome::Denied, &reason, out);
                    return;
                }
                self.asks += 1;
                let request = permission::request(
                    &self.session,
                    &call.id,
                    &prepared,
                    &verdict,
                    call.content.clone(),
                    self.forms,
                );
                call.status = Status::Asking {
                    offered: permission::offered(&verdict, self.forms),
                };
                out.push(Command::AskPermission {
                    call_id: call.id.clone(),
                    request: Box::new(request),
                    timeout: verdict.timeout,
                });
            }
        }
    }

    fn run(&self, call: &mut Call, out: &mut Vec<Command>) {
        let Some(prepared) = &call.prepared else {
            return;
        };
        call.status = Status::Running;
        out.push(self.notify(updates::status(
            &self.session,
            &call.id,
            ToolCallStatus::InProgress,
        )));
        out.push(Command::RunTool {
            call_id: call.id.clone(),
            tool: prepared.tool.clone(),
            args: prepared.args.clone(),
        });
    }

    /// Ends a call that does not run (or no longer runs): a failed update and a result
    /// for the model.
    fn finish(&mut self, call: &Call, outcome: ToolOutcome, reason: &str, out: &mut Vec<Command>) {
        out.push(self.notify(updates::failed(&self.session, &call.id, reason)));
        self.conversation.push_tool_result(
            call.id.clone(),
            call.tool.clone(),
            outcome,
            reason.to_owned(),
        );
    }

    fn position(&self, call_id: &str) -> Option<usize> {
        self.batch.iter().position(|c| c.id == call_id)
    }

    fn on_answer(
        &mut self,
        call_id: &str,
        answer: Answer,
        gate: &dyn Gate,
        out: &mut Vec<Command>,
    ) {
        let Some(index) = self.position(call_id) else {
            return;
        };
        let mut call = self.batch[index].clone();
        let Status::Asking { offered } = call.status.clone() else {
            // A late answer to a request that was already settled (withdrawn because a
            // grant covered it, or answered twice) changes nothing.
            return;
        };
        call.status = Status::Done;
        let args = call
            .prepared
            .as_ref()
            .map(|p| p.args.clone())
            .unwrap_or_default();
        match answer {
            Answer::Cancelled => {
                out.push(audit(&call, &args, answered("cancelled", None, None, None)));
                // The answered call is closed here (its request needs no withdrawal);
                // `cancel` closes every other open call, all before the turn's answer.
                self.finish(&call, ToolOutcome::Cancelled, CANCELLED, out);
                self.batch[index] = call;
                self.cancel(out);
                return;
            }
            Answer::TimedOut => {
                out.push(audit(&call, &args, answered("timed_out", None, None, None)));
                let wait = call
                    .verdict
                    .as_ref()
                    .and_then(|v| v.timeout)
                    .map(|t| format!(" within {} s", t.as_secs()))
                    .unwrap_or_default();
                let reason = format!(
                    "The permission request timed out: the user did not answer{wait}, so the call did not run."
                );
                self.finish(&call, ToolOutcome::TimedOut, &reason, out);
            }
            Answer::Failed { reason } => {
                tracing::warn!(call = %call.id, %reason, "permission request failed; denying");
                out.push(audit(
                    &call,
                    &args,
                    answered("error", None, None, Some(reason.clone())),
                ));
                let text = format!(
                    "The permission request failed ({reason}), which counts as a denial: the call did not run."
                );
                self.finish(&call, ToolOutcome::Denied, &text, out);
            }
            Answer::Selected {
                option_id,
                edited_input,
                note,
            } => match permission::choice(&option_id, &offered) {
                None => {
                    tracing::warn!(call = %call.id, %option_id, "unknown or unoffered option; denying");
                    let reason = format!("the client chose `{option_id}`, which was not offered");
                    out.push(audit(
                        &call,
                        &args,
                        answered("error", Some(option_id), note, Some(reason.clone())),
                    ));
                    let text = format!("Treated as a denial: {reason}. The call did not run.");
                    self.finish(&call, ToolOutcome::Denied, &text, out);
                }
                Some(Choice::EditOrNote) => {
                    // Still asking: the form's answer settles the call.
                    let (Some(prepared), Some(verdict)) = (&call.prepared, &call.verdict) else {
                        return;
                    };
                    match elicit::request(&self.session, &call.id, prepared) {
                        Ok(request) => out.push(Command::Elicit {
                            call_id: call.id.clone(),
                            request: Box::new(request),
                            args: prepared.args.clone(),
                            timeout: verdict.timeout,
                        }),
                        Err(reason) => {
                            let text = format!(
                                "The form could not be shown ({reason}), which counts as a denial: the call did not run."
                            );
                            out.push(audit(
                                &call,
                                &args,
                                answered("error", Some(option_id), note, Some(reason)),
                            ));
                            call.status = Status::Done;
                            self.finish(&call, ToolOutcome::Denied, &text, out);
                            self.batch[index] = call;
                            self.continue_if_settled(out);
                        }
                    }
                    return;
                }
                Some(choice) if choice.allows() => {
                    self.batch[index] = call;
                    self.on_allow(index, choice, edited_input, note, gate, out);
                    return;
                }
                Some(choice) => {
                    out.push(audit(
                        &call,
                        &args,
                        answered("denied", Some(option_id), note.clone(), None),
                    ));
                    if choice == Choice::RejectProject {
                        self.remember(&call, GrantScope::Project, GrantEffect::Deny, gate, out);
                    }
                    self.finish(
                        &call,
                        ToolOutcome::Denied,
                        &denied_content(note.as_deref()),
                        out,
                    );
                    self.batch[index] = call;
                    if choice == Choice::RejectProject {
                        self.reconsider_waiting(gate, out);
                    }
                    self.continue_if_settled(out);
                    return;
                }
            },
        }
        self.batch[index] = call;
        self.continue_if_settled(out);
    }

    fn on_allow(
        &mut self,
        index: usize,
        choice: Choice,
        edited_input: Option<serde_json::Value>,
        note: Option<String>,
        gate: &dyn Gate,
        out: &mut Vec<Command>,
    ) {
        let mut call = self.batch[index].clone();
        let original_args = call
            .prepared
            .as_ref()
            .map(|p| p.args.clone())
            .unwrap_or_default();
        if let Some(edited) = edited_input {
            // Edited input is a new call: validated, evaluated again, and a deny still
            // wins. An edit that raises the risk must be asked about again.
            let prepared = match gate.prepare(&call.tool, &edited) {
                Ok(prepared) => prepared,
                Err(reason) => {
                    out.push(audit(
                        &call,
                        &edited,
                        answered(
                            "error",
                            Some(choice.option_id().to_owned()),
                            note,
                            Some(reason.to_string()),
                        ),
                    ));
                    let text =
                        format!("The edited input is invalid ({reason}); the call did not run.");
                    self.finish(&call, ToolOutcome::Failed, &text, out);
                    self.batch[index] = call;
                    self.continue_if_settled(out);
                    return;
                }
            };
            let verdict = evaluate(&call, &prepared, gate, out);
            let before = call.verdict.as_ref().map(|v| v.risk);
            let raised = before.is_some_and(|risk| verdict.risk > risk);
            call.content = preview::content(&prepared, &verdict, &self.files);
            out.push(
                self.notify(updates::update(
                    &self.session,
                    &call.id,
                    ToolCallUpdateFields::new()
                        .title(prepared.title.clone())
                        .content(call.content.clone())
                        .raw_input(prepared.args.clone())
                        .locations(updates::locations(&prepared.locations)),
                )),
            );
            call.prepared = Some(prepared);
            call.verdict = Some(verdict.clone());
            if verdict.decision == Decision::Deny || (verdict.decision == Decision::Ask && raised) {
                if let Some(note) = note {
                    self.notes.push((call.id.clone(), note));
                }
                self.decide(&mut call, out);
                self.batch[index] = call;
                self.continue_if_settled(out);
                return;
            }
        }
        out.push(audit(
            &call,
            &original_args,
            answered(
                "granted",
                Some(choice.option_id().to_owned()),
                note.clone(),
                None,
            ),
        ));
        match choice {
            Choice::AllowSession => {
                self.remember(&call, GrantScope::Session, GrantEffect::Allow, gate, out)
            }
            Choice::AllowProject => {
                self.remember(&call, GrantScope::Project, GrantEffect::Allow, gate, out)
            }
            _ => {}
        }
        if let Some(note) = note {
            self.notes.push((call.id.clone(), note));
        }
        self.run(&mut call, out);
        self.batch[index] = call;
        if matches!(choice, Choice::AllowSession | Choice::AllowProject) {
            self.reconsider_waiting(gate, out);
        }
        self.continue_if_settled(out);
    }

    fn remember(
        &self,
        call: &Call,
        scope: GrantScope,
        effect: GrantEffect,
        gate: &dyn Gate,
        out: &mut Vec<Command>,
    ) {
        let (Some(prepared), Some(verdict)) = (&call.prepared, &call.verdict) else {
            return;
        };
        let what = verdict.proposal.as_deref().unwrap_or("this exact call");
        let verb = match effect {
            GrantEffect::Allow => "allowed",
            GrantEffect::Deny => "denied",
        };
        let place = match scope {
            GrantScope::Session => "for this session",
            GrantScope::Project => "in this project",
        };
        match gate.remember(prepared, verdict, scope, effect) {
            Ok(()) => out.push(Command::Tell(Notice::new(
                Severity::Info,
                format!("Grant stored: {what} is {verb} {place}"),
                Some("`/grants` lists what is stored, `/revoke ID` removes it.".to_owned()),
            ))),
            // The user's answer for this call still stands; only the memory of it is lost.
            Err(reason) => {
                tracing::warn!(call = %call.id, %reason, "could not store the grant");
                out.push(Command::Tell(Notice::new(
                    Severity::Warning,
                    format!("The grant was not stored: {what} will be asked about again"),
                    Some(warden_model::one_line(&reason.to_string())),
                )));
            }
        }
    }

    /// After a stored answer, calls of the batch still waiting for the user may now be
    /// decided by it: their requests are withdrawn and the new verdict applies.
    fn reconsider_waiting(&mut self, gate: &dyn Gate, out: &mut Vec<Command>) {
        for index in 0..self.batch.len() {
            if !matches!(self.batch[index].status, Status::Asking { .. }) {
                continue;
            }
            let mut call = self.batch[index].clone();
            let Some(prepared) = call.prepared.clone() else {
                continue;
            };
            let verdict = gate.evaluate(&prepared);
            if verdict.decision == Decision::Ask {
                continue;
            }
            out.push(Command::Withdraw {
                call_id: call.id.clone(),
            });
            out.push(evaluation_note(&call, &prepared, &verdict));
            call.verdict = Some(verdict);
            call.status = Status::Done;
            self.decide(&mut call, out);
            self.batch[index] = call;
        }
    }

    fn on_tool(&mut self, call_id: &str, result: ToolResult, out: &mut Vec<Command>) {
        let Some(index) = self.position(call_id) else {
            return;
        };
        if self.batch[index].status != Status::Running {
            return;
        }
        let call = &mut self.batch[index];
        call.status = Status::Done;
        let status = if result.ok {
            ToolCallStatus::Completed
        } else {
            ToolCallStatus::Failed
        };
        let outcome = match (result.ok, result.timed_out) {
            (true, _) => ToolOutcome::Completed,
            (false, true) => ToolOutcome::TimedOut,
            (false, false) => ToolOutcome::Failed,
        };
        let (id, tool) = (call.id.clone(), call.tool.clone());
        out.push(
            self.notify(updates::update(
                &self.session,
                &id,
                ToolCallUpdateFields::new()
                    .status(status)
                    .content(result.content)
                    .raw_output(result.raw_output),
            )),
        );
        self.conversation
            .push_tool_result(id, tool, outcome, result.for_model);
        self.continue_if_settled(out);
    }

    /// When every call of the batch is settled, the notes join the conversation and
    /// the model is asked again (or the turn ends at its request limit).
    fn continue_if_settled(&mut self, out: &mut Vec<Command>) {
        if self.ended || self.batch.iter().any(|c| c.status != Status::Done) {
            return;
        }
        self.batch.clear();
        for (call_id, note) in std::mem::take(&mut self.notes) {
            self.conversation.push_user_note(call_id, note);
        }
        if self.model_requests >= self.limits.max_model_requests {
            out.push(self.notify(updates::message_chunk(
                &self.session,
                format!(
                    "Stopping: this turn reached its limit of {} model requests.",
                    self.limits.max_model_requests
                ),
            )));
            self.end(StopReason::MaxTurnRequests, out);
            return;
        }
        self.model_requests += 1;
        out.push(Command::CallModel);
    }

    /// Cancels the turn: pending requests are withdrawn, running tools stopped, every
    /// open call marked failed, and then the turn ends `cancelled`.
    fn cancel(&mut self, out: &mut Vec<Command>) {
        for index in 0..self.batch.len() {
            let call = self.batch[index].clone();
            match call.status {
                Status::Done => continue,
                Status::Asking { .. } => out.push(Command::Withdraw {
                    call_id: call.id.clone(),
                }),
                Status::Running => out.push(Command::StopTool {
                    call_id: call.id.clone(),
                }),
            }
            self.finish(&call, ToolOutcome::Cancelled, CANCELLED, out);
            self.batch[index].status = Status::Done;
        }
        self.batch.clear();
        self.notes.clear();
        self.end(StopReason::Cancelled, out);
    }

    fn end(&mut self, stop: StopReason, out: &mut Vec<Command>) {
        self.ended = true;
        out.push(Command::End(stop));
    }
}

fn answered(
    outcome: &'static str,
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

/// Evaluates a call and records the evaluation in the audit log.
fn evaluate(call: &Call, prepared: &Prepared, gate: &dyn Gate, out: &mut Vec<Command>) -> Verdict {
    let verdict = gate.evaluate(prepared);
    out.push(evaluation_note(call, prepared, &verdict));
    verdict
}

fn evaluation_note(call: &Call, prepared: &Prepared, verdict: &Verdict) -> Command {
    audit(
        call,
        &prepared.args,
        AuditKind::Evaluated {
            verdict: verdict.clone(),
        },
    )
}

fn audit(call: &Call, args: &serde_json::Value, kind: AuditKind) -> Command {
    Command::Audit(Box::new(AuditNote {
        call_id: call.id.clone(),
        tool: call.tool.clone(),
        args: args.clone(),
        kind,
    }))
}

#[cfg(test)]
mod tests;
