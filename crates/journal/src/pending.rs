//! Calls waiting for approval in every stored session, and answering them from
//! another terminal (`warden pending`).

use std::collections::HashMap;
use std::path::PathBuf;

use crate::claim::{Claim, ClaimResult};
use crate::folder::valid_session_id;
use crate::record::{AnswerRecord, ProposedCall};
use crate::{SessionStore, SessionStoreError, now_ms};
use warden_verdict::AnsweredBy;
use warden_verdict::option_id::{ALLOW_ONCE, REJECT_ONCE};

use crate::message::OptionKind;

/// A call whose latest question was asked and has no answer yet.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCall {
    pub session: String,
    pub cwd: PathBuf,
    /// The call as its latest question shows it.
    pub call: ProposedCall,
    /// The latest question's number: the one an answer from here answers.
    pub question: u32,
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
    /// A call that was waiting and whose latest question has been answered, from
    /// anywhere: a question takes one answer, so another one is refused. Holds the
    /// answer that owns the question.
    Answered {
        call: Box<PendingCall>,
        first: Claim,
    },
    NotFound,
    /// A prefix that more than one pending call's id starts with.
    Ambiguous(Vec<String>),
}

/// What a query matched among some calls.
enum Match<T> {
    None,
    One(T),
    /// The ids of the calls a prefix matched.
    Many(Vec<String>),
}

/// The call whose id is the query, else the one call whose id starts with it.
fn one_of<T>(calls: Vec<T>, query: &str, id: impl Fn(&T) -> String) -> Match<T> {
    let mut matches: Vec<T> = Vec::new();
    for call in calls {
        let this = id(&call);
        if this == query {
            return Match::One(call);
        }
        if !query.is_empty() && this.starts_with(query) {
            matches.push(call);
        }
    }
    match matches.len() {
        0 => Match::None,
        1 => matches.pop().map_or(Match::None, Match::One),
        _ => Match::Many(matches.iter().map(id).collect()),
    }
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
                    .filter(|w| w.asked.is_some() && w.question > 0)
                    .map(|w| PendingCall {
                        session: summary.id.clone(),
                        cwd: loaded.header.cwd.clone(),
                        call: w.call,
                        question: w.question,
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
    /// When no pending call matches, an answered call is looked for the same way, so
    /// that a second answer is told apart from an unknown id.
    pub fn find_pending(&self, query: &str) -> Result<Lookup, SessionStoreError> {
        let pending = self.pending()?;
        Ok(match one_of(pending, query, PendingCall::id) {
            Match::One(call) => Lookup::Found(Box::new(call)),
            Match::Many(ids) => Lookup::Ambiguous(ids),
            Match::None => match one_of(self.answered(query)?, query, |(p, _)| p.id()) {
                Match::One((call, first)) => Lookup::Answered {
                    call: Box::new(call),
                    first,
                },
                Match::None | Match::Many(_) => Lookup::NotFound,
            },
        })
    }

    /// The answered calls of the sessions a query can name (the one it names in full
    /// before its `/`, or those whose id starts with it), with the answer that owns the
    /// latest question of each: its claim file, or the journal's record when the file
    /// is gone.
    fn answered(&self, query: &str) -> Result<Vec<(PendingCall, Claim)>, SessionStoreError> {
        let sessions: Vec<String> = match query.split_once('/') {
            Some((session, _)) if valid_session_id(session) => vec![session.to_owned()],
            Some(_) => Vec::new(),
            None if query.is_empty() => Vec::new(),
            None => self
                .ids()?
                .into_iter()
                .map(|(id, _)| id)
                .filter(|id| id.starts_with(query))
                .collect(),
        };
        let mut out = Vec::new();
        for session in sessions {
            let rebuilt = match self.rebuilt(&session) {
                Ok(rebuilt) => rebuilt,
                Err(SessionStoreError::NotFound { .. }) => continue,
                Err(e) => return Err(e),
            };
            // A call id a later reply used again names its last call.
            let mut calls: HashMap<&str, (&ProposedCall, u32, Option<&AnswerRecord>)> =
                HashMap::new();
            for (call, question, answer) in rebuilt.questions() {
                calls.insert(call.id.as_str(), (call, question, answer));
            }
            let asked = calls
                .iter()
                .filter(|(_, (_, question, _))| *question > 0)
                .map(|(id, (_, question, _))| (*id, *question));
            let claims = self.answers(&session)?.of(asked)?;
            for (id, (call, question, answer)) in calls {
                let first = match (claims.get(id), answer) {
                    (Some(claim), _) => claim.clone(),
                    (None, Some(a)) => Claim {
                        call: a.call.clone(),
                        question: a.question,
                        option: a.option.clone(),
                        by: a.by,
                        note: a.note.clone(),
                        at_ms: 0,
                    },
                    (None, None) => continue,
                };
                let call = PendingCall {
                    session: session.clone(),
                    cwd: rebuilt.header().cwd.clone(),
                    call: call.clone(),
                    question,
                };
                out.push((call, first));
            }
        }
        Ok(out)
    }

    /// Answers a pending call's latest question from `warden pending`: allow-once or
    /// reject-once (the ids the question's own request offered), with an optional note.
    /// The answer is claimed durably; a question answered before, from anywhere (or
    /// closed by Warden as it asked the call again), is refused.
    pub fn answer_pending(
        &self,
        pending: &PendingCall,
        allow: bool,
        note: Option<String>,
    ) -> Result<ClaimResult, SessionStoreError> {
        let (kind, fallback) = if allow {
            (OptionKind::AllowOnce, ALLOW_ONCE)
        } else {
            (OptionKind::RejectOnce, REJECT_ONCE)
        };
        // By id first: `reject-and-stop` is a `reject_once` option too, and a denial
        // from another terminal must not stop the turn. The kind is for a question whose
        // ids were others.
        let offered = &pending.call.options;
        let option = offered
            .iter()
            .find(|o| o.id == fallback)
            .or_else(|| offered.iter().find(|o| o.kind == kind))
            .map_or(fallback, |o| o.id.as_str())
            .to_owned();
        self.claim(
            &pending.session,
            &Claim {
                call: pending.call.id.clone(),
                question: pending.question,
                option,
                by: AnsweredBy::Pending,
                note: note.filter(|n| !n.trim().is_empty()),
                at_ms: now_ms(),
            },
        )
    }
}
