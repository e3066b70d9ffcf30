//! The two dialects a command line may run in. `terminal` runs command lines with
//! bash when it is installed, and with `sh` otherwise, which is dash on Debian and
//! Ubuntu. The analysis must not be laxer than either: a line that the dialects read
//! differently is analysed as bash reads it and as POSIX sh reads it, and the stricter
//! judgement wins. The differences followed:
//!
//! - brace expansion (`rm -rf {a,b}`, `x{,.bak}`) happens in bash only: sh passes the
//!   word as it is;
//! - `((...))` is arithmetic in bash, and two nested subshells in sh (`((rm -rf ~))`
//!   runs `rm` there);
//! - `echo` interprets backslash escapes in dash without `-e` (followed where the text
//!   matters: piped into a shell, see `provenance.rs`).
//!
//! Other bash syntax (`[[ ]]`, `<<<`, `$'...'`, `|&`) is an error in sh, which runs
//! less, not more.

/// How words are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Bash,
    PosixSh,
}

/// The line as sh reads it, when that may differ from bash's reading: `((` that does
/// not start an arithmetic expansion becomes `( (` (and its `))` becomes `) )`);
/// braces are left to the walker, which does not expand them in this dialect.
pub(super) fn sh_reading(command: &str) -> Option<String> {
    let braces = command.contains('{') && (command.contains(',') || command.contains(".."));
    let arithmetic = command.contains("((");
    if !braces && !arithmetic {
        return None;
    }
    let bytes = command.as_bytes();
    let mut out = String::with_capacity(command.len() + 8);
    // For each open `((`: whether it was a subshell pair in sh.
    let mut open: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if command[i..].starts_with("((") {
            let expansion = i > 0 && bytes[i - 1] == b'$';
            open.push(!expansion);
            out.push_str(if expansion { "((" } else { "( (" });
            i += 2;
        } else if command[i..].starts_with("))") && !open.is_empty() {
            let subshells = open.pop().unwrap_or(false);
            out.push_str(if subshells { ") )" } else { "))" });
            i += 2;
        } else {
            let c = command[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::sh_reading;

    #[test]
    fn sh_reads_double_parentheses_as_subshells_but_not_arithmetic_expansion() {
        for (line, sh) in [
            ("((rm -rf ~))", Some("( (rm -rf ~) )")),
            ("echo $((1+2))", Some("echo $((1+2))")),
            (
                "x=$(( (1+2)*3 )); ((y++))",
                Some("x=$(( (1+2)*3 )); ( (y++) )"),
            ),
            ("rm -rf {a,b}", Some("rm -rf {a,b}")),
            ("ls -la", None),
            ("f() { ls; }", None),
        ] {
            assert_eq!(sh_reading(line).as_deref(), sh, "{line}");
        }
    }
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::sh_reading;

    proptest! {
        /// The sh reading never panics and only ever adds blanks (the ones that split
        /// `((` and `))`).
        #[test]
        fn the_sh_reading_only_splits_parentheses(line in "[a-z(){},.$ ]{0,40}") {
            if let Some(sh) = sh_reading(&line) {
                prop_assert_eq!(sh.replace(' ', ""), line.replace(' ', ""));
                prop_assert!(sh.len() <= line.len() * 2);
            }
        }
    }
}
