//! The ordered decision for each part of a call, and how the parts combine into the
//! call's evaluation.

use std::time::SystemTime;

use crate::assess::{Assessment, Unit};
use crate::evaluation::{DecidedBy, Evaluation, MatchedRule, SegmentEvaluation};
use crate::grant::{Effect, GrantSet, SessionGrants, Widening, propose};
use crate::policy::{HintPolicy, PolicyError};
use crate::rule::Rule;
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
            |risk, decision, decided_by, explanation: Sentence, matched, grantable| UnitOutcome {
                unit,
                risk,
                decision,
                decided_by,
                explanation,
                matched,
                grantable,
                grant_widens: None,
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
            let why = Sentence::new("engine-by-grant")
                .text("decision", word(Decision::Deny))
                .text("grant", grant.id.as_str())
                .text("subject", grant.subject());
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
                why = Sentence::new("engine-mode-cannot-ask")
                    .sentence("why", why)
                    .text("mode", mode.id());
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

        let mut grant_widens = None;
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
            let why = Sentence::new("engine-by-grant")
                .text("decision", word(Decision::Allow))
                .text("grant", grant.id.as_str())
                .text("subject", grant.subject());
            grant_widens = Some(grant.widens.clone());
            Some((Decision::Allow, grant_decider(grant), why, true))
        } else if mode.can_ask() && self.policy.is_auto_approved(&call.tool) {
            let why = Sentence::new("engine-auto-approved").text("tool", call.tool.as_str());
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
            let critical = critical(risk);
            result = Some(if decision != unhinted && call.model_hint.is_some() {
                let hint = call.model_hint.unwrap_or(risk);
                (
                    decision,
                    DecidedBy::ModelHint {
                        hint,
                        policy: hints,
                        mode,
                    },
                    Sentence::new("engine-model-hint")
                        .text("hint", hint.as_str())
                        .text(
                            "policy",
                            serde_json::to_value(hints)
                                .ok()
                                .and_then(|v| v.as_str().map(str::to_owned))
                                .unwrap_or_default(),
                        )
                        .text("risk", risk.as_str())
                        .text("mode", mode.id())
                        .text("decision", word(decision))
                        .text("critical", critical),
                    true,
                )
            } else if let Some(rule) = builtin {
                let mut m = MatchedRule::of(rule);
                m.applied = true;
                matched_out.push(m);
                (
                    decision,
                    rule_decider(rule),
                    Sentence::new("engine-builtin-rule")
                        .sentence("rule", rule_sentence(rule))
                        .text("risk", risk.as_str())
                        .text("critical", critical),
                    true,
                )
            } else {
                (
                    decision,
                    DecidedBy::Mode { mode },
                    Sentence::new("engine-by-mode")
                        .text("mode", mode.id())
                        .text("decision", word(decision))
                        .text("risk", risk.as_str())
                        .text("critical", critical),
                    true,
                )
            });
        }
        let (mut decision, mut decided_by, mut explanation, mut grantable) = result.unwrap_or((
            Decision::Deny,
            DecidedBy::Mode { mode },
            Sentence::verbatim(""),
            false,
        ));

        // A policy file that cannot be used must not let anything through quietly.
        if decision == Decision::Allow
            && let Some(err) = policy_error
        {
            decision = ask_or_deny;
            explanation = Sentence::new("engine-policy-error")
                .text("file", err.file.as_str())
                .text("error", err.error.as_str())
                .text("decision", word(ask_or_deny));
            decided_by = DecidedBy::PolicyError {
                file: err.file.clone(),
                error: err.error.clone(),
            };
            grantable = false;
        }
        let grant_widens = grant_widens.filter(|_| matches!(decided_by, DecidedBy::Grant { .. }));
        UnitOutcome {
            grant_widens,
            ..outcome(
                risk,
                decision,
                decided_by,
                explanation,
                matched_out,
                grantable,
            )
        }
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
        let mut risk_reason =
            deciding.map_or_else(|| assessment.reason.clone(), |o| o.unit.reason.clone());
        if let Some(words) = needs
            .as_ref()
            .map(|n| n.words(ctx.home.as_deref()))
            .filter(|w| !w.is_empty())
        {
            risk_reason = words.into_iter().fold(risk_reason, |reason, need| {
                Sentence::new("engine-risk-and-sandbox")
                    .clause("reason", reason)
                    .clause("need", need)
            });
        }
        let risk_reason = Clause(risk_reason);
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
        let mut matched_rules: Vec<MatchedRule> = Vec::new();
        for m in outcomes.iter().flat_map(|o| &o.matched) {
            if !matched_rules
                .iter()
                .any(|x| x.file == m.file && x.index == m.index && x.layer == m.layer)
            {
                matched_rules.push(m.clone());
            }
        }
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
        let proposal = if decision == Decision::Ask && !once_only {
            // A call asked only for its sandbox needs: every part is what a grant covers.
            let asking: Vec<&UnitOutcome> = outcomes
                .iter()
                .filter(|o| o.decision == Decision::Ask || sandbox_asks.is_some())
                .collect();
            if asking.iter().all(|o| o.grantable) {
                let parts: Vec<(&Unit, Risk)> = asking.iter().map(|o| (o.unit, o.risk)).collect();
                // The grant widens the sandbox by what this call needs, as the request
                // says it, and by nothing more.
                propose(call, assessment, &parts, ctx.home.as_deref()).map(|mut p| {
                    p.widens = needs.as_ref().map(Widening::of).unwrap_or_default();
                    p
                })
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
            sandbox: needs,
            hooks: Vec::new(),
        }
    }
}
