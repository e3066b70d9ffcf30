//! The static value of a shell word: quotes and escapes removed, `$HOME` and `$PWD`
//! filled in from the context, anything else that is only known at run time marked
//! dynamic.

use tree_sitter::Node;

use crate::Context;

/// One word of a command, as far as it can be known before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    /// The value; for dynamic parts, their source text.
    pub text: String,
    /// Some part is only known at run time (a variable, a substitution, a brace
    /// expansion).
    pub dynamic: bool,
}

impl Word {
    pub(super) fn literal(text: impl Into<String>) -> Word {
        Word {
            text: text.into(),
            dynamic: false,
        }
    }

    pub(super) fn unknown(text: impl Into<String>) -> Word {
        Word {
            text: text.into(),
            dynamic: true,
        }
    }
}

/// What word evaluation may know: the context (for `$HOME` and `$PWD`) and the
/// variables the command line itself set earlier with a static value.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scope<'a> {
    pub ctx: &'a Context,
    /// `(name, value)`; `None` when the value cannot be known (set conditionally, set
    /// twice to different values, or from a substitution).
    pub vars: &'a [(String, Option<String>)],
}

/// The source text of a node; empty when the range is not valid UTF-8 (it always is,
/// since the source is a `&str` and tree-sitter cuts at token boundaries).
pub(super) fn text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Evaluates a word-like node.
pub(super) fn eval(node: Node<'_>, src: &str, scope: Scope<'_>) -> Word {
    match node.kind() {
        "word" | "number" => {
            let raw = text(node, src);
            let mut word = Word::literal(unescape_unquoted(raw));
            if has_brace_expansion(raw) {
                // `{rm,-rf,/}` expands into several words; we do not guess which.
                word.dynamic = true;
            }
            word
        }
        "raw_string" => {
            let raw = text(node, src);
            let inner = raw
                .strip_prefix('\'')
                .and_then(|r| r.strip_suffix('\''))
                .unwrap_or(raw);
            Word::literal(inner)
        }
        "string" | "translated_string" => eval_double_quoted(node, src, scope),
        "ansi_c_string" => match decode_ansi_c(text(node, src)) {
            Some(decoded) => Word::literal(decoded),
            None => Word::unknown(text(node, src)),
        },
        "concatenation" => {
            let mut out = Word::literal(String::new());
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                let part = eval(child, src, scope);
                out.text.push_str(&part.text);
                out.dynamic |= part.dynamic;
            }
            // Unnamed children of a concatenation (a bare `$`, say) carry text too.
            if node.named_child_count() == 0 {
                return Word::unknown(text(node, src));
            }
            out
        }
        "simple_expansion" | "expansion" => eval_expansion(node, src, scope),
        _ => Word::unknown(text(node, src)),
    }
}

/// Variables the command line set with a static value, `$HOME` and `$PWD` have
/// values we know; every other expansion is dynamic.
fn eval_expansion(node: Node<'_>, src: &str, scope: Scope<'_>) -> Word {
    let raw = text(node, src);
    let name = raw
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| raw.strip_prefix('$'))
        .unwrap_or("");
    if let Some((_, value)) = scope.vars.iter().rev().find(|(n, _)| n == name) {
        return match value {
            Some(value) => Word::literal(value.clone()),
            None => Word::unknown(raw),
        };
    }
    match name {
        "HOME" => match &scope.ctx.home {
            Some(home) => Word::literal(home.display().to_string()),
            None => Word::unknown(raw),
        },
        "PWD" => Word::literal(scope.ctx.cwd.display().to_string()),
        _ => Word::unknown(raw),
    }
}

/// A double-quoted string: literal stretches with `\$ \` \" \\` unescaped, and any
/// expansion or substitution inside evaluated.
fn eval_double_quoted(node: Node<'_>, src: &str, scope: Scope<'_>) -> Word {
    let range = node.byte_range();
    let raw = text(node, src);
    let open = if raw.starts_with("$\"") { 2 } else { 1 };
    let close = usize::from(raw.len() > open && raw.ends_with('"'));
    let start = range.start + open.min(raw.len());
    let end = range.end.saturating_sub(close).max(start);
    let mut out = Word::literal(String::new());
    let mut pos = start;
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "string_content" {
            continue;
        }
        let r = child.byte_range();
        if r.start > pos {
            out.text
                .push_str(&unescape_double_quoted(src.get(pos..r.start).unwrap_or("")));
        }
        let part = eval(child, src, scope);
        out.text.push_str(&part.text);
        out.dynamic |= part.dynamic;
        pos = r.end.max(pos);
    }
    if end > pos {
        out.text
            .push_str(&unescape_double_quoted(src.get(pos..end).unwrap_or("")));
    }
    out
}

/// Outside quotes a backslash makes the next character literal; a
/// backslash-newline disappears.
fn unescape_unquoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and newline.
fn unescape_double_quoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// True for an unquoted word with a brace expansion such as `{a,b}` or `{1..3}`.
fn has_brace_expansion(raw: &str) -> bool {
    let Some(open) = raw.find('{') else {
        return false;
    };
    let rest = &raw[open..];
    match rest.find('}') {
        Some(close) => {
            let inner = &rest[1..close];
            inner.contains(',') || inner.contains("..")
        }
        None => false,
    }
}

/// Decodes `$'...'`. Returns `None` for escapes we do not model (`\c`, `\u` beyond
/// ASCII, ...), which then count as dynamic.
fn decode_ansi_c(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix("$'")?.strip_suffix('\'')?;
    let bytes = inner.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let esc = *bytes.get(i + 1)?;
        i += 2;
        let simple = match esc {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'e' | b'E' => Some(0x1b),
            b'f' => Some(0x0c),
            b'v' => Some(0x0b),
            b'\\' => Some(b'\\'),
            b'\'' => Some(b'\''),
            b'"' => Some(b'"'),
            b'?' => Some(b'?'),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        match esc {
            b'x' => {
                let digits: Vec<u8> = bytes[i..]
                    .iter()
                    .take(2)
                    .take_while(|d| d.is_ascii_hexdigit())
                    .copied()
                    .collect();
                if digits.is_empty() {
                    return None;
                }
                i += digits.len();
                let value = u8::from_str_radix(std::str::from_utf8(&digits).ok()?, 16).ok()?;
                out.push(value);
            }
            b'0'..=b'7' => {
                let mut value: u32 = u32::from(esc - b'0');
                let mut n = 0;
                while n < 2 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push(u8::try_from(value & 0xff).ok()?);
            }
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_strings_decode_hex_and_octal() {
        assert_eq!(decode_ansi_c(r"$'\x72m'").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"$'\162m'").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"$'\cA'"), None);
    }

    #[test]
    fn brace_expansion_is_recognised() {
        assert!(has_brace_expansion("{rm,-rf,/}"));
        assert!(has_brace_expansion("a{1..3}"));
        assert!(!has_brace_expansion("{}"));
        assert!(!has_brace_expansion("plain"));
    }

    #[test]
    fn backslashes_unescape_like_bash() {
        assert_eq!(unescape_unquoted(r"\rm"), "rm");
        assert_eq!(unescape_double_quoted(r#"a\$b\n"#), r"a$b\n");
    }
}
