//! What the user must know but is not a reply: session notices when the client shows
//! them (`clientCapabilities.session.notices`), plain agent messages otherwise.

use serde_json::{Value, json};

use super::support::{Answer, Client, initialize_params};

fn with_notices() -> Value {
    let mut params = initialize_params();
    params["clientCapabilities"]["session"] = json!({"notices": {}});
    params
}

fn notices(client: &Client) -> Vec<Value> {
    client
        .session_updates()
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "notice")
        .collect()
}

#[test]
fn a_broken_policy_file_and_mcp_servers_are_noticed_at_session_start() {
    let mut client = Client::spawn();
    std::fs::write(client.process().home().join("policy.toml"), "mode = \n").expect("write policy");
    client.request_ok("initialize", with_notices());
    let cwd = client.process().project().display().to_string();
    client.request_ok(
        "session/new",
        json!({"cwd": cwd, "mcpServers": [{"name": "github", "command": "gh-mcp", "args": [], "env": []}]}),
    );
    client.commands_update();
    client.wait_for("the second notice", |m| {
        m["params"]["update"]["sessionUpdate"] == "notice"
            && m["params"]["update"]["title"]
                .as_str()
                .is_some_and(|t| t.starts_with("MCP server"))
    });
    let seen: Vec<(String, String)> = notices(&client)
        .iter()
        .map(|n| {
            (
                n["severity"].as_str().unwrap_or("?").to_owned(),
                n["title"].as_str().unwrap_or("?").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "warning".to_owned(),
                "A policy file could not be used, so calls it would allow ask instead".to_owned()
            ),
            (
                "warning".to_owned(),
                "MCP server `github` was not started".to_owned()
            ),
        ]
    );
    let policy = &notices(&client)[0];
    assert!(
        policy["description"]
            .as_str()
            .is_some_and(|d| d.contains("policy.toml") && d.contains("warden policy lint")),
        "{policy}"
    );
}

#[test]
fn a_stored_grant_is_told_as_a_notice_or_as_a_message() {
    for shows_notices in [true, false] {
        let mut client = Client::spawn();
        if shows_notices {
            client.request_ok("initialize", with_notices());
        } else {
            client.initialize();
        }
        let session = client.new_session();
        client.commands_update();
        client.on_request(|_| {
            Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": "allow-session"}}))
        });
        client.prompt(&session, r#"/call terminal {"command": "touch made"}"#);
        let title = "Grant stored: exactly \"touch made\" is allowed for this session";
        if shows_notices {
            let seen = notices(&client);
            assert_eq!(seen.len(), 1, "{seen:?}");
            assert_eq!(seen[0]["severity"], "info");
            assert_eq!(seen[0]["title"], title);
            assert!(!client.agent_text().contains("Grant stored"));
        } else {
            assert!(notices(&client).is_empty());
            assert!(
                client.agent_text().contains(&format!("**{title}**: ")),
                "{}",
                client.agent_text()
            );
        }
    }
}
