//! The engine's words in the user's language, through the binary: `language` in
//! `config.toml`, else the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`), else English.
//! Keys, ids, tool names and paths never change.

use serde_json::{Value, json};

use super::support::{Answer, Client, Spawn};

const WRITE: &str = r#"{"path":"src/a.txt","content":"hello"}"#;

/// `warden policy check` of a write in the project, with extra variables and arguments.
fn check(client: &Client, env: &[(&str, &str)], extra: &[&str]) -> Value {
    let project = client.process().project();
    std::fs::create_dir_all(project.join("src")).expect("mkdir");
    let cwd = project.to_str().expect("utf-8").to_owned();
    let mut args = vec![
        "policy", "check", "--tool", "fs_write", "--args", WRITE, "--cwd", &cwd,
    ];
    args.extend_from_slice(extra);
    let vars: Vec<(&str, std::path::PathBuf)> = env
        .iter()
        .map(|(k, v)| (*k, std::path::PathBuf::from(v)))
        .collect();
    let vars: Vec<(&str, &std::path::Path)> = vars.iter().map(|(k, v)| (*k, v.as_path())).collect();
    let out = client.process().cli(&args, &vars);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn keys(value: &Value) -> Vec<String> {
    value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn policy_check_speaks_the_locales_language_and_english_is_unchanged() {
    let client = Client::spawn();
    let english = check(&client, &[], &[]);
    assert_eq!(
        english["reason"],
        json!("Write 5 bytes to src/a.txt"),
        "{english}"
    );
    assert_eq!(
        english["explanation"],
        json!(
            "Needs approval by rule `builtin:fs_write` in <builtin>: writing files changes the workspace; this is what mode `ask` does with medium-risk calls."
        ),
        "{english}"
    );
    let chinese = check(&client, &[("LANG", "zh_CN.UTF-8")], &[]);
    assert_eq!(
        chinese["reason"],
        json!("向 src/a.txt 写入 5 字节"),
        "{chinese}"
    );
    assert_eq!(
        chinese["explanation"],
        json!(
            "规则 `builtin:fs_write`（<builtin>）要求批准：写入文件会改变工作区；这是 `ask` 模式对中风险调用的处理。"
        ),
        "{chinese}"
    );
    let project = client.process().project().canonicalize().expect("real");
    assert_eq!(
        chinese["risk_reason"],
        json!(format!(
            "写入工作区内的 {}",
            project.join("src/a.txt").display()
        )),
        "{chinese}"
    );
    // Only the sentences change: the keys, the decision and the risk do not.
    assert_eq!(keys(&chinese), keys(&english));
    for key in ["decision", "risk", "decided_by", "tool", "mode"] {
        assert_eq!(chinese[key], english[key], "{key}");
    }
    // LC_ALL wins over LANG, and `--language` over both.
    let lc_all = check(
        &client,
        &[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "en_US.UTF-8")],
        &[],
    );
    assert_eq!(lc_all["reason"], english["reason"]);
    let flag = check(&client, &[("LANG", "zh_CN.UTF-8")], &["--language", "en"]);
    assert_eq!(flag["reason"], english["reason"]);
}

#[test]
fn policy_check_follows_language_in_config_toml_over_the_locale() {
    let client = Client::spawn();
    std::fs::write(
        client.process().home().join("config.toml"),
        "language = \"zh-CN\"\n",
    )
    .expect("write config.toml");
    let chinese = check(&client, &[("LANG", "en_US.UTF-8")], &[]);
    assert_eq!(
        chinese["reason"],
        json!("向 src/a.txt 写入 5 字节"),
        "{chinese}"
    );
}

/// A session in a Chinese locale sends the engine's risk sentence in Chinese; the tool
/// name, the path and the option ids stay as they are.
#[test]
fn a_session_in_a_chinese_locale_sends_the_risk_sentence_in_chinese() {
    let mut client = Client::spawn_with(&Spawn::default().env("LANG", "zh_CN.UTF-8"));
    let session = client.ready_session();
    client.on_request(|_| {
        Answer::Result(json!({"outcome": {"outcome": "selected", "optionId": "reject-once"}}))
    });
    let prompt = format!(
        "/call fs_write {}",
        json!({"path": "notes.txt", "content": "hello\n"})
    );
    let result = client.prompt(&session, &prompt);
    assert_eq!(result["stopReason"], "end_turn");
    let request = client
        .agent_requests("session/request_permission")
        .into_iter()
        .next()
        .unwrap_or_else(|| client.fail("no permission request"));
    let path = client.process().project().canonicalize().expect("real");
    assert_eq!(
        request["params"]["_meta"]["warden"]["reason"],
        json!(format!(
            "写入工作区内的 {}",
            path.join("notes.txt").display()
        )),
        "{request}"
    );
    assert_eq!(
        request["params"]["toolCall"]["rawInput"]["path"],
        "notes.txt"
    );
}
