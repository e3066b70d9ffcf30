//! Commands that print environment variables: the whole environment, or variables with
//! secret-like names, are at least Medium and say why; ordinary ones stay as they were.

use warden_permissions::shell::analyse;
use warden_permissions::{Context, Risk};

const PRINTS: &str = "prints environment variables that may hold secrets";

fn ctx() -> Context {
    Context::new("/home/wardentest/project").with_home("/home/wardentest")
}

/// `(risk, reason)` of a command.
fn judge(command: &str) -> (Risk, String) {
    let analysis = analyse(command, &ctx());
    (analysis.risk, analysis.reason().to_string())
}

#[test]
fn reading_secrets_from_the_environment_is_at_least_medium() {
    let cases = [
        "env",
        "env -0",
        "env -u HOME",
        "printenv",
        "printenv -0",
        "printenv OPENAI_API_KEY",
        "printenv HOME OPENAI_API_KEY",
        "printenv GITHUB_TOKEN",
        "printenv AWS_SECRET_ACCESS_KEY",
        "printenv AWS_ACCESS_KEY_ID",
        "printenv AWS_SESSION_TOKEN",
        "printenv PGPASSWORD",
        "printenv DB_PASSWORD_FILE",
        "printenv STRIPE_KEY",
        "printenv MYSQL_PWD",
        "printenv GOOGLE_APPLICATION_CREDENTIALS",
        "printenv AZURE_CLIENT_SECRET",
        "printenv $NAME",
        "set",
        "export",
        "export -p",
        "declare",
        "declare -x",
        "declare -p",
        "declare -px",
        "declare -p OPENAI_API_KEY",
        "typeset -p",
        "readonly",
        "readonly -p",
        "command export -p",
        "echo \"$OPENAI_API_KEY\"",
        "echo $OPENAI_API_KEY",
        "echo ${OPENAI_API_KEY}",
        "echo \"key: ${OPENAI_API_KEY:-none}\"",
        "printf '%s\\n' \"$GITHUB_TOKEN\"",
        "echo $db_password",
        "echo ${!name}",
        "echo ${!OPENAI*}",
        "ls; echo $AWS_SECRET_ACCESS_KEY",
        "echo $(printenv)",
        "env | grep KEY",
        "printenv | sort",
        "sh -c 'echo \"$OPENAI_API_KEY\" > leak.txt'",
        "bash -c 'env'",
        "nohup env",
        "ps eww",
        "ps axe",
        "cat <<EOF\n$OPENAI_API_KEY\nEOF",
        "cat <<-EOF\n\tkey: ${GITHUB_TOKEN}\n\tEOF",
        "cat <<< \"$GITHUB_TOKEN\"",
        "base64 <<< $AWS_SECRET_ACCESS_KEY",
    ];
    let mut failures = Vec::new();
    for command in cases {
        let (risk, reason) = judge(command);
        if risk < Risk::Medium || (risk == Risk::Medium && !reason.contains(PRINTS)) {
            failures.push(format!("{command:?}: {risk} ({reason})"));
        }
    }
    assert!(
        failures.is_empty(),
        "not judged as printing secrets:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_environment_of_a_process_is_a_secret_file() {
    for command in [
        "cat /proc/self/environ",
        "cat /proc/1/environ",
        "cat /proc/*/environ",
        "tr '\\0' '\\n' < /proc/self/environ",
        "strings /proc/$PPID/environ",
    ] {
        let (risk, reason) = judge(command);
        assert!(risk >= Risk::Medium, "{command:?}: {risk} ({reason})");
    }
}

#[test]
fn ordinary_variables_and_commands_stay_as_they_were() {
    let cases = [
        ("echo $HOME", Risk::Low),
        ("echo \"$PWD\"", Risk::Low),
        ("echo $PATH", Risk::Low),
        ("echo $USER $SHELL", Risk::Low),
        ("echo '$OPENAI_API_KEY'", Risk::Low),
        ("echo ${#HOME}", Risk::Low),
        ("printenv HOME", Risk::Low),
        ("printenv PATH LANG", Risk::Low),
        ("printenv SSH_AUTH_SOCK", Risk::Low),
        ("printenv KEYBOARD_LAYOUT", Risk::Low),
        ("env FOO=1 ls", Risk::Medium),
        ("env FOO=1 cargo test", Risk::Medium),
        ("set -e", Risk::Low),
        ("set -o pipefail", Risk::Low),
        ("set -- a b", Risk::Low),
        ("export FOO=1", Risk::Medium),
        ("export FOO", Risk::Low),
        ("export FOO=1; ls", Risk::Medium),
        ("declare -a list", Risk::Low),
        ("declare -f", Risk::Low),
        ("declare -p HOME", Risk::Low),
        ("local x=1", Risk::Low),
        ("readonly X=1", Risk::Low),
        ("ps aux", Risk::Low),
        ("ps -ef", Risk::Low),
        ("grep -rn API_KEY src", Risk::Low),
        ("cat README.md", Risk::Low),
        ("cat <<'EOF'\n$OPENAI_API_KEY\nEOF", Risk::Low),
        ("cat <<EOF\n$HOME\nEOF", Risk::Low),
        ("cat <<< \"$HOME\"", Risk::Low),
    ];
    let mut failures = Vec::new();
    for (command, expected) in cases {
        let (risk, reason) = judge(command);
        // Setting an unknown variable is Medium in its own right (the environment
        // allow-list); what these guards check is that nothing here is taken for
        // printing the environment.
        if risk != expected || reason.contains("prints environment variables") {
            failures.push(format!(
                "{command:?}: expected {expected}, got {risk} ({reason})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
