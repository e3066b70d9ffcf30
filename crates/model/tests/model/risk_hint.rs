//! The model's risk hint: added to every schema. (Taking it out of a call's arguments
//! is tested with its parser, in the permissions crate.)

use expect_test::{Expect, expect};
use serde_json::json;
use warden_model::with_risk_hint;

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
