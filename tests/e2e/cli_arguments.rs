//! `warden`'s arguments through the binary: with none it serves ACP without asking clap
//! (editors start it that way), and with any it goes through clap as before, so
//! `--help`, `--version`, a global option and a wrong argument behave as they did.

use std::process::{Command, Output, Stdio};

use super::support::Client;

fn warden(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run warden")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn version_prints_the_name_and_version() {
    let out = warden(&["--version"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        stdout(&out),
        format!("warden {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn help_lists_the_options_and_every_subcommand() {
    let out = warden(&["--help"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let help = stdout(&out);
    assert!(help.contains("Usage: warden [OPTIONS] [COMMAND]"), "{help}");
    assert!(help.contains("--trace <FILE>"), "{help}");
    for command in [
        "acp", "chat", "policy", "grants", "audit", "trust", "sessions", "pending", "doctor",
        "hook",
    ] {
        assert!(
            help.lines()
                .any(|line| line.trim_start().starts_with(&format!("{command} "))),
            "{command} in {help}"
        );
    }
}

#[test]
fn an_unknown_subcommand_is_refused_by_clap_with_its_usage() {
    let out = warden(&["serve"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unrecognized subcommand 'serve'"), "{err}");
}

/// No arguments at all: the ACP agent answers the handshake (the path that skips clap).
#[test]
fn no_arguments_serve_acp() {
    let mut client = Client::spawn();
    let result = client.initialize();
    assert_eq!(result["protocolVersion"], 1, "{result}");
    assert!(client.finish().success());
}
