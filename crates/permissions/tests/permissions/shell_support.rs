//! What the shell tables share: the session the commands are judged in, and the check
//! of a table of commands against their expected (or least) risk.

use std::path::PathBuf;

use warden_permissions::shell::analyse;
use warden_permissions::{Context, Risk};

/// A session in a project below a home folder, with Warden's own folder protected.
pub fn ctx() -> Context {
    Context::new("/home/wardentest/project")
        .with_home("/home/wardentest")
        .with_protected(vec![PathBuf::from("/home/wardentest/.config/warden")])
}

/// The rows of `cases` whose command is not judged at `expected` (or, with `at_least`,
/// at least `expected`), each as a line that says what it got and why.
pub fn failures(cases: &[(&str, Risk)], at_least: bool) -> Vec<String> {
    failures_in(cases, at_least, &ctx())
}

/// [`failures`] in the session `ctx`.
pub fn failures_in(cases: &[(&str, Risk)], at_least: bool, ctx: &Context) -> Vec<String> {
    cases
        .iter()
        .filter_map(|(command, expected)| {
            let a = analyse(command, ctx);
            let ok = if at_least {
                a.risk >= *expected
            } else {
                a.risk == *expected
            };
            (!ok).then(|| {
                format!(
                    "{command:?}: expected {}{expected}, got {} ({})",
                    if at_least { "at least " } else { "" },
                    a.risk,
                    a.reason()
                )
            })
        })
        .collect()
}

/// Fails with every row of `cases` that is not judged at `expected` (or, with
/// `at_least`, at least `expected`), so one run shows all that broke.
pub fn check_table(cases: &[(&str, Risk)], at_least: bool) {
    check_table_in(cases, at_least, &ctx());
}

/// [`check_table`] in the session `ctx`.
pub fn check_table_in(cases: &[(&str, Risk)], at_least: bool, ctx: &Context) {
    let f = failures_in(cases, at_least, ctx);
    assert!(
        f.is_empty(),
        "{} of {} failed:\n{}",
        f.len(),
        cases.len(),
        f.join("\n")
    );
}
