//! Secret redaction, one case a line: what goes in, and what the log may show.

use serde_json::json;
use warden_redact::{is_secret_key, redact_json, redact_text};

#[track_caller]
fn check(input: &str, expected: &str) {
    assert_eq!(redact_text(input), expected, "input: {input}");
}

#[test]
fn secrets_in_text_are_redacted() {
    // Bearer tokens and credential headers.
    check(
        "curl -H 'Authorization: Bearer abcdef123456' https://api.example.com",
        "curl -H 'Authorization: [REDACTED]' https://api.example.com",
    );
    check("bearer eyJhbGciOi.x", "bearer [REDACTED]");
    check("Bearer short", "Bearer short");
    check(
        r#"curl -H "X-Api-Key: 1234abcd" url"#,
        r#"curl -H "X-Api-Key: [REDACTED]" url"#,
    );
    check("Cookie: session=abc; id=2", "Cookie: [REDACTED]");
    // Vendor key formats.
    check(
        "export OPENAI=sk-proj-abcdefghijklmnop1234",
        "export OPENAI=[REDACTED]",
    );
    check("key sk-ant-api03-abcdefghijklmnopqrstu", "key [REDACTED]");
    check("sk-short", "sk-short");
    check("aws AKIAIOSFODNN7EXAMPLE here", "aws [REDACTED] here");
    check("AKIAIOSFODNN7EXAMPL", "AKIAIOSFODNN7EXAMPL");
    check(
        "git clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r",
        "git clone https://[REDACTED]@github.com/o/r",
    );
    check("xoxb-1234567890-abcdef", "[REDACTED]");
    check("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED]");
    check(
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk",
        "[REDACTED]",
    );
    // Private key blocks, whole or cut off.
    check(
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\ntrailer",
        "[REDACTED PRIVATE KEY]\ntrailer",
    );
    check(
        "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXkt",
        "x [REDACTED PRIVATE KEY]",
    );
    check(
        "-----BEGIN PUBLIC KEY-----\nMIIB",
        "-----BEGIN PUBLIC KEY-----\nMIIB",
    );
    // Credentials in URLs.
    check(
        "psql postgres://admin:hunter2@db:5432/app",
        "psql postgres://admin:[REDACTED]@db:5432/app",
    );
    check(
        "https://example.com:8080/path@x",
        "https://example.com:8080/path@x",
    );
    check(
        "https://docs.rs/?token=abc123&q=1",
        "https://docs.rs/?token=[REDACTED]&q=1",
    );
    // Flags and assignments in commands.
    check(
        "mysql --password=hunter2 db",
        "mysql --password=[REDACTED] db",
    );
    check(
        "tool --password hunter2 -v",
        "tool --password [REDACTED] -v",
    );
    check(
        "tool --token abc --verbose",
        "tool --token [REDACTED] --verbose",
    );
    check("tool --token-file path", "tool --token-file path");
    check(
        "mysql -u root -phunter2 db",
        "mysql -u root -p[REDACTED] db",
    );
    check("mkdir -p build", "mkdir -p build");
    check("curl -u alice:s3cret url", "curl -u alice:[REDACTED] url");
    check(
        "sshpass -p hunter2 ssh host",
        "sshpass -p [REDACTED] ssh host",
    );
    check("PASSWORD=hunter2 ./deploy", "PASSWORD=[REDACTED] ./deploy");
    check(
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG aws s3 ls",
        "AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls",
    );
    check("export GITHUB_TOKEN=abc", "export GITHUB_TOKEN=[REDACTED]");
    check(
        r#"{"password": "hunter2", "user": "bob"}"#,
        r#"{"password": "[REDACTED]", "user": "bob"}"#,
    );
    check("api_key: abc123", "api_key: [REDACTED]");
    // Ordinary text stays as it is.
    check("git status", "git status");
    check(
        "cargo test -p warden-permissions",
        "cargo test -p warden-permissions",
    );
    check(
        "read the password policy docs",
        "read the password policy docs",
    );
    check("", "");
}

#[track_caller]
fn check_key(key: &str, secret: bool) {
    assert_eq!(is_secret_key(key), secret, "key: {key}");
}

#[test]
fn secret_keys_are_recognised_in_any_spelling() {
    check_key("password", true);
    check_key("DB_PASSWORD", true);
    check_key("apiKey", true);
    check_key("api-key", true);
    check_key("API_KEY", true);
    check_key("Authorization", true);
    check_key("client_secret", true);
    check_key("access_token", true);
    check_key("pwd", true);
    check_key("auth", true);
    check_key("path", false);
    check_key("command", false);
    check_key("author", false);
    check_key("content", false);
}

#[test]
fn json_values_under_secret_keys_are_replaced_whole() {
    let input = json!({
        "url": "https://a:b@host/x",
        "headers": {"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Accept": "*/*"},
        "credentials": {"user": "u", "pass": "p"},
        "pin": 1234,
        "token": 99,
        "use_token": true,
        "list": ["sk-abcdefghijklmnopqrstuv", 3, null],
        "body": "{\"secret\":\"x\"}"
    });
    let expected = json!({
        "url": "https://a:[REDACTED]@host/x",
        "headers": {"Authorization": "[REDACTED]", "Accept": "*/*"},
        "credentials": "[REDACTED]",
        "pin": 1234,
        "token": "[REDACTED]",
        "use_token": true,
        "list": ["[REDACTED]", 3, null],
        "body": "{\"secret\":\"[REDACTED]\"}"
    });
    assert_eq!(redact_json(&input), expected);
}
