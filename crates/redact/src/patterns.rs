//! What looks like a secret: environment variable names that say they hold one, JSON
//! keys that name one, and patterns in text (bearer tokens, `sk-...` and other vendor
//! keys, AWS key ids, private key blocks, `://user:pass@` in URLs, `--password=x` and
//! `TOKEN=x` in commands), with [`redact_text`] to hide them.
//!
//! The shell analysis uses the names to judge commands that print the environment, the
//! grant proposal uses the patterns to store no grant that holds a secret, the session
//! keeps secret variables out of tool processes, and the audit log and tool output are
//! redacted with the same patterns.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};

/// Whether an environment variable's name says it holds a secret: `*_KEY` (and
/// `*_KEY_*`), `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*PASSPHRASE*`,
/// `*CREDENTIAL*`, `*_PWD`, `*_PASS`, and API, access and private keys in any
/// spelling (`OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `AWS_ACCESS_KEY_ID`,
/// `GITHUB_TOKEN`, `PGPASSWORD`, `GOOGLE_APPLICATION_CREDENTIALS`). Compared in upper
/// case; `PWD` itself (the working directory) is not a secret.
pub fn is_secret_variable(name: &str) -> bool {
    const PARTS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "CREDENTIAL",
        "APIKEY",
        "API_KEY",
        "ACCESS_KEY",
        "ACCESSKEY",
        "PRIVATE_KEY",
        "PRIVATEKEY",
    ];
    let upper = name.to_ascii_uppercase();
    let words: Vec<&str> = upper.split('_').collect();
    PARTS.iter().any(|part| upper.contains(part))
        || words.iter().skip(1).any(|w| *w == "KEY")
        || words.len() > 1 && matches!(words.last(), Some(&("PWD" | "PASS")))
}

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Fragments of JSON keys that name secrets, compared after lowercasing and removing
/// `-` and `_`, so `api_key`, `API-Key` and `apiKey` are one thing.
const SECRET_KEY_PARTS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "authorization",
    "credential",
    "cookie",
];

/// Keys that name secrets only as a whole word.
const SECRET_KEYS: &[&str] = &["pwd", "pass", "auth"];

/// Whether a JSON object key names a secret.
pub fn is_secret_key(key: &str) -> bool {
    let normal: String = key
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_KEYS.contains(&normal.as_str())
        || SECRET_KEY_PARTS.iter().any(|part| normal.contains(part))
}

/// A pattern and what its matches become (`$1`-style references allowed).
struct Pattern {
    regex: Regex,
    replacement: &'static str,
}

/// The patterns, most specific first: a private key block must go before the
/// key-value rule sees `PRIVATE KEY-----` inside it.
static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let table: &[(&str, &str)] = &[
        // PEM private key blocks, also when cut off before their END line.
        (
            r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)",
            "[REDACTED PRIVATE KEY]",
        ),
        // Credentials in URLs: keep the user name, hide the password.
        (
            r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*):[^/\s@]+@",
            "${1}:[REDACTED]@",
        ),
        // HTTP headers that carry credentials, to the end of the header value.
        (
            r#"(?i)\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token|private-token|(?:set-)?cookie)(\s*:\s*)[^\r\n"'\\]+"#,
            "${1}${2}[REDACTED]",
        ),
        // Bearer tokens anywhere.
        (r"(?i)\b(bearer)\s+[a-z0-9._~+/=-]{8,}", "${1} [REDACTED]"),
        // Vendor key formats: OpenAI/Anthropic `sk-`, AWS key ids, GitHub, GitLab,
        // Slack, Google, Stripe, npm, and JWTs.
        (
            concat!(
                r"\b(?:sk-[A-Za-z0-9_-]{16,}",
                r"|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}",
                r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}",
                r"|glpat-[A-Za-z0-9_-]{20,}",
                r"|xox[abposr]-[A-Za-z0-9-]{10,}",
                r"|AIza[0-9A-Za-z_-]{35}",
                r"|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
                r"|npm_[A-Za-z0-9]{36}",
                r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
            ),
            REDACTED,
        ),
        // `--password secret`, `--token abc` (a flag and the next word).
        (
            r"(?i)(--?(?:password|passwd|pass|token|secret|api-key|apikey|access-token|auth-token|client-secret|private-key))\s+([^\s-]\S*)",
            "${1} [REDACTED]",
        ),
        // `mysql -psecret`: the password glued to `-p`.
        (
            r"(?i)\b((?:mysql|mysqldump|mysqladmin|mariadb)\b[^|;&\n]*?\s-p)[^\s]+",
            "${1}[REDACTED]",
        ),
        // `curl -u user:password`.
        (
            r"(?i)(\s(?:-u|--user)\s+['\x22]?[^\s:'\x22]+):[^\s'\x22]+",
            "${1}:[REDACTED]",
        ),
        // `sshpass -p secret`.
        (r"(\bsshpass\s+-p\s*)\S+", "${1}[REDACTED]"),
        // `key=value` and `"key": "value"` where the key names a secret:
        // `PASSWORD=x cmd`, `--password=x`, `?token=x&`, JSON inside strings.
        (
            r#"(?i)([a-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[a-z0-9_.-]*)(["']?\s*[:=]\s*["']?)([^\s"'&,;}]+)"#,
            "${1}${2}[REDACTED]",
        ),
    ];
    table
        .iter()
        .filter_map(|(pattern, replacement)| match Regex::new(pattern) {
            Ok(regex) => Some(Pattern { regex, replacement }),
            // The patterns are constants covered by tests; should one ever fail
            // to compile, the others still apply.
            Err(err) => {
                tracing::error!(%err, pattern, "a redaction pattern does not compile");
                None
            }
        })
        .collect()
});

/// All patterns in one automaton: most strings hold no secret, and one pass that
/// says so costs far less than a pass per pattern.
static ANY_PATTERN: LazyLock<Option<RegexSet>> =
    LazyLock::new(
        || match RegexSet::new(PATTERNS.iter().map(|p| p.regex.as_str())) {
            Ok(set) => Some(set),
            Err(err) => {
                tracing::error!(%err, "the redaction patterns do not compile as a set");
                None
            }
        },
    );

/// Replaces everything in `text` that looks like a secret.
pub fn redact_text(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    // Without the set (it cannot fail to build when the patterns do) every pattern
    // runs; a replacement may create a match for a later pattern, so after the first
    // hit the rest run unconditionally.
    let first = match ANY_PATTERN.as_ref() {
        Some(set) => match set.matches(text).iter().next() {
            Some(first) => first,
            None => return out,
        },
        None => 0,
    };
    for pattern in &PATTERNS[first..] {
        if let Cow::Owned(replaced) = pattern.regex.replace_all(&out, pattern.replacement) {
            out = Cow::Owned(replaced);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::is_secret_variable;

    #[test]
    fn secret_like_variable_names() {
        for name in [
            "OPENAI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_SESSION_TOKEN",
            "GITHUB_TOKEN",
            "STRIPE_KEY",
            "PGPASSWORD",
            "MYSQL_PWD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "db_password",
            "ApiKey",
        ] {
            assert!(is_secret_variable(name), "{name}");
        }
        for name in [
            "HOME",
            "PWD",
            "PATH",
            "KEYBOARD",
            "SSH_AUTH_SOCK",
            "MONKEY",
            "LANG",
        ] {
            assert!(!is_secret_variable(name), "{name}");
        }
    }
}
