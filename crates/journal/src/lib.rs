//! Sessions that survive a restart: one append-only journal per session under the
//! state folder's `sessions/`, and the answers to its permission requests, claimed
//! once across processes.
//!
//! `sessions/<id>.jsonl` is the journal (`journal.rs`, records in `record.rs`): every
//! state change of a session, appended as it happens, one checked line each, so that a
//! process killed at any point leaves a journal that loads (`load.rs` skips and reports
//! a torn or damaged line). `sessions/<id>.answers/<call>` (and `<call>#<n>`) is the
//! answer to one question about a call (`claim.rs`): created exclusively, so each
//! question takes exactly one answer, from the editor, from `warden pending`, or from
//! Warden closing a question it asks again. A journal is held by one process at a time, under
//! an exclusive lock, for as long as that process has the session open (`lock.rs`).
//! The folders are the user's own, mode 0700, and the files 0600; a folder that others
//! could read or write is refused (`folder.rs`). Old sessions are pruned at start-up
//! (`retention.rs`).
//!
//! The records are the journal's own types (`record.rs`, `message.rs`): kinds are enums,
//! the conversation is stored as the journal's `Message`, not the model's, and every line
//! names its format version. The session converts its in-memory types into these in one
//! place; `warden sessions` and `warden pending` read them directly.

mod claim;
mod error;
mod folder;
mod journal;
mod load;
mod lock;
mod message;
mod pending;
mod record;
mod retention;
mod store;

pub use claim::{
    Claim, ClaimResult, SUPERSEDED_OPTION, Spare, Taken, UNREADABLE_CLAIM_OPTION, Unsynced,
};
pub use error::SessionStoreError;
pub use folder::{answer_file_name, call_file_name, parse_answer_file_name, valid_session_id};
pub use journal::{Durability, Journal};
pub use load::{
    AnsweredCall, InterruptedCall, Interruption, LoadedSession, Parsed, Problem, Rebuilt,
    ReplayCall, ReplayItem, ReplayStatus, WaitingCall, parse,
};
pub use message::{CallStatus, Message, OptionKind, ToolCall, ToolKind};
pub use pending::{Lookup, PendingCall};
pub use record::{
    AnswerRecord, FinishedCall, Header, LineProblem, OfferedOption, ProposedCall, Record, VERSION,
    decode, encode,
};
pub use retention::{Retention, prune_at_start};
pub use store::{SessionStore, SessionSummary, millis, now_ms};
// Who answered is the verdict crate's word; the journal records it.
pub use warden_verdict::AnsweredBy;

#[cfg(test)]
mod tests;
