//! MCP servers over streamable HTTP: a small server in the test speaks the transport's
//! JSON answers (no event streams) over plain sockets, so that the test sees every
//! request Warden sends, its headers included, and can answer with a fixed status.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::{call, last_result, session, warden};

/// One request as the server read it: its method, its lower-cased headers and, for a
/// POST, its JSON-RPC method.
#[derive(Debug, Clone)]
struct Seen {
    http_method: String,
    headers: HashMap<String, String>,
    rpc_method: Option<String>,
}

/// A streamable HTTP MCP server on 127.0.0.1 with three tools: `echo` (answers its
/// `text`), `crash` (drops the connection without an answer, as a server that dies
/// mid-call does) and `hang` (never answers).
struct HttpServer {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl HttpServer {
    fn start() -> HttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = log.clone();
                std::thread::spawn(move || serve(stream, &log));
            }
        });
        HttpServer { url, seen }
    }

    fn entry(&self, name: &str, headers: Value) -> Value {
        json!({"type": "http", "name": name, "url": self.url, "headers": headers})
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn initializes(&self) -> usize {
        self.seen()
            .iter()
            .filter(|s| s.rpc_method.as_deref() == Some("initialize"))
            .count()
    }
}

/// Reads one request: the request line, the headers and a `Content-Length` body.
fn read_request(
    reader: &mut BufReader<TcpStream>,
) -> Option<(String, HashMap<String, String>, Vec<u8>)> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let method = line.split_whitespace().next()?.to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
    }
    let length = headers
        .get("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((method, headers, body))
}

fn respond(stream: &mut TcpStream, status: &str, extra: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        body.len()
    );
}

/// Answers one connection's one request (every answer closes the connection).
fn serve(stream: TcpStream, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut stream = stream;
    let Some((method, headers, body)) = read_request(&mut reader) else {
        return;
    };
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let rpc_method = message["method"].as_str().map(str::to_owned);
    log.lock().unwrap().push(Seen {
        http_method: method.clone(),
        headers: headers.clone(),
        rpc_method: rpc_method.clone(),
    });
    if method != "POST" {
        // No event stream for server-initiated messages, and nothing to delete.
        return respond(&mut stream, "405 Method Not Allowed", "", "");
    }
    let id = message["id"].clone();
    if id.is_null() {
        // A notification (or a response): accepted, nothing to answer.
        return respond(&mut stream, "202 Accepted", "", "");
    }
    let result = match rpc_method.as_deref() {
        Some("initialize") => json!({
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "http-test", "version": "1"},
        }),
        Some("tools/list") => json!({"tools": [
            {"name": "echo", "description": "Echoes `text`.",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
            {"name": "crash", "description": "Drops the connection.",
             "inputSchema": {"type": "object"}},
            {"name": "hang", "description": "Never answers.",
             "inputSchema": {"type": "object"}},
        ]}),
        Some("tools/call") if message["params"]["name"] == "crash" => return,
        // Hangs: holds the connection, unanswered, until Warden lets it go.
        Some("tools/call") if message["params"]["name"] == "hang" => {
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
            return;
        }
        Some("tools/call") => json!({
            "content": [{"type": "text", "text": message["params"]["arguments"]["text"]}],
        }),
        _ => {
            let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "unknown method"}});
            return respond(&mut stream, "200 OK", "", &error.to_string());
        }
    };
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    respond(
        &mut stream,
        "200 OK",
        "Mcp-Session-Id: session-1\r\n",
        &answer,
    );
}

/// A server that answers every request with `status`, the `extra` header lines and an
/// empty body; its URL.
fn fixed_status(status: &'static str, extra: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let extra = extra.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                if read_request(&mut reader).is_some() {
                    respond(&mut stream.try_clone().unwrap(), status, &extra, "");
                }
            });
        }
    });
    url
}

/// A URL on which nothing listens: the port was bound and let go.
fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    url
}

const ALLOW_WEB: &str = "[[rule]]\ntool = \"mcp__web__*\"\ndecision = \"allow\"\n";

#[test]
fn an_http_server_s_tool_runs_with_the_editor_s_headers_on_every_request() {
    let server = HttpServer::start();
    let mut client = warden(ALLOW_WEB);
    let headers = json!([
        {"name": "Authorization", "value": "Bearer team-token-1"},
        {"name": "X-Team", "value": "blue"},
    ]);
    let session = session(&mut client, json!([server.entry("web", headers)]));
    client.prompt(
        &session,
        &call("mcp__web__echo", json!({"text": "over http"})),
    );
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "over http".to_owned())
    );
    let posts: Vec<Seen> = server
        .seen()
        .into_iter()
        .filter(|s| s.http_method == "POST")
        .collect();
    let methods: Vec<&str> = posts
        .iter()
        .filter_map(|s| s.rpc_method.as_deref())
        .collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
    for seen in &server.seen() {
        assert_eq!(
            seen.headers.get("authorization").map(String::as_str),
            Some("Bearer team-token-1"),
            "{seen:?}"
        );
        assert_eq!(
            seen.headers.get("x-team").map(String::as_str),
            Some("blue"),
            "{seen:?}"
        );
    }
}

#[test]
fn an_http_server_that_drops_a_call_fails_it_and_the_next_call_connects_again() {
    let server = HttpServer::start();
    let mut client = warden(ALLOW_WEB);
    let session = session(&mut client, json!([server.entry("web", json!([]))]));
    assert_eq!(server.initializes(), 1);
    client.prompt(&session, &call("mcp__web__crash", json!({})));
    let (status, text) = last_result(&client);
    assert_eq!(status, "failed");
    assert!(text.contains("MCP server `web`"), "{text}");
    client.prompt(&session, &call("mcp__web__echo", json!({"text": "again"})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "again".to_owned())
    );
    assert_eq!(server.initializes(), 2, "the next call connected anew");
}

#[test]
fn a_hung_http_call_fails_after_the_call_timeout_and_the_next_call_connects_again() {
    let server = HttpServer::start();
    let mut client = warden(&format!("mcp_call_timeout_secs = 1\n{ALLOW_WEB}"));
    let session = session(&mut client, json!([server.entry("web", json!([]))]));
    client.prompt(&session, &call("mcp__web__hang", json!({})));
    let (status, text) = last_result(&client);
    assert_eq!(status, "failed");
    assert!(
        text.contains("MCP server `web` did not answer within 1 s"),
        "{text}"
    );
    client.prompt(&session, &call("mcp__web__echo", json!({"text": "back"})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "back".to_owned())
    );
    assert_eq!(server.initializes(), 2, "the next call connected anew");
}

#[test]
fn http_servers_that_refuse_are_named_to_the_user_and_the_session_lives() {
    let server = HttpServer::start();
    let mut client =
        warden("mcp_connect_timeout_secs = 5\n[[rule]]\ntool = \"mcp__*\"\ndecision = \"allow\"\n");
    let http =
        |name: &str, url: &str| json!({"type": "http", "name": name, "url": url, "headers": []});
    // A redirect to another server would carry the editor's credentials to it.
    let moved = fixed_status(
        "307 Temporary Redirect",
        format!("Location: {}\r\n", server.url),
    );
    let secret = json!([{"name": "Authorization", "value": "Bearer not-for-others"}]);
    let session = session(
        &mut client,
        json!([
            http("locked", &fixed_status("401 Unauthorized", String::new())),
            http("broken", &fixed_status("500 Internal Server Error", String::new())),
            http("closed", &closed_port()),
            http("notweb", "file:///etc/passwd"),
            {"type": "http", "name": "reserved", "url": server.url, "headers": [{"name": "Accept", "value": "*/*"}]},
            {"type": "http", "name": "moved", "url": moved, "headers": secret},
            server.entry("web", json!([])),
        ]),
    );
    let result = client.prompt(&session, "/say still here");
    assert_eq!(result["stopReason"], "end_turn");
    let text = client.agent_text();
    for expected in [
        "MCP server `locked` was not started",
        "401",
        "MCP server `broken` was not started",
        "500",
        "MCP server `closed` was not started",
        "Connection refused",
        "MCP server `notweb` was not started",
        "only http and https URLs are spoken to",
        "MCP server `reserved` was not started",
        "its HTTP header `Accept` cannot be sent",
        "MCP server `moved` was not started",
        "307",
        "still here",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(!text.contains("MCP server `web` was not started"), "{text}");
    assert!(
        server
            .seen()
            .iter()
            .all(|s| !s.headers.contains_key("authorization")),
        "the redirect was followed: {:?}",
        server.seen()
    );
    client.prompt(&session, &call("mcp__web__echo", json!({"text": "alive"})));
    assert_eq!(
        last_result(&client),
        ("completed".to_owned(), "alive".to_owned())
    );
}
