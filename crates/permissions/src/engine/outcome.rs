//! The outcome of the ordered decision for one unit of a call: what the engine decided
//! for it, and why. The decision makes these (`decide.rs`); the sandbox's needs read them
//! (`sandbox.rs`).

use crate::assess::Unit;
use crate::evaluation::{DecidedBy, MatchedRule};
use crate::{Decision, Risk};

/// The outcome for one unit.
pub(super) struct UnitOutcome<'a> {
    pub(super) unit: &'a Unit,
    pub(super) risk: Risk,
    pub(super) decision: Decision,
    pub(super) decided_by: DecidedBy,
    pub(super) explanation: crate::Sentence,
    pub(super) matched: Vec<MatchedRule>,
    /// Whether a grant could change this outcome (it was not decided by a rule or a
    /// policy error).
    pub(super) grantable: bool,
    /// What the allow grant that decided it widens the sandbox by.
    pub(super) grant_widens: Option<crate::grant::Widening>,
}

impl UnitOutcome<'_> {
    pub(super) fn unit(&self) -> &Unit {
        self.unit
    }
}
