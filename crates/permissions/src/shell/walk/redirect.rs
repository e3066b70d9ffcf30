//! Redirections: file writes and reads judged like the file tools, here-documents
//! and here-strings kept as a command's input.

use tree_sitter::Node;

use super::{Walker, raise_around};
use crate::Risk;
use crate::paths::{FileOp, path_risk};
use crate::shell::Segment;
use crate::shell::judge::secret_expansion;
use crate::shell::words::{self, Word};

/// What a redirection does.
pub(super) enum Effect {
    Write(Word),
    Read(Word),
    /// Here-document or here-string text; `None` when only known at run time.
    Stdin(Option<String>),
    /// Input read from a numbered file descriptor (`<&3`), which may be a socket the
    /// line opened.
    ReadFd,
    /// The body of a here-document whose delimiter is unquoted, as a script
    /// (`: "BODY"`): its substitutions run in this shell before the command reads it.
    Expands(String),
    /// A here-document or here-string that expands a variable that may hold a secret
    /// (`<<< "$GITHUB_TOKEN"`): the command is given it, and usually prints it.
    SecretExpansion(String),
}

impl Walker<'_> {
    /// Redirections of a compound command (`{ ...; } > f`): one segment for them.
    pub(super) fn redirect_only(&mut self, node: Node<'_>, redirects: &[Node<'_>], level: usize) {
        let mut effects = Vec::new();
        for r in redirects {
            self.walk(*r, level + 1);
            self.effects(*r, &mut effects);
        }
        let mut seg = self.segment(
            self.text(node).to_string(),
            Risk::Low,
            crate::Sentence::new("engine-redirects"),
        );
        let has_files = effects.iter().any(|e| {
            matches!(
                e,
                Effect::Write(_)
                    | Effect::Read(_)
                    | Effect::SecretExpansion(_)
                    | Effect::ReadFd
                    | Effect::Expands(_)
            )
        });
        if has_files {
            self.apply_effects(&effects, &mut seg);
            let index = self.segments.len();
            self.push(seg);
            for effect in &effects {
                if let Effect::Expands(script) = effect {
                    self.nested(index, script, level);
                }
            }
        }
    }

    /// Collects what a redirection node does.
    pub(super) fn effects(&self, node: Node<'_>, out: &mut Vec<Effect>) {
        match node.kind() {
            "file_redirect" => {
                let mut op = String::new();
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    if !child.is_named() {
                        op.push_str(child.kind());
                    }
                }
                let mut cursor = node.walk();
                let dests: Vec<Node<'_>> = node
                    .children_by_field_name("destination", &mut cursor)
                    .collect();
                for dest in dests {
                    let word = words::eval(dest, self.src, self.scope());
                    let dup = matches!(op.as_str(), ">&" | "<&" | ">&-" | "<&-")
                        && (word.text == "-"
                            || (!word.text.is_empty()
                                && word.text.chars().all(|c| c.is_ascii_digit() || c == '-')));
                    if dup {
                        let fd = word.text.trim_end_matches('-');
                        if op.starts_with('<') && fd.parse::<u32>().is_ok_and(|n| n > 2) {
                            out.push(Effect::ReadFd);
                        }
                        continue;
                    }
                    if op.starts_with('<') && op != "<>" {
                        out.push(Effect::Read(word));
                    } else {
                        out.push(Effect::Write(word));
                    }
                }
            }
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                let mut body_text: Option<String> = Some(String::new());
                // `<<'EOF'` and `<<"EOF"` (any quoting of the delimiter) expand nothing.
                let expands = !children.iter().any(|c| {
                    c.kind() == "heredoc_start" && self.text(*c).contains(['\'', '"', '\\'])
                });
                for child in children.iter().copied() {
                    match child.kind() {
                        "heredoc_body" => {
                            body_text = Some(self.text(child).to_string());
                            if expands && let Some(name) = secret_expansion(self.text(child)) {
                                out.push(Effect::SecretExpansion(name));
                            }
                        }
                        "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                            self.effects(child, out);
                        }
                        _ => {}
                    }
                }
                // The body as bash reads it: every line between the one that holds the
                // operator and the delimiter line. The grammar's body node leaves out
                // some lines (one starting with a backslash), which would hide them.
                let start = children
                    .iter()
                    .find(|c| c.kind() == "heredoc_start")
                    .and_then(|c| {
                        let after = c.end_byte();
                        self.src.get(after..)?.find('\n').map(|i| after + i + 1)
                    });
                let end = children
                    .iter()
                    .find(|c| c.kind() == "heredoc_end")
                    .map(|c| c.start_byte());
                if let (Some(start), Some(end)) = (start, end)
                    && let Some(full) = self.src.get(start..end)
                {
                    body_text = Some(full.to_string());
                }
                // An unquoted delimiter: bash expands the body first (the grammar
                // leaves some of it out, a backquoted command and a line that starts
                // with a backslash among them). What the command reads is the
                // expanded text, only known at run time when a substitution or an
                // unknown variable is in it; the substitutions are judged as a script.
                if expands && let Some(body) = body_text.take() {
                    if body.contains(['$', '`']) {
                        out.push(Effect::Expands(words::heredoc_as_word(&body)));
                    }
                    body_text = words::expand_heredoc(&body, self.scope());
                }
                out.push(Effect::Stdin(body_text));
            }
            "herestring_redirect" => {
                let mut cursor = node.walk();
                let value = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "file_descriptor")
                    .last();
                let word = value.map(|v| words::eval(v, self.src, self.scope()));
                if let Some(name) = word
                    .as_ref()
                    .filter(|w| w.dynamic)
                    .and_then(|w| secret_expansion(&w.text))
                {
                    out.push(Effect::SecretExpansion(name));
                }
                let text = word.and_then(|w| (!w.dynamic).then_some(w.text));
                out.push(Effect::Stdin(text));
            }
            _ => {}
        }
    }

    /// Judges redirection targets as file reads and writes. They are around the
    /// program, which keeps the risk it carries on its own (see `raise_around`).
    pub(super) fn apply_effects(&self, effects: &[Effect], seg: &mut Segment) {
        for effect in effects {
            let (op, word) = match effect {
                // A socket is judged as a connection (`walk.rs`), not as a file.
                Effect::Read(w) | Effect::Write(w)
                    if !w.dynamic && crate::shell::provenance::is_socket_path(&w.text) =>
                {
                    continue;
                }
                Effect::Write(w) => (FileOp::Write, w),
                Effect::Read(w) => (FileOp::Read, w),
                Effect::Stdin(_) | Effect::ReadFd | Effect::Expands(_) => continue,
                Effect::SecretExpansion(name) => {
                    raise_around(
                        seg,
                        Risk::Medium,
                        crate::Sentence::new("engine-prints-heredoc").text("name", name.as_str()),
                    );
                    continue;
                }
            };
            if word.dynamic {
                let risk = if op == FileOp::Write {
                    Risk::High
                } else {
                    Risk::Medium
                };
                raise_around(
                    seg,
                    risk,
                    crate::Sentence::new("engine-redirects-dynamic")
                        .text("path", word.text.as_str()),
                );
                continue;
            }
            let path = self.resolver.resolve(&word.text, &self.ctx);
            if is_harmless_device(&path.lexical) {
                continue;
            }
            let (risk, reason) = path_risk(op, &path);
            raise_around(seg, risk, reason.to_string());
            if op == FileOp::Write {
                seg.writes.push(path);
            } else {
                seg.reads.push(path);
            }
        }
    }
}

pub(super) fn is_harmless_device(path: &std::path::Path) -> bool {
    const HARMLESS: &[&str] = &[
        "/dev/null",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/stdin",
        "/dev/tty",
        "/dev/zero",
    ];
    HARMLESS.iter().any(|h| path == std::path::Path::new(h)) || path.starts_with("/dev/fd")
}
