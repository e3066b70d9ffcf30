//! An index over compiled rules, so that one evaluation looks at the few rules that
//! can match instead of all of them.
//!
//! Each condition (tool glob, command program, path glob, domain) gives the set of
//! rules it lets through: rules without that condition always pass, rules with it
//! pass when it matches. Tool and path globs are compiled into `GlobSet`s, commands
//! and domains into hash maps. The sets are intersected as bitsets and only the
//! survivors are checked in full by [`Rule::matches`].

use std::collections::HashMap;

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::Context;
use crate::assess::Unit;
use crate::rule::{Anchor, DomainPattern, PathPattern, Rule};

/// A fixed-size set of rule indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn union(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    fn intersect(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut word = word;
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    w * 64 + bit
                })
            })
        })
    }
}

/// The path rules of one anchor: filed by the glob's first component when it is a
/// plain name, else in a `GlobSet`.
#[derive(Debug)]
struct PathIndex {
    anchor: Anchor,
    by_first: HashMap<String, Vec<usize>>,
    other: GlobSet,
    other_owners: Vec<usize>,
}

/// The `args` rules, filed by their first argument key.
#[derive(Debug)]
struct ArgIndex {
    key: String,
    set: GlobSet,
    owners: Vec<usize>,
}

/// The index over one ordered list of rules.
#[derive(Debug)]
pub(crate) struct RuleIndex {
    len: usize,
    /// One entry per distinct tool glob, so that a glob shared by many rules (every
    /// `terminal` rule) costs one match and one bitset union.
    tools: GlobSet,
    tool_owners: Vec<Bits>,
    no_tool: Bits,
    /// Rules that cover reads by any tool ([`Rule::covers_reads`]).
    reading: Bits,
    programs: HashMap<String, Vec<usize>>,
    any_program: Bits,
    no_command: Bits,
    paths: Vec<PathIndex>,
    no_path: Bits,
    args: Vec<ArgIndex>,
    no_args: Bits,
    domains: HashMap<String, Vec<usize>>,
    no_domain: Bits,
}

/// The path index being built for one anchor: rules by the literal first part of their
/// path, and the globs (with their rules) of the paths that start with a pattern.
type PathBuilder = (
    Anchor,
    HashMap<String, Vec<usize>>,
    GlobSetBuilder,
    Vec<usize>,
);

/// Files rule `i` under its path's anchor: by the path's literal first part, or among
/// the anchor's globs.
fn file_path(builders: &mut [PathBuilder], pattern: &PathPattern, i: usize) {
    if let Some((_, by_first, other, owners)) =
        builders.iter_mut().find(|(a, ..)| *a == pattern.anchor)
    {
        match pattern.first_literal() {
            Some(first) => by_first.entry(first.to_owned()).or_default().push(i),
            None => {
                other.add(pattern.glob.glob().clone());
                owners.push(i);
            }
        }
    }
}

/// Files rule `i` under the argument its first argument glob is about.
fn file_arg(
    builders: &mut Vec<(String, GlobSetBuilder, Vec<usize>)>,
    key: &str,
    glob: &Glob,
    i: usize,
) {
    let at = match builders.iter().position(|(k, ..)| k == key) {
        Some(at) => at,
        None => {
            builders.push((key.to_owned(), GlobSetBuilder::new(), Vec::new()));
            builders.len() - 1
        }
    };
    builders[at].1.add(glob.clone());
    builders[at].2.push(i);
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

impl RuleIndex {
    pub(crate) fn build(rules: &[Rule]) -> RuleIndex {
        let n = rules.len();
        let mut tools = GlobSetBuilder::new();
        let mut tool_owners: Vec<Bits> = Vec::new();
        let mut tool_slots: HashMap<String, usize> = HashMap::new();
        let mut no_tool = Bits::new(n);
        let mut reading = Bits::new(n);
        let mut programs: HashMap<String, Vec<usize>> = HashMap::new();
        let mut any_program = Bits::new(n);
        let mut no_command = Bits::new(n);
        let mut path_builders: Vec<PathBuilder> = [Anchor::Absolute, Anchor::Cwd, Anchor::Home]
            .into_iter()
            .map(|a| (a, HashMap::new(), GlobSetBuilder::new(), Vec::new()))
            .collect();
        let mut arg_builders: Vec<(String, GlobSetBuilder, Vec<usize>)> = Vec::new();
        let mut no_args = Bits::new(n);
        let mut no_path = Bits::new(n);
        let mut domains: HashMap<String, Vec<usize>> = HashMap::new();
        let mut no_domain = Bits::new(n);

        for (i, rule) in rules.iter().enumerate() {
            if rule.covers_reads {
                reading.set(i);
            }
            match &rule.tool {
                Some((_, glob)) => {
                    let slot = *tool_slots
                        .entry(glob.glob().glob().to_owned())
                        .or_insert_with(|| {
                            tools.add(glob.glob().clone());
                            tool_owners.push(Bits::new(n));
                            tool_owners.len() - 1
                        });
                    tool_owners[slot].set(i);
                }
                None => no_tool.set(i),
            }
            match rule.command.as_ref().map(|(_, p)| p.program()) {
                None => no_command.set(i),
                Some(None) => any_program.set(i),
                Some(Some(program)) => programs
                    .entry(basename(program).to_owned())
                    .or_default()
                    .push(i),
            }
            match &rule.path {
                None => no_path.set(i),
                Some(pattern) => file_path(&mut path_builders, pattern, i),
            }
            match rule.args.first() {
                None => no_args.set(i),
                Some((key, glob)) => file_arg(&mut arg_builders, key, glob.glob(), i),
            }
            // Domains are keyed by the host (exact) or by the suffix with its dot
            // (`*.example.com` under `.example.com`); a host looks up itself and
            // each of its dotted suffixes.
            match &rule.domain {
                None => no_domain.set(i),
                Some((_, DomainPattern::Exact(h) | DomainPattern::Subdomains(h))) => {
                    domains.entry(h.clone()).or_default().push(i)
                }
            }
        }
        let build = |b: GlobSetBuilder| b.build().unwrap_or_else(|_| GlobSet::empty());
        RuleIndex {
            len: n,
            tools: build(tools),
            tool_owners,
            no_tool,
            reading,
            programs,
            any_program,
            no_command,
            paths: path_builders
                .into_iter()
                .map(|(anchor, by_first, other, other_owners)| PathIndex {
                    anchor,
                    by_first,
                    other: build(other),
                    other_owners,
                })
                .collect(),
            no_path,
            args: arg_builders
                .into_iter()
                .map(|(key, b, owners)| ArgIndex {
                    key,
                    set: build(b),
                    owners,
                })
                .collect(),
            no_args,
            domains,
            no_domain,
        }
    }

    /// The rules that may match this unit of a call to `tool`; each must still be
    /// checked with [`Rule::matches`].
    pub(crate) fn candidates(
        &self,
        tool: &str,
        args: &serde_json::Value,
        unit: &Unit,
        domain: Option<&str>,
        ctx: &Context,
    ) -> Bits {
        let mut result = self.no_tool.clone();
        for i in self.tools.matches(tool) {
            result.union(&self.tool_owners[i]);
        }
        if !unit.reads.is_empty() {
            result.union(&self.reading);
        }

        let mut commands = self.no_command.clone();
        if let Some(program) = unit.argv.first() {
            commands.union(&self.any_program);
            if let Some(rules) = self.programs.get(basename(program)) {
                rules.iter().for_each(|&i| commands.set(i));
            }
        }
        result.intersect(&commands);

        let mut paths = self.no_path.clone();
        if unit.reads_below {
            // A search reads everything below its folder: any path rule may match,
            // `Rule::matches_rest` decides.
            for index in &self.paths {
                index
                    .by_first
                    .values()
                    .flatten()
                    .for_each(|&i| paths.set(i));
                index.other_owners.iter().for_each(|&i| paths.set(i));
            }
        }
        for index in &self.paths {
            if index.by_first.is_empty() && index.other_owners.is_empty() {
                continue;
            }
            for p in unit.paths.iter().chain(&unit.reads) {
                for path in [&p.lexical, &p.real] {
                    let Some(subject) = PathPattern::subject(index.anchor, path, ctx) else {
                        continue;
                    };
                    // Rules filed by their first component are candidates when the
                    // path starts with it; `Rule::matches_rest` checks the glob.
                    if let Some(rules) = PathPattern::first_component(subject)
                        .and_then(|first| index.by_first.get(first))
                    {
                        rules.iter().for_each(|&i| paths.set(i));
                    }
                    if !index.other_owners.is_empty() {
                        for i in index.other.matches(subject) {
                            paths.set(index.other_owners[i]);
                        }
                    }
                }
            }
        }
        result.intersect(&paths);

        let mut with_args = self.no_args.clone();
        for index in &self.args {
            if let Some(value) = crate::rule::arg_text(args, &index.key) {
                for i in index.set.matches(&*value) {
                    with_args.set(index.owners[i]);
                }
            }
        }
        result.intersect(&with_args);

        let mut domains = self.no_domain.clone();
        if let Some(host) = domain {
            let suffixes =
                std::iter::once(host).chain(host.match_indices('.').map(|(i, _)| &host[i..]));
            for key in suffixes {
                if let Some(rules) = self.domains.get(key) {
                    rules.iter().for_each(|&i| domains.set(i));
                }
            }
        }
        result.intersect(&domains);
        debug_assert_eq!(result.0.len(), self.len.div_ceil(64));
        result
    }
}
