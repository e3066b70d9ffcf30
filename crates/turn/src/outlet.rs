//! Where a turn's words go: the person who watches it and answers its questions.
//!
//! The driver hands the outlet what the turn shows (calls, their progress, text,
//! notices) and the questions it asks; the outlet puts them into the protocol the
//! client speaks, and reads the client's answers back into [`Answer`]s. The agent's
//! implementation speaks ACP; the driver knows nothing of it.

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;
use warden_tools::Content;

use crate::choice::Answer;
use crate::event::ToolResult;
use crate::notice::Notice;
use crate::offer::Offered;
use crate::view::{CallView, Form, Question, Shown};

/// Something the person watching the turn is shown.
#[derive(Debug)]
pub enum Update<'a> {
    /// A call, pending, with its preview and its risk in words.
    Show { view: &'a CallView, shown: Shown },
    /// A call that could not even be read, under [`invalid_title`].
    ShowInvalid {
        call_id: &'a str,
        tool: &'a str,
        args: &'a serde_json::Value,
    },
    /// A call starts running.
    Running { call_id: &'a str },
    /// What a running call has produced so far (its secrets already redacted).
    Progress {
        call_id: &'a str,
        content: Vec<Content>,
    },
    /// A call ends without running (or is stopped), with the reason.
    Failed { call_id: &'a str, reason: &'a str },
    /// A call ran: its result.
    Finished {
        call_id: &'a str,
        result: ToolResult,
    },
    /// Text of the agent's reply.
    Say(String),
    /// A notice about the session.
    Tell(&'a Notice),
}

/// The answer to a question or a form once it comes; `None` when the question was
/// withdrawn (the turn settled the call otherwise).
pub type PendingAnswer = BoxFuture<'static, Option<Answer>>;

/// Why a form could not be shown (its answer is then a denial).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct FormError(pub Box<dyn std::error::Error + Send + Sync>);

/// The person side of a turn.
pub trait Outlet: Send + Sync {
    /// Shows something; never waits.
    fn update(&self, update: Update<'_>);

    /// Sends a question about a call, with its options as `offered` labels them. Its
    /// answer fails closed: only an answer that names an offered option can allow.
    /// Cancelling `withdraw` withdraws the question (its answer is then `None`); the
    /// question's own timeout is the outlet's to keep.
    fn ask(
        &self,
        question: &Question,
        offered: &[Offered],
        withdraw: CancellationToken,
    ) -> PendingAnswer;

    /// Opens the form of a call (edit its arguments or leave a note) and reads its
    /// answer like a question's.
    fn elicit(&self, form: &Form, withdraw: CancellationToken) -> Result<PendingAnswer, FormError>;
}

/// What a call that could not be read is called.
pub fn invalid_title(tool: &str) -> String {
    format!("{tool} (invalid call)")
}
