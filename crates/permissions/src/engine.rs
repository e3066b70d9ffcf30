//! The engine: policy layers, grants and the mode table put together.
//!
//! For each part of a call (each segment of a shell command, or the call itself):
//!
//! 1. the first deny rule (managed first, then project, then user) denies;
//! 2. a deny grant denies;
//! 3. the first ask rule asks (denies, in a mode that cannot ask);
//! 4. unless the part is Critical: the first allow rule allows, then an allow grant,
//!    then `auto_approved_tools` (in modes that can ask);
//! 5. otherwise the mode table decides (the built-in rules explain it in `ask` mode).
//!
//! The strictest part decides the call. A policy file that cannot be used turns every
//! "allow" into "ask" (or "deny", in modes that cannot ask); so does a grants file that
//! cannot be read, or has lines that cannot be read. A malformed call is denied.
//!
//! The stored grants are read again before an evaluation whenever their file changed
//! (another process revoked, expired or added a grant), so such changes apply to the
//! next decision of a running agent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::SystemTime;

use crate::assess::{Assessment, Unit, assess};
use crate::evaluation::{DecidedBy, Evaluation, MatchedRule, SegmentEvaluation};
use crate::grant::{Effect, Grant, GrantProposal, GrantSet, Scope, propose};
use crate::policy::{HintPolicy, Policy, PolicyError, Settings};
use crate::rule::Rule;
use crate::store::{Fingerprint, GrantStore, LoadedGrants, StoreError, TrustStore};
use crate::{Context, Decision, Layer, Locations, Mode, Risk, ToolCall};

/// The permission engine for one project. `Send + Sync`; evaluating takes read locks
/// only, except when the grants file changed since it was read (see [`Engine::decide`]).
#[derive(Debug)]
pub struct Engine {
    policy: Policy,
    project_root: PathBuf,
    store: Option<GrantStore>,
    stored: RwLock<Stored>,
    sessions: RwLock<HashMap<String, GrantSet>>,
}

/// The stored grants as the engine last read them.
#[derive(Debug, Default)]
struct Stored {
    set: GrantSet,
    /// The file's fingerprint when it was read (`Some(None)`: there was no file).
    /// `None` when it could not even be looked at: then it is looked at again before
    /// the next evaluation.
    seen: Option<Option<Fingerprint>>,
    /// Why the stored grants cannot be trusted, when they cannot: the file or some of
    /// its lines could not be read. It acts like a policy file that cannot be used.
    error: Option<PolicyError>,
}

impl Stored {
    /// The grants of a successful read. Unreadable lines make it fail closed: a lost
    /// line may have been a revocation or a "reject always", so nothing that would be
    /// allowed is allowed unasked until the file is repaired. The grants that were read
    /// are kept, so their deny grants still deny.
    fn of(store: &GrantStore, loaded: LoadedGrants) -> Stored {
        let error = (loaded.skipped > 0).then(|| {
            tracing::warn!(
                file = %store.path().display(),
                lines = loaded.skipped,
                "some stored grants cannot be read; calls that would be allowed ask instead \
                 (`warden grants expire` rewrites the file without them)"
            );
            grants_error(
                store,
                format!(
                    "{} line(s) of the stored grants cannot be read (`warden grants expire` drops them)",
                    loaded.skipped
                ),
            )
        });
        Stored {
            set: GrantSet::new(loaded.grants),
            seen: Some(loaded.fingerprint),
            error,
        }
    }

    /// After a failed read: the grants read before stay (their deny grants still
    /// deny), and everything that would be allowed asks.
    fn failed(
        store: &GrantStore,
        before: GrantSet,
        seen: Option<Option<Fingerprint>>,
        e: &StoreError,
    ) -> Stored {
        tracing::warn!(error = %e, "cannot load the stored grants; calls that would be allowed ask instead");
        Stored {
            set: before,
            seen,
            error: Some(grants_error(
                store,
                format!("the stored grants cannot be read: {e}"),
            )),
        }
    }

    fn read(store: &GrantStore, before: GrantSet) -> Stored {
        match store.load_checked() {
            Ok(loaded) => Stored::of(store, loaded),
            Err(e) => {
                // Looked at separately, so that a file that exists but cannot be read is
                // not read again before every evaluation, only once it changed.
                let seen = store.fingerprint().ok();
                Stored::failed(store, before, seen, &e)
            }
        }
    }
}

/// A grants file that cannot be read may hold "reject always" decisions or
/// revocations; without them a permissive mode would allow what the user rejected. So
/// it counts as a policy error: every call that would be allowed asks instead.
fn grants_error(store: &GrantStore, error: String) -> PolicyError {
    PolicyError {
        file: store.path().display().to_string(),
        layer: Layer::User,
        error,
    }
}

/// The outcome for one unit.
struct UnitOutcome<'a> {
    unit: &'a Unit,
    risk: Risk,
    decision: Decision,
    decided_by: DecidedBy,
    explanation: String,
    matched: Vec<MatchedRule>,
    /// Whether a grant could change this outcome (it was not decided by a rule or a
    /// policy error).
    grantable: bool,
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn verb(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allows",
        Decision::Ask => "asks",
        Decision::Deny => "denies",
    }
}

fn rule_sentence(rule: &Rule) -> String {
    let what = match rule.decision {
        Decision::Allow => "Allowed",
        Decision::Ask => "Needs approval",
        Decision::Deny => "Denied",
    };
    let mut s = format!("{what} by rule `{}` in {}", rule.label(), rule.file);
    if let Some(reason) = &rule.reason {
        s.push_str(": ");
        s.push_str(reason);
    }
    s
}

/// A unit's sentence as a clause: "Recursively deletes /root, the home folder." becomes
/// "recursively deletes /root, the home folder", so that it reads after "Critical: ".
fn plain_sentence(sentence: &str) -> String {
    let trimmed = sentence.trim().trim_end_matches('.');
    let mut chars = trimmed.chars();
    match chars.next() {
        // Only a capital followed by a lower-case letter is lowered: "Deletes" is a
        // sentence's first word, "SSH" or "/etc" are names.
        Some(first)
            if first.is_uppercase() && chars.clone().next().is_some_and(char::is_lowercase) =>
        {
            first.to_lowercase().chain(chars).collect()
        }
        _ => trimmed.to_owned(),
    }
}

fn rule_decider(rule: &Rule) -> DecidedBy {
    DecidedBy::Rule {
        id: rule.label(),
        file: rule.file.to_string(),
        layer: rule.layer,
    }
}

impl Engine {
    /// Loads the policy layers, the project's trust and the stored grants. Never
    /// fails: unusable policy files are recorded in the policy (and make calls ask),
    /// an unreadable grants file is logged and leaves no stored grants.
    pub fn load(locations: &Locations, project_root: &Path) -> Engine {
        let root = project_root
            .canonicalize()
            .unwrap_or_else(|_| project_root.to_path_buf());
        let trusted = TrustStore::new(locations.trusted_projects()).is_trusted(&root);
        let policy = Policy::load(locations, &root, trusted);
        Engine::with_policy(policy, &root, Some(GrantStore::new(locations.grants())))
    }

    /// An engine over a policy built elsewhere, with an optional grants store. A
    /// grants file that cannot be read is handled as in [`Engine::load`].
    pub fn with_policy(policy: Policy, project_root: &Path, store: Option<GrantStore>) -> Engine {
        let stored = match &store {
            Some(store) => Stored::read(store, GrantSet::default()),
            None => Stored::default(),
        };
        Engine {
            policy,
            project_root: project_root.to_path_buf(),
            store,
            stored: RwLock::new(stored),
            sessions: RwLock::new(HashMap::new()),
        }
    }

    /// Reads the stored grants again if their file changed since the last read, so that
    /// `warden grants revoke` and `warden grants expire` in another process take effect
    /// before this engine's next decision. What it costs when nothing changed is one
    /// `statx` of the file and a read lock.
    fn refresh_grants(&self) {
        let Some(store) = &self.store else {
            return;
        };
        let now = store.fingerprint();
        let unchanged = |stored: &Stored| match (&stored.seen, &now) {
            (Some(seen), Ok(now)) => seen == now,
            _ => false,
        };
        if unchanged(&read(&self.stored)) {
            return;
        }
        let mut stored = write(&self.stored);
        // Another thread may have read the file while this one waited for the lock.
        if unchanged(&stored) {
            return;
        }
        let before = std::mem::take(&mut stored.set);
        *stored = match &now {
            Ok(_) => Stored::read(store, before),
            // Warned about once, not before every evaluation while it lasts.
            Err(_) if stored.seen.is_none() && stored.error.is_some() => Stored {
                set: before,
                seen: None,
                error: stored.error.take(),
            },
            Err(e) => Stored::failed(store, before, None, e),
        };
    }

    /// The merged settings: default mode, timeouts, limits, model-hint policy.
    pub fn settings(&self) -> &Settings {
        &self.policy.settings
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The project root, canonical when it exists.
    pub fn project_root(&self) -> &Path {
        &self.project_root
    }

    /// Evaluates one call in a session.
    pub fn evaluate(
        &self,
        call: &ToolCall,
        ctx: &Context,
        mode: Mode,
        session_id: &str,
    ) -> Evaluation {
        let assessment = assess(call, ctx);
        self.decide(call, &assessment, ctx, mode, session_id)
    }

    /// Decides a call that is already assessed (see [`crate::assess()`]): the rules,
    /// grants and mode, without the path resolution and shell parsing.
    pub fn decide(
        &self,
        call: &ToolCall,
        assessment: &Assessment,
        ctx: &Context,
        mode: Mode,
        session_id: &str,
    ) -> Evaluation {
        if let Some(problem) = &assessment.malformed {
            return self.malformed(call, assessment, problem, mode);
        }
        self.refresh_grants();
        let now = SystemTime::now();
        let stored = read(&self.stored);
        let sessions = read(&self.sessions);
        let grants: Vec<&GrantSet> = sessions
            .get(session_id)
            .into_iter()
            .chain(std::iter::once(&stored.set))
            .collect();
        let policy_error = self.policy.errors.first().or(stored.error.as_ref());
        let outcomes: Vec<UnitOutcome> = assessment
            .units
            .iter()
            .map(|unit| {
                self.decide_unit(
                    call,
                    assessment,
                    unit,
                    ctx,
                    mode,
                    &grants,
                    policy_error,
                    now,
                )
            })
            .collect();
        let errors = self.policy_errors(&stored);
        self.combine(call, assessment, ctx, mode, outcomes, errors)
    }

    /// The policy's errors and the stored grants' error.
    fn policy_errors(&self, stored: &Stored) -> Vec<PolicyError> {
        self.policy
            .errors
            .iter()
            .chain(stored.error.as_ref())
            .cloned()
            .collect()
    }

    /// The evaluation of a call that cannot even be read, such as one whose arguments
    /// are not valid JSON: denied, with the problem as the explanation.
    pub fn reject_malformed(&self, tool: &str, problem: &str, mode: Mode) -> Evaluation {
        let call = ToolCall::new(tool, serde_json::Value::Null);
        let assessment = Assessment::malformed(tool, problem.to_owned());
        self.malformed(&call, &assessment, problem, mode)
    }

    fn malformed(
        &self,
        call: &ToolCall,
        assessment: &Assessment,
        problem: &str,
        mode: Mode,
    ) -> Evaluation {
        Evaluation {
            decision: Decision::Deny,
            risk: assessment.risk,
            reason: assessment.reason.clone(),
            explanation: format!("The call cannot run as given: {problem}."),
            risk_reason: format!("the call cannot run as given: {problem}"),
            decided_by: DecidedBy::Malformed {
                problem: problem.to_owned(),
            },
            matched_rules: Vec::new(),
            segments: Vec::new(),
            proposal: None,
            once_only: false,
            edit_inside_workspace: false,
            tool: call.tool.clone(),
            assessed_risk: assessment.risk,
            model_hint: call.model_hint,
            mode,
            policy_errors: self.policy_errors(&read(&self.stored)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn decide_unit<'a>(
        &self,
        call: &ToolCall,
        assessment: &Assessment,
        unit: &'a Unit,
        ctx: &Context,
        mode: Mode,
        grants: &[&GrantSet],
        policy_error: Option<&PolicyError>,
        now: SystemTime,
    ) -> UnitOutcome<'a> {
        let settings = &self.policy.settings;
        let hints = settings.model_risk_hints;
        let mut risk = unit.risk;
        if hints == HintPolicy::Escalate
            && let Some(hint) = call.model_hint
        {
            risk = risk.max(hint);
        }
        let matched: Vec<&Rule> = self
            .policy
            .index
            .candidates(
                &call.tool,
                &call.args,
                unit,
                assessment.domain.as_deref(),
                ctx,
            )
            .iter()
            .map(|i| &self.policy.rules[i])
            .filter(|r| {
                // The index lets through rules that cover reads by any tool; for a
                // tool they do not name, only the read matters.
                if r.covers_reads && !r.tool_matches(&call.tool) {
                    r.matches_read_elsewhere(unit, risk, ctx)
                } else {
                    r.matches_rest(call, assessment, unit, risk, ctx)
                }
            })
            .collect();
        let mut matched_out: Vec<MatchedRule> =
            matched.iter().map(|r| MatchedRule::of(r)).collect();
        let first = |d: Decision| {
            matched
                .iter()
                .find(|r| r.applies && r.decision == d)
                .copied()
        };
        let ask_or_deny = if mode.can_ask() {
            Decision::Ask
        } else {
            Decision::Deny
        };
        let outcome =
            |risk, decision, decided_by, explanation: String, matched, grantable| UnitOutcome {
                unit,
                risk,
                decision,
                decided_by,
                explanation,
                matched,
                grantable,
            };
        let find_grant = |effect: Effect, risk: Risk| {
            grants.iter().find_map(|set| {
                set.find(
                    effect,
                    call,
                    assessment,
                    unit,
                    risk,
                    now,
                    &self.project_root,
                )
            })
        };

        if let Some(rule) = first(Decision::Deny) {
            return outcome(
                risk,
                Decision::Deny,
                rule_decider(rule),
                rule_sentence(rule),
                matched_out,
                false,
            );
        }
        if let Some(grant) = find_grant(Effect::Deny, risk) {
            let why = format!("Denied by grant {} ({})", grant.id, grant.subject());
            return outcome(
                risk,
                Decision::Deny,
                grant_decider(grant),
                why,
                matched_out,
                false,
            );
        }
        if let Some(rule) = first(Decision::Ask) {
            let mut why = rule_sentence(rule);
            if ask_or_deny == Decision::Deny {
                why = format!("{why}; mode `{mode}` cannot ask, so it is denied");
            }
            return outcome(
                risk,
                ask_or_deny,
                rule_decider(rule),
                why,
                matched_out,
                false,
            );
        }

        // `trust` lets the hint replace the risk, but never for Critical parts and
        // never once a deny or ask rule matched (those returned above).
        if hints == HintPolicy::Trust
            && let Some(hint) = call.model_hint
            && risk != Risk::Critical
        {
            risk = hint;
        }

        let mut result = if risk == Risk::Critical {
            None
        } else if let Some(rule) = first(Decision::Allow) {
            Some((
                Decision::Allow,
                rule_decider(rule),
                rule_sentence(rule),
                false,
            ))
        } else if let Some(grant) = find_grant(Effect::Allow, risk) {
            let why = format!("Allowed by grant {} ({})", grant.id, grant.subject());
            Some((Decision::Allow, grant_decider(grant), why, true))
        } else if mode.can_ask() && self.policy.is_auto_approved(&call.tool) {
            let why = format!("`{}` is on auto_approved_tools", call.tool);
            Some((
                Decision::Allow,
                DecidedBy::AutoApproved {
                    tool: call.tool.clone(),
                },
                why,
                true,
            ))
        } else {
            None
        };

        if result.is_none() {
            let decision = mode.decide(risk, assessment.edit_inside_workspace);
            let unhinted = mode.decide(unit.risk, assessment.edit_inside_workspace);
            let builtin = (mode == Mode::Ask)
                .then(|| {
                    self.policy.builtin.iter().find(|r| {
                        r.decision == decision && r.matches(call, assessment, unit, risk, ctx)
                    })
                })
                .flatten();
            let critical = if risk == Risk::Critical {
                " (nothing allows a Critical call)"
            } else {
                ""
            };
            result = Some(if decision != unhinted && call.model_hint.is_some() {
                let hint = call.model_hint.unwrap_or(risk);
                (
                    decision,
                    DecidedBy::ModelHint {
                        hint,
                        policy: hints,
                        mode,
                    },
                    format!(
                        "The model rated the call {hint}; with model_risk_hints = {} the risk is {risk}, and mode `{mode}` {} {risk}-risk calls{critical}",
                        serde_json::to_value(hints)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_owned))
                            .unwrap_or_default(),
                        verb(decision),
                    ),
                    true,
                )
            } else if let Some(rule) = builtin {
                let mut m = MatchedRule::of(rule);
                m.applied = true;
                matched_out.push(m);
                (
                    decision,
                    rule_decider(rule),
                    format!(
                        "{}; this is what mode `ask` does with {risk}-risk calls{critical}",
                        rule_sentence(rule)
                    ),
                    true,
                )
            } else {
                (
                    decision,
                    DecidedBy::Mode { mode },
                    format!(
                        "Mode `{mode}` {} {risk}-risk calls{critical}",
                        verb(decision)
                    ),
                    true,
                )
            });
        }
        let (mut decision, mut decided_by, mut explanation, mut grantable) = result.unwrap_or((
            Decision::Deny,
            DecidedBy::Mode { mode },
            String::new(),
            false,
        ));

        // A policy file that cannot be used must not let anything through quietly.
        if decision == Decision::Allow
            && let Some(err) = policy_error
        {
            decision = ask_or_deny;
            explanation = format!(
                "The policy file {} cannot be used ({}), so calls that would be allowed {} instead",
                err.file,
                err.error,
                if ask_or_deny == Decision::Ask {
                    "ask"
                } else {
                    "are denied"
                }
            );
            decided_by = DecidedBy::PolicyError {
                file: err.file.clone(),
                error: err.error.clone(),
            };
            grantable = false;
        }
        outcome(
            risk,
            decision,
            decided_by,
            explanation,
            matched_out,
            grantable,
        )
    }

    fn combine(
        &self,
        call: &ToolCall,
        assessment: &Assessment,
        ctx: &Context,
        mode: Mode,
        outcomes: Vec<UnitOutcome>,
        policy_errors: Vec<PolicyError>,
    ) -> Evaluation {
        let decision = outcomes
            .iter()
            .map(|o| o.decision)
            .max()
            .unwrap_or(Decision::Deny);
        let risk = outcomes
            .iter()
            .map(|o| o.risk)
            .max()
            .unwrap_or(assessment.risk);
        let deciding = outcomes
            .iter()
            .filter(|o| o.decision == decision)
            .reduce(|best, o| if o.risk > best.risk { o } else { best });
        let risk_reason = deciding.map_or_else(
            || assessment.reason.clone(),
            |o| plain_sentence(&o.unit.reason),
        );
        let (decided_by, mut explanation) = match deciding {
            Some(o) => (o.decided_by.clone(), o.explanation.clone()),
            None => (
                DecidedBy::Mode { mode },
                "The call has no part that can be judged".to_owned(),
            ),
        };
        if assessment.is_shell
            && outcomes.len() > 1
            && let Some(o) = deciding
        {
            explanation = format!("Part `{}`: {explanation}", o.unit.text);
        }
        explanation.push('.');
        let mut matched_rules: Vec<MatchedRule> = Vec::new();
        for m in outcomes.iter().flat_map(|o| &o.matched) {
            if !matched_rules
                .iter()
                .any(|x| x.file == m.file && x.index == m.index && x.layer == m.layer)
            {
                matched_rules.push(m.clone());
            }
        }
        let once_only = risk == Risk::Critical;
        let proposal = if decision == Decision::Ask && !once_only {
            let asking: Vec<&UnitOutcome> = outcomes
                .iter()
                .filter(|o| o.decision == Decision::Ask)
                .collect();
            if asking.iter().all(|o| o.grantable) {
                let parts: Vec<(&Unit, Risk)> = asking.iter().map(|o| (o.unit, o.risk)).collect();
                propose(call, assessment, &parts, ctx.home.as_deref())
            } else {
                None
            }
        } else {
            None
        };
        let segments = if assessment.is_shell {
            outcomes
                .iter()
                .map(|o| SegmentEvaluation {
                    text: o.unit.text.clone(),
                    risk: o.risk,
                    decision: o.decision,
                    reason: o.unit.reason.clone(),
                    decided_by: o.decided_by.clone(),
                    matched_rules: o.matched.clone(),
                })
                .collect()
        } else {
            Vec::new()
        };
        Evaluation {
            decision,
            risk,
            reason: assessment.reason.clone(),
            explanation,
            risk_reason,
            decided_by,
            matched_rules,
            segments,
            proposal,
            once_only,
            edit_inside_workspace: assessment.edit_inside_workspace,
            tool: call.tool.clone(),
            assessed_risk: assessment.risk,
            model_hint: call.model_hint,
            mode,
            policy_errors,
        }
    }

    /// Turns a proposal into a grant: `Once` stores nothing, `Session` keeps it in
    /// memory for `session_id`, `Project` and `User` store it in `grants.jsonl`
    /// (an equal stored grant is returned instead of a duplicate).
    pub fn grant(
        &self,
        session_id: &str,
        proposal: &GrantProposal,
        scope: Scope,
        effect: Effect,
        client: &str,
    ) -> Result<Grant, StoreError> {
        self.grant_until(session_id, proposal, scope, effect, client, None)
    }

    /// Like [`Engine::grant`], with an expiry time.
    pub fn grant_until(
        &self,
        session_id: &str,
        proposal: &GrantProposal,
        scope: Scope,
        effect: Effect,
        client: &str,
        expires_at: Option<SystemTime>,
    ) -> Result<Grant, StoreError> {
        let grant = Grant {
            id: Grant::new_id(),
            created_at: SystemTime::now(),
            expires_at,
            client: client.to_owned(),
            effect,
            scope,
            project: (scope == Scope::Project).then(|| self.project_root.clone()),
            session: (scope == Scope::Session).then(|| session_id.to_owned()),
            matchers: proposal.matchers.clone(),
            max_risk: proposal.max_risk,
        };
        match scope {
            Scope::Once => Ok(grant),
            Scope::Session => {
                write(&self.sessions)
                    .entry(session_id.to_owned())
                    .or_default()
                    .insert(grant.clone());
                Ok(grant)
            }
            Scope::Project | Scope::User => {
                let stored = match &self.store {
                    Some(store) => store.add(grant)?,
                    None => grant,
                };
                let set = &mut write(&self.stored).set;
                if !set.grants().iter().any(|g| g.id == stored.id) {
                    set.insert(stored.clone());
                }
                Ok(stored)
            }
        }
    }

    /// Revokes a stored or session grant. Returns false when there is none with this id.
    pub fn revoke(&self, id: &str) -> Result<bool, StoreError> {
        let mut found = false;
        for set in write(&self.sessions).values_mut() {
            if set.grants().iter().any(|g| g.id == id) {
                *set = GrantSet::new(
                    set.grants()
                        .iter()
                        .filter(|g| g.id != id)
                        .cloned()
                        .collect(),
                );
                found = true;
            }
        }
        if let Some(store) = &self.store {
            found |= store.revoke(id)?;
        }
        let stored = &mut write(&self.stored).set;
        if stored.grants().iter().any(|g| g.id == id) {
            *stored = GrantSet::new(
                stored
                    .grants()
                    .iter()
                    .filter(|g| g.id != id)
                    .cloned()
                    .collect(),
            );
            found = true;
        }
        Ok(found)
    }

    /// Re-reads the stored grants now, whether or not the file changed. (Evaluations
    /// re-read them by themselves once the file changed.)
    pub fn reload_grants(&self) -> Result<(), StoreError> {
        if let Some(store) = &self.store {
            let loaded = store.load_checked()?;
            *write(&self.stored) = Stored::of(store, loaded);
        }
        Ok(())
    }

    /// Forgets a session's grants.
    pub fn end_session(&self, session_id: &str) {
        write(&self.sessions).remove(session_id);
    }

    /// The stored grants and the given session's.
    pub fn grants(&self, session_id: Option<&str>) -> Vec<Grant> {
        self.refresh_grants();
        let mut out: Vec<Grant> = read(&self.stored).set.grants().to_vec();
        if let Some(s) = session_id
            && let Some(set) = read(&self.sessions).get(s)
        {
            out.extend(set.grants().iter().cloned());
        }
        out
    }
}

fn grant_decider(grant: &Grant) -> DecidedBy {
    DecidedBy::Grant {
        id: grant.id.clone(),
        scope: grant.scope,
    }
}
