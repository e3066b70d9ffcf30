//! The agents whose pre-tool-use hook Warden can be.

use std::fmt;
use std::str::FromStr;

/// An agent with a pre-tool-use hook: Claude Code (`PreToolUse`), Codex CLI
/// (`PreToolUse`) or Gemini CLI (`BeforeTool`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
}

/// A `--for` value that names no agent Warden knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent `{0}`: one of claude, codex, gemini")]
pub struct UnknownAgent(pub String);

impl Agent {
    pub const ALL: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

    /// The name `--for` takes.
    pub fn id(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    /// The name the audit log records as the client.
    pub fn client(self) -> &'static str {
        match self {
            Agent::Claude => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini-cli",
        }
    }

    /// The agent's name for people.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
        }
    }
}

impl FromStr for Agent {
    type Err = UnknownAgent;

    fn from_str(s: &str) -> Result<Agent, UnknownAgent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.id() == s)
            .ok_or_else(|| UnknownAgent(s.to_owned()))
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}
