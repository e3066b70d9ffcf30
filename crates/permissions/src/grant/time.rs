//! Timestamps in grant files: RFC 3339 in UTC, to the second.
//! `format` is public so that front ends show times the same way.

use std::time::SystemTime;

use serde::{Deserialize, Deserializer, Serializer};

pub fn format(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

pub fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&humantime::format_rfc3339_seconds(*t))
}

/// Reads a timestamp without allocating (the string is borrowed from the input
/// where the deserializer allows it): grant files hold one or two per line.
struct Visitor;

impl serde::de::Visitor<'_> for Visitor {
    type Value = SystemTime;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an RFC 3339 timestamp")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<SystemTime, E> {
        humantime::parse_rfc3339_weak(s).map_err(E::custom)
    }
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
    d.deserialize_str(Visitor)
}

pub mod option {
    use super::*;

    pub fn serialize<S: Serializer>(t: &Option<SystemTime>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => super::serialize(t, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SystemTime>, D::Error> {
        #[derive(Deserialize)]
        struct Wrapped(#[serde(with = "super")] SystemTime);
        Ok(Option::<Wrapped>::deserialize(d)?.map(|Wrapped(t)| t))
    }
}
