//! Who answered a question about a call.

use serde::{Deserialize, Serialize};

/// Who answered a permission request: recorded in the journal and named in the audit log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnsweredBy {
    /// The editor, through `session/request_permission`.
    Editor,
    /// `warden pending approve|deny` from another terminal.
    Pending,
    /// Warden itself, closing a question nobody answered before it asks the call again
    /// (after a restart): the question's answer is then "superseded", never an allow,
    /// and a late answer to it is refused.
    Warden,
}

impl AnsweredBy {
    /// Who answered, in words for people and the audit log.
    pub fn as_words(self) -> &'static str {
        match self {
            AnsweredBy::Editor => "the editor",
            AnsweredBy::Pending => "warden pending",
            AnsweredBy::Warden => "Warden (it asked again)",
        }
    }
}
