//! Each call in flight, in one place: the open question about it, its running tool,
//! who answered it, what must reach the disk before it runs, and what it is written
//! down as. The turn decides what happens to a call; this is only what the driver holds
//! while it happens.

use std::collections::HashMap;
use std::time::Instant;

use tokio_util::sync::CancellationToken;
use warden_verdict::AnsweredBy;

use crate::audit::AuditContext;
use crate::choice::Answer;
use crate::journal::{CallRecord, Durable, Journal};
use crate::turn::Resumed;

/// An open question: a permission request (or its form) waiting for its answer.
pub(super) struct Ask {
    pub(super) question: u32,
    pub(super) withdraw: CancellationToken,
    pub(super) since: Instant,
}

/// An answer to a question about a call, with who gave it, and the editor's own answer
/// when it was refused because the question was answered first from elsewhere.
pub(super) struct Answered {
    pub(super) call_id: String,
    pub(super) question: u32,
    pub(super) answer: Answer,
    pub(super) by: Option<AnsweredBy>,
    pub(super) refused: Option<String>,
    /// What must reach the disk before the call runs on this answer.
    pub(super) durable: Option<Durable>,
}

/// What the driver holds of one call.
pub(super) struct Call {
    /// What is known of it, for its journal records.
    pub(super) record: CallRecord,
    /// Its `proposed` record is written.
    pub(super) written: bool,
    /// A call of a restored session asked again: an answer already given to it (from
    /// another terminal) is its own, and stays.
    pub(super) keeps_answers: bool,
    pub(super) ask: Option<Ask>,
    pub(super) tool: Option<CancellationToken>,
    /// Who answered it, for the audit note of its answer.
    pub(super) answered_by: Option<AnsweredBy>,
    /// What must be on disk before it runs: the claim of its answer, or the record
    /// that a restored session applied an answer given while no Warden ran.
    pub(super) durable: Option<Durable>,
}

#[derive(Default)]
pub(super) struct Calls {
    calls: HashMap<String, Call>,
}

impl Calls {
    /// The calls of a turn that settles those a restored session left waiting. An answer
    /// given to one while no Warden ran was `warden pending`'s: its audit note says so,
    /// and the journal, which records that the answer was applied, is synced before the
    /// call runs (or a load after a power loss would apply it again).
    pub(super) fn resuming(resumed: &[Resumed], journal: Option<&dyn Journal>) -> Calls {
        let mut calls = Calls::default();
        for resumed in resumed {
            let call = calls.entry(&resumed.request.id);
            call.keeps_answers = true;
            if resumed.answer.is_some() {
                call.answered_by = Some(AnsweredBy::Pending);
                call.durable = journal.map(Journal::sync);
            }
        }
        calls
    }

    pub(super) fn entry(&mut self, id: &str) -> &mut Call {
        self.calls.entry(id.to_owned()).or_insert_with(|| Call {
            record: CallRecord::new(id),
            written: false,
            keeps_answers: false,
            ask: None,
            tool: None,
            answered_by: None,
            durable: None,
        })
    }

    pub(super) fn get(&self, id: &str) -> Option<&Call> {
        self.calls.get(id)
    }

    /// Whether any question is open.
    pub(super) fn any_asked(&self) -> bool {
        self.calls.values().any(|c| c.ask.is_some())
    }

    /// The open questions: each call's id and the number of its question.
    pub(super) fn open_questions(&self) -> impl Iterator<Item = (&str, u32)> {
        self.calls
            .iter()
            .filter_map(|(id, c)| c.ask.as_ref().map(|a| (id.as_str(), a.question)))
    }

    /// Question `question` about a call is open until `withdraw` is cancelled.
    pub(super) fn asking(&mut self, id: &str, question: u32, withdraw: CancellationToken) {
        self.entry(id).ask = Some(Ask {
            question,
            withdraw,
            since: Instant::now(),
        });
    }

    /// Withdraws the open question about a call, if any.
    pub(super) fn withdraw(&mut self, id: &str) {
        if let Some(ask) = self.calls.get_mut(id).and_then(|c| c.ask.take()) {
            ask.withdraw.cancel();
        }
    }

    pub(super) fn tool_started(&mut self, id: &str, token: CancellationToken) {
        self.entry(id).tool = Some(token);
    }

    /// Stops a call's running tool, if any.
    pub(super) fn stop_tool(&mut self, id: &str) {
        if let Some(token) = self.calls.get_mut(id).and_then(|c| c.tool.take()) {
            token.cancel();
        }
    }

    /// Someone answered a call.
    pub(super) fn answered(&mut self, id: &str, by: AnsweredBy) {
        self.entry(id).answered_by = Some(by);
    }

    /// Something must reach the disk before a call runs (after what already must).
    pub(super) fn must_be_durable(&mut self, id: &str, durable: Durable) {
        let call = self.entry(id);
        call.durable = Some(match call.durable.take() {
            None => durable,
            Some(before) => Box::new(move || {
                before()?;
                durable()
            }),
        });
    }

    /// What must reach the disk before a call runs, taken as it starts.
    pub(super) fn take_durable(&mut self, id: &str) -> Option<Durable> {
        self.calls.get_mut(id).and_then(|c| c.durable.take())
    }

    /// The audit context of a call's answer: how long its question waited, and who
    /// answered. Its question is closed.
    pub(super) fn answer_context(&mut self, id: &str) -> AuditContext {
        let Some(call) = self.calls.get_mut(id) else {
            return AuditContext::default();
        };
        AuditContext {
            latency: call.ask.take().map(|a| a.since.elapsed()),
            answered_by: call.answered_by.take(),
        }
    }

    /// At the end of a turn: every open question withdrawn, every tool stopped.
    pub(super) fn wind_down(&mut self) {
        for call in self.calls.values_mut() {
            if let Some(ask) = call.ask.take() {
                ask.withdraw.cancel();
            }
            if let Some(token) = call.tool.take() {
                token.cancel();
            }
        }
    }
}
