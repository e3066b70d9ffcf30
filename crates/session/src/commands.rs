//! Slash commands: the ones the agent advertises (`available_commands_update`), and
//! Warden's own, which Warden answers itself without the model: `/grants`, `/revoke ID`,
//! `/why`, `/mode MODE` and `/tools`.
//!
//! Advertising matters because clients offer their own slash menus: a command the agent
//! does not advertise often cannot be typed at all.

use std::path::Path;

use warden_acp_transport::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, SessionId,
    SessionNotification, SessionUpdate, UnstructuredCommandInput,
};
use warden_model::{code_block, code_span};
use warden_permissions::grant::time;
use warden_permissions::{Effect, Evaluation, Grant, Mode, Scope};

use warden_i18n::Args;
use warden_turn::{Prepared, Words};

/// A command Warden answers itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Grants,
    Revoke(String),
    Why,
    /// `/mode` alone shows the mode; with an argument it changes it.
    Mode(Option<String>),
    /// The tools the session offers, built-in and MCP.
    Tools,
}

/// A command used wrongly; its text says what to type instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    #[error("{0} takes no argument.")]
    TakesNoArgument(String),
    #[error("`/revoke` needs the id of a grant, as `/grants` lists them: `/revoke ID`.")]
    RevokeNeedsAnId,
}

/// Reads a prompt as one of Warden's commands. Only a prompt of one line is a command,
/// so a script of `/call` lines that mentions one is still the model's. `Some(Err)` is a
/// command used wrongly, with what to type instead.
pub fn parse(prompt: &str) -> Option<Result<Command, UsageError>> {
    let line = prompt.trim();
    if line.contains('\n') {
        return None;
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    let command = match (word, rest) {
        ("/grants", "") => Ok(Command::Grants),
        ("/why", "") => Ok(Command::Why),
        ("/tools", "") => Ok(Command::Tools),
        ("/grants" | "/why" | "/tools", _) => Err(UsageError::TakesNoArgument(code_span(word))),
        ("/revoke", "") => Err(UsageError::RevokeNeedsAnId),
        ("/revoke", id) => Ok(Command::Revoke(id.to_owned())),
        ("/mode", "") => Ok(Command::Mode(None)),
        ("/mode", mode) => Ok(Command::Mode(Some(mode.to_owned()))),
        _ => return None,
    };
    Some(command)
}

fn input(hint: &str) -> Option<AvailableCommandInput> {
    Some(AvailableCommandInput::Unstructured(
        UnstructuredCommandInput::new(hint),
    ))
}

/// The commands of a session: the scripted model's `call` and `say` when that is the
/// session's model, and Warden's own.
pub fn available(scripted: bool) -> Vec<AvailableCommand> {
    let modes: Vec<&str> = Mode::ALL.iter().map(|m| m.id()).collect();
    let mut commands = Vec::new();
    if scripted {
        commands.push(
            AvailableCommand::new("call", "Propose a tool call (scripted model)")
                .input(input("<tool> <json-object>")),
        );
        commands.push(
            AvailableCommand::new("say", "Reply with this text (scripted model)")
                .input(input("<text>")),
        );
    }
    commands.extend([
        AvailableCommand::new("grants", "What is allowed here and why, with ids (Warden)"),
        AvailableCommand::new("revoke", "Revoke a grant by its id (Warden)").input(input("ID")),
        AvailableCommand::new("why", "Explain the last decision (Warden)"),
        AvailableCommand::new("mode", "Show or change the session mode (Warden)")
            .input(input(&modes.join(" | "))),
        AvailableCommand::new("tools", "The tools this session offers (Warden)"),
    ]);
    commands
}

/// The `available_commands_update` of a session.
pub fn update(session: &SessionId, scripted: bool) -> SessionNotification {
    SessionNotification::new(
        session.clone(),
        SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(available(scripted))),
    )
}

/// `/grants`: the grants that apply in this session and project, with their ids, and
/// where each came from.
pub fn grants_text(grants: &[Grant], mode: Mode, root: &Path, words: Words) -> String {
    let applying: Vec<&Grant> = grants
        .iter()
        .filter(|g| g.project.as_deref().is_none_or(|p| p == root))
        .collect();
    let mode = Args::new().with("mode", code_span(mode.id()));
    if applying.is_empty() {
        return words.text("agent-grants-none", &mode);
    }
    let mut s = words.text("agent-grants-heading", &mode);
    s.push_str("\n\n");
    for g in applying {
        s.push_str(&grant_line(g, root, words));
        s.push('\n');
    }
    s.push('\n');
    s.push_str(&words.plain("agent-grants-revoke"));
    s
}

fn grant_line(g: &Grant, root: &Path, words: Words) -> String {
    let effect = words.plain(match g.effect {
        Effect::Allow => "agent-grants-allow",
        Effect::Deny => "agent-grants-deny",
    });
    let scope = words.plain(match g.scope {
        Scope::Session => "agent-grants-scope-session",
        Scope::Project => "agent-grants-scope-project",
        Scope::User => "agent-grants-scope-user",
        Scope::Once => "agent-grants-scope-once",
    });
    let what: Vec<String> = g.matchers.iter().map(|m| m.describe_plain(root)).collect();
    let args = Args::new()
        .with("id", code_span(&g.id))
        .with("effect", effect)
        .with("what", what.join(", "))
        .with("scope", scope)
        .with("risk", g.max_risk.to_string())
        .with("client", g.client.clone())
        .with("at", time::format(g.created_at));
    match g.expires_at {
        Some(until) => words.text(
            "agent-grants-line-until",
            &args.with("until", time::format(until)),
        ),
        None => words.text("agent-grants-line", &args),
    }
}

/// `/tools`: the session's tools by the names the model and the policy use, built-in
/// first, then each MCP server's.
pub fn tools_text(names: &[String], words: Words) -> String {
    if names.is_empty() {
        return words.plain("agent-tools-none");
    }
    let (mcp, builtin): (Vec<&String>, Vec<&String>) =
        names.iter().partition(|n| n.starts_with("mcp__"));
    let list = |names: &[&String]| {
        names
            .iter()
            .map(|n| format!("- {}", code_span(n)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut s = format!(
        "{}\n\n{}",
        words.plain("agent-tools-builtin"),
        list(&builtin)
    );
    if mcp.is_empty() {
        s.push_str(&format!("\n\n{}", words.plain("agent-tools-no-mcp")));
    } else {
        s.push_str(&format!(
            "\n\n{}\n\n{}",
            words.plain("agent-tools-mcp"),
            list(&mcp)
        ));
    }
    s
}

/// `/why`: the last call's evaluation, in words and as `warden policy check` prints it.
pub fn why_text(last: Option<(Prepared, Evaluation)>, words: Words) -> String {
    let Some((prepared, evaluation)) = last else {
        return words.plain("agent-why-none");
    };
    let json = serde_json::to_string_pretty(&evaluation).unwrap_or_default();
    let language = words.language();
    let last = words.text(
        "agent-why-last",
        &Args::new().with("title", code_span(&prepared.title)),
    );
    let decision = words.text(
        "agent-why-decision",
        &Args::new()
            .with("decision", evaluation.decision.to_string())
            .with("risk", evaluation.risk.to_string())
            .with("reason", evaluation.risk_reason.render(language)),
    );
    let mut s = format!(
        "{last}\n\n{decision}\n\n{}",
        evaluation.explanation.render(language)
    );
    if evaluation.segments.len() > 1 {
        s.push_str(&format!("\n\n{}\n\n", words.plain("agent-why-parts")));
        for part in &evaluation.segments {
            let args = Args::new()
                .with("part", code_span(&part.text))
                .with("decision", part.decision.to_string())
                .with("risk", part.risk.to_string())
                .with("reason", part.reason.render(language));
            s.push_str(&words.text("agent-why-part", &args));
            s.push('\n');
        }
    }
    s.truncate(s.trim_end().len());
    s.push_str(&format!("\n\n{}\n\n", words.plain("agent-why-json")));
    s.push_str(&code_block("json", &json));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_one_line_prompt_is_a_command() {
        let check = |prompt: &str, expect: Option<Result<Command, String>>| {
            let parsed = parse(prompt).map(|r| r.map_err(|usage| usage.to_string()));
            assert_eq!(parsed, expect, "{prompt:?}");
        };
        check("/grants", Some(Ok(Command::Grants)));
        check("  /why \n", Some(Ok(Command::Why)));
        check("/revoke g_1", Some(Ok(Command::Revoke("g_1".to_owned()))));
        check("/mode", Some(Ok(Command::Mode(None))));
        check("/tools", Some(Ok(Command::Tools)));
        check(
            "/mode read-only",
            Some(Ok(Command::Mode(Some("read-only".to_owned())))),
        );
        check(
            "/revoke",
            Some(Err(
                "`/revoke` needs the id of a grant, as `/grants` lists them: `/revoke ID`."
                    .to_owned(),
            )),
        );
        check(
            "/why not",
            Some(Err("`/why` takes no argument.".to_owned())),
        );
        check("/call fs_read {\"path\": \"a\"}", None);
        check("/grants\n/call fs_read {}", None);
        check("grants", None);
        check("/grantsx", None);
    }

    #[test]
    fn the_scripted_model_adds_call_and_say() {
        let names = |scripted| -> Vec<String> {
            available(scripted)
                .into_iter()
                .map(|c| {
                    let hint = match c.input {
                        Some(AvailableCommandInput::Unstructured(i)) => format!(" {}", i.hint),
                        _ => String::new(),
                    };
                    format!("{}{hint}", c.name)
                })
                .collect()
        };
        assert_eq!(
            names(true),
            [
                "call <tool> <json-object>",
                "say <text>",
                "grants",
                "revoke ID",
                "why",
                "mode ask | accept-edits | read-only | auto-approve | auto-deny",
                "tools"
            ]
        );
        assert_eq!(names(false)[0], "grants");
        assert_eq!(names(false).len(), 5);
    }
}
