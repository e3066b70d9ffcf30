//! Link settings of the `warden` binary that keep its start-up small (docs/performance.md,
//! "Start-up memory"; decision 0020).
//!
//! Every editor thread starts its own Warden, so the pages a process touches before its
//! first `session/new` matter. The kernel maps a binary's code in 64 KiB windows around
//! each page it runs, so what counts is how many windows the start-up code is spread
//! over, not how much of it there is: laid out in the linker's default order, the ~1.4 MB
//! of functions run at start-up touch over a hundred windows of a 16 MB text.

// Cargo reads a build script's instructions from its stdout.
#![allow(clippy::print_stdout)]

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=link/startup-order.txt");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    // Relative relocations packed (DT_RELR): the dynamic loader reads a few kilobytes
    // instead of a 700 KB table at every start.
    println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    // The functions start-up runs, laid out together at the start of the text
    // (`scripts/startup-order.py` writes the list). Names the build does not define (the
    // list is older than a dependency) are skipped silently: the layout is then only less
    // compact, which the `acp_transport` benchmark shows.
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/startup-order.txt");
    println!(
        "cargo::rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}
