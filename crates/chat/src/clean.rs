//! Text from the agent, made safe and fit to print.

/// Text from the agent, safe to print: every control character but newline and tab is
/// shown as a `\u{..}` escape, so an agent cannot move the cursor, recolour or clear a
/// terminal, or forge lines in a log with a carriage return.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` without a fenced code block whose body is exactly `command`.
pub fn without_fence_of(text: &str, command: Option<&str>) -> String {
    let Some(command) = command else {
        return text.to_owned();
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let fence: String = lines[i].chars().take_while(|c| *c == '`').collect();
        if fence.len() >= 3
            && let Some(end) = (i + 1..lines.len()).find(|&j| lines[j].trim_end() == fence)
            && lines[i + 1..end].join("\n") == command
        {
            let mut out: Vec<&str> = lines[..i].to_vec();
            out.extend_from_slice(&lines[end + 1..]);
            return out.join("\n");
        }
        i += 1;
    }
    text.to_owned()
}
