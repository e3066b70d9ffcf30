//! A tiny HTTP/1.1 server on 127.0.0.1 that answers Chat Completions requests with scripted
//! replies, speaking real server-sent events.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `200 text/event-stream`, the pieces written one by one, then the connection closes.
    Sse(Vec<String>),
    /// Another status with a body and extra headers.
    Status {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// `200 text/event-stream` and the pieces, then nothing more until the client hangs up.
    Stall(Vec<String>),
    /// Reads the request and never answers.
    Hang,
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub authorization: Option<String>,
    pub body: serde_json::Value,
}

/// The running server. The last reply repeats for any further request.
pub struct Server {
    addr: std::net::SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    disconnected: Arc<Notify>,
}

impl Server {
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

    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }

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
