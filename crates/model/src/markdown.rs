//! Text that clients render as Markdown (agent messages, tool call content): code spans
//! and blocks that cannot be broken by what they quote, and error messages on one line.

/// The longest quoted error, in characters; past it the text ends with an ellipsis.
/// Generous on purpose: an error is only useful whole.
pub const MAX_QUOTED_ERROR: usize = 2_000;

/// `text` as an inline code span, with a fence longer than any run of backticks in it.
pub fn code_span(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    let fence = "`".repeat(longest_run(&one_line, '`') + 1);
    // A span that starts or ends with a backtick needs a space inside the fence.
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{one_line}{pad}{fence}")
}

/// `text` as a fenced code block, with a fence longer than any run of backticks in it.
pub fn code_block(lang: &str, text: &str) -> String {
    let fence = "`".repeat((longest_run(text, '`') + 1).max(3));
    format!("{fence}{lang}\n{}\n{fence}", text.trim_end_matches('\n'))
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in text.chars() {
        if ch == c {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// An error message on one line, whole up to [`MAX_QUOTED_ERROR`] characters: every run
/// of whitespace (newlines included) becomes one space.
pub fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= MAX_QUOTED_ERROR {
        joined
    } else {
        let cut: String = joined.chars().take(MAX_QUOTED_ERROR - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_survive_backticks() {
        let check = |input: &str, expect: &str| assert_eq!(code_span(input), expect, "{input}");
        check("ls", "`ls`");
        check("echo `date`", "`` echo `date` ``");
        check("a``b", "```a``b```");
        check("two\nlines", "`two lines`");
        assert_eq!(code_block("sh", "ls\n"), "```sh\nls\n```");
        assert_eq!(code_block("", "a ```x``` b"), "````\na ```x``` b\n````");
    }

    #[test]
    fn errors_are_one_line_and_whole_up_to_the_limit() {
        assert_eq!(
            one_line("Internal error: {\n  \"code\": -32603\n}"),
            "Internal error: { \"code\": -32603 }"
        );
        let long = "x ".repeat(MAX_QUOTED_ERROR);
        let quoted = one_line(&long);
        assert_eq!(quoted.chars().count(), MAX_QUOTED_ERROR);
        assert!(quoted.ends_with('…'));
        let fits = "y".repeat(MAX_QUOTED_ERROR);
        assert_eq!(one_line(&fits), fits);
    }
}
