//! What a turn needs from the policy side, behind a trait so that the turn's rules are
//! tested without an engine, files or a clock.

use std::sync::Arc;
use std::time::Duration;

use warden_permissions::{
    DecidedBy, Decision, GrantProposal, MatchedRule, Risk, SandboxNeeds, Sentence,
};
use warden_tools::PreparedCall;

/// A tool call that its source accepted: the call as its source described it, and the
/// model's own risk estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The call, its arguments without `risk_level`, and what an editor shows about it.
    pub call: PreparedCall,
    /// The model's own risk estimate, if it gave one.
    pub hint: Option<Risk>,
}

/// A prepared call reads as the call it wraps: `prepared.tool`, `prepared.args`.
impl std::ops::Deref for Prepared {
    type Target = PreparedCall;

    fn deref(&self) -> &PreparedCall {
        &self.call
    }
}

/// The engine's verdict on a prepared call, as much of it as the turn needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub decision: Decision,
    pub risk: Risk,
    /// What the call does, a sentence for people ("Execute command: npm test").
    pub reason: String,
    /// Why the call has its risk, as a clause that reads after the risk ("Critical:
    /// recursively deletes /root, the home folder"): the deciding part's sentence.
    pub risk_reason: String,
    /// For a compound command, the part that decided (`rm -rf ~` in `cd /tmp && rm
    /// -rf ~`).
    pub deciding_part: Option<String>,
    /// A grant the user could store instead of answering again, if a narrow one exists.
    pub proposal: Option<Proposal>,
    /// How long to wait for the user before the request is withdrawn (`None`: for ever).
    pub timeout: Option<Duration>,
    /// Why, for `_meta.warden.evaluation` and the audit log. Shared, because a verdict
    /// is copied into audit notes and call state on the proposal path.
    pub why: Arc<Why>,
}

/// Why the engine decided as it did, in the names of `warden policy check --json`: the
/// permission request's `_meta.warden.evaluation`. Typed, and serialised only when a
/// request is written, so that a call the engine settles never renders or copies it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Why {
    /// The evaluation's explanation (`None` only in tests' verdicts, written `null`).
    pub explanation: Option<Sentence>,
    pub decided_by: Option<DecidedBy>,
    pub matched_rules: Vec<MatchedRule>,
    /// What the call needs beyond its sandbox, when it needs anything: part of why it
    /// was asked, and the audit log records it (a call that runs WITHOUT the sandbox
    /// above all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxNeeds>,
    /// The call needs more than its sandbox gives and may be allowed only once.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub once_only: bool,
}

/// A grant the engine proposed for a call: what the options name, and exactly what is
/// stored if the user picks one of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// In plain words, for option labels ("fs_write on notes.txt").
    pub words: String,
    /// The grant stored when the user picks an "always" option: this one, never one
    /// computed again when the answer arrives (the mode or the files may have changed
    /// in between, and the user agreed to what they were shown).
    pub grant: Arc<GrantProposal>,
}

impl Proposal {
    /// A proposal that matches nothing, named `words`: for tests of what is shown.
    pub fn named(words: &str) -> Proposal {
        Proposal {
            words: words.to_owned(),
            grant: Arc::new(GrantProposal {
                matchers: Vec::new(),
                max_risk: Risk::Low,
                label: words.to_owned(),
                subject: words.to_owned(),
                widens: Default::default(),
            }),
        }
    }
}

impl Verdict {
    /// The proposal's words, for labels and the request's `_meta`.
    pub fn proposal_words(&self) -> Option<&str> {
        self.proposal.as_ref().map(|p| p.words.as_str())
    }

    /// Critical calls, and calls that run without the sandbox, are asked once only: no
    /// option may remember them.
    pub fn once_only(&self) -> bool {
        self.risk == Risk::Critical || self.why.once_only
    }
}

/// How long a stored answer lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantScope {
    Session,
    Project,
}

/// Whether a stored answer allows or denies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantEffect {
    Allow,
    Deny,
}

/// Why a proposed call cannot be prepared. Its text is what the model is told, in
/// words it can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrepareError {
    #[error("the arguments of `{tool}` must be a JSON object, not {found}")]
    NotAnObject { tool: String, found: String },
    #[error(transparent)]
    RiskLevel(#[from] warden_permissions::InvalidRiskLevel),
    #[error("there is no tool `{tool}`; the tools are: {known}")]
    UnknownTool { tool: String, known: String },
    #[error(transparent)]
    Arguments(#[from] warden_tools::ValidationError),
}

/// Why an answer could not be remembered. The answer itself still stands for the call.
#[derive(Debug, thiserror::Error)]
pub enum RememberError {
    #[error("a Critical call is never remembered as allowed")]
    Critical,
    #[error("no narrow grant can be proposed for this call")]
    NoProposal,
    #[error(transparent)]
    Store(#[from] warden_permissions::StoreError),
}

/// The policy side of a turn.
pub trait Gate {
    /// Validates a call against its tool's schema and describes it.
    fn prepare(&self, tool: &str, args: &serde_json::Value) -> Result<Prepared, PrepareError>;

    /// Runs the user's hooks (`[[hook]]`) on the calls of a model reply (each its
    /// tool's name and arguments), before the turn judges them; [`Gate::evaluate`]
    /// then combines what they said. Hooks are processes: the future awaits them and
    /// never blocks a runtime thread. Without hooks it does nothing.
    fn consult_hooks(
        self: Arc<Self>,
        _calls: Vec<(String, serde_json::Value)>,
    ) -> futures::future::BoxFuture<'static, ()> {
        Box::pin(async {})
    }

    /// Evaluates a prepared call in the session's current mode.
    fn evaluate(&self, call: &Prepared) -> Verdict;

    /// Prepares a call and evaluates it at once, as the turn does with each call it is
    /// given (the model's, or the user's edit of one). The same as [`Gate::prepare`]
    /// then [`Gate::evaluate`]; a gate may share their work (the engine reads a shell
    /// command once, not twice). A call evaluated again later, when the files or grants
    /// may have changed, goes through [`Gate::evaluate`] alone.
    fn prepare_and_evaluate(
        &self,
        tool: &str,
        args: &serde_json::Value,
    ) -> Result<(Prepared, Verdict), PrepareError> {
        let prepared = self.prepare(tool, args)?;
        let verdict = self.evaluate(&prepared);
        Ok((prepared, verdict))
    }

    /// Stores the user's answer so that later calls it covers are decided without
    /// asking: exactly the verdict's proposal (or, for the session with no narrow
    /// proposal, this exact call). Returns the grant it made, if it made one (an exact
    /// approval is not a grant). It may write a file under a lock, so the driver
    /// calls it off the protocol's thread, never the turn.
    fn remember(
        &self,
        call: &Prepared,
        verdict: &Verdict,
        scope: GrantScope,
        effect: GrantEffect,
    ) -> Result<Option<warden_permissions::Grant>, RememberError>;
}
