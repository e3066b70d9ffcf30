//! The interactive chat on a terminal: prompts read with line editing, each turn's
//! permission requests answered on keys one at a time, Ctrl-C to cancel a turn; at the
//! prompt a Ctrl-C warns ("press Ctrl-C again to quit") and a second one soon after, or
//! Ctrl-D, leaves.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{ContentBlock, PromptRequest, SessionId, TextContent};
use serde_json::Value;
use warden_acp_transport::AgentConnection;

use crate::approvals::{Disposition, Step};
use crate::exit::{Exit, stop_reason};
use crate::interrupts::{CANCEL_GRACE, Interrupts};
use crate::terminal::{EditError, Line, Terminal, editor_command, joined};
use crate::transcript::{Approvals, Transcript};
use warden_i18n::Args;

/// What the interactive loop needs besides the connection.
pub(crate) struct Person<'a> {
    pub terminal: &'a Terminal,
    pub approvals: Arc<Approvals>,
    /// Whether the agent reads Warden's `_meta` on answers (edited arguments, a note).
    pub extras: bool,
    /// Whether the agent is Warden's (its `initialize` answer carries Warden's extension),
    /// which says when a turn it resumed after a restart ends.
    pub warden: bool,
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
    let words = transcript.words();
    // When the last Ctrl-C at the prompt was pressed: a second one soon after leaves.
    let mut armed: Option<std::time::Instant> = None;
    let mut last = Exit::Ended;
    loop {
        transcript.synced().await;
        let line = tokio::select! {
            line = person.terminal.line("> ", "", true) => line,
            () = interrupts.recv() => return Exit::Cancelled,
        };
        let text = match line {
            Line::Eof => return last,
            Line::Interrupted if armed.is_some_and(|at| at.elapsed() < QUIT_WINDOW) => {
                return Exit::Cancelled;
            }
            Line::Interrupted => {
                armed = Some(std::time::Instant::now());
                transcript.lines(&[style.yellow(&words.plain("chat-ctrl-c-again"))]);
                continue;
            }
            Line::Text(text) => joined(&text),
        };
        armed = None;
        // Requests the agent sent while the person typed waited for Enter: they are
        // answered first, the prompt goes after them.
        if !person.approvals.batch().is_empty() {
            transcript.lines(&[style.yellow(&words.plain("chat-asked-while-typing"))]);
            if answered_first(connection, session, transcript, person, interrupts).await {
                return Exit::Cancelled;
            }
        }
        if text.trim().is_empty() {
            continue;
        }
        if text.trim() == "/help" {
            transcript.lines(&help(transcript));
            continue;
        }
        person.terminal.turn_started();
        let (exit, stop) = turn(connection, session, text, transcript, person, interrupts).await;
        person.terminal.turn_ended();
        last = exit;
        if stop {
            return exit;
        }
    }
}

/// `/help`: the agent's commands and the chat's own keys. Answered by the chat itself,
/// never sent to the agent.
fn help(transcript: &Transcript) -> Vec<String> {
    let style = transcript.style();
    let words = transcript.words();
    let mut commands = transcript.commands();
    commands.retain(|c| c != "/help");
    let line = |id: &str| format!("  {}", words.plain(id));
    let mut lines = vec![style.bold(&words.plain("chat-help-commands"))];
    if commands.is_empty() {
        lines.push(line("chat-help-no-commands"));
    } else {
        lines.push(format!(
            "  {}",
            words.text(
                "chat-help-agent-commands",
                &Args::new().with("commands", commands.join(" "))
            )
        ));
    }
    lines.push(line("chat-help-help"));
    lines.push(style.bold(&words.plain("chat-help-at-prompt")));
    lines.push(line("chat-help-keys-prompt"));
    lines.push(line("chat-help-keys-cancel"));
    lines.push(style.bold(&words.plain("chat-help-answering")));
    lines.push(line("chat-help-options"));
    lines.push(line("chat-help-enter"));
    lines.push(line("chat-help-other-keys"));
    lines
}

/// How long after a Ctrl-C at the prompt a second one leaves the chat; later, it only
/// warns again.
const QUIT_WINDOW: std::time::Duration = std::time::Duration::from_secs(3);

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
    let words = transcript.words();
    let request = PromptRequest::new(
        session.clone(),
        vec![ContentBlock::Text(TextContent::new(text))],
    );
    let prompt = connection.prompt(request);
    tokio::pin!(prompt);
    let mut terminated = false;
    let result = {
        let ui = async {
            tokio::select! {
                () = answer_requests(transcript, person) => {}
                () = ticks(transcript) => {}
            }
        };
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
            transcript.lines(&[style.yellow(&cancelling(words, open))]);
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
                transcript.lines(&[style
                    .yellow(&words.text("chat-turn-ended", &Args::new().with("reason", reason)))]);
            }
            (if interrupted { Exit::Cancelled } else { exit }, false)
        }
        Some(Err(err)) => {
            transcript.lines(&[style.red(&words.text(
                "chat-turn-failed",
                &Args::new().with("error", crate::clean::clean(&err.to_string())),
            ))]);
            let gone = matches!(
                err,
                warden_acp_transport::AgentRequestError::Disconnected { .. }
            );
            (Exit::Failed, gone)
        }
        None => {
            transcript.lines(&[style.yellow(&words.plain("chat-cancel-unanswered"))]);
            (Exit::Cancelled, false)
        }
    }
}

/// How often the live lines (a running tool's spinner, its time and output) are drawn.
const TICK: std::time::Duration = std::time::Duration::from_millis(120);

/// Draws the live lines while a turn runs; never ends.
async fn ticks(transcript: &Transcript) {
    let mut frame = 0usize;
    loop {
        tokio::time::sleep(TICK).await;
        transcript.tick(frame);
        frame = frame.wrapping_add(1);
    }
}

/// Answers the requests waiting in the batch, with the spinner while tools run, until
/// none is open; Ctrl-C cancels them with the agent's turn. Returns `true` when the chat
/// must end (SIGTERM).
async fn answered_first(
    connection: &AgentConnection,
    session: &SessionId,
    transcript: &Transcript,
    person: &Person<'_>,
    interrupts: &mut Interrupts,
) -> bool {
    person.terminal.turn_started();
    // The last answer empties the batch without a wake-up of its own: looked at with
    // each frame of the live lines.
    let answered = async {
        let mut frame = 0usize;
        while !person.approvals.batch().is_empty() {
            tokio::time::sleep(TICK).await;
            transcript.tick(frame);
            frame = frame.wrapping_add(1);
        }
    };
    let stop = tokio::select! {
        () = answered => false,
        () = answer_requests(transcript, person) => false,
        terminated = interrupts.which() => cancel_agents_turn(connection, session, transcript, person, terminated),
    };
    // The prompt goes after the answers on the wire, not only after they were chosen.
    person.approvals.answers_sent().await;
    transcript.end_text();
    person.terminal.turn_ended();
    stop
}

/// Ctrl-C or SIGTERM during a turn the person did not start: the open requests are
/// answered `cancelled` and the agent is asked to cancel. Returns `terminated`.
fn cancel_agents_turn(
    connection: &AgentConnection,
    session: &SessionId,
    transcript: &Transcript,
    person: &Person<'_>,
    terminated: bool,
) -> bool {
    transcript.end_text();
    let open = person.approvals.batch().cancel_all();
    transcript.lines(&[transcript
        .style()
        .yellow(&cancelling(transcript.words(), open))]);
    if let Err(err) = connection.cancel(session.clone()) {
        tracing::debug!(%err, "could not send session/cancel");
    }
    terminated
}

/// "Cancelling the turn", and how many open requests that answers `cancelled`.
fn cancelling(words: &warden_i18n::Catalog, open: usize) -> String {
    words.text("chat-cancelling", &Args::new().with("open", open))
}

/// How long another agent must stay quiet, with nothing waiting or running, before its
/// own turn after a load is taken as over (Warden's agent says when instead).
const QUIET: std::time::Duration = std::time::Duration::from_millis(500);

/// How long a call the loaded session left waiting may stay unanswered without the agent
/// saying anything before the prompt comes back (an agent that does not ask again).
const GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// After a session is loaded: when it left calls waiting for an answer, the agent asks
/// again at once, outside any prompt turn (Warden does as soon as the load is answered),
/// and goes on with the turn they belong to. That turn is shown as a turn of the
/// person's own is: each request on screen at once, whole, answered on keys, the spinner
/// while tools run, Ctrl-C cancelling it. The prompt comes back when Warden's agent says
/// the turn has ended (`_meta.warden.resumedTurnEnded`), so a slow model's reply is never
/// drawn over it; with another agent, once nothing waits or runs and the agent has been
/// quiet a moment. Returns `true` when the chat must end (SIGTERM).
pub(crate) async fn agents_turn(
    connection: &AgentConnection,
    session: &SessionId,
    transcript: &Transcript,
    person: &Person<'_>,
    interrupts: &mut Interrupts,
) -> bool {
    if transcript.open_calls() == (0, 0) {
        return false;
    }
    person.terminal.turn_started();
    let settled = async {
        if person.warden {
            tokio::select! {
                () = transcript.resumed_turn_ended() => {}
                () = ticks(transcript) => {}
            }
            return;
        }
        let mut frame = 0usize;
        loop {
            tokio::time::sleep(TICK).await;
            transcript.tick(frame);
            frame = frame.wrapping_add(1);
            let quiet = transcript.quiet_for();
            let (waiting, running) = transcript.open_calls();
            let asking = !person.approvals.batch().is_empty();
            if !asking && running == 0 && quiet >= QUIET && (waiting == 0 || quiet >= GRACE) {
                return;
            }
        }
    };
    let stop = tokio::select! {
        () = settled => false,
        () = answer_requests(transcript, person) => false,
        terminated = interrupts.which() => cancel_agents_turn(connection, session, transcript, person, terminated),
    };
    transcript.end_text();
    person.terminal.turn_ended();
    stop
}

/// Awaits `opening` (`initialize` and `session/new` or `session/load`) while answering the
/// requests the agent sends meanwhile. Requests still open when it is done wait for the
/// first turn's screen ([`agents_turn`]).
pub(crate) async fn while_opening<F: std::future::Future>(
    opening: F,
    transcript: &Transcript,
    person: &Person<'_>,
) -> F::Output {
    tokio::pin!(opening);
    // A request that comes as the opening ends (Warden asks again as soon as it has
    // answered the load) is left for the turn after it, so that it is drawn once, below
    // the session's line; one the agent waits for before it answers is drawn after a
    // moment.
    let asked_a_while = async {
        loop {
            let arrived = person.approvals.arrived.notified();
            if !person.approvals.batch().is_empty() {
                break;
            }
            arrived.await;
        }
        tokio::time::sleep(OPENING_ASKS).await;
    };
    tokio::select! {
        biased;
        opened = &mut opening => return opened,
        () = asked_a_while => {}
    }
    tokio::select! {
        opened = &mut opening => return opened,
        () = answer_requests(transcript, person) => {}
    }
    // The terminal is gone (every open request was answered `cancelled`).
    opening.await
}

/// How long a request that came while the session opened waits for the opening to end
/// before it is drawn.
const OPENING_ASKS: std::time::Duration = std::time::Duration::from_millis(300);

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
                    let redraw = approvals.redraw.swap(false, std::sync::atomic::Ordering::SeqCst);
                    if redraw || approvals.batch().len() != drawn {
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
    let words = transcript.words();
    match step {
        Step::Ignored | Step::Redraw => {}
        Step::Answered { disposition, .. } => {
            transcript.disposition(&format!(
                "{}  {}",
                mark(style, &disposition),
                style.dim(&words.plain("chat-undo-hint"))
            ));
        }
        Step::Sent {
            disposition, count, ..
        } => {
            transcript.disposition(&mark(style, &disposition));
            transcript.lines(&[
                style.dim(&words.text("chat-answers-sent", &Args::new().with("count", count)))
            ]);
        }
        Step::Undone { index } => {
            // In place where the screen allows: the request's prompt comes back where it
            // was, its answer and the next prompt gone.
            if !transcript.undo(index) {
                transcript.lines(&[
                    style.yellow(&words.text("chat-undone", &Args::new().with("index", index + 1)))
                ]);
            }
        }
        Step::Edit => edit(transcript, person).await,
        Step::Note => note(transcript, person).await,
    }
}

/// Lets the person edit the current request's arguments, in their editor or on a line;
/// what is not a JSON object leaves them as they were.
async fn edit(transcript: &Transcript, person: &Person<'_>) {
    let style = transcript.style();
    let words = transcript.words();
    let approvals = &person.approvals;
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
            let line = person.terminal.line("arguments> ", &text, false).await;
            // The line read under the prompt goes when the prompt is drawn again.
            let typed = match &line {
                Line::Text(text) => text.as_str(),
                _ => "",
            };
            transcript.below_prompt(transcript.rows_of(&format!("arguments> {typed}")));
            match line {
                Line::Text(text) => Ok(text),
                _ => Err(EditError::NotEdited),
            }
        }
    };
    let parsed = edited.and_then(|text| match serde_json::from_str::<Value>(&text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(EditError::NotAnObject),
        Err(err) => Err(EditError::NotJson(err)),
    });
    match parsed {
        Ok(value) => {
            if let Some(pending) = approvals.batch().get_mut(index) {
                pending.edited = Some(value);
                pending.show_args = true;
            }
        }
        Err(err) => transcript.lines(&[style.red(&words.text(
            "chat-arguments-unchanged",
            &Args::new().with("problem", err.to_string()),
        ))]),
    }
}

/// Lets the person write the note sent with the current request's answer.
async fn note(transcript: &Transcript, person: &Person<'_>) {
    let approvals = &person.approvals;
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
    let line = person.terminal.line("note> ", &note, false).await;
    let typed = match &line {
        Line::Text(text) => text.as_str(),
        _ => "",
    };
    transcript.below_prompt(transcript.rows_of(&format!("note> {typed}")));
    if let Line::Text(text) = line
        && let Some(pending) = approvals.batch().get_mut(index)
    {
        let text = text.trim().to_owned();
        pending.note = (!text.is_empty()).then_some(text);
    }
}

fn mark(style: crate::style::Style, disposition: &Disposition) -> String {
    if disposition.allowed {
        style.green(&format!("✓ {}", disposition.text))
    } else {
        style.red(&format!("✗ {}", disposition.text))
    }
}
