//! How a chat ends, as its exit code says it.

use agent_client_protocol::v1::schema::StopReason;

/// How the chat ended, as the exit code says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The last turn ended normally (`end_turn`), or there was no turn.
    Ended,
    /// The last turn was cancelled (Ctrl-C, SIGTERM).
    Cancelled,
    /// The last turn failed, or stopped for another reason.
    Failed,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Ended => 0,
            Exit::Cancelled => 130,
            Exit::Failed => 1,
        }
    }
}

/// What a stop reason means for the exit code, and its name on the wire.
pub(crate) fn stop_reason(reason: StopReason) -> (Exit, String) {
    let exit = match reason {
        StopReason::EndTurn => Exit::Ended,
        StopReason::Cancelled => Exit::Cancelled,
        _ => Exit::Failed,
    };
    let name = serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned());
    (exit, name)
}
