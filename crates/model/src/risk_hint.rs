//! The model's own risk estimate for a tool call: an optional `risk_level` argument
//! that every tool's schema offers the model. Reading it out of a call is the permission
//! engine's (`warden_permissions::take_risk_level`), which treats a malformed value as a
//! malformed call.

/// The argument name of the model's risk estimate.
pub const RISK_LEVEL_ARG: &str = "risk_level";

/// The description of the `risk_level` property sent to the model.
pub const RISK_LEVEL_DESCRIPTION: &str = "Optional: Risk level assessment for this operation. \
'low' = safe to execute automatically, 'medium'/'high' = requires user confirmation. \
If not provided, system will assess risk conservatively.";

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
