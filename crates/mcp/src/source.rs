//! A connected server as a source of the session's tools.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use warden_tools::{
    ExecContext, Origin, Place, PreparedCall, ToolInfo, ToolKind, ToolOutput, ToolSource,
    ValidationError,
};

use crate::server::Server;

/// The tools of one MCP server, for a session's `Toolbox`.
#[derive(Debug, Clone)]
pub struct McpSource {
    server: Arc<Server>,
}

impl McpSource {
    pub fn new(server: Arc<Server>) -> McpSource {
        McpSource { server }
    }

    pub fn server(&self) -> &Arc<Server> {
        &self.server
    }
}

impl ToolSource for McpSource {
    fn tools(&self) -> Arc<[ToolInfo]> {
        self.server.shared().tools()
    }

    fn prepare(
        &self,
        tool: &str,
        args: Value,
        place: Place<'_>,
    ) -> Result<PreparedCall, ValidationError> {
        let spec = self
            .server
            .shared()
            .spec(tool)
            .ok_or_else(|| ValidationError::UnknownTool(tool.to_owned()))?;
        let Some(object) = args.as_object() else {
            return Err(ValidationError::Schema {
                tool: tool.to_owned(),
                message: "the arguments must be a JSON object".to_owned(),
            });
        };
        // The server validates the rest against its schema; the required properties
        // are checked here so that the model hears of a missing one before anyone is
        // asked.
        let missing: Vec<&str> = spec
            .required
            .iter()
            .filter(|name| !object.contains_key(name.as_str()))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(ValidationError::Schema {
                tool: tool.to_owned(),
                message: format!("missing required argument(s): {}", missing.join(", ")),
            });
        }
        let server = self.server.name();
        let title = warden_i18n::catalog(place.language).text(
            "tools-mcp",
            &warden_i18n::Args::new()
                .with("tool", spec.real.clone())
                .with("server", server.to_owned()),
        );
        let mut call = PreparedCall::new(tool.to_owned(), args, ToolKind::Other, title)
            .with_origin(Origin {
                server: server.to_owned(),
                identity: self.server.identity().to_owned(),
                tool: spec.real.clone(),
            });
        if let Some(annotations) = spec.annotations {
            call = call.with_annotations(annotations);
        }
        Ok(call)
    }

    fn run<'a>(&'a self, call: &'a PreparedCall, cx: ExecContext<'a>) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let Some(origin) = &call.origin else {
                return ToolOutput::failed(&call.tool, "not a call of this MCP server");
            };
            let output = self
                .server
                .call(&call.tool, &origin.tool, &call.args, &cx.cancel)
                .await;
            cx.secrets.redact_output(output)
        })
    }
}
