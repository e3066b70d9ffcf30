//! Per-client defaults (`[[client]]`): the mode and approval timeout a client's
//! sessions start with, chosen by a glob over its `clientInfo.name`.

use serde::{Deserialize, Serialize};

use crate::Mode;
use crate::rule::build_client_glob;

/// One `[[client]]` table, read from the user's and the managed policy only: a project
/// cannot choose how its own calls are asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientEntry {
    /// A glob over `clientInfo.name`, case-insensitive (`unknown` for a client that
    /// sends none).
    pub name: String,
    /// The mode this client's sessions start in.
    pub mode: Option<Mode>,
    /// How long this client's permission requests wait; 0 waits for ever.
    pub approval_timeout_secs: Option<u64>,
}

impl ClientEntry {
    /// Whether the entry is for the client called `client`. A `name` that is not a glob
    /// matches no client (lint reports it).
    pub fn matches(&self, client: &str) -> bool {
        build_client_glob(&self.name).is_ok_and(|glob| glob.is_match(client))
    }
}

#[cfg(test)]
mod tests {
    use super::ClientEntry;

    #[test]
    fn a_client_name_glob_matches_case_insensitively() {
        let entry = |name: &str| ClientEntry {
            name: name.to_owned(),
            mode: None,
            approval_timeout_secs: None,
        };
        let table = [
            ("zed", "Zed", true),
            ("Zed", "zed", true),
            ("ci-*", "CI-runner", true),
            ("ci-*", "ci", false),
            ("*", "unknown", true),
            ("unknown", "unknown", true),
            ("unknown", "zed", false),
            ("[", "[", false),
        ];
        for (glob, client, expected) in table {
            assert_eq!(entry(glob).matches(client), expected, "{glob} ~ {client}");
        }
    }
}
