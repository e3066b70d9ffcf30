//! Long texts on the screen: a diff as a coloured unified diff, and a tool call's output,
//! each folded after a number of lines into a count the person can unfold.

use agent_client_protocol::v1::schema::Diff;
use similar::{ChangeTag, TextDiff};
use warden_i18n::{Args, Catalog};

use crate::clean::clean;
use crate::style::Style;

/// The most lines of one diff shown; the rest is folded into a count.
pub const DIFF_LINES: usize = 24;

/// `text` indented, at most `max` lines, the rest counted. The fences of code blocks
/// (Warden puts a command's output in one) are not shown: the block is indented already.
pub fn folded(style: Style, words: &Catalog, text: &str, max: usize, lines: &mut Vec<String>) {
    let all: Vec<&str> = text
        .lines()
        .filter(|line| {
            let line = line.trim_start();
            !(line.starts_with("```") || line.starts_with("~~~"))
        })
        .collect();
    for line in all.iter().take(max) {
        lines.push(format!("  {} {}", style.dim("│"), clean(line)));
    }
    if all.len() > max {
        lines.push(style.dim(&format!("  {}", more_lines(words, all.len() - max))));
    }
}

/// `… 3 more lines (folded)`.
fn more_lines(words: &Catalog, count: usize) -> String {
    words.text("chat-more-lines-folded", &Args::new().with("count", count))
}

/// One diff as a coloured unified diff, folded after [`DIFF_LINES`] lines.
pub fn diff_lines(style: Style, words: &Catalog, diff: &Diff, lines: &mut Vec<String>) {
    diff_lines_max(style, words, diff, DIFF_LINES, lines);
}

/// A diff whole, never folded (`warden pending show`).
pub fn whole_diff(style: Style, words: &Catalog, diff: &Diff) -> Vec<String> {
    let mut lines = Vec::new();
    diff_lines_max(style, words, diff, usize::MAX, &mut lines);
    lines
}

/// A diff folded after `max` lines; returns whether some were folded.
pub fn diff_lines_max(
    style: Style,
    words: &Catalog,
    diff: &Diff,
    max: usize,
    lines: &mut Vec<String>,
) -> bool {
    let path = clean(&diff.path.display().to_string());
    let old = diff.old_text.as_deref();
    let header = match old {
        None => words.text("chat-diff-new-file", &Args::new().with("path", path)),
        Some(_) => path,
    };
    lines.push(format!("  {}", style.bold(&header)));
    let mut body: Vec<String> = Vec::new();
    let text_diff = TextDiff::from_lines(old.unwrap_or(""), &diff.new_text);
    for (i, group) in text_diff.grouped_ops(3).iter().enumerate() {
        if (i > 0 || old.is_some())
            && let (Some(first), Some(last)) = (group.first(), group.last())
        {
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            body.push(style.cyan(&format!(
                "@@ -{},{} +{},{} @@",
                old_range.start + 1,
                old_range.len(),
                new_range.start + 1,
                new_range.len()
            )));
        }
        for op in group {
            for change in text_diff.iter_changes(op) {
                let text = clean(change.value().trim_end_matches(['\n', '\r']));
                body.push(match change.tag() {
                    ChangeTag::Delete => style.red(&format!("-{text}")),
                    ChangeTag::Insert => style.green(&format!("+{text}")),
                    ChangeTag::Equal => format!(" {text}"),
                });
            }
        }
    }
    if body.is_empty() {
        body.push(style.dim(&words.plain("chat-diff-no-change")));
    }
    let total = body.len();
    for line in body.into_iter().take(max) {
        lines.push(format!("  {line}"));
    }
    if total > max {
        lines.push(style.dim(&format!("  {}", more_lines(words, total - max))));
        return true;
    }
    false
}
