//! Which environment variable names say they hold secrets.
//!
//! This is a policy concept: the shell analysis uses it to judge commands that print
//! the environment, and the session uses it to keep secret variables out of tool
//! processes. Redaction of secret *values* lives in the audit crate, which depends on
//! this crate, never the other way round.

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
