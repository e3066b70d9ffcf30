//! Files that make programs run code later (execution config) and credential files:
//! every tool that can change such a file makes the call Critical, and reading a
//! credentials file is High whatever reads it. Guards keep look-alike names in the
//! workspace at their ordinary risk.

use std::fs;
use std::os::unix::fs::symlink;

use serde_json::json;
use warden_permissions::{Decision, Layer, Mode, Risk};

use super::support::{Tally, World};

/// Files whose change runs code later. `~` is the test home, anything else is
/// relative to the workspace.
const EXEC_CONFIG: &[&str] = &[
    "~/.gitconfig",
    "~/.config/git/config",
    "~/.config/git/attributes",
    ".git/config",
    ".git/hooks/pre-commit",
    "~/.cargo/config.toml",
    "~/.cargo/config",
    ".cargo/config.toml",
    ".cargo/config",
    "crates/sub/.cargo/config.toml",
    ".vscode/settings.json",
    ".vscode/tasks.json",
    ".vscode/launch.json",
    ".zed/settings.json",
    ".zed/tasks.json",
    "~/.config/zed/settings.json",
    "~/.config/Code/User/settings.json",
    "~/.bashrc",
    "~/.profile",
    "~/.zshenv",
    "~/bin/ls",
    "~/.local/bin/git",
    "~/.local/bin",
    "~/.config/autostart/updater.desktop",
    "~/.config/systemd/user/evil.service",
    "~/.config/environment.d/path.conf",
    "~/.config/nvim/init.lua",
    "~/.vimrc",
    ".exrc",
    ".envrc",
    ".yarnrc.yml",
    "~/.local/lib/python3.11/site-packages/evil.pth",
    ".venv/lib/python3.11/site-packages/sitecustomize.py",
    "/etc/cron.d/job",
    "/etc/systemd/system/x.service",
    "/etc/ld.so.preload",
];

/// Credential files: High to read, Critical to change.
const CREDENTIALS: &[&str] = &[
    "~/.config/git/credentials",
    "~/.git-credentials",
    "~/.vault-token",
    "~/.docker/config.json",
    "~/.kube/config",
    "~/.config/gcloud/application_default_credentials.json",
    "~/.azure/msal_token_cache.json",
    "~/.npmrc",
    "~/.pypirc",
    ".npmrc",
    "terraform.tfstate",
    "infra/prod/terraform.tfstate",
    "infra/terraform.tfstate.backup",
];

fn expand(world: &World, path: &str) -> String {
    match path.strip_prefix("~/") {
        Some(rest) => world.home.join(rest).display().to_string(),
        None => path.to_string(),
    }
}

/// Every route by which a tool call can change `p`: the file tools and the shell's
/// writers.
fn writes(p: &str) -> Vec<(&'static str, String)> {
    let t = |command: String| ("terminal", json!({ "command": command }).to_string());
    vec![
        ("fs_write", json!({ "path": p, "content": "x" }).to_string()),
        (
            "fs_edit",
            json!({ "path": p, "old_text": "a", "new_text": "b" }).to_string(),
        ),
        (
            "fs_move",
            json!({ "from": "README.md", "to": p }).to_string(),
        ),
        t(format!("echo x > {p}")),
        t(format!("echo x >> {p}")),
        t(format!("printf x 1>{p}")),
        t(format!("echo x | tee {p}")),
        t(format!("echo x | tee -a {p}")),
        t(format!("cp README.md {p}")),
        t(format!("mv README.md {p}")),
        t(format!("sed -i s/a/b/ {p}")),
        t(format!("rm -f {p}")),
        t(format!("bash -c 'echo x > {p}'")),
    ]
}

/// Reads of `p` by the file tools and the shell's readers.
fn reads(p: &str) -> Vec<(&'static str, String)> {
    let t = |command: String| ("terminal", json!({ "command": command }).to_string());
    vec![
        ("fs_read", json!({ "path": p }).to_string()),
        t(format!("cat {p}")),
        t(format!("head -n 5 {p}")),
        t(format!("grep token {p}")),
        t(format!("less {p}")),
    ]
}

struct Check<'w> {
    world: &'w World,
    tally: Tally,
}

impl Check<'_> {
    fn eval(
        &mut self,
        engine: &warden_permissions::Engine,
        tool: &str,
        args: &str,
        mode: Mode,
        ok: impl Fn(Risk, Decision) -> bool,
        want: &str,
    ) {
        self.tally.cases += 1;
        let e = self.world.eval(engine, tool, args, mode);
        if !ok(e.risk, e.decision) {
            self.tally.failures.push(format!(
                "{tool} {args} [{}]: expected {want}, got {} {} ({})",
                mode.id(),
                e.risk,
                e.decision,
                e.reason
            ));
        }
    }

    fn finish(self, at_least: usize) {
        self.tally.finish(at_least);
    }
}

#[test]
fn changing_an_execution_config_file_is_critical_by_every_route() {
    let world = World::new();
    let plain = world.engine(&[], false);
    let deny_critical = world.engine(
        &[(
            Layer::User,
            "[[rule]]\nrisk = \"critical\"\ndecision = \"deny\"\n",
        )],
        false,
    );
    let mut check = Check {
        world: &world,
        tally: Tally::default(),
    };
    for path in EXEC_CONFIG.iter().chain(CREDENTIALS) {
        let p = expand(&world, path);
        for (tool, args) in writes(&p) {
            // Must not allow: Critical, asked even in auto-approve.
            check.eval(
                &plain,
                tool,
                &args,
                Mode::Ask,
                |r, _| r == Risk::Critical,
                "critical",
            );
            check.eval(
                &plain,
                tool,
                &args,
                Mode::AutoApprove,
                |r, d| r == Risk::Critical && d != Decision::Allow,
                "critical, not allowed",
            );
            // Must deny under a rule that denies Critical calls.
            check.eval(
                &deny_critical,
                tool,
                &args,
                Mode::Ask,
                |_, d| d == Decision::Deny,
                "deny",
            );
        }
    }
    check.finish(1000);
}

#[test]
fn reading_a_credentials_file_is_high_by_every_reader() {
    let world = World::new();
    let plain = world.engine(&[], false);
    let mut check = Check {
        world: &world,
        tally: Tally::default(),
    };
    for path in CREDENTIALS {
        let p = expand(&world, path);
        for (tool, args) in reads(&p) {
            check.eval(
                &plain,
                tool,
                &args,
                Mode::Ask,
                |r, _| r >= Risk::High,
                "at least high",
            );
            check.eval(
                &plain,
                tool,
                &args,
                Mode::AutoDeny,
                |_, d| d == Decision::Deny,
                "deny in auto-deny",
            );
        }
    }
    check.finish(100);
}

#[test]
fn execution_config_is_read_like_any_file_and_look_alikes_stay_ordinary() {
    let world = World::new();
    let plain = world.engine(&[], false);
    let mut check = Check {
        world: &world,
        tally: Tally::default(),
    };
    // Reading the project's own settings prompts no one.
    for p in [
        ".vscode/settings.json",
        ".vscode/tasks.json",
        ".zed/settings.json",
        ".cargo/config.toml",
        ".yarnrc.yml",
    ] {
        for (tool, args) in reads(p) {
            check.eval(
                &plain,
                tool,
                &args,
                Mode::Ask,
                |r, d| r == Risk::Low && d == Decision::Allow,
                "low allow",
            );
        }
    }
    // Outside the workspace a read is Medium, as for any file there, not High.
    for p in [
        "~/.gitconfig",
        "~/.config/git/config",
        "~/.cargo/config.toml",
    ] {
        let p = expand(&world, p);
        check.eval(
            &plain,
            "fs_read",
            &json!({ "path": p }).to_string(),
            Mode::Ask,
            |r, _| r == Risk::Medium,
            "medium",
        );
    }
    // Look-alike names in the workspace are ordinary files to write.
    for p in [
        "src/bin/main.rs",
        "bin/tool.sh",
        "local/bin/x",
        ".vscode/extensions.json",
        "docs/settings.json",
        "cargo/config.toml",
        "config.toml",
        "src/gitconfig.rs",
        "tests/fixtures/tasks.json",
        "deploy/systemd/app.service",
        "tfstate.md",
        "src/pth.rs",
    ] {
        for (tool, args) in [
            ("fs_write", json!({ "path": p, "content": "x" }).to_string()),
            (
                "terminal",
                json!({ "command": format!("echo x > {p}") }).to_string(),
            ),
        ] {
            check.eval(
                &plain,
                tool,
                &args,
                Mode::Ask,
                |r, _| r == Risk::Medium,
                "medium",
            );
            if tool != "fs_write" {
                // Accept-edits allows the file tools' edits, never shell commands.
                continue;
            }
            check.eval(
                &plain,
                tool,
                &args,
                Mode::AcceptEdits,
                |_, d| d == Decision::Allow,
                "allow in accept-edits",
            );
        }
    }
    check.finish(60);
}

#[test]
fn a_setting_that_is_a_symlink_to_a_key_is_read_as_the_key() {
    let world = World::new();
    fs::create_dir_all(world.ws.join(".vscode")).expect("mkdir");
    symlink(
        world.home.join(".ssh/id_rsa"),
        world.ws.join(".vscode/settings.json"),
    )
    .expect("symlink");
    let engine = world.engine(&[], false);
    for (tool, args) in reads(".vscode/settings.json") {
        let e = world.eval(&engine, tool, &args, Mode::Ask);
        assert_eq!(e.risk, Risk::High, "{tool} {args}: {}", e.reason);
    }
    // And a glob that can match both a setting and a key is a key.
    fs::write(world.home.join(".vimrc"), "").expect("write");
    let glob = format!("cat {}/.[sv]*/*", world.home.display());
    let e = world.eval(
        &engine,
        "terminal",
        &json!({ "command": glob }).to_string(),
        Mode::Ask,
    );
    assert!(e.risk >= Risk::High, "{glob}: {} {}", e.risk, e.reason);
}

/// The home's program folders (`~/bin`, `~/.local/bin`, `~/.nvm`) match by whole names:
/// the folder and what is below it, never a longer name that starts like one.
#[test]
fn a_home_program_folder_is_matched_by_whole_names() {
    let world = World::new();
    let plain = world.engine(&[], false);
    let mut check = Check {
        world: &world,
        tally: Tally::default(),
    };
    for (p, critical) in [
        ("~/bin", true),
        ("~/.nvm/nvm.sh", true),
        ("~/.local/bin/tool", true),
        ("~/binder/notes.txt", false),
        ("~/.nvmx/notes.txt", false),
        ("~/.local/binaries/notes.txt", false),
    ] {
        let args = json!({ "path": expand(&world, p), "content": "x" }).to_string();
        if critical {
            check.eval(
                &plain,
                "fs_write",
                &args,
                Mode::Ask,
                |r, _| r == Risk::Critical,
                "critical",
            );
        } else {
            check.eval(
                &plain,
                "fs_write",
                &args,
                Mode::Ask,
                |r, _| r < Risk::Critical,
                "below critical",
            );
        }
    }
    check.finish(6);
}
