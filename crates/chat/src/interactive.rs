//! The interactive chat on a terminal: prompts read with line editing, each turn's
//! permission requests answered on keys one at a time, Ctrl-C to cancel a turn, a second
//! Ctrl-C or Ctrl-D at the prompt to leave.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{ContentBlock, PromptRequest, SessionId, TextContent};
use serde_json::Value;
use warden_acp_transport::AgentConnection;

use crate::approvals::Step;
use crate::run::{CANCEL_GRACE, Exit, Interrupts, stop_reason};
use crate::terminal::{Line, Terminal, editor_command, joined};
use crate::transcript::{Approvals, Transcript};

/// What the interactive loop needs besides the connection.
pub(crate) struct Person<'a> {
    pub terminal: &'a Terminal,
    pub approvals: Arc<Approvals>,
    /// Whether the agent reads Warden's `_meta` on answers (edited arguments, a note).
    pub extras: bool,
}

/// Reads prompts until Ctrl-D, a second Ctrl-C, or SIGTERM.
pub(crate) async fn prompts(
    connection: &AgentConnection,
    session: &SessionId,
    transcript: &Transcript,
    person: &Person<'_>,
    interrupts: &mut Interrupts,
) -> Exit {
    let style = transcript.style();
    let mut armed = false;
    let mut last = Exit::Ended;
    loop {
        transcript.synced().await;
        let line = tokio::select! {
            line = person.terminal.line("> ", "", true) => line,
            () = interrupts.recv() => return Exit::Cancelled,
        };
        let text = match line {
            Line::Eof => return last,
            Line::Interrupted if armed => return Exit::Cancelled,
            Line::Interrupted => {
                armed = true;
                transcript.lines(&[style.dim("(Ctrl-C again or Ctrl-D to leave)")]);
                continue;
            }
            Line::Text(text) => joined(&text),
        };
        armed = false;
        if text.trim().is_empty() {
            continue;
        }
        person.terminal.turn_started();
        let (exit, stop) = turn(connection, session, text, transcript, person, interrupts).await;
        person.terminal.turn_ended();
        last = exit;
        if stop {
            return exit;
        }
        // After a cancelled turn one more Ctrl-C leaves.
        armed = exit == Exit::Cancelled;
    }
}

/// One turn; returns its outcome and whether the chat must stop (a second Ctrl-C while
/// cancelling, or the agent is gone).
async fn turn(
    connection: &AgentConnection,
    session: &SessionId,
    text: String,
    transcript: &Transcript,
    person: &Person<'_>,
    interrupts: &mut Interrupts,
) -> (Exit, bool) {
    let style = transcript.style();
    let request = PromptRequest::new(
        session.clone(),
        vec![ContentBlock::Text(TextContent::new(text))],
    );
    let prompt = connection.prompt(request);
    tokio::pin!(prompt);
    let mut terminated = false;
    let result = {
        let ui = answer_requests(transcript, person);
        tokio::pin!(ui);
        tokio::select! {
            result = &mut prompt => Some(result),
            () = &mut ui => None,
            term = interrupts.which() => {
                terminated = term;
                None
            }
        }
    };
    let (result, interrupted) = match result {
        Some(result) => (Some(result), false),
        None => {
            transcript.end_text();
            let open = person.approvals.batch().cancel_all();
            let note = match open {
                0 => String::new(),
                1 => "; the open request is answered cancelled".to_owned(),
                n => format!("; {n} open requests are answered cancelled"),
            };
            transcript.lines(&[style.yellow(&format!("Cancelling the turn{note}."))]);
            if let Err(err) = connection.cancel(session.clone()) {
                tracing::debug!(%err, "could not send session/cancel");
            }
            let result = tokio::select! {
                result = tokio::time::timeout(CANCEL_GRACE, &mut prompt) => result.ok(),
                () = interrupts.recv() => return (Exit::Cancelled, true),
            };
            (result, true)
        }
    };
    transcript.end_text();
    // Requests the agent left open when its turn ended are answered `cancelled`.
    person.approvals.batch().cancel_all();
    if terminated {
        return (Exit::Cancelled, true);
    }
    match result {
        Some(Ok(response)) => {
            let (exit, reason) = stop_reason(response.stop_reason);
            if exit != Exit::Ended {
                transcript.lines(&[style.yellow(&format!("[turn ended: {reason}]"))]);
            }
            (if interrupted { Exit::Cancelled } else { exit }, false)
        }
        Some(Err(err)) => {
            transcript.lines(&[style.red(&format!(
                "[turn failed: {}]",
                crate::render::clean(&err.to_string())
            ))]);
            let gone = matches!(
                err,
                warden_acp_transport::AgentRequestError::Disconnected { .. }
            );
            (Exit::Failed, gone)
        }
        None => {
            transcript.lines(&[style.yellow("[the agent did not answer the cancel]")]);
            (Exit::Cancelled, false)
        }
    }
}

/// Awaits `opening` (`initialize` and `session/new` or `session/load`) while answering the
/// requests the agent sends meanwhile. Requests still open when it is done wait for the
/// first turn's screen.
pub(crate) async fn while_opening<F: std::future::Future>(
    opening: F,
    transcript: &Transcript,
    person: &Person<'_>,
) -> F::Output {
    tokio::pin!(opening);
    tokio::select! {
        opened = &mut opening => return opened,
        () = answer_requests(transcript, person) => {}
    }
    // The terminal is gone (every open request was answered `cancelled`).
    opening.await
}

/// Shows each request as it comes and applies the person's keys, until the terminal is
/// gone (then every open request is answered `cancelled`, which resolves the turn).
pub(crate) async fn answer_requests(transcript: &Transcript, person: &Person<'_>) {
    let approvals = &person.approvals;
    loop {
        // The next request on screen, once one is open.
        let index = loop {
            let arrived = approvals.arrived.notified();
            if let Some(index) = approvals.batch().current() {
                break index;
            }
            arrived.await;
        };
        let drawn = {
            let batch = approvals.batch();
            if let Some(pending) = batch.get(index) {
                transcript.draw_prompt(
                    pending,
                    index,
                    batch.len(),
                    person.extras,
                    batch.can_undo(),
                );
            }
            batch.len()
        };
        // Keys without a meaning here change nothing: the prompt is drawn again after one
        // that did something, or when another request joins the batch (its count changed).
        let step = loop {
            let arrived = approvals.arrived.notified();
            let key = tokio::select! {
                key = person.terminal.key() => key,
                () = arrived => {
                    // A wake-up left from the requests already drawn changes nothing.
                    if approvals.batch().len() != drawn {
                        break None;
                    }
                    continue;
                }
            };
            let Some(key) = key else {
                approvals.batch().cancel_all();
                return;
            };
            let step = approvals.batch().key(key, person.extras);
            if step != Step::Ignored {
                break Some(step);
            }
        };
        if let Some(step) = step {
            show(transcript, person, step).await;
        }
    }
}

/// What a key did, on screen.
async fn show(transcript: &Transcript, person: &Person<'_>, step: Step) {
    let style = transcript.style();
    let approvals = &person.approvals;
    match step {
        Step::Ignored | Step::Redraw => {}
        Step::Answered { disposition, .. } => {
            transcript.disposition(&format!(
                "{}  {}",
                mark(style, &disposition),
                style.dim("(u undoes)")
            ));
        }
        Step::Sent {
            disposition, count, ..
        } => {
            transcript.disposition(&mark(style, &disposition));
            let what = if count == 1 {
                "Answer sent".to_owned()
            } else {
                format!("All {count} answers sent together")
            };
            transcript.lines(&[style.dim(&format!("{what}; waiting for the agent…"))]);
        }
        Step::Undone { index } => {
            transcript
                .lines(&[style.yellow(&format!("Undone: request {} is open again", index + 1))]);
        }
        Step::Edit => {
            let Some((index, args)) = ({
                let batch = approvals.batch();
                batch.current().and_then(|i| {
                    let pending = batch.get(i)?;
                    let args = pending
                        .edited
                        .clone()
                        .or_else(|| pending.request.tool_call.fields.raw_input.clone())
                        .unwrap_or(Value::Object(Default::default()));
                    Some((i, args))
                })
            }) else {
                return;
            };
            transcript.synced().await;
            let edited = match editor_command() {
                Some(command) => {
                    let text = serde_json::to_string_pretty(&args).unwrap_or_default();
                    person.terminal.edit(command, text).await
                }
                None => {
                    let text = serde_json::to_string(&args).unwrap_or_default();
                    match person.terminal.line("arguments> ", &text, false).await {
                        Line::Text(text) => Ok(text),
                        _ => Err("not edited".to_owned()),
                    }
                }
            };
            let parsed = edited.and_then(|text| match serde_json::from_str::<Value>(&text) {
                Ok(value @ Value::Object(_)) => Ok(value),
                Ok(_) => Err("the arguments must be a JSON object".to_owned()),
                Err(err) => Err(format!("not JSON: {err}")),
            });
            match parsed {
                Ok(value) => {
                    if let Some(pending) = approvals.batch().get_mut(index) {
                        pending.edited = Some(value);
                        pending.show_args = true;
                    }
                }
                Err(err) => transcript.lines(&[style.red(&format!("Arguments unchanged: {err}"))]),
            }
        }
        Step::Note => {
            let Some((index, note)) = ({
                let batch = approvals.batch();
                batch.current().and_then(|i| {
                    batch
                        .get(i)
                        .map(|p| (i, p.note.clone().unwrap_or_default()))
                })
            }) else {
                return;
            };
            transcript.synced().await;
            if let Line::Text(text) = person.terminal.line("note> ", &note, false).await
                && let Some(pending) = approvals.batch().get_mut(index)
            {
                let text = text.trim().to_owned();
                pending.note = (!text.is_empty()).then_some(text);
            }
        }
    }
}

fn mark(style: crate::style::Style, disposition: &str) -> String {
    if disposition.starts_with("Approved") {
        style.green(&format!("✓ {disposition}"))
    } else {
        style.red(&format!("✗ {disposition}"))
    }
}
