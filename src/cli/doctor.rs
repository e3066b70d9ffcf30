//! `warden doctor`: what this system supports for confinement, and what Warden does
//! with it.

use std::process::ExitCode;

use warden_permissions::{Engine, Locations};
use warden_sandbox::Support;

pub fn run() -> anyhow::Result<ExitCode> {
    let support = Support::probe();
    let cwd = std::env::current_dir()?;
    let engine = Engine::load(&Locations::from_env(), &cwd);
    let settings = &engine.settings().sandbox;
    let landlock = match support.landlock_abi {
        0 => "not available".to_owned(),
        abi => format!("ABI {abi}"),
    };
    let userns = match &support.user_namespaces {
        Ok(()) => "available".to_owned(),
        Err(why) => format!("not available ({why})"),
    };
    let verdict = if !settings.enabled {
        "confinement is turned off by `[sandbox] enabled = false`: commands run unconfined, \
         and every session says so"
            .to_owned()
    } else {
        match support.missing() {
            None => format!(
                "every terminal command and stdio MCP server runs confined (writes: the \
                 workspace and temporary folders; no secrets; network: {}; at most {} processes)",
                if settings.network { "allowed" } else { "none" },
                settings.max_processes
            ),
            Some(why) => format!(
                "terminal commands cannot be confined ({why}): each one is asked, in every mode"
            ),
        }
    };
    let text = format!(
        "Landlock: {landlock}\nseccomp: {}\nuser namespaces: {userns}\nWarden: {verdict}\n",
        if support.seccomp {
            "available"
        } else {
            "not available"
        },
    );
    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
