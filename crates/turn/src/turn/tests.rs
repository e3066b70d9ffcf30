//! The turn's rules, as scenarios: each feeds events and compares the commands with
//! an expected transcript.

use std::cell::RefCell;
use std::time::Duration;

use expect_test::{Expect, expect};
use serde_json::json;
use warden_model::{Conversation, FinishReason, Message, ToolCallRequest};
use warden_permissions::{Decision, Risk};
use warden_tools::{PreparedCall, ToolKind};

use super::*;
use crate::gate::{PrepareError, RememberError};

/// A gate whose verdicts come from the tool name: `read` allow, `write` ask (with a
/// proposal), `rm` ask Critical, `deny` deny, `bad` invalid. Grants turn the tool's
/// verdict into allow or deny.
#[derive(Default)]
struct FakeGate {
    grants: RefCell<Vec<(String, GrantEffect, GrantScope)>>,
}

impl Gate for FakeGate {
    fn prepare(&self, tool: &str, args: &serde_json::Value) -> Result<Prepared, PrepareError> {
        if tool == "bad" || args.get("invalid").is_some() {
            // The tools of these scenarios that take arguments which can be invalid.
            let tool = if tool == "bad" { "bad" } else { "write" };
            return Err(warden_tools::ValidationError::Invalid {
                tool,
                message: "missing field `path`".to_owned(),
            }
            .into());
        }
        Ok(Prepared {
            call: PreparedCall::new(
                tool.to_owned(),
                args.clone(),
                ToolKind::Other,
                format!("{tool} {args}"),
            ),
            hint: None,
        })
    }

    fn evaluate(&self, call: &Prepared) -> Verdict {
        let (decision, risk) = match call.tool.as_str() {
            "read" => (Decision::Allow, Risk::Low),
            "deny" => (Decision::Deny, Risk::High),
            "rm" => (Decision::Ask, Risk::Critical),
            _ if call.args.get("risky").is_some() => (Decision::Ask, Risk::Critical),
            _ => (Decision::Ask, Risk::Medium),
        };
        let granted = self
            .grants
            .borrow()
            .iter()
            .find(|(tool, _, _)| *tool == call.tool)
            .map(|(_, effect, _)| *effect);
        let decision = match (granted, risk) {
            (Some(GrantEffect::Deny), _) => Decision::Deny,
            (Some(GrantEffect::Allow), r) if r != Risk::Critical => Decision::Allow,
            _ => decision,
        };
        Verdict {
            decision,
            risk,
            reason: format!("{} says so", call.tool),
            risk_reason: format!("{} is {risk}", call.tool),
            deciding_part: None,
            proposal: (call.tool == "write")
                .then(|| crate::gate::Proposal::named(&format!("`{}`", call.tool))),
            timeout: Some(Duration::from_secs(30)),
            why: Default::default(),
        }
    }

    fn remember(
        &self,
        call: &Prepared,
        _verdict: &Verdict,
        scope: GrantScope,
        effect: GrantEffect,
    ) -> Result<Option<warden_permissions::Grant>, RememberError> {
        self.grants
            .borrow_mut()
            .push((call.tool.clone(), effect, scope));
        Ok(None)
    }
}

fn call(id: &str, tool: &str, args: serde_json::Value) -> ToolCallRequest {
    ToolCallRequest {
        id: id.to_owned(),
        name: tool.to_owned(),
        arguments: args,
    }
}

fn reply(calls: Vec<ToolCallRequest>) -> Event {
    Event::ModelReplied {
        text: String::new(),
        calls,
        finish: FinishReason::ToolCalls,
        files: Files::default(),
    }
}

fn pick(call_id: &str, option: &str) -> Event {
    pick_q(call_id, 1, option)
}

/// Picks an option in answer to question `question` about a call.
fn pick_q(call_id: &str, question: u32, option: &str) -> Event {
    Event::Answered {
        call_id: call_id.to_owned(),
        question,
        answer: Answer::Selected {
            option_id: option.to_owned(),
            edited_input: None,
            note: None,
        },
    }
}

/// An answer to the first question about a call.
fn answer(call_id: &str, answer: Answer) -> Event {
    answer_to(call_id, 1, answer)
}

/// An answer to question `question` about a call.
fn answer_to(call_id: &str, question: u32, answer: Answer) -> Event {
    Event::Answered {
        call_id: call_id.to_owned(),
        question,
        answer,
    }
}

fn done(call_id: &str, ok: bool) -> Event {
    Event::ToolFinished {
        call_id: call_id.to_owned(),
        result: ToolResult {
            ok,
            timed_out: false,
            content: vec![],
            raw_output: json!({"ok": ok}),
            for_model: if ok { "output" } else { "error" }.to_owned(),
        },
    }
}

/// The first text of a call's content, as a transcript line ends with it.
fn first_text(content: &[warden_tools::Content]) -> String {
    match content.first() {
        Some(warden_tools::Content::Text(text)) => format!(": {text}"),
        _ => String::new(),
    }
}

fn render(command: &Command) -> String {
    match command {
        Command::Show { view, shown } => match shown {
            Shown::First => format!("tool_call {} pending", view.call_id),
            Shown::Again => format!(
                "update {} pending{}",
                view.call_id,
                first_text(&view.content)
            ),
            Shown::Edited => format!("update {} edit{}", view.call_id, first_text(&view.content)),
        },
        Command::ShowInvalid { call_id, .. } => format!("tool_call {call_id} pending"),
        Command::Running { call_id } => format!("update {call_id} inprogress"),
        Command::Failed { call_id, reason } => format!("update {call_id} failed: {reason}"),
        Command::Finished { call_id, result } => {
            let status = if result.ok { "completed" } else { "failed" };
            format!("update {call_id} {status}{}", first_text(&result.content))
        }
        Command::Say(_) => "message".to_owned(),
        Command::Ask(question) => {
            let ids: Vec<_> = question.choices.iter().map(|c| c.option_id()).collect();
            let number = match (question.number, question.edited) {
                (1, false) => String::new(),
                (n, false) => format!(" question {n}"),
                (n, true) => format!(" question {n} (edited)"),
            };
            format!("ask {}{number} [{}]", question.call_id(), ids.join(" "))
        }
        Command::Elicit(form) => format!(
            "elicit {} question {} {}",
            form.call_id, form.question, form.args
        ),
        Command::Withdraw { call_id } => format!("withdraw {call_id}"),
        Command::Run { call_id, call } => format!("run {call_id} {}", call.args),
        Command::Store(request) => format!(
            "store {} {:?} {:?}",
            request.call_id, request.scope, request.effect
        ),
        Command::Stop { call_id } => format!("stop {call_id}"),
        Command::CallModel => "call model".to_owned(),
        Command::Audit(note) => match &note.kind {
            AuditKind::Evaluated { verdict } => {
                format!("audit {} {}", note.call_id, verdict.decision)
            }
            AuditKind::Malformed { .. } => format!("audit {} malformed", note.call_id),
            AuditKind::Answered { outcome, .. } => {
                format!("audit {} {}", note.call_id, outcome.as_str())
            }
            AuditKind::Refused { option_id, .. } => {
                format!("audit {} refused {option_id}", note.call_id)
            }
        },
        Command::Tell(notice) => format!("tell {}", notice.title),
        Command::End(stop) => format!("end \"{}\"", stop.as_str()),
    }
}

/// Runs a turn through `events`, one transcript line per command, with `--` between
/// the events.
fn check_with(gate: &FakeGate, limits: TurnLimits, events: Vec<Event>, expect: Expect) -> Turn {
    check_turn(gate, limits, false, events, expect)
}

fn check_turn(
    gate: &FakeGate,
    limits: TurnLimits,
    forms: bool,
    events: Vec<Event>,
    expect: Expect,
) -> Turn {
    let (mut turn, first) = Turn::start(
        Conversation::new(),
        "go".to_owned(),
        limits,
        Words::default(),
    );
    turn.offer_forms(forms);
    let mut lines: Vec<String> = first.iter().map(render).collect();
    for event in events {
        lines.push("--".to_owned());
        let commands = turn.handle(event, gate);
        lines.extend(commands.iter().map(render));
        // Grants are stored as the driver stores them, and their results come back
        // before the next event of the scenario.
        let mut results: std::collections::VecDeque<Event> =
            commands.iter().filter_map(|c| store(c, gate)).collect();
        while let Some(stored) = results.pop_front() {
            lines.push("-- stored".to_owned());
            let commands = turn.handle(stored, gate);
            lines.extend(commands.iter().map(render));
            results.extend(commands.iter().filter_map(|c| store(c, gate)));
        }
    }
    expect.assert_eq(&(lines.join("\n") + "\n"));
    turn
}

/// Carries out a [`Command::Store`] as the driver does, and returns its event.
fn store(command: &Command, gate: &FakeGate) -> Option<Event> {
    let Command::Store(request) = command else {
        return None;
    };
    let GrantRequest {
        call_id,
        call,
        verdict,
        scope,
        effect,
    } = request.as_ref();
    let stored = match gate.remember(call, verdict, *scope, *effect) {
        Ok(_) => Stored::Yes,
        Err(err) => Stored::No {
            reason: err.to_string(),
        },
    };
    Some(Event::GrantStored {
        call_id: call_id.clone(),
        scope: *scope,
        effect: *effect,
        stored,
    })
}

fn check(events: Vec<Event>, expect: Expect) -> Turn {
    check_with(&FakeGate::default(), TurnLimits::default(), events, expect)
}

#[test]
fn a_reply_without_calls_ends_the_turn() {
    check(
        vec![Event::ModelReplied {
            text: "hi".to_owned(),
            calls: vec![],
            finish: FinishReason::EndTurn,
            files: Files::default(),
        }],
        expect![[r#"
            call model
            --
            end "end_turn"
        "#]],
    );
}

#[test]
fn allowed_calls_run_and_the_model_is_called_again() {
    check(
        vec![
            reply(vec![call("c1", "read", json!({"path": "a"}))]),
            done("c1", true),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 allow
            update c1 inprogress
            run c1 {"path":"a"}
            --
            update c1 completed
            call model
        "#]],
    );
}

#[test]
fn a_batch_runs_the_allowed_asks_the_rest_at_once_and_waits_for_all() {
    let turn = check(
        vec![
            reply(vec![
                call("c1", "read", json!({})),
                call("c2", "write", json!({})),
                call("c3", "deny", json!({})),
                call("c4", "rm", json!({})),
            ]),
            done("c1", true),
            pick("c4", "reject-once"),
            pick("c2", "allow-once"),
            done("c2", false),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 allow
            update c1 inprogress
            run c1 {}
            tool_call c2 pending
            audit c2 ask
            ask c2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            tool_call c3 pending
            audit c3 deny
            update c3 failed: Denied by policy: deny says so
            tool_call c4 pending
            audit c4 ask
            ask c4 [reject-once reject-and-stop allow-once]
            --
            update c1 completed
            --
            audit c4 denied
            update c4 failed: You denied this call.
            --
            audit c2 granted
            update c2 inprogress
            run c2 {}
            --
            update c2 failed
            call model
        "#]],
    );
    let outcomes: Vec<_> = turn
        .conversation()
        .messages()
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult {
                call_id, outcome, ..
            } => Some(format!("{call_id} {}", outcome.as_words())),
            _ => None,
        })
        .collect();
    assert_eq!(
        outcomes,
        ["c3 denied", "c1 completed", "c4 denied", "c2 failed"]
    );
}

#[test]
fn allow_for_the_session_stores_a_grant_and_settles_waiting_siblings() {
    let gate = FakeGate::default();
    check_with(
        &gate,
        TurnLimits::default(),
        vec![
            reply(vec![
                call("c1", "write", json!({"path": "a"})),
                call("c2", "write", json!({"path": "b"})),
            ]),
            pick("c1", "allow-session"),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            tool_call c2 pending
            audit c2 ask
            ask c2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 granted
            store c1 Session Allow
            update c1 inprogress
            run c1 {"path":"a"}
            -- stored
            tell Grant stored: `write` is allowed for this session
            withdraw c2
            audit c2 allow
            update c2 inprogress
            run c2 {"path":"b"}
        "#]],
    );
    assert_eq!(
        *gate.grants.borrow(),
        [("write".to_owned(), GrantEffect::Allow, GrantScope::Session)]
    );
}

#[test]
fn reject_for_the_project_stores_a_deny_grant() {
    let gate = FakeGate::default();
    check_with(
        &gate,
        TurnLimits::default(),
        vec![
            reply(vec![
                call("c1", "write", json!({"path": "a"})),
                call("c2", "write", json!({"path": "b"})),
            ]),
            pick("c1", "reject-project"),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            tool_call c2 pending
            audit c2 ask
            ask c2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 denied
            store c1 Project Deny
            update c1 failed: You denied this call.
            -- stored
            tell Grant stored: `write` is denied in this project
            withdraw c2
            audit c2 deny
            update c2 failed: Denied by policy: write says so
            call model
        "#]],
    );
    assert_eq!(
        *gate.grants.borrow(),
        [("write".to_owned(), GrantEffect::Deny, GrantScope::Project)]
    );
}

#[test]
fn unknown_unoffered_and_failed_answers_are_denials() {
    check(
        vec![
            reply(vec![
                call("c1", "write", json!({})),
                call("c2", "rm", json!({})),
                call("c3", "write", json!({"x": 1})),
            ]),
            pick("c1", "allow-always"),
            pick("c2", "allow-session"),
            answer(
                "c3",
                Answer::Failed {
                    reason: "malformed response".to_owned(),
                },
            ),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            tool_call c2 pending
            audit c2 ask
            ask c2 [reject-once reject-and-stop allow-once]
            tool_call c3 pending
            audit c3 ask
            ask c3 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 error
            update c1 failed: Treated as a denial: the client chose `allow-always`, which was not offered. The call did not run.
            --
            audit c2 error
            update c2 failed: Treated as a denial: the client chose `allow-session`, which was not offered. The call did not run.
            --
            audit c3 error
            update c3 failed: The permission request failed (malformed response), which counts as a denial: the call did not run.
            call model
        "#]],
    );
}

#[test]
fn a_timeout_fails_the_call_as_timed_out() {
    check(
        vec![
            reply(vec![call("c1", "write", json!({}))]),
            answer("c1", Answer::TimedOut),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 timed_out
            update c1 failed: Timed out: nobody answered the permission request within 30 s, so the call did not run. This is not a denial.
            call model
        "#]],
    );
}

#[test]
fn a_cancelled_answer_fails_every_open_call_before_the_turn_ends() {
    check(
        vec![
            reply(vec![
                call("c1", "read", json!({})),
                call("c2", "write", json!({})),
                call("c3", "write", json!({"y": 1})),
            ]),
            answer("c2", Answer::Cancelled),
            done("c1", true),
            pick("c3", "allow-once"),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 allow
            update c1 inprogress
            run c1 {}
            tool_call c2 pending
            audit c2 ask
            ask c2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            tool_call c3 pending
            audit c3 ask
            ask c3 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c2 cancelled
            update c2 failed: Cancelled: the turn was cancelled before this call finished.
            stop c1
            update c1 failed: Cancelled: the turn was cancelled before this call finished.
            withdraw c3
            update c3 failed: Cancelled: the turn was cancelled before this call finished.
            end "cancelled"
            --
            --
        "#]],
    );
}

#[test]
fn session_cancel_while_a_request_is_pending() {
    let turn = check(
        vec![reply(vec![call("c1", "write", json!({}))]), Event::Cancel],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            withdraw c1
            update c1 failed: Cancelled: the turn was cancelled before this call finished.
            end "cancelled"
        "#]],
    );
    assert!(turn.is_ended());
}

#[test]
fn invalid_calls_fail_without_asking() {
    check(
        vec![reply(vec![call("c1", "bad", json!({}))])],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 malformed
            update c1 failed: Invalid call: bad: missing field `path`
            call model
        "#]],
    );
}

#[test]
fn edited_input_is_evaluated_again_and_a_raised_risk_asks_again() {
    let edit = |question: u32, input: serde_json::Value| {
        answer_to(
            "c1",
            question,
            Answer::Selected {
                option_id: "allow-once".to_owned(),
                edited_input: Some(input),
                note: Some("careful".to_owned()),
            },
        )
    };
    let turn = check(
        vec![
            reply(vec![call("c1", "write", json!({"path": "a"}))]),
            edit(1, json!({"path": "b", "risky": true})),
            edit(2, json!({"path": "c"})),
            done("c1", true),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 ask
            update c1 edit: Critical: write is critical
            audit c1 granted
            ask c1 question 2 (edited) [reject-once reject-and-stop allow-once reject-project]
            --
            audit c1 ask
            update c1 edit: Medium: write is medium
            audit c1 granted
            update c1 inprogress
            run c1 {"path":"c"}
            --
            update c1 completed
            call model
        "#]],
    );
    let notes: Vec<_> = turn
        .conversation()
        .messages()
        .iter()
        .filter_map(|m| match m {
            Message::UserNote { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(notes, ["careful", "careful"]);
}

#[test]
fn an_invalid_edit_does_not_run() {
    check(
        vec![
            reply(vec![call("c1", "write", json!({"path": "a"}))]),
            answer(
                "c1",
                Answer::Selected {
                    option_id: "allow-once".to_owned(),
                    edited_input: Some(json!({"invalid": true})),
                    note: None,
                },
            ),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 error
            update c1 failed: The edited input is invalid (write: missing field `path`); the call did not run.
            call model
        "#]],
    );
}

#[test]
fn a_denial_note_reaches_the_model_as_the_reason() {
    let turn = check(
        vec![
            reply(vec![call("c1", "write", json!({}))]),
            answer(
                "c1",
                Answer::Selected {
                    option_id: "reject-once".to_owned(),
                    edited_input: None,
                    note: Some("not on main".to_owned()),
                },
            ),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 denied
            update c1 failed: You denied this call: not on main
            call model
        "#]],
    );
    assert!(matches!(
        turn.conversation().messages().last(),
        Some(Message::ToolResult { content, .. }) if content == "User denied tool invocation: not on main"
    ));
}

#[test]
fn limits_deny_instead_of_flooding_the_user() {
    check_with(
        &FakeGate::default(),
        TurnLimits {
            max_model_requests: 2,
            max_pending: 1,
            max_asks: 8,
        },
        vec![
            reply(vec![
                call("c1", "write", json!({})),
                call("c2", "write", json!({"b": 1})),
            ]),
            pick("c1", "reject-once"),
            reply(vec![call("c3", "read", json!({}))]),
            done("c3", true),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            tool_call c2 pending
            audit c2 ask
            update c2 failed: Denied without asking: too many permission requests in this turn (at most 1 waiting at once and 8 per turn). write says so
            --
            audit c1 denied
            update c1 failed: You denied this call.
            call model
            --
            tool_call c3 pending
            audit c3 allow
            update c3 inprogress
            run c3 {}
            --
            update c3 completed
            message
            end "max_turn_requests"
        "#]],
    );
}

#[test]
fn a_length_cut_off_runs_nothing_and_ends_max_tokens() {
    let turn = check(
        vec![Event::ModelReplied {
            text: String::new(),
            calls: vec![call("c1", "read", json!({}))],
            finish: FinishReason::MaxTokens,
            files: Files::default(),
        }],
        expect![[r#"
            call model
            --
            end "max_tokens"
        "#]],
    );
    assert!(matches!(
        turn.conversation().messages().last(),
        Some(Message::ToolResult { .. })
    ));
}

#[test]
fn late_answers_and_results_change_nothing() {
    check(
        vec![
            reply(vec![call("c1", "read", json!({}))]),
            pick("c1", "allow-once"),
            done("zz", true),
            done("c1", true),
            done("c1", true),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 allow
            update c1 inprogress
            run c1 {}
            --
            --
            --
            update c1 completed
            call model
            --
        "#]],
    );
}

#[test]
fn a_model_failure_is_said_and_ends_the_turn() {
    check(
        vec![Event::ModelFailed {
            error: "The model server refused the connection.".to_owned(),
        }],
        expect![[r#"
            call model
            --
            message
            end "end_turn"
        "#]],
    );
}

/// A client that shows forms is offered `edit-or-note`; choosing it opens the form, and
/// the form's answer settles the call like the `_meta` extension's: edited input is
/// evaluated again, a raised risk asks again.
#[test]
fn the_form_option_opens_a_form_whose_answer_settles_the_call() {
    check_turn(
        &FakeGate::default(),
        TurnLimits::default(),
        true,
        vec![
            reply(vec![
                call("c1", "write", json!({"path": "a"})),
                call("c2", "write", json!({"path": "b"})),
            ]),
            pick("c1", "edit-or-note"),
            answer(
                "c1",
                Answer::Selected {
                    option_id: "allow-once".to_owned(),
                    edited_input: Some(json!({"path": "c"})),
                    note: Some("and c only".to_owned()),
                },
            ),
            pick("c2", "edit-or-note"),
            answer(
                "c2",
                Answer::Selected {
                    option_id: "reject-once".to_owned(),
                    edited_input: None,
                    note: Some("not b".to_owned()),
                },
            ),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project edit-or-note]
            tool_call c2 pending
            audit c2 ask
            ask c2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project edit-or-note]
            --
            elicit c1 question 1 {"path":"a"}
            --
            audit c1 ask
            update c1 edit: Medium: write is medium
            audit c1 granted
            update c1 inprogress
            run c1 {"path":"c"}
            --
            elicit c2 question 1 {"path":"b"}
            --
            audit c2 denied
            update c2 failed: You denied this call: not b
        "#]],
    );
}

/// Feeds events one by one without carrying out grant stores, so a scenario decides
/// when (and whether) a store's result comes back.
fn check_manual(gate: &dyn Gate, events: Vec<Event>, expect: Expect) -> Turn {
    let (mut turn, first) = Turn::start(
        Conversation::new(),
        "go".to_owned(),
        TurnLimits::default(),
        Words::default(),
    );
    let mut lines: Vec<String> = first.iter().map(render).collect();
    for event in events {
        lines.push("--".to_owned());
        lines.extend(turn.handle(event, gate).iter().map(render));
    }
    expect.assert_eq(&(lines.join("\n") + "\n"));
    turn
}

fn stored(call_id: &str, stored: Stored) -> Event {
    Event::GrantStored {
        call_id: call_id.to_owned(),
        scope: GrantScope::Session,
        effect: GrantEffect::Allow,
        stored,
    }
}

#[test]
fn the_model_is_not_called_again_before_a_grant_is_stored() {
    check_manual(
        &FakeGate::default(),
        vec![
            reply(vec![call("c1", "write", json!({"path": "a"}))]),
            pick("c1", "allow-session"),
            done("c1", true),
            stored("c1", Stored::Yes),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 granted
            store c1 Session Allow
            update c1 inprogress
            run c1 {"path":"a"}
            --
            update c1 completed
            --
            tell Grant stored: `write` is allowed for this session
            call model
        "#]],
    );
}

#[test]
fn a_grant_that_could_not_be_stored_is_said_and_the_answer_still_stands() {
    check_manual(
        &FakeGate::default(),
        vec![
            reply(vec![
                call("c1", "write", json!({"path": "a"})),
                call("c2", "write", json!({"path": "b"})),
            ]),
            pick("c1", "allow-session"),
            stored(
                "c1",
                Stored::No {
                    reason: "the grants file is locked".to_owned(),
                },
            ),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            tool_call c2 pending
            audit c2 ask
            ask c2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 granted
            store c1 Session Allow
            update c1 inprogress
            run c1 {"path":"a"}
            --
            tell The grant was not stored: `write` will be asked about again
        "#]],
    );
}

/// A gate whose proposal names how many times it evaluated: what is stored must be
/// what the request showed, not what a later evaluation would propose.
#[derive(Default)]
struct DriftingGate {
    inner: FakeGate,
    evaluations: std::cell::Cell<u32>,
    remembered: RefCell<Vec<String>>,
}

impl Gate for DriftingGate {
    fn prepare(&self, tool: &str, args: &serde_json::Value) -> Result<Prepared, PrepareError> {
        self.inner.prepare(tool, args)
    }

    fn evaluate(&self, call: &Prepared) -> Verdict {
        let n = self.evaluations.get() + 1;
        self.evaluations.set(n);
        let mut verdict = self.inner.evaluate(call);
        verdict.proposal = Some(crate::gate::Proposal::named(&format!("proposal {n}")));
        verdict
    }

    fn remember(
        &self,
        _call: &Prepared,
        verdict: &Verdict,
        _scope: GrantScope,
        _effect: GrantEffect,
    ) -> Result<Option<warden_permissions::Grant>, RememberError> {
        let words = verdict.proposal_words().unwrap_or("none").to_owned();
        self.remembered.borrow_mut().push(words);
        Ok(None)
    }
}

#[test]
fn what_is_stored_is_the_grant_the_request_offered() {
    let gate = DriftingGate::default();
    let (mut turn, _) = Turn::start(
        Conversation::new(),
        "go".to_owned(),
        TurnLimits::default(),
        Words::default(),
    );
    turn.handle(reply(vec![call("c1", "write", json!({}))]), &gate);
    // The world changes between the request and the answer.
    gate.evaluate(&gate.prepare("write", &json!({})).expect("prepared"));
    let commands = turn.handle(pick("c1", "allow-project"), &gate);
    for command in &commands {
        if let Command::Store(request) = command {
            gate.remember(
                &request.call,
                &request.verdict,
                request.scope,
                request.effect,
            )
            .expect("stored");
        }
    }
    assert_eq!(*gate.remembered.borrow(), ["proposal 1"]);
}

#[test]
fn a_reply_that_stops_without_a_finish_reason_is_judged_by_the_turn() {
    check(
        vec![Event::ModelStopped {
            text: "all done".to_owned(),
            calls: vec![],
        }],
        expect![[r#"
            call model
            --
            end "end_turn"
        "#]],
    );
    let turn = check(
        vec![Event::ModelStopped {
            text: String::new(),
            calls: vec![call("c1", "read", json!({}))],
        }],
        expect![[r#"
            call model
            --
            message
            end "end_turn"
        "#]],
    );
    // Nothing of the cut reply ran.
    assert!(
        !turn
            .conversation()
            .messages()
            .iter()
            .any(|m| matches!(m, Message::ToolResult { .. })),
        "{:?}",
        turn.conversation().messages()
    );
}

fn end_reply(text: &str) -> Event {
    Event::ModelReplied {
        text: text.to_owned(),
        calls: Vec::new(),
        finish: FinishReason::EndTurn,
        files: Files::default(),
    }
}

fn prompt_event(text: &str) -> Event {
    Event::Prompt {
        text: text.to_owned(),
    }
}

/// A restored session's turn with the call `c2` it left waiting (asked once before),
/// its commands after each event, the conversation's entries at the end, and the prompt
/// it took that never joined the conversation.
fn check_resumed(prompt: Option<&str>, events: Vec<Event>, expect: Expect) {
    check_resumed_with(None, prompt, events, expect);
}

/// As [`check_resumed`], with `answer` given to the call's first question while no
/// Warden ran.
fn check_resumed_with(
    answer: Option<StoredAnswer>,
    prompt: Option<&str>,
    events: Vec<Event>,
    expect: Expect,
) {
    let gate = FakeGate::default();
    let waiting = call("c2", "write", json!({"path": "a", "content": "x"}));
    let conversation = Conversation::from_messages(vec![
        warden_model::Message::User {
            text: "before".to_owned(),
        },
        warden_model::Message::Assistant {
            text: String::new(),
            tool_calls: vec![waiting.clone()],
        },
    ]);
    let (mut turn, first) = Turn::resume(
        conversation,
        ResumedBatch {
            calls: vec![Resumed {
                request: waiting,
                asked: 1,
                answer,
            }],
            files: Files::default(),
        },
        prompt.map(str::to_owned),
        TurnLimits::default(),
        false,
        Words::default(),
        &gate,
    );
    let mut lines: Vec<String> = first.iter().map(render).collect();
    for event in events {
        lines.push("--".to_owned());
        lines.extend(turn.handle(event, &gate).iter().map(render));
    }
    let roles: Vec<String> = turn
        .conversation()
        .messages()
        .iter()
        .map(|m| match m {
            warden_model::Message::User { text } => format!("user {text}"),
            warden_model::Message::Assistant { text, .. } => {
                format!("assistant {text}").trim_end().to_owned()
            }
            warden_model::Message::ToolResult { call_id, .. } => format!("result {call_id}"),
            warden_model::Message::UserNote { .. } => "note".to_owned(),
        })
        .collect();
    lines.push(format!("== {}", roles.join(" | ")));
    lines.push(format!("unjoined: {:?}", turn.take_unjoined_prompt()));
    expect.assert_eq(&(lines.join("\n") + "\n"));
}

/// A restored session's waiting call is judged and asked again before the prompt; the
/// prompt joins the conversation after the call's result, and only then is the model
/// called (a model must see a result for every call of a reply before the next prompt).
#[test]
fn a_resumed_turn_asks_the_waiting_calls_again_before_its_prompt() {
    check_resumed(
        Some("go on"),
        vec![pick_q("c2", 2, "allow-once"), done("c2", true)],
        expect![[r#"
            update c2 pending: Medium: write is medium
            audit c2 ask
            ask c2 question 2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c2 granted
            update c2 inprogress
            run c2 {"path":"a","content":"x"}
            --
            update c2 completed
            call model
            == user before | assistant | result c2 | user go on
            unjoined: None
        "#]],
    );
}

/// Restored without a prompt (asked again as the session is loaded), the turn goes on
/// where it stopped once the call is settled: the model is given the result, and the
/// turn ends with its reply.
#[test]
fn a_turn_resumed_at_load_goes_on_where_it_stopped() {
    check_resumed(
        None,
        vec![pick_q("c2", 2, "reject-once"), end_reply("understood")],
        expect![[r#"
            update c2 pending: Medium: write is medium
            audit c2 ask
            ask c2 question 2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c2 denied
            update c2 failed: You denied this call.
            call model
            --
            end "end_turn"
            == user before | assistant | result c2 | assistant understood
            unjoined: None
        "#]],
    );
}

/// A prompt sent while the resumed turn still waits for its call joins after the
/// call's result; one sent while the model answers joins after that reply, and the
/// model is asked again instead of the turn ending.
#[test]
fn a_prompt_sent_while_a_resumed_turn_runs_joins_it() {
    check_resumed(
        None,
        vec![
            prompt_event("first"),
            pick_q("c2", 2, "allow-once"),
            done("c2", true),
            end_reply("done"),
        ],
        expect![[r#"
            update c2 pending: Medium: write is medium
            audit c2 ask
            ask c2 question 2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            --
            audit c2 granted
            update c2 inprogress
            run c2 {"path":"a","content":"x"}
            --
            update c2 completed
            call model
            --
            end "end_turn"
            == user before | assistant | result c2 | user first | assistant done
            unjoined: None
        "#]],
    );
    check_resumed(
        None,
        vec![
            pick_q("c2", 2, "allow-once"),
            done("c2", true),
            prompt_event("second"),
            end_reply("done"),
            end_reply("and now"),
        ],
        expect![[r#"
            update c2 pending: Medium: write is medium
            audit c2 ask
            ask c2 question 2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c2 granted
            update c2 inprogress
            run c2 {"path":"a","content":"x"}
            --
            update c2 completed
            call model
            --
            --
            call model
            --
            end "end_turn"
            == user before | assistant | result c2 | assistant done | user second | assistant and now
            unjoined: None
        "#]],
    );
}

/// A turn that ends before a prompt it took could join (here the model fails) gives
/// the prompt back, so that it is not lost.
#[test]
fn a_prompt_a_resumed_turn_could_not_take_is_given_back() {
    check_resumed(
        None,
        vec![
            pick_q("c2", 2, "reject-once"),
            prompt_event("later"),
            Event::ModelFailed {
                error: "down".to_owned(),
            },
        ],
        expect![[r#"
            update c2 pending: Medium: write is medium
            audit c2 ask
            ask c2 question 2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c2 denied
            update c2 failed: You denied this call.
            call model
            --
            --
            message
            end "end_turn"
            == user before | assistant | result c2
            unjoined: Some("later")
        "#]],
    );
}

/// `allow-once` to the first question about `c1`, with an edit that makes it Critical.
fn raising_edit() -> Event {
    answer_to(
        "c1",
        1,
        Answer::Selected {
            option_id: "allow-once".to_owned(),
            edited_input: Some(json!({"path": "b", "risky": true})),
            note: None,
        },
    )
}

/// What broke: a call edited to a higher risk was asked again, the user rejected the
/// second question, and the call ran anyway (the first question's `allow-once` stood
/// in for the second's answer). The rejection of the latest question is final.
#[test]
fn a_rejected_reask_after_a_raising_edit_never_runs() {
    check(
        vec![
            reply(vec![call("c1", "write", json!({"path": "a"}))]),
            raising_edit(),
            pick_q("c1", 2, "reject-once"),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 ask
            update c1 edit: Critical: write is critical
            audit c1 granted
            ask c1 question 2 (edited) [reject-once reject-and-stop allow-once reject-project]
            --
            audit c1 denied
            update c1 failed: You denied this call.
            call model
        "#]],
    );
}

/// An answer to an earlier question about a call (late, or replayed) is not an answer
/// to its latest question: it changes nothing, and the call waits for its own answer.
#[test]
fn an_answer_to_an_earlier_question_changes_nothing() {
    check(
        vec![
            reply(vec![call("c1", "write", json!({"path": "a"}))]),
            raising_edit(),
            pick_q("c1", 1, "allow-once"),
            pick_q("c1", 3, "allow-once"),
            pick_q("c1", 2, "allow-once"),
            done("c1", true),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c1 ask
            update c1 edit: Critical: write is critical
            audit c1 granted
            ask c1 question 2 (edited) [reject-once reject-and-stop allow-once reject-project]
            --
            --
            --
            audit c1 granted
            update c1 inprogress
            run c1 {"path":"b","risky":true}
            --
            update c1 completed
            call model
        "#]],
    );
}

/// An answer given with `warden pending` while no Warden ran is applied at load, to the
/// question it answered, without asking again: an approval runs the call once, a denial
/// fails it.
#[test]
fn an_offline_answer_is_used_at_load_without_a_second_question() {
    let stored = |option: &str| StoredAnswer {
        option_id: option.to_owned(),
        note: Some("from the other terminal".to_owned()),
        shown_risk: Risk::Medium,
    };
    check_resumed_with(
        Some(stored("allow-once")),
        None,
        vec![done("c2", true)],
        expect![[r#"
            update c2 pending: Medium: write is medium
            audit c2 ask
            audit c2 granted
            update c2 inprogress
            run c2 {"path":"a","content":"x"}
            --
            update c2 completed
            call model
            == user before | assistant | result c2 | note
            unjoined: None
        "#]],
    );
    check_resumed_with(
        Some(stored("reject-once")),
        None,
        vec![end_reply("understood")],
        expect![[r#"
            update c2 pending: Medium: write is medium
            audit c2 ask
            audit c2 denied
            update c2 failed: You denied this call: from the other terminal
            call model
            --
            end "end_turn"
            == user before | assistant | result c2 | assistant understood
            unjoined: None
        "#]],
    );
}

/// An offline approval covers the call as its question showed it: when the call's risk
/// rose since (today's policy rates it higher), it is asked again, as its next question.
#[test]
fn an_offline_approval_of_a_lower_risk_is_asked_again() {
    check_resumed_with(
        Some(StoredAnswer {
            option_id: "allow-once".to_owned(),
            note: None,
            shown_risk: Risk::Low,
        }),
        None,
        vec![pick_q("c2", 2, "reject-once")],
        expect![[r#"
            update c2 pending: Medium: write is medium
            audit c2 ask
            ask c2 question 2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c2 denied
            update c2 failed: You denied this call.
            call model
            == user before | assistant | result c2
            unjoined: None
        "#]],
    );
}

#[test]
fn reject_and_stop_denies_the_call_closes_the_others_and_ends_the_turn() {
    let turn = check(
        vec![
            reply(vec![
                call("c1", "read", json!({})),
                call("c2", "write", json!({})),
                call("c3", "write", json!({"path": "b"})),
            ]),
            pick("c2", "reject-and-stop"),
            // What comes after the turn ended changes nothing.
            pick("c3", "allow-once"),
            done("c1", true),
        ],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 allow
            update c1 inprogress
            run c1 {}
            tool_call c2 pending
            audit c2 ask
            ask c2 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            tool_call c3 pending
            audit c3 ask
            ask c3 [allow-once allow-session allow-project reject-once reject-and-stop reject-project]
            --
            audit c2 denied
            update c2 failed: You denied this call.
            stop c1
            update c1 failed: Not run: you stopped the turn before this call finished.
            withdraw c3
            update c3 failed: Not run: you stopped the turn before this call finished.
            message
            end "end_turn"
            --
            --
        "#]],
    );
    // The model is told the contract's words for the denied call, and every call has
    // a result, so the next request sees a well-formed history.
    let results: Vec<_> = turn
        .conversation()
        .messages()
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult {
                call_id, content, ..
            } => Some(format!("{call_id}: {content}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            "c2: User denied tool invocation",
            "c1: Not run: the user stopped the turn before this call finished.",
            "c3: Not run: the user stopped the turn before this call finished.",
        ]
    );
}

#[test]
fn a_critical_call_offers_reject_and_stop_right_after_reject_once() {
    check(
        vec![reply(vec![call("c1", "rm", json!({}))])],
        expect![[r#"
            call model
            --
            tool_call c1 pending
            audit c1 ask
            ask c1 [reject-once reject-and-stop allow-once]
        "#]],
    );
}

#[test]
fn a_person_reads_denials_and_timeouts_in_their_language_the_model_in_english() {
    let gate = FakeGate::default();
    let (mut turn, _) = Turn::start(
        Conversation::new(),
        "go".to_owned(),
        TurnLimits::default(),
        Words::new(warden_i18n::Language::SimplifiedChinese),
    );
    turn.handle(
        reply(vec![
            call("c1", "write", json!({})),
            call("c2", "write", json!({"path": "b"})),
        ]),
        &gate,
    );
    let failed = |commands: Vec<Command>| -> Vec<String> {
        commands
            .into_iter()
            .filter_map(|c| match c {
                Command::Failed { reason, .. } => Some(reason),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        failed(turn.handle(answer("c1", Answer::TimedOut), &gate)),
        ["已超时：30 秒内无人回答权限请求，因此该调用没有运行。这不是拒绝。"]
    );
    assert_eq!(
        failed(turn.handle(pick("c2", "reject-once"), &gate)),
        ["你拒绝了这个调用。"]
    );
    let results: Vec<_> = turn
        .conversation()
        .messages()
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            "The permission request timed out: the user did not answer within 30 s, so the call did not run. It was not denied.",
            "User denied tool invocation",
        ]
    );
}
