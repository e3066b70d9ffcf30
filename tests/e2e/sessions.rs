//! Stored sessions with the real binary: what a turn leaves in its journal, answers
//! from another terminal (`warden pending`) applied by the running Warden, and what a
//! `kill -9` leaves behind.

use serde_json::{Value, json};

use super::support::{Answer, Client, Spawn};

fn selected(option: &str) -> Value {
    json!({"outcome": {"outcome": "selected", "optionId": option}})
}

/// A prompt whose one call appends a line to `out.txt` in the project: a call that
/// asks in the default mode, and whose runs can be counted.
fn append_prompt() -> String {
    format!(
        "/call terminal {}",
        json!({"command": "echo line >> out.txt"})
    )
}

fn lines(client: &Client) -> usize {
    std::fs::read_to_string(client.process().project().join("out.txt"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn cli(client: &Client, args: &[&str]) -> std::process::Output {
    client.process().cli(args, &[])
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The running Warden sees the answer file within its poll, withdraws the editor's
/// request, and runs the call once; the editor's late answer and a second `approve`
/// change nothing.
#[test]
fn an_approval_from_another_terminal_runs_the_waiting_call_once() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let prompt = client.send_prompt(&session, &append_prompt());
    let request = client.agent_request("session/request_permission");

    let list = cli(&client, &["pending", "list", "--json"]);
    let pending: Value = serde_json::from_str(stdout(&list).trim()).expect("one json line");
    let id = format!("{session}/call_1");
    assert_eq!(pending["id"], json!(id), "{pending}");
    assert_eq!(pending["tool"], "terminal");

    let out = cli(&client, &["pending", "approve", &id, "--note", "go ahead"]);
    assert!(out.status.success(), "{out:?}");

    let cancel = client.wait_for("the withdrawal of the editor's request", |m| {
        m["method"] == "$/cancel_request"
    });
    assert_eq!(cancel["params"]["requestId"], request["id"], "{cancel}");
    let result = client.response(&prompt);
    assert_eq!(result["result"]["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&client), 1);

    // The editor answers after all: the request was withdrawn, the call ran once.
    client.respond(&request, selected("allow-once"));
    let out = cli(&client, &["pending", "approve", &id]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    client.prompt(&session, "/say done");
    assert_eq!(lines(&client), 1);

    // The journal holds the answer once, and tells the story; the audit log says who
    // answered.
    let journal = std::fs::read_to_string(
        client
            .process()
            .home()
            .join("sessions")
            .join(format!("{session}.jsonl")),
    )
    .expect("the journal");
    assert_eq!(
        journal.matches("\"type\":\"answered\"").count(),
        1,
        "{journal}"
    );
    assert_eq!(
        journal.matches("\"by\":\"pending\"").count(),
        1,
        "{journal}"
    );
    let show = stdout(&cli(&client, &["sessions", "show", &session]));
    assert!(show.contains("(completed)"), "{show}");
    let audit = stdout(&cli(&client, &["audit", "tail", "--json"]));
    assert!(audit.contains("warden pending"), "{audit}");
}

/// The editor's answer is claimed before its call runs: `warden pending` then finds
/// the call answered and is refused.
#[test]
fn an_editor_s_answer_is_claimed_so_a_later_one_is_refused() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| Answer::Result(selected("allow-once")));
    client.prompt(&session, &append_prompt());
    assert_eq!(lines(&client), 1);
    let answers = client
        .process()
        .home()
        .join("sessions")
        .join(format!("{session}.answers"))
        .join("call_1");
    let claim: Value =
        serde_json::from_slice(&std::fs::read(&answers).expect("the claim file")).expect("json");
    assert_eq!(
        (&claim["option"], &claim["by"]),
        (&json!("allow-once"), &json!("editor"))
    );
    let out = cli(&client, &["pending", "deny", &format!("{session}/call_1")]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(lines(&client), 1);
}

/// Killed while a call waits for approval: the journal holds the session, the call
/// waits in `warden pending list`, and answering it changes no file (no Warden runs).
#[test]
fn a_kill_while_a_call_waits_leaves_it_pending_and_unrun() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let _prompt = client.send_prompt(&session, &append_prompt());
    let _request = client.agent_request("session/request_permission");
    client.process_mut().kill();

    let list = stdout(&cli(&client, &["pending", "list"]));
    assert!(list.contains(&format!("{session}/call_1")), "{list}");
    let sessions = stdout(&cli(&client, &["sessions", "list", "--json"]));
    let line: Value = serde_json::from_str(sessions.trim()).expect("one session");
    assert_eq!(
        (&line["id"], &line["prompts"], &line["waiting"]),
        (&json!(session), &json!(1), &json!(1))
    );
    let out = cli(&client, &["pending", "deny", &format!("{session}/call_1")]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(lines(&client), 0);
    assert_eq!(
        stdout(&cli(&client, &["pending", "list"])),
        "No tool call is waiting for approval.\n"
    );
}

/// A Warden killed while its session's call waits for approval (the call appends a
/// line to `out.txt`), with that session's id.
fn killed_while_asking() -> (Client, String) {
    let mut first = Client::spawn();
    let session = first.ready_session();
    let _prompt = first.send_prompt(&session, &append_prompt());
    let _request = first.agent_request("session/request_permission");
    first.process_mut().kill();
    (first, session)
}

/// A second Warden on the first one's folders (as after a restart).
fn restart(first: &Client) -> Client {
    let home = first.process().home().display().to_string();
    let mut second = Client::spawn_with(&Spawn::default().env("WARDEN_HOME", home));
    second.initialize();
    second
}

fn load_params(session: &str, cwd: &std::path::Path) -> Value {
    json!({"sessionId": session, "cwd": cwd.display().to_string(), "mcpServers": []})
}

/// Killed while a call runs, while one waits, and after one was approved: after the
/// restart, `session/load` replays the conversation with each call's last status, no
/// call runs again or unasked, and the model is told. Counted by the lines a
/// `terminal` call appends to a file.
#[test]
fn kill_9_then_load_runs_nothing_twice_or_unasked() {
    let mut first = Client::spawn();
    let session = first.ready_session();
    first.on_request(|_| Answer::Result(selected("allow-once")));
    first.prompt(&session, &append_prompt());
    assert_eq!(lines(&first), 1);
    // The second call waits: the process dies with it unanswered.
    let _prompt = first.send_prompt(&session, &append_prompt());
    first.on_request(|_| Answer::Hold);
    let _request = first.agent_request("session/request_permission");
    first.process_mut().kill();

    let project = first.process().project();
    let mut second = restart(&first);
    let caps = second.request_ok("initialize", super::support::initialize_params());
    assert_eq!(caps["agentCapabilities"]["loadSession"], true, "{caps}");
    let mark = second.mark();
    let loaded = second.request_ok("session/load", load_params(&session, &project));
    assert_eq!(loaded["modes"]["currentModeId"], "ask", "{loaded}");
    let replayed: Vec<Value> = second
        .received_since(mark)
        .into_iter()
        .filter(|m| m["method"] == "session/update")
        .map(|m| m["params"]["update"].clone())
        .collect();
    let kinds: Vec<String> = replayed
        .iter()
        .map(|u| {
            format!(
                "{} {}",
                u["sessionUpdate"].as_str().unwrap_or("?"),
                u["status"].as_str().unwrap_or("")
            )
        })
        .filter(|k| !k.starts_with("available_commands_update"))
        .collect();
    assert_eq!(
        kinds,
        [
            "user_message_chunk ",
            "tool_call completed",
            "agent_message_chunk ",
            "user_message_chunk ",
            "tool_call pending",
        ],
        "{replayed:?}"
    );
    // Nothing ran on load. Once the load is answered, the waiting call is asked again,
    // before any prompt; denied, it does not run.
    assert_eq!(lines(&first), 1);
    let asked = second.agent_request("session/request_permission");
    assert_eq!(asked["params"]["toolCall"]["toolCallId"], "call_2");
    second.respond(&asked, selected("reject-once"));
    let result = second.prompt(&session, "/say still there?");
    assert_eq!(result["stopReason"], "end_turn");
    let asked: Vec<Value> = second
        .received_since(mark)
        .into_iter()
        .filter(|m| m["method"] == "session/request_permission")
        .collect();
    assert_eq!(asked.len(), 1, "asked once: {asked:?}");
    assert!(second.agent_text().contains("still there?"));
    assert_eq!(lines(&first), 1);
    assert_eq!(
        stdout(&second.process().cli(&["pending", "list"], &[])),
        "No tool call is waiting for approval.\n"
    );
}

#[test]
fn load_refuses_another_cwd_and_unknown_ids_and_resume_list_close_work() {
    let mut first = Client::spawn();
    let session = first.ready_session();
    first.prompt(&session, "/say hello");
    first.finish();

    let project = first.process().project();
    let mut second = restart(&first);
    let err = second.request_err("session/load", load_params(&session, first.process().dir()));
    assert_eq!(err["code"], -32602, "{err}");
    let err = second.request_err("session/load", load_params("sess_nope", &project));
    assert_eq!(err["code"], -32002, "{err}");
    let err = second.request_err(
        "session/resume",
        json!({"sessionId": "../grants", "cwd": project.display().to_string()}),
    );
    assert_eq!(err["code"], -32002, "{err}");

    let list = second.request_ok(
        "session/list",
        json!({"cwd": project.display().to_string()}),
    );
    assert_eq!(list["sessions"][0]["sessionId"], json!(session), "{list}");
    let other = second.request_ok("session/list", json!({"cwd": "/nowhere"}));
    assert_eq!(other["sessions"], json!([]), "{other}");

    let mark = second.mark();
    second.request_ok(
        "session/resume",
        json!({"sessionId": session, "cwd": project.display().to_string()}),
    );
    let replayed = second
        .received_since(mark)
        .into_iter()
        .filter(|m| {
            m["method"] == "session/update"
                && m["params"]["update"]["sessionUpdate"] != "available_commands_update"
        })
        .count();
    assert_eq!(replayed, 0, "resume restores without replay");
    // The conversation goes on where it was.
    second.prompt(&session, "/say again");
    assert!(second.agent_text().contains("again"));
    second.request_ok("session/close", json!({"sessionId": session}));
    // Closed is not deleted: it loads again.
    second.request_ok("session/load", load_params(&session, &project));
}

/// Killed while a call runs: after the restart the call is reported failed as
/// interrupted, in the replay and to the model, and it does not run again.
#[test]
fn kill_9_while_a_call_runs_reports_it_interrupted_and_never_reruns_it() {
    let mut first = Client::spawn();
    let session = first.ready_session();
    first.on_request(|_| Answer::Result(selected("allow-once")));
    // The command tells the test it runs through a named pipe: the test blocks on
    // reading it, so it waits for exactly that, without polling.
    let fifo = first.process().dir().join("started.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let command = format!(
        "echo line >> out.txt; echo started > {}; sleep 30",
        fifo.display()
    );
    let _prompt = first.send_prompt(
        &session,
        &format!("/call terminal {}", json!({ "command": command })),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = fifo.clone();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::read_to_string(reader));
    });
    // Answer the request while the reader waits.
    first.wait_for("the call to start", |m| {
        m["params"]["update"]["status"] == "in_progress"
    });
    let started = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the command started")
        .expect("read the pipe");
    assert_eq!(started, "started\n");
    first.process_mut().kill();
    assert_eq!(lines(&first), 1);

    let project = first.process().project();
    let mut second = restart(&first);
    let mark = second.mark();
    second.request_ok("session/load", load_params(&session, &project));
    let call = second
        .received_since(mark)
        .into_iter()
        .find(|m| m["params"]["update"]["sessionUpdate"] == "tool_call")
        .expect("the call is replayed");
    let update = &call["params"]["update"];
    assert_eq!(update["status"], "failed", "{update}");
    assert!(
        update["content"].to_string().contains("Interrupted"),
        "{update}"
    );
    second.prompt(&session, "/say next");
    assert_eq!(lines(&first), 1);
}

/// The whole story: a call waits for approval, the agent is killed and started
/// again, a client loads the session, and the call is asked again without a prompt;
/// approved, it runs exactly once, the turn goes on where it stopped (the model is
/// given the result), and a later load asks nothing.
#[test]
fn a_call_waiting_when_warden_was_killed_is_asked_again_at_load_and_runs_once() {
    let (first, session) = killed_while_asking();
    assert_eq!(lines(&first), 0);

    let project = first.process().project();
    let mut second = restart(&first);
    second.request_ok("session/load", load_params(&session, &project));
    let asked = second.agent_request("session/request_permission");
    assert_eq!(asked["params"]["toolCall"]["toolCallId"], "call_1");
    let options: Vec<&str> = asked["params"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["optionId"].as_str())
        .collect();
    assert_eq!(options[0], "allow-once", "the same options: {options:?}");
    second.respond(&asked, selected("allow-once"));
    let summary = second.wait_for("the model's reply to the call's result", |m| {
        m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    });
    assert!(
        summary["params"]["update"]["content"]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()),
        "{summary}"
    );
    assert_eq!(lines(&first), 1);
    let result = second.prompt(&session, "/say done");
    assert_eq!(result["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&first), 1);
    assert_eq!(second.agent_requests("session/request_permission").len(), 1);
    second.process_mut().kill();

    let mut third = restart(&first);
    third.request_ok("session/load", load_params(&session, &project));
    let result = third.prompt(&session, "/say anything left?");
    assert_eq!(result["stopReason"], "end_turn", "{result}");
    assert_eq!(third.agent_requests("session/request_permission").len(), 0);
    assert_eq!(lines(&first), 1);
}

/// A prompt sent while a call asked again at load still waits becomes part of that
/// turn: it is not refused as a second prompt, it joins the conversation once the call
/// is settled, and the turn's end answers it.
#[test]
fn a_prompt_sent_while_a_loaded_session_asks_again_joins_that_turn() {
    let (first, session) = killed_while_asking();

    let project = first.process().project();
    let mut second = restart(&first);
    second.request_ok("session/load", load_params(&session, &project));
    let asked = second.agent_request("session/request_permission");
    let prompt = second.send_prompt(&session, "/say and then?");
    second.respond(&asked, selected("reject-once"));
    let response = second.response(&prompt);
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert!(second.agent_text().contains("and then?"));
    assert_eq!(lines(&first), 0);
}

/// Two Wardens on one state folder, a session each: an answer from another terminal
/// reaches the call it names and no other.
#[test]
fn two_wardens_on_different_sessions_each_get_only_their_own_answers() {
    let mut first = Client::spawn();
    let one = first.ready_session();
    let mut second = restart(&first);
    let cwd = second.process().project().display().to_string();
    let two = second.request_ok("session/new", json!({"cwd": cwd, "mcpServers": []}))["sessionId"]
        .as_str()
        .expect("a session id")
        .to_owned();
    let prompt_one = first.send_prompt(&one, &append_prompt());
    let _request_one = first.agent_request("session/request_permission");
    let prompt_two = second.send_prompt(&two, &append_prompt());
    let request_two = second.agent_request("session/request_permission");

    let list = stdout(&cli(&first, &["pending", "list"]));
    assert_eq!(list.lines().count(), 3, "{list}");
    let out = cli(&first, &["pending", "approve", &format!("{one}/call_1")]);
    assert!(out.status.success(), "{out:?}");
    let result = first.response(&prompt_one);
    assert_eq!(result["result"]["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&first), 1);

    // The other Warden's call still waits for its own editor, who denies it.
    assert_eq!(lines(&second), 0);
    assert!(second.notifications("$/cancel_request").is_empty());
    second.respond(&request_two, selected("reject-once"));
    let result = second.response(&prompt_two);
    assert_eq!(result["result"]["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&second), 0);
}

/// A stored session keeps the model it was switched to, as long as that model is still
/// offered.
#[test]
fn a_loaded_session_keeps_the_model_it_used() {
    let configured = || {
        Spawn::default()
            .env("WARDEN_MODEL", "openai:m")
            .env("OPENAI_API_KEY", "sk-e2e-unused-0123456789")
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    };
    let mut first = Client::spawn_with(&configured());
    let session = first.ready_session();
    first.request_ok(
        "session/set_config_option",
        json!({"sessionId": session, "configId": "model", "value": "scripted"}),
    );
    first.finish();

    let home = first.process().home().display().to_string();
    let mut second = Client::spawn_with(&configured().env("WARDEN_HOME", home));
    second.initialize();
    let loaded = second.request_ok(
        "session/load",
        load_params(&session, &first.process().project()),
    );
    let current = loaded["configOptions"][0]["currentValue"].clone();
    assert_eq!(current, "scripted", "{loaded}");
}

/// An answer "for this session" comes back with the session: after a restart and a
/// load, the call it covers runs without asking.
#[test]
fn a_session_grant_comes_back_when_the_session_is_loaded() {
    let mut first = Client::spawn();
    let session = first.ready_session();
    first.on_request(|_| Answer::Result(selected("allow-session")));
    first.prompt(&session, &append_prompt());
    assert_eq!(
        (
            first.agent_requests("session/request_permission").len(),
            lines(&first)
        ),
        (1, 1)
    );
    first.finish();

    let project = first.process().project();
    let mut second = restart(&first);
    second.request_ok("session/load", load_params(&session, &project));
    second.on_request(|_| Answer::Result(selected("reject-once")));
    second.prompt(&session, &append_prompt());
    assert_eq!(
        second.agent_requests("session/request_permission").len(),
        0,
        "the session's grant covers the call"
    );
    // It ran, in the session's own folder.
    assert_eq!(lines(&first), 2);
}

fn journal(client: &Client, session: &str) -> std::path::PathBuf {
    client
        .process()
        .home()
        .join("sessions")
        .join(format!("{session}.jsonl"))
}

/// Regression: two Wardens that loaded one session both appended to its journal. While
/// the first has the session open, the second's `session/load` and `session/resume` are
/// refused and write nothing, `warden sessions delete` is refused, and the first goes
/// on; once the first exits, the second loads it.
#[test]
fn two_wardens_loading_one_session_do_not_both_append() {
    let mut first = Client::spawn();
    let session = first.ready_session();
    first.prompt(&session, "/say one");
    let path = journal(&first, &session);
    let before = std::fs::read(&path).expect("the journal");

    let project = first.process().project();
    let mut second = restart(&first);
    let resume = json!({"sessionId": session, "cwd": project.display().to_string()});
    for (method, params) in [
        ("session/load", load_params(&session, &project)),
        ("session/resume", resume),
    ] {
        let err = second.request_err(method, params);
        assert_eq!(
            (&err["code"], &err["message"]),
            (
                &json!(-32600),
                &json!(format!(
                    "session {session} is open in another Warden process"
                ))
            ),
            "{method}: {err}"
        );
    }
    assert_eq!(
        std::fs::read(&path).expect("the journal"),
        before,
        "a refused load writes nothing"
    );
    let out = cli(&first, &["sessions", "delete", &session]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stdout(&out).contains("open in another Warden process"),
        "{}",
        stdout(&out)
    );
    assert!(path.exists());

    // The first Warden's session goes on, and its journal with it.
    first.on_request(|_| Answer::Result(selected("allow-once")));
    first.prompt(&session, &append_prompt());
    assert_eq!(lines(&first), 1);
    let text = std::fs::read_to_string(&path).expect("the journal");
    assert_eq!(text.matches("\"type\":\"running\"").count(), 1, "{text}");
    first.finish();

    second.request_ok("session/load", load_params(&session, &project));
    second.prompt(&session, "/say mine now");
    let text = std::fs::read_to_string(&path).expect("the journal");
    assert!(text.contains("/say mine now"), "{text}");
}

/// A session closed while its turn waits is loaded again at once: the closing turn
/// may still hold the journal for a moment, and the load waits for it rather than
/// refusing the session as another Warden's.
#[test]
fn a_session_closed_and_loaded_at_once_loads() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(|_| Answer::Hold);
    let prompt = client.send_prompt(&session, &append_prompt());
    let _request = client.agent_request("session/request_permission");
    // Sent together, so that the load reaches Warden while the closed turn may still
    // be ending.
    let project = client.process().project();
    let close = client.send("session/close", json!({"sessionId": session}));
    let load = client.send("session/load", load_params(&session, &project));
    for id in [close, load] {
        let response = client.response(&id);
        assert!(response.get("result").is_some(), "{response}");
    }
    let result = client.response(&prompt);
    assert_eq!(result["result"]["stopReason"], "cancelled", "{result}");
    client.prompt(&session, "/say back again");
    assert!(client.agent_text().contains("back again"));
    assert_eq!(lines(&client), 0);
    // Loaded with its journal, not as a session that goes on unstored.
    let text = std::fs::read_to_string(journal(&client, &session)).expect("the journal");
    assert!(text.contains("/say back again"), "{text}");
}

/// Regression: a second `warden pending` answer to a call that was answered and has
/// run since said "No tool call waiting" and left no trace. It is refused as answered
/// before (by whom, which option), exit code 1, and the refusal is in the audit log.
#[test]
fn a_second_answer_after_the_call_was_used_is_refused_and_audited() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    let prompt = client.send_prompt(&session, &append_prompt());
    let _request = client.agent_request("session/request_permission");
    let id = format!("{session}/call_1");
    let out = cli(&client, &["pending", "approve", &id]);
    assert!(out.status.success(), "{out:?}");
    let result = client.response(&prompt);
    assert_eq!(result["result"]["stopReason"], "end_turn", "{result}");
    assert_eq!(lines(&client), 1);

    let out = cli(&client, &["pending", "deny", &id, "--note", "too late"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        stdout(&out),
        format!(
            "{id} was answered before (allow-once by warden pending); a question takes one answer, so this one is refused.\n"
        )
    );
    assert_eq!(lines(&client), 1);
    let audit = stdout(&cli(&client, &["audit", "tail", "--json"]));
    let refused: Vec<Value> = audit
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.to_string().contains("a second answer was refused"))
        .collect();
    assert_eq!(refused.len(), 1, "{audit}");
    let line = refused[0].to_string();
    for part in [
        "\"call_1\"",
        "\"terminal\"",
        "\"answered_by\":\"warden pending\"",
        "answered before (allow-once by warden pending)",
    ] {
        assert!(line.contains(part), "{part} in {line}");
    }
}

/// The journals in a Warden home's sessions folder (one file per stored session).
fn stored_sessions(home: &std::path::Path) -> usize {
    std::fs::read_dir(home.join("sessions")).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
            .count()
    })
}

/// Old sessions are pruned on the blocking pool once `initialize` is answered (never on
/// its path): a second Warden whose policy keeps one session deletes the older of the
/// two the first one stored, though it opens no session of its own.
#[test]
fn the_prune_after_initialize_still_deletes_sessions_beyond_max_sessions() {
    let mut first = Client::spawn();
    first.initialize();
    let older = first.new_session();
    let newer = first.new_session();
    first.finish();
    let home = first.process().home();
    let journal = |id: &str| home.join("sessions").join(format!("{id}.jsonl"));
    assert_eq!(stored_sessions(&home), 2, "{older} and {newer} are stored");
    // An hour older, so which one goes does not hang on the clock's resolution.
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .append(true)
        .open(journal(&older))
        .and_then(|file| file.set_modified(hour_ago))
        .expect("age the older journal");
    std::fs::write(home.join("policy.toml"), "max_sessions = 1\n").expect("write the policy");

    let mut second = restart(&first);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while stored_sessions(&home) > 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "the older session was never pruned"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(journal(&newer).is_file(), "the newer session stays");
    assert!(!journal(&older).exists(), "the older session is pruned");
    second.finish();
}

/// What broke: at the end of each turn a session makes spare answer files for its next
/// questions, and each spare kept its file open, eight per session that had a turn.
/// With the usual limit of 1,024 open files, a long-lived Warden could no longer open
/// a journal or start a command after about a hundred sessions. A spare now keeps
/// only its name: a session holds one open file, its journal.
#[test]
fn regression_a_session_that_had_a_turn_holds_no_open_spare_files() {
    let mut client = Client::spawn();
    let first = client.ready_session();
    client.prompt(&first, "hello");
    let fds = format!("/proc/{}/fd", client.process().pid());
    let open = || std::fs::read_dir(&fds).expect("the fd folder").count();
    let before = open();
    for _ in 0..20 {
        let session = client.new_session();
        client.commands_update();
        client.prompt(&session, "hello");
    }
    let grown = open().saturating_sub(before);
    assert!(
        grown <= 40,
        "{grown} more open files after 20 sessions, each with one turn"
    );
}
