//! Coming back to a chat: a session is named after its first prompt, the chat says how to
//! resume it when it ends, a unique start of its id is enough, and it is resumed in its
//! own folder wherever the chat starts.

use std::process::{Output, Stdio};

use super::support::chat_env::ChatEnv as Env;

fn run(mut command: std::process::Command) -> Output {
    command
        .stdin(Stdio::null())
        .output()
        .expect("run warden chat")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The session id the chat's first line names.
fn session_id(out: &str) -> String {
    out.split_whitespace()
        .skip_while(|w| *w != "Session")
        .nth(1)
        .unwrap_or_else(|| panic!("no session id in {out}"))
        .to_owned()
}

#[test]
fn a_session_is_titled_by_its_first_prompt_and_resumed_by_a_prefix_in_its_own_folder() {
    let env = Env::new();
    let first = run(env.command(&["--prompt", "write notes.txt: hello", "--approve", "all"]));
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let out = stdout(&first);
    let id = session_id(&out);
    // The way back, printed when the chat ends.
    assert!(
        out.trim_end()
            .ends_with(&format!("resume with: warden chat --resume {id}")),
        "{out}"
    );
    // The title, in the journal and in `warden sessions list`.
    let list = std::process::Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["sessions", "list", "--json"])
        .env("WARDEN_HOME", env.warden_home())
        .env_remove("XDG_STATE_HOME")
        .output()
        .expect("sessions list");
    let listed = String::from_utf8_lossy(&list.stdout).into_owned();
    assert!(
        listed.contains(r#""title":"write notes.txt: hello""#),
        "{listed}"
    );

    // From another folder, by the start of its id: the session's own folder is used,
    // and the chat says so.
    let elsewhere = env.home();
    let prefix = &id[..id.len() - 3];
    let mut again = env.command(&["--resume", prefix, "--prompt", "/say back again"]);
    again.current_dir(&elsewhere);
    let again = run(again);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains(&format!("Resuming session {id} in its own folder")),
        "{err}"
    );
    let out = stdout(&again);
    assert!(
        out.contains(&format!(
            "Session {id} with Warden in {}",
            env.project.display()
        )),
        "{out}"
    );
    assert!(out.contains("back again"), "{out}");
    // The second prompt does not rename the session.
    let list = std::process::Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["sessions", "list", "--json"])
        .env("WARDEN_HOME", env.warden_home())
        .env_remove("XDG_STATE_HOME")
        .output()
        .expect("sessions list");
    let listed = String::from_utf8_lossy(&list.stdout).into_owned();
    assert!(
        listed.contains(r#""title":"write notes.txt: hello""#),
        "{listed}"
    );
}

/// The MCP servers of `--mcp-config` (the `mcpServers` JSON other clients use) and of the
/// user's config.toml reach the session: `/tools` lists their tools and they run.
#[test]
fn mcp_servers_from_a_file_and_from_config_toml_are_passed_to_the_session() {
    let env = Env::new();
    let server = super::mcp::server_binary();
    let file = env.home().join("mcp.json");
    std::fs::write(
        &file,
        serde_json::json!({"mcpServers": {"fromfile": {"command": server, "args": ["good"]}}})
            .to_string(),
    )
    .expect("write mcp.json");
    std::fs::write(
        env.warden_home().join("config.toml"),
        format!(
            "[[mcp_server]]\nname = \"fromconfig\"\ncommand = \"{}\"\nargs = [\"good\"]\n",
            server.display()
        ),
    )
    .expect("write config.toml");
    let file = file.display().to_string();
    let tools = run(env.command(&["--mcp-config", &file, "--prompt", "/tools"]));
    assert_eq!(tools.status.code(), Some(0), "{tools:?}");
    let out = stdout(&tools);
    for name in ["fs_read", "mcp__fromfile__echo", "mcp__fromconfig__echo"] {
        assert!(out.contains(name), "{name} in {out}");
    }
    let call = run(env.command(&[
        "--mcp-config",
        &file,
        "--approve",
        "all",
        "--prompt",
        r#"/call mcp__fromfile__echo {"text": "hello from MCP"}"#,
    ]));
    assert_eq!(call.status.code(), Some(0), "{call:?}");
    let out = stdout(&call);
    assert!(out.contains("hello from MCP"), "{out}");
    assert!(out.contains(": completed"), "{out}");
}
