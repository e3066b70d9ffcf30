use agent_client_protocol::v1::schema::{PermissionOption, PermissionOptionKind, ToolCallUpdate};
use serde_json::json;

use super::*;

const WARDEN: &[(&str, &str, PermissionOptionKind)] = &[
    ("allow-once", "Allow once", PermissionOptionKind::AllowOnce),
    (
        "allow-session",
        "Always allow in this session",
        PermissionOptionKind::AllowAlways,
    ),
    (
        "allow-project",
        "Always allow in this project",
        PermissionOptionKind::AllowAlways,
    ),
    ("reject-once", "Reject", PermissionOptionKind::RejectOnce),
    (
        "reject-project",
        "Always reject in this project",
        PermissionOptionKind::RejectAlways,
    ),
];
/// Warden's order for a Critical call: reject-once first, no "always allow".
const CRITICAL: &[(&str, &str, PermissionOptionKind)] = &[
    ("reject-once", "Reject", PermissionOptionKind::RejectOnce),
    ("allow-once", "Allow once", PermissionOptionKind::AllowOnce),
];

fn request(
    id: &str,
    risk: Option<&str>,
    options: &[(&str, &str, PermissionOptionKind)],
) -> RequestPermissionRequest {
    let options = options
        .iter()
        .map(|(id, name, kind)| PermissionOption::new(id.to_string(), name.to_string(), *kind))
        .collect();
    let mut request = RequestPermissionRequest::new(
        "s".to_owned(),
        ToolCallUpdate::new(id.to_owned(), Default::default()),
        options,
    );
    if let Some(risk) = risk {
        request = request.meta(json!({"warden": {"risk": risk}}).as_object().cloned());
    }
    request
}

#[test]
fn each_option_shows_its_key_and_enter_never_allows_a_critical_call_or_an_unknown_risk() {
    let check = |risk: Option<&str>, options, line: &str, keys: &str| {
        let buttons = Buttons::new(&request("c", risk, options), en());
        assert_eq!(buttons.line(Style::PLAIN, en()), line, "{risk:?}");
        assert_eq!(buttons.keys(en(), true, false, false), keys, "{risk:?}");
    };
    check(
        Some("medium"),
        WARDEN,
        "[a] Allow for this chat  [o] Allow once (Enter)  [d] Deny  [1] Always allow in this project  [2] Always reject in this project",
        "keys: > arguments · e edit · n note",
    );
    check(
        Some("critical"),
        CRITICAL,
        "[o] Allow once  [d] Deny (Enter)",
        "keys: > arguments · e edit · n note",
    );
    // Marked Critical but ordered allow-first by another agent: Enter still denies.
    check(
        Some("critical"),
        WARDEN,
        "[a] Allow for this chat  [o] Allow once  [d] Deny (Enter)  [1] Always allow in this project  [2] Always reject in this project",
        "keys: > arguments · e edit · n note",
    );
    // An agent that sends no risk: its own option names, and Enter picks nothing, not
    // even a denial, until a key is chosen.
    check(
        None,
        CRITICAL,
        "[o] Allow once  [d] Reject",
        "keys: > arguments · e edit · n note · Enter picks nothing: choose an option's key",
    );
    check(
        None,
        &[
            (
                "yes",
                "Yes, and don't ask again",
                PermissionOptionKind::AllowAlways,
            ),
            ("no", "No", PermissionOptionKind::RejectAlways),
        ],
        "[a] Yes, and don't ask again  [1] No",
        "keys: > arguments · e edit · n note · Enter picks nothing: choose an option's key",
    );
    // No option that refuses: the person is told how to refuse anyway.
    check(
        None,
        &[("yes", "Yes", PermissionOptionKind::AllowOnce)],
        "[o] Yes",
        "keys: > arguments · e edit · n note · Enter picks nothing: choose an option's key · the agent offers no option to refuse: Ctrl-C cancels the turn",
    );
    // A folded diff offers its key; undo when there is something to undo.
    let buttons = Buttons::new(&request("c", Some("low"), WARDEN), en());
    assert_eq!(
        buttons.keys(en(), false, true, true),
        "keys: > arguments · v whole diff · u undo"
    );
}

#[test]
fn enter_does_nothing_for_an_agent_that_sends_no_risk() {
    let (steps, answers) = run(
        vec![request("1", None, WARDEN)],
        &[Key::Enter, Key::Char('d')],
        false,
    );
    assert_eq!(
        steps,
        [
            Step::Ignored,
            Step::Sent {
                index: 0,
                disposition: shown(false, "Denied"),
                count: 1
            }
        ]
    );
    assert_eq!(
        answers,
        [r#"{"outcome":{"outcome":"selected","optionId":"reject-once"}}"#]
    );
}

#[test]
fn v_shows_the_whole_diff_and_folds_it_again() {
    let mut batch = Batch::default();
    let (tx, _rx) = oneshot::channel();
    batch.push(request("1", Some("medium"), WARDEN), tx);
    assert_eq!(batch.key(Key::Char('v'), false), Step::Redraw);
    assert!(batch.get(0).expect("open").whole_diff);
    assert_eq!(batch.key(Key::Char('v'), false), Step::Redraw);
    assert!(!batch.get(0).expect("open").whole_diff);
}

/// Runs `keys` over a batch of `requests`; returns each step and the answers that went
/// back, by request, as `option` or `cancelled`, with their `_meta`.
fn run(
    requests: Vec<RequestPermissionRequest>,
    keys: &[Key],
    extras: bool,
) -> (Vec<Step>, Vec<String>) {
    let mut batch = Batch::default();
    let mut replies = Vec::new();
    for request in requests {
        let (tx, rx) = oneshot::channel();
        batch.push(request, tx);
        replies.push(rx);
    }
    let mut steps = Vec::new();
    for key in keys {
        match key {
            Key::Char('E') => {
                let i = batch.current().expect("open");
                batch.get_mut(i).expect("pending").edited = Some(json!({"path": "edited.txt"}));
            }
            Key::Char('N') => {
                let i = batch.current().expect("open");
                batch.get_mut(i).expect("pending").note = Some("why".to_owned());
            }
            Key::Char('C') => {
                batch.cancel_all();
            }
            key => steps.push(batch.key(*key, extras)),
        }
    }
    let answers = replies
        .into_iter()
        .map(|mut rx| match rx.try_recv() {
            Ok(response) => serde_json::to_string(&response).expect("json"),
            Err(_) => "open".to_owned(),
        })
        .collect();
    (steps, answers)
}

fn answered(index: usize, disposition: &str) -> Step {
    Step::Answered {
        index,
        disposition: shown(disposition.starts_with("Approved"), disposition),
    }
}

#[test]
fn a_batch_is_answered_one_at_a_time_and_goes_back_together() {
    let three = || {
        vec![
            request("1", Some("medium"), WARDEN),
            request("2", Some("medium"), WARDEN),
            request("3", Some("critical"), CRITICAL),
        ]
    };
    let (steps, answers) = run(three(), &[Key::Char('a'), Key::Char('o')], false);
    assert_eq!(
        steps,
        [
            answered(0, "Approved for session"),
            answered(1, "Approved once")
        ]
    );
    // Nothing goes back before the last answer.
    assert_eq!(answers, ["open", "open", "open"]);

    let (steps, answers) = run(
        three(),
        &[Key::Char('a'), Key::Char('o'), Key::Enter],
        false,
    );
    assert_eq!(
        steps.last(),
        Some(&Step::Sent {
            index: 2,
            disposition: shown(false, "Denied"),
            count: 3
        })
    );
    assert_eq!(
        answers,
        [
            r#"{"outcome":{"outcome":"selected","optionId":"allow-session"}}"#,
            r#"{"outcome":{"outcome":"selected","optionId":"allow-once"}}"#,
            r#"{"outcome":{"outcome":"selected","optionId":"reject-once"}}"#,
        ]
    );
}

#[test]
fn undo_reopens_the_last_answer_until_the_batch_is_sent() {
    let two = || {
        vec![
            request("1", Some("medium"), WARDEN),
            request("2", Some("medium"), WARDEN),
        ]
    };
    let (steps, answers) = run(
        two(),
        &[
            Key::Char('a'),
            Key::Char('u'),
            Key::Char('d'),
            Key::Char('o'),
        ],
        false,
    );
    assert_eq!(
        steps,
        [
            answered(0, "Approved for session"),
            Step::Undone { index: 0 },
            answered(0, "Denied"),
            Step::Sent {
                index: 1,
                disposition: shown(true, "Approved once"),
                count: 2
            },
        ]
    );
    assert_eq!(
        answers,
        [
            r#"{"outcome":{"outcome":"selected","optionId":"reject-once"}}"#,
            r#"{"outcome":{"outcome":"selected","optionId":"allow-once"}}"#,
        ]
    );
    // Nothing to undo on the first request; unknown keys do nothing.
    let (steps, _) = run(
        two(),
        &[Key::Char('u'), Key::Char('z'), Key::Char('>')],
        false,
    );
    assert_eq!(steps, [Step::Ignored, Step::Ignored, Step::Redraw]);
}

#[test]
fn ctrl_c_answers_every_open_request_cancelled_answered_ones_too() {
    let two = vec![request("1", None, WARDEN), request("2", None, WARDEN)];
    let (_, answers) = run(two, &[Key::Char('o'), Key::Char('C')], false);
    assert_eq!(answers, [r#"{"outcome":{"outcome":"cancelled"}}"#; 2]);
}

#[test]
fn edits_and_notes_travel_in_wardens_meta_only_when_the_agent_reads_it() {
    let one = || vec![request("1", None, WARDEN)];
    let (_, answers) = run(
        one(),
        &[Key::Char('E'), Key::Char('N'), Key::Char('o')],
        true,
    );
    assert_eq!(
        answers,
        [
            r#"{"outcome":{"outcome":"selected","optionId":"allow-once"},"_meta":{"warden":{"editedInput":{"path":"edited.txt"},"note":"why"}}}"#
        ]
    );
    // A denial carries the note, not the edit.
    let (_, answers) = run(
        one(),
        &[Key::Char('E'), Key::Char('N'), Key::Char('d')],
        true,
    );
    assert_eq!(
        answers,
        [
            r#"{"outcome":{"outcome":"selected","optionId":"reject-once"},"_meta":{"warden":{"note":"why"}}}"#
        ]
    );
    // An agent that does not read the extension gets the plain answer, and no edit keys.
    let (steps, answers) = run(
        one(),
        &[
            Key::Char('e'),
            Key::Char('n'),
            Key::Char('E'),
            Key::Char('o'),
        ],
        false,
    );
    assert_eq!(steps[..2], [Step::Ignored, Step::Ignored]);
    assert_eq!(
        answers,
        [r#"{"outcome":{"outcome":"selected","optionId":"allow-once"}}"#]
    );
    let (steps, _) = run(one(), &[Key::Char('e'), Key::Char('n')], true);
    assert_eq!(steps, [Step::Edit, Step::Note]);
}

/// The English catalog, which these tables are written in.
fn en() -> &'static warden_i18n::Catalog {
    warden_i18n::catalog(warden_i18n::Language::English)
}

fn shown(allowed: bool, text: &str) -> Disposition {
    Disposition {
        allowed,
        text: text.to_owned(),
    }
}
