//! How each option of a question is labelled for the person who answers it: the label,
//! and a sentence that says what choosing it does. Clients show labels as plain text, so
//! they carry no Markdown; a grant is named in plain words with workspace-relative
//! paths. The protocol side puts these on its options; the journal keeps the labels, so
//! that `warden pending` shows a waiting call's options as the editor showed them.

use warden_i18n::Args;

use crate::choice::Choice;
use crate::view::Question;
use crate::words::Words;

/// One option a question offers, as the person is shown it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    pub choice: Choice,
    pub label: String,
    /// What choosing it does, in a sentence.
    pub description: String,
}

/// The options of `question`, in the order it offers them.
pub fn offer(question: &Question, words: Words) -> Vec<Offered> {
    let grant = question.verdict.proposal_words();
    let mcp = question.view.origin.is_some();
    let args = Args::new().with("grant", grant.unwrap_or("this").to_owned());
    question
        .choices
        .iter()
        .map(|&choice| {
            let id = message_id(choice, mcp, grant.is_some());
            Offered {
                choice,
                label: words.text(id, &args),
                description: words.text(&format!("{id}.description"), &args),
            }
        })
        .collect()
}

/// The catalog message that labels a choice. The wording for MCP tools is the
/// contract's.
fn message_id(choice: Choice, mcp: bool, grant: bool) -> &'static str {
    match choice {
        Choice::AllowOnce => "agent-option-allow-once",
        Choice::AllowSession if mcp => "agent-option-allow-session-mcp",
        Choice::AllowSession if grant => "agent-option-allow-session",
        Choice::AllowSession => "agent-option-allow-session-exact",
        Choice::AllowProject => "agent-option-allow-project",
        Choice::RejectOnce if mcp => "agent-option-reject-once-mcp",
        Choice::RejectOnce => "agent-option-reject-once",
        Choice::RejectAndStop => "agent-option-reject-and-stop",
        Choice::RejectProject => "agent-option-reject-project",
        Choice::EditOrNote => "agent-option-edit-or-note",
    }
}
