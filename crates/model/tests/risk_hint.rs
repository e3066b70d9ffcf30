//! The model's risk hint: added to every schema, taken out of every call's arguments.

use expect_test::{Expect, expect};
use serde_json::json;
use warden_model::{take_risk_hint, with_risk_hint};

/// Takes the hint out of `args` and shows the result and what is left.
fn check(args: serde_json::Value, expected: Expect) {
    let mut args = args;
    let hint = take_risk_hint(&mut args);
    expected.assert_eq(&format!("{hint:?} {args}"));
}

#[test]
fn take_risk_hint_boundaries() {
    check(json!({"path": "a"}), expect![[r#"Ok(None) {"path":"a"}"#]]);
    check(
        json!({"path": "a", "risk_level": "low"}),
        expect![[r#"Ok(Some(Low)) {"path":"a"}"#]],
    );
    check(
        json!({"risk_level": "medium"}),
        expect!["Ok(Some(Medium)) {}"],
    );
    check(
        json!({"risk_level": " HIGH "}),
        expect!["Ok(Some(High)) {}"],
    );
    check(json!({"risk_level": null}), expect!["Ok(None) {}"]);
    // Invalid values are reported, and still removed so that the tool never sees them.
    check(
        json!({"command": "ls", "risk_level": "critical"}),
        expect![[
            r#"Err("invalid risk_level \"critical\": expected \"low\", \"medium\" or \"high\"") {"command":"ls"}"#
        ]],
    );
    check(
        json!({"risk_level": 1}),
        expect![[r#"Err("invalid risk_level 1: expected \"low\", \"medium\" or \"high\"") {}"#]],
    );
    check(
        json!({"risk_level": ""}),
        expect![[r#"Err("invalid risk_level \"\": expected \"low\", \"medium\" or \"high\"") {}"#]],
    );
    // Arguments that are not an object (unparsable model output) carry no hint.
    check(json!("{broken"), expect![[r#"Ok(None) "{broken""#]]);
}

fn check_schema(schema: serde_json::Value, expected: Expect) {
    expected.assert_eq(&with_risk_hint(&schema).to_string());
}

#[test]
fn with_risk_hint_boundaries() {
    check_schema(
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}),
        expect![[
            r#"{"type":"object","properties":{"path":{"type":"string"},"risk_level":{"type":"string","enum":["low","medium","high"],"description":"Optional: Risk level assessment for this operation. 'low' = safe to execute automatically, 'medium'/'high' = requires user confirmation. If not provided, system will assess risk conservatively."}},"required":["path"],"additionalProperties":false}"#
        ]],
    );
    // No properties yet: they are created; `required` is left alone (the hint is optional).
    check_schema(
        json!({"type": "object"}),
        expect![[
            r#"{"type":"object","properties":{"risk_level":{"type":"string","enum":["low","medium","high"],"description":"Optional: Risk level assessment for this operation. 'low' = safe to execute automatically, 'medium'/'high' = requires user confirmation. If not provided, system will assess risk conservatively."}}}"#
        ]],
    );
    // A tool's own `risk_level` argument is not redefined.
    check_schema(
        json!({"type": "object", "properties": {"risk_level": {"type": "integer"}}}),
        expect![[r#"{"type":"object","properties":{"risk_level":{"type":"integer"}}}"#]],
    );
    // Schemas that are not objects are left as they are.
    check_schema(json!(true), expect!["true"]);
    check_schema(json!({"properties": []}), expect![[r#"{"properties":[]}"#]]);
}
