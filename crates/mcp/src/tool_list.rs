//! A server's tool list as the session sees it, shared by the connection's handler (which
//! reads it again on `tools/list_changed`) and the tool source (which offers it).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::Tool;
use rmcp::{Peer, RoleClient};
use serde_json::Value;
use warden_tools::{Annotations, ToolInfo};

use crate::naming;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A tool as the server described it.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    /// Its own name on the server.
    pub(crate) real: String,
    pub(crate) annotations: Option<Annotations>,
    /// The properties its schema requires.
    pub(crate) required: Vec<String>,
}

/// What the connection's handler and the tool source share: the tool list.
#[derive(Debug)]
pub(crate) struct Shared {
    server: String,
    tools: Mutex<Arc<[ToolInfo]>>,
    specs: Mutex<HashMap<String, Spec>>,
    refreshing: AtomicBool,
    again: AtomicBool,
}

impl Shared {
    pub(crate) fn new(server: &str) -> Shared {
        Shared {
            server: server.to_owned(),
            tools: Mutex::new(Arc::from(Vec::new())),
            specs: Mutex::new(HashMap::new()),
            refreshing: AtomicBool::new(false),
            again: AtomicBool::new(false),
        }
    }

    pub(crate) fn tools(&self) -> Arc<[ToolInfo]> {
        lock(&self.tools).clone()
    }

    pub(crate) fn spec(&self, model_name: &str) -> Option<Spec> {
        lock(&self.specs).get(model_name).cloned()
    }

    /// Takes a new tool list; returns what was refused, in words. A tool whose name
    /// cannot be shown faithfully, a second tool of the same name, or one whose input
    /// schema is not an object schema is left out.
    pub(crate) fn set_tools(&self, tools: &[Tool]) -> Vec<String> {
        let mut problems = Vec::new();
        let mut infos = Vec::new();
        let mut specs = HashMap::new();
        let mut seen = HashSet::new();
        for tool in tools {
            let real = tool.name.to_string();
            let name = match naming::model_name(&self.server, &real) {
                Ok(name) => name,
                Err(err) => {
                    problems.push(format!("tool `{real}` left out: {err}"));
                    continue;
                }
            };
            if !seen.insert(real.clone()) {
                problems.push(format!("tool `{real}` left out: the server lists it twice"));
                continue;
            }
            let schema = Value::Object((*tool.input_schema).clone());
            if schema.get("type").and_then(Value::as_str) != Some("object") {
                problems.push(format!(
                    "tool `{real}` left out: its input schema is not an object schema"
                ));
                continue;
            }
            let required = match schema.get("required") {
                None => Vec::new(),
                Some(Value::Array(list)) if list.iter().all(Value::is_string) => list
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                Some(_) => {
                    problems.push(format!(
                        "tool `{real}` left out: its schema's `required` is not a list of names"
                    ));
                    continue;
                }
            };
            let annotations = tool.annotations.as_ref().map(|a| Annotations {
                read_only: a.read_only_hint,
                destructive: a.destructive_hint,
                idempotent: a.idempotent_hint,
                open_world: a.open_world_hint,
            });
            infos.push(ToolInfo {
                name: name.clone(),
                description: tool
                    .description
                    .as_deref()
                    .unwrap_or("A tool of an MCP server.")
                    .to_owned(),
                schema,
            });
            specs.insert(
                name,
                Spec {
                    real,
                    annotations,
                    required,
                },
            );
        }
        *lock(&self.specs) = specs;
        *lock(&self.tools) = Arc::from(infos);
        problems
    }

    /// Reads the tool list again (after `tools/list_changed`), one read at a time: a
    /// flood of notifications causes at most one more read after the one under way.
    pub(crate) fn refresh(self: &Arc<Self>, peer: Peer<RoleClient>) {
        self.again.store(true, Ordering::Release);
        if self.refreshing.swap(true, Ordering::AcqRel) {
            return;
        }
        let shared = self.clone();
        tokio::spawn(async move {
            while shared.again.swap(false, Ordering::AcqRel) {
                match peer.list_all_tools().await {
                    Ok(tools) => {
                        for problem in shared.set_tools(&tools) {
                            tracing::warn!(server = %shared.server, "{problem}");
                        }
                    }
                    Err(err) => {
                        tracing::warn!(server = %shared.server, %err, "could not read the changed tool list");
                        break;
                    }
                }
            }
            shared.refreshing.store(false, Ordering::Release);
        });
    }
}
