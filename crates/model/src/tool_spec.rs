//! The description of a tool offered to the model.

use serde::{Deserialize, Serialize};

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The tool's name, e.g. `fs_read`.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The JSON schema of the tool's arguments (an object schema). Backends that talk to a real
    /// model add the optional `risk_level` property with [`crate::with_risk_hint`].
    pub input_schema: serde_json::Value,
}
