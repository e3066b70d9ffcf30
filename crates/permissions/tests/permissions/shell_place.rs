//! Where the shell really is, and fork bombs, as tables: `cd` in scripts run in the
//! same shell (`eval`, `source`) moves the shell; `cd` in `bash -c` and subshells
//! moves only theirs; where Warden cannot know the folder (`CDPATH`, a target only
//! known at run time, `popd` past what the line pushed, a changed `HOME`) later
//! relative paths are not workspace paths; `cd -P` follows symbolic links. A cycle of
//! functions that starts processes is a fork bomb, however the functions name each
//! other.

use warden_permissions::shell::analyse;
use warden_permissions::{Context, Risk};

use super::shell_support::{check_table, check_table_in, ctx};

use Risk::{Critical, High, Low, Medium};

const WHERE_THE_SHELL_IS: &[(&str, Risk)] = &[
    ("eval cd /; rm -rf x", Critical),
    ("eval \"cd /\" && rm -rf x", Critical),
    ("eval 'cd ~' ; rm -rf x", Critical),
    ("eval cd /etc; cat shadow", High),
    ("bash -c 'cd /; rm -rf x'", Critical),
    ("sh -c 'cd / && rm -rf x'", Critical),
    ("sh -c 'cd ~ && rm -rf x'", Critical),
    ("bash -c 'cd /etc; cat shadow'", High),
    ("bash -c 'pushd / >/dev/null; rm -rf x'", Critical),
    ("(cd / && rm -rf x)", Critical),
    ("CDPATH=/ cd etc; rm -rf x", Critical),
    ("CDPATH=/; cd etc && rm -rf x", Critical),
    ("export CDPATH=/; cd etc; rm -rf x", Critical),
    ("shopt -s cdable_vars; cd d; rm -rf x", Critical),
    ("cd \"$X\"; rm -rf y", Critical),
    ("cd $(mktemp -d); rm -rf y", Critical),
    ("cd `cat dir`; rm -rf y", Critical),
    ("pushd /; rm -rf x", Critical),
    ("pushd src; popd; popd; rm -rf x", Critical),
    ("popd; rm -rf x", Critical),
    ("cd /; cd src; cd -; rm -rf x", Critical),
    ("OLDPWD=/; cd -; rm -rf x", Critical),
    ("HOME=/ ; cd; rm -rf x", Critical),
    ("cd; rm -rf x", Critical),
    ("cd ..; cd ..; rm -rf x", Critical),
    ("cd src && cat ../.env", High),
    ("cd /tmp && cd - && cd / && rm -rf x", Critical),
    (
        "cd \"$(git rev-parse --show-toplevel)\"; rm -rf x",
        Critical,
    ),
    ("f(){ cd /; }; f; rm -rf x", Critical),
    ("if true; then cd /; fi; rm -rf x", Critical),
];

/// Guards: moves Warden can follow stay inside the workspace.
const STAYS: &[(&str, Risk)] = &[
    ("cd src && ls", Low),
    ("cd src; cat main.rs", Low),
    ("pushd src; ls; popd; ls", Low),
    ("cd src; cd -; cat README.md", Low),
    ("cd /tmp; cd -; cat README.md", Low),
    ("eval 'cd src'; cat main.rs", Low),
    ("bash -c 'cd /'; ls", Low),
    ("(cd /); ls", Low),
    ("cd src && cargo test", Medium),
];

#[test]
fn the_shell_is_followed_where_it_really_is() {
    check_table(WHERE_THE_SHELL_IS, true);
}

#[test]
fn moves_warden_can_follow_keep_workspace_paths() {
    check_table(STAYS, false);
}

/// `cd -P` follows a symbolic link to the real folder, so `..` is the real parent:
/// verified with bash (`cd -P link/..` lands in the link target's parent).
#[test]
fn cd_physical_follows_links() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(root.join("elsewhere/deep")).unwrap();
    std::os::unix::fs::symlink(root.join("elsewhere/deep"), ws.join("link")).unwrap();
    let ctx = Context::new(&ws).with_home(root.join("home"));
    check_table_in(
        &[
            // Physically, link/.. is `elsewhere`, outside the workspace.
            ("cd -P link/..; rm -rf x", Critical),
            ("set -P; cd link/..; rm -rf x", Critical),
            ("set -o physical; cd link/..; rm -rf x", Critical),
            // Logically (bash's default), link/.. is the workspace itself.
            ("cd link/..; rm -rf x", High),
        ],
        false,
        &ctx,
    );
}

const FORK_BOMBS: &[(&str, Risk)] = &[
    (":(){ :|:& };:", Critical),
    ("f(){ f|f& }; f", Critical),
    ("bomb(){ bomb & bomb; }; bomb", Critical),
    ("a(){ b|b& }; b(){ a|a& }; a", Critical),
    ("a(){ b & }; b(){ a; }; a", Critical),
    ("x(){ y; }; y(){ x & }; x", Critical),
    ("a(){ b; }; b(){ c; }; c(){ a|a; }; a", Critical),
    ("f(){ $FUNCNAME|$FUNCNAME& }; f", Critical),
    ("f(){ ${FUNCNAME}|${FUNCNAME}& }; f", Critical),
    (
        "function a { b | b & }; function b { a | a & }; a",
        Critical,
    ),
    ("a(){ (b &); }; b(){ a; }; a", Critical),
    ("f(){ f; }; f", Critical),
];

/// Guards: functions that call others without a cycle are judged as their bodies
/// (a call of the line's own function runs its body, which Warden reads).
const NOT_BOMBS: &[(&str, Risk)] = &[
    ("g(){ echo hi; }; g", Low),
    ("a(){ ls; }; b(){ a | cat; }; b", Low),
    ("a(){ ls & }; b(){ a; }; b", Low),
];

#[test]
fn cycles_of_functions_that_start_processes_are_fork_bombs() {
    check_table(FORK_BOMBS, true);
    check_table(NOT_BOMBS, false);
}

/// The fork bomb is a segment of its own, so it shows what was found.
#[test]
fn a_mutual_fork_bomb_names_its_functions() {
    let a = analyse("a(){ b|b& }; b(){ a|a& }; a", &ctx());
    assert!(
        a.segments
            .iter()
            .any(|s| s.risk == Critical && s.reason.to_string().contains("call each other")),
        "{a:?}"
    );
}
