//! Commands that print environment variables: the whole environment, or variables whose
//! names say they hold secrets (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, cloud
//! credentials). Such output goes to the model and the client, so reading it is never
//! Low, even though the command changes nothing.

use crate::shell::words::Word;
use warden_redact::is_secret_variable;

/// Why running `program` with `args` prints environment variables that may hold
/// secrets, if it does.
/// Every reason given here ends the same way ("…, which prints environment variables
/// that may hold secrets"), so that people (and the table tests) recognise the judgement.
pub(in crate::shell) fn prints_secrets(program: &str, args: &[Word]) -> Option<crate::Sentence> {
    use crate::Sentence as S;
    let operands: Vec<&Word> = args
        .iter()
        .filter(|a| a.dynamic || !a.text.starts_with(['-', '+']))
        .collect();
    let whole = match program {
        // Reached only when `env` runs no program (see `wrappers::unwrap`).
        "env" => true,
        "printenv" => {
            if let Some(name) = operands
                .iter()
                .find(|a| a.dynamic || is_secret_variable(&a.text))
            {
                return Some(S::new("engine-prints-variable").text("name", name.text.as_str()));
            }
            operands.is_empty()
        }
        // `set` alone prints every variable; with arguments it sets options or the
        // positional parameters.
        "set" => args.is_empty(),
        "export" | "declare" | "typeset" | "readonly" | "local" => {
            let flags: String = args
                .iter()
                .filter(|a| !a.dynamic && a.text.starts_with('-'))
                .map(|a| a.text.trim_start_matches('-'))
                .collect();
            // `declare -f` and `-F` print functions, not variables.
            let functions = flags.contains(['f', 'F']);
            if !functions
                && flags.contains('p')
                && let Some(name) = operands
                    .iter()
                    .find(|a| a.dynamic || is_secret_variable(&a.text))
            {
                return Some(
                    S::new("engine-prints-declared")
                        .text("program", program)
                        .text("name", name.text.as_str()),
                );
            }
            operands.is_empty() && !functions
        }
        // BSD-style `ps e`, `ps eww`, `ps axe`: the environment of every process shown.
        "ps" => args.iter().any(|a| {
            !a.dynamic
                && !a.text.starts_with('-')
                && a.text.chars().all(|c| c.is_ascii_alphabetic())
                && a.text.contains('e')
        }),
        _ => false,
    };
    if whole {
        return Some(S::new("engine-prints-environment").text("program", program));
    }
    let expanded = args
        .iter()
        .filter(|a| a.dynamic)
        .find_map(|a| secret_expansion(&a.text))?;
    Some(
        S::new("engine-prints-expansion")
            .text("expanded", expanded)
            .text("program", program),
    )
}

/// The first expansion in a word's source text of a variable with a secret-like name
/// (`$GITHUB_TOKEN`, `${AWS_SECRET_ACCESS_KEY:-}`), or an indirect one (`${!name}`,
/// `${!prefix*}`), which can read any variable.
pub(in crate::shell) fn secret_expansion(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text.get(i..).and_then(|rest| rest.find('$')) {
        let dollar = i + at;
        let mut j = dollar + 1;
        let braced = bytes.get(j) == Some(&b'{');
        if braced {
            j += 1;
            match bytes.get(j) {
                Some(b'!') => {
                    let end = text[j..].find('}').map_or(text.len(), |e| j + e + 1);
                    return Some(text[dollar..end].to_string());
                }
                Some(b'#') => j += 1,
                _ => {}
            }
        }
        let start = j;
        while bytes
            .get(j)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            j += 1;
        }
        let name = &text[start..j];
        if !name.is_empty() && is_secret_variable(name) {
            return Some(format!("${name}"));
        }
        i = dollar + 1;
    }
    None
}
