//! A permission request as the chat reads it: the protocol's request and Warden's
//! `_meta.warden` extension, read once through the transport's typed
//! [`RequestExtension`]. An extension that is there but cannot be read counts as a
//! Critical rating: a malformed request is never approved on its strength.

use agent_client_protocol::v1::schema::RequestPermissionRequest;
use warden_acp_transport::{RequestExtension, RiskMark, extension};
use warden_i18n::{Args, Catalog};
use warden_verdict::Risk;

use crate::clean::clean;

/// What Warden's extension says about a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Marks {
    /// No extension: another agent, whose risk is unknown.
    None,
    /// Warden's extension, read.
    Read(Box<RequestExtension>),
    /// An extension that does not have the expected shape.
    Unreadable,
}

impl Marks {
    pub fn of(request: &RequestPermissionRequest) -> Marks {
        match RequestExtension::read(request.meta.as_ref()) {
            Ok(None) => Marks::None,
            // A `risk` that is there but null reads as none: it is unreadable, not absent.
            Ok(Some(ext))
                if ext.risk.is_none()
                    && extension(request.meta.as_ref())
                        .is_some_and(|v| v.get("risk").is_some()) =>
            {
                Marks::Unreadable
            }
            Ok(Some(ext)) => Marks::Read(Box::new(ext)),
            Err(err) => {
                tracing::warn!(%err, "a permission request's _meta.warden cannot be read");
                Marks::Unreadable
            }
        }
    }

    fn ext(&self) -> Option<&RequestExtension> {
        match self {
            Marks::Read(ext) => Some(ext),
            _ => None,
        }
    }

    /// The risk the agent gives; `None` when it gives none.
    pub fn risk(&self) -> Option<Risk> {
        match self {
            Marks::None => None,
            Marks::Unreadable => Some(Risk::Critical),
            Marks::Read(ext) => ext.risk.as_ref().map(RiskMark::or_critical),
        }
    }

    /// Whether the agent marks the call Critical (an unreadable rating counts).
    pub fn critical(&self) -> bool {
        self.risk() == Some(Risk::Critical)
    }

    /// The reason in words, as the agent sent it.
    pub fn reason(&self) -> Option<&str> {
        self.ext().and_then(|ext| ext.reason.as_deref())
    }
}

/// Whether the agent marks `request` Critical.
pub fn marked_critical(request: &RequestPermissionRequest) -> bool {
    Marks::of(request).critical()
}

/// The server a call comes from: the MCP server Warden names, else the agent itself.
pub fn server(request: &RequestPermissionRequest, agent: &str) -> String {
    match Marks::of(request)
        .ext()
        .and_then(|ext| ext.server.as_deref())
    {
        Some(server) => clean(server),
        None => clean(agent),
    }
}

/// The tool's name where the agent gives it (Warden does, in `_meta.warden.tool`), else
/// the title people read, cleaned.
pub fn tool_name(request: &RequestPermissionRequest) -> String {
    let fields = &request.tool_call.fields;
    let marks = Marks::of(request);
    marks
        .ext()
        .and_then(|ext| ext.tool.as_deref())
        .or(fields.name.as_deref())
        .or(fields.title.as_deref())
        .map(clean)
        .unwrap_or_else(|| clean(&request.tool_call.tool_call_id.to_string()))
}

/// A risk's name in the reader's language (`Medium`).
pub fn risk_word(words: &Catalog, risk: Risk) -> String {
    words.plain(match risk {
        Risk::Low => "chat-risk-low",
        Risk::Medium => "chat-risk-medium",
        Risk::High => "chat-risk-high",
        Risk::Critical => "chat-risk-critical",
    })
}

/// The risk and reason line, when the agent sends them: `Medium: writes a file`.
pub fn risk_line(words: &Catalog, request: &RequestPermissionRequest) -> Option<String> {
    let marks = Marks::of(request);
    let risk = marks.risk().map(|risk| risk_word(words, risk));
    let reason = marks.reason().map(clean);
    match (risk, reason) {
        (Some(risk), Some(reason)) => Some(words.text(
            "chat-risk-line",
            &Args::new().with("risk", risk).with("reason", reason),
        )),
        (Some(risk), None) => Some(words.text("chat-risk-only", &Args::new().with("risk", risk))),
        (None, Some(reason)) => Some(reason),
        (None, None) => None,
    }
}

/// Whether `first`, the first line of a text the agent sent with the call, says the risk
/// line again (Warden does, for clients that do not read `_meta`): in the chat's words,
/// or in the agent's own, which end with the same reason.
pub fn repeats_risk(
    first: &str,
    risk_line: Option<&str>,
    request: &RequestPermissionRequest,
) -> bool {
    let Some(line) = risk_line else {
        return false;
    };
    if first == line {
        return true;
    }
    let marks = Marks::of(request);
    marks.risk().is_some()
        && marks
            .reason()
            .map(clean)
            .is_some_and(|reason| !reason.is_empty() && first.ends_with(&reason))
}
