//! Warden's own secrets stay out of the tools' reach and out of the model's context: a
//! model (the OpenAI-compatible backend, against a local streaming server) that asks
//! for `printenv`, `env`, a script that writes `$OPENAI_API_KEY` to a file, Warden's own
//! `/proc` environment and a project file holding the key gets none of it back, and
//! neither does the client, the file or the audit log.

use serde_json::{Value, json};
use warden_model::testing::{Reply, Server, call_delta, done, finish, text_chunk};

use super::support::{Client, Spawn};

/// The model's API key: long and distinctive, so any leak is found verbatim.
const KEY: &str = "sk-e2e-7f3a91c0d2b54e68a1f0c3d9e7b2a4f6";
/// A variable the user lists in `secret_env`.
const TOKEN: &str = "deploy-e2e-5b8c2e9f01d7a3c6";

fn call(index: u32, id: &str, command: &str) -> String {
    let arguments = json!({ "command": command }).to_string();
    call_delta(index, Some(id), Some("terminal"), &arguments)
}

/// What the model answers: first the calls that try to reach the secrets, then, once
/// it has their results, its last words.
fn model_replies() -> Vec<Reply> {
    vec![
        Reply::Sse(vec![
            text_chunk("Looking around."),
            call(0, "call_printenv", "printenv"),
            call(1, "call_env", "env"),
            call(
                2,
                "call_script",
                "sh -c 'echo \"$OPENAI_API_KEY\" > leak.txt; echo \"$DEPLOY_TOKEN\" >> leak.txt'",
            ),
            call(
                3,
                "call_named",
                "printenv OPENAI_API_KEY DEPLOY_TOKEN; echo \"k=$OPENAI_API_KEY\"",
            ),
            call(4, "call_proc", "tr '\\0' '\\n' < /proc/$PPID/environ"),
            call_delta(
                5,
                Some("call_read"),
                Some("fs_read"),
                &json!({ "path": "notes.txt" }).to_string(),
            ),
            finish("tool_calls"),
            done(),
        ]),
        Reply::Sse(vec![text_chunk("Done."), finish("stop"), done()]),
    ]
}

#[test]
fn the_model_key_reaches_neither_the_model_nor_the_client_nor_the_files() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the model server");
    let server = runtime.block_on(Server::start(model_replies()));
    let mut client = Client::spawn_with(
        &Spawn::default()
            .env("WARDEN_MODEL", "openai:test-model")
            .env("OPENAI_BASE_URL", server.base_url())
            .env("OPENAI_API_KEY", KEY)
            .env("DEPLOY_TOKEN", TOKEN),
    );
    let home = client.process().home();
    std::fs::write(
        home.join("config.toml"),
        "secret_env = [\"DEPLOY_TOKEN\"]\n",
    )
    .expect("write the user config");
    let project = client.process().project();
    // A project file that holds the same key: no environment measure can help here,
    // only redaction.
    std::fs::write(project.join("notes.txt"), format!("the key is {KEY}\n")).expect("notes");
    let session = client.ready_session();
    client.request_ok(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "auto-approve"}),
    );
    let result = client.prompt(&session, "show me the environment");
    assert_eq!(result["stopReason"], "end_turn");

    // The calls ran: the script wrote its file, with empty lines where the secrets
    // would have been.
    let leaked = std::fs::read_to_string(project.join("leak.txt")).expect("the script ran");
    assert_eq!(leaked, "\n\n");

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let next = requests[1].body.to_string();
    let messages = requests[1].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let result_of = |id: &str| {
        messages
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .and_then(|m| m["content"].as_str())
            .unwrap_or_else(|| panic!("no result for {id}: {messages:?}"))
            .to_owned()
    };
    // `printenv` and `env` ran and printed an environment, without the secrets.
    for id in ["call_printenv", "call_env"] {
        let output = result_of(id);
        assert!(
            output.starts_with("Exit code 0.") && output.contains("PATH="),
            "{id}: {output}"
        );
        assert!(
            !output.contains("OPENAI_API_KEY") && !output.contains("DEPLOY_TOKEN"),
            "{id}: {output}"
        );
    }
    // Asked by name, the variables are not there at all.
    assert_eq!(result_of("call_named"), "Exit code 0.\nk=\n");
    // The project file's copy of the key is redacted.
    assert!(
        result_of("call_read").contains("the key is [redacted: OPENAI_API_KEY]"),
        "{}",
        result_of("call_read")
    );

    for (what, text) in [
        ("the next request to the model", next),
        ("the file the script wrote", leaked),
        (
            "the audit log",
            std::fs::read_to_string(home.join("audit.jsonl")).expect("the audit log"),
        ),
    ] {
        assert!(!text.contains(KEY), "the key is in {what}: {text}");
        assert!(
            !text.contains(TOKEN),
            "the listed secret is in {what}: {text}"
        );
    }
    assert_nothing_secret_sent(&client);
    // The tool calls' updates carry the redacted output to the client too.
    let updates: Vec<Value> = client
        .session_updates()
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "tool_call_update")
        .collect();
    assert!(
        updates
            .iter()
            .any(|u| u.to_string().contains("[redacted: OPENAI_API_KEY]")),
        "{updates:?}"
    );
}

/// No line Warden sent the client holds the key or the listed secret.
fn assert_nothing_secret_sent(client: &Client) {
    let transcript = client.transcript();
    let lines: Vec<&str> = transcript
        .iter()
        .filter(|e| e.direction == super::support::Direction::FromAgent)
        .map(|e| e.text.as_str())
        .collect();
    assert!(lines.len() > 10, "{lines:?}");
    for line in &lines {
        assert!(
            !line.contains(KEY) && !line.contains(TOKEN),
            "sent to the client: {line}"
        );
    }
}

/// What a local command sees of `DEPLOY_TOKEN` with this `config.toml`.
fn token_seen_with(config: &str) -> String {
    let mut client = Client::spawn_with(&Spawn::default().env("DEPLOY_TOKEN", TOKEN));
    std::fs::write(client.process().home().join("config.toml"), config).expect("config");
    let session = client.ready_session();
    client.request_ok(
        "session/set_mode",
        json!({"sessionId": session, "modeId": "auto-approve"}),
    );
    let result = client.prompt(
        &session,
        r#"/call terminal {"command": "echo \"token=$DEPLOY_TOKEN\""}"#,
    );
    assert_eq!(result["stopReason"], "end_turn");
    client
        .session_updates()
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed")
        .map(|u| {
            u["rawOutput"]["output"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .unwrap_or_else(|| panic!("no completed call: {:?}", client.session_updates()))
}

#[test]
fn a_config_that_cannot_be_read_keeps_every_secret_like_variable_from_the_tools() {
    let cases = [
        // Not listed: the user's own variables stay theirs to use.
        ("model = \"scripted\"\n", format!("token={TOKEN}\n")),
        ("secret_env = [\"DEPLOY_TOKEN\"]\n", "token=\n".to_owned()),
        // The list is unknown, so every name that looks like a secret's is kept out.
        ("secret_env = \"DEPLOY_TOKEN\"\n", "token=\n".to_owned()),
        ("secret_env = [\n", "token=\n".to_owned()),
    ];
    for (config, expected) in cases {
        assert_eq!(token_seen_with(config), expected, "config: {config:?}");
    }
}
