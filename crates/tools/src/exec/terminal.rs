//! `terminal`: through the editor's `terminal/*` when offered, as a local process otherwise.

use super::{ExecContext, ToolOutput};
use crate::call::TerminalArgs;

pub(crate) async fn run(_args: &TerminalArgs, _cx: &ExecContext<'_>) -> ToolOutput {
    ToolOutput::failed("terminal", "not available yet")
}
