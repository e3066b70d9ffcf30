//! The agent's streamed text as Markdown on a terminal, line by line: a line is rendered
//! once it is complete (or when the message ends), so text streams as it arrives and a
//! code fence, a heading or a list item is known before it is drawn. Inline Markdown
//! (emphasis, code spans, links) is read with `pulldown-cmark`; the agent's control
//! characters are escaped first, as everywhere on the screen.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::render::clean;
use crate::style::Style;

/// The Markdown renderer of one stream of agent text.
#[derive(Debug)]
pub struct Markdown {
    style: Style,
    /// The incomplete last line, not drawn yet.
    pending: String,
    /// Inside a fenced code block.
    in_code: bool,
}

impl Markdown {
    pub fn new(style: Style) -> Markdown {
        Markdown {
            style,
            pending: String::new(),
            in_code: false,
        }
    }

    /// Takes a chunk of text; returns the lines it completed, rendered, each ending in a
    /// newline.
    pub fn push(&mut self, chunk: &str) -> String {
        self.pending.push_str(chunk);
        let mut out = String::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            out.push_str(&self.line(line.trim_end_matches(['\n', '\r'])));
            out.push('\n');
        }
        out
    }

    /// Ends the message: renders what is left and forgets the open code block.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            out.push_str(&self.line(&line));
            out.push('\n');
        }
        self.in_code = false;
        out
    }

    /// Whether an unfinished line is waiting.
    pub fn is_mid_line(&self) -> bool {
        !self.pending.is_empty()
    }

    fn line(&mut self, raw: &str) -> String {
        let style = self.style;
        let text = clean(raw);
        let trimmed = text.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.in_code = !self.in_code;
            return style.dim(&text);
        }
        if self.in_code {
            return style.cyan(&format!("  {text}"));
        }
        let indent = &text[..text.len() - trimmed.len()];
        if let Some((level, heading)) = heading(trimmed) {
            let body = inline(heading, style);
            return if level == 1 {
                style.underline(&style.bold(&body))
            } else {
                style.bold(&body)
            };
        }
        if matches!(trimmed, "---" | "***" | "___") {
            return style.dim(&"─".repeat(24));
        }
        if let Some(rest) = trimmed.strip_prefix("> ") {
            return format!(
                "{indent}{} {}",
                style.dim("│"),
                style.italic(&inline(rest, style))
            );
        }
        for bullet in ["- ", "* ", "+ "] {
            if let Some(rest) = trimmed.strip_prefix(bullet) {
                let (mark, rest) = match rest.strip_prefix("[ ] ") {
                    Some(rest) => ("☐", rest),
                    None => match rest
                        .strip_prefix("[x] ")
                        .or_else(|| rest.strip_prefix("[X] "))
                    {
                        Some(rest) => ("☑", rest),
                        None => ("•", rest),
                    },
                };
                return format!("{indent}{mark} {}", inline(rest, style));
            }
        }
        format!("{indent}{}", inline(trimmed, style))
    }
}

/// `## Title` as (2, "Title").
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&level) {
        line[level..].strip_prefix(' ').map(|rest| (level, rest))
    } else {
        None
    }
}

/// Inline Markdown of one line: emphasis, strong, code spans, links. Without escape codes
/// the markers are dropped and code spans keep their backticks.
fn inline(text: &str, style: Style) -> String {
    let mut out = String::new();
    let mut strong = 0usize;
    let mut emphasis = 0usize;
    let mut links: Vec<String> = Vec::new();
    // Text of one style is painted as one run (the parser splits it at brackets).
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String, strong: usize, emphasis: usize, link: bool| {
        let mut piece = std::mem::take(run);
        if strong > 0 {
            piece = style.bold(&piece);
        }
        if emphasis > 0 {
            piece = style.italic(&piece);
        }
        if link {
            piece = style.underline(&piece);
        }
        out.push_str(&piece);
    };
    for event in Parser::new(text) {
        if let Event::Text(t) = &event {
            run.push_str(t);
            continue;
        }
        flush(&mut run, &mut out, strong, emphasis, !links.is_empty());
        match event {
            Event::Start(Tag::Strong) => strong += 1,
            Event::End(TagEnd::Strong) => strong = strong.saturating_sub(1),
            Event::Start(Tag::Emphasis) => emphasis += 1,
            Event::End(TagEnd::Emphasis) => emphasis = emphasis.saturating_sub(1),
            Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.to_string()),
            Event::End(TagEnd::Link) => {
                if let Some(url) = links.pop() {
                    out.push_str(&style.dim(&format!(" ({url})")));
                }
            }
            Event::Code(code) => {
                if style.ansi {
                    out.push_str(&style.cyan(&code));
                } else {
                    out.push('`');
                    out.push_str(&code);
                    out.push('`');
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => out.push_str(&html),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            _ => {}
        }
    }
    flush(&mut run, &mut out, strong, emphasis, !links.is_empty());
    // A line that is only markers (`**`) parses to nothing; it is shown as it was.
    if out.is_empty() && !text.trim().is_empty() {
        return text.to_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(chunks: &[&str], ansi: bool, expect: &str) {
        let mut md = Markdown::new(Style { ansi });
        let mut out = String::new();
        for chunk in chunks {
            out.push_str(&md.push(chunk));
        }
        out.push_str(&md.finish());
        assert_eq!(out, expect, "{chunks:?}");
    }

    #[test]
    fn markdown_renders_line_by_line() {
        // Without colour: markers go, the structure stays readable.
        check(
            &["# Ti", "tle\nSome **bold** and `code`\n- one\n- [x] done\n"],
            false,
            "Title\nSome bold and `code`\n• one\n☑ done\n",
        );
        check(
            &["```rust\nlet x = 1;\n```\nafter [docs](https://d.rs)"],
            false,
            "```rust\n  let x = 1;\n```\nafter docs (https://d.rs)\n",
        );
        check(&["> quoted *text*"], false, "│ quoted text\n");
        check(&["no newline"], false, "no newline\n");
        // With colour: escape codes around the styled parts only.
        check(
            &["**b** `c`\n"],
            true,
            "\u{1b}[1mb\u{1b}[0m \u{1b}[36mc\u{1b}[0m\n",
        );
    }

    #[test]
    fn control_characters_in_markdown_are_escaped() {
        check(
            &["**x\u{1b}[2J**\n"],
            true,
            "\u{1b}[1mx\\u{1b}[2J\u{1b}[0m\n",
        );
    }
}
