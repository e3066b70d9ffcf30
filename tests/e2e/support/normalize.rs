//! Normalisation of transcripts for snapshot tests: the ids the agent makes up
//! (session ids, tool call ids, terminal ids, its own request ids) and the test's
//! temporary paths become stable placeholders, numbered in order of appearance.

use std::collections::HashMap;

use serde_json::Value;

/// Replaces generated values by placeholders, consistently across one transcript.
#[derive(Debug, Default)]
pub struct Normalizer {
    /// Literal substrings to replace in every string (paths, versions).
    replacements: Vec<(String, String)>,
    /// Per kind of id: the value seen and its placeholder.
    seen: HashMap<(&'static str, String), String>,
    counts: HashMap<&'static str, usize>,
}

/// Object keys whose string values are generated ids, and the placeholder stem for each.
const ID_KEYS: &[(&str, &str)] = &[
    ("sessionId", "session"),
    ("toolCallId", "tool-call"),
    ("terminalId", "terminal"),
];

impl Normalizer {
    /// A normaliser that also replaces each `from` substring with `to`; longer
    /// replacements should come first when one contains another.
    pub fn new(replacements: Vec<(String, String)>) -> Normalizer {
        Normalizer {
            replacements,
            ..Normalizer::default()
        }
    }

    fn placeholder(&mut self, stem: &'static str, value: &Value) -> Value {
        let key = (stem, value.to_string());
        if let Some(known) = self.seen.get(&key) {
            return Value::String(known.clone());
        }
        let count = self.counts.entry(stem).or_default();
        *count += 1;
        let placeholder = format!("<{stem}-{count}>");
        self.seen.insert(key, placeholder.clone());
        Value::String(placeholder)
    }

    /// The id of a request the agent sent, as it will appear in the client's answer too.
    pub fn agent_request_id(&mut self, id: &Value) -> Value {
        self.placeholder("agent-request", id)
    }

    /// Normalises one message; `agent_request_id` tells whether the message's `id`
    /// (and a `$/cancel_request`'s `requestId`) belongs to an agent request.
    pub fn message(&mut self, message: &Value, agent_request_id: bool) -> Value {
        let mut out = self.value(message);
        if agent_request_id && let Some(id) = message.get("id") {
            out["id"] = self.agent_request_id(id);
        }
        if message.get("method").and_then(Value::as_str) == Some("$/cancel_request")
            && let Some(id) = message.pointer("/params/requestId")
        {
            out["params"]["requestId"] = self.agent_request_id(id);
        }
        out
    }

    fn string(&self, text: &str) -> String {
        self.replacements
            .iter()
            .fold(text.to_owned(), |text, (from, to)| text.replace(from, to))
    }

    fn value(&mut self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.string(text)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.value(item)).collect())
            }
            Value::Object(object) => {
                let mut out = serde_json::Map::new();
                for (key, item) in object {
                    let stem = ID_KEYS
                        .iter()
                        .find(|(id_key, _)| id_key == key)
                        .map(|(_, stem)| *stem);
                    let normalised = match stem {
                        Some(stem) if item.is_string() => self.placeholder(stem, item),
                        _ => self.value(item),
                    };
                    out.insert(self.string(key), normalised);
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::Normalizer;

    #[test]
    fn ids_become_placeholders_numbered_in_order_of_appearance() {
        let mut n = Normalizer::new(vec![("/tmp/warden-e2e-abc".to_owned(), "<dir>".to_owned())]);
        let messages = [
            (json!({"id": 1, "result": {"sessionId": "9f2c"}}), false),
            (
                json!({"method": "session/update", "params": {"sessionId": "9f2c",
                "update": {"toolCallId": "call_x", "locations": [{"path": "/tmp/warden-e2e-abc/project/a.rs"}]}}}),
                false,
            ),
            (json!({"id": 1, "result": {"sessionId": "77aa"}}), false),
            (
                json!({"id": 0, "method": "session/request_permission", "params": {"sessionId": "77aa", "toolCall": {"toolCallId": "call_y"}}}),
                true,
            ),
            (
                json!({"id": 0, "result": {"outcome": {"outcome": "cancelled"}}}),
                true,
            ),
            (
                json!({"method": "$/cancel_request", "params": {"requestId": 0}}),
                false,
            ),
            (
                json!({"method": "session/update", "params": {"sessionId": "9f2c", "update": {"toolCallId": "call_x"}}}),
                false,
            ),
        ];
        let rendered: Vec<String> = messages
            .iter()
            .map(|(message, agent)| n.message(message, *agent).to_string())
            .collect();
        expect![[r#"
            {"id":1,"result":{"sessionId":"<session-1>"}}
            {"method":"session/update","params":{"sessionId":"<session-1>","update":{"toolCallId":"<tool-call-1>","locations":[{"path":"<dir>/project/a.rs"}]}}}
            {"id":1,"result":{"sessionId":"<session-2>"}}
            {"id":"<agent-request-1>","method":"session/request_permission","params":{"sessionId":"<session-2>","toolCall":{"toolCallId":"<tool-call-2>"}}}
            {"id":"<agent-request-1>","result":{"outcome":{"outcome":"cancelled"}}}
            {"method":"$/cancel_request","params":{"requestId":"<agent-request-1>"}}
            {"method":"session/update","params":{"sessionId":"<session-1>","update":{"toolCallId":"<tool-call-1>"}}}
        "#]]
        .assert_eq(&(rendered.join("\n") + "\n"));
    }
}
