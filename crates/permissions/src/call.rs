//! A proposed tool call, as the engine sees it.

use serde::{Deserialize, Serialize};

use crate::Risk;

/// One tool call the model proposed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name: a built-in (contract section 2), `mcp__<server>__<tool>`, or
    /// anything else the model made up.
    pub tool: String,
    /// The call's arguments, without `risk_level`.
    pub args: serde_json::Value,
    /// The model's own risk estimate (`risk_level`), already taken out of `args`.
    pub model_hint: Option<Risk>,
    /// What an MCP server says about its tool. It comes from the server, so it is
    /// untrusted: it may raise the risk, and lower it only a little.
    pub annotations: Option<ToolAnnotations>,
}

/// The MCP tool annotations the engine looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolAnnotations {
    /// MCP `readOnlyHint`.
    pub read_only: Option<bool>,
    /// MCP `destructiveHint`.
    pub destructive: Option<bool>,
}

impl ToolCall {
    /// A call with no hint and no annotations.
    pub fn new(tool: impl Into<String>, args: serde_json::Value) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            args,
            model_hint: None,
            annotations: None,
        }
    }

    /// A call whose `risk_level` argument is moved out of `args` into `model_hint`,
    /// as the contract requires before a tool runs. A `risk_level` that is not one
    /// of `low`, `medium`, `high` is dropped and gives no hint: an unreadable hint
    /// must not lower anything.
    pub fn from_model(tool: impl Into<String>, mut args: serde_json::Value) -> ToolCall {
        let hint = args
            .as_object_mut()
            .and_then(|map| map.remove("risk_level"))
            .and_then(|v| v.as_str().and_then(Risk::parse))
            .filter(|r| *r != Risk::Critical);
        ToolCall {
            model_hint: hint,
            ..ToolCall::new(tool, args)
        }
    }

    /// Adds MCP annotations.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> ToolCall {
        self.annotations = Some(annotations);
        self
    }

    /// Adds a model hint.
    pub fn with_hint(mut self, hint: Risk) -> ToolCall {
        self.model_hint = Some(hint);
        self
    }

    /// `(server, tool)` for an MCP tool name `mcp__<server>__<tool>`.
    pub fn mcp_parts(&self) -> Option<(&str, &str)> {
        let rest = self.tool.strip_prefix("mcp__")?;
        let (server, tool) = rest.split_once("__")?;
        (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn risk_level_moves_out_of_args() {
        let call = ToolCall::from_model("fs_read", json!({"path": "a", "risk_level": "low"}));
        assert_eq!(call.model_hint, Some(Risk::Low));
        assert_eq!(call.args, json!({"path": "a"}));
    }

    #[test]
    fn unknown_risk_level_gives_no_hint() {
        for bad in [json!("critical"), json!("LOW"), json!(3)] {
            let call = ToolCall::from_model("t", json!({"risk_level": bad}));
            assert_eq!(call.model_hint, None);
            assert_eq!(call.args, json!({}));
        }
    }

    #[test]
    fn mcp_names_split_into_server_and_tool() {
        let call = ToolCall::new("mcp__github__create_issue", json!({}));
        assert_eq!(call.mcp_parts(), Some(("github", "create_issue")));
        assert_eq!(ToolCall::new("mcp__x", json!({})).mcp_parts(), None);
        assert_eq!(ToolCall::new("fs_read", json!({})).mcp_parts(), None);
    }
}
