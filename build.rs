//! Lays out the release build's start-up code together (decision 0022).
//!
//! `link/startup.ld` names the functions that run by the `session/new` answer; the linker
//! places them first, so start-up touches about a megabyte of code instead of most of the
//! binary. Only release builds for Linux take it: other builds keep the linker's order.
//! `WARDEN_STARTUP_LAYOUT=off` leaves it out, for a linker that reads no linker scripts.

use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link/startup.ld");
    println!("cargo:rerun-if-env-changed=WARDEN_STARTUP_LAYOUT");
    let linux = env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let release = env::var("PROFILE").is_ok_and(|profile| profile == "release");
    let wanted = env::var("WARDEN_STARTUP_LAYOUT").map_or(true, |value| value != "off");
    if !(linux && release && wanted) {
        return;
    }
    let Some(manifest) = env::var_os("CARGO_MANIFEST_DIR") else {
        return;
    };
    let script = PathBuf::from(manifest).join("link").join("startup.ld");
    println!(
        "cargo:rustc-link-arg-bin=warden=-Wl,-T,{}",
        script.display()
    );
}
