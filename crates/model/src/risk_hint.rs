//! The model's own risk estimate for a tool call (seed 000, option C): an optional
//! `risk_level` argument on every tool.

use serde::{Deserialize, Serialize};

/// The argument name of the model's risk estimate.
pub const RISK_LEVEL_ARG: &str = "risk_level";

/// The description of the `risk_level` property sent to the model.
pub const RISK_LEVEL_DESCRIPTION: &str = "Optional: Risk level assessment for this operation. \
'low' = safe to execute automatically, 'medium'/'high' = requires user confirmation. \
If not provided, system will assess risk conservatively.";

/// The model's estimate of a call's risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiskHint {
    /// Safe to run automatically, in the model's view.
    Low,
    /// Needs the user's confirmation, in the model's view.
    Medium,
    /// Dangerous, in the model's view.
    High,
}

impl RiskHint {
    /// The hint as the model writes it: `low`, `medium` or `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskHint::Low => "low",
            RiskHint::Medium => "medium",
            RiskHint::High => "high",
        }
    }

    /// Parses `low`, `medium` or `high` (any ASCII case, surrounding spaces ignored).
    pub fn parse(text: &str) -> Option<RiskHint> {
        match text.trim().to_ascii_lowercase().as_str() {
            "low" => Some(RiskHint::Low),
            "medium" => Some(RiskHint::Medium),
            "high" => Some(RiskHint::High),
            _ => None,
        }
    }
}

impl std::fmt::Display for RiskHint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Returns `schema` with the optional `risk_level` property added. A schema that is not an
/// object with an object `properties` (or none) is returned unchanged, and so is a schema that
/// already declares its own `risk_level`, because the tool's own argument must not be
/// redefined.
pub fn with_risk_hint(schema: &serde_json::Value) -> serde_json::Value {
    let mut schema = schema.clone();
    let Some(object) = schema.as_object_mut() else {
        return schema;
    };
    let properties = object
        .entry("properties")
        .or_insert_with(|| serde_json::Value::Object(Default::default()));
    if let Some(properties) = properties.as_object_mut()
        && !properties.contains_key(RISK_LEVEL_ARG)
    {
        properties.insert(
            RISK_LEVEL_ARG.to_owned(),
            serde_json::json!({
                "type": "string",
                "enum": ["low", "medium", "high"],
                "description": RISK_LEVEL_DESCRIPTION,
            }),
        );
    }
    schema
}

/// Removes `risk_level` from a call's arguments and returns the hint it held.
///
/// Call this before the tool runs and before grants are matched, so that neither the tool nor
/// a stored grant ever sees the hint. The argument is removed even when its value is invalid;
/// an invalid value (anything but `"low"`, `"medium"`, `"high"` or `null`) is reported as an
/// error, never silently ignored, so that the caller can treat the call conservatively.
pub fn take_risk_hint(args: &mut serde_json::Value) -> Result<Option<RiskHint>, String> {
    let Some(value) = args
        .as_object_mut()
        .and_then(|object| object.remove(RISK_LEVEL_ARG))
    else {
        return Ok(None);
    };
    match &value {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(text) => RiskHint::parse(text).map(Some).ok_or_else(|| {
            format!("invalid risk_level {value}: expected \"low\", \"medium\" or \"high\"")
        }),
        _ => Err(format!(
            "invalid risk_level {value}: expected \"low\", \"medium\" or \"high\""
        )),
    }
}
