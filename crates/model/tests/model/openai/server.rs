//! A tiny HTTP/1.1 server on 127.0.0.1 that answers Chat Completions requests with scripted
//! replies, speaking real server-sent events, and helpers to write those events.
//!
//! This file is shared: the crate's own tests include it, and other crates' tests reach it as
//! `warden_model::testing` with the `test-support` feature.

// Test support: a failure to bind or a poisoned lock is a failed test, so it panics.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// One `data:` event.
pub fn data(value: Value) -> String {
    format!("data: {value}\n\n")
}

/// The stream's end marker.
pub fn done() -> String {
    "data: [DONE]\n\n".to_owned()
}

/// A chunk carrying a piece of the reply's text.
pub fn text_chunk(text: &str) -> String {
    data(json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}))
}

/// A chunk carrying the finish reason (`stop`, `tool_calls`, `length`, ...).
pub fn finish(reason: &str) -> String {
    data(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}))
}

/// A chunk carrying one tool-call delta: `id` and `name` come with a call's first delta,
/// `arguments` is a piece of the arguments' JSON text.
pub fn call_delta(index: u32, id: Option<&str>, name: Option<&str>, arguments: &str) -> String {
    let mut call = json!({"index": index, "function": {"arguments": arguments}});
    if let Some(id) = id {
        call["id"] = json!(id);
        call["type"] = json!("function");
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    data(json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `200 text/event-stream`, the pieces written one by one, then the connection closes.
    Sse(Vec<String>),
    /// Another status with a body and extra headers.
    Status {
        /// The HTTP status.
        status: u16,
        /// Extra headers, e.g. `retry-after`.
        headers: Vec<(&'static str, String)>,
        /// The body, sent as `application/json`.
        body: String,
    },
    /// `200 text/event-stream` and the pieces, then nothing more until the client hangs up.
    Stall(Vec<String>),
    /// Reads the request and never answers.
    Hang,
    /// Like [`Reply::Sse`] after waiting this long: a slow model, for tests of what a
    /// client shows meanwhile (never for assertions on time).
    Late(Duration, Vec<String>),
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The request path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// The JSON body.
    pub body: serde_json::Value,
}

/// The running server. The last reply repeats for any further request.
#[derive(Debug)]
pub struct Server {
    addr: std::net::SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    disconnected: Arc<Notify>,
}

impl Server {
    /// Starts serving `replies` in order, one per request; the last repeats.
    pub async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let disconnected = Arc::new(Notify::new());
        let server = Server {
            addr,
            requests: Arc::clone(&requests),
            disconnected: Arc::clone(&disconnected),
        };
        tokio::spawn(async move {
            let mut served = 0;
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let reply = replies[served.min(replies.len() - 1)].clone();
                served += 1;
                let requests = Arc::clone(&requests);
                let disconnected = Arc::clone(&disconnected);
                tokio::spawn(serve(socket, reply, requests, disconnected));
            }
        });
        server
    }

    /// The base URL to configure, ending in `/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("lock").clone()
    }

    /// Waits until a client hangs up on a [`Reply::Stall`]; `false` if that did not happen
    /// within 20 s (a bound against hanging the test, not a timing assertion).
    pub async fn saw_disconnect(&self) -> bool {
        tokio::time::timeout(Duration::from_secs(20), self.disconnected.notified())
            .await
            .is_ok()
    }
}

async fn serve(
    mut socket: TcpStream,
    reply: Reply,
    requests: Arc<Mutex<Vec<Recorded>>>,
    disconnected: Arc<Notify>,
) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    requests.lock().expect("lock").push(request);
    let sse_head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    match reply {
        Reply::Sse(pieces) => {
            let _ = write_pieces(&mut socket, sse_head, &pieces).await;
            let _ = socket.shutdown().await;
        }
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} Status\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = write_pieces(&mut socket, &head, &[body]).await;
            let _ = socket.shutdown().await;
        }
        Reply::Stall(pieces) => {
            if write_pieces(&mut socket, sse_head, &pieces).await.is_ok() {
                // Wait for the client to hang up: a read returns end-of-file or an error.
                let mut buffer = [0u8; 1024];
                loop {
                    match socket.read(&mut buffer).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
            }
            disconnected.notify_one();
        }
        Reply::Late(wait, pieces) => {
            tokio::time::sleep(wait).await;
            let _ = write_pieces(&mut socket, sse_head, &pieces).await;
            let _ = socket.shutdown().await;
        }
        Reply::Hang => {
            let mut buffer = [0u8; 1024];
            while let Ok(n) = socket.read(&mut buffer).await {
                if n == 0 {
                    break;
                }
            }
        }
    }
}

async fn write_pieces(
    socket: &mut TcpStream,
    head: &str,
    pieces: &[String],
) -> std::io::Result<()> {
    socket.write_all(head.as_bytes()).await?;
    socket.flush().await?;
    for piece in pieces {
        socket.write_all(piece.as_bytes()).await?;
        socket.flush().await?;
        // Gives the client a chance to read each piece on its own, so that events split
        // across reads are exercised.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    Ok(())
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut data = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut buffer).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buffer[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.lines();
    let path = lines.next()?.split_whitespace().nth(1)?.to_owned();
    let mut length = 0;
    let mut authorization = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().ok()?,
                "authorization" => authorization = Some(value.trim().to_owned()),
                _ => {}
            }
        }
    }
    while data.len() < head_end + length {
        let n = socket.read(&mut buffer).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buffer[..n]);
    }
    let body = serde_json::from_slice(&data[head_end..head_end + length]).ok()?;
    Some(Recorded {
        path,
        authorization,
        body,
    })
}
