//! MCP servers end to end (docs/contract.md, section 7): the real binary connects the
//! test server (`crates/mcp-test-server`) named in `session/new`; the scripted model
//! calls its tools as `mcp__<server>__<tool>`.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::support::{Answer, Client, Spawn};

mod http;

/// The test server's binary, built once for the whole test run: it is a binary of
/// another package of the workspace, which `cargo test` does not build for this one.
pub(super) fn server_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let warden = PathBuf::from(env!("CARGO_BIN_EXE_warden"));
            let bin_dir = warden.parent().expect("the binary's folder").to_path_buf();
            let target_dir = bin_dir.parent().expect("the target folder").to_path_buf();
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
            let status = std::process::Command::new(cargo)
                .args(["build", "--quiet", "-p", "warden-mcp-test-server"])
                .env("CARGO_TARGET_DIR", &target_dir)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("run cargo build for the MCP test server");
            assert!(status.success(), "building the MCP test server failed");
            bin_dir.join("warden-mcp-test-server")
        })
        .clone()
}

/// A stdio server entry of `session/new` running the test server in `mode`.
fn stdio(name: &str, mode: &str) -> Value {
    json!({
        "name": name,
        "command": server_binary().display().to_string(),
        "args": [mode],
        "env": [],
    })
}

/// Warden with `policy` as the user's policy.
fn warden(policy: &str) -> Client {
    let client =
        Client::spawn_with(&Spawn::default().env("OPENAI_API_KEY", "sk-e2e-secret-0123456789"));
    std::fs::write(client.process().home().join("policy.toml"), policy).expect("write the policy");
    client
}

/// `initialize`, then `session/new` with `servers`; returns the session id.
fn session(client: &mut Client, servers: Value) -> String {
    client.initialize();
    let cwd = client.process().project().display().to_string();
    let result = client.request_ok("session/new", json!({"cwd": cwd, "mcpServers": servers}));
    client.commands_update();
    result["sessionId"]
        .as_str()
        .expect("a session id")
        .to_owned()
}

fn call(tool: &str, args: Value) -> String {
    format!("/call {tool} {args}")
}

/// The last `tool_call_update` of the prompt that ended last, with its status and
/// text content.
fn last_result(client: &Client) -> (String, String) {
    let update = client
        .session_updates()
        .into_iter()
        .rev()
        .find(|u| u["sessionUpdate"] == "tool_call_update" && u.get("status").is_some())
        .unwrap_or_else(|| client.fail("no tool_call_update with a status"));
    let text: Vec<String> = update["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["content"]["text"].as_str().map(str::to_owned))
        .collect();
    (
        update["status"].as_str().unwrap_or("?").to_owned(),
        text.join("\n"),
    )
}

const ALLOW_ALL: &str = "[[rule]]\ntool = \"mcp__t__*\"\ndecision = \"allow\"\n";

#[test]
fn an_allowed_mcp_tool_runs_and_its_result_reaches_the_model() {
    let mut client = warden(ALLOW_ALL);
    let session = session(&mut client, json!([stdio("t", "good")]));
    let result = client.prompt(
        &session,
        &call("mcp__t__echo", json!({"text": "hello from MCP"})),
    );
    assert_eq!(result["stopReason"], "end_turn");
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "hello from MCP".to_owned())
    );
    let requests = client.notifications("session/request_permission");
    assert!(
        requests.is_empty(),
        "an allowed call asks nobody: {requests:?}"
    );
}

#[test]
fn an_mcp_tool_is_asked_about_with_the_contract_s_prompt() {
    let mut client = warden("");
    let session = session(&mut client, json!([stdio("t", "good")]));
    client.on_request(|_| {
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}}))
    });
    let args = json!({"text": "hi"});
    client.prompt(&session, &call("mcp__t__echo", args.clone()));
    let request = client
        .transcript()
        .iter()
        .filter_map(|e| e.message.as_ref())
        .find(|m| m["method"] == "session/request_permission")
        .map(|m| m["params"].clone())
        .unwrap_or_else(|| client.fail("no permission request"));
    let call = &request["toolCall"];
    assert_eq!(call["title"], "Run echo from t", "{call}");
    let prompt = call["content"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| client.fail(&format!("no prompt text: {call}")));
    let expected = format!(
        "Allow tool call from t?\n\n```json\n{}\n```\n\nMalicious MCP servers or conversation content could potentially trick Warden into attempting harmful actions through your installed tools.\n\n**Review each action carefully before approving**",
        serde_json::to_string_pretty(&args).unwrap()
    );
    assert_eq!(prompt, expected);
    // Order and labels are a safety property: allow-once first, exactly one
    // allow_once, the "always" option never alone.
    let options: Vec<String> = request["options"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| format!("{} {} {}", o["optionId"], o["kind"], o["name"]))
        .collect();
    assert_eq!(
        options,
        [
            r#""allow-once" "allow_once" "Allow once""#,
            r#""allow-session" "allow_always" "Allow for this chat""#,
            r#""allow-project" "allow_always" "Always allow echo from t in this project""#,
            r#""reject-once" "reject_once" "Deny""#,
            r#""reject-and-stop" "reject_once" "Reject and stop""#,
            r#""reject-project" "reject_always" "Always reject echo from t in this project""#,
        ]
    );
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "hi".to_owned())
    );
}

#[test]
fn allow_for_this_chat_covers_the_tool_of_that_server_and_no_other() {
    let mut client = warden("");
    let session = session(&mut client, json!([stdio("t", "good"), stdio("u", "good")]));
    client.on_request(|_| {
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": "allow-session"}}))
    });
    client.prompt(&session, &call("mcp__t__echo", json!({"text": "one"})));
    assert_eq!(client.agent_requests("session/request_permission").len(), 1);
    // Other arguments, the same tool of the same server: no question.
    client.prompt(&session, &call("mcp__t__echo", json!({"text": "two"})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "two".to_owned())
    );
    assert_eq!(client.agent_requests("session/request_permission").len(), 1);
    // The same tool of another server is asked about.
    client.prompt(&session, &call("mcp__u__echo", json!({"text": "three"})));
    assert_eq!(client.agent_requests("session/request_permission").len(), 2);
}

#[test]
fn a_deny_rule_keeps_an_mcp_tool_from_running() {
    let mut client = warden(
        "[[rule]]\ntool = \"mcp__t__echo\"\ndecision = \"deny\"\nreason = \"echo is off limits\"\n",
    );
    let session = session(&mut client, json!([stdio("t", "good")]));
    client.prompt(&session, &call("mcp__t__echo", json!({"text": "nope"})));
    let (status, text) = last_result(&client);
    assert_eq!(status, "failed", "{text}");
    assert!(!text.contains("nope"), "the tool did not run: {text}");
    // The rule's reason, to the client and to the model.
    assert!(text.contains("echo is off limits"), "{text}");
    assert!(
        client.agent_text().contains("echo is off limits"),
        "{}",
        client.agent_text()
    );
    assert!(
        client
            .notifications("session/request_permission")
            .is_empty()
    );
}

#[test]
fn a_server_that_dies_mid_call_fails_the_call_and_the_next_call_starts_it_again() {
    let mut client = warden(ALLOW_ALL);
    let session = session(&mut client, json!([stdio("t", "good")]));
    client.prompt(&session, &call("mcp__t__pid", json!({})));
    let (_, first_pid) = last_result(&client);
    client.prompt(&session, &call("mcp__t__crash", json!({})));
    let (status, text) = last_result(&client);
    assert_eq!(status, "failed");
    assert!(
        text.contains("MCP server `t` stopped during the call"),
        "{text}"
    );
    client.prompt(&session, &call("mcp__t__pid", json!({})));
    let (status, second_pid) = last_result(&client);
    assert_eq!(status, "completed");
    assert_ne!(first_pid, second_pid, "a new process answered");
}

#[test]
fn a_hung_call_fails_after_the_call_timeout_and_the_server_is_restarted() {
    let mut client = warden(&format!("mcp_call_timeout_secs = 1\n{ALLOW_ALL}"));
    let session = session(&mut client, json!([stdio("t", "good")]));
    client.prompt(&session, &call("mcp__t__hang", json!({})));
    let (status, text) = last_result(&client);
    assert_eq!(status, "failed");
    assert!(text.contains("did not answer within 1 s"), "{text}");
    client.prompt(&session, &call("mcp__t__echo", json!({"text": "back"})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "back".to_owned())
    );
}

/// Whether a process is gone (a zombie counts: it runs nothing).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn no_server_process_outlives_warden_not_even_a_server_s_own_child() {
    let mut client = warden(ALLOW_ALL);
    let session = session(&mut client, json!([stdio("t", "good")]));
    client.prompt(&session, &call("mcp__t__pid", json!({})));
    let (_, server) = last_result(&client);
    client.prompt(&session, &call("mcp__t__spawn_child", json!({})));
    let (_, child) = last_result(&client);
    assert!(
        !gone(&server) && !gone(&child),
        "both run while Warden does"
    );
    client.process_mut().close_stdin();
    assert!(client.wait_exit().success());
    // Killing is immediate, reaping by init is not: wait for it, with a bound.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(gone(&server) && gone(&child)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(gone(&server), "the server {server} outlived Warden");
    assert!(gone(&child), "the server's child {child} outlived Warden");
}

#[test]
fn a_server_gets_the_editor_s_variables_and_never_warden_s_secrets() {
    let mut client = warden(ALLOW_ALL);
    let mut server = stdio("t", "good");
    server["env"] = json!([{"name": "GREETING", "value": "bonjour"}]);
    let session = session(&mut client, json!([server]));
    client.prompt(&session, &call("mcp__t__env", json!({"name": "GREETING"})));
    assert_eq!(last_result(&client).1, "bonjour");
    client.prompt(
        &session,
        &call("mcp__t__env", json!({"name": "OPENAI_API_KEY"})),
    );
    assert_eq!(last_result(&client).1, "(unset)");
}

#[test]
fn a_huge_result_is_cut_to_the_output_limit() {
    let mut client = warden(ALLOW_ALL);
    let session = session(&mut client, json!([stdio("t", "good")]));
    client.prompt(&session, &call("mcp__t__big", json!({"bytes": 50_000_000})));
    let (status, text) = last_result(&client);
    assert_eq!(status, "completed");
    assert!(text.len() < 1_000_000, "{} bytes shown", text.len());
    assert!(
        text.contains("The result was cut to Warden's output limit"),
        "{}",
        &text[text.len() - 200..]
    );
}

#[test]
fn servers_that_fail_are_named_to_the_user_and_the_session_lives() {
    let mut client =
        warden("mcp_connect_timeout_secs = 2\n[[rule]]\ntool = \"mcp__*\"\ndecision = \"allow\"\n");
    let sse = json!({"type": "sse", "name": "old", "url": "http://127.0.0.1:9/sse", "headers": []});
    let session = session(
        &mut client,
        json!([
            stdio("exits", "exit"),
            stdio("silent", "silent"),
            stdio("garbage", "garbage"),
            stdio("schema", "bad-schema"),
            stdio("names", "bad-names"),
            stdio("t", "good"),
            stdio("t", "good"),
            stdio("bad name", "good"),
            {"name": "missing", "command": "/nonexistent/mcp-server", "args": [], "env": []},
            sse,
        ]),
    );
    let result = client.prompt(&session, "/say still here");
    assert_eq!(result["stopReason"], "end_turn");
    let text = client.agent_text();
    for expected in [
        "MCP server `exits` was not started",
        "MCP server `silent` was not started",
        "it did not finish starting within 2 s",
        "MCP server `garbage` was not started",
        "MCP server `missing` was not started",
        "could not start `/nonexistent/mcp-server`",
        "MCP server `old` was not started",
        "Warden does not connect SSE servers",
        "another server of this session is already called `t`",
        "MCP server `bad name` was not started",
        "Some tools of MCP server `schema` are not offered",
        "tool `stringly` left out: its input schema is not an object schema",
        "Some tools of MCP server `names` are not offered",
        "tool `read.file` left out",
        "tool `echo` left out: the server lists it twice",
        "still here",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    // The good server (the first `t`) and the good tools of the others work.
    client.prompt(&session, &call("mcp__t__echo", json!({"text": "alive"})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "alive".to_owned())
    );
    client.prompt(
        &session,
        &call("mcp__schema__echo", json!({"text": "also"})),
    );
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "also".to_owned())
    );
}

#[test]
fn a_notification_flood_does_not_stop_the_session() {
    let mut client = warden("[[rule]]\ntool = \"mcp__f__*\"\ndecision = \"allow\"\n");
    let session = session(&mut client, json!([stdio("f", "flood")]));
    client.prompt(&session, &call("mcp__f__echo", json!({"text": "through"})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "through".to_owned())
    );
}

#[test]
fn a_changed_tool_list_is_offered_from_the_next_model_request() {
    let mut client = warden(ALLOW_ALL);
    let session = session(&mut client, json!([stdio("t", "good")]));
    client.prompt(&session, &call("mcp__t__change_tools", json!({})));
    assert_eq!(last_result(&client).0, "completed");
    // The list is read again in the background after the notification: ask until
    // the new tool is there, within a bound.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        client.prompt(&session, &call("mcp__t__added", json!({})));
        let (status, text) = last_result(&client);
        if status == "completed" {
            assert_eq!(text, "the added tool ran");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the added tool never appeared: {text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn closing_a_session_stops_its_servers_and_only_its_own() {
    let mut client = warden(ALLOW_ALL);
    let first = session(&mut client, json!([stdio("t", "good")]));
    let cwd = client.process().project().display().to_string();
    let second = client.request_ok(
        "session/new",
        json!({"cwd": cwd, "mcpServers": [stdio("t", "good")]}),
    )["sessionId"]
        .as_str()
        .expect("a session id")
        .to_owned();
    client.commands_update();
    client.prompt(&first, &call("mcp__t__pid", json!({})));
    let (_, first_pid) = last_result(&client);
    client.prompt(&second, &call("mcp__t__pid", json!({})));
    let (_, second_pid) = last_result(&client);
    assert_ne!(first_pid, second_pid, "each session has its own server");
    client.request_ok("session/close", json!({"sessionId": first}));
    let deadline = Instant::now() + Duration::from_secs(10);
    while !gone(&first_pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        gone(&first_pid),
        "the closed session's server {first_pid} still runs"
    );
    assert!(
        !gone(&second_pid),
        "the other session's server was stopped too"
    );
    client.prompt(&second, &call("mcp__t__echo", json!({"text": "still"})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "still".to_owned())
    );
}

/// `initialize` for a client that shows forms (`elicitation/create`).
fn initialize_with_forms(client: &mut Client) {
    let mut params = super::support::initialize_params();
    params["clientCapabilities"]["elicitation"] = json!({"form": {}});
    client.request_ok("initialize", params);
}

#[test]
fn a_server_s_elicitation_reaches_an_editor_that_shows_forms_and_is_declined_otherwise() {
    for forms in [true, false] {
        let mut client = warden(ALLOW_ALL);
        if forms {
            initialize_with_forms(&mut client);
        } else {
            client.initialize();
        }
        let cwd = client.process().project().display().to_string();
        let id = client.request_ok(
            "session/new",
            json!({"cwd": cwd, "mcpServers": [stdio("t", "good")]}),
        )["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        client.commands_update();
        client.on_request(|request| match request["method"].as_str() {
            Some("elicitation/create") => {
                Answer::Result(json!({"action": "accept", "content": {"name": "Ada"}}))
            }
            _ => Answer::Result(json!({"outcome": {"outcome": "cancelled"}})),
        });
        client.prompt(&id, &call("mcp__t__ask", json!({})));
        let (_, text) = last_result(&client);
        let asked: Vec<Value> = client
            .transcript()
            .iter()
            .filter_map(|e| e.message.clone())
            .filter(|m| m["method"] == "elicitation/create")
            .collect();
        if forms {
            assert_eq!(asked.len(), 1, "the form was shown: {text}");
            assert_eq!(
                asked[0]["params"]["message"], "MCP server `t` asks: Your name?",
                "{asked:?}"
            );
            assert!(
                text.contains("\"action\":\"accept\"") && text.contains("Ada"),
                "{text}"
            );
        } else {
            assert!(asked.is_empty(), "{asked:?}");
            assert!(!text.contains("Ada") && !text.contains("accept"), "{text}");
        }
    }
}

#[test]
fn cancelling_the_turn_cancels_a_hanging_mcp_call_and_keeps_the_server() {
    let mut client = warden(ALLOW_ALL);
    let session = session(&mut client, json!([stdio("t", "good")]));
    client.prompt(&session, &call("mcp__t__pid", json!({})));
    let (_, before) = last_result(&client);
    let id = client.send_prompt(&session, &call("mcp__t__hang", json!({})));
    client.wait_for("the hanging call to run", |m| {
        m["params"]["update"]["status"] == "in_progress"
    });
    client.notify("session/cancel", json!({"sessionId": session}));
    // The call timeout is 300 s: only the cancel can end this turn within the client's
    // wait.
    let response = client.response(&id);
    assert_eq!(response["result"]["stopReason"], "cancelled", "{response}");
    client.prompt(&session, &call("mcp__t__pid", json!({})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), before),
        "the same server process answers after the cancel"
    );
}
