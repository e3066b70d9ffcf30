//! The turn's outlet over ACP: what a turn shows becomes `session/update`
//! notifications, its questions `session/request_permission` requests, its forms
//! `elicitation/create` requests, and the client's answers (or their absence) the
//! turn's [`Answer`]s, fail closed.

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use warden_acp_transport::schema::{SessionId, ToolCallStatus, ToolCallUpdateFields};
use warden_acp_transport::{ClientHandle, ClientRequestError, JsonRpcResponse, PendingRequest};
use warden_turn::{
    Answer, Form, FormError, Offered, Outlet, PendingAnswer, Question, Update, Words,
};

use super::{content, elicit, notice, permission, updates};

/// A session's client, as the turn's outlet.
#[derive(Debug, Clone)]
pub struct AcpOutlet {
    pub session: SessionId,
    pub client: ClientHandle,
    /// What a person reads, in the session's language.
    pub words: Words,
    /// The client shows session notices (else they become agent messages).
    pub notices: bool,
}

impl Outlet for AcpOutlet {
    fn update(&self, update: Update<'_>) {
        let session = &self.session;
        let notification = match update {
            Update::Show { view, shown } => super::shown(session, view, shown),
            Update::ShowInvalid {
                call_id,
                tool,
                args,
            } => updates::proposed_invalid(session, call_id, tool, args),
            Update::Running { call_id } => {
                updates::status(session, call_id, ToolCallStatus::InProgress)
            }
            Update::Progress { call_id, content } => updates::update(
                session,
                call_id,
                ToolCallUpdateFields::new().content(content::content(content)),
            ),
            Update::Failed { call_id, reason } => updates::failed(session, call_id, reason),
            Update::Finished { call_id, result } => updates::finished(session, call_id, result),
            Update::Say(text) => updates::message_chunk(session, text),
            Update::Tell(told) => notice::to_update(session, told, self.notices),
        };
        self.client.notify(notification);
    }

    fn ask(
        &self,
        question: &Question,
        offered: &[Offered],
        withdraw: CancellationToken,
    ) -> PendingAnswer {
        let asking = permission::request(&self.session, question, offered, self.words);
        let pending = self
            .client
            .send_permission_request(&asking.request, &asking.meta());
        answer(
            pending,
            question.timeout(),
            withdraw,
            "the client answered with an error",
            |response| match serde_json::from_value(response) {
                Ok(response) => permission::read_answer(response),
                Err(err) => Answer::Failed {
                    reason: warden_model::one_line(&format!(
                        "the client's answer is malformed: {err}"
                    )),
                },
            },
        )
    }

    fn elicit(&self, form: &Form, withdraw: CancellationToken) -> Result<PendingAnswer, FormError> {
        let request = elicit::request(&self.session, form, self.words)
            .map_err(|err| FormError(Box::new(err)))?;
        let pending = self.client.send(request);
        let args = form.args.clone();
        Ok(answer(
            pending,
            form.timeout,
            withdraw,
            "the client answered the form with an error",
            move |response| elicit::read(response, &args),
        ))
    }
}

/// Waits for the client's answer to a request: whatever comes back becomes the call's
/// [`Answer`], fail closed (only a response that `read` accepts can allow); `None` when
/// the turn withdrew the request.
fn answer<T>(
    pending: PendingRequest<T>,
    timeout: Option<Duration>,
    withdraw: CancellationToken,
    rejected: &'static str,
    read: impl FnOnce(T) -> Answer + Send + 'static,
) -> PendingAnswer
where
    T: JsonRpcResponse + Send + 'static,
{
    Box::pin(async move {
        Some(match pending.wait(timeout, &withdraw).await {
            Ok(response) => read(response),
            Err(ClientRequestError::Timeout { .. }) => Answer::TimedOut,
            // Withdrawn by the turn itself: it already settled the call.
            Err(ClientRequestError::Withdrawn { .. }) => return None,
            // With the connection gone nobody can answer; the turn is over.
            Err(ClientRequestError::Disconnected { .. }) => Answer::Cancelled,
            // One line, whole: the reason ends up in a sentence for the model and the
            // user.
            Err(ClientRequestError::Rejected { error, .. }) => Answer::Failed {
                reason: warden_model::one_line(&format!("{rejected}: {error}")),
            },
        })
    })
}
