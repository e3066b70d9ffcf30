//! Parsing with tree-sitter-bash: one parser per thread, line continuations joined
//! first, and where a parse went wrong.

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

thread_local! {
    /// One parser per thread: creating a parser and loading the grammar costs far
    /// more than parsing a typical command.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

pub(super) fn new_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    Some(parser)
}

pub(super) fn parse(src: &str) -> Option<Tree> {
    PARSER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => {
            if slot.is_none() {
                *slot = new_parser();
            }
            slot.as_mut()?.parse(src, None)
        }
        // Only reachable if a parse re-entered itself; a fresh parser is correct.
        Err(_) => new_parser()?.parse(src, None),
    })
}

/// Removes backslash-newline pairs outside single quotes, as bash does before it
/// splits words: `r\<newline>m` is `rm`. tree-sitter-bash instead ends the word
/// there, which would hide the program's name.
pub(super) fn join_continued_lines(command: &str) -> std::borrow::Cow<'_, str> {
    if !command.contains("\\\n") {
        return std::borrow::Cow::Borrowed(command);
    }
    let mut out = String::with_capacity(command.len());
    let mut chars = command.chars();
    let mut single = false;
    let mut double = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => {
                single = !single;
                out.push(c);
            }
            '"' if !single => {
                double = !double;
                out.push(c);
            }
            '\\' if !single => match chars.next() {
                Some('\n') => {}
                Some(next) => {
                    out.push(c);
                    out.push(next);
                }
                None => out.push(c),
            },
            _ => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Where the first ERROR or MISSING node is, for the message.
pub(super) fn parse_error_message(root: Node<'_>, src: &str) -> String {
    let mut stack = vec![root];
    let mut steps = 0;
    while let Some(node) = stack.pop() {
        steps += 1;
        if steps > 100_000 {
            break;
        }
        if node.is_error() || node.is_missing() {
            let at = node.start_byte();
            let snippet: String = src.get(at..).unwrap_or("").chars().take(20).collect();
            return if node.is_missing() {
                format!(
                    "the shell syntax is incomplete (missing `{}` at byte {at})",
                    node.kind()
                )
            } else {
                format!("the shell syntax is invalid near `{snippet}` (byte {at})")
            };
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    "the shell syntax is invalid".to_string()
}
