//! The built-in default rules, the weakest layer.

/// The built-in layer, in the policy file format.
///
/// These rules are the `ask` column of the mode table written out per built-in tool
/// (reads Low, writes Medium, `terminal` and `http_fetch` High). They are consulted only when no other rule, no grant and no
/// auto-approval decided, and only in `ask` mode (in every other mode the mode's own
/// column applies); so they never override a session's mode, and they explain a
/// decision in terms of the tool. Each names the risk it applies to, so that, say, a
/// High read of `~/.ssh` is not "allowed as a read".
pub const BUILTIN_POLICY: &str = r#"
[[rule]]
id = "builtin:fs_read"
tool = "fs_read*"
risk = "low"
decision = "allow"
reason = "reading files inside the workspace is safe"

[[rule]]
id = "builtin:fs_write"
tool = "fs_write*"
risk = "medium"
decision = "ask"
reason = "writing files changes the workspace"

[[rule]]
id = "builtin:terminal"
tool = "terminal*"
risk = "high"
decision = "ask"
reason = "shell commands can do anything the user can"

[[rule]]
id = "builtin:http"
tool = "http*"
risk = "high"
decision = "ask"
reason = "web requests can send data out and bring untrusted content in"
"#;
