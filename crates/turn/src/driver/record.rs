//! What the driver writes down as the turn goes: the conversation as it grows, and each
//! call as its commands say what it is (evaluated, shown, asked, about to run).

use tokio_util::sync::CancellationToken;

use super::{CLAIM_POLL, DriverState};
use crate::audit::AuditKind;
use crate::command::Command;
use crate::journal::Entry;
use crate::offer::Offered;
use crate::outlet::invalid_title;
use crate::turn::Turn;
use crate::view::{Question, Shown};

impl DriverState {
    /// Writes down the conversation's new entries, and for each new tool result its
    /// call's `finished` record.
    pub(super) fn journal_conversation(&mut self, turn: &Turn) {
        let messages = turn.conversation().messages();
        let Some(journal) = &self.setup.journal else {
            self.journaled = messages.len();
            return;
        };
        for message in messages.iter().skip(self.journaled) {
            // A prompt is recorded for the replay as it joins the conversation (a prompt
            // a resumed turn took joins after the calls in flight).
            if let warden_model::Message::User { text } = message {
                journal.stage(Entry::Prompt(text));
            }
            journal.stage(Entry::Conversation(message));
            if let warden_model::Message::ToolResult { call_id, .. } = message
                && self.calls.get(call_id).is_some_and(|c| c.written)
            {
                journal.stage(Entry::Finished(message));
            }
        }
        self.journaled = messages.len();
    }

    /// Notes what a command says about a call: its evaluation, how the client is shown
    /// it, and that it is about to run (a question is written down as it is sent,
    /// [`DriverState::note_question`]).
    pub(super) fn note(&mut self, command: &Command) {
        match command {
            Command::Audit(note) => {
                if let AuditKind::Evaluated { verdict } = &note.kind {
                    let record = &mut self.calls.entry(&note.call_id).record;
                    record.tool.clone_from(&note.tool);
                    record.args.clone_from(&note.args);
                    record.risk = verdict.risk;
                    record.reason.clone_from(&verdict.reason);
                    record.grant = verdict.proposal_words().map(str::to_owned);
                }
            }
            Command::Show { view, shown } => {
                let record = &mut self.calls.entry(&view.call_id).record;
                record.title.clone_from(&view.title);
                // A call shown again (edited, or asked again after a restart) keeps its
                // kind.
                if *shown == Shown::First {
                    record.kind = view.kind;
                }
            }
            Command::ShowInvalid { call_id, tool, .. } => {
                let record = &mut self.calls.entry(call_id).record;
                record.title = invalid_title(tool);
                record.kind = warden_tools::ToolKind::Other;
            }
            Command::Run { call_id, .. } => self.propose(call_id),
            _ => {}
        }
    }

    /// Writes the call's `proposed` record, once; the first time, the answers an
    /// earlier call with the same id left are dropped.
    fn propose(&mut self, call_id: &str) {
        let Some(journal) = self.setup.journal.clone() else {
            return;
        };
        let call = self.calls.entry(call_id);
        if call.written {
            return;
        }
        call.written = true;
        if !call.keeps_answers {
            journal.forget_old_answers(call_id);
        }
        journal.stage(Entry::Proposed(&call.record));
    }

    /// Writes down a question as it is sent: the call as it shows it, with the options
    /// it offers, then the question itself; and opens it.
    pub(super) fn note_question(
        &mut self,
        question: &Question,
        offered: &[Offered],
        withdraw: CancellationToken,
    ) {
        let call_id = question.call_id();
        self.calls.asking(call_id, question.number, withdraw);
        let Some(journal) = self.setup.journal.clone() else {
            return;
        };
        let call = self.calls.entry(call_id);
        call.record.offered = offered.to_vec();
        // Once per question, since a question asked again may show edited arguments, a
        // new risk and other options: a load finds the latest question's.
        if call.written {
            journal.stage(Entry::Proposed(&call.record));
        } else {
            self.propose(call_id);
        }
        journal.asking(call_id, question.number);
        // Written with what was staged before it (the reply's conversation entry, the
        // call's `proposed` record) before the question is sent: a question the client
        // saw is one the journal knows was asked.
        self.asked += 1;
        journal.write(Entry::Asked {
            call: call_id,
            request: self.asked,
            question: question.number,
            edited: question.edited,
        });
        // Ready for the answer, so that claiming it need not wait for the disk.
        journal.prepare_answers();
        if self.poll.is_none() {
            // The first look is one period from now: an `interval`'s first tick is at
            // once, when the call was only just asked (and its old answer, if any, just
            // dropped), and it would cost the question's path a look at the disk.
            let mut poll =
                tokio::time::interval_at(tokio::time::Instant::now() + CLAIM_POLL, CLAIM_POLL);
            poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            self.poll = Some(poll);
        }
    }
}
