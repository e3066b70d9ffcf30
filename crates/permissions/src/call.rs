//! A proposed tool call, as the engine sees it.

use serde::{Deserialize, Serialize};

use crate::Risk;

/// One tool call the model proposed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name: a built-in (docs/contract.md, section 2), `mcp__<server>__<tool>`, or
    /// anything else the model made up.
    pub tool: String,
    /// The call's arguments, without `risk_level`.
    pub args: serde_json::Value,
    /// The model's own risk estimate (`risk_level`), already taken out of `args`.
    pub model_hint: Option<Risk>,
    /// What an MCP server says about its tool. It comes from the server, so it is
    /// untrusted: it may raise the risk, and lower it only a little.
    pub annotations: Option<ToolAnnotations>,
    /// For a tool of an MCP server: which server, and the tool's own name there. A
    /// grant for an MCP tool names the server's identity, so it never covers a tool of
    /// another server that borrows the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<McpOrigin>,
}

/// The MCP server a call goes to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct McpOrigin {
    /// The server's name, as the editor gave it.
    pub server: String,
    /// Its name with its command and arguments, or its URL.
    pub identity: String,
    /// The tool's own name on that server.
    pub tool: String,
}

/// The MCP tool annotations the engine looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolAnnotations {
    /// MCP `readOnlyHint`.
    pub read_only: Option<bool>,
    /// MCP `destructiveHint`.
    pub destructive: Option<bool>,
    /// The user's own policy trusts this server's annotations (`[[mcp_server]]` with
    /// `trust_annotations = true`, pinned to its command or URL): its `readOnlyHint`
    /// may then lower a call below Medium.
    #[serde(default)]
    pub trusted: bool,
}

/// The argument in which the model gives its own risk estimate. (The model crate adds
/// it to every tool's schema under the same name.)
pub const RISK_LEVEL_ARG: &str = "risk_level";

/// A `risk_level` argument that is neither `"low"`, `"medium"`, `"high"` nor `null`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid risk_level {value}: expected \"low\", \"medium\" or \"high\"")]
pub struct InvalidRiskLevel {
    /// The value as JSON.
    pub value: String,
}

/// Removes `risk_level` from a call's arguments and returns the hint it held: the one
/// parser of the model's hint.
///
/// Call it before the tool runs and before grants are matched, so that neither the
/// tool nor a stored grant ever sees the hint. The argument is removed even when its
/// value is invalid. `"low"`, `"medium"` and `"high"` are read in any ASCII case,
/// surrounding spaces ignored; `null` is no hint. Anything else (`"critical"`, a
/// number, an empty string) is an error, never silently ignored, so that the caller
/// treats the call as malformed. Arguments that are not an object carry no hint.
pub fn take_risk_level(args: &mut serde_json::Value) -> Result<Option<Risk>, InvalidRiskLevel> {
    let Some(value) = args
        .as_object_mut()
        .and_then(|object| object.remove(RISK_LEVEL_ARG))
    else {
        return Ok(None);
    };
    let hint = match &value {
        serde_json::Value::Null => return Ok(None),
        serde_json::Value::String(text) => match text.trim().to_ascii_lowercase().as_str() {
            "low" => Some(Risk::Low),
            "medium" => Some(Risk::Medium),
            "high" => Some(Risk::High),
            _ => None,
        },
        _ => None,
    };
    hint.map(Some).ok_or_else(|| InvalidRiskLevel {
        value: value.to_string(),
    })
}

impl ToolCall {
    /// A call with no hint and no annotations.
    pub fn new(tool: impl Into<String>, args: serde_json::Value) -> ToolCall {
        ToolCall {
            tool: tool.into(),
            args,
            model_hint: None,
            annotations: None,
            origin: None,
        }
    }

    /// A call whose `risk_level` argument is moved out of `args` into `model_hint`
    /// (see [`take_risk_level`]). A malformed hint is an error, so that every caller
    /// (the agent, `warden policy check`) treats it as the same malformed call.
    pub fn from_model(
        tool: impl Into<String>,
        mut args: serde_json::Value,
    ) -> Result<ToolCall, InvalidRiskLevel> {
        let hint = take_risk_level(&mut args)?;
        Ok(ToolCall {
            model_hint: hint,
            ..ToolCall::new(tool, args)
        })
    }

    /// Adds MCP annotations.
    /// Names the MCP server the call goes to.
    pub fn with_origin(mut self, origin: McpOrigin) -> ToolCall {
        self.origin = Some(origin);
        self
    }

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

    /// Takes the hint out of `args` and shows the result and what is left.
    fn check(args: serde_json::Value, expected: expect_test::Expect) {
        let mut args = args;
        let hint = take_risk_level(&mut args).map_err(|e| e.to_string());
        expected.assert_eq(&format!("{hint:?} {args}"));
    }

    #[test]
    fn take_risk_level_boundaries() {
        use expect_test::expect;
        check(json!({"path": "a"}), expect![[r#"Ok(None) {"path":"a"}"#]]);
        check(
            json!({"path": "a", "risk_level": "low"}),
            expect![[r#"Ok(Some(Low)) {"path":"a"}"#]],
        );
        check(
            json!({"risk_level": "medium"}),
            expect!["Ok(Some(Medium)) {}"],
        );
        check(
            json!({"risk_level": " HIGH "}),
            expect!["Ok(Some(High)) {}"],
        );
        check(json!({"risk_level": null}), expect!["Ok(None) {}"]);
        // Invalid values are reported, and still removed so that the tool never sees
        // them. The model may not call its own call Critical.
        check(
            json!({"command": "ls", "risk_level": "critical"}),
            expect![[
                r#"Err("invalid risk_level \"critical\": expected \"low\", \"medium\" or \"high\"") {"command":"ls"}"#
            ]],
        );
        check(
            json!({"risk_level": 1}),
            expect![[
                r#"Err("invalid risk_level 1: expected \"low\", \"medium\" or \"high\"") {}"#
            ]],
        );
        check(
            json!({"risk_level": ""}),
            expect![[
                r#"Err("invalid risk_level \"\": expected \"low\", \"medium\" or \"high\"") {}"#
            ]],
        );
        // Arguments that are not an object (unparsable model output) carry no hint.
        check(json!("{broken"), expect![[r#"Ok(None) "{broken""#]]);
    }

    #[test]
    fn from_model_moves_the_hint_out_or_fails() {
        let call = ToolCall::from_model("fs_read", json!({"path": "a", "risk_level": "low"}))
            .expect("a valid hint");
        assert_eq!(call.model_hint, Some(Risk::Low));
        assert_eq!(call.args, json!({"path": "a"}));
        let bad = ToolCall::from_model("t", json!({"risk_level": "critical"}));
        assert_eq!(
            bad,
            Err(InvalidRiskLevel {
                value: "\"critical\"".to_owned()
            })
        );
    }

    #[test]
    fn mcp_names_split_into_server_and_tool() {
        let call = ToolCall::new("mcp__github__create_issue", json!({}));
        assert_eq!(call.mcp_parts(), Some(("github", "create_issue")));
        assert_eq!(ToolCall::new("mcp__x", json!({})).mcp_parts(), None);
        assert_eq!(ToolCall::new("fs_read", json!({})).mcp_parts(), None);
    }
}
