//! `http_fetch`: one HTTP(S) request with a timeout, a body size limit and redirects followed
//! only within the same host.

use std::error::Error as _;

use serde_json::json;

use super::{ExecContext, ToolOutput};
use crate::call::{HttpFetchArgs, HttpMethod};

const TOOL: &str = "http_fetch";

/// Whether a redirect from `from` to `to` stays on the same site: same host and port, and the
/// same scheme or an upgrade from http to https.
fn same_site(from: &reqwest::Url, to: &reqwest::Url) -> bool {
    let scheme_ok =
        from.scheme() == to.scheme() || (from.scheme() == "http" && to.scheme() == "https");
    let port_ok = from.port_or_known_default() == to.port_or_known_default()
        || (from.scheme() == "http" && to.scheme() == "https" && to.port().is_none());
    scheme_ok && port_ok && from.host_str() == to.host_str()
}

fn client(max_redirects: usize) -> reqwest::Result<reqwest::Client> {
    // A redirect to another host would escape the policy decision, which was taken for the
    // original URL's domain; it is returned to the model, which can fetch the new URL as a new,
    // separately evaluated call.
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        let Some(first) = attempt.previous().first().cloned() else {
            return attempt.stop();
        };
        if attempt.previous().len() > max_redirects || !same_site(&first, attempt.url()) {
            attempt.stop()
        } else {
            attempt.follow()
        }
    });
    warden_http::http_client().redirect(policy).build()
}

/// The error and its causes, e.g. "could not connect: ...: Connection refused".
fn describe(err: &reqwest::Error, timeout: std::time::Duration) -> String {
    if err.is_timeout() {
        return match timeout.subsec_millis() {
            0 => format!("timed out after {} s", timeout.as_secs()),
            _ => format!("timed out after {} ms", timeout.as_millis()),
        };
    }
    let mut text = if err.is_connect() {
        "could not connect".to_owned()
    } else {
        err.to_string()
    };
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

fn is_text(content_type: &str) -> bool {
    let ct = content_type.to_ascii_lowercase();
    ct.starts_with("text/")
        || [
            "json",
            "xml",
            "javascript",
            "x-www-form-urlencoded",
            "yaml",
            "toml",
            "csv",
        ]
        .iter()
        .any(|t| ct.contains(t))
}

pub(crate) async fn fetch(args: &HttpFetchArgs, cx: &ExecContext<'_>) -> ToolOutput {
    let limits = &cx.limits;
    let client = match client(limits.http_max_redirects) {
        Ok(client) => client,
        Err(err) => {
            return ToolOutput::failed(
                TOOL,
                format!(
                    "could not set up HTTP: {}",
                    describe(&err, limits.http_timeout)
                ),
            );
        }
    };
    let request = request(&client, args, limits.http_timeout);
    let mut response = match request.send().await {
        Ok(response) => response,
        Err(err) => {
            return ToolOutput::failed(
                TOOL,
                format!(
                    "{} {}: {}",
                    args.method,
                    args.url,
                    describe(&err, limits.http_timeout)
                ),
            );
        }
    };
    let status = response.status();
    let final_url = response.url().to_string();
    let header = |name: reqwest::header::HeaderName| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type = header(reqwest::header::CONTENT_TYPE);
    let location = header(reqwest::header::LOCATION);

    let max = limits.http_max_bytes;
    let (body, truncated) = match read_body(&mut response, max).await {
        Ok(read) => read,
        Err(err) => {
            return ToolOutput::failed(
                TOOL,
                format!(
                    "{} {}: reading the body after HTTP {status}: {}",
                    args.method,
                    args.url,
                    describe(&err, limits.http_timeout)
                ),
            );
        }
    };

    let mut text = format!("HTTP {status}");
    let asked = reqwest::Url::parse(&args.url).map(String::from);
    if asked.as_deref() != Ok(final_url.as_str()) {
        text.push_str(&format!("\nURL: {final_url} (after redirects)"));
    }
    if let Some(ct) = &content_type {
        text.push_str(&format!("\nContent-Type: {ct}"));
    }
    if status.is_redirection()
        && let Some(location) = &location
    {
        text.push_str(&format!(
            "\nLocation: {location}\n[http_fetch: this redirect was not followed (another host, or too many redirects); fetch the new URL to follow it]"
        ));
    }
    describe_body(&mut text, &body, content_type.as_deref(), truncated, max);
    let raw = json!({
        "status": status.as_u16(),
        "url": final_url,
        "content_type": content_type,
        "location": location,
        "bytes": body.len(),
        "truncated": truncated,
    });
    let mut out = ToolOutput::completed(text, raw);
    out.ok = !(status.is_client_error() || status.is_server_error());
    out
}

/// The request for the call: its method, and its body labelled by what it holds.
fn request(
    client: &reqwest::Client,
    args: &HttpFetchArgs,
    timeout: std::time::Duration,
) -> reqwest::RequestBuilder {
    let method = match args.method {
        HttpMethod::Get => reqwest::Method::GET,
        HttpMethod::Head => reqwest::Method::HEAD,
        HttpMethod::Post => reqwest::Method::POST,
        HttpMethod::Put => reqwest::Method::PUT,
        HttpMethod::Patch => reqwest::Method::PATCH,
        HttpMethod::Delete => reqwest::Method::DELETE,
    };
    let mut request = client.request(method, &args.url).timeout(timeout);
    if let Some(body) = &args.body {
        // Models mostly send JSON to APIs; label it so, and anything else as plain text.
        let content_type = if serde_json::from_str::<serde_json::Value>(body).is_ok() {
            "application/json"
        } else {
            "text/plain; charset=utf-8"
        };
        request = request
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(body.clone());
    }
    request
}

/// The body, up to `max` bytes, and whether there was more.
async fn read_body(
    response: &mut reqwest::Response,
    max: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = max - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// Appends the body to the model's text: as text when it is text (with a note when it
/// was cut), as its size otherwise.
fn describe_body(
    text: &mut String,
    body: &[u8],
    content_type: Option<&str>,
    truncated: bool,
    max: usize,
) {
    let textual = match content_type {
        Some(ct) => is_text(ct),
        None => std::str::from_utf8(body).is_ok(),
    };
    if body.is_empty() {
        text.push_str("\n\n(empty body)");
    } else if textual {
        text.push_str("\n\n");
        text.push_str(&String::from_utf8_lossy(body));
        if truncated {
            text.push_str(&format!("\n[http_fetch: the body was cut at {max} bytes]"));
        }
    } else {
        let more = if truncated { " or more" } else { "" };
        text.push_str(&format!(
            "\n\n(binary body of {} bytes{more}, not shown)",
            body.len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::same_site;

    fn check(from: &str, to: &str, expect: bool) {
        let from = reqwest::Url::parse(from).expect("url");
        let to = reqwest::Url::parse(to).expect("url");
        assert_eq!(same_site(&from, &to), expect, "{from} -> {to}");
    }

    #[test]
    fn redirects_stay_on_the_same_host() {
        check("https://docs.rs/a", "https://docs.rs/b", true);
        check("http://docs.rs/a", "https://docs.rs/b", true);
        check("https://docs.rs/a", "http://docs.rs/b", false);
        check("https://docs.rs/a", "https://evil.example/b", false);
        check("https://docs.rs/a", "https://sub.docs.rs/b", false);
        check("http://127.0.0.1:8080/a", "http://127.0.0.1:9090/b", false);
        check("http://127.0.0.1:8080/a", "http://localhost:8080/b", false);
    }
}
