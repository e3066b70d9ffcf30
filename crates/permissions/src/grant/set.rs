//! The grants in effect, indexed for lookup.

use std::hash::BuildHasher;
use std::path::Path;
use std::time::SystemTime;

use super::{Effect, Grant};
use crate::assess::{Assessment, Unit};
use crate::{Risk, ToolCall};

/// A set of grants, filed by program (command grants) or tool (the others).
///
/// The index is a sorted list of (hash of the key, grant index): building it allocates
/// nothing per grant, which matters when 100,000 grants load. A hash collision only
/// makes a grant a candidate; [`Grant::covers`] decides.
#[derive(Debug, Clone)]
pub struct GrantSet {
    grants: Vec<Grant>,
    index: Vec<(u64, usize)>,
    hasher: std::hash::RandomState,
}

impl Default for GrantSet {
    fn default() -> GrantSet {
        GrantSet::new(Vec::new())
    }
}

impl GrantSet {
    pub fn new(grants: Vec<Grant>) -> GrantSet {
        let hasher = std::hash::RandomState::new();
        let mut index = Vec::with_capacity(grants.len());
        for (i, g) in grants.iter().enumerate() {
            for (n, m) in g.matchers.iter().enumerate() {
                let key = m.key();
                if !g.matchers[..n].iter().any(|earlier| earlier.key() == key) {
                    index.push((hash(&hasher, key), i));
                }
            }
        }
        index.sort_unstable();
        GrantSet {
            grants,
            index,
            hasher,
        }
    }

    pub fn insert(&mut self, grant: Grant) {
        let i = self.grants.len();
        for (n, m) in grant.matchers.iter().enumerate() {
            let key = m.key();
            if !grant.matchers[..n]
                .iter()
                .any(|earlier| earlier.key() == key)
            {
                let entry = (hash(&self.hasher, key), i);
                let at = self.index.partition_point(|e| *e < entry);
                self.index.insert(at, entry);
            }
        }
        self.grants.push(grant);
    }

    pub fn grants(&self) -> &[Grant] {
        &self.grants
    }

    pub fn len(&self) -> usize {
        self.grants.len()
    }

    pub fn is_empty(&self) -> bool {
        self.grants.is_empty()
    }

    /// The first live grant with this effect that covers the unit, in the order the
    /// grants were added. Deny grants are looked for separately and first, by the
    /// engine.
    pub fn find(&self, effect: Effect, lookup: &GrantLookup<'_>) -> Option<&Grant> {
        let GrantLookup {
            call,
            assessment,
            unit,
            risk,
            now,
            project_root,
        } = *lookup;
        // The key a matcher files its grant under (`GrantMatcher::key`): the program of
        // a command, an MCP tool's own name on its server, the tool otherwise.
        let key = match &call.origin {
            _ if call.tool == "terminal" => unit.argv.first().map_or("", String::as_str),
            Some(origin) => origin.tool.as_str(),
            None => call.tool.as_str(),
        };
        let h = hash(&self.hasher, key);
        let start = self.index.partition_point(|(k, _)| *k < h);
        self.index[start..]
            .iter()
            .take_while(|(k, _)| *k == h)
            .map(|&(_, i)| &self.grants[i])
            .find(|g| {
                g.effect == effect
                    && g.is_live(now, project_root)
                    && g.covers(call, assessment, unit, risk)
            })
    }
}

/// What a grant lookup is about: one unit of an assessed call, at the risk the engine
/// settled on, at one moment, in one project. It only borrows, so building one for
/// each lookup costs nothing on the decision's hot path.
#[derive(Debug, Clone, Copy)]
pub struct GrantLookup<'a> {
    pub call: &'a ToolCall,
    pub assessment: &'a Assessment,
    pub unit: &'a Unit,
    pub risk: Risk,
    /// The moment that decides whether a grant has expired.
    pub now: SystemTime,
    /// The project a project-scoped grant must belong to.
    pub project_root: &'a Path,
}

fn hash(hasher: &std::hash::RandomState, key: &str) -> u64 {
    hasher.hash_one(key)
}
