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

/// The value of the variable `name` where the line set it, or `$HOME`/`$PWD`.
fn value_of(name: &str, scope: Scope<'_>) -> Option<String> {
    if let Some((_, value)) = scope.vars.iter().rev().find(|(n, _)| n == name) {
        return value.clone();
    }
    match name {
        "HOME" => scope.ctx.home.as_ref().map(|h| h.display().to_string()),
        "PWD" => Some(scope.ctx.cwd.display().to_string()),
        _ => None,
    }
}

/// The text of a here-document whose delimiter is unquoted, as bash expands it:
/// `\\`, `\$` and `` \` `` lose their backslash, a backslash-newline joins lines,
/// and `$NAME` and `${NAME}` take the values the line set. `None` when any other
/// expansion or substitution is in it: the text is then only known at run time.
pub(super) fn expand_heredoc(body: &str, scope: Scope<'_>) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some('$' | '`' | '\\') => out.extend(chars.next()),
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            },
            '`' => return None,
            '$' => match chars.peek().copied() {
                Some('{') => {
                    chars.next();
                    let name: String = chars.by_ref().take_while(|c| *c != '}').collect();
                    if !is_name(&name) {
                        return None;
                    }
                    out.push_str(&value_of(&name, scope)?);
                }
                Some(n) if n.is_ascii_alphabetic() || n == '_' => {
                    let mut name = String::new();
                    while let Some(n) = chars
                        .peek()
                        .copied()
                        .filter(|n| n.is_ascii_alphanumeric() || *n == '_')
                    {
                        name.push(n);
                        chars.next();
                    }
                    out.push_str(&value_of(&name, scope)?);
                }
                // `$(`, `$((`, `$[`, `$1`, `$@`, `$?`, ...
                Some(n) if n == '(' || n == '[' || n.is_ascii_digit() || "@*#?$!-".contains(n) => {
                    return None;
                }
                _ => out.push('$'),
            },
            _ => out.push(c),
        }
    }
    Some(out)
}

/// A shell variable name.
fn is_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A here-document body whose delimiter is unquoted, written as a double-quoted
/// word: the same expansions and substitutions run in both (a `"` in the body is
/// plain text, so it is escaped). The analyser judges `: "BODY"` as a script, so a
/// substitution in the body is judged wherever it hides (the grammar leaves some
/// out, backquotes among them).
pub(super) fn heredoc_as_word(body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 8);
    out.push_str(": \"");
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' if chars.peek() == Some(&'"') => out.push_str("\\\\"),
            '\\' => {
                out.push('\\');
                out.extend(chars.next());
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    out
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

/// The most words one brace expansion may produce before the word counts as
/// unknown instead (`{1..100000}` is not spelled out).
const MAX_BRACE_WORDS: usize = 256;

/// Expands the braces of a plain word (no quotes, no `$`, no backquotes) as bash
/// does: `x{,.bak}` is `x` and `x.bak`, `{a,b{c,d}}` is `a bc bd`, `{1..3}` and
/// `{a..c}` are sequences; backslash escapes are then removed. `None` when the word
/// has no brace expansion, has parts only known at run time, or expands to more than
/// [`MAX_BRACE_WORDS`] words (it then stays a dynamic word, judged as unknown).
pub(super) fn expand_braces(raw: &str) -> Option<Vec<String>> {
    if !has_brace_expansion(raw) || raw.contains(['\'', '"', '$', '`']) {
        return None;
    }
    let mut out = Vec::new();
    expand_into(raw, &mut out)?;
    (out.len() > 1 || out.first().is_some_and(|w| w != raw))
        .then(|| out.iter().map(|w| unescape_unquoted(w)).collect())
}

/// Appends the expansions of `raw` to `out`; `None` past [`MAX_BRACE_WORDS`].
fn expand_into(raw: &str, out: &mut Vec<String>) -> Option<()> {
    let bytes = raw.as_bytes();
    // Find the first `{` that opens an expansion: a matching `}` with a top-level
    // comma or a valid sequence between.
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'{' => {
                if let Some((close, alternatives)) = brace_group(raw, i) {
                    let (prefix, suffix) = (&raw[..i], &raw[close + 1..]);
                    for alt in alternatives {
                        let word = format!("{prefix}{alt}{suffix}");
                        expand_into(&word, out)?;
                        if out.len() > MAX_BRACE_WORDS {
                            return None;
                        }
                    }
                    return Some(());
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    out.push(raw.to_owned());
    (out.len() <= MAX_BRACE_WORDS).then_some(())
}

/// The group opening at `open`: the index of its `}` and its alternatives, or `None`
/// when it is not an expansion (no top-level comma and no sequence: `{}`, `{x}`).
fn brace_group(raw: &str, open: usize) -> Option<(usize, Vec<String>)> {
    let bytes = raw.as_bytes();
    let mut depth = 0usize;
    let mut commas = Vec::new();
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    let inner = &raw[open + 1..i];
                    if !commas.is_empty() {
                        let mut parts = Vec::new();
                        let mut start = open + 1;
                        for &c in &commas {
                            parts.push(raw[start..c].to_owned());
                            start = c + 1;
                        }
                        parts.push(raw[start..i].to_owned());
                        return Some((i, parts));
                    }
                    return sequence(inner).map(|s| (i, s));
                }
            }
            b',' if depth == 1 => commas.push(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// `1..5`, `10..1..3`, `a..e`: the words of a sequence expression, or `None`.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let words: Vec<String> =
        if let (Ok(a), Ok(b)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
            let count = (a.abs_diff(b) / step.unsigned_abs()).saturating_add(1);
            if count > MAX_BRACE_WORDS as u64 {
                return None;
            }
            (0..count)
                .map(|k| {
                    let k = i64::try_from(k).unwrap_or(0) * step;
                    (if a <= b { a + k } else { a - k }).to_string()
                })
                .collect()
        } else {
            let (a, b) = (single_char(parts[0])?, single_char(parts[1])?);
            let (lo, hi) = (a.min(b), a.max(b));
            let mut chars: Vec<String> = (lo..=hi)
                .step_by(usize::try_from(step).ok()?)
                .map(|c| char::from(c).to_string())
                .collect();
            if a > b {
                chars.reverse();
            }
            chars
        };
    Some(words)
}

fn single_char(s: &str) -> Option<u8> {
    match s.as_bytes() {
        [c] if c.is_ascii_alphabetic() => Some(*c),
        _ => None,
    }
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
    fn braces_expand_as_bash_expands_them() {
        let expand = |s: &str| expand_braces(s).map(|w| w.join(" "));
        assert_eq!(expand("~/{.ssh,x}").as_deref(), Some("~/.ssh ~/x"));
        assert_eq!(expand("x{,.bak}").as_deref(), Some("x x.bak"));
        assert_eq!(expand("{rm,-rf,/}").as_deref(), Some("rm -rf /"));
        assert_eq!(expand("{a,b{c,d}}e").as_deref(), Some("ae bce bde"));
        assert_eq!(expand("f{1..3}").as_deref(), Some("f1 f2 f3"));
        assert_eq!(expand("{3..1}").as_deref(), Some("3 2 1"));
        assert_eq!(expand("{1..9..4}").as_deref(), Some("1 5 9"));
        assert_eq!(expand("{a..c}").as_deref(), Some("a b c"));
        assert_eq!(expand("{a,b}{1,2}").as_deref(), Some("a1 a2 b1 b2"));
        assert_eq!(expand("\\{a,b\\}"), None);
        assert_eq!(expand("{}"), None);
        assert_eq!(expand("{x}"), None);
        assert_eq!(expand("plain"), None);
        assert_eq!(expand("{$A,b}"), None);
        assert_eq!(expand("{1..100000}"), None);
        assert_eq!(
            expand("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}"),
            None
        );
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
