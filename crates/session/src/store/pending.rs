//! Calls waiting for approval in every stored session, and answering them from
//! another terminal (`warden pending`).

use std::path::PathBuf;

use super::claim::{Claim, ClaimResult};
use super::record::{AnsweredBy, ProposedCall};
use super::{SessionStore, SessionStoreError, now_ms};
use crate::permission::{ALLOW_ONCE, REJECT_ONCE};

/// A call that was asked and has no answer yet.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCall {
    pub session: String,
    pub cwd: PathBuf,
    pub call: ProposedCall,
}

impl PendingCall {
    /// The id `warden pending` shows and takes: `<session>/<call>`, unambiguous across
    /// sessions (a call id is unique only within its session).
    pub fn id(&self) -> String {
        format!("{}/{}", self.session, self.call.id)
    }
}

/// What an id given to `warden pending` names.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    Found(Box<PendingCall>),
    NotFound,
    /// A prefix that more than one pending call's id starts with.
    Ambiguous(Vec<String>),
}

impl SessionStore {
    /// Every call waiting for approval, oldest first. A call whose request was never
    /// sent (Warden stopped before it asked) is not listed: it is judged again when its
    /// session loads.
    pub fn pending(&self) -> Result<Vec<PendingCall>, SessionStoreError> {
        let mut out = Vec::new();
        for summary in self.list()? {
            if summary.waiting == 0 {
                continue;
            }
            let loaded = self.load(&summary.id)?;
            out.extend(
                loaded
                    .waiting
                    .into_iter()
                    .filter(|w| w.asked.is_some())
                    .map(|w| PendingCall {
                        session: summary.id.clone(),
                        cwd: loaded.header.cwd.clone(),
                        call: w.call,
                    }),
            );
        }
        out.sort_by(|a, b| {
            a.call
                .at_ms
                .cmp(&b.call.at_ms)
                .then_with(|| a.id().cmp(&b.id()))
        });
        Ok(out)
    }

    /// Finds a pending call by its full id, or by a prefix of it that only one has.
    pub fn find_pending(&self, query: &str) -> Result<Lookup, SessionStoreError> {
        let pending = self.pending()?;
        if let Some(exact) = pending.iter().find(|p| p.id() == query) {
            return Ok(Lookup::Found(Box::new(exact.clone())));
        }
        let mut matches: Vec<PendingCall> = pending
            .into_iter()
            .filter(|p| !query.is_empty() && p.id().starts_with(query))
            .collect();
        Ok(match matches.len() {
            0 => Lookup::NotFound,
            1 => Lookup::Found(Box::new(matches.remove(0))),
            _ => Lookup::Ambiguous(matches.iter().map(PendingCall::id).collect()),
        })
    }

    /// Answers a pending call from `warden pending`: allow-once or reject-once (the ids
    /// the call's own request offered), with an optional note. The answer is claimed
    /// durably; a call answered before, from anywhere, is refused.
    pub fn answer_pending(
        &self,
        pending: &PendingCall,
        allow: bool,
        note: Option<String>,
    ) -> Result<ClaimResult, SessionStoreError> {
        let (kind, fallback) = if allow {
            ("allow_once", ALLOW_ONCE)
        } else {
            ("reject_once", REJECT_ONCE)
        };
        let option = pending
            .call
            .options
            .iter()
            .find(|o| o.kind == kind)
            .map_or(fallback, |o| o.id.as_str())
            .to_owned();
        self.claim(
            &pending.session,
            &Claim {
                call: pending.call.id.clone(),
                option,
                by: AnsweredBy::Pending,
                note: note.filter(|n| !n.trim().is_empty()),
                at_ms: now_ms(),
            },
        )
    }
}
