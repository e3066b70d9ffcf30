//! The ordered decision for each part of a call, and how the parts combine into the
//! call's evaluation.

use std::path::Path;
use std::time::SystemTime;

use crate::assess::{Assessment, Unit};
use crate::evaluation::{DecidedBy, Evaluation, MatchedRule, SegmentEvaluation};
use crate::grant::{
    Effect, Grant, GrantLookup, GrantProposal, GrantSet, SessionGrants, Widening, propose,
};
use crate::policy::{HintPolicy, PolicyError};
use crate::rule::Rule;
use crate::sandbox::SandboxNeeds;
use crate::{Clause, Context, Decision, Mode, Risk, Sentence, ToolCall};

use super::explain::{critical, grant_decider, rule_decider, rule_sentence, word};
use super::grants::Stored;
use super::outcome::UnitOutcome;
use super::{Engine, read};

impl Engine {
    /// Decides a call that is already assessed (see [`crate::assess()`]): the rules,
    /// grants and mode, without the path resolution and shell parsing.
    pub fn decide(
        &self,
        call: &ToolCall,
        assessment: &Assessment,
        ctx: &Context,
        mode: Mode,
        session: &SessionGrants,
    ) -> Evaluation {
        if let Some(problem) = &assessment.malformed {
            return self.malformed(call, assessment, problem, mode);
        }
        self.refresh_grants();
        let now = SystemTime::now();
        let stored = read(&self.stored);
        let session = session.read();
        let grants: Vec<&GrantSet> = vec![&*session, &stored.set];
        let policy_error = self.policy.errors.first().or(stored.error.as_ref());
        let deciding = Deciding {
            call,
            assessment,
            ctx,
            mode,
            grants: &grants,
            policy_error,
            now,
            project_root: &self.project_root,
        };
        let outcomes: Vec<UnitOutcome> = assessment
            .units
            .iter()
            .map(|unit| self.decide_unit(&deciding, unit))
            .collect();
        let errors = self.policy_errors(&stored);
        self.combine(&deciding, outcomes, errors)
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
            explanation: Sentence::new("engine-cannot-run").text("problem", problem),
            risk_reason: Clause(Sentence::new("engine-cannot-run").text("problem", problem)),
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
            sandbox: None,
            hooks: Vec::new(),
        }
    }

    /// The decision for one unit. What raised its risk (the model's hint under
    /// `escalate`; what surrounds its command, or the folder it runs in) only ever adds
    /// caution: a raised unit is also decided without the hint, and at every risk from
    /// the one its command carries on its own up to the raised one, and the strictest
    /// decision stands, so that a rule or grant for a higher risk cannot let through a
    /// part it would not allow otherwise. Every risk in between, because a part may be
    /// raised by several things at once (`PATH=… echo hi > notes.txt`), and each of them
    /// alone gives a risk in that range. The unit keeps its raised risk, which is what
    /// the user is shown.
    fn decide_unit<'u>(&self, d: &Deciding<'_>, unit: &'u Unit) -> UnitOutcome<'u> {
        let mut outcome = self.decide_at(d, unit, unit.risk, true);
        let escalated = self.policy.settings.model_risk_hints == HintPolicy::Escalate
            && d.call.model_hint.is_some_and(|hint| hint > unit.risk);
        if escalated {
            let unrated = self.decide_at(d, unit, unit.risk, false);
            outcome = stricter(outcome, unrated, "engine-as-unrated", unit.risk);
        }
        if let Some(own) = unit.own_risk {
            let below = own..unit.risk;
            for at in Risk::ALL.into_iter().filter(|r| below.contains(r)) {
                let why = if at == own {
                    "engine-as-on-its-own"
                } else {
                    "engine-as-partly-raised"
                };
                outcome = stricter(outcome, self.decide_at(d, unit, at, false), why, at);
            }
        }
        outcome
    }

    /// The ordered decision for one unit from a starting risk: deny rules and grants,
    /// ask rules, then allow rules, grants and auto-approval, then the mode; a policy
    /// error turns an allow into the question (or the refusal) the mode permits. The
    /// model's hint raises the starting risk under `escalate` when `escalate` is set,
    /// and replaces it under `trust`.
    fn decide_at<'u>(
        &self,
        d: &Deciding<'_>,
        unit: &'u Unit,
        start: Risk,
        escalate: bool,
    ) -> UnitOutcome<'u> {
        let hints = self.policy.settings.model_risk_hints;
        let mut risk = start;
        if escalate
            && hints == HintPolicy::Escalate
            && let Some(hint) = d.call.model_hint
        {
            risk = risk.max(hint);
        }
        let matched = self.matching_rules(d, unit, risk);
        let mut matched_out: Vec<MatchedRule> =
            matched.iter().map(|r| MatchedRule::of(r)).collect();
        let outcome = |risk, reached: Reached, matched| UnitOutcome {
            unit,
            risk,
            decision: reached.decision,
            decided_by: reached.decided_by,
            explanation: reached.explanation,
            matched,
            grantable: reached.grantable,
            grant_widens: None,
        };
        if let Some(reached) = d.refusal(unit, risk, &matched) {
            return outcome(risk, reached, matched_out);
        }

        // `trust` lets the hint replace the risk, but never for Critical parts and
        // never once a deny or ask rule matched (those returned above).
        if hints == HintPolicy::Trust
            && let Some(hint) = d.call.model_hint
            && risk != Risk::Critical
        {
            risk = hint;
        }

        let (reached, grant_widens) = match self.allowance(d, unit, risk, &matched) {
            Some(allowed) => allowed,
            None => (self.by_mode(d, unit, start, risk, &mut matched_out), None),
        };
        let reached = d.unless_policy_error(reached);
        let grant_widens =
            grant_widens.filter(|_| matches!(reached.decided_by, DecidedBy::Grant { .. }));
        UnitOutcome {
            grant_widens,
            ..outcome(risk, reached, matched_out)
        }
    }

    /// The rules that match the unit at this risk, in the policy's order.
    fn matching_rules(&self, d: &Deciding<'_>, unit: &Unit, risk: Risk) -> Vec<&Rule> {
        let call = d.call;
        self.policy
            .index
            .candidates(
                &call.tool,
                &call.args,
                unit,
                d.assessment.domain.as_deref(),
                d.ctx,
            )
            .iter()
            .map(|i| &self.policy.rules[i])
            .filter(|r| {
                // The index lets through rules that cover reads by any tool; for a
                // tool they do not name, only the read matters.
                if r.covers_reads && !r.tool_matches(&call.tool) {
                    r.matches_read_elsewhere(unit, risk, d.ctx)
                } else {
                    r.matches_rest(call, d.assessment, unit, risk, d.ctx)
                }
            })
            .collect()
    }

    /// What lets the unit run without asking: an allow rule, an allow grant, or the
    /// tool's auto-approval, never for a Critical part. With the grant's widening of
    /// the sandbox when a grant allowed it.
    fn allowance(
        &self,
        d: &Deciding<'_>,
        unit: &Unit,
        risk: Risk,
        matched: &[&Rule],
    ) -> Option<(Reached, Option<Widening>)> {
        let call = d.call;
        if risk == Risk::Critical {
            None
        } else if let Some(rule) = first(matched, Decision::Allow) {
            Some((
                Reached::new(
                    Decision::Allow,
                    rule_decider(rule),
                    rule_sentence(rule),
                    false,
                ),
                None,
            ))
        } else if let Some(grant) = d.grant(Effect::Allow, unit, risk) {
            let why = Sentence::new("engine-by-grant")
                .text("decision", word(Decision::Allow))
                .text("grant", grant.id.as_str())
                .text("subject", grant.subject());
            Some((
                Reached::new(Decision::Allow, grant_decider(grant), why, true),
                Some(grant.widens.clone()),
            ))
        } else if d.mode.can_ask() && self.policy.is_auto_approved(&call.tool) {
            let why = Sentence::new("engine-auto-approved").text("tool", call.tool.as_str());
            let by = DecidedBy::AutoApproved {
                tool: call.tool.clone(),
            };
            Some((Reached::new(Decision::Allow, by, why, true), None))
        } else {
            None
        }
    }

    /// What the mode decides for a unit nothing else decided at `risk`, from the
    /// `start` risk the hint saw: said as the model's hint when the hint changed it,
    /// as the built-in rule that agrees with it in `ask` mode, or as the mode's own
    /// decision.
    fn by_mode(
        &self,
        d: &Deciding<'_>,
        unit: &Unit,
        start: Risk,
        risk: Risk,
        matched_out: &mut Vec<MatchedRule>,
    ) -> Reached {
        let (call, mode) = (d.call, d.mode);
        let hints = self.policy.settings.model_risk_hints;
        let decision = mode.decide(risk, d.assessment.edit_inside_workspace);
        let unhinted = mode.decide(start, d.assessment.edit_inside_workspace);
        let builtin = (mode == Mode::Ask)
            .then(|| {
                self.policy.builtin.iter().find(|r| {
                    r.decision == decision && r.matches(call, d.assessment, unit, risk, d.ctx)
                })
            })
            .flatten();
        let critical = critical(risk);
        if decision != unhinted
            && let Some(hint) = call.model_hint
        {
            let policy = serde_json::to_value(hints)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let why = Sentence::new("engine-model-hint")
                .text("hint", hint.as_str())
                .text("policy", policy)
                .text("risk", risk.as_str())
                .text("mode", mode.id())
                .text("decision", word(decision))
                .text("critical", critical);
            let by = DecidedBy::ModelHint {
                hint,
                policy: hints,
                mode,
            };
            Reached::new(decision, by, why, true)
        } else if let Some(rule) = builtin {
            let mut m = MatchedRule::of(rule);
            m.applied = true;
            matched_out.push(m);
            let why = Sentence::new("engine-builtin-rule")
                .sentence("rule", rule_sentence(rule))
                .text("risk", risk.as_str())
                .text("critical", critical);
            Reached::new(decision, rule_decider(rule), why, true)
        } else {
            let why = Sentence::new("engine-by-mode")
                .text("mode", mode.id())
                .text("decision", word(decision))
                .text("risk", risk.as_str())
                .text("critical", critical);
            Reached::new(decision, DecidedBy::Mode { mode }, why, true)
        }
    }

    fn combine(
        &self,
        d: &Deciding<'_>,
        outcomes: Vec<UnitOutcome>,
        policy_errors: Vec<PolicyError>,
    ) -> Evaluation {
        let (call, assessment, ctx, mode) = (d.call, d.assessment, d.ctx, d.mode);
        let judged = outcomes
            .iter()
            .map(|o| o.decision)
            .max()
            .unwrap_or(Decision::Deny);
        let needs = crate::sandbox::needs(call, assessment, ctx, &self.policy.settings.sandbox);
        // What the sandbox cannot give the call is the user's to allow (section 10):
        // the mode alone never lets it run.
        let sandbox_asks = (judged == Decision::Allow)
            .then(|| {
                needs.as_ref().and_then(|n| {
                    super::sandbox::must_ask(n, &outcomes, ctx, &self.policy.settings.sandbox)
                })
            })
            .flatten();
        let decision = match &sandbox_asks {
            Some(_) if mode.can_ask() => Decision::Ask,
            Some(_) => Decision::Deny,
            None => judged,
        };
        let risk = outcomes
            .iter()
            .map(|o| o.risk)
            .max()
            .unwrap_or(assessment.risk);
        let deciding = outcomes
            .iter()
            .filter(|o| o.decision == judged)
            .reduce(|best, o| if o.risk > best.risk { o } else { best });
        let risk_reason = risk_reason(d, deciding, needs.as_ref());
        let (decided_by, mut explanation) = match deciding {
            Some(o) => (o.decided_by.clone(), o.explanation.clone()),
            None => (DecidedBy::Mode { mode }, Sentence::new("engine-no-parts")),
        };
        if assessment.is_shell
            && outcomes.len() > 1
            && let Some(o) = deciding
        {
            explanation = Sentence::new("engine-deciding-part")
                .text("part", o.unit.text.as_str())
                .sentence("explanation", explanation);
        }
        if let Some(why) = sandbox_asks.clone() {
            explanation = Sentence::new("engine-but-sandbox")
                .sentence("explanation", explanation)
                .sentence("why", why);
        }
        let explanation = Sentence::new("engine-explanation").sentence("text", explanation);
        let matched_rules = unique_matched(&outcomes);
        // A call that leaves the sandbox is asked each time: no option remembers it.
        let unconfined = needs.as_ref().is_some_and(|n| {
            matches!(
                n.unconfined,
                Some(
                    crate::sandbox::Unconfined::Requested
                        | crate::sandbox::Unconfined::Unavailable(_)
                )
            )
        });
        let once_only = risk == Risk::Critical || unconfined;
        let proposal = (decision == Decision::Ask && !once_only)
            .then(|| proposal(d, &outcomes, needs.as_ref(), sandbox_asks.is_some()))
            .flatten();
        let segments = segments(d, &outcomes);
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
            sandbox: needs,
            hooks: Vec::new(),
        }
    }
}

/// Why the call carries its risk: the deciding part's reason (the call's when no part
/// decided), followed by what the call needs of the sandbox.
fn risk_reason(
    d: &Deciding<'_>,
    deciding: Option<&UnitOutcome>,
    needs: Option<&SandboxNeeds>,
) -> Clause {
    let reason = deciding.map_or_else(|| d.assessment.reason.clone(), |o| o.unit.reason.clone());
    let words = needs
        .map(|n| n.words(d.ctx.home.as_deref()))
        .unwrap_or_default();
    Clause(words.into_iter().fold(reason, |reason, need| {
        Sentence::new("engine-risk-and-sandbox")
            .clause("reason", reason)
            .clause("need", need)
    }))
}

/// `other` in place of `outcome` when it is the stricter decision, decided at `at` risk
/// (the message `why` says which), with `outcome`'s risk, which is what the user sees,
/// and the rules both matched: those for the shown risk first.
fn stricter<'u>(
    outcome: UnitOutcome<'u>,
    other: UnitOutcome<'u>,
    why: &'static str,
    at: Risk,
) -> UnitOutcome<'u> {
    if other.decision <= outcome.decision {
        return outcome;
    }
    let explanation = Sentence::new(why)
        .text("risk", at.as_str())
        .sentence("explanation", other.explanation);
    let mut matched = outcome.matched;
    for m in other.matched {
        if !matched.iter().any(|x| x.same_rule(&m)) {
            matched.push(m);
        }
    }
    UnitOutcome {
        risk: outcome.risk,
        explanation,
        matched,
        ..other
    }
}

/// The rules matched by any part, each once, in the order the parts met them.
fn unique_matched(outcomes: &[UnitOutcome]) -> Vec<MatchedRule> {
    let mut matched_rules: Vec<MatchedRule> = Vec::new();
    for m in outcomes.iter().flat_map(|o| &o.matched) {
        if !matched_rules.iter().any(|x| x.same_rule(m)) {
            matched_rules.push(m.clone());
        }
    }
    matched_rules
}

/// The grant offered with a question, when every part asked about is one a grant may
/// cover. A call asked only for its sandbox needs: every part is what a grant covers.
fn proposal(
    d: &Deciding<'_>,
    outcomes: &[UnitOutcome],
    needs: Option<&SandboxNeeds>,
    sandbox_asks: bool,
) -> Option<GrantProposal> {
    let asking: Vec<&UnitOutcome> = outcomes
        .iter()
        .filter(|o| o.decision == Decision::Ask || sandbox_asks)
        .collect();
    if !asking.iter().all(|o| o.grantable) {
        return None;
    }
    let parts: Vec<(&Unit, Risk)> = asking.iter().map(|o| (o.unit, o.risk)).collect();
    // The grant widens the sandbox by what this call needs, as the request says it,
    // and by nothing more.
    propose(d.call, d.assessment, &parts, d.ctx.home.as_deref()).map(|mut p| {
        p.widens = needs.map(Widening::of).unwrap_or_default();
        p
    })
}

/// Each part's own evaluation, for a shell command (other calls have one part).
fn segments(d: &Deciding<'_>, outcomes: &[UnitOutcome]) -> Vec<SegmentEvaluation> {
    if !d.assessment.is_shell {
        return Vec::new();
    }
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
}

/// What a decision is about: one assessed call, in its context and mode, against the
/// grants, the policy error and the moment of that call. `decide` builds it once per
/// call; it only borrows, so the hot path allocates nothing more for it.
struct Deciding<'a> {
    call: &'a ToolCall,
    assessment: &'a Assessment,
    ctx: &'a Context,
    mode: Mode,
    /// The session's grants, then the stored ones.
    grants: &'a [&'a GrantSet],
    /// The first error of the policy or of the stored grants, which forbids allowing.
    policy_error: Option<&'a PolicyError>,
    now: SystemTime,
    project_root: &'a Path,
}

impl<'a> Deciding<'a> {
    /// The question when the mode can ask, the refusal otherwise.
    fn ask_or_deny(&self) -> Decision {
        if self.mode.can_ask() {
            Decision::Ask
        } else {
            Decision::Deny
        }
    }

    /// The first grant with this effect that covers the unit at this risk.
    fn grant(&self, effect: Effect, unit: &Unit, risk: Risk) -> Option<&'a Grant> {
        let lookup = GrantLookup {
            call: self.call,
            assessment: self.assessment,
            unit,
            risk,
            now: self.now,
            project_root: self.project_root,
        };
        self.grants
            .iter()
            .copied()
            .find_map(|set| set.find(effect, &lookup))
    }

    /// What stops the unit before anything may allow it: a deny rule, a deny grant,
    /// then an ask rule (a refusal when the mode cannot ask).
    fn refusal(&self, unit: &Unit, risk: Risk, matched: &[&Rule]) -> Option<Reached> {
        if let Some(rule) = first(matched, Decision::Deny) {
            return Some(Reached::new(
                Decision::Deny,
                rule_decider(rule),
                rule_sentence(rule),
                false,
            ));
        }
        if let Some(grant) = self.grant(Effect::Deny, unit, risk) {
            let why = Sentence::new("engine-by-grant")
                .text("decision", word(Decision::Deny))
                .text("grant", grant.id.as_str())
                .text("subject", grant.subject());
            return Some(Reached::new(
                Decision::Deny,
                grant_decider(grant),
                why,
                false,
            ));
        }
        let rule = first(matched, Decision::Ask)?;
        let ask_or_deny = self.ask_or_deny();
        let mut why = rule_sentence(rule);
        if ask_or_deny == Decision::Deny {
            why = Sentence::new("engine-mode-cannot-ask")
                .sentence("why", why)
                .text("mode", self.mode.id());
        }
        Some(Reached::new(ask_or_deny, rule_decider(rule), why, false))
    }

    /// A policy file that cannot be used must not let anything through quietly: an
    /// allow becomes the question, or the refusal when the mode cannot ask.
    fn unless_policy_error(&self, reached: Reached) -> Reached {
        match self.policy_error {
            Some(err) if reached.decision == Decision::Allow => {
                let ask_or_deny = self.ask_or_deny();
                let why = Sentence::new("engine-policy-error")
                    .text("file", err.file.as_str())
                    .text("error", err.error.as_str())
                    .text("decision", word(ask_or_deny));
                let by = DecidedBy::PolicyError {
                    file: err.file.clone(),
                    error: err.error.clone(),
                };
                Reached::new(ask_or_deny, by, why, false)
            }
            _ => reached,
        }
    }
}

/// A decision reached for a unit, before it becomes the unit's outcome.
struct Reached {
    decision: Decision,
    decided_by: DecidedBy,
    explanation: Sentence,
    /// Whether a grant could change it (it was not decided by a rule or a policy
    /// error).
    grantable: bool,
}

impl Reached {
    fn new(
        decision: Decision,
        decided_by: DecidedBy,
        explanation: Sentence,
        grantable: bool,
    ) -> Reached {
        Reached {
            decision,
            decided_by,
            explanation,
            grantable,
        }
    }
}

/// The first matched rule that applies with this decision.
fn first<'r>(matched: &[&'r Rule], decision: Decision) -> Option<&'r Rule> {
    matched
        .iter()
        .find(|r| r.applies && r.decision == decision)
        .copied()
}
