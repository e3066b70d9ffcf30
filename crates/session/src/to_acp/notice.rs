//! How a notice reaches the client: sent as ACP session notices (`session/update` `notice`) when the client advertised
//! `clientCapabilities.session.notices`, which the schema requires; otherwise as a plain
//! agent message, so that the user is told all the same.

use warden_acp_transport::schema::{
    ClientCapabilities, Notice as AcpNotice, NoticeSeverity, SessionId, SessionNotification,
    SessionUpdate,
};

use warden_turn::{Notice, Severity};

use super::updates;

/// Whether the client can show notices.
pub fn supported(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .session
        .as_ref()
        .is_some_and(|s| s.notices.is_some())
}

/// The notification that tells the user: a notice, or an agent message (Markdown, a
/// paragraph of its own) when the client shows no notices.
pub fn to_update(session: &SessionId, notice: &Notice, supported: bool) -> SessionNotification {
    if supported {
        let severity = match notice.severity {
            Severity::Info => NoticeSeverity::Info,
            Severity::Warning => NoticeSeverity::Warning,
        };
        return SessionNotification::new(
            session.clone(),
            SessionUpdate::Notice(
                AcpNotice::new(severity, notice.title.clone()).description(notice.detail.clone()),
            ),
        );
    }
    let mut text = format!("\n\n**{}**", notice.title);
    if let Some(detail) = &notice.detail {
        text.push_str(": ");
        text.push_str(detail);
    }
    text.push_str("\n\n");
    updates::message_chunk(session, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_or_a_message_as_the_client_allows() {
        let notice = Notice::new(
            Severity::Warning,
            "A policy file could not be used",
            Some("policy.toml: expected `=`".to_owned()),
        );
        let session = SessionId::new("s");
        let as_json = |supported| {
            serde_json::to_value(to_update(&session, &notice, supported))
                .unwrap_or_default()
                .get("update")
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(
            as_json(true),
            serde_json::json!({
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "A policy file could not be used",
                "description": "policy.toml: expected `=`"
            })
        );
        assert_eq!(
            as_json(false)["content"]["text"],
            "\n\n**A policy file could not be used**: policy.toml: expected `=`\n\n"
        );
        let caps: ClientCapabilities =
            serde_json::from_value(serde_json::json!({"session": {"notices": {}}}))
                .unwrap_or_default();
        assert!(supported(&caps));
        assert!(!supported(&ClientCapabilities::default()));
    }
}
