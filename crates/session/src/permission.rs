//! The permission request Warden sends for a call, and how it reads the answer.
//!
//! The option ids are part of the contract (section 5). Reading an answer fails closed:
//! anything but a well-formed choice of an offered option is a denial.

use warden_acp_transport::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SessionId, ToolCallContent, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields,
};

use warden_acp_transport::{AnswerExtension, RequestExtension, RiskMark, extension, to_meta};

use crate::gate::{Prepared, Verdict};
use crate::updates::locations;

pub use warden_verdict::option_id::{
    ALLOW_ONCE, ALLOW_PROJECT, ALLOW_SESSION, EDIT_OR_NOTE, REJECT_ONCE, REJECT_PROJECT,
};

/// What the user chose, in Warden's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    AllowOnce,
    AllowSession,
    AllowProject,
    RejectOnce,
    RejectProject,
    EditOrNote,
}

impl Choice {
    /// Every choice, in the contract's order of option ids.
    pub const ALL: [Choice; 6] = [
        Choice::AllowOnce,
        Choice::AllowSession,
        Choice::AllowProject,
        Choice::RejectOnce,
        Choice::RejectProject,
        Choice::EditOrNote,
    ];

    pub fn option_id(self) -> &'static str {
        match self {
            Choice::AllowOnce => ALLOW_ONCE,
            Choice::AllowSession => ALLOW_SESSION,
            Choice::AllowProject => ALLOW_PROJECT,
            Choice::RejectOnce => REJECT_ONCE,
            Choice::RejectProject => REJECT_PROJECT,
            Choice::EditOrNote => EDIT_OR_NOTE,
        }
    }

    pub fn allows(self) -> bool {
        matches!(
            self,
            Choice::AllowOnce | Choice::AllowSession | Choice::AllowProject
        )
    }
}

/// The answer to a permission request, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The user chose an option (not yet checked against the options offered).
    Selected {
        option_id: String,
        /// `_meta.warden.editedInput`: the arguments the user wants the call to run with.
        edited_input: Option<serde_json::Value>,
        /// `_meta.warden.note`: an instruction (on approval) or a reason (on denial).
        note: Option<String>,
    },
    /// The client cancelled the turn.
    Cancelled,
    /// No answer within the approval timeout; the request was withdrawn.
    TimedOut,
    /// An error response, a malformed response or a lost connection: a denial.
    Failed { reason: String },
}

/// The options offered for a call, in the order they are shown (docs/contract.md, section 5):
/// `allow-once` and `reject-once` always; `allow-session` unless the call is Critical;
/// the project options only when a narrow grant can be proposed (and `allow-project`
/// not for Critical calls). A Critical call lists `reject-once` first, so that a client
/// whose cursor starts on the first option never runs it by a bare Enter.
///
/// With `forms` (the client shows `elicitation/create` forms), `edit-or-note` comes
/// last, a `reject_once` option that opens the form.
///
/// Order and content are safety properties: exactly one option of kind `allow_once`,
/// and an "always" option never stands alone.
pub fn offered(verdict: &Verdict, forms: bool) -> Vec<Choice> {
    let mut choices = offered_plain(verdict);
    if forms {
        choices.push(Choice::EditOrNote);
    }
    choices
}

fn offered_plain(verdict: &Verdict) -> Vec<Choice> {
    let narrow = verdict.proposal.is_some();
    if verdict.once_only() {
        let mut choices = vec![Choice::RejectOnce, Choice::AllowOnce];
        if narrow {
            choices.push(Choice::RejectProject);
        }
        return choices;
    }
    let mut choices = vec![Choice::AllowOnce, Choice::AllowSession];
    if narrow {
        choices.push(Choice::AllowProject);
    }
    choices.push(Choice::RejectOnce);
    if narrow {
        choices.push(Choice::RejectProject);
    }
    choices
}

/// An option's label. Clients show labels as plain text, so they carry no Markdown;
/// the grant is named in plain words with workspace-relative paths.
fn option(choice: Choice, call: &Prepared, verdict: &Verdict) -> PermissionOption {
    let grant = verdict.proposal_words();
    let mcp = call.origin.is_some();
    let (name, kind) = match choice {
        Choice::AllowOnce => ("Allow once".to_owned(), PermissionOptionKind::AllowOnce),
        Choice::AllowSession => (
            match grant {
                // The wording for MCP tools (docs/contract.md, section 7).
                _ if mcp => "Allow for this chat".to_owned(),
                Some(grant) => format!("Always allow {grant} in this session"),
                None => "Allow this exact call for the rest of the session".to_owned(),
            },
            PermissionOptionKind::AllowAlways,
        ),
        Choice::AllowProject => (
            format!("Always allow {} in this project", grant.unwrap_or("this")),
            PermissionOptionKind::AllowAlways,
        ),
        Choice::RejectOnce => (
            if mcp { "Deny" } else { "Reject" }.to_owned(),
            PermissionOptionKind::RejectOnce,
        ),
        Choice::RejectProject => (
            format!("Always reject {} in this project", grant.unwrap_or("this")),
            PermissionOptionKind::RejectAlways,
        ),
        // A reject kind: a client that picks by kind never takes it for consent.
        Choice::EditOrNote => (
            "Edit and approve, or deny with a note…".to_owned(),
            PermissionOptionKind::RejectOnce,
        ),
    };
    PermissionOption::new(choice.option_id(), name, kind)
}

/// The `session/request_permission` request for a call. `content` is what the call's
/// `tool_call` carried: its diff or what it deletes, and the risk in words.
pub fn request(
    session_id: &SessionId,
    call_id: &str,
    call: &Prepared,
    verdict: &Verdict,
    content: Vec<ToolCallContent>,
    forms: bool,
) -> RequestPermissionRequest {
    let options = offered(verdict, forms)
        .into_iter()
        .map(|choice| option(choice, call, verdict))
        .collect();
    let prompt = match &call.origin {
        Some(origin) => format!("Allow tool call from {}?", origin.server),
        None => format!("{}?", call.title),
    };
    let fields = ToolCallUpdateFields::new()
        .title(call.title.clone())
        .kind(crate::content::kind(call.kind))
        .status(ToolCallStatus::Pending)
        .content(content)
        .raw_input(call.args.clone())
        .locations(locations(&call.locations));
    let warden = RequestExtension {
        prompt: Some(prompt),
        // The tool's own name, for clients that lay out "Run <tool> from <server>": the
        // ACP tool call carries only a title meant for people.
        tool: Some(call.tool.clone()),
        server: call.origin.as_ref().map(|origin| origin.server.clone()),
        risk: Some(RiskMark::Rated(verdict.risk)),
        reason: Some(verdict.risk_reason.clone()),
        grant: verdict.proposal_words().map(str::to_owned),
        evaluation: Some(verdict.why.as_ref().clone()),
    };
    RequestPermissionRequest::new(
        session_id.clone(),
        ToolCallUpdate::new(call_id.to_owned(), fields),
        options,
    )
    .meta(to_meta(&warden))
}

/// Reads the client's answer. `_meta.warden` may sit on the response or on the
/// selected outcome; a malformed extension is a denial, never ignored into consent.
pub fn read_answer(response: RequestPermissionResponse) -> Answer {
    let (option_id, outcome_meta) = match response.outcome {
        RequestPermissionOutcome::Cancelled => return Answer::Cancelled,
        RequestPermissionOutcome::Selected(selected) => (selected.option_id, selected.meta),
        _ => {
            return Answer::Failed {
                reason: "the client answered with an outcome Warden does not know".to_owned(),
            };
        }
    };
    let warden = extension(response.meta.as_ref()).or(extension(outcome_meta.as_ref()));
    let (edited_input, note) = match warden.map(AnswerExtension::read) {
        None => (None, None),
        Some(Ok(ext)) => (ext.edited_input.map(serde_json::Value::Object), ext.note),
        Some(Err(err)) => {
            return Answer::Failed {
                reason: err.to_string(),
            };
        }
    };
    Answer::Selected {
        option_id: option_id.0.to_string(),
        edited_input,
        note,
    }
}

/// Maps an option id to the choice, if it was one of the options offered.
pub fn choice(option_id: &str, offered: &[Choice]) -> Option<Choice> {
    offered
        .iter()
        .copied()
        .find(|choice| choice.option_id() == option_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};
    use serde_json::json;
    use warden_permissions::{Decision, Risk};
    use warden_tools::{Origin, PreparedCall, ToolKind};

    fn verdict(risk: Risk, proposal: Option<&str>) -> Verdict {
        Verdict {
            decision: Decision::Ask,
            risk,
            reason: "Execute command: npm test".to_owned(),
            risk_reason: "runs npm test".to_owned(),
            deciding_part: None,
            proposal: proposal.map(crate::gate::Proposal::named),
            timeout: None,
            why: Default::default(),
        }
    }

    fn call(server: Option<&str>) -> Prepared {
        let call = PreparedCall::new(
            "terminal".to_owned(),
            json!({"command": "npm test"}),
            ToolKind::Execute,
            "Run `npm test`".to_owned(),
        );
        let call = match server {
            Some(server) => call.with_origin(Origin {
                server: server.to_owned(),
                identity: format!("{server} (stdio: {server}-server)"),
                tool: "terminal".to_owned(),
            }),
            None => call,
        };
        Prepared { call, hint: None }
    }

    /// The full option list (id, kind, label), one line each, as the client gets it.
    fn check(risk: Risk, proposal: Option<&str>, server: Option<&str>, expect: Expect) {
        check_with(risk, proposal, server, false, expect);
    }

    fn check_with(
        risk: Risk,
        proposal: Option<&str>,
        server: Option<&str>,
        forms: bool,
        expect: Expect,
    ) {
        let request = request(
            &SessionId::new("s"),
            "call_1",
            &call(server),
            &verdict(risk, proposal),
            Vec::new(),
            forms,
        );
        let lines: Vec<String> = request
            .options
            .iter()
            .map(|o| {
                let kind = serde_json::to_value(o.kind).unwrap_or_default();
                format!(
                    "{} {} {:?}",
                    o.option_id.0,
                    kind.as_str().unwrap_or("?"),
                    o.name
                )
            })
            .collect();
        // The safety properties, whatever the table says.
        let allow_once = request
            .options
            .iter()
            .filter(|o| o.kind == PermissionOptionKind::AllowOnce)
            .count();
        assert_eq!(allow_once, 1, "exactly one allow_once option");
        if risk == Risk::Critical {
            assert_eq!(request.options[0].option_id.0.as_ref(), REJECT_ONCE);
            assert!(
                request
                    .options
                    .iter()
                    .all(|o| o.kind != PermissionOptionKind::AllowAlways),
                "a Critical call is never remembered as allowed"
            );
        }
        expect.assert_eq(&lines.join("\n"));
    }

    #[test]
    fn option_order_and_content_for_every_risk_level() {
        let grant = Some("\"npm test …\"");
        for risk in [Risk::Low, Risk::Medium, Risk::High] {
            check(
                risk,
                grant,
                None,
                expect![[r#"
                    allow-once allow_once "Allow once"
                    allow-session allow_always "Always allow \"npm test …\" in this session"
                    allow-project allow_always "Always allow \"npm test …\" in this project"
                    reject-once reject_once "Reject"
                    reject-project reject_always "Always reject \"npm test …\" in this project""#]],
            );
            check(
                risk,
                None,
                None,
                expect![[r#"
                    allow-once allow_once "Allow once"
                    allow-session allow_always "Allow this exact call for the rest of the session"
                    reject-once reject_once "Reject""#]],
            );
            check(
                risk,
                None,
                Some("github"),
                expect![[r#"
                    allow-once allow_once "Allow once"
                    allow-session allow_always "Allow for this chat"
                    reject-once reject_once "Deny""#]],
            );
        }
        check(
            Risk::Critical,
            grant,
            None,
            expect![[r#"
                reject-once reject_once "Reject"
                allow-once allow_once "Allow once"
                reject-project reject_always "Always reject \"npm test …\" in this project""#]],
        );
        check(
            Risk::Critical,
            None,
            None,
            expect![[r#"
                reject-once reject_once "Reject"
                allow-once allow_once "Allow once""#]],
        );
        check(
            Risk::Critical,
            None,
            Some("github"),
            expect![[r#"
                reject-once reject_once "Deny"
                allow-once allow_once "Allow once""#]],
        );
    }

    #[test]
    fn a_client_with_forms_gets_the_form_option_last_as_a_rejection() {
        check_with(
            Risk::High,
            Some("\"npm test …\""),
            None,
            true,
            expect![[r#"
                allow-once allow_once "Allow once"
                allow-session allow_always "Always allow \"npm test …\" in this session"
                allow-project allow_always "Always allow \"npm test …\" in this project"
                reject-once reject_once "Reject"
                reject-project reject_always "Always reject \"npm test …\" in this project"
                edit-or-note reject_once "Edit and approve, or deny with a note…""#]],
        );
        check_with(
            Risk::Critical,
            None,
            None,
            true,
            expect![[r#"
                reject-once reject_once "Reject"
                allow-once allow_once "Allow once"
                edit-or-note reject_once "Edit and approve, or deny with a note…""#]],
        );
    }

    #[test]
    fn the_request_carries_the_content_and_the_deciding_reason() {
        let content = vec![ToolCallContent::from(crate::updates::text(
            "High: runs npm test",
        ))];
        let request = request(
            &SessionId::new("s"),
            "call_1",
            &call(None),
            &verdict(Risk::High, Some("\"npm test …\"")),
            content.clone(),
            false,
        );
        assert_eq!(request.tool_call.fields.content, Some(content));
        assert_eq!(
            request.tool_call.fields.status,
            Some(ToolCallStatus::Pending)
        );
        let meta = serde_json::to_value(&request.meta).unwrap_or_default();
        assert_eq!(meta["warden"]["tool"], "terminal");
        assert_eq!(meta["warden"]["risk"], "high");
        assert_eq!(meta["warden"]["reason"], "runs npm test");
        assert_eq!(meta["warden"]["grant"], "\"npm test …\"");
    }

    #[test]
    fn mcp_tools_use_the_contracts_wording() {
        let request = request(
            &SessionId::new("s"),
            "call_1",
            &call(Some("github")),
            &verdict(Risk::High, None),
            Vec::new(),
            false,
        );
        let meta = serde_json::to_value(&request.meta).unwrap_or_default();
        assert_eq!(meta["warden"]["prompt"], "Allow tool call from github?");
    }

    fn answer(json: serde_json::Value) -> Answer {
        match serde_json::from_value::<RequestPermissionResponse>(json) {
            Ok(response) => read_answer(response),
            Err(err) => Answer::Failed {
                reason: err.to_string(),
            },
        }
    }

    #[test]
    fn answers_are_read_fail_closed() {
        assert_eq!(
            answer(json!({"outcome": {"outcome": "cancelled"}})),
            Answer::Cancelled
        );
        assert_eq!(
            answer(json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}})),
            Answer::Selected {
                option_id: "allow-once".to_owned(),
                edited_input: None,
                note: None
            }
        );
        assert_eq!(
            answer(json!({
                "outcome": {"outcome": "selected", "optionId": "reject-once"},
                "_meta": {"warden": {"note": "use --dry-run", "editedInput": {"command": "ls"}}}
            })),
            Answer::Selected {
                option_id: "reject-once".to_owned(),
                edited_input: Some(json!({"command": "ls"})),
                note: Some("use --dry-run".to_owned())
            }
        );
        assert!(matches!(
            answer(json!({
                "outcome": {"outcome": "selected", "optionId": "allow-once"},
                "_meta": {"warden": {"editedInput": "rm -rf /"}}
            })),
            Answer::Failed { .. }
        ));
        assert!(matches!(
            answer(json!({
                "outcome": {"outcome": "selected", "optionId": "allow-once",
                            "_meta": {"warden": {"note": 7}}}
            })),
            Answer::Failed { .. }
        ));
    }

    #[test]
    fn only_offered_options_count() {
        let offered = offered(&verdict(Risk::Critical, None), false);
        assert_eq!(choice("allow-once", &offered), Some(Choice::AllowOnce));
        assert_eq!(choice("allow-session", &offered), None);
        assert_eq!(choice("allow-always", &offered), None);
    }
}
