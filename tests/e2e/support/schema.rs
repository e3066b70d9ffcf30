//! Validation of every message the agent emits against the official ACP JSON Schema.
//!
//! The schema is generated at test time from the SDK's own types (its `schemars` feature),
//! so it always matches the SDK version Warden is built with. Each message is checked
//! against the definition for its method: the root schema alone would accept any params.
//! The method of each definition comes from the `x-method` annotation the SDK puts on it.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use agent_client_protocol::v1::schema as acp;
use serde_json::{Map, Value};

/// A made-up location for the generated document: boon resolves `$ref`s against it.
const DOC_URL: &str = "http://schema.invalid/acp-v1.json";

/// Which way a message travels and what it is, as far as the schema is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A request from the agent to the client (`session/request_permission`, `fs/*`, ...).
    Request,
    /// A notification from the agent (`session/update`, `$/cancel_request`).
    Notification,
    /// The agent's successful answer to a client request, keyed by the request's method.
    Response,
}

/// The compiled ACP schema with one entry per (kind, method).
pub struct Validator {
    schemas: boon::Schemas,
    by_method: BTreeMap<(Kind, String), (String, boon::SchemaIndex)>,
    error: boon::SchemaIndex,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("methods", &self.by_method.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The process-wide validator, built once.
pub fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(Validator::build)
}

/// The generated schema document for one routing enum or type.
fn generated<T: schemars::JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).expect("a generated schema is JSON")
}

/// The `$defs` names a routing enum's root `anyOf` refers to, in order.
fn variant_names(root: &Value) -> Vec<String> {
    root["anyOf"]
        .as_array()
        .expect("a routing enum's schema is an anyOf")
        .iter()
        .filter_map(|variant| variant["$ref"].as_str())
        .map(|reference| {
            reference
                .strip_prefix("#/$defs/")
                .expect("variant refs point into $defs")
                .to_owned()
        })
        .collect()
}

impl Validator {
    fn build() -> Validator {
        let responses = generated::<acp::AgentResponse>();
        let requests = generated::<acp::AgentRequest>();
        let notifications = generated::<acp::AgentNotification>();
        let protocol = generated::<acp::ProtocolLevelNotification>();
        let error = generated::<acp::Error>();

        // One document holds every definition, so all `$ref`s resolve inside it. Types
        // with the same name are the same Rust type, so merging cannot conflict.
        let mut defs = Map::new();
        for doc in [&responses, &requests, &notifications, &protocol, &error] {
            if let Some(more) = doc["$defs"].as_object() {
                for (name, def) in more {
                    defs.insert(name.clone(), def.clone());
                }
            }
        }
        let mut error_root = error.clone();
        if let Some(root) = error_root.as_object_mut() {
            root.remove("$defs");
            root.remove("$schema");
        }
        defs.insert("JsonRpcError".to_owned(), error_root);

        let mut table = Vec::new();
        for (kind, root) in [
            (Kind::Response, &responses),
            (Kind::Request, &requests),
            (Kind::Notification, &notifications),
            (Kind::Notification, &protocol),
        ] {
            for name in variant_names(root) {
                // Extension types carry no method: Warden sends none of them, so a
                // message that would need one fails as an unknown method.
                if let Some(method) = defs[&name]["x-method"].as_str() {
                    table.push((kind, method.to_owned(), name));
                }
            }
        }

        let document = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": Value::Object(defs),
        });
        let mut compiler = boon::Compiler::new();
        compiler
            .add_resource(DOC_URL, document)
            .expect("register the ACP schema");
        let mut schemas = boon::Schemas::new();
        let mut compile = |name: &str| {
            compiler
                .compile(&format!("{DOC_URL}#/$defs/{name}"), &mut schemas)
                .unwrap_or_else(|err| panic!("compile the ACP definition {name}: {err:#}"))
        };
        let error = compile("JsonRpcError");
        let by_method = table
            .into_iter()
            .map(|(kind, method, name)| {
                let index = compile(&name);
                ((kind, method), (name, index))
            })
            .collect();
        Validator {
            schemas,
            by_method,
            error,
        }
    }

    /// The schema definition used for `method` messages of `kind`, if ACP defines one.
    pub fn definition(&self, kind: Kind, method: &str) -> Option<&str> {
        self.by_method
            .get(&(kind, method.to_owned()))
            .map(|(name, _)| name.as_str())
    }

    /// Checks a payload (`params` or `result`) against its method's definition.
    pub fn check(&self, kind: Kind, method: &str, payload: &Value) -> Result<(), String> {
        let Some((name, index)) = self.by_method.get(&(kind, method.to_owned())) else {
            return Err(format!("ACP defines no {kind:?} for method `{method}`"));
        };
        self.schemas
            .validate(payload, *index)
            .map_err(|err| format!("not a valid {name} ({kind:?} `{method}`): {err:#}"))
    }

    /// Checks the `error` member of an error response against the JSON-RPC error shape.
    pub fn check_error(&self, error: &Value) -> Result<(), String> {
        self.schemas
            .validate(error, self.error)
            .map_err(|err| format!("not a valid JSON-RPC error object: {err:#}"))
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::{Kind, validator};

    #[test]
    fn methods_map_to_their_official_definitions() {
        let v = validator();
        let table: Vec<String> = [
            (Kind::Response, "initialize"),
            (Kind::Response, "session/new"),
            (Kind::Response, "session/prompt"),
            (Kind::Response, "session/set_mode"),
            (Kind::Request, "session/request_permission"),
            (Kind::Request, "fs/read_text_file"),
            (Kind::Request, "fs/write_text_file"),
            (Kind::Request, "terminal/create"),
            (Kind::Request, "terminal/output"),
            (Kind::Request, "terminal/wait_for_exit"),
            (Kind::Request, "terminal/kill"),
            (Kind::Request, "terminal/release"),
            (Kind::Notification, "session/update"),
            (Kind::Notification, "$/cancel_request"),
            (Kind::Request, "session/update"),
            (Kind::Response, "no/such_method"),
        ]
        .iter()
        .map(|(kind, method)| format!("{kind:?} {method} -> {:?}", v.definition(*kind, method)))
        .collect();
        expect![[r#"
            Response initialize -> Some("InitializeResponse")
            Response session/new -> Some("NewSessionResponse")
            Response session/prompt -> Some("PromptResponse")
            Response session/set_mode -> Some("SetSessionModeResponse")
            Request session/request_permission -> Some("RequestPermissionRequest")
            Request fs/read_text_file -> Some("ReadTextFileRequest")
            Request fs/write_text_file -> Some("WriteTextFileRequest")
            Request terminal/create -> Some("CreateTerminalRequest")
            Request terminal/output -> Some("TerminalOutputRequest")
            Request terminal/wait_for_exit -> Some("WaitForTerminalExitRequest")
            Request terminal/kill -> Some("KillTerminalRequest")
            Request terminal/release -> Some("ReleaseTerminalRequest")
            Notification session/update -> Some("SessionNotification")
            Notification $/cancel_request -> Some("CancelRequestNotification")
            Request session/update -> None
            Response no/such_method -> None
        "#]]
        .assert_eq(&(table.join("\n") + "\n"));
    }

    /// One payload per boundary: what the validator must accept and what it must refuse.
    fn check(kind: Kind, method: &str, payload: serde_json::Value, valid: bool) {
        let outcome = validator().check(kind, method, &payload);
        assert_eq!(
            outcome.is_ok(),
            valid,
            "{kind:?} {method} {payload}: {outcome:?}"
        );
    }

    #[test]
    fn validator_accepts_good_and_rejects_bad_payloads() {
        use Kind::*;
        check(
            Response,
            "session/prompt",
            json!({"stopReason": "end_turn"}),
            true,
        );
        check(
            Response,
            "session/prompt",
            json!({"stopReason": "cancelled"}),
            true,
        );
        check(
            Response,
            "session/prompt",
            json!({"stopReason": "banana"}),
            false,
        );
        check(Response, "session/prompt", json!({}), false);
        check(Response, "initialize", json!({"protocolVersion": 1}), true);
        check(
            Response,
            "initialize",
            json!({"protocolVersion": "1"}),
            false,
        );
        check(Response, "session/new", json!({"sessionId": "s"}), true);
        check(Response, "session/new", json!({"sessionId": 7}), false);
        check(
            Response,
            "session/new",
            json!({"sessionId": "s", "modes": {"currentModeId": "ask"}}),
            false,
        );
        check(Response, "session/set_mode", json!({}), true);
        let chunk = json!({"sessionId": "s", "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "hello"}}});
        check(Notification, "session/update", chunk, true);
        let garbage = json!({"sessionId": "s", "update": {"sessionUpdate": "banana"}});
        check(Notification, "session/update", garbage, false);
        let no_content =
            json!({"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk"}});
        check(Notification, "session/update", no_content, false);
        let permission = json!({"sessionId": "s",
            "toolCall": {"toolCallId": "t1"},
            "options": [{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"}]});
        check(Request, "session/request_permission", permission, true);
        let bad_kind = json!({"sessionId": "s",
            "toolCall": {"toolCallId": "t1"},
            "options": [{"optionId": "allow-once", "name": "Allow", "kind": "allow_forever"}]});
        check(Request, "session/request_permission", bad_kind, false);
        check(
            Notification,
            "$/cancel_request",
            json!({"requestId": 3}),
            true,
        );
        check(Notification, "$/cancel_request", json!({}), false);
        check(Response, "no/such_method", json!({}), false);
    }

    /// The validator is generated from schema 1.17, where the client-provided system prompt
    /// is stable (since 1.16): its capability has a shape. Under 1.15 the field was unstable
    /// and absent, so any value passed.
    #[test]
    fn validator_knows_the_stable_system_prompt_capability_of_schema_1_17() {
        let with = |value: serde_json::Value| {
            json!({"protocolVersion": 1,
                "agentCapabilities": {"sessionCapabilities": {"systemPrompt": value}}})
        };
        check(Kind::Response, "initialize", with(json!({})), true);
        check(Kind::Response, "initialize", with(json!(5)), false);
    }

    #[test]
    fn validator_checks_the_json_rpc_error_shape() {
        let v = validator();
        assert!(
            v.check_error(&json!({"code": -32602, "message": "Invalid params"}))
                .is_ok()
        );
        assert!(
            v.check_error(&json!({"code": -32602, "message": "x", "data": {"a": 1}}))
                .is_ok()
        );
        assert!(
            v.check_error(&json!({"code": "-32602", "message": "x"}))
                .is_err()
        );
        assert!(v.check_error(&json!({"code": -32602})).is_err());
    }
}
