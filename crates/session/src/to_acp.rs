//! The one place where the turn's commands, in Warden's terms, become ACP messages:
//! calls shown and their progress (`session/update`), questions
//! (`session/request_permission`), forms (`elicitation/create`) and notices; and where
//! the client's answers become the turn's.

pub mod content;
pub mod elicit;
pub mod notice;
pub mod permission;
pub mod updates;

use warden_acp_transport::schema::{SessionId, SessionNotification, StopReason};
use warden_turn::{CallView, Shown, Stop};

/// The notification that shows a call: its `tool_call`, or a `tool_call_update` with
/// all of it when the client saw it before (asked again after a restart, or edited).
pub fn shown(session: &SessionId, view: &CallView, shown: Shown) -> SessionNotification {
    match shown {
        Shown::First => updates::proposed(session, view),
        Shown::Again => updates::proposed_again(session, view),
        Shown::Edited => updates::edited(session, view),
    }
}

/// The protocol's stop reason of a turn that ended.
pub fn stop_reason(stop: Stop) -> StopReason {
    match stop {
        Stop::EndTurn => StopReason::EndTurn,
        Stop::MaxTokens => StopReason::MaxTokens,
        Stop::MaxModelRequests => StopReason::MaxTurnRequests,
        Stop::Refusal => StopReason::Refusal,
        Stop::Cancelled => StopReason::Cancelled,
    }
}
