//! The streamable HTTP transport of a server the editor names by URL.

use std::collections::HashMap;
use std::error::Error;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::service::ClientInitializeError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};

use crate::config::ConnectError;

/// Headers the transport sets itself; an editor's value for one of them would be
/// refused by the SDK on every request, so it is refused once, by name, up front.
const RESERVED: &[&str] = &[
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// The transport for `url`, sending `headers` with every request as the editor gave
/// them. `max_message` bounds one JSON answer or event, as the longest line does for a
/// stdio server.
pub(crate) fn transport(
    url: &str,
    headers: &[(String, String)],
    max_message: usize,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, ConnectError> {
    let bad_url = |reason: &str| ConnectError::Url {
        url: url.to_owned(),
        reason: reason.to_owned(),
    };
    let parsed = reqwest::Url::parse(url).map_err(|err| bad_url(&err.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad_url("only http and https URLs are spoken to"));
    }
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let bad = |reason: String| ConnectError::Header {
            name: name.clone(),
            reason,
        };
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(e.to_string()))?;
        if RESERVED.contains(&header.as_str()) {
            return Err(bad("the MCP transport sets it itself".to_owned()));
        }
        let value = HeaderValue::from_str(value).map_err(|e| bad(e.to_string()))?;
        // Two values under one name would reach the server as one of them only.
        if custom.insert(header, value).is_some() {
            return Err(bad("the editor gave it twice".to_owned()));
        }
    }
    // The server's identity is its URL: a redirect elsewhere would carry the editor's
    // headers (its credentials) to a server nobody named, so none is followed.
    let client = warden_http::http_client()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(ConnectError::HttpClient)?;
    let config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(custom)
        .max_json_response_size(max_message)
        .max_sse_event_size(max_message);
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// Why the handshake failed, in words: for a transport error, the transport's own
/// error and its causes ("HTTP 401 Unauthorized", "... Connection refused") rather than
/// the SDK's wrapper, which names the transport's Rust type.
pub(crate) fn describe(err: &ClientInitializeError) -> String {
    let ClientInitializeError::TransportError { error, .. } = err else {
        return err.to_string();
    };
    // The SDK's HTTP error does not give its client error as a source, so the causes
    // are read from the client error itself.
    match error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        Some(StreamableHttpError::Client(client)) => with_causes(client),
        _ => with_causes(error.error.as_ref()),
    }
}

/// An error and its causes, each said once.
fn with_causes(err: &(dyn Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    fn check(url: &str, headers: &[(&str, &str)], expect: Expect) {
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        let shown = match super::transport(url, &headers, 1024) {
            Ok(_) => "ok".to_owned(),
            Err(err) => err.to_string(),
        };
        expect.assert_eq(&shown);
    }

    #[tokio::test]
    async fn urls_and_headers_are_checked_before_any_request() {
        let url = "http://127.0.0.1:9/mcp";
        check(url, &[], expect!["ok"]);
        check(
            "https://mcp.example.com/mcp",
            &[("Authorization", "Bearer x")],
            expect!["ok"],
        );
        check(
            "file:///etc/passwd",
            &[],
            expect![
                "its URL `file:///etc/passwd` cannot be used: only http and https URLs are spoken to"
            ],
        );
        check(
            "not a url",
            &[],
            expect!["its URL `not a url` cannot be used: relative URL without a base"],
        );
        check(
            url,
            &[("Accept", "*/*")],
            expect!["its HTTP header `Accept` cannot be sent: the MCP transport sets it itself"],
        );
        check(
            url,
            &[("mcp-session-id", "s")],
            expect![
                "its HTTP header `mcp-session-id` cannot be sent: the MCP transport sets it itself"
            ],
        );
        check(
            url,
            &[("X-A", "1"), ("x-a", "2")],
            expect!["its HTTP header `x-a` cannot be sent: the editor gave it twice"],
        );
        check(
            url,
            &[("bad name", "1")],
            expect!["its HTTP header `bad name` cannot be sent: invalid HTTP header name"],
        );
        check(
            url,
            &[("X-A", "line\nbreak")],
            expect!["its HTTP header `X-A` cannot be sent: failed to parse header value"],
        );
    }
}
