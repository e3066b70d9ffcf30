//! Canonical JSON: one byte string per JSON value, whatever the key order.
//!
//! serde_json keeps insertion order when any crate in the build enables its
//! `preserve_order` feature (the ACP SDK does), so the digest cannot rely on `Map`'s
//! iteration order: object keys are sorted here explicitly.

use serde_json::Value;

/// Writes `value` with object keys sorted by their UTF-8 bytes, no whitespace, and
/// serde_json's escaping and number format.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// `value` with every object's keys in sorted order, so that it serialises the same
/// whether or not serde_json's `preserve_order` feature is on in the build.
pub fn sort_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sort_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    // Serialising a `&str` cannot fail; the fallback keeps the output valid JSON
    // all the same.
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_change_the_bytes() {
        let a = json!({"b": 1, "a": {"d": [1, "x"], "c": null}});
        let b = json!({"a": {"c": null, "d": [1, "x"]}, "b": 1});
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(canonical_json(&a), r#"{"a":{"c":null,"d":[1,"x"]},"b":1}"#);
    }

    #[test]
    fn sorted_keys_serialise_in_order() {
        let v = sort_keys(json!({"b": {"z": 1, "y": 2}, "a": [{"d": 0, "c": 1}]}));
        assert_eq!(
            serde_json::to_string(&v).expect("json"),
            r#"{"a":[{"c":1,"d":0}],"b":{"y":2,"z":1}}"#
        );
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(canonical_json(&json!("a\"b\n")), r#""a\"b\n""#);
    }
}
