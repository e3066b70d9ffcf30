//! `--approve ask|all|none`: which of the agent's options a non-interactive chat picks.

use crate::request::marked_critical;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome,
};

/// How permission requests are answered without a person at the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Approve {
    /// Ask the person; with no terminal to ask on, deny.
    #[default]
    Ask,
    /// Allow once, except what the agent marks Critical (denied).
    All,
    /// Reject once.
    None,
}

impl Approve {
    pub fn parse(s: &str) -> Option<Approve> {
        match s {
            "ask" => Some(Approve::Ask),
            "all" => Some(Approve::All),
            "none" => Some(Approve::None),
            _ => None,
        }
    }
}

/// The answer picked for one request, and the line that says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picked {
    /// The selected option; `None` answers `cancelled`, which selects nothing.
    pub option: Option<PermissionOption>,
    pub allowed: bool,
    /// Why, as the id of a message of the chat's catalog.
    pub why: &'static str,
}

impl Picked {
    pub fn response(&self) -> RequestPermissionResponse {
        let outcome = match &self.option {
            Some(option) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(
                option.option_id.clone(),
            )),
            None => RequestPermissionOutcome::Cancelled,
        };
        RequestPermissionResponse::new(outcome)
    }
}

fn first_of(
    request: &RequestPermissionRequest,
    kind: PermissionOptionKind,
) -> Option<PermissionOption> {
    request
        .options
        .iter()
        .find(|option| option.kind == kind)
        .cloned()
}

/// A denial: the agent's reject-once option, or `cancelled` when it offers none (never
/// an "always" option, which would store a decision the user did not make).
fn deny(request: &RequestPermissionRequest, why: &'static str) -> Picked {
    Picked {
        option: first_of(request, PermissionOptionKind::RejectOnce),
        allowed: false,
        why,
    }
}

/// Picks the answer to `request` under `approve`. Options are chosen by kind, never by
/// position or id, so this works with any agent; only an allow-once option is ever
/// selected to allow, so nothing is stored on the user's behalf.
pub fn pick(approve: Approve, request: &RequestPermissionRequest) -> Picked {
    match approve {
        Approve::None => deny(request, "chat-why-approve-none"),
        Approve::Ask => deny(request, "chat-why-approve-ask"),
        Approve::All if marked_critical(request) => deny(request, "chat-why-critical"),
        Approve::All => match first_of(request, PermissionOptionKind::AllowOnce) {
            Some(option) => Picked {
                option: Some(option),
                allowed: true,
                why: "chat-why-approve-all",
            },
            None => deny(request, "chat-why-no-allow-once"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(
        risk: Option<serde_json::Value>,
        kinds: &[(&str, PermissionOptionKind)],
    ) -> RequestPermissionRequest {
        let options = kinds
            .iter()
            .map(|(id, kind)| PermissionOption::new(id.to_string(), id.to_string(), *kind))
            .collect();
        let mut request = RequestPermissionRequest::new(
            "s".to_owned(),
            agent_client_protocol::v1::schema::ToolCallUpdate::new(
                "c".to_owned(),
                Default::default(),
            ),
            options,
        );
        if let Some(risk) = risk {
            let meta = serde_json::json!({"warden": {"risk": risk}});
            request = request.meta(meta.as_object().cloned());
        }
        request
    }

    const WARDEN: &[(&str, PermissionOptionKind)] = &[
        ("allow-once", PermissionOptionKind::AllowOnce),
        ("allow-session", PermissionOptionKind::AllowAlways),
        ("reject-once", PermissionOptionKind::RejectOnce),
        ("reject-project", PermissionOptionKind::RejectAlways),
    ];
    const CRITICAL: &[(&str, PermissionOptionKind)] = &[
        ("reject-once", PermissionOptionKind::RejectOnce),
        ("allow-once", PermissionOptionKind::AllowOnce),
    ];
    const ALWAYS_ONLY: &[(&str, PermissionOptionKind)] = &[
        ("always", PermissionOptionKind::AllowAlways),
        ("never", PermissionOptionKind::RejectAlways),
    ];

    fn check(
        approve: Approve,
        risk: Option<serde_json::Value>,
        kinds: &[(&str, PermissionOptionKind)],
        expect: Option<&str>,
    ) {
        let picked = pick(approve, &request(risk.clone(), kinds));
        let got = picked.option.as_ref().map(|o| o.option_id.to_string());
        assert_eq!(got.as_deref(), expect, "{approve:?} {risk:?}");
        assert_eq!(
            picked.allowed,
            expect == Some("allow-once"),
            "{approve:?} {risk:?}"
        );
    }

    #[test]
    fn picks_by_kind_and_never_allows_what_is_marked_critical() {
        use serde_json::json;
        check(
            Approve::All,
            Some(json!("high")),
            WARDEN,
            Some("allow-once"),
        );
        check(Approve::All, None, WARDEN, Some("allow-once"));
        check(
            Approve::All,
            Some(json!("critical")),
            CRITICAL,
            Some("reject-once"),
        );
        // An unreadable rating is treated as Critical.
        check(
            Approve::All,
            Some(json!("CRITICAL")),
            CRITICAL,
            Some("reject-once"),
        );
        check(Approve::All, Some(json!(4)), CRITICAL, Some("reject-once"));
        check(
            Approve::All,
            Some(json!(null)),
            CRITICAL,
            Some("reject-once"),
        );
        // Never an "always" option, in either direction: nothing stored for the user.
        check(Approve::All, None, ALWAYS_ONLY, None);
        check(Approve::None, None, ALWAYS_ONLY, None);
        check(
            Approve::None,
            Some(json!("low")),
            WARDEN,
            Some("reject-once"),
        );
        check(
            Approve::Ask,
            Some(json!("low")),
            WARDEN,
            Some("reject-once"),
        );
    }

    #[test]
    fn a_missing_option_answers_cancelled() {
        let picked = pick(Approve::None, &request(None, ALWAYS_ONLY));
        let response = serde_json::to_value(picked.response()).expect("serialises");
        assert_eq!(response["outcome"]["outcome"], "cancelled", "{response}");
    }
}
