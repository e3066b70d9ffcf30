//! The grants in effect, indexed for lookup.

use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

use super::{Effect, Grant};
use crate::assess::{Assessment, Unit};
use crate::{Risk, ToolCall};

/// A set of grants, filed by program (command grants) or tool (the others).
#[derive(Debug, Default, Clone)]
pub struct GrantSet {
    grants: Vec<Grant>,
    by_key: HashMap<String, Vec<usize>>,
}

impl GrantSet {
    pub fn new(grants: Vec<Grant>) -> GrantSet {
        let mut set = GrantSet {
            grants: Vec::with_capacity(grants.len()),
            by_key: HashMap::with_capacity(grants.len().min(1 << 16)),
        };
        for g in grants {
            set.insert(g);
        }
        set
    }

    pub fn insert(&mut self, grant: Grant) {
        let i = self.grants.len();
        for (n, m) in grant.matchers.iter().enumerate() {
            let key = m.key();
            if grant.matchers[..n]
                .iter()
                .any(|earlier| earlier.key() == key)
            {
                continue;
            }
            match self.by_key.get_mut(key) {
                Some(list) => list.push(i),
                None => {
                    self.by_key.insert(key.to_owned(), vec![i]);
                }
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

    /// The first live grant with this effect that covers the unit. Deny grants are
    /// looked for separately and first, by the engine.
    #[allow(clippy::too_many_arguments)]
    pub fn find(
        &self,
        effect: Effect,
        call: &ToolCall,
        assessment: &Assessment,
        unit: &Unit,
        risk: Risk,
        now: SystemTime,
        project_root: &Path,
    ) -> Option<&Grant> {
        let key = if call.tool == "terminal" {
            unit.argv.first().map_or("", String::as_str)
        } else {
            call.tool.as_str()
        };
        self.by_key
            .get(key)?
            .iter()
            .map(|&i| &self.grants[i])
            .find(|g| {
                g.effect == effect
                    && g.is_live(now, project_root)
                    && g.covers(call, assessment, unit, risk)
            })
    }
}
