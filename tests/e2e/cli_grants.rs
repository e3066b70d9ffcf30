//! The grants file through the real binary: a last line a crash left without its
//! newline is not damage, and damage in the middle is told (a session notice,
//! `warden grants list`) and repaired by `warden grants repair`.

use std::path::Path;

use serde_json::{Value, json};

use super::support::{Answer, Client, initialize_params};

fn touch(name: &str) -> String {
    format!(r#"/call terminal {{"command": "touch {name}"}}"#)
}

/// Every agent request, answered `option` if it is a permission request.
fn always(option: &'static str) -> impl FnMut(&Value) -> Answer {
    move |request: &Value| {
        assert_eq!(request["method"], "session/request_permission", "{request}");
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": option}}))
    }
}

fn permission_requests(client: &Client) -> usize {
    client.agent_requests("session/request_permission").len()
}

/// Runs `warden ARGS` next to the agent; returns its exit code, stdout and stderr.
fn cli(client: &Client, args: &[&str]) -> (Option<i32>, String, String) {
    let out = client.process().cli(args, &[]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `warden policy check` of `command` in the agent's project: the evaluation.
fn check(client: &Client, command: &str) -> Value {
    let project = client.process().project().display().to_string();
    let args = json!({ "command": command }).to_string();
    let (code, out, err) = cli(
        client,
        &[
            "policy", "check", "--tool", "terminal", "--args", &args, "--cwd", &project,
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not one JSON object ({e}): {out}"))
}

fn grant_ids(client: &Client) -> Vec<String> {
    let (code, out, err) = cli(client, &["grants", "list", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    out.lines()
        .map(|line| {
            let grant: Value = serde_json::from_str(line).expect("a grant as JSON");
            grant["id"].as_str().expect("an id").to_owned()
        })
        .collect()
}

fn append(path: &Path, text: &str) {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open the grants file");
    file.write_all(text.as_bytes()).expect("append");
}

/// A crash while a grant or a revocation was being appended leaves a last line without
/// its newline. Once, from then on every stored allow grant stopped applying (every call
/// they covered asked), grants stored after it too, with nothing telling the user why.
/// Such a line was never acknowledged, so it is no damage: the stored grants keep
/// allowing through the ACP session and `warden policy check`, a grant stored after it
/// applies too, and `warden grants list` does not complain.
#[test]
fn a_torn_last_line_keeps_every_good_grant() {
    let mut client = Client::spawn();
    let session = client.ready_session();
    client.on_request(always("allow-project"));
    client.prompt(&session, &touch("first"));
    assert_eq!(permission_requests(&client), 1);
    let ids = grant_ids(&client);
    assert_eq!(ids.len(), 1, "{ids:?}");

    // Half of a revocation of that grant: the crash came before its newline, so
    // `warden grants revoke` never said it was revoked.
    let grants = client.process().home().join("grants.jsonl");
    append(
        &grants,
        &format!(r#"{{"revoke":{{"id":"{}","at":"2026-1"#, ids[0]),
    );

    let project = client.process().project();
    std::fs::remove_file(project.join("first")).expect("remove");
    client.prompt(&session, &touch("first"));
    assert!(project.join("first").exists(), "{}", client.agent_text());
    assert_eq!(
        permission_requests(&client),
        1,
        "the stored grant did not allow the call unasked"
    );
    let evaluation = check(&client, "touch first");
    assert_eq!(evaluation["decision"], "allow", "{evaluation}");
    assert_eq!(
        evaluation["decided_by"]["id"],
        ids[0].as_str(),
        "{evaluation}"
    );

    // A grant stored after the torn line cuts it off, and applies as well.
    client.prompt(&session, &touch("second"));
    assert_eq!(permission_requests(&client), 2);
    std::fs::remove_file(project.join("second")).expect("remove");
    client.prompt(&session, &touch("second"));
    assert!(project.join("second").exists(), "{}", client.agent_text());
    assert_eq!(permission_requests(&client), 2, "{}", client.agent_text());
    assert_eq!(check(&client, "touch first")["decision"], "allow");
    assert_eq!(check(&client, "touch second")["decision"], "allow");

    let text = std::fs::read_to_string(&grants).expect("read");
    assert!(text.ends_with('\n'), "{text}");
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    let (code, out, err) = cli(&client, &["grants", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        !out.contains("unreadable") && !err.contains("unreadable"),
        "{out}{err}"
    );
    assert_eq!(out.lines().count(), 3, "a header and two grants: {out}");
    assert_eq!(grant_ids(&client).len(), 2);
}

const GOOD: &str = r#"{"grant":{"id":"g-0000000000000001","created_at":"2026-11-22T20:00:00Z","client":"zed","effect":"allow","scope":"user","matchers":[{"command":{"prefix":["npm","test"]}}],"max_risk":"medium"}}"#;
const DENY: &str = r#"{"grant":{"id":"g-0000000000000002","created_at":"2026-11-22T20:00:01Z","client":"zed","effect":"deny","scope":"user","matchers":[{"command":{"prefix":["cargo","publish"]}}],"max_risk":"high"}}"#;

/// Damage in the middle of the grants file (here two lines) keeps failing closed for
/// allow grants, while deny grants still deny, and is told where the user looks: a
/// session notice when a session starts, and `warden grants list`, both naming
/// `warden grants repair`. The repair keeps the damaged lines in a private
/// `grants.jsonl.corrupt-<time>`, rewrites the file with the others, and a second run
/// finds nothing to do.
#[test]
fn warden_grants_repair_keeps_damaged_lines_aside_and_rewrites_the_file() {
    let mut client = Client::spawn();
    let home = client.process().home();
    let grants = home.join("grants.jsonl");
    std::fs::create_dir_all(&home).expect("mkdir");
    std::fs::write(
        &grants,
        format!("{GOOD}\nnot json at all\n{{\"revoke\":{{\"id\":\n{DENY}\n"),
    )
    .expect("write");

    let mut params = initialize_params();
    params["clientCapabilities"]["session"] = json!({"notices": {}});
    client.request_ok("initialize", params);
    client.new_session();
    let notice = client.wait_for("the grants notice", |m| {
        m["params"]["update"]["sessionUpdate"] == "notice"
    });
    let notice = &notice["params"]["update"];
    assert_eq!(notice["severity"], "warning", "{notice}");
    assert_eq!(
        notice["title"],
        "The stored grants could not all be read, so calls they would allow ask instead"
    );
    let description = notice["description"].as_str().unwrap_or_default();
    assert!(
        description.contains("grants.jsonl")
            && description.contains("2 unreadable lines skipped")
            && description.contains("`warden grants repair`"),
        "{description}"
    );

    let (code, out, err) = cli(&client, &["grants", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(
            "2 unreadable lines skipped; `warden grants repair` keeps them in \
             grants.jsonl.corrupt-<time> and rewrites the file"
        ),
        "{out}"
    );
    assert!(out.contains("g-0000000000000001"), "{out}");
    let (_, json_out, json_err) = cli(&client, &["grants", "list", "--json"]);
    assert_eq!(json_out.lines().count(), 2, "only grants: {json_out}");
    assert!(
        json_err.contains("2 unreadable lines skipped"),
        "{json_err}"
    );
    let evaluation = check(&client, "npm test");
    assert_eq!(evaluation["decision"], "ask", "{evaluation}");
    assert_eq!(
        evaluation["decided_by"]["kind"], "policy_error",
        "{evaluation}"
    );
    assert_eq!(check(&client, "cargo publish")["decision"], "deny");
    let (code, _, err) = cli(&client, &["grants", "expire"]);
    assert_eq!(code, Some(2), "expire would lose the damaged lines");
    assert!(err.contains("warden grants repair"), "{err}");

    let (code, out, err) = cli(&client, &["grants", "repair"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("Moved 2 unreadable line(s) to "), "{out}");
    assert!(out.contains("with the 2 line(s) that can be read"), "{out}");
    let aside: Vec<_> = std::fs::read_dir(&home)
        .expect("list")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("grants.jsonl.corrupt-"))
        })
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(out.contains(&aside[0].display().to_string()), "{out}");
    assert_eq!(
        std::fs::read_to_string(&aside[0]).expect("read"),
        "not json at all\n{\"revoke\":{\"id\":\n"
    );
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&aside[0])
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(
        std::fs::read_to_string(&grants).expect("read"),
        format!("{GOOD}\n{DENY}\n")
    );

    let (code, out, err) = cli(&client, &["grants", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.contains("unreadable"), "{out}");
    assert_eq!(check(&client, "npm test")["decision"], "allow");
    assert_eq!(check(&client, "cargo publish")["decision"], "deny");

    let (code, out, err) = cli(&client, &["grants", "repair"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("Nothing to repair"), "{out}");
    let files = std::fs::read_dir(&home)
        .expect("list")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
        })
        .count();
    assert_eq!(files, 1, "a second repair writes nothing");
}
