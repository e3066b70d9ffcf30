//! The permission request Warden sends for a call, and how it reads the answer.
//!
//! The option ids are part of the contract (section 5). Reading an answer fails closed:
//! anything but a well-formed choice of an offered option is a denial.

use warden_acp_transport::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SessionId, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};

use warden_acp_transport::{
    AnswerExtension, PermissionMeta, RequestExtension, RequestMeta, RiskMark, extension,
};
use warden_i18n::Args;
use warden_turn::{Answer, Choice, Offered, Question, Why, Words};

use super::content;
use super::updates::locations;

/// The protocol's kind of an option. Editing or leaving a note is a reject kind: a
/// client that picks by kind never takes it for consent.
pub fn option_kind(choice: Choice) -> PermissionOptionKind {
    match choice {
        Choice::AllowOnce => PermissionOptionKind::AllowOnce,
        Choice::AllowSession | Choice::AllowProject => PermissionOptionKind::AllowAlways,
        Choice::RejectOnce | Choice::RejectAndStop | Choice::EditOrNote => {
            PermissionOptionKind::RejectOnce
        }
        Choice::RejectProject => PermissionOptionKind::RejectAlways,
    }
}

/// An option: its id, kind, label and, under `_meta.permission`, what choosing it does.
fn option(offered: &Offered) -> PermissionOption {
    PermissionOption::new(
        offered.choice.option_id(),
        offered.label.clone(),
        option_kind(offered.choice),
    )
    .meta(PermissionMeta::option(offered.description.clone()).to_meta())
}

/// A question as the client is asked it: the `session/request_permission` request and
/// its `_meta`, which the transport writes as the request's last member, straight from
/// these types (the engine's evaluation is borrowed from the question, never copied).
#[derive(Debug)]
pub struct Asking<'q> {
    pub request: RequestPermissionRequest,
    pub warden: RequestExtension<&'q Why>,
    pub permission: PermissionMeta,
}

impl<'q> Asking<'q> {
    /// The request's `_meta`, to send with it.
    pub fn meta(&self) -> RequestMeta<'_, &'q Why> {
        RequestMeta {
            warden: &self.warden,
            permission: &self.permission,
        }
    }
}

/// The `session/request_permission` request of a question: the call as the question
/// shows it (its content is what the call's `tool_call` carried: its diff or what it
/// deletes, and the risk in words) and the choices offered, in order.
pub fn request<'q>(
    session_id: &SessionId,
    question: &'q Question,
    offered: &[Offered],
    words: Words,
) -> Asking<'q> {
    let Question { view, verdict, .. } = question;
    let options = offered.iter().map(option).collect();
    let prompt = match &view.origin {
        Some(origin) => words.text(
            "agent-question-mcp",
            &Args::new().with("server", origin.server.clone()),
        ),
        None => words.text(
            "agent-question-builtin",
            &Args::new().with("title", view.title.clone()),
        ),
    };
    let fields = ToolCallUpdateFields::new()
        .title(view.title.clone())
        .kind(content::kind(view.kind))
        .status(ToolCallStatus::Pending)
        .content(content::content(view.content.clone()))
        .raw_input(view.args.clone())
        .locations(locations(&view.locations));
    let description = words.text(
        "agent-question-description",
        &Args::new()
            .with("risk", words.risk(verdict.risk))
            .with("reason", verdict.risk_reason.clone()),
    );
    let warden = RequestExtension {
        prompt: Some(prompt.clone()),
        // The tool's own name, for clients that lay out "Run <tool> from <server>": the
        // ACP tool call carries only a title meant for people.
        tool: Some(view.tool.clone()),
        server: view.origin.as_ref().map(|origin| origin.server.clone()),
        risk: Some(RiskMark::Rated(verdict.risk)),
        reason: Some(verdict.risk_reason.clone()),
        grant: verdict.proposal_words().map(str::to_owned),
        evaluation: Some(verdict.why.as_ref()),
    };
    Asking {
        request: RequestPermissionRequest::new(
            session_id.clone(),
            ToolCallUpdate::new(view.call_id.clone(), fields),
            options,
        ),
        warden,
        permission: PermissionMeta::request(prompt, description),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};
    use serde_json::json;
    use warden_acp_transport::schema::ToolCallContent;
    use warden_permissions::{Decision, Risk};
    use warden_tools::{Content, Origin, PreparedCall, ToolKind};
    use warden_turn::{CallView, Prepared, Verdict, offer, offered};
    use warden_verdict::option_id::REJECT_ONCE;

    /// The request's parameters as the client reads them, `_meta` included.
    fn sent(asking: &Asking<'_>) -> serde_json::Value {
        let text = warden_acp_transport::permission_request_text(&asking.request, &asking.meta());
        serde_json::from_str(&text.expect("a request")).expect("JSON")
    }

    fn verdict(risk: Risk, proposal: Option<&str>) -> Verdict {
        Verdict {
            decision: Decision::Ask,
            risk,
            reason: "Execute command: npm test".to_owned(),
            risk_reason: "runs npm test".to_owned(),
            deciding_part: None,
            proposal: proposal.map(warden_turn::Proposal::named),
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

    /// The question about `call` that a turn asks, with the choices it offers.
    fn question(call: &Prepared, verdict: Verdict, content: Vec<Content>, forms: bool) -> Question {
        Question {
            number: 1,
            edited: false,
            view: CallView::new("call_1", call, content),
            choices: offered(&verdict, forms),
            verdict,
        }
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
        let question = question(&call(server), verdict(risk, proposal), Vec::new(), forms);
        let asking = request(
            &SessionId::new("s"),
            &question,
            &offer(&question, Words::default()),
            Words::default(),
        );
        let lines: Vec<String> = asking
            .request
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
        let allow_once = asking
            .request
            .options
            .iter()
            .filter(|o| o.kind == PermissionOptionKind::AllowOnce)
            .count();
        assert_eq!(allow_once, 1, "exactly one allow_once option");
        if risk == Risk::Critical {
            assert_eq!(asking.request.options[0].option_id.0.as_ref(), REJECT_ONCE);
            assert!(
                asking
                    .request
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
                    reject-and-stop reject_once "Reject and stop"
                    reject-project reject_always "Always reject \"npm test …\" in this project""#]],
            );
            check(
                risk,
                None,
                None,
                expect![[r#"
                    allow-once allow_once "Allow once"
                    allow-session allow_always "Allow this exact call for the rest of the session"
                    reject-once reject_once "Reject"
                    reject-and-stop reject_once "Reject and stop""#]],
            );
            check(
                risk,
                None,
                Some("github"),
                expect![[r#"
                    allow-once allow_once "Allow once"
                    allow-session allow_always "Allow for this chat"
                    reject-once reject_once "Deny"
                    reject-and-stop reject_once "Reject and stop""#]],
            );
        }
        check(
            Risk::Critical,
            grant,
            None,
            expect![[r#"
                reject-once reject_once "Reject"
                reject-and-stop reject_once "Reject and stop"
                allow-once allow_once "Allow once"
                reject-project reject_always "Always reject \"npm test …\" in this project""#]],
        );
        check(
            Risk::Critical,
            None,
            None,
            expect![[r#"
                reject-once reject_once "Reject"
                reject-and-stop reject_once "Reject and stop"
                allow-once allow_once "Allow once""#]],
        );
        check(
            Risk::Critical,
            None,
            Some("github"),
            expect![[r#"
                reject-once reject_once "Deny"
                reject-and-stop reject_once "Reject and stop"
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
                reject-and-stop reject_once "Reject and stop"
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
                reject-and-stop reject_once "Reject and stop"
                allow-once allow_once "Allow once"
                edit-or-note reject_once "Edit and approve, or deny with a note…""#]],
        );
    }

    #[test]
    fn the_request_carries_the_content_and_the_deciding_reason() {
        let content = vec![Content::Text("High: runs npm test".to_owned())];
        let question = question(
            &call(None),
            verdict(Risk::High, Some("\"npm test …\"")),
            content,
            false,
        );
        let asking = request(
            &SessionId::new("s"),
            &question,
            &offer(&question, Words::default()),
            Words::default(),
        );
        assert_eq!(
            asking.request.tool_call.fields.content,
            Some(vec![ToolCallContent::from(
                "High: runs npm test".to_owned()
            )])
        );
        assert_eq!(
            asking.request.tool_call.fields.status,
            Some(ToolCallStatus::Pending)
        );
        let meta = sent(&asking)["_meta"].clone();
        assert_eq!(meta["warden"]["tool"], "terminal");
        assert_eq!(meta["warden"]["risk"], "high");
        assert_eq!(meta["warden"]["reason"], "runs npm test");
        assert_eq!(meta["warden"]["grant"], "\"npm test …\"");
    }

    #[test]
    fn mcp_tools_use_the_contracts_wording() {
        let question = question(
            &call(Some("github")),
            verdict(Risk::High, None),
            Vec::new(),
            false,
        );
        let asking = request(
            &SessionId::new("s"),
            &question,
            &offer(&question, Words::default()),
            Words::default(),
        );
        let meta = sent(&asking)["_meta"].clone();
        assert_eq!(meta["warden"]["prompt"], "Allow tool call from github?");
    }

    #[test]
    fn every_question_and_option_carries_meta_permission_for_every_risk_level() {
        for risk in Risk::ALL {
            let question = question(
                &call(None),
                verdict(risk, Some("`npm test`")),
                Vec::new(),
                true,
            );
            let asking = request(
                &SessionId::new("s"),
                &question,
                &offer(&question, Words::default()),
                Words::default(),
            );
            let meta =
                PermissionMeta::read(sent(&asking)["_meta"].as_object()).expect("_meta.permission");
            assert_eq!(meta.version, 1);
            assert_eq!(meta.title.as_deref(), Some("Run `npm test`?"));
            let level = format!("{risk}");
            assert!(
                meta.description.contains("runs npm test")
                    && meta.description.to_lowercase().contains(&level),
                "{risk}: {meta:?}"
            );
            for option in &asking.request.options {
                let meta = PermissionMeta::read(option.meta.as_ref());
                let meta =
                    meta.unwrap_or_else(|| panic!("{risk}: {} has none", option.option_id.0));
                assert_eq!((meta.version, meta.title), (1, None));
                assert!(!meta.description.is_empty());
            }
            // Warden's own extension is kept as it was.
            let warden = sent(&asking)["_meta"].clone();
            assert_eq!(warden["warden"]["risk"], level);
        }
    }

    #[test]
    fn a_question_in_simplified_chinese_keeps_ids_tools_and_commands_untranslated() {
        let words = Words::new(warden_i18n::Language::SimplifiedChinese);
        let question = question(
            &call(Some("github")),
            verdict(Risk::Critical, None),
            Vec::new(),
            false,
        );
        let asking = request(
            &SessionId::new("s"),
            &question,
            &offer(&question, words),
            words,
        );
        let options: Vec<(String, String)> = asking
            .request
            .options
            .iter()
            .map(|o| (o.option_id.0.to_string(), o.name.clone()))
            .collect();
        assert_eq!(
            options,
            [
                ("reject-once".to_owned(), "拒绝".to_owned()),
                ("reject-and-stop".to_owned(), "拒绝并停止".to_owned()),
                ("allow-once".to_owned(), "仅允许这一次".to_owned()),
            ]
        );
        let meta =
            PermissionMeta::read(sent(&asking)["_meta"].as_object()).expect("_meta.permission");
        assert_eq!(
            meta.title.as_deref(),
            Some("允许调用来自 github 的工具吗？")
        );
        assert_eq!(meta.description, "严重风险：runs npm test");
        let warden = sent(&asking)["_meta"].clone();
        assert_eq!(warden["warden"]["tool"], "terminal");
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
}
