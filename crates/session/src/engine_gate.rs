//! The [`Gate`] of a real session: the session's tools (its [`Toolbox`]) and the
//! permission engine.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use warden_permissions::{
    Context, DecidedBy, Decision, Effect, Engine, Evaluation, HookEntry, HookSaid, Language,
    McpOrigin, Mode, Risk, SandboxNeeds, Scope, Sentence, SessionGrants, ToolAnnotations, ToolCall,
};
use warden_tools::{Place, Toolbox, ValidationError};

use warden_turn::{
    Gate, GrantEffect, GrantScope, PrepareError, Prepared, Proposal, RememberError, Verdict, Why,
};

/// A session's mode, shared between the session (which changes it) and its gate
/// (which reads it at every evaluation, so a change applies from the next one).
#[derive(Debug)]
pub struct ModeCell(AtomicU8);

impl ModeCell {
    pub fn new(mode: Mode) -> ModeCell {
        ModeCell(AtomicU8::new(Self::index(mode)))
    }

    fn index(mode: Mode) -> u8 {
        Mode::ALL.iter().position(|m| *m == mode).unwrap_or(0) as u8
    }

    pub fn get(&self) -> Mode {
        Mode::ALL
            .get(self.0.load(Ordering::Acquire) as usize)
            .copied()
            .unwrap_or_default()
    }

    pub fn set(&self, mode: Mode) {
        self.0.store(Self::index(mode), Ordering::Release);
    }
}

/// The gate of one session.
#[derive(Debug)]
pub struct EngineGate {
    engine: Arc<Engine>,
    /// Where the session's tools come from: every call is prepared by its source.
    toolbox: Toolbox,
    context: Context,
    /// The session's own grants ("for this session").
    grants: Arc<SessionGrants>,
    mode: Arc<ModeCell>,
    client: String,
    /// Calls the user allowed for the session when no narrow grant could be proposed:
    /// exactly these arguments, in memory only.
    exact: Mutex<HashSet<String>>,
    /// The last call evaluated, for `/why`.
    last: Mutex<Option<Prepared>>,
    /// The identities of the MCP servers whose annotations the user's policy trusts.
    trusted_servers: HashSet<String>,
    /// How the session's commands are confined; without one, no command runs.
    sandbox: Option<crate::sandbox::SessionSandbox>,
    /// The user's hooks (`[[hook]]` of the user's and the managed policy).
    hooks: Vec<HookEntry>,
    /// What the hooks said about the calls of the model's last reply, by exact call
    /// ([`Gate::consult_hooks`]).
    consulted: Mutex<HashMap<String, Vec<(String, HookSaid)>>>,
    /// The language the engine's sentences are shown in (the audit log keeps English).
    language: Language,
}

impl EngineGate {
    pub fn new(
        engine: Arc<Engine>,
        context: Context,
        grants: Arc<SessionGrants>,
        mode: Arc<ModeCell>,
        client: String,
        toolbox: Toolbox,
    ) -> EngineGate {
        EngineGate {
            hooks: engine.policy().hooks.clone(),
            engine,
            toolbox,
            context,
            grants,
            mode,
            client,
            exact: Mutex::new(HashSet::new()),
            last: Mutex::new(None),
            trusted_servers: HashSet::new(),
            sandbox: None,
            consulted: Mutex::new(HashMap::new()),
            language: Language::English,
        }
    }

    /// The language the engine's sentences are shown in.
    pub fn with_language(mut self, language: Language) -> EngineGate {
        self.language = language;
        self
    }

    /// The session's sandbox: how its commands start.
    pub fn with_sandbox(mut self, sandbox: crate::sandbox::SessionSandbox) -> EngineGate {
        self.sandbox = Some(sandbox);
        self
    }

    /// How a prepared `terminal` call starts, from what it needs beyond its default
    /// confinement (`None`: not a command, or a malformed one): confined with those
    /// needs (which its evaluation asks the user about, unless a grant or the user's own
    /// rule allows them), or unconfined where that was asked about.
    fn launch(&self, needs: Option<&SandboxNeeds>) -> Option<warden_tools::Launch> {
        self.sandbox.as_ref()?.launch(needs?, &self.context)
    }

    /// A call its source accepted, without its launch: the arguments checked against
    /// the tool's schema, the model's risk estimate taken out of them.
    fn prepare_call(&self, tool: &str, args: &serde_json::Value) -> Result<Prepared, PrepareError> {
        let mut args = args.clone();
        if !args.is_object() {
            return Err(PrepareError::NotAnObject {
                tool: tool.to_owned(),
                found: args.to_string(),
            });
        }
        let hint = warden_permissions::take_risk_level(&mut args)?;
        let place = Place {
            cwd: &self.context.cwd,
            home: self.context.home.as_deref(),
            language: self.language,
        };
        let call = self
            .toolbox
            .prepare(tool, args, place)
            .map_err(|err| match err {
                ValidationError::UnknownTool(tool) => PrepareError::UnknownTool {
                    tool,
                    known: self.toolbox.names().join(", "),
                },
                err => PrepareError::Arguments(err),
            })?;
        Ok(Prepared { call, hint })
    }

    fn is_command(prepared: &Prepared) -> bool {
        matches!(
            prepared.parsed(),
            Some(warden_tools::ParsedCall::Terminal(_))
        )
    }

    /// The session's own grants.
    pub fn grants(&self) -> &Arc<SessionGrants> {
        &self.grants
    }

    /// The session's tools.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// The MCP servers (by identity) whose annotations the user's policy trusts.
    pub fn with_trusted_servers(mut self, identities: HashSet<String>) -> EngineGate {
        self.trusted_servers = identities;
        self
    }

    fn call(&self, prepared: &Prepared) -> ToolCall {
        let trusted = prepared
            .origin
            .as_ref()
            .is_some_and(|origin| self.trusted_servers.contains(&origin.identity));
        ToolCall {
            tool: prepared.tool.clone(),
            args: prepared.args.clone(),
            model_hint: prepared.hint,
            annotations: prepared.annotations.map(|a| ToolAnnotations {
                read_only: a.read_only,
                destructive: a.destructive,
                trusted,
            }),
            origin: prepared.origin.as_ref().map(|o| McpOrigin {
                server: o.server.clone(),
                identity: o.identity.clone(),
                tool: o.tool.clone(),
            }),
        }
    }

    fn evaluation(&self, prepared: &Prepared) -> Evaluation {
        self.engine.evaluate(
            &self.call(prepared),
            &self.context,
            self.mode.get(),
            &self.grants,
        )
    }

    /// The names of the session's tools, as the model sees them (`/tools`).
    pub fn tool_names(&self) -> Vec<String> {
        self.toolbox.names()
    }

    /// The last call this session evaluated, evaluated again now exactly as `warden
    /// policy check` would (grants stored since then count).
    pub fn explain_last(&self) -> Option<(Prepared, Evaluation)> {
        let prepared = self.last.lock().ok()?.clone()?;
        let evaluation = self.evaluation(&prepared);
        Some((prepared, evaluation))
    }

    fn exact_key(prepared: &Prepared) -> String {
        format!("{}\u{0}{}", prepared.tool, prepared.args)
    }

    /// The evaluation with what the user's hooks said about this exact call. A call
    /// they were not consulted on (one the user edited, say) counts as a failed
    /// answer from each: it is asked, never allowed by default.
    fn with_hooks(&self, prepared: &Prepared, evaluation: Evaluation) -> Evaluation {
        if self.hooks.is_empty() {
            return evaluation;
        }
        let said = self
            .consulted
            .lock()
            .ok()
            .and_then(|consulted| consulted.get(&Self::exact_key(prepared)).cloned())
            .unwrap_or_else(|| {
                self.hooks
                    .iter()
                    .map(|h| {
                        let problem = "it was not consulted on this exact call".to_owned();
                        (h.command.clone(), HookSaid::Failed { problem })
                    })
                    .collect()
            });
        warden_permissions::combine(evaluation, said)
    }

    /// The verdict on a call from its evaluation, with what the user's hooks said.
    fn verdict(&self, prepared: &Prepared, evaluation: Evaluation) -> Verdict {
        let mut evaluation = self.with_hooks(prepared, evaluation);
        if let Ok(mut last) = self.last.lock() {
            *last = Some(prepared.clone());
        }
        // An exact session approval stands in for a grant: it settles what the mode
        // would have asked, never a rule, and never a Critical call.
        let by_mode = matches!(
            evaluation.decided_by,
            DecidedBy::Mode { .. } | DecidedBy::ModelHint { .. }
        );
        if evaluation.decision == Decision::Ask
            && by_mode
            && !evaluation.once_only
            && evaluation.risk != Risk::Critical
            && self
                .exact
                .lock()
                // The key is the call's JSON; most sessions have no exact approvals,
                // and then it is not built at all.
                .is_ok_and(|set| !set.is_empty() && set.contains(&Self::exact_key(prepared)))
        {
            evaluation.decision = Decision::Allow;
            evaluation.reason =
                Sentence::new("engine-exact-call").sentence("reason", evaluation.reason);
        }
        let timeout = self.engine.settings().approval_timeout(evaluation.risk);
        let deciding_part = deciding_part(&evaluation);
        let proposal = evaluation.proposal.take().map(|grant| {
            // The "always" options say what they widen the sandbox by.
            let widening = evaluation
                .sandbox
                .as_ref()
                .and_then(|n| n.widening_words(self.context.home.as_deref()))
                .map(|widening| widening.render(self.language));
            let words = grant.subject_plain(&self.context.cwd);
            Proposal {
                words: match widening {
                    Some(widening) => format!("{words}, {widening}"),
                    None => words,
                },
                grant: Arc::new(grant),
            }
        });
        // Only what says why: the rest is in the request already (risk, reason, grant).
        // What the call needs beyond its sandbox is part of why it was asked, and the
        // audit log records it (a call that runs WITHOUT the sandbox above all).
        let sandbox = evaluation
            .sandbox
            .take()
            .filter(|needs| needs.widens() || needs.unconfined.is_some());
        let why = Arc::new(Why {
            once_only: sandbox.is_some() && evaluation.once_only,
            sandbox,
            explanation: Some(evaluation.explanation),
            decided_by: Some(evaluation.decided_by),
            matched_rules: evaluation.matched_rules,
        });
        Verdict {
            decision: evaluation.decision,
            risk: evaluation.risk,
            reason: evaluation.reason.render(self.language),
            risk_reason: evaluation.risk_reason.render(self.language),
            deciding_part,
            proposal,
            timeout,
            why,
        }
    }
}

/// The segment of a compound command that decided, found as the engine finds it: the
/// riskiest of those with the call's decision.
fn deciding_part(evaluation: &Evaluation) -> Option<String> {
    if evaluation.segments.len() < 2 {
        return None;
    }
    evaluation
        .segments
        .iter()
        .filter(|s| s.decision == evaluation.decision)
        .reduce(|best, s| if s.risk > best.risk { s } else { best })
        .map(|s| s.text.clone())
}

impl Gate for EngineGate {
    fn prepare(&self, tool: &str, args: &serde_json::Value) -> Result<Prepared, PrepareError> {
        let mut prepared = self.prepare_call(tool, args)?;
        if Self::is_command(&prepared) {
            let call = self.call(&prepared);
            let assessment = warden_permissions::assess(&call, &self.context);
            let needs = warden_permissions::sandbox::needs(
                &call,
                &assessment,
                &self.context,
                &self.engine.settings().sandbox,
            );
            prepared.call.launch = self.launch(needs.as_ref());
        }
        Ok(prepared)
    }

    /// One reading of the call for both: the launch comes from what its evaluation
    /// found it needs of the sandbox, which is what the question shows.
    fn prepare_and_evaluate(
        &self,
        tool: &str,
        args: &serde_json::Value,
    ) -> Result<(Prepared, Verdict), PrepareError> {
        let mut prepared = self.prepare_call(tool, args)?;
        let call = self.call(&prepared);
        let assessment = warden_permissions::assess(&call, &self.context);
        let evaluation = self.engine.decide(
            &call,
            &assessment,
            &self.context,
            self.mode.get(),
            &self.grants,
        );
        if Self::is_command(&prepared) {
            prepared.call.launch = self.launch(evaluation.sandbox.as_ref());
        }
        let verdict = self.verdict(&prepared, evaluation);
        Ok((prepared, verdict))
    }

    fn consult_hooks(
        self: Arc<Self>,
        calls: Vec<(String, serde_json::Value)>,
    ) -> futures::future::BoxFuture<'static, ()> {
        if self.hooks.is_empty() {
            return Box::pin(async {});
        }
        Box::pin(async move {
            let mut said = HashMap::new();
            for (tool, args) in calls {
                // A call that cannot be prepared is refused before any policy. The hooks
                // are shown the call and its evaluation, never its launch: the call is
                // read once, by the evaluation.
                let Ok(prepared) = self.prepare_call(&tool, &args) else {
                    continue;
                };
                let evaluation = self.evaluation(&prepared);
                let call = self.call(&prepared);
                let cwd = &self.context.cwd;
                let answers = warden_hook::user_hooks::run(&self.hooks, cwd, &call, &evaluation);
                said.insert(Self::exact_key(&prepared), answers.await);
            }
            if let Ok(mut consulted) = self.consulted.lock() {
                *consulted = said;
            }
        })
    }

    fn evaluate(&self, prepared: &Prepared) -> Verdict {
        self.verdict(prepared, self.evaluation(prepared))
    }

    fn remember(
        &self,
        prepared: &Prepared,
        verdict: &Verdict,
        scope: GrantScope,
        effect: GrantEffect,
    ) -> Result<Option<warden_permissions::Grant>, RememberError> {
        if verdict.risk == Risk::Critical && effect == GrantEffect::Allow {
            return Err(RememberError::Critical);
        }
        // Exactly what the request proposed: the user agreed to what they were shown.
        let Some(proposal) = &verdict.proposal else {
            if scope == GrantScope::Session && effect == GrantEffect::Allow {
                if let Ok(mut set) = self.exact.lock() {
                    set.insert(Self::exact_key(prepared));
                }
                return Ok(None);
            }
            return Err(RememberError::NoProposal);
        };
        let scope = match scope {
            GrantScope::Session => Scope::Session,
            GrantScope::Project => Scope::Project,
        };
        let effect = match effect {
            GrantEffect::Allow => Effect::Allow,
            GrantEffect::Deny => Effect::Deny,
        };
        self.engine
            .grant(&self.grants, &proposal.grant, scope, effect, &self.client)
            .map(Some)
            .map_err(RememberError::from)
    }
}

#[cfg(test)]
mod tests;
