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

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
    let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
    humantime::parse_rfc3339_weak(&s).map_err(serde::de::Error::custom)
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
        let s = <Option<std::borrow::Cow<'de, str>>>::deserialize(d)?;
        s.map(|s| humantime::parse_rfc3339_weak(&s).map_err(serde::de::Error::custom))
            .transpose()
    }
}
