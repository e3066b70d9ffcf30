//! The JSON-RPC 2.0 envelope of a line the agent wrote: what kind of message it is,
//! checked strictly before its payload goes to the ACP schema.

use serde_json::Value;

/// One message from the agent, classified by its envelope.
#[derive(Debug, Clone, PartialEq)]
pub enum Envelope {
    /// A request to the client: it has a method and an id.
    Request {
        /// The agent's request id (a number or a string).
        id: Value,
        /// The method called.
        method: String,
        /// The params (`null` when absent).
        params: Value,
    },
    /// A notification: a method without an id.
    Notification {
        /// The method.
        method: String,
        /// The params (`null` when absent).
        params: Value,
    },
    /// A successful response.
    Result {
        /// The id of the request it answers.
        id: Value,
        /// The result.
        result: Value,
    },
    /// An error response.
    Error {
        /// The id of the request it answers, `null` when the agent could not read one.
        id: Value,
        /// The error object.
        error: Value,
    },
}

/// Parses one stdout line as a JSON-RPC 2.0 message, or says why it is not one.
pub fn parse(line: &[u8]) -> Result<(Value, Envelope), String> {
    let text =
        std::str::from_utf8(line).map_err(|err| format!("stdout line is not UTF-8: {err}"))?;
    let value: Value =
        serde_json::from_str(text).map_err(|err| format!("stdout line is not JSON ({err})"))?;
    let envelope = classify(&value)?;
    Ok((value, envelope))
}

fn is_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some() || id.as_u64().is_some()
}

/// Classifies a parsed message, refusing anything JSON-RPC 2.0 does not allow.
pub fn classify(value: &Value) -> Result<Envelope, String> {
    let Some(object) = value.as_object() else {
        return Err("a JSON-RPC message must be an object".to_owned());
    };
    if object.get("jsonrpc") != Some(&Value::String("2.0".to_owned())) {
        return Err(r#"missing "jsonrpc": "2.0""#.to_owned());
    }
    let allowed: &[&str] = if object.contains_key("method") {
        &["jsonrpc", "id", "method", "params"]
    } else {
        &["jsonrpc", "id", "result", "error"]
    };
    if let Some(extra) = object.keys().find(|key| !allowed.contains(&key.as_str())) {
        return Err(format!("unexpected member `{extra}`"));
    }
    let params = object.get("params").cloned().unwrap_or(Value::Null);
    if object.contains_key("params") && !params.is_object() && !params.is_array() {
        return Err("params must be an object or an array".to_owned());
    }

    if let Some(method) = object.get("method") {
        let method = method.as_str().ok_or("method must be a string")?.to_owned();
        return match object.get("id") {
            None => Ok(Envelope::Notification { method, params }),
            Some(id) if is_id(id) => Ok(Envelope::Request {
                id: id.clone(),
                method,
                params,
            }),
            Some(id) => Err(format!(
                "a request id must be a number or a string, not {id}"
            )),
        };
    }

    let id = object.get("id").ok_or("a response needs an id")?.clone();
    match (object.get("result"), object.get("error")) {
        (Some(result), None) if is_id(&id) => Ok(Envelope::Result {
            id,
            result: result.clone(),
        }),
        (Some(_), None) => Err(format!("a successful response needs a real id, not {id}")),
        (None, Some(error)) if is_id(&id) || id.is_null() => Ok(Envelope::Error {
            id,
            error: error.clone(),
        }),
        (None, Some(_)) => Err(format!(
            "an error response id must be a number, a string or null, not {id}"
        )),
        (Some(_), Some(_)) => Err("a response has both result and error".to_owned()),
        (None, None) => Err("a response has neither result nor error".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// Every boundary of the envelope: `Ok(kind)` or the start of the refusal.
    fn check(line: &str, expect: &str) {
        let actual = match parse(line.as_bytes()) {
            Ok((_, envelope)) => format!("{envelope:?}")
                .split([' ', '{'])
                .next()
                .unwrap_or("")
                .to_owned(),
            Err(reason) => format!("refused: {reason}"),
        };
        assert!(
            actual.starts_with(expect),
            "{line}: got {actual}, expected {expect}"
        );
    }

    #[test]
    fn envelope_accepts_json_rpc_and_refuses_everything_else() {
        check(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "Result");
        check(r#"{"jsonrpc":"2.0","id":"a","result":null}"#, "Result");
        check(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            "Error",
        );
        check(
            r#"{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{}}"#,
            "Request",
        );
        check(
            r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#,
            "Notification",
        );
        check("hello", "refused: stdout line is not JSON");
        check("", "refused: stdout line is not JSON");
        check("[]", "refused: a JSON-RPC message must be an object");
        check(r#"{"id":1,"result":{}}"#, "refused: missing \"jsonrpc\"");
        check(
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            "refused: missing \"jsonrpc\"",
        );
        check(
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            "refused: a successful response needs a real id",
        );
        check(
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            "refused: a response has both",
        );
        check(
            r#"{"jsonrpc":"2.0","id":1}"#,
            "refused: a response has neither",
        );
        check(
            r#"{"jsonrpc":"2.0","result":{}}"#,
            "refused: a response needs an id",
        );
        check(
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            "refused: a request id must be",
        );
        check(
            r#"{"jsonrpc":"2.0","method":"x","params":3}"#,
            "refused: params must be",
        );
        check(
            r#"{"jsonrpc":"2.0","method":7}"#,
            "refused: method must be a string",
        );
        check(
            r#"{"jsonrpc":"2.0","id":1,"result":{},"extra":1}"#,
            "refused: unexpected member `extra`",
        );
    }
}
