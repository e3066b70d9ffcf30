//! The names the model sees: `mcp__<server>__<tool>`.
//!
//! OpenAI-compatible APIs accept function names of 1 to 64 characters out of ASCII
//! letters, digits, `_` and `-`. A name is shown to the model only when it can be shown
//! faithfully, so that rules, grants, the audit log and the prompt name the server and
//! the tool exactly as the model called them: a server name or tool name outside that
//! alphabet, a server name with `__` (which would make `mcp__a__b__c` ambiguous), or a
//! combined name over 64 characters is refused, never rewritten.

/// The prefix of every MCP tool name.
pub const PREFIX: &str = "mcp__";
/// The longest function name the model APIs accept.
pub const MAX_NAME: usize = 64;

/// Why a name cannot be shown to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("the name is empty")]
    Empty,
    #[error("`{0}` has characters other than ASCII letters, digits, `_` and `-`")]
    Characters(String),
    #[error("`{0}` contains `__`, which separates a server's name from its tools'")]
    Separator(String),
    #[error("`{0}` is longer than the {MAX_NAME} characters a model's tool name may have")]
    TooLong(String),
}

fn valid_chars(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Checks a server's name as the editor gave it.
pub fn check_server(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if !valid_chars(name) {
        return Err(NameError::Characters(name.to_owned()));
    }
    if name.contains("__") || name.starts_with('_') || name.ends_with('_') {
        return Err(NameError::Separator(name.to_owned()));
    }
    // The shortest tool name is one character.
    if PREFIX.len() + name.len() + 3 > MAX_NAME {
        return Err(NameError::TooLong(name.to_owned()));
    }
    Ok(())
}

/// The name the model calls a server's tool by.
pub fn model_name(server: &str, tool: &str) -> Result<String, NameError> {
    if tool.is_empty() {
        return Err(NameError::Empty);
    }
    if !valid_chars(tool) {
        return Err(NameError::Characters(tool.to_owned()));
    }
    let name = format!("{PREFIX}{server}__{tool}");
    if name.len() > MAX_NAME {
        return Err(NameError::TooLong(name));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::{check_server, model_name};

    fn check(server: &str, tool: &str, expect: Expect) {
        let shown = match check_server(server).and_then(|()| model_name(server, tool)) {
            Ok(name) => name,
            Err(err) => format!("refused: {err}"),
        };
        expect.assert_eq(&shown);
    }

    #[test]
    fn names_are_shown_faithfully_or_refused() {
        check("files", "read_file", expect!["mcp__files__read_file"]);
        check("my-server", "get-time", expect!["mcp__my-server__get-time"]);
        // A tool's own `__` is kept: the server's name ends at the first separator.
        check("db", "a__b", expect!["mcp__db__a__b"]);
        check("", "t", expect!["refused: the name is empty"]);
        check("db", "", expect!["refused: the name is empty"]);
        check(
            "my server",
            "t",
            expect![
                "refused: `my server` has characters other than ASCII letters, digits, `_` and `-`"
            ],
        );
        check(
            "db",
            "read.file",
            expect![
                "refused: `read.file` has characters other than ASCII letters, digits, `_` and `-`"
            ],
        );
        check(
            "db",
            "lire_fiché",
            expect![
                "refused: `lire_fiché` has characters other than ASCII letters, digits, `_` and `-`"
            ],
        );
        check(
            "a__b",
            "t",
            expect![
                "refused: `a__b` contains `__`, which separates a server's name from its tools'"
            ],
        );
        check(
            "_a",
            "t",
            expect!["refused: `_a` contains `__`, which separates a server's name from its tools'"],
        );
        check(
            "a_",
            "t",
            expect!["refused: `a_` contains `__`, which separates a server's name from its tools'"],
        );
        check(
            &"s".repeat(57),
            "t",
            expect![
                "refused: `sssssssssssssssssssssssssssssssssssssssssssssssssssssssss` is longer than the 64 characters a model's tool name may have"
            ],
        );
        check(
            &"s".repeat(56),
            "t",
            expect!["mcp__ssssssssssssssssssssssssssssssssssssssssssssssssssssssss__t"],
        );
        check(
            "db",
            &"t".repeat(56),
            expect![
                "refused: `mcp__db__tttttttttttttttttttttttttttttttttttttttttttttttttttttttt` is longer than the 64 characters a model's tool name may have"
            ],
        );
        check(
            "db",
            &"t".repeat(55),
            expect!["mcp__db__ttttttttttttttttttttttttttttttttttttttttttttttttttttttt"],
        );
    }
}
