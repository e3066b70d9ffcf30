//! The built-in tools as a [`ToolSource`]: the first source of every session.

use std::sync::{Arc, LazyLock};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use crate::exec::ExecContext;
use crate::output::ToolOutput;
use crate::place::Place;
use crate::source::{PreparedCall, ToolInfo, ToolSource};
use crate::{ValidationError, builtin_tools, locations, title, validate};

/// The built-in tools (`fs_*`, `terminal`, `http_fetch`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Builtins;

static INFOS: LazyLock<Arc<[ToolInfo]>> = LazyLock::new(|| {
    builtin_tools()
        .iter()
        .map(|def| ToolInfo {
            name: def.name.to_owned(),
            description: def.description.to_owned(),
            schema: def.schema.clone(),
        })
        .collect()
});

impl ToolSource for Builtins {
    fn tools(&self) -> Arc<[ToolInfo]> {
        INFOS.clone()
    }

    fn prepare(
        &self,
        tool: &str,
        args: Value,
        place: Place<'_>,
    ) -> Result<PreparedCall, ValidationError> {
        let parsed = validate(tool, &args)?;
        Ok(PreparedCall {
            tool: parsed.tool_name().to_owned(),
            title: title(&parsed, place),
            kind: parsed.kind(),
            locations: locations(&parsed, place.cwd, place.home),
            annotations: None,
            origin: None,
            args,
            parsed: Some(parsed),
            launch: None,
        })
    }

    fn run<'a>(&'a self, call: &'a PreparedCall, cx: ExecContext<'a>) -> BoxFuture<'a, ToolOutput> {
        async move {
            match &call.parsed {
                Some(parsed) => match (&call.launch, parsed) {
                    (Some(launch), _) => crate::exec::execute_with(parsed, launch, cx).await,
                    // Fail closed: a command whose confinement was never decided
                    // does not run.
                    (None, crate::ParsedCall::Terminal(_)) => ToolOutput::failed(
                        &call.tool,
                        "the command's sandbox was not set up, so it did not run",
                    ),
                    (None, _) => crate::execute(parsed, cx).await,
                },
                // Only this source makes built-in calls, and it always keeps their
                // typed arguments; a call without them runs nothing.
                None => ToolOutput::failed(&call.tool, "the call was not prepared as a built-in"),
            }
        }
        .boxed()
    }
}
