//! A tool's result (`tools/call`) as the tools' own [`Content`] and what the model is
//! told, within Warden's output limit.
//!
//! The result is read as JSON rather than through the SDK's types, so that a content
//! kind this Warden does not know still reaches the user as text instead of failing
//! the call.

use serde_json::{Value, json};
use warden_tools::{Content, ToolOutput};

/// The result of a call of `tool` (the model's name of it), with the text cut so that
/// everything shown together stays within `limit` bytes.
pub fn to_output(tool: &str, result: &Value, limit: usize) -> ToolOutput {
    let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut budget = Budget::new(limit);
    let mut content = Vec::new();
    let mut for_model = Vec::new();
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for block in blocks {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let text_of = |key: &str| block.get(key).and_then(Value::as_str);
        match kind {
            "text" => {
                let text = budget.take(text_of("text").unwrap_or(""));
                for_model.push(text.clone());
                content.push(Content::Text(text));
            }
            "image" | "audio" => {
                let mime = text_of("mimeType").unwrap_or("application/octet-stream");
                let data = text_of("data").unwrap_or("");
                // Binary data goes to the editor as it is when it fits, never to the
                // model as text.
                if kind == "image" && budget.fits(data.len()) {
                    content.push(Content::Image {
                        data: data.to_owned(),
                        mime_type: mime.to_owned(),
                    });
                }
                for_model.push(format!("[{kind}: {mime}, {} bytes base64]", data.len()));
            }
            "resource" => {
                let resource = block.get("resource").unwrap_or(&Value::Null);
                let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
                let mime = resource.get("mimeType").and_then(Value::as_str);
                let text = resource
                    .get("text")
                    .and_then(Value::as_str)
                    .map(|t| budget.take(t));
                for_model.push(match &text {
                    Some(text) => format!("[resource {uri}]\n{text}"),
                    None => format!("[resource {uri}: binary]"),
                });
                content.push(Content::Resource {
                    uri: uri.to_owned(),
                    mime_type: mime.map(str::to_owned),
                    text,
                });
            }
            "resource_link" => {
                let uri = text_of("uri").unwrap_or("");
                for_model.push(format!("[resource link {uri}]"));
                content.push(Content::Resource {
                    uri: uri.to_owned(),
                    mime_type: text_of("mimeType").map(str::to_owned),
                    text: None,
                });
            }
            other => {
                let text = budget.take(&format!("[{other} content]\n{block}"));
                for_model.push(text.clone());
                content.push(Content::Text(text));
            }
        }
    }
    // Structured content is what the server meant the model to read when it sent no
    // text; with text it repeats it, so it is shown only alone.
    if content.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        let text = budget.take(&structured.to_string());
        for_model.push(text.clone());
        content.push(Content::Text(text));
    }
    let mut for_model = for_model.join("\n");
    if budget.cut {
        for_model.push_str(&format!(
            "\n[the result was cut to Warden's output limit of {limit} bytes]"
        ));
        content.push(Content::Text(format!(
            "The result was cut to Warden's output limit of {limit} bytes."
        )));
    }
    if failed {
        for_model = format!("{tool}: the tool reported an error: {for_model}");
    } else if for_model.is_empty() {
        for_model = format!("{tool}: done, with no output");
    }
    ToolOutput {
        ok: !failed,
        timed_out: false,
        content,
        raw_output: json!({ "isError": failed, "cut": budget.cut }),
        for_model,
    }
}

/// The bytes of text left to show.
struct Budget {
    left: usize,
    cut: bool,
}

impl Budget {
    fn new(limit: usize) -> Budget {
        Budget {
            left: limit,
            cut: false,
        }
    }

    fn fits(&mut self, len: usize) -> bool {
        if len <= self.left {
            self.left -= len;
            true
        } else {
            self.cut = true;
            false
        }
    }

    /// As much of `text` as the budget allows, cut at a character boundary.
    fn take(&mut self, text: &str) -> String {
        if text.len() <= self.left {
            self.left -= text.len();
            return text.to_owned();
        }
        self.cut = true;
        let mut end = self.left;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.left -= end;
        text[..end].to_owned()
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::{Value, json};

    use super::to_output;

    fn check(result: Value, limit: usize, expect: Expect) {
        let out = to_output("mcp__s__t", &result, limit);
        expect.assert_eq(&format!(
            "ok={} content={:?}\nmodel: {}",
            out.ok, out.content, out.for_model
        ));
    }

    #[test]
    fn results_become_content_within_the_limit() {
        check(
            json!({"content": [{"type": "text", "text": "hello"}]}),
            100,
            expect![[r#"
                ok=true content=[Text("hello")]
                model: hello"#]],
        );
        check(
            json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
            100,
            expect![[r#"
                ok=false content=[Text("boom")]
                model: mcp__s__t: the tool reported an error: boom"#]],
        );
        check(
            json!({"content": [{"type": "text", "text": "ééé"}]}),
            3,
            expect![[r#"
                ok=true content=[Text("é"), Text("The result was cut to Warden's output limit of 3 bytes.")]
                model: é
                [the result was cut to Warden's output limit of 3 bytes]"#]],
        );
        check(
            json!({"content": [
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b"},
                {"type": "hologram", "x": 1}
            ]}),
            1000,
            expect![[r#"
                ok=true content=[Image { data: "AAAA", mime_type: "image/png" }, Resource { uri: "file:///a", mime_type: None, text: Some("x") }, Resource { uri: "file:///b", mime_type: None, text: None }, Text("[hologram content]\n{\"type\":\"hologram\",\"x\":1}")]
                model: [image: image/png, 4 bytes base64]
                [resource file:///a]
                x
                [resource link file:///b]
                [hologram content]
                {"type":"hologram","x":1}"#]],
        );
        check(
            json!({"content": [], "structuredContent": {"now": "12:00"}}),
            100,
            expect![[r#"
                ok=true content=[Text("{\"now\":\"12:00\"}")]
                model: {"now":"12:00"}"#]],
        );
        check(
            json!({}),
            100,
            expect![[r#"
                ok=true content=[]
                model: mcp__s__t: done, with no output"#]],
        );
    }
}
