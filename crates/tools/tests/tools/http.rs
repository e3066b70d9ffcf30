//! `http_fetch` against a small HTTP server on 127.0.0.1 (no network).

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// Notified by the test server once it has started the `/stalls` answer.
static STALLED: Notify = Notify::const_new();
use warden_tools::{Limits, ToolOutput};

use super::support::{run_full, workspace};

/// Starts the server and returns its base URL, `http://127.0.0.1:PORT`.
async fn server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream, port));
        }
    });
    format!("http://127.0.0.1:{port}")
}

async fn serve(mut stream: TcpStream, port: u16) {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        let Ok(n) = stream.read(&mut buf).await else {
            return;
        };
        if n == 0 {
            return;
        }
        request.extend_from_slice(&buf[..n]);
        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&request[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    while request.len() < head_end + length {
        let Ok(n) = stream.read(&mut buf).await else {
            return;
        };
        if n == 0 {
            break;
        }
        request.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&request[head_end..]).into_owned();
    let mut first = head.lines().next().unwrap_or("").split(' ');
    let (method, path) = (first.next().unwrap_or(""), first.next().unwrap_or(""));
    let content_type = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type:")
                .map(|v| v.trim().to_owned())
        })
        .unwrap_or_default();
    let reply = |status: &str, headers: &str, body: &[u8]| {
        let mut out = format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
            body.len()
        )
        .into_bytes();
        out.extend_from_slice(body);
        out
    };
    let response = match path {
        "/hello" => reply("200 OK", "Content-Type: text/plain\r\n", b"hello"),
        "/echo" => reply(
            "200 OK",
            "Content-Type: text/plain\r\n",
            format!("{method} {content_type} {body}").as_bytes(),
        ),
        "/big" => reply("200 OK", "Content-Type: text/plain\r\n", &[b'a'; 10_000]),
        "/missing" => reply("404 Not Found", "Content-Type: text/plain\r\n", b"nope"),
        "/bin" => reply(
            "200 OK",
            "Content-Type: application/octet-stream\r\n",
            &[0, 1, 2, 255],
        ),
        "/same" => reply("302 Found", "Location: /hello\r\n", b""),
        "/other" => reply(
            "302 Found",
            &format!("Location: http://localhost:{port}/hello\r\n"),
            b"",
        ),
        "/loop" => reply("302 Found", "Location: /loop\r\n", b""),
        "/slow" => {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nstart")
                .await;
            tokio::time::sleep(Duration::from_secs(30)).await;
            return;
        }
        // Like `/slow`, and tells the test that the fetch is under way.
        "/stalls" => {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nstart")
                .await;
            STALLED.notify_one();
            tokio::time::sleep(Duration::from_secs(30)).await;
            return;
        }
        "/endless" => {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000000\r\n\r\n").await;
            let chunk = [b'z'; 4096];
            while stream.write_all(&chunk).await.is_ok() {}
            return;
        }
        _ => reply("500 Internal Server Error", "", b""),
    };
    let _ = stream.write_all(&response).await;
}

async fn fetch_with(
    limits: Limits,
    cancel: CancellationToken,
    args: serde_json::Value,
) -> ToolOutput {
    let dir = workspace();
    run_full(
        dir.path(),
        None,
        limits,
        cancel,
        &|_| {},
        "http_fetch",
        args,
    )
    .await
}

async fn fetch(args: serde_json::Value) -> ToolOutput {
    fetch_with(Limits::default(), CancellationToken::new(), args).await
}

#[tokio::test]
async fn get_returns_status_content_type_and_text() {
    let base = server().await;
    let out = fetch(json!({"url": format!("{base}/hello")})).await;
    assert!(out.ok, "{}", out.for_model);
    assert_eq!(
        out.for_model,
        "HTTP 200 OK\nContent-Type: text/plain\n\nhello"
    );
    assert_eq!(out.raw_output["status"], 200);
    let out = fetch(json!({"url": format!("{base}/missing")})).await;
    assert!(!out.ok);
    assert_eq!(
        out.for_model,
        "HTTP 404 Not Found\nContent-Type: text/plain\n\nnope"
    );
}

#[tokio::test]
async fn post_sends_the_body_labelled_json_or_text() {
    let base = server().await;
    let out =
        fetch(json!({"url": format!("{base}/echo"), "method": "POST", "body": "{\"a\":1}"})).await;
    assert!(
        out.for_model
            .ends_with("\n\nPOST application/json {\"a\":1}"),
        "{}",
        out.for_model
    );
    let out = fetch(json!({"url": format!("{base}/echo"), "method": "put", "body": "plain"})).await;
    assert!(
        out.for_model
            .ends_with("\n\nPUT text/plain; charset=utf-8 plain"),
        "{}",
        out.for_model
    );
}

#[tokio::test]
async fn large_bodies_are_cut_at_the_limit() {
    let base = server().await;
    let limits = Limits {
        http_max_bytes: 100,
        ..Limits::default()
    };
    let out = fetch_with(
        limits.clone(),
        CancellationToken::new(),
        json!({"url": format!("{base}/big")}),
    )
    .await;
    assert!(out.ok);
    assert!(
        out.for_model.ends_with(&format!(
            "\n\n{}\n[http_fetch: the body was cut at 100 bytes]",
            "a".repeat(100)
        )),
        "{}",
        out.for_model
    );
    assert_eq!(out.raw_output["truncated"], true);
    // A body that never ends is cut too: the limit stops the reading, not the server.
    let out = fetch_with(
        limits,
        CancellationToken::new(),
        json!({"url": format!("{base}/endless")}),
    )
    .await;
    assert_eq!(out.raw_output["bytes"], 100);
    assert_eq!(out.raw_output["truncated"], true);
}

#[tokio::test]
async fn binary_bodies_are_not_shown() {
    let base = server().await;
    let out = fetch(json!({"url": format!("{base}/bin")})).await;
    assert_eq!(
        out.for_model,
        "HTTP 200 OK\nContent-Type: application/octet-stream\n\n(binary body of 4 bytes, not shown)"
    );
}

#[tokio::test]
async fn redirects_are_followed_only_on_the_same_host() {
    let base = server().await;
    let out = fetch(json!({"url": format!("{base}/same")})).await;
    assert!(out.ok);
    assert_eq!(
        out.for_model,
        format!(
            "HTTP 200 OK\nURL: {base}/hello (after redirects)\nContent-Type: text/plain\n\nhello"
        )
    );
    let out = fetch(json!({"url": format!("{base}/other")})).await;
    assert_eq!(out.raw_output["status"], 302);
    assert!(
        out.for_model.contains("this redirect was not followed"),
        "{}",
        out.for_model
    );
    assert!(
        out.for_model.contains("Location: http://localhost:"),
        "{}",
        out.for_model
    );
    let out = fetch(json!({"url": format!("{base}/loop")})).await;
    assert_eq!(out.raw_output["status"], 302);
    assert!(
        out.for_model.contains("this redirect was not followed"),
        "{}",
        out.for_model
    );
}

#[tokio::test]
async fn a_slow_server_times_out() {
    let base = server().await;
    let limits = Limits {
        http_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let out = fetch_with(
        limits,
        CancellationToken::new(),
        json!({"url": format!("{base}/slow")}),
    )
    .await;
    assert!(!out.ok);
    assert!(
        out.for_model.ends_with("timed out after 300 ms"),
        "{}",
        out.for_model
    );
}

#[tokio::test]
async fn cancel_stops_a_fetch() {
    let base = server().await;
    let cancel = CancellationToken::new();
    let later = cancel.clone();
    // Cancelled once the server has started the answer, so the fetch is in flight: a
    // hook, not a guess at how long that takes.
    tokio::spawn(async move {
        STALLED.notified().await;
        later.cancel();
    });
    let out = fetch_with(
        Limits::default(),
        cancel,
        json!({"url": format!("{base}/stalls")}),
    )
    .await;
    assert!(!out.ok);
    assert_eq!(out.for_model, "http_fetch: cancelled");
    assert_eq!(out.raw_output["cancelled"], true);
}

#[tokio::test]
async fn a_closed_port_is_a_clear_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let out = fetch(json!({"url": format!("http://127.0.0.1:{port}/")})).await;
    assert!(!out.ok);
    assert!(
        out.for_model.starts_with(&format!(
            "http_fetch: GET http://127.0.0.1:{port}/: could not connect"
        )),
        "{}",
        out.for_model
    );
}
