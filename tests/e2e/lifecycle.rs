//! How the process ends (stdin EOF, SIGTERM, SIGINT), that nothing it started outlives
//! it, and the `--trace` file.

use std::collections::BTreeSet;

use nix::sys::signal::Signal;
use serde_json::json;

use super::support::{Client, Direction, Spawn};

/// How a test ends the agent.
#[derive(Debug, Clone, Copy)]
enum Ending {
    Eof,
    Signal(Signal),
}

fn end(client: &mut Client, ending: Ending) -> std::process::ExitStatus {
    match ending {
        Ending::Eof => client.finish(),
        Ending::Signal(signal) => {
            client.process().signal(signal);
            client.wait_exit()
        }
    }
}

const ENDINGS: [Ending; 3] = [
    Ending::Eof,
    Ending::Signal(Signal::SIGTERM),
    Ending::Signal(Signal::SIGINT),
];

#[test]
fn eof_sigterm_and_sigint_end_the_process_with_status_0() {
    for ending in ENDINGS {
        let mut client = Client::spawn();
        // After the first reply the agent is serving (and its signal handlers are in
        // place), which is the state an editor stops it in.
        client.ready_session();
        let status = end(&mut client, ending);
        assert_eq!(
            status.code(),
            Some(0),
            "{ending:?}: {status:?}\n{}",
            client.process().stderr()
        );
    }
}

#[test]
fn eof_before_any_request_exits_0() {
    let mut client = Client::spawn();
    let status = client.finish();
    assert_eq!(
        status.code(),
        Some(0),
        "{status:?}\n{}",
        client.process().stderr()
    );
    assert!(client.take_unclaimed().is_empty());
}

/// A process, identified by pid and start time so a reused pid is not mistaken for it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Proc {
    pid: u32,
    start: u64,
    command: String,
}

fn stat(pid: u32) -> Option<(u32, u64, String)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command is in parentheses and may contain spaces; fields follow the last ')'.
    let (head, rest) = text.rsplit_once(')')?;
    let command = head.split_once('(')?.1.to_owned();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = *fields.first()?;
    if state == "Z" {
        return None;
    }
    let ppid = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((ppid, start, command))
}

/// Every live descendant of `root`.
fn descendants(root: u32) -> BTreeSet<Proc> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some((ppid, start, command)) = stat(pid) {
            all.push((pid, ppid, start, command));
        }
    }
    let mut found = BTreeSet::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (pid, ppid, start, command) in &all {
            if *ppid == parent {
                found.insert(Proc {
                    pid: *pid,
                    start: *start,
                    command: command.clone(),
                });
                frontier.push(*pid);
            }
        }
    }
    found
}

fn still_alive(process: &Proc) -> bool {
    stat(process.pid).is_some_and(|(_, start, _)| start == process.start)
}

/// A turn running a shell command (allowed by `auto-approve`) is under way when the
/// agent is told to stop: the command must not outlive the agent.
#[test]
fn ending_the_agent_during_a_running_command_leaves_no_process_behind() {
    for ending in ENDINGS {
        let mut client = Client::spawn();
        let session = client.ready_session();
        client.request_ok(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "auto-approve"}),
        );
        client.send_prompt(&session, r#"/call terminal {"command":"sleep 30"}"#);
        client.wait_for("the command to start", |message| {
            message["params"]["update"]["sessionUpdate"] == "tool_call_update"
                && message["params"]["update"]["status"] == "in_progress"
        });
        let mut children = descendants(client.process().pid());
        for _ in 0..200 {
            if children.iter().any(|child| child.command == "sleep") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            children = descendants(client.process().pid());
        }
        assert!(
            children.iter().any(|child| child.command == "sleep"),
            "{ending:?}: the command never started: {children:?}"
        );
        let status = end(&mut client, ending);
        assert_eq!(status.code(), Some(0), "{ending:?}: {status:?}");
        let leaked: Vec<&Proc> = children.iter().filter(|child| still_alive(child)).collect();
        assert!(
            leaked.is_empty(),
            "{ending:?}: processes outlived warden: {leaked:?}"
        );
    }
}

#[test]
fn trace_appends_every_line_with_its_direction() {
    let trace_dir = tempfile::tempdir().expect("a folder for the trace");
    let trace = trace_dir.path().join("trace.log");
    let trace_arg = trace.display().to_string();
    let mut expected = Vec::new();
    for _run in 0..2 {
        let mut client =
            Client::spawn_with(&Spawn::default().arg("--trace").arg(trace_arg.clone()));
        let session = client.ready_session();
        client.prompt(&session, "/say traced");
        client.send_line("{ not json");
        client.wait_for("the parse error", |message| message["id"].is_null());
        assert!(client.finish().success());
        for entry in client.transcript() {
            let direction = match entry.direction {
                Direction::ToAgent => "in",
                Direction::FromAgent => "out",
            };
            expected.push((direction.to_owned(), entry.text.clone()));
        }
    }

    let text = std::fs::read_to_string(&trace).expect("the trace file exists");
    // Each trace line is `<timestamp> <in|out> <the line as sent>`.
    let traced: Vec<(String, String)> = text
        .lines()
        .map(|line| {
            let mut parts = line.splitn(3, ' ');
            let _timestamp = parts.next();
            let direction = parts.next().unwrap_or_default().to_owned();
            let rest = parts.next().unwrap_or_default();
            let message = rest.strip_prefix(' ').unwrap_or(rest).to_owned();
            (direction, message)
        })
        .collect();
    assert_eq!(
        traced, expected,
        "the trace differs from the transcript of both runs"
    );
}

/// A turn waits for the user's permission when the agent is told to stop: the turn
/// ends `cancelled` (never an error), the call never runs, and the process exits 0.
#[test]
fn ending_the_agent_while_a_permission_is_pending_cancels_the_turn() {
    for ending in ENDINGS {
        let mut client = Client::spawn();
        let session = client.ready_session();
        let prompt = client.send_prompt(&session, r#"/call terminal {"command":"touch ran"}"#);
        client.agent_request("session/request_permission");
        let status = end(&mut client, ending);
        client.ensure(
            status.code() == Some(0),
            format!("{ending:?}: exit status {status:?}"),
        );
        let answer = client
            .received_since(0)
            .into_iter()
            .find(|message| message.get("method").is_none() && message["id"] == prompt);
        client.ensure(
            answer
                .as_ref()
                .map(|answer| &answer["result"]["stopReason"])
                == Some(&json!("cancelled")),
            format!("{ending:?}: the prompt was not answered `cancelled`: {answer:?}"),
        );
        let marker = client.process().project().join("ran");
        client.ensure(!marker.exists(), format!("{ending:?}: the call ran"));
    }
}
