//! The agent's streamed text as Markdown on a terminal, line by line: a line is rendered
//! once it is complete (or when the message ends), so text streams as it arrives and a
//! code fence, a heading or a list item is known before it is drawn. Numbered lists keep
//! their numbers; a table's rows are held until the table ends, then laid out in columns
//! that fit the terminal's width. Inline Markdown (emphasis, strikethrough, code spans,
//! links) is read with `pulldown-cmark`; the agent's control characters are escaped
//! first, as everywhere on the screen.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::clean::clean;
use crate::style::Style;

/// The Markdown renderer of one stream of agent text.
#[derive(Debug)]
pub struct Markdown {
    style: Style,
    /// The incomplete last line, not drawn yet.
    pending: String,
    /// Inside a fenced code block.
    in_code: bool,
    /// The rows of a table being read, drawn when it ends.
    table: Vec<String>,
    /// The width tables are laid out to.
    width: usize,
}

impl Markdown {
    pub fn new(style: Style) -> Markdown {
        Markdown::with_width(style, 80)
    }

    /// A renderer that lays tables out to `width` columns.
    pub fn with_width(style: Style, width: usize) -> Markdown {
        Markdown {
            style,
            pending: String::new(),
            in_code: false,
            table: Vec::new(),
            width: width.max(20),
        }
    }

    /// Takes a chunk of text; returns the lines it completed, rendered, each ending in a
    /// newline.
    pub fn push(&mut self, chunk: &str) -> String {
        self.pending.push_str(chunk);
        let mut out = String::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            // A table's rows wait for its end: the columns need every row's width.
            if !self.in_code && line.trim_start().starts_with('|') {
                self.table.push(clean(line));
                continue;
            }
            out.push_str(&self.end_table());
            out.push_str(&self.line(line));
            out.push('\n');
        }
        out
    }

    /// Draws the table read so far, if any.
    fn end_table(&mut self) -> String {
        if self.table.is_empty() {
            return String::new();
        }
        let rows = std::mem::take(&mut self.table);
        table(&rows, self.width, self.style)
    }

    /// Ends the message: renders what is left and forgets the open code block.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        if !self.pending.is_empty() {
            let mut line = std::mem::take(&mut self.pending);
            line.push('\n');
            out.push_str(&self.push(&line));
        }
        out.push_str(&self.end_table());
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
        if let Some((number, rest)) = numbered(trimmed) {
            return format!("{indent}{number} {}", inline(rest, style));
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

/// `12. item` (or `12) item`) as ("12.", "item"): a numbered list keeps its numbers.
fn numbered(line: &str) -> Option<(&str, &str)> {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let rest = &line[digits..];
    let marker = rest.chars().next().filter(|c| matches!(c, '.' | ')'))?;
    let body = rest[1..].strip_prefix(' ')?;
    Some((&line[..digits + marker.len_utf8()], body))
}

/// The cells of one table row: `| a | b |` as ["a", "b"].
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    inner.split('|').map(|c| c.trim().to_owned()).collect()
}

/// Whether a row is the line under the header (`|---|:--:|`).
fn is_rule(row: &[String]) -> bool {
    !row.is_empty()
        && row
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

/// `text` cut into pieces of at most `width` characters (at least one piece).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars
        .chunks(width.max(1))
        .map(|piece| piece.iter().collect::<String>().trim().to_owned())
        .collect()
}

/// A table laid out in columns that fit `width`: the widest columns are narrowed first
/// and their cells wrapped, the header in bold, columns between `│`.
fn table(rows: &[String], width: usize, style: Style) -> String {
    let mut grid: Vec<Vec<String>> = rows.iter().map(|r| cells(r)).collect();
    let header = grid.len() > 1 && is_rule(&grid[1]);
    if header {
        grid.remove(1);
    }
    let columns = grid.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![1usize; columns];
    for row in &grid {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    // `│ ` before each column and ` │` at the end.
    let frame = 3 * columns + 1;
    while widths.iter().sum::<usize>() + frame > width {
        let Some((widest, _)) = widths.iter().enumerate().max_by_key(|(_, w)| **w) else {
            break;
        };
        if widths[widest] <= 4 {
            break;
        }
        widths[widest] -= 1;
    }
    let bar = style.dim("│");
    let mut out = String::new();
    for (r, row) in grid.iter().enumerate() {
        let wrapped: Vec<Vec<String>> = (0..columns)
            .map(|i| wrap(row.get(i).map_or("", String::as_str), widths[i]))
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        for line in 0..height {
            out.push_str(&bar);
            for (i, pieces) in wrapped.iter().enumerate() {
                let piece = pieces.get(line).map_or("", String::as_str);
                let pad = widths[i].saturating_sub(piece.chars().count());
                let text = if header && r == 0 {
                    style.bold(piece)
                } else {
                    inline(piece, style)
                };
                out.push_str(&format!(" {text}{} {bar}", " ".repeat(pad)));
            }
            out.push('\n');
        }
        if header && r == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
            out.push_str(&style.dim(&format!("├{}┤", rule.join("┼"))));
            out.push('\n');
        }
    }
    out
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
    for event in Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH) {
        if let Event::Text(t) = &event {
            run.push_str(t);
            continue;
        }
        flush(&mut run, &mut out, strong, emphasis, !links.is_empty());
        match event {
            Event::Start(Tag::Strong) => strong += 1,
            Event::End(TagEnd::Strong) => strong = strong.saturating_sub(1),
            Event::Start(Tag::Strikethrough) if style.ansi => out.push_str("\u{1b}[9m"),
            Event::End(TagEnd::Strikethrough) if style.ansi => out.push_str("\u{1b}[29m"),
            // Without escape codes the markers stay, so struck text still reads as such.
            Event::Start(Tag::Strikethrough) | Event::End(TagEnd::Strikethrough) => {
                out.push_str("~~");
            }
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
    fn numbered_lists_keep_their_numbers_and_strikethrough_shows() {
        check(
            &["1. first\n2. second\n  10) tenth\n"],
            false,
            "1. first\n2. second\n  10) tenth\n",
        );
        check(&["~~gone~~ kept\n"], false, "~~gone~~ kept\n");
        check(&["~~gone~~\n"], true, "\u{1b}[9mgone\u{1b}[29m\n");
    }

    #[test]
    fn a_table_is_laid_out_in_columns_that_fit_the_width() {
        let mut md = Markdown::with_width(Style::PLAIN, 30);
        let mut out =
            md.push("| name | what it does |\n|---|---|\n| ls | lists the files of a folder |\n");
        // Held until the table ends.
        assert_eq!(out, "");
        out.push_str(&md.push("after\n"));
        assert_eq!(
            out,
            "│ name │ what it does        │\n├──────┼─────────────────────┤\n│ ls   │ lists the files of  │\n│      │ a folder            │\nafter\n"
        );
        assert!(out.lines().all(|l| l.chars().count() <= 30), "{out}");
        // A table at the end of the message is drawn when it finishes.
        let mut md = Markdown::with_width(Style::PLAIN, 80);
        let mut out = md.push("| a | b |\n| 1 | 2 |");
        out.push_str(&md.finish());
        assert_eq!(out, "│ a │ b │\n│ 1 │ 2 │\n");
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
