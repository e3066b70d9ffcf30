//! Terminal output as plain text: what a command printed for a terminal (colours,
//! cursor movement, `\r\n` line ends from a PTY) is not what the model should read.
//!
//! One small pass, applied where a command's output becomes the tool's result, so that
//! other filters over the same text (such as removing secrets) compose with it.

/// `text` without ANSI escape sequences and other control characters, with `\r\n` and
/// lone `\r` turned into `\n`. Tabs and newlines stay.
pub(crate) fn plain_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            // The 8-bit CSI.
            '\u{9b}' => skip_csi(&mut chars),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// Skips what follows an ESC: a CSI (`ESC [`), a string (`ESC ]` OSC, `ESC P` DCS, …)
/// up to its terminator, or a short sequence (`ESC ( B`, `ESC =`).
fn skip_escape(chars: &mut Chars<'_>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        Some(']' | 'P' | 'X' | '^' | '_') => {
            // Ends at BEL or ST (`ESC \`).
            while let Some(c) = chars.next() {
                if c == '\u{7}' || c == '\u{9c}' {
                    break;
                }
                if c == '\u{1b}' {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        // Intermediate bytes, then one final byte.
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            while let Some(&c) = chars.peek() {
                chars.next();
                if !('\u{20}'..='\u{2f}').contains(&c) {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// Skips a CSI's parameter and intermediate bytes and its final byte.
fn skip_csi(chars: &mut Chars<'_>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_go_and_line_ends_are_normalised() {
        let check = |input: &str, expect: &str| assert_eq!(plain_text(input), expect, "{input:?}");
        check("plain\ttext\n", "plain\ttext\n");
        check("\u{1b}[1;31merror\u{1b}[0m: x\r\n", "error: x\n");
        check("a\r\nb\r\n", "a\nb\n");
        check("10%\r50%\r100%\n", "10%\n50%\n100%\n");
        check("\u{1b}]0;title\u{7}after", "after");
        check("\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\", "link");
        check("\u{1b}(Bx\u{1b}=y", "xy");
        check("\u{1b}[?25l\u{1b}[2K\u{1b}[1Gdone", "done");
        check("bell\u{7}\u{8}", "bell");
        check("\u{9b}31mred", "red");
        check("ünïcode ✓", "ünïcode ✓");
        check("trailing escape \u{1b}", "trailing escape ");
    }
}
