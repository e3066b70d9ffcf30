//! `_meta.permission`: the convention the widely used ACP adapters share for a
//! permission request's title and a sentence per option, which clients that know it
//! render as a proper dialog. Warden sends it beside its own `_meta.warden`, in the
//! user's language.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The key under `_meta`.
pub const PERMISSION: &str = "permission";

/// The version of the convention Warden writes.
pub const PERMISSION_META_VERSION: u32 = 1;

/// `_meta.permission` of a request (with a title) or of an option (without one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionMeta {
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
}

impl PermissionMeta {
    /// The request's: what is asked, and why, in a sentence.
    pub fn request(title: String, description: String) -> PermissionMeta {
        PermissionMeta {
            version: PERMISSION_META_VERSION,
            title: Some(title),
            description,
        }
    }

    /// An option's: what choosing it does.
    pub fn option(description: String) -> PermissionMeta {
        PermissionMeta {
            version: PERMISSION_META_VERSION,
            title: None,
            description,
        }
    }

    /// Adds it to a `_meta` object.
    pub fn insert_into(&self, meta: &mut Map<String, Value>) {
        // Serialising this plain struct cannot fail; a null would only drop it.
        meta.insert(
            PERMISSION.to_owned(),
            serde_json::to_value(self).unwrap_or(Value::Null),
        );
    }

    /// Reads it from a `_meta` object: `None` when there is none or it does not have the
    /// convention's shape (it is a courtesy, never a reason to refuse a message).
    pub fn read(meta: Option<&Map<String, Value>>) -> Option<PermissionMeta> {
        let value = meta?.get(PERMISSION)?;
        PermissionMeta::deserialize(value).ok()
    }

    /// The `_meta` object that holds only this.
    pub fn to_meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        self.insert_into(&mut meta);
        meta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_convention_s_shape_is_written_and_read() {
        let meta = PermissionMeta::request("Run `ls`?".to_owned(), "Risk Low".to_owned()).to_meta();
        assert_eq!(
            Value::Object(meta.clone()),
            serde_json::json!({"permission": {"version": 1, "title": "Run `ls`?", "description": "Risk Low"}})
        );
        assert_eq!(
            PermissionMeta::read(Some(&meta)).map(|m| m.title),
            Some(Some("Run `ls`?".to_owned()))
        );
        let option = PermissionMeta::option("Runs it once.".to_owned()).to_meta();
        assert_eq!(
            Value::Object(option),
            serde_json::json!({"permission": {"version": 1, "description": "Runs it once."}})
        );
        let odd: Map<String, Value> =
            serde_json::from_value(serde_json::json!({"permission": "yes"})).unwrap_or_default();
        assert_eq!(PermissionMeta::read(Some(&odd)), None);
    }
}
