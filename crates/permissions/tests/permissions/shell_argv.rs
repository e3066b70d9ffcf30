//! The argv normal form that rules and grants match on.

use warden_permissions::Context;
use warden_permissions::shell::{analyse, normalize_argv};

fn argv_of(command: &str) -> Vec<Vec<String>> {
    let ctx = Context::new("/home/wardentest/project").with_home("/home/wardentest");
    analyse(command, &ctx)
        .segments
        .into_iter()
        .map(|s| s.argv)
        .collect()
}

#[track_caller]
fn check_argv(command: &str, expected: &[&str]) {
    let got = argv_of(command);
    assert_eq!(got.len(), 1, "{command}: {got:?}");
    assert_eq!(got[0], expected, "{command}");
}

#[test]
fn every_spelling_of_rm_rf_has_one_form() {
    for spelling in [
        "rm -rf x",
        "rm -fr x",
        "rm -r -f x",
        "rm -f -r x",
        "rm -Rf x",
        "rm -R -f x",
        "rm --recursive --force x",
        "rm --force -R x",
        "rm x -rf",
        "rm -rf -rf x",
        "/bin/rm -rf x",
        "\\rm -rf x",
        "r''m -rf x",
        "\"rm\" -rf x",
        "env rm -rf x",
        "timeout 5 rm -rf x",
        "nice -n 5 nohup rm -rf x",
        "command rm -rf x",
    ] {
        check_argv(spelling, &["rm", "-f", "-r", "x"]);
    }
}

#[test]
fn git_push_force_has_one_form() {
    for spelling in [
        "git push --force",
        "git push -f",
        "git -C sub push -f",
        "git --no-pager push --force",
    ] {
        check_argv(spelling, &["git", "push", "-f"]);
    }
    // Global options that take a value, by the option table: the subcommand after
    // them is still found, so a rule on `git push` sees it.
    check_argv(
        "git --config-env core.pager=P push --force",
        &["git", "--config-env", "core.pager=P", "push", "-f"],
    );
    check_argv(
        "git --git-dir=.git -c a.b=c push -f",
        &["git", "--git-dir=.git", "-c", "a.b=c", "push", "-f"],
    );
    check_argv(
        "git push -fu origin main",
        &["git", "push", "-f", "-u", "origin", "main"],
    );
    check_argv(
        "git push origin main --set-upstream --force",
        &["git", "push", "-f", "-u", "origin", "main"],
    );
}

#[test]
fn valued_options_keep_their_value() {
    check_argv(
        "cp --target-directory=out a b",
        &["cp", "-t", "out", "a", "b"],
    );
    check_argv("cp -rt out a", &["cp", "-r", "-t", "out", "a"]);
    check_argv("mkdir -pm 700 d", &["mkdir", "-m", "700", "-p", "d"]);
    check_argv(
        "git commit -am 'fix it'",
        &["git", "commit", "-a", "-m", "fix it"],
    );
    check_argv(
        "git commit --message=wip --all",
        &["git", "commit", "-a", "-m", "wip"],
    );
}

#[test]
fn unknown_options_stay_as_written() {
    // An unknown letter keeps the whole cluster, so it can never turn into a known flag.
    check_argv("rm -rfz x", &["rm", "-rfz", "x"]);
    // chmod's `-w` is a mode, an operand: it follows `--` like any operand that
    // starts with `-`.
    check_argv("chmod -w file", &["chmod", "--", "-w", "file"]);
    check_argv("chmod -R -w dir", &["chmod", "-R", "--", "-w", "dir"]);
}

#[test]
fn operands_that_look_like_flags_follow_a_double_dash() {
    check_argv("rm -- -f", &["rm", "--", "-f"]);
    check_argv("rm -r -- -x y", &["rm", "-r", "--", "-x", "y"]);
}

#[test]
fn programs_without_a_spec_keep_their_arguments() {
    check_argv(
        "cargo test -p foo -- --nocapture",
        &["cargo", "test", "-p", "foo", "--", "--nocapture"],
    );
    check_argv(
        "gcc -fPIC -o out x.c",
        &["gcc", "-fPIC", "-o", "out", "x.c"],
    );
    check_argv("npm test", &["npm", "test"]);
}

#[test]
fn program_paths_outside_system_folders_stay_as_written() {
    check_argv("./rm -rf x", &["./rm", "-rf", "x"]);
    check_argv("/usr/bin/git status", &["git", "status"]);
}

#[test]
fn xargs_is_unwrapped_to_its_program() {
    check_argv("xargs -0 rm -fr", &["rm", "-f", "-r"]);
}

#[test]
fn rules_can_normalise_their_own_patterns() {
    let pattern: Vec<String> = ["rm", "--recursive", "--force"].map(String::from).to_vec();
    assert_eq!(normalize_argv(&pattern), ["rm", "-f", "-r"]);
    let pattern: Vec<String> = ["git", "push", "--force"].map(String::from).to_vec();
    assert_eq!(normalize_argv(&pattern), ["git", "push", "-f"]);
    assert!(normalize_argv(&[]).is_empty());
}

#[test]
fn a_valued_option_whose_value_looks_like_an_option_leaves_the_argv_as_written() {
    // Found by the fixed-point property: `ln -t -r -t` once became `ln -t -t -r`,
    // which reads differently.
    let argv: Vec<String> = ["ln", "-t", "-r", "-t"].map(String::from).to_vec();
    assert_eq!(normalize_argv(&argv), argv);
    let argv: Vec<String> = ["cp", "a", "-t"].map(String::from).to_vec();
    assert_eq!(normalize_argv(&argv), argv);
}
