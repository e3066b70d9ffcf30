//! Questions and their answers: a question is sent, its answer claimed (the first
//! answer a question gets is the only one it takes), and the answer that won goes to
//! the turn. An answer given from elsewhere (another terminal) is looked for while
//! questions are open.

use tokio_util::sync::CancellationToken;
use warden_verdict::AnsweredBy;
use warden_verdict::option_id::{EDIT_OR_NOTE, REJECT_ONCE};

use super::DriverState;
use super::calls::Answered;
use crate::audit::{AuditContext, AuditKind, AuditNote};
use crate::choice::Answer;
use crate::event::Event;
use crate::journal::{ClaimRequest, Claimed, Journal};
use crate::offer::offer;
use crate::outlet::PendingAnswer;
use crate::view::{Form, Question};

impl DriverState {
    pub(super) fn ask(&mut self, question: Question) {
        let offered = offer(&question, self.setup.words);
        let withdraw = CancellationToken::new();
        self.note_question(&question, &offered, withdraw.clone());
        // Sent here, in the loop, so the question is on the wire before anything the
        // loop sends later.
        let answer = self.setup.outlet.ask(&question, &offered, withdraw);
        self.await_answer(question.call_id().to_owned(), question.number, answer);
    }

    /// Opens the form of a call and feeds its answer back like a question's; a form
    /// that cannot be shown is a failed answer, a denial.
    pub(super) fn elicit(&mut self, form: Form) {
        let withdraw = CancellationToken::new();
        match self.setup.outlet.elicit(&form, withdraw.clone()) {
            Ok(answer) => {
                self.calls.asking(&form.call_id, form.question, withdraw);
                self.await_answer(form.call_id, form.question, answer);
            }
            Err(err) => self.ready.push_back(Event::Answered {
                call_id: form.call_id,
                question: form.question,
                answer: Answer::Failed {
                    reason: format!("the form could not be shown ({err})"),
                },
            }),
        }
    }

    /// Waits for the answer to question `question` about a call, and claims the
    /// question for it before the turn sees it.
    fn await_answer(&mut self, call_id: String, question: u32, answer: PendingAnswer) {
        let journal = self.setup.journal.clone();
        self.answers.push(Box::pin(async move {
            // Withdrawn by the turn itself: it already settled the call.
            let answer = answer.await?;
            Some(match journal {
                Some(journal) => claim(journal.as_ref(), (call_id, question), answer).await,
                None => Answered {
                    by: chosen(&answer).then_some(AnsweredBy::Editor),
                    call_id,
                    question,
                    answer,
                    refused: None,
                    durable: None,
                },
            })
        }));
    }

    /// The event of an answer; who gave it is kept for its audit note, and an editor's
    /// answer that came second is audited as refused.
    pub(super) fn answered(&mut self, reply: Answered) -> Event {
        let Answered {
            call_id,
            question,
            answer,
            by,
            refused,
            durable,
        } = reply;
        if let Some(durable) = durable {
            self.calls.must_be_durable(&call_id, durable);
        }
        if let Some(by) = by {
            self.calls.answered(&call_id, by);
        }
        if let (Some(option_id), Some(first)) = (refused, by) {
            let (tool, args) = self
                .calls
                .get(&call_id)
                .map(|c| (c.record.tool.clone(), c.record.args.clone()))
                .unwrap_or_default();
            let reason = format!(
                "a second answer was refused; the call was answered before by {}",
                first.as_words()
            );
            tracing::info!(call = %call_id, option = %option_id, "{reason}");
            self.audits.push((
                AuditNote {
                    call_id: call_id.clone(),
                    tool,
                    args,
                    kind: AuditKind::Refused { option_id, reason },
                },
                AuditContext {
                    latency: None,
                    answered_by: Some(AnsweredBy::Editor),
                },
            ));
        }
        Event::Answered {
            call_id,
            question,
            answer,
        }
    }

    /// An answer given from elsewhere to the open question of one of the calls that
    /// wait, if any: its question is withdrawn, and the answer goes to the turn as the
    /// editor's would.
    pub(super) fn answered_elsewhere(&mut self) -> Option<Event> {
        let journal = self.setup.journal.clone()?;
        let (call_id, prior) = self.calls.open_questions().find_map(|(id, question)| {
            journal
                .answered_elsewhere(id, question)
                .map(|prior| (id.to_owned(), prior))
        })?;
        // Withdrawn here, so that the next look does not find the same answer again.
        self.calls.withdraw(&call_id);
        tracing::info!(call = %call_id, option = %prior.option, "answered from another terminal (warden pending)");
        self.calls.answered(&call_id, prior.by);
        Some(Event::Answered {
            call_id,
            question: prior.question,
            answer: Answer::Selected {
                option_id: prior.option,
                edited_input: None,
                note: prior.note,
            },
        })
    }
}

/// Whether a person chose an option (rather than no answer coming: a timeout, a
/// cancel, a failure).
fn chosen(answer: &Answer) -> bool {
    matches!(answer, Answer::Selected { .. })
}

/// Claims question `question` about a call for the editor's answer before the turn sees
/// it. When the question was answered first from elsewhere, that answer is the one
/// used, and the editor's is refused. When the claim cannot be made, the answer is a
/// denial.
async fn claim(
    journal: &dyn Journal,
    (call_id, question): (String, u32),
    answer: Answer,
) -> Answered {
    let by = chosen(&answer).then_some(AnsweredBy::Editor);
    let (option, note) = match &answer {
        // Not an answer yet: it opens the form, whose answer is the one claimed.
        Answer::Selected { option_id, .. } if option_id == EDIT_OR_NOTE => {
            return Answered {
                call_id,
                question,
                answer,
                by,
                refused: None,
                durable: None,
            };
        }
        Answer::Selected {
            option_id, note, ..
        } => (option_id.clone(), note.clone()),
        Answer::Cancelled => (REJECT_ONCE.to_owned(), None),
        Answer::TimedOut => (REJECT_ONCE.to_owned(), Some("no answer in time".to_owned())),
        Answer::Failed { reason } => (REJECT_ONCE.to_owned(), Some(reason.clone())),
    };
    let request = ClaimRequest {
        call: call_id.clone(),
        question,
        option: option.clone(),
        note,
    };
    match journal.claim(request).await {
        Ok(Claimed::This(durable)) => Answered {
            call_id,
            question,
            answer,
            by,
            refused: None,
            durable,
        },
        Ok(Claimed::First(first)) => Answered {
            call_id,
            question,
            answer: Answer::Selected {
                option_id: first.option,
                edited_input: None,
                note: first.note,
            },
            by: Some(first.by),
            // What the editor chose, when it chose: its answer came second.
            refused: by.map(|_| option),
            durable: None,
        },
        Err(e) => Answered {
            call_id,
            question,
            answer: Answer::Failed {
                reason: warden_model::one_line(&format!("the answer could not be recorded: {e}")),
            },
            by: None,
            refused: None,
            durable: None,
        },
    }
}
