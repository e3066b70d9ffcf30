//! The evaluation of one call outside a session, as a new session in that folder would
//! make it: the one path that `warden policy check` and `warden hook` share. The
//! engine's evaluation, then the user's hooks (`[[hook]]`) combined with it.

use std::path::{Path, PathBuf};

use warden_permissions::{Context, Engine, Evaluation, Locations, Mode, SessionGrants, ToolCall};

/// A project's engine, context and mode, ready to evaluate calls.
pub struct Evaluator {
    engine: Engine,
    ctx: Context,
    mode: Mode,
    /// A session of its own, with no session grants: what a new session would decide.
    grants: SessionGrants,
    builtins: Vec<String>,
}

/// Whether commands are judged against a sandbox that this system may lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confinement {
    /// As the agent would run them: a system that cannot confine commands makes every
    /// one ask (`warden policy check`).
    Probe,
    /// Another agent runs the command, never Warden's sandbox: the sandbox's bounds
    /// are still what a command may do without being asked (`warden hook`), and the
    /// system is not probed for it.
    Bounds,
}

impl Evaluator {
    /// Loads the policy, grants and trust of the project in `cwd`, as `client` (its
    /// `clientInfo.name`, or the other agent's name) is treated: its `client` rules and
    /// `[[client]]` defaults.
    pub fn for_project(
        cwd: &Path,
        client: &str,
        mode: Option<Mode>,
        confinement: Confinement,
    ) -> Evaluator {
        let locations = Locations::from_env();
        let engine = Engine::load_for_client(&locations, cwd, client);
        let mode = mode.unwrap_or(engine.settings().mode);
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let ctx = Context::for_session(cwd, home.as_deref(), &[], &locations);
        let ctx = match confinement {
            Confinement::Probe => {
                ctx.with_sandbox_missing(warden_sandbox::Support::probe().missing())
            }
            Confinement::Bounds => ctx,
        };
        Evaluator {
            engine,
            ctx,
            mode,
            grants: SessionGrants::new("warden-policy-check"),
            builtins: warden_tools::Toolbox::builtins().names(),
        }
    }

    /// Evaluates a tool's call from its name and its arguments as JSON text.
    pub fn evaluate_text(&self, tool: &str, args: &str) -> Evaluation {
        match serde_json::from_str::<serde_json::Value>(args) {
            _ if !self.is_known(tool) => self.unknown(tool),
            // A malformed hint makes the call malformed, as in the agent, with the same
            // message.
            Ok(value) => match ToolCall::from_model(tool, value) {
                Ok(call) => self.evaluate(&call),
                Err(e) => self
                    .engine
                    .reject_malformed(tool, &e.to_string(), self.mode),
            },
            Err(e) => self.engine.reject_malformed(
                tool,
                &format!("the arguments are not valid JSON ({e})"),
                self.mode,
            ),
        }
    }

    /// Evaluates one call, then lets the user's hooks have their say.
    pub fn evaluate(&self, call: &ToolCall) -> Evaluation {
        if !self.is_known(&call.tool) {
            return self.unknown(&call.tool);
        }
        let evaluation = self
            .engine
            .evaluate(call, &self.ctx, self.mode, &self.grants);
        let hooks = &self.engine.policy().hooks;
        if hooks.is_empty() {
            return evaluation;
        }
        let said = warden_hook::user_hooks::run_blocking(hooks, &self.ctx.cwd, call, &evaluation);
        warden_permissions::combine(evaluation, said)
    }

    /// A tool no session has is refused there as an invalid call, before any policy:
    /// the same here. MCP tools (`mcp__server__tool`) depend on the session's servers.
    fn is_known(&self, tool: &str) -> bool {
        tool.starts_with("mcp__") || self.builtins.iter().any(|b| b == tool)
    }

    fn unknown(&self, tool: &str) -> Evaluation {
        self.engine.reject_malformed(
            tool,
            &format!(
                "there is no tool `{tool}`; the tools are: {}",
                self.builtins.join(", ")
            ),
            self.mode,
        )
    }
}
