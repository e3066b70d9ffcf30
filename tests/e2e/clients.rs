//! Preferences per client through the binary: `[[client]]` defaults chosen by the
//! `clientInfo.name` of `initialize` (a client that sends none is `unknown`), and
//! `warden policy check --client`.

use serde_json::{Value, json};

use super::support::{Client, Spawn};

const POLICY: &str = r#"
[[client]]
name = "ci-*"
mode = "auto-deny"

[[client]]
name = "unknown"
mode = "read-only"

[[rule]]
id = "ci-no-terminal"
client = "CI-*"
tool = "terminal"
decision = "deny"
"#;

/// The mode a session starts in for a client that introduces itself with `client_info`
/// (`None`: no `clientInfo` at all).
fn starting_mode(client_info: Option<Value>) -> Value {
    let mut client = Client::spawn();
    std::fs::write(client.process().home().join("policy.toml"), POLICY).expect("write policy");
    let mut params = json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false}
    });
    if let Some(info) = client_info {
        params["clientInfo"] = info;
    }
    client.request_ok("initialize", params);
    let result = client.new_session_result();
    assert!(client.finish().success());
    result["modes"]["currentModeId"].clone()
}

#[test]
fn a_ci_client_starts_in_its_stricter_mode_and_a_nameless_one_as_unknown() {
    let ci = starting_mode(Some(json!({"name": "ci-nightly", "version": "1"})));
    assert_eq!(ci, json!("auto-deny"));
    let editor = starting_mode(Some(json!({"name": "zed", "version": "0.200"})));
    assert_eq!(editor, json!("ask"));
    let nameless = starting_mode(None);
    assert_eq!(nameless, json!("read-only"));
}

#[test]
fn policy_check_evaluates_as_the_named_client() {
    let client = Client::spawn();
    let home = client.process().home();
    std::fs::write(home.join("policy.toml"), POLICY).expect("write policy");
    let project = client.process().project();
    let check = |extra: &[&str]| -> Value {
        let mut args = vec![
            "policy",
            "check",
            "--tool",
            "terminal",
            "--args",
            r#"{"command":"ls"}"#,
            "--cwd",
            project.to_str().expect("utf-8"),
        ];
        args.extend_from_slice(extra);
        let out = client.process().cli(&args, &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    };
    let ci = check(&["--client", "ci-runner"]);
    assert_eq!(ci["decision"], json!("deny"), "{ci}");
    assert_eq!(ci["decided_by"]["id"], json!("ci-no-terminal"), "{ci}");
    assert_eq!(ci["mode"], json!("auto-deny"), "{ci}");
    let zed = check(&["--client", "zed"]);
    assert_eq!(zed["mode"], json!("ask"), "{zed}");
    assert_ne!(zed["decided_by"]["id"], json!("ci-no-terminal"), "{zed}");
    let unknown = check(&[]);
    assert_eq!(unknown["mode"], json!("read-only"), "{unknown}");
}

/// A Warden on `home`'s folders, introduced as `name`.
fn as_client(home: &str, name: &str) -> Client {
    let mut client = Client::spawn_with(&Spawn::default().env("WARDEN_HOME", home));
    client.request_ok(
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}, "clientInfo": {"name": name, "version": "1"}}),
    );
    client
}

/// A loaded session keeps its stored mode, unless the loading client's `[[client]]` mode
/// is stricter: a CI client does not inherit an interactive session's `auto-approve`.
#[test]
fn a_loaded_session_takes_the_clients_mode_only_when_it_is_stricter() {
    let first = Client::spawn();
    let home = first.process().home();
    std::fs::write(home.join("policy.toml"), POLICY).expect("write policy");
    let home = home.display().to_string();
    let project = first.process().project().display().to_string();
    let mut editor = as_client(&home, "zed");
    let created = editor.request_ok("session/new", json!({"cwd": project, "mcpServers": []}));
    let session = created["sessionId"]
        .as_str()
        .expect("a session id")
        .to_owned();
    editor.request_ok(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "auto-approve"}),
    );
    assert!(editor.finish().success());
    let load = json!({"sessionId": session, "cwd": project, "mcpServers": []});

    let mut ci = as_client(&home, "ci-nightly");
    let loaded = ci.request_ok("session/load", load.clone());
    assert_eq!(loaded["modes"]["currentModeId"], "auto-deny", "{loaded}");
    assert!(ci.finish().success());

    let mut again = as_client(&home, "zed");
    let loaded = again.request_ok("session/load", load);
    assert_eq!(loaded["modes"]["currentModeId"], "auto-approve", "{loaded}");
    assert!(again.finish().success());
}
