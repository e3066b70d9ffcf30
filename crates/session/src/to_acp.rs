//! The one place where the turn's commands, in Warden's terms, become ACP messages:
//! calls shown and their progress (`session/update`), questions
//! (`session/request_permission`), forms (`elicitation/create`) and notices; and where
//! the client's answers become the turn's.

pub mod content;
pub mod elicit;
pub mod notice;
pub mod outlet;
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every `agent-…` message id the agent and the turn name in their code.
    fn ids_in(folder: &Path, ids: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(folder) else {
            panic!("cannot read {}", folder.display());
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                ids_in(&path, ids);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for piece in text.split('"').skip(1).step_by(2) {
                let id = piece.strip_suffix(".description").unwrap_or(piece);
                if id.starts_with("agent-")
                    && id.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                {
                    ids.push(piece.to_owned());
                }
            }
        }
    }

    #[test]
    fn every_message_the_agent_and_the_turn_name_is_in_the_english_catalog() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut ids = Vec::new();
        ids_in(&here.join("src"), &mut ids);
        ids_in(&here.join("../turn/src"), &mut ids);
        assert!(ids.len() > 40, "found only {ids:?}");
        let english = warden_i18n::catalog(warden_i18n::Language::English);
        // An option's label has its description beside it (`_meta.permission`).
        let descriptions: Vec<String> = ids
            .iter()
            .filter(|id| id.starts_with("agent-option-"))
            .map(|id| format!("{id}.description"))
            .collect();
        ids.extend(descriptions);
        let missing: Vec<&String> = ids.iter().filter(|id| !english.has(id)).collect();
        assert!(
            missing.is_empty(),
            "not in the English catalog: {missing:?}"
        );
    }
}
