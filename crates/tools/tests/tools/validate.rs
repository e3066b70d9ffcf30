use serde_json::{Value, json};
use warden_tools::validate;

fn check(tool: &str, args: Value, expect: expect_test::Expect) {
    let actual = match validate(tool, &args) {
        Ok(call) => format!("ok {}", call.args_json()),
        Err(err) => format!("error {err}"),
    };
    expect.assert_eq(&actual);
}

#[test]
fn missing_unknown_and_mistyped_fields_are_named() {
    use expect_test::expect;
    check(
        "fs_write",
        json!({"path": "a"}),
        expect!["error fs_write: missing field `content`"],
    );
    check(
        "fs_read",
        json!({"path": "a", "lines": 3}),
        expect!["error fs_read: unknown field `lines`, expected one of `path`, `line`, `limit`"],
    );
    check(
        "fs_read",
        json!({"path": 3}),
        expect!["error fs_read: invalid type: integer `3`, expected path string"],
    );
    check(
        "fs_read",
        json!({"path": "a", "line": -1}),
        expect!["error fs_read: invalid value: integer `-1`, expected u32"],
    );
    check("nope", json!({}), expect!["error unknown tool `nope`"]);
    check(
        "fs_list",
        json!(["a"]),
        expect!["error fs_list: the arguments must be a JSON object, not an array"],
    );
    check(
        "fs_list",
        Value::Null,
        expect!["error fs_list: the arguments must be a JSON object, not null"],
    );
}

#[test]
fn risk_level_is_tolerated_and_dropped() {
    use expect_test::expect;
    check(
        "fs_list",
        json!({"path": "src", "risk_level": "low"}),
        expect![[r#"ok {"path":"src"}"#]],
    );
}

#[test]
fn values_out_of_range_are_refused() {
    use expect_test::expect;
    check(
        "fs_read",
        json!({"path": ""}),
        expect!["error fs_read: `path` must not be empty"],
    );
    check(
        "fs_read",
        json!({"path": "a", "line": 0}),
        expect!["error fs_read: `line` is 1-based; 0 is not a line"],
    );
    check(
        "fs_read",
        json!({"path": "a", "limit": 0}),
        expect!["error fs_read: `limit` must be at least 1"],
    );
    check(
        "fs_search",
        json!({"pattern": "("}),
        expect![[r#"
        error fs_search: `pattern` is not a valid regex: regex parse error:
            (
            ^
        error: unclosed group"#]],
    );
    check(
        "fs_search",
        json!({"pattern": ""}),
        expect!["error fs_search: `pattern` must not be empty"],
    );
    check(
        "fs_edit",
        json!({"path": "a", "old_text": "", "new_text": "x"}),
        expect!["error fs_edit: `old_text` must not be empty"],
    );
    check(
        "fs_edit",
        json!({"path": "a", "old_text": "x", "new_text": "x"}),
        expect!["error fs_edit: `old_text` and `new_text` are the same"],
    );
    check(
        "fs_move",
        json!({"from": "a", "to": ""}),
        expect!["error fs_move: `to` must not be empty"],
    );
    check(
        "terminal",
        json!({"command": "  "}),
        expect!["error terminal: `command` must not be empty"],
    );
    check(
        "terminal",
        json!({"command": "ls", "timeout_secs": 0}),
        expect!["error terminal: `timeout_secs` must be between 1 and 3600, not 0"],
    );
    check(
        "terminal",
        json!({"command": "ls", "timeout_secs": 3601}),
        expect!["error terminal: `timeout_secs` must be between 1 and 3600, not 3601"],
    );
    check(
        "terminal",
        json!({"command": "ls", "timeout_secs": 3600}),
        expect![[r#"ok {"command":"ls","timeout_secs":3600}"#]],
    );
    check(
        "http_fetch",
        json!({"url": "file:///etc/passwd"}),
        expect!["error http_fetch: `url` must be http:// or https://, not file://"],
    );
    check(
        "http_fetch",
        json!({"url": "docs.rs"}),
        expect!["error http_fetch: `url` is not a valid URL: relative URL without a base"],
    );
    check(
        "http_fetch",
        json!({"url": "https://x.org", "method": "TRACE"}),
        expect![
            "error http_fetch: unknown method `TRACE`, expected one of GET, HEAD, POST, PUT, PATCH, DELETE"
        ],
    );
    check(
        "http_fetch",
        json!({"url": "https://x.org", "body": "b"}),
        expect!["error http_fetch: a `body` is not allowed with GET"],
    );
    check(
        "http_fetch",
        json!({"url": "https://x.org", "method": "post", "body": "b"}),
        expect![[r#"ok {"url":"https://x.org","method":"POST","body":"b"}"#]],
    );
}
