//! A session's journal as its turns write it: the turn's entries become the journal's
//! records (`stored.rs`), and an answer's claim is made with a spare answer file when
//! one is ready (without waiting for the disk) or whole on the blocking pool.

use futures::future::BoxFuture;
use warden_journal::{AnsweredBy, Claim, Record, SessionStoreError};
use warden_turn::{ClaimRequest, Claimed, Durable, Entry, JournalError, Prior};

use super::{Checkpoints, Owner, answered};

fn error(e: SessionStoreError) -> JournalError {
    JournalError(Box::new(e))
}

fn prior(claim: Claim) -> Prior {
    Prior {
        question: claim.question,
        option: claim.option,
        note: claim.note,
        by: claim.by,
    }
}

impl Checkpoints {
    fn record(&self, entry: Entry<'_>) -> Option<Record> {
        let record = crate::stored::record(entry);
        if record.is_none() {
            tracing::debug!("a turn's entry with nothing to record");
        }
        record
    }
}

impl warden_turn::Journal for Checkpoints {
    fn stage(&self, entry: Entry<'_>) {
        if let Some(record) = self.record(entry) {
            Checkpoints::stage(self, &record);
        }
    }

    fn write(&self, entry: Entry<'_>) {
        match self.record(entry) {
            Some(record) => Checkpoints::write(self, &record),
            None => Checkpoints::flush(self),
        }
    }

    fn flush(&self) {
        Checkpoints::flush(self);
    }

    fn running(&self, call: &str) -> Result<(), JournalError> {
        self.try_write(&Record::Running {
            call: call.to_owned(),
        })
        .map_err(error)
    }

    fn forget_old_answers(&self, call: &str) {
        self.forget_old_answer(call);
    }

    fn asking(&self, call: &str, question: u32) {
        Checkpoints::asking(self, call, question);
    }

    fn prepare_answers(&self) {
        self.replenish();
    }

    fn answered_elsewhere(&self, call: &str, question: u32) -> Option<Prior> {
        let claim = self.claimed_elsewhere(call, question)?;
        Checkpoints::write(self, &answered(&claim));
        Some(prior(claim))
    }

    /// With a spare answer file ready, the claim is taken here without creating a file
    /// or waiting for the disk, and synced before the call runs; without one, all of
    /// it happens on the blocking pool.
    fn claim(&self, request: ClaimRequest) -> BoxFuture<'static, Result<Claimed, JournalError>> {
        let claim = Claim {
            call: request.call,
            question: request.question,
            option: request.option,
            by: AnsweredBy::Editor,
            note: request.note,
            at_ms: warden_journal::now_ms(),
        };
        let now = self.claim_now(&claim);
        let this = self.clone();
        Box::pin(async move {
            let owner = match now {
                Some(owner) => owner.map_err(error)?,
                None => {
                    let blocking = this.clone();
                    tokio::task::spawn_blocking(move || blocking.claim(claim))
                        .await
                        .map_err(|e| JournalError(Box::new(e)))?
                        .map_err(error)?
                }
            };
            Ok(match owner {
                Owner::This(None) => Claimed::This(None),
                Owner::This(Some(unsynced)) => Claimed::This(Some(Box::new(move || {
                    this.make_durable(unsynced).map_err(error)
                }))),
                Owner::First(first) => Claimed::First(prior(first)),
            })
        })
    }

    fn sync(&self) -> Durable {
        let this = self.clone();
        Box::new(move || this.sync_journal().map_err(error))
    }
}
