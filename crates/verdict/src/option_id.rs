//! The ids of the options a permission request offers (the contract's, section 5): what a
//! client answers with, what the journal stores and what `warden pending` writes.

pub const ALLOW_ONCE: &str = "allow-once";
pub const ALLOW_SESSION: &str = "allow-session";
pub const ALLOW_PROJECT: &str = "allow-project";
pub const REJECT_ONCE: &str = "reject-once";
pub const REJECT_PROJECT: &str = "reject-project";
/// Denies the call and stops the turn: nothing else of it runs.
pub const REJECT_AND_STOP: &str = "reject-and-stop";
/// Opens a form (`elicitation/create`) to approve with edits or deny with a note; only
/// for clients that show forms.
pub const EDIT_OR_NOTE: &str = "edit-or-note";
