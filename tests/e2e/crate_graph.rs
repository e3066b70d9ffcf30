//! The crate graph is a tree: the model and MCP clients, the tools and the audit log do
//! not compile the policy engine or its shell parser. A utility they need (the words of a
//! verdict, redaction, the HTTP client) lives in a leaf crate, never in the engine.

use std::process::Command;

/// The packages `package` links in a normal build, by name, from `cargo tree`.
fn linked_packages(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["tree", "--offline", "--locked", "--edges", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}", "--package", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree -p {package} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[test]
fn clients_and_tools_do_not_link_the_policy_engine_or_the_shell_parser() {
    for package in ["warden-model", "warden-mcp", "warden-tools", "warden-audit"] {
        let linked = linked_packages(package);
        assert!(
            linked.iter().any(|name| name == package),
            "cargo tree lists {package} itself: {linked:?}"
        );
        for engine in ["warden-permissions", "tree-sitter-bash", "tree-sitter"] {
            assert!(
                !linked.iter().any(|name| name == engine),
                "{package} links {engine}"
            );
        }
    }
}

/// `warden chat` is a client: it speaks the protocol through the transport and is handed
/// a connected agent by the binary, so it compiles neither Warden's agent nor its engine.
#[test]
fn the_chat_links_the_transport_but_not_the_session_or_the_policy_engine() {
    let linked = linked_packages("warden-chat");
    assert!(linked.iter().any(|name| name == "warden-acp-transport"));
    for agent in ["warden-session", "warden-permissions", "tree-sitter-bash"] {
        assert!(
            !linked.iter().any(|name| name == agent),
            "warden-chat links {agent}"
        );
    }
}

#[test]
fn only_the_session_and_the_binary_link_the_telemetry_exporter() {
    // The audit log hands its records to a mirror trait of its own; the OpenTelemetry
    // crates stay out of the clients, the tools, the log and the hook crate.
    for package in [
        "warden-model",
        "warden-mcp",
        "warden-tools",
        "warden-audit",
        "warden-hook",
    ] {
        let linked = linked_packages(package);
        for exporter in ["warden-telemetry", "opentelemetry", "opentelemetry_sdk"] {
            assert!(
                !linked.iter().any(|name| name == exporter),
                "{package} links {exporter}"
            );
        }
    }
    let linked = linked_packages("warden-telemetry");
    assert!(linked.iter().any(|name| name == "opentelemetry-otlp"));
    assert!(
        !linked.iter().any(|name| name == "tonic"),
        "the exporter speaks OTLP over HTTP, without gRPC"
    );
}

#[test]
fn the_hook_crate_does_not_link_the_session_or_the_protocol() {
    let linked = linked_packages("warden-hook");
    assert!(linked.iter().any(|name| name == "warden-permissions"));
    for above in [
        "warden-session",
        "warden-acp-transport",
        "agent-client-protocol",
    ] {
        assert!(
            !linked.iter().any(|name| name == above),
            "warden-hook links {above}"
        );
    }
}

#[test]
fn the_model_client_does_not_link_the_tools() {
    let linked = linked_packages("warden-model");
    assert!(linked.iter().any(|name| name == "warden-http"));
    assert!(!linked.iter().any(|name| name == "warden-tools"));
}
