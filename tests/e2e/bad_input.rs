//! Bad input from the client: each kind gets its specified error, nothing panics, and
//! the connection lives on (the next request still works).

use serde_json::{Value, json};

use super::support::{Client, Spawn, initialize_params};

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// The connection still serves requests after the bad input.
#[track_caller]
fn assert_alive(client: &mut Client) {
    let result = client.initialize();
    assert_eq!(result["protocolVersion"], json!(1), "{result}");
}

/// An error response with `id: null` (the agent could not read an id).
#[track_caller]
fn null_id_error(client: &mut Client, what: &str) -> Value {
    let response = client.wait_for(what, |message| {
        message.get("method").is_none() && message.get("id") == Some(&Value::Null)
    });
    response["error"].clone()
}

#[test]
fn malformed_json_gets_a_parse_error_with_null_id_and_the_connection_lives_on() {
    let mut client = Client::spawn();
    for line in [
        "{",
        "not json at all",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"initialize",}"#,
        "\u{fffd}\u{fffd}",
    ] {
        client.send_line(line);
        let error = null_id_error(&mut client, &format!("the parse error for {line:?}"));
        assert_eq!(error["code"], json!(PARSE_ERROR), "{line:?}: {error}");
        assert_alive(&mut client);
    }
}

/// Regression: invalid UTF-8 was decoded lossily, so the line was served as a request
/// for a method (or a path) the client never sent.
#[test]
fn invalid_utf8_is_a_parse_error_not_decoded_lossily() {
    let mut client = Client::spawn();
    client.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}\n");
    let error = null_id_error(&mut client, "the parse error for invalid UTF-8");
    assert_eq!(error["code"], json!(PARSE_ERROR), "{error}");
    assert_alive(&mut client);
}

#[test]
fn json_that_is_not_a_request_gets_invalid_request_and_the_connection_lives_on() {
    let mut client = Client::spawn();
    for line in ["42", r#""initialize""#, "[]", r#"{"jsonrpc":"2.0"}"#] {
        client.send_line(line);
        let error = null_id_error(
            &mut client,
            &format!("the invalid-request error for {line}"),
        );
        assert_eq!(error["code"], json!(INVALID_REQUEST), "{line}: {error}");
        assert_alive(&mut client);
    }
}

#[test]
fn wrong_params_get_invalid_params_with_the_detail() {
    let mut client = Client::spawn();
    client.initialize();
    let session = client.new_session();
    let cases = [
        ("initialize", json!({"protocolVersion": "one"})),
        ("initialize", json!([1, 2])),
        ("session/new", json!({"cwd": ["/"]})),
        (
            "session/prompt",
            json!({"sessionId": session, "prompt": "not a list"}),
        ),
        ("session/prompt", json!({"sessionId": session})),
        ("session/set_mode", json!({"sessionId": session})),
    ];
    for (method, params) in cases {
        let error = client.request_err(method, params.clone());
        assert_eq!(
            error["code"],
            json!(INVALID_PARAMS),
            "{method} {params}: {error}"
        );
        let detail = error.get("data").filter(|data| !data.is_null());
        assert!(
            detail.is_some(),
            "{method} {params}: -32602 without the detail of what is wrong: {error}"
        );
    }
    assert_alive(&mut client);
}

#[test]
fn unknown_method_gets_method_not_found() {
    let mut client = Client::spawn();
    client.initialize();
    for method in ["no/such_method", "session/fly", "_warden/unknown"] {
        let error = client.request_err(method, json!({}));
        assert_eq!(error["code"], json!(METHOD_NOT_FOUND), "{method}: {error}");
    }
    assert_alive(&mut client);
}

#[test]
fn unknown_notification_is_ignored_without_a_reply() {
    let mut client = Client::spawn();
    client.initialize();
    client.notify("no/such_notification", json!({"x": 1}));
    client.notify("_warden/unknown", json!({}));
    assert_alive(&mut client);
    assert!(client.finish().success());
    let replies = client.take_unclaimed();
    assert!(
        replies.is_empty(),
        "unknown notifications got replies: {replies:?}"
    );
}

/// An `initialize` request line of exactly `len` bytes (padding in the client name).
fn initialize_line_of(id: u64, len: usize) -> String {
    let mut params = initialize_params();
    params["clientInfo"]["name"] = json!("");
    let empty = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params});
    let padding = len - empty.to_string().len();
    params["clientInfo"]["name"] = json!("x".repeat(padding));
    let line =
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params}).to_string();
    assert_eq!(line.len(), len);
    line
}

#[test]
fn a_line_over_the_size_limit_is_refused_with_a_logged_reason() {
    let limit = 1024;
    let mut client =
        Client::spawn_with(&Spawn::default().env("WARDEN_MAX_LINE_BYTES", limit.to_string()));

    // Exactly at the limit: served.
    client.send_line(&initialize_line_of(1000, limit));
    let at_limit = client.response(&json!(1000));
    assert!(
        at_limit.get("result").is_some(),
        "a line of exactly the limit was refused: {at_limit}"
    );

    // One byte over, and far over: refused, logged, and the connection lives on.
    for (id, len) in [(1001, limit + 1), (1002, 64 * limit)] {
        client.send_line(&initialize_line_of(id, len));
        let error = null_id_error(&mut client, &format!("the refusal of a {len}-byte line"));
        assert_eq!(
            error["code"],
            json!(INVALID_REQUEST),
            "{len} bytes: {error}"
        );
        assert_alive(&mut client);
    }
    assert!(client.finish().success());
    let stderr = client.process().stderr();
    assert!(
        stderr.contains("limit") && stderr.contains(&limit.to_string()),
        "the refusal is not logged with its reason on stderr:\n{stderr}"
    );
}

#[test]
fn session_new_pipelined_before_the_initialize_reply_works_or_gets_a_clear_error() {
    let mut client = Client::spawn();
    let cwd = client.process().project().display().to_string();
    let initialize = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize_params()});
    let new_session = json!({"jsonrpc": "2.0", "id": "new", "method": "session/new",
        "params": {"cwd": cwd, "mcpServers": []}});
    client.send_raw(format!("{initialize}\n{new_session}\n").as_bytes());

    let initialized = client.response(&json!("init"));
    assert_eq!(
        initialized["result"]["protocolVersion"],
        json!(1),
        "{initialized}"
    );
    let created = client.response(&json!("new"));
    match (created.get("result"), created.get("error")) {
        (Some(result), None) => {
            let session = result["sessionId"].as_str().expect("a session id");
            let reply = client.prompt(session, "/say still here");
            assert_eq!(reply["stopReason"], json!("end_turn"));
        }
        (None, Some(error)) => {
            let message = error["message"].as_str().unwrap_or_default();
            assert!(message.len() > 10, "not a clear error: {created}");
            let session = client.new_session();
            assert!(!session.is_empty());
        }
        _ => client.fail(&format!(
            "a response with neither result nor error: {created}"
        )),
    }
}
