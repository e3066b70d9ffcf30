//! `http_fetch`.

use super::{ExecContext, ToolOutput};
use crate::call::HttpFetchArgs;

pub(crate) async fn fetch(_args: &HttpFetchArgs, _cx: &ExecContext<'_>) -> ToolOutput {
    ToolOutput::failed("http_fetch", "not available yet")
}
