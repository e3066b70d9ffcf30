//! `warden doctor`: what this system supports for confinement, and what Warden does
//! with it.

use std::process::ExitCode;

use warden_permissions::{Engine, Locations};
use warden_sandbox::{Helper, SMALL_HELPER, SUBCOMMAND, Support};

/// Which program confines the commands Warden starts itself (decision 0802).
fn helper_line() -> String {
    let Ok(warden) = std::env::current_exe() else {
        return "unknown (Warden cannot tell where its own program is)".to_owned();
    };
    let helper = Helper::beside(warden.clone());
    let own = helper.for_own_processes();
    if own == warden {
        format!(
            "{} {SUBCOMMAND} (no {SMALL_HELPER} next to it: each command starts about a \
             millisecond slower)",
            own.display()
        )
    } else {
        own.display().to_string()
    }
}

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
        "Landlock: {landlock}\nseccomp: {}\nuser namespaces: {userns}\nhelper: {}\nWarden: {verdict}\n",
        if support.seccomp {
            "available"
        } else {
            "not available"
        },
        helper_line(),
    );
    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
