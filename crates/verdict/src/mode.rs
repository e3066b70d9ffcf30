//! Session modes and the mode × risk table of docs/contract.md (section 4).

use serde::{Deserialize, Serialize};

use crate::{Decision, Risk};

/// A session's permission mode. The ids are part of the contract (docs/contract.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    #[default]
    Ask,
    AcceptEdits,
    ReadOnly,
    AutoApprove,
    AutoDeny,
}

impl Mode {
    pub const ALL: [Mode; 5] = [
        Mode::Ask,
        Mode::AcceptEdits,
        Mode::ReadOnly,
        Mode::AutoApprove,
        Mode::AutoDeny,
    ];

    /// The contract's id of the mode, as sent in `session/new` and `session/set_mode`.
    pub fn id(self) -> &'static str {
        match self {
            Mode::Ask => "ask",
            Mode::AcceptEdits => "accept-edits",
            Mode::ReadOnly => "read-only",
            Mode::AutoApprove => "auto-approve",
            Mode::AutoDeny => "auto-deny",
        }
    }

    pub fn parse(id: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.id() == id)
    }

    /// A short human name, for editors' mode pickers.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Ask => "Ask",
            Mode::AcceptEdits => "Accept edits",
            Mode::ReadOnly => "Read only",
            Mode::AutoApprove => "Auto-approve",
            Mode::AutoDeny => "Auto-deny",
        }
    }

    /// A sentence for editors' mode pickers.
    pub fn description(self) -> &'static str {
        match self {
            Mode::Ask => "Allow low-risk calls; ask for everything else.",
            Mode::AcceptEdits => {
                "Also allow medium-risk file edits inside the workspace without asking."
            }
            Mode::ReadOnly => "Allow low-risk calls only; deny everything else.",
            Mode::AutoApprove => "Allow everything but critical calls, which still ask.",
            Mode::AutoDeny => "Allow low-risk calls; deny everything else without asking.",
        }
    }

    /// Whether a mode can put a question to the user at all.
    pub fn can_ask(self) -> bool {
        !matches!(self, Mode::ReadOnly | Mode::AutoDeny)
    }

    /// The contract's table: what the mode does with a call of this risk when no rule
    /// or grant decided. `edit_inside_workspace` is true for a file edit whose every
    /// target lies inside the workspace (only `accept-edits` looks at it).
    pub fn decide(self, risk: Risk, edit_inside_workspace: bool) -> Decision {
        match (self, risk) {
            (_, Risk::Low) => Decision::Allow,
            (Mode::ReadOnly | Mode::AutoDeny, _) => Decision::Deny,
            (_, Risk::Critical) => Decision::Ask,
            (Mode::AutoApprove, _) => Decision::Allow,
            (Mode::AcceptEdits, Risk::Medium) if edit_inside_workspace => Decision::Allow,
            (Mode::Ask | Mode::AcceptEdits, _) => Decision::Ask,
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}
