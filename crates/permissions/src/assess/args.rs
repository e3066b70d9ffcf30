//! Checking a built-in tool's arguments against the contract (section 2).

use serde_json::{Map, Value};

/// What is wrong with a call's arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgError {
    #[error("the arguments must be a JSON object")]
    NotAnObject,
    #[error("the required argument `{0}` is missing")]
    Missing(&'static str),
    #[error("the argument `{name}` must be {expected}")]
    WrongType {
        name: String,
        expected: &'static str,
    },
    #[error("the argument `{0}` must not be empty")]
    Empty(&'static str),
    #[error("unexpected argument `{0}`")]
    Unexpected(String),
    #[error("{0}")]
    Invalid(String),
}

/// A built-in tool's arguments, checked as they are read.
#[derive(Debug)]
pub(crate) struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Checks that `value` is an object holding no keys but `allowed` (and the
    /// model's `risk_level`, should the caller have left it in).
    pub(crate) fn new(value: &'a Value, allowed: &[&str]) -> Result<Args<'a>, ArgError> {
        let map = value.as_object().ok_or(ArgError::NotAnObject)?;
        if let Some(key) = map
            .keys()
            .find(|k| !allowed.contains(&k.as_str()) && k.as_str() != "risk_level")
        {
            return Err(ArgError::Unexpected(key.clone()));
        }
        Ok(Args { map })
    }

    /// A required, non-empty string.
    pub(crate) fn string(&self, name: &'static str) -> Result<&'a str, ArgError> {
        match self.opt_string(name)? {
            None => Err(ArgError::Missing(name)),
            Some("") => Err(ArgError::Empty(name)),
            Some(s) => Ok(s),
        }
    }

    /// A required string that may be empty (file contents).
    pub(crate) fn text(&self, name: &'static str) -> Result<&'a str, ArgError> {
        self.opt_string(name)?.ok_or(ArgError::Missing(name))
    }

    pub(crate) fn opt_string(&self, name: &'static str) -> Result<Option<&'a str>, ArgError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(ArgError::WrongType {
                name: name.to_owned(),
                expected: "a string",
            }),
        }
    }

    pub(crate) fn opt_bool(&self, name: &'static str) -> Result<Option<bool>, ArgError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(ArgError::WrongType {
                name: name.to_owned(),
                expected: "true or false",
            }),
        }
    }

    pub(crate) fn opt_u64(&self, name: &'static str) -> Result<Option<u64>, ArgError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| ArgError::WrongType {
                name: name.to_owned(),
                expected: "a whole number, zero or more",
            }),
        }
    }
}
