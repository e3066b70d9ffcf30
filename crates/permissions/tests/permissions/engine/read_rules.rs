//! A path rule for a reading tool covers every read of that path, by any tool: a
//! `fs_read` deny rule also stops `fs_search` over the folder, `fs_list`, `fs_edit`,
//! `fs_move`'s source and the shell's readers. Guards: writes, other paths, and rules
//! for writing tools are untouched.

use std::fs;
use std::os::unix::fs::symlink;

use serde_json::json;
use warden_permissions::{Decision, Layer, Mode, Risk};

use super::support::{Tally, World};

const DENY_READ: &str =
    "[[rule]]\ntool = \"fs_read\"\npath = \".secrets/**\"\ndecision = \"deny\"\n";
const DENY_FS_STAR_HOME: &str =
    "[[rule]]\ntool = \"fs_*\"\npath = \"~/.aws/**\"\ndecision = \"deny\"\n";
const ASK_PEM: &str = "[[rule]]\ntool = \"fs_read\"\npath = \"**/*.pem\"\ndecision = \"ask\"\n";
const DENY_WRITE: &str =
    "[[rule]]\ntool = \"fs_write\"\npath = \".secrets/**\"\ndecision = \"deny\"\n";
const DENY_READ_WITH_ARGS: &str = "[[rule]]\ntool = \"fs_read\"\npath = \".secrets/**\"\nargs = { limit = \"1\" }\ndecision = \"deny\"\n";

fn world() -> World {
    let world = World::new();
    fs::create_dir_all(world.ws.join(".secrets/sub")).expect("mkdir");
    fs::create_dir_all(world.ws.join("certs")).expect("mkdir");
    fs::create_dir_all(world.home.join(".aws")).expect("mkdir");
    fs::write(world.ws.join(".secrets/token"), "t\n").expect("write");
    fs::write(world.ws.join(".secrets/sub/deep"), "d\n").expect("write");
    fs::write(world.ws.join("certs/server.pem"), "k\n").expect("write");
    fs::write(world.home.join(".aws/credentials"), "c\n").expect("write");
    symlink(world.ws.join(".secrets"), world.ws.join("alias")).expect("symlink");
    world
}

/// A call as `(tool, JSON args)`; a bare string is a `terminal` command.
fn call(spec: &str) -> (String, String) {
    match spec.split_once(' ') {
        Some((tool, args)) if tool.starts_with("fs_") && args.starts_with('{') => {
            (tool.to_owned(), args.to_owned())
        }
        _ => (
            "terminal".to_owned(),
            json!({ "command": spec }).to_string(),
        ),
    }
}

struct Table<'w> {
    world: &'w World,
    tally: Tally,
}

impl Table<'_> {
    fn check(&mut self, policy: &str, mode: Mode, spec: &str, want: Decision, risk: Option<Risk>) {
        self.tally.cases += 1;
        let engine = self.world.engine(&[(Layer::User, policy)], false);
        let (tool, args) = call(spec);
        let e = self.world.eval(&engine, &tool, &args, mode);
        if e.decision != want || risk.is_some_and(|r| e.risk != r) {
            self.tally.failures.push(format!(
                "{spec} [{}; {}]: expected {want} {risk:?}, got {} {} ({}; {})",
                mode.id(),
                policy.lines().nth(2).unwrap_or(""),
                e.risk,
                e.decision,
                e.reason,
                e.explanation
            ));
        }
    }

    fn finish(self, at_least: usize) {
        self.tally.finish(at_least);
    }
}

/// Reads of `.secrets/token` (or the folder) by every route.
const READS_OF_SECRETS: &[&str] = &[
    r#"fs_read {"path": ".secrets/token"}"#,
    r#"fs_read {"path": "$WS/.secrets/sub/deep"}"#,
    r#"fs_read {"path": "alias/token"}"#,
    r#"fs_search {"pattern": "t", "path": ".secrets"}"#,
    r#"fs_search {"pattern": "t", "path": ".secrets/sub"}"#,
    r#"fs_search {"pattern": "t", "path": "."}"#,
    r#"fs_search {"pattern": "t"}"#,
    r#"fs_search {"pattern": "t", "path": "$WS"}"#,
    r#"fs_search {"pattern": "t", "path": "alias"}"#,
    r#"fs_list {"path": ".secrets"}"#,
    r#"fs_edit {"path": ".secrets/token", "old_text": "t", "new_text": "u"}"#,
    r#"fs_move {"from": ".secrets/token", "to": "src/token"}"#,
    "cat .secrets/token",
    "cat ./.secrets/../.secrets/token",
    "cat $WS/.secrets/token",
    "cat alias/token",
    "head -n 1 .secrets/token",
    "tail -c 5 .secrets/token",
    "grep t .secrets/token",
    "grep -r t .secrets",
    "grep -rn t .secrets/sub",
    "rg t .secrets",
    "less .secrets/token",
    "more .secrets/token",
    "wc -c .secrets/token",
    "sort .secrets/token",
    "base64 .secrets/token",
    "xxd .secrets/token",
    "od -c .secrets/token",
    "diff .secrets/token README.md",
    "cp .secrets/token /tmp/x",
    "cat < .secrets/token",
    "wc -l < .secrets/token",
    "ls && cat .secrets/token",
    "bash -c 'cat .secrets/token'",
    "sh -c \"head .secrets/token\"",
    "echo hi | cat - .secrets/token",
    "grep -r t .",
    "grep -r t",
    "rg t",
    "git grep t",
    "tar czf /tmp/all.tgz .",
    "cp -r . /tmp/copy",
];

#[test]
fn a_read_deny_rule_stops_every_read_of_its_path() {
    let world = world();
    let mut t = Table {
        world: &world,
        tally: Tally::default(),
    };
    for spec in READS_OF_SECRETS {
        t.check(DENY_READ, Mode::Ask, spec, Decision::Deny, None);
        t.check(DENY_READ, Mode::AutoApprove, spec, Decision::Deny, None);
    }
    // `fs_*` covers `fs_read`; a home-anchored folder.
    for spec in [
        r#"fs_read {"path": "~/.aws/credentials"}"#,
        r#"fs_search {"pattern": "k", "path": "$HOME"}"#,
        r#"fs_search {"pattern": "k", "path": "~/.aws"}"#,
        "cat ~/.aws/credentials",
        "grep -r key $HOME/.aws",
        "cat $HOME/.aws/credentials",
    ] {
        t.check(
            DENY_FS_STAR_HOME,
            Mode::AutoApprove,
            spec,
            Decision::Deny,
            None,
        );
    }
    t.finish(80);
}

#[test]
fn a_read_ask_rule_asks_for_every_read_and_denies_where_it_cannot_ask() {
    let world = world();
    let mut t = Table {
        world: &world,
        tally: Tally::default(),
    };
    for spec in [
        r#"fs_read {"path": "certs/server.pem"}"#,
        "cat certs/server.pem",
        "grep BEGIN certs/server.pem",
        "head certs/server.pem",
        "tail certs/server.pem",
        "base64 certs/server.pem",
    ] {
        t.check(ASK_PEM, Mode::AutoApprove, spec, Decision::Ask, None);
        t.check(ASK_PEM, Mode::ReadOnly, spec, Decision::Deny, None);
    }
    t.finish(10);
}

#[test]
fn read_rules_leave_other_paths_writes_and_write_rules_alone() {
    let world = world();
    let mut t = Table {
        world: &world,
        tally: Tally::default(),
    };
    // Other paths read as before.
    for spec in [
        r#"fs_read {"path": "README.md"}"#,
        r#"fs_search {"pattern": "t", "path": "src"}"#,
        r#"fs_list {"path": "src"}"#,
        "cat README.md",
        "grep -r main src",
        "head -n 3 src/main.rs",
        "ls",
        "cat .secretsfile",
        "cat secrets/token",
    ] {
        t.check(DENY_READ, Mode::Ask, spec, Decision::Allow, Some(Risk::Low));
    }
    // A read rule is not a write rule: writing into the folder is judged as usual.
    for spec in [
        r#"fs_write {"path": ".secrets/new", "content": "x"}"#,
        "echo x > .secrets/new",
        "echo x >> .secrets/token",
        "touch .secrets/stamp",
    ] {
        t.check(
            DENY_READ,
            Mode::Ask,
            spec,
            Decision::Ask,
            Some(Risk::Medium),
        );
    }
    // A rule for a writing tool does not reach reads.
    for spec in [
        "cat .secrets/token",
        r#"fs_read {"path": ".secrets/token"}"#,
    ] {
        t.check(
            DENY_WRITE,
            Mode::Ask,
            spec,
            Decision::Allow,
            Some(Risk::Low),
        );
    }
    // A rule with `args` names its own tool's arguments: it covers no other tool.
    t.check(
        DENY_READ_WITH_ARGS,
        Mode::Ask,
        "cat .secrets/token",
        Decision::Allow,
        Some(Risk::Low),
    );
    // A search of a folder beside the denied one.
    t.check(
        DENY_READ,
        Mode::Ask,
        r#"fs_search {"pattern": "t", "path": "docs"}"#,
        Decision::Allow,
        Some(Risk::Low),
    );
    t.finish(17);
}
