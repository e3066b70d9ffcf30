use std::collections::BTreeSet;

use warden_tools::{builtin_tools, find};

#[test]
fn the_contract_tools_exist_with_their_kinds() {
    let names: Vec<_> = builtin_tools()
        .iter()
        .map(|t| format!("{} {:?}", t.name, t.kind))
        .collect();
    expect_test::expect![[r#"
        [
            "fs_read Read",
            "fs_list Read",
            "fs_search Search",
            "fs_write Edit",
            "fs_edit Edit",
            "fs_delete Delete",
            "fs_move Move",
            "terminal Execute",
            "http_fetch Fetch",
        ]
    "#]]
    .assert_debug_eq(&names);
    assert!(find("fs_read").is_some());
    assert!(find("mcp__x__y").is_none());
    assert!(find("").is_none());
}

/// Each schema lists exactly the fields the validator accepts, requires exactly the fields the
/// validator requires, forbids others, and never mentions `risk_level` (the model crate adds it).
#[test]
fn schemas_agree_with_the_validator() {
    for tool in builtin_tools() {
        let schema = &tool.schema;
        assert_eq!(schema["type"], "object", "{}", tool.name);
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
        let properties: BTreeSet<String> = schema["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .cloned()
            .collect();
        assert!(!properties.contains("risk_level"), "{}", tool.name);
        let required: BTreeSet<String> = schema["required"]
            .as_array()
            .expect("required")
            .iter()
            .map(|v| v.as_str().expect("string").to_owned())
            .collect();
        assert!(required.is_subset(&properties), "{}", tool.name);
        // Leaving out any required field is an error naming it.
        for field in &required {
            let mut args = sample(tool.name);
            args.as_object_mut().expect("object").remove(field);
            let err = warden_tools::validate(tool.name, &args).expect_err(field);
            assert!(
                err.to_string()
                    .contains(&format!("missing field `{field}`")),
                "{err}"
            );
        }
        // The sample with every property is valid; an extra property is not.
        let args = sample(tool.name);
        let given: BTreeSet<String> = args.as_object().expect("object").keys().cloned().collect();
        assert_eq!(
            given, properties,
            "the sample of {} covers every property",
            tool.name
        );
        warden_tools::validate(tool.name, &args).expect("sample is valid");
        let mut extra = args.clone();
        extra["bogus"] = serde_json::json!(1);
        let err = warden_tools::validate(tool.name, &extra).expect_err("extra field");
        assert!(err.to_string().contains("unknown field `bogus`"), "{err}");
    }
}

/// Arguments that use every property of the tool.
fn sample(tool: &str) -> serde_json::Value {
    use serde_json::json;
    match tool {
        "fs_read" => json!({"path": "a", "line": 2, "limit": 3}),
        "fs_list" => json!({"path": "."}),
        "fs_search" => json!({"pattern": "fn main", "path": "src"}),
        "fs_write" => json!({"path": "a", "content": "x"}),
        "fs_edit" => json!({"path": "a", "old_text": "x", "new_text": "y"}),
        "fs_delete" => json!({"path": "a", "recursive": true}),
        "fs_move" => json!({"from": "a", "to": "b"}),
        "terminal" => json!({"command": "ls", "cwd": "src", "timeout_secs": 5, "sandbox": false}),
        "http_fetch" => json!({"url": "https://docs.rs/", "method": "POST", "body": "x"}),
        other => panic!("no sample for {other}"),
    }
}
