//! What a server may ask of Warden (the MCP client side): the roots are the session's
//! workspace; elicitation goes to the editor through a [`Relay`] when the editor shows
//! forms, and is declined otherwise; sampling is never advertised, so a server that asks
//! for it anyway gets "method not found". A `tools/list_changed` notification makes the
//! server's tool list be read again.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

#[allow(deprecated)]
use rmcp::model::{ClientConfig, ElicitRequestParams, ElicitResult, ListRootsResult};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Value, json};

use crate::relay::{ElicitAnswer, Relay};
use crate::tool_list::Shared;

/// The client handler of one server's connection.
pub(crate) struct Handler {
    pub(crate) server: String,
    pub(crate) roots: Vec<PathBuf>,
    pub(crate) relay: Option<Arc<dyn Relay>>,
    pub(crate) shared: Arc<Shared>,
}

fn file_uri(path: &std::path::Path) -> String {
    // Roots are absolute folders; the few characters that would break a URI are
    // escaped.
    let mut uri = String::from("file://");
    for c in path.to_string_lossy().chars() {
        match c {
            ' ' => uri.push_str("%20"),
            '%' => uri.push_str("%25"),
            '#' => uri.push_str("%23"),
            '?' => uri.push_str("%3F"),
            c => uri.push(c),
        }
    }
    uri
}

impl ClientHandler for Handler {
    // Roots are deprecated by a newer protocol revision, but servers of today (the
    // filesystem server among them) still ask for them.
    #[allow(deprecated)]
    fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<ListRootsResult, ErrorData>> + Send + '_ {
        let roots: Vec<Value> = self
            .roots
            .iter()
            .map(|root| {
                json!({
                    "uri": file_uri(root),
                    "name": root.file_name().map(|n| n.to_string_lossy().into_owned()),
                })
            })
            .collect();
        let result = serde_json::from_value(json!({ "roots": roots }))
            .map_err(|err| ErrorData::internal_error(err.to_string(), None));
        std::future::ready(result)
    }

    fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<ElicitResult, ErrorData>> + Send + '_ {
        let relay = self.relay.clone();
        let server = self.server.clone();
        async move {
            let answer = match (relay, serde_json::to_value(&request)) {
                (Some(relay), Ok(request)) => relay.elicit(&server, request).await,
                _ => {
                    tracing::info!(
                        server,
                        "declined an elicitation request: the editor shows no forms"
                    );
                    ElicitAnswer::Decline
                }
            };
            let result = match answer {
                ElicitAnswer::Accept {
                    content: Some(content),
                } => {
                    json!({ "action": "accept", "content": content })
                }
                ElicitAnswer::Accept { content: None } => json!({ "action": "accept" }),
                ElicitAnswer::Decline => json!({ "action": "decline" }),
                ElicitAnswer::Cancel => json!({ "action": "cancel" }),
            };
            serde_json::from_value(result)
                .map_err(|err| ErrorData::internal_error(err.to_string(), None))
        }
    }

    fn on_tool_list_changed(
        &self,
        context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.shared.refresh(context.peer);
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        let capabilities = json!({
            "roots": { "listChanged": false },
            "elicitation": if self.relay.is_some() { json!({}) } else { Value::Null },
        });
        if let Ok(capabilities) = serde_json::from_value(capabilities) {
            info.capabilities = capabilities;
        }
        info.client_info.name = "warden".to_owned();
        info.client_info.title = Some("Warden".to_owned());
        info.client_info.version = env!("CARGO_PKG_VERSION").to_owned();
        info
    }
}
