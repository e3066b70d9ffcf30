//! `http_fetch {url, method?, body?}`: always High (it reaches the network); only http and https.

use super::args::{ArgError, Args};
use super::{Assessment, Unit};
use crate::{Risk, Sentence, ToolCall};

pub(super) fn assess(call: &ToolCall) -> Result<Assessment, ArgError> {
    let args = Args::new(&call.args, &["url", "method", "body"])?;
    let raw = args.string("url")?;
    let method = args
        .opt_string("method")?
        .unwrap_or("GET")
        .to_ascii_uppercase();
    args.opt_string("body")?;
    if !method.chars().all(|c| c.is_ascii_alphabetic()) || method.is_empty() {
        return Err(ArgError::Invalid(format!(
            "`{method}` is not an HTTP method"
        )));
    }
    let url = url::Url::parse(raw)
        .map_err(|e| ArgError::Invalid(format!("`{raw}` is not a valid URL ({e})")))?;
    // Other schemes (file:, ftp:, data:, javascript:) would read local files or
    // reach things the tool was never meant to; they are refused outright.
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ArgError::Invalid(format!(
            "only http and https URLs can be fetched, not `{}:`",
            url.scheme()
        )));
    }
    let Some(host) = url
        .host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
    else {
        return Err(ArgError::Invalid(format!("`{raw}` has no host")));
    };
    let reason = if method == "GET" {
        Sentence::new("engine-call-fetch").text("url", url.as_str())
    } else {
        Sentence::new("engine-call-send")
            .text("method", method.as_str())
            .text("url", url.as_str())
    };
    let unit = Unit {
        text: format!("{method} {url}"),
        risk: Risk::High,
        own_risk: None,
        reason: Sentence::new("engine-http-risk"),
        argv: Vec::new(),
        paths: Vec::new(),
        reads: Vec::new(),
        reads_below: false,
        writes_files: false,
        opaque: false,
        env: Vec::new(),
    };
    Ok(Assessment {
        reason,
        domain: Some(host),
        ..Assessment::single(unit)
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::assess;
    use crate::ToolCall;

    fn domain(url: &str) -> Option<String> {
        assess(&ToolCall::new("http_fetch", json!({ "url": url })))
            .expect("assessed")
            .domain
    }

    /// Rules and grants name a domain once, whatever way a URL spells it: an
    /// international name by its ASCII form, full-width letters and capitals as the
    /// plain lower-case letters they stand for (UTS 46, which `url` applies).
    #[test]
    fn a_domain_is_named_the_same_however_the_url_spells_it() {
        assert_eq!(
            domain("https://Bücher.Example/a").as_deref(),
            Some("xn--bcher-kva.example")
        );
        assert_eq!(
            domain("https://xn--bcher-kva.example/").as_deref(),
            Some("xn--bcher-kva.example")
        );
        assert_eq!(
            domain("https://\u{ff45}\u{ff58}\u{ff41}\u{ff4d}\u{ff50}\u{ff4c}\u{ff45}.COM./")
                .as_deref(),
            Some("example.com")
        );
    }
}
