//! Restoring a stored session (`session/load`, `session/resume`): where its unfinished
//! calls end up, and the replay a client is shown.

use warden_acp_transport::ClientHandle;
use warden_acp_transport::schema::{
    ContentChunk, SessionId, SessionNotification, SessionUpdate, ToolCall, ToolCallContent,
    ToolCallStatus,
};
use warden_journal::{CallStatus, Message};
use warden_model::ToolCallRequest;

use crate::checkpoint::Checkpoints;
use crate::to_acp::updates::{message_chunk, text};
use warden_journal::{AnsweredBy, LoadedSession, Record, ReplayItem, ReplayStatus};
use warden_turn::{Resumed, StoredAnswer};

/// What the model is told about a call that waited for an answer when Warden stopped.
pub const NOT_RUN_AFTER_RESTART: &str = "Not run: Warden restarted while this call waited for approval, and the call could not be found in the conversation to ask again. Propose it again if it is still needed.";

/// What the model is told about a call the policy let run, which Warden stopped before
/// it was recorded as started.
pub const NOT_STARTED_BEFORE_RESTART: &str = "Not run: Warden stopped before this call started, and a call that was not asked is not run on restore. Propose it again if it is still needed.";

/// Settles the calls the stored session left open, so that none of them runs on
/// restore, and writes down what became of each. A call that was running is failed as
/// interrupted; one the policy let run that had not started is reported not run. A call
/// whose latest question waits for its answer, and one whose latest question was
/// answered from another terminal (`warden pending`) while no Warden applied the
/// answer, are returned: the turn that resumes the session judges them again by
/// today's policy; the first is asked again (its next question) when the policy asks,
/// the second is settled with its answer, without a new question. A call whose answer a
/// Warden had applied (the editor's, or `warden pending`'s) but that had not started is
/// not run (after a power loss, the record that it started may be the one lost; the
/// user may answer differently now): the model is told and may propose it again. The
/// model is told about every call that is not returned in the next turn.
pub fn settle(loaded: &mut LoadedSession, checkpoints: Option<&Checkpoints>) -> Vec<Resumed> {
    let write = |record: Record| {
        if let Some(c) = checkpoints {
            c.write(&record);
        }
    };
    for call in &loaded.interrupted {
        write(Record::Interrupted {
            call: call.call.id.clone(),
        });
    }
    // `settle` of the store appended a failed result for each interrupted call.
    let start = loaded.conversation.len() - loaded.added;
    for message in &loaded.conversation[start..] {
        write(Record::Conversation {
            message: message.clone(),
        });
    }
    loaded.added = 0;
    let mut resumed = Vec::new();
    let mut told: Vec<Message> = Vec::new();
    ask_again(loaded, &mut resumed, &mut told);
    apply_answers(loaded, &write, &mut resumed, &mut told);
    for message in told {
        tell(loaded, &write, message);
    }
    resumed
}

/// The model's proposal of call `id`, as the conversation holds it.
fn request_of(conversation: &[Message], id: &str) -> Option<ToolCallRequest> {
    conversation.iter().rev().find_map(|m| match m {
        Message::Assistant { tool_calls, .. } => tool_calls
            .iter()
            .find(|c| c.id == id)
            .cloned()
            .map(crate::stored::restored_tool_call),
        _ => None,
    })
}

/// The calls whose latest question waits for its answer are asked again. Only a call
/// that was asked is asked again. One that was not (the policy let it run) may have
/// started after all if a power loss took its `running` record, which is not synced: it
/// is not run again, and the model is told.
fn ask_again(loaded: &mut LoadedSession, resumed: &mut Vec<Resumed>, told: &mut Vec<Message>) {
    for waiting in std::mem::take(&mut loaded.waiting) {
        // The call is asked again as its latest question showed it: the user's edit
        // when the question showed one, else the model's own proposal.
        let request = waiting.asked.as_ref().and_then(|_| {
            if waiting.edited {
                Some(edited_request(&waiting.call))
            } else {
                request_of(&loaded.conversation, &waiting.call.id)
            }
        });
        match request {
            Some(request) => resumed.push(Resumed {
                request,
                asked: waiting.question,
                answer: None,
            }),
            None => told.push(result(
                &waiting.call.id,
                &waiting.call.tool,
                CallStatus::Cancelled,
                if waiting.asked.is_some() {
                    NOT_RUN_AFTER_RESTART
                } else {
                    NOT_STARTED_BEFORE_RESTART
                },
            )),
        }
    }
}

/// A call answered from another terminal while no Warden applied the answer is settled
/// with that answer; one whose answer a Warden had applied but that had not started is
/// not run, and the model is told.
fn apply_answers(
    loaded: &mut LoadedSession,
    write: &impl Fn(Record),
    resumed: &mut Vec<Resumed>,
    told: &mut Vec<Message>,
) {
    for answered in std::mem::take(&mut loaded.answered) {
        let a = &answered.answer;
        let request = if answered.edited {
            Some(edited_request(&answered.call))
        } else {
            request_of(&loaded.conversation, &answered.call.id)
        };
        if answered.unapplied
            && a.by == AnsweredBy::Pending
            && let Some(request) = request
        {
            // Journaled as applied now: a later load does not apply it again.
            write(Record::Answered(a.clone()));
            resumed.push(Resumed {
                request,
                asked: a.question,
                answer: Some(StoredAnswer {
                    option_id: a.option.clone(),
                    note: a.note.clone(),
                    shown_risk: answered.call.risk,
                }),
            });
            continue;
        }
        let content = format!(
            "Not run: Warden stopped after {} answered `{}` and before the call started, and a call is never run on restore. Propose it again if it is still needed.",
            a.by.as_words(),
            a.option
        );
        told.push(result(
            &answered.call.id,
            &answered.call.tool,
            CallStatus::Cancelled,
            &content,
        ));
    }
}

/// Tells the model what became of a call that is not run: its result joins the
/// conversation (and the journal), and the replay shows it settled.
fn tell(loaded: &mut LoadedSession, write: &impl Fn(Record), message: Message) {
    if let Some(finished) = crate::stored::finished(&message) {
        write(finished);
    }
    write(Record::Conversation {
        message: message.clone(),
    });
    if let Message::ToolResult {
        call_id,
        content,
        outcome,
        ..
    } = &message
    {
        for item in &mut loaded.replay {
            if let ReplayItem::ToolCall(call) = item
                && &call.id == call_id
            {
                call.status = if *outcome == CallStatus::Completed {
                    ReplayStatus::Completed
                } else {
                    ReplayStatus::Failed
                };
                call.content = Some(content.clone());
            }
        }
    }
    loaded.conversation.push(message);
}

/// The call as a question that showed the user's edit showed it (its `proposed`
/// record).
fn edited_request(call: &warden_journal::ProposedCall) -> ToolCallRequest {
    ToolCallRequest {
        id: call.id.clone(),
        name: call.tool.clone(),
        arguments: call.args.clone(),
    }
}

fn result(call: &str, tool: &str, outcome: CallStatus, content: &str) -> Message {
    Message::ToolResult {
        call_id: call.to_owned(),
        tool: tool.to_owned(),
        outcome,
        content: content.to_owned(),
    }
}

/// Sends the stored session to the client as `session/update` notifications: the
/// user's prompts, the agent's text, and each tool call with its last status and
/// content.
pub fn replay(session: &SessionId, loaded: &LoadedSession, client: &ClientHandle) {
    for item in &loaded.replay {
        let notification = match item {
            ReplayItem::User { text: t } => SessionNotification::new(
                session.clone(),
                SessionUpdate::UserMessageChunk(ContentChunk::new(text(t.clone()))),
            ),
            ReplayItem::Agent { text: t } => message_chunk(session, t.clone()),
            ReplayItem::ToolCall(call) => {
                let status = match call.status {
                    ReplayStatus::Pending => ToolCallStatus::Pending,
                    ReplayStatus::InProgress => ToolCallStatus::InProgress,
                    ReplayStatus::Completed => ToolCallStatus::Completed,
                    ReplayStatus::Failed => ToolCallStatus::Failed,
                };
                let kind = crate::stored::shown_kind(call.kind);
                let content: Vec<ToolCallContent> = call
                    .content
                    .iter()
                    .map(|c| ToolCallContent::from(text(c.clone())))
                    .collect();
                SessionNotification::new(
                    session.clone(),
                    SessionUpdate::ToolCall(
                        ToolCall::new(call.id.clone(), call.title.clone())
                            .kind(kind)
                            .status(status)
                            .content(content),
                    ),
                )
            }
        };
        client.notify(notification);
    }
}

/// A `session/list` cursor Warden did not hand out.
#[derive(Debug, thiserror::Error)]
#[error("unknown cursor `{0}`: pass the nextCursor of a previous page")]
pub struct UnknownCursor(String);

/// How many sessions one `session/list` page holds.
pub const LIST_PAGE: usize = 50;

/// One page of `session/list`: the sessions of `cwd` (all when `None`), newest first.
/// The cursor is the offset of the page's first session, as text; it is opaque to the
/// client, and one that is not such a number is refused.
pub fn page(
    sessions: Vec<warden_journal::SessionSummary>,
    cwd: Option<&std::path::Path>,
    cursor: Option<&str>,
) -> Result<warden_acp_transport::schema::ListSessionsResponse, UnknownCursor> {
    use warden_acp_transport::schema::{ListSessionsResponse, SessionInfo};
    let start = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| UnknownCursor(c.to_owned()))?,
    };
    let matching: Vec<_> = sessions
        .into_iter()
        .filter(|s| cwd.is_none_or(|cwd| s.cwd == cwd))
        .collect();
    let end = (start + LIST_PAGE).min(matching.len());
    let infos: Vec<SessionInfo> = matching
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .map(|s| {
            SessionInfo::new(s.id.clone(), s.cwd.clone())
                .title(s.title.clone())
                .updated_at(Some(rfc3339(s.updated_ms)))
        })
        .collect();
    let next = (end < matching.len()).then(|| end.to_string());
    Ok(ListSessionsResponse::new(infos).next_cursor(next))
}

/// An ISO 8601 time in UTC, to the second.
fn rfc3339(ms: u64) -> String {
    warden_permissions::grant::time::format(
        std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms),
    )
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::{LIST_PAGE, page};
    use warden_journal::SessionSummary;

    fn summary(i: usize) -> SessionSummary {
        SessionSummary {
            id: format!("s{i}"),
            cwd: PathBuf::from(if i.is_multiple_of(2) { "/even" } else { "/odd" }),
            title: None,
            created_ms: 0,
            updated_ms: 1_790_000_000_000,
            prompts: 0,
            waiting: 0,
            problems: 0,
        }
    }

    /// Pages follow each other without a gap or an overlap, the `cwd` filter applies
    /// before paging, and a cursor Warden did not hand out is refused.
    #[test]
    fn list_pages_are_filtered_then_cut() {
        let all: Vec<SessionSummary> = (0..2 * LIST_PAGE + 10).map(summary).collect();
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let p = page(all.clone(), Some(Path::new("/even")), cursor.as_deref()).expect("page");
            seen.extend(p.sessions.iter().map(|s| s.session_id.0.to_string()));
            match p.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let expected: Vec<String> = (0..2 * LIST_PAGE + 10)
            .filter(|i| i.is_multiple_of(2))
            .map(|i| format!("s{i}"))
            .collect();
        assert_eq!(seen, expected);
        let p = page(all.clone(), None, None).expect("page");
        assert_eq!(p.sessions.len(), LIST_PAGE);
        assert_eq!(
            p.sessions[0].updated_at.as_deref(),
            Some("2026-09-21T14:13:20Z")
        );
        assert!(page(all, None, Some("abc")).is_err());
    }
}
