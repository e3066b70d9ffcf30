//! A small OTLP/HTTP receiver for tests (feature `test-support`): it accepts
//! `POST /v1/traces` on a local port, decodes each protobuf body with the official
//! `opentelemetry-proto` types, and keeps the spans and the raw bodies.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use prost::Message;

/// A span as received: its name and its attributes as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedSpan {
    pub name: String,
    pub attributes: BTreeMap<String, String>,
}

#[derive(Debug, Default)]
struct Received {
    spans: Vec<ReceivedSpan>,
    bodies: Vec<Vec<u8>>,
}

/// The running receiver; dropping it stops it.
#[derive(Debug)]
pub struct OtlpReceiver {
    addr: SocketAddr,
    received: Arc<Mutex<Received>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl OtlpReceiver {
    /// Listens on a free local port.
    pub fn start() -> std::io::Result<OtlpReceiver> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let received = Arc::new(Mutex::new(Received::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let received = Arc::clone(&received);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        let received = Arc::clone(&received);
                        std::thread::spawn(move || serve(stream, &received));
                    }
                }
            })
        };
        Ok(OtlpReceiver {
            addr,
            received,
            stop,
            thread: Some(thread),
        })
    }

    /// The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The spans received so far, once there are at least `count` or `limit` has
    /// passed (whichever comes first; the caller asserts on what it got).
    pub fn spans(&self, count: usize, limit: Duration) -> Vec<ReceivedSpan> {
        let start = Instant::now();
        loop {
            let spans = lock(&self.received).spans.clone();
            if spans.len() >= count || start.elapsed() >= limit {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every request body received, as sent.
    pub fn bodies(&self) -> Vec<Vec<u8>> {
        lock(&self.received).bodies.clone()
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wakes the accepting thread so that it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock(received: &Mutex<Received>) -> MutexGuard<'_, Received> {
    received.lock().unwrap_or_else(|p| p.into_inner())
}

/// Answers every request on one connection (the exporter keeps it alive).
fn serve(stream: TcpStream, received: &Mutex<Received>) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(body) = read_request(&mut reader) {
        if let Ok(request) = ExportTraceServiceRequest::decode(body.as_slice()) {
            let mut received = lock(received);
            received.spans.extend(spans_of(&request));
            received.bodies.push(body);
        }
        let answer =
            b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
        if writer.write_all(answer).is_err() {
            return;
        }
    }
}

/// One request's body, by its `content-length`; `None` at the end of the connection.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut length = 0usize;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        if let Some((name, value)) = trimmed.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

fn spans_of(request: &ExportTraceServiceRequest) -> Vec<ReceivedSpan> {
    let spans = request
        .resource_spans
        .iter()
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans);
    spans
        .map(|span| ReceivedSpan {
            name: span.name.clone(),
            attributes: span
                .attributes
                .iter()
                .map(|kv| {
                    let value = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                        Some(Value::StringValue(s)) => s.clone(),
                        Some(other) => format!("{other:?}"),
                        None => String::new(),
                    };
                    (kv.key.clone(), value)
                })
                .collect(),
        })
        .collect()
}
