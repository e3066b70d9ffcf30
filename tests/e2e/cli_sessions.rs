//! `warden sessions` and `warden pending`, end to end through the binary, on sessions
//! written with the store's own journal (as a Warden that stopped mid-turn left them).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;
use warden_journal::{
    CallStatus, FinishedCall, Header, OfferedOption, OptionKind, ProposedCall, Record,
    SessionStore, ToolKind, now_ms,
};
use warden_permissions::Risk;

use super::chat_pty::pty::Pty;

fn warden(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .env("WARDEN_HOME", home)
        .env_remove("XDG_STATE_HOME")
        .output()
        .expect("run warden")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

fn call(id: &str, command: &str) -> ProposedCall {
    ProposedCall {
        id: id.into(),
        tool: "terminal".into(),
        args: json!({ "command": command }),
        title: command.into(),
        kind: ToolKind::Execute,
        risk: Risk::High,
        reason: "runs a command".into(),
        options: vec![
            OfferedOption {
                id: "allow-once".into(),
                name: "Allow once".into(),
                kind: OptionKind::AllowOnce,
            },
            OfferedOption {
                id: "reject-once".into(),
                name: "Reject".into(),
                kind: OptionKind::RejectOnce,
            },
        ],
        grant: None,
        at_ms: now_ms() - 90_000,
    }
}

/// A session whose turn asked about `c1` and stopped there, after `c0` completed.
fn write_session(home: &Path, id: &str, cwd: &str) {
    let store = SessionStore::open(home.join("sessions")).expect("open");
    let mut j = store
        .create(&Header {
            id: id.into(),
            cwd: cwd.into(),
            created_ms: now_ms() - 120_000,
            model: "scripted".into(),
            mode: "ask".into(),
            title: Some(format!("title of {id}")),
        })
        .expect("create");
    for r in [
        Record::UserMessage {
            text: "append a line".into(),
        },
        Record::Proposed(call("c0", "ls")),
        Record::Running { call: "c0".into() },
        Record::Finished(FinishedCall {
            call: "c0".into(),
            status: CallStatus::Completed,
            summary: "a.txt".into(),
            told: "a.txt".into(),
        }),
        Record::Proposed(call("c1", "echo x >> log.txt")),
        Record::Asked {
            call: "c1".into(),
            request: "3".into(),
            question: 1,
            edited: false,
        },
    ] {
        j.append(&r).expect("append");
    }
}

#[test]
fn pending_lists_waiting_calls_across_sessions_and_answers_each_once() {
    let home = tempfile::tempdir().expect("tempdir");
    write_session(home.path(), "sess_a", "/work/alpha");
    write_session(home.path(), "sess_b", "/work/beta");

    let out = warden(home.path(), &["pending", "list"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for (line, (id, session, cwd)) in lines[1..].iter().zip([
        ("sess_a/c1", "sess_a", "/work/alpha"),
        ("sess_b/c1", "sess_b", "/work/beta"),
    ]) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            cols[..7],
            [id, session, cwd, "terminal", "high", "1m", "echo"],
            "{text}"
        );
    }
    for header in ["ID", "SESSION", "CWD", "TOOL", "RISK", "AGE", "TITLE"] {
        assert!(lines[0].contains(header), "{text}");
    }

    // A prefix two calls share names neither.
    let out = warden(home.path(), &["pending", "approve", "sess_"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stdout(&out).contains("sess_a/c1") && stdout(&out).contains("sess_b/c1"));

    let out = warden(home.path(), &["pending", "approve", "sess_a/c1", "--yes"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).starts_with("Approved sess_a/c1"),
        "{}",
        stdout(&out)
    );
    let out = warden(
        home.path(),
        &["pending", "deny", "sess_b", "--note", "use printf"],
    );
    assert!(out.status.success(), "{out:?}");

    // Both are answered: nothing waits, and a second answer finds the call answered
    // before and is refused.
    let out = warden(home.path(), &["pending", "list"]);
    assert_eq!(stdout(&out), "No tool call is waiting for approval.\n");
    let out = warden(home.path(), &["pending", "deny", "sess_a/c1"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stdout(&out).starts_with("sess_a/c1 was answered before (allow-once by warden pending)"),
        "{}",
        stdout(&out)
    );

    // The answers are what the session loads with.
    let store = SessionStore::open(home.path().join("sessions")).expect("open");
    let a = store.load("sess_a").expect("load");
    let b = store.load("sess_b").expect("load");
    let answer = |s: &warden_journal::LoadedSession| {
        let a = &s.answered[0].answer;
        (a.option.clone(), a.note.clone())
    };
    assert_eq!(answer(&a), ("allow-once".to_owned(), None));
    assert_eq!(
        answer(&b),
        ("reject-once".to_owned(), Some("use printf".to_owned()))
    );

    // The audit log says who answered, and that the second answer was refused.
    let out = warden(home.path(), &["audit", "tail", "--json"]);
    let audit = stdout(&out);
    assert_eq!(
        audit.matches("\"answered_by\":\"warden pending\"").count(),
        3,
        "{audit}"
    );
    assert_eq!(
        audit.matches("a second answer was refused").count(),
        1,
        "{audit}"
    );
}

/// Two terminals approving the same call at once: exactly one answer is used.
#[test]
fn two_processes_answering_one_call_have_one_winner() {
    let home = tempfile::tempdir().expect("tempdir");
    write_session(home.path(), "sess_a", "/work/alpha");
    let spawn = |verb: &str| {
        Command::new(env!("CARGO_BIN_EXE_warden"))
            .args(["pending", verb, "sess_a/c1", "--yes"])
            .env("WARDEN_HOME", home.path())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let children: Vec<_> = ["approve", "deny", "approve", "deny"]
        .into_iter()
        .map(spawn)
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    let won = outs.iter().filter(|o| o.status.success()).count();
    // A process that looked after the winner claimed finds nothing waiting (exit 1),
    // one that looked before is refused by the claim (exit 1): either way, one wins.
    assert_eq!(won, 1, "{outs:?}");
    assert!(
        outs.iter()
            .all(|o| o.status.success() || o.status.code() == Some(1))
    );
}

#[test]
fn sessions_are_listed_shown_and_deleted() {
    let home = tempfile::tempdir().expect("tempdir");
    write_session(home.path(), "sess_a", "/work/alpha");

    let out = warden(home.path(), &["sessions", "list", "--json"]);
    let line: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    assert_eq!(
        (
            &line["id"],
            &line["cwd"],
            &line["prompts"],
            &line["waiting"]
        ),
        (
            &json!("sess_a"),
            &json!("/work/alpha"),
            &json!(1),
            &json!(1)
        )
    );

    let out = warden(home.path(), &["sessions", "show", "sess_a"]);
    let text = stdout(&out);
    let body: Vec<&str> = text.lines().skip_while(|l| !l.is_empty()).collect();
    assert_eq!(
        body,
        [
            "",
            "> append a line",
            "[terminal] ls (completed)",
            "    a.txt",
            "[terminal] echo x >> log.txt (waiting for approval)",
        ],
        "{text}"
    );

    assert_eq!(
        warden(home.path(), &["sessions", "show", "nope"])
            .status
            .code(),
        Some(1)
    );
    assert!(
        warden(home.path(), &["sessions", "delete", "sess_a"])
            .status
            .success()
    );
    assert_eq!(
        warden(home.path(), &["sessions", "delete", "sess_a"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        stdout(&warden(home.path(), &["pending", "list"])),
        "No tool call is waiting for approval.\n"
    );
}

/// A sessions folder others may read or write is refused, with the reason, and
/// nothing in it is answered.
#[cfg(unix)]
#[test]
fn a_sessions_folder_others_may_use_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().expect("tempdir");
    write_session(home.path(), "sess_a", "/work/alpha");
    let sessions = home.path().join("sessions");
    std::fs::set_permissions(&sessions, std::fs::Permissions::from_mode(0o770)).expect("chmod");
    let out = warden(home.path(), &["pending", "approve", "sess_a/c1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to use") && err.contains("770"),
        "{err}"
    );
    assert!(!sessions.join("sess_a.answers").exists());
}

#[test]
fn pending_show_prints_the_arguments_the_diff_of_a_write_and_the_risk_sentence() {
    let home = tempfile::tempdir().expect("tempdir");
    let project = tempfile::tempdir().expect("project");
    let cwd = project.path().to_str().expect("utf-8").to_owned();
    std::fs::write(project.path().join("notes.txt"), "one\ntwo\n").expect("write");
    write_session(home.path(), "sess_a", &cwd);
    // A second waiting call: a write, whose diff is against the file as it is now.
    let store = SessionStore::open(home.path().join("sessions")).expect("open");
    let mut write = call("c2", "");
    write.tool = "fs_write".into();
    write.args = json!({"path": "notes.txt", "content": "one\n2\n"});
    write.kind = ToolKind::Edit;
    write.risk = Risk::Medium;
    write.title = "Write notes.txt".into();
    let mut j = store.reopen("sess_a").expect("journal");
    j.append(&Record::Proposed(write)).expect("append");
    j.append(&Record::Asked {
        call: "c2".into(),
        request: "4".into(),
        question: 1,
        edited: false,
    })
    .expect("append");
    let mut critical = call("c3", "rm -rf ~");
    critical.risk = Risk::Critical;
    j.append(&Record::Proposed(critical)).expect("append");
    j.append(&Record::Asked {
        call: "c3".into(),
        request: "5".into(),
        question: 1,
        edited: false,
    })
    .expect("append");
    drop(j);

    let out = warden(home.path(), &["pending", "show", "sess_a/c2"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for line in [
        "Call      sess_a/c2",
        "Tool      fs_write",
        "Risk      Medium: ",
        "  \"path\": \"notes.txt\",",
        "   one",
        "  -two",
        "  +2",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }

    // A command is shown as the command, and the risk sentence is the engine's words,
    // in `list --json`'s `reason` too (not the title).
    let out = warden(home.path(), &["pending", "show", "sess_a/c1"]);
    let text = stdout(&out);
    assert!(text.contains("  $ echo x >> log.txt"), "{text}");
    let out = warden(home.path(), &["pending", "list", "--json"]);
    let listed: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let c3 = listed
        .iter()
        .find(|l| l["id"] == "sess_a/c3")
        .unwrap_or_else(|| panic!("{listed:?}"));
    let reason = c3["reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("Critical: "), "{c3}");
    assert_ne!(reason, "Critical: runs a command", "{c3}");
    assert_eq!(c3["title"], "rm -rf ~", "{c3}");
}

#[test]
fn approving_a_high_call_needs_its_full_id_and_a_confirmation() {
    let home = tempfile::tempdir().expect("tempdir");
    write_session(home.path(), "sess_a", "/work/alpha");
    // A unique prefix names the call, but is not enough to approve a High one.
    let out = warden(home.path(), &["pending", "approve", "sess_a/c", "--yes"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stdout(&out).contains("approve it by its full id"),
        "{}",
        stdout(&out)
    );
    // The full id without a terminal to confirm on: --yes is needed.
    let out = warden(home.path(), &["pending", "approve", "sess_a/c1"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stdout(&out).contains("--yes"), "{}", stdout(&out));
    // Nothing was answered by either.
    assert!(stdout(&warden(home.path(), &["pending", "list"])).contains("sess_a/c1"));
    // A denial needs neither: refusing is always safe.
    let out = warden(home.path(), &["pending", "deny", "sess_a/c"]);
    assert!(out.status.success(), "{out:?}");
}

/// `warden pending approve ID` of a Critical call on a pseudo-terminal, typed at as a
/// person would: a session in `cwd` whose waiting call `c3` is `rm -rf ~`.
fn approve_at_a_terminal(home: &Path, cwd: &str) -> Pty {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .args(["pending", "approve", "sess_a/c3"])
        .env("WARDEN_HOME", home)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .current_dir(cwd);
    Pty::spawn(command, 100)
}

/// The confirmation at a terminal: the call is shown whole with its risk sentence and
/// its command before the question; "n" (and a bare Enter) refuses and leaves it
/// waiting, "y" approves it. `--yes` approves without a terminal, for scripts.
#[test]
fn approving_a_critical_call_at_a_terminal_shows_it_and_asks_to_confirm() {
    let home = tempfile::tempdir().expect("tempdir");
    let project = tempfile::tempdir().expect("project");
    let cwd = project.path().to_str().expect("utf-8").to_owned();
    write_session(home.path(), "sess_a", &cwd);
    let store = SessionStore::open(home.path().join("sessions")).expect("open");
    let mut critical = call("c3", "rm -rf ~");
    critical.risk = Risk::Critical;
    let mut j = store.reopen("sess_a").expect("journal");
    j.append(&Record::Proposed(critical)).expect("append");
    j.append(&Record::Asked {
        call: "c3".into(),
        request: "5".into(),
        question: 1,
        edited: false,
    })
    .expect("append");
    drop(j);
    let waiting = |id: &str| stdout(&warden(home.path(), &["pending", "list"])).contains(id);

    for refusal in ["n\r", "\r"] {
        let mut pty = approve_at_a_terminal(home.path(), &cwd);
        pty.expect("Call      sess_a/c3");
        pty.expect("Risk      Critical: ");
        pty.expect("  $ rm -rf ~");
        pty.expect("Approve this Critical call? [y/N] ");
        pty.send(refusal);
        pty.expect("Not approved; sess_a/c3 is still waiting.");
        assert_eq!(pty.wait().code(), Some(1), "{}", pty.text());
        assert!(waiting("sess_a/c3"), "{refusal:?}");
    }

    let mut pty = approve_at_a_terminal(home.path(), &cwd);
    pty.expect("Approve this Critical call? [y/N] ");
    pty.send("y\r");
    pty.expect("Approved sess_a/c3");
    assert_eq!(pty.wait().code(), Some(0), "{}", pty.text());
    assert!(!waiting("sess_a/c3"));

    // A script has no terminal: `--yes` (with the full id) approves without a question.
    let out = warden(home.path(), &["pending", "approve", "sess_a/c1", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!stdout(&out).contains("[y/N]"), "{}", stdout(&out));
    assert!(!waiting("sess_a/c1"));
}

#[test]
fn a_unique_start_of_a_session_id_names_it() {
    let home = tempfile::tempdir().expect("tempdir");
    write_session(home.path(), "sess_alpha", "/work/alpha");
    write_session(home.path(), "sess_beta", "/work/beta");
    let out = warden(home.path(), &["sessions", "show", "sess_al"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).starts_with("session sess_alpha\n"),
        "{}",
        stdout(&out)
    );
    // A start two ids share names neither.
    let out = warden(home.path(), &["sessions", "delete", "sess_"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stdout(&out).contains("sess_alpha") && stdout(&out).contains("sess_beta"));
    let out = warden(home.path(), &["sessions", "delete", "sess_b"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("Deleted session sess_beta."),
        "{}",
        stdout(&out)
    );
}
