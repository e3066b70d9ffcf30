//! The options a question offers, in Warden's terms, and the answer that comes back.
//!
//! Which options a call is offered, and in which order, is a safety property (the
//! contract's section 5), so it is decided here, with the turn; how each option is
//! labelled for a client is the protocol side's business.

use warden_verdict::option_id::{
    ALLOW_ONCE, ALLOW_PROJECT, ALLOW_SESSION, EDIT_OR_NOTE, REJECT_AND_STOP, REJECT_ONCE,
    REJECT_PROJECT,
};

use crate::gate::Verdict;

/// What the user can choose, in Warden's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    AllowOnce,
    AllowSession,
    AllowProject,
    RejectOnce,
    /// Deny the call and stop the turn ("no, and stop"), where `RejectOnce` lets the
    /// turn go on ("no, but carry on").
    RejectAndStop,
    RejectProject,
    EditOrNote,
}

impl Choice {
    /// Every choice, in the contract's order of option ids.
    pub const ALL: [Choice; 7] = [
        Choice::AllowOnce,
        Choice::AllowSession,
        Choice::AllowProject,
        Choice::RejectOnce,
        Choice::RejectAndStop,
        Choice::RejectProject,
        Choice::EditOrNote,
    ];

    pub fn option_id(self) -> &'static str {
        match self {
            Choice::AllowOnce => ALLOW_ONCE,
            Choice::AllowSession => ALLOW_SESSION,
            Choice::AllowProject => ALLOW_PROJECT,
            Choice::RejectOnce => REJECT_ONCE,
            Choice::RejectAndStop => REJECT_AND_STOP,
            Choice::RejectProject => REJECT_PROJECT,
            Choice::EditOrNote => EDIT_OR_NOTE,
        }
    }

    pub fn allows(self) -> bool {
        matches!(
            self,
            Choice::AllowOnce | Choice::AllowSession | Choice::AllowProject
        )
    }
}

/// The answer to a question, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The user chose an option (not yet checked against the options offered).
    Selected {
        option_id: String,
        /// The arguments the user wants the call to run with, if they edited them.
        edited_input: Option<serde_json::Value>,
        /// An instruction (on approval) or a reason (on denial).
        note: Option<String>,
    },
    /// The client cancelled the turn.
    Cancelled,
    /// No answer within the approval timeout; the question was withdrawn.
    TimedOut,
    /// An error response, a malformed response, a form that could not be shown or a
    /// lost connection: a denial.
    Failed { reason: String },
}

/// The options offered for a call, in the order they are shown:
/// `allow-once`, `reject-once` and, right after it, `reject-and-stop` always;
/// `allow-session` unless the call is Critical;
/// the project options only when a narrow grant can be proposed (and `allow-project`
/// not for Critical calls). A Critical call lists `reject-once` first, so that a client
/// whose cursor starts on the first option never runs it by a bare Enter.
///
/// With `forms` (the client shows forms), `edit-or-note` comes last, a `reject_once`
/// option that opens the form.
///
/// Order and content are safety properties: exactly one option of kind `allow_once`,
/// and an "always" option never stands alone.
pub fn offered(verdict: &Verdict, forms: bool) -> Vec<Choice> {
    let mut choices = offered_plain(verdict);
    if forms {
        choices.push(Choice::EditOrNote);
    }
    choices
}

fn offered_plain(verdict: &Verdict) -> Vec<Choice> {
    let narrow = verdict.proposal.is_some();
    if verdict.once_only() {
        let mut choices = vec![Choice::RejectOnce, Choice::RejectAndStop, Choice::AllowOnce];
        if narrow {
            choices.push(Choice::RejectProject);
        }
        return choices;
    }
    let mut choices = vec![Choice::AllowOnce, Choice::AllowSession];
    if narrow {
        choices.push(Choice::AllowProject);
    }
    choices.push(Choice::RejectOnce);
    choices.push(Choice::RejectAndStop);
    if narrow {
        choices.push(Choice::RejectProject);
    }
    choices
}

/// Maps an option id to the choice, if it was one of the options offered.
pub fn choice(option_id: &str, offered: &[Choice]) -> Option<Choice> {
    offered
        .iter()
        .copied()
        .find(|choice| choice.option_id() == option_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_permissions::{Decision, Risk};

    #[test]
    fn only_offered_options_count() {
        let verdict = Verdict {
            decision: Decision::Ask,
            risk: Risk::Critical,
            reason: String::new(),
            risk_reason: String::new(),
            deciding_part: None,
            proposal: None,
            timeout: None,
            why: Default::default(),
        };
        let offered = offered(&verdict, false);
        assert_eq!(choice("allow-once", &offered), Some(Choice::AllowOnce));
        assert_eq!(choice("allow-session", &offered), None);
        assert_eq!(choice("allow-always", &offered), None);
    }
}
