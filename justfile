# Shortcuts for working on Warden. `just` lists them.

default:
    @just --list

# Serve ACP on stdin/stdout with the scripted model (what an editor runs).
run *args:
    cargo run --release -- {{args}}

# Every test (the README's test command).
test:
    cargo test --workspace

# What CI runs: fmt, clippy, tests and the interop suites, from this checkout.
ci:
    bash .ci/run

# Format and lint.
lint:
    cargo fmt --all
    cargo clippy --workspace --all-targets -- -D warnings

# The benchmarks behind docs/performance.md.
bench:
    cargo bench --bench acp_transport
    cargo bench --bench turn
    cargo bench --bench chat
    cargo bench -p warden-permissions
    cargo bench -p warden-audit
    cargo bench -p warden-session
    cargo bench -p warden-tools
    cargo bench -p warden-model

# The interop suites with the official Python and TypeScript ACP clients.
interop:
    cargo build
    bash tests/interop/run.sh

# Fuzz one target (shell or policy) for a bounded time. cargo-fuzz needs nightly
# features; RUSTC_BOOTSTRAP lets this machine's stable toolchain provide them.
fuzz target="shell" seconds="60":
    command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
    cd crates/permissions/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run {{target}} --fuzz-dir . -- -max_total_time={{seconds}} $([ -f {{target}}.dict ] && echo -dict={{target}}.dict)

# Evaluate one call against the policy in effect, e.g.
# just check terminal '{"command": "git status && rm -rf ~"}'
check tool args:
    cargo run -q -- policy check --tool {{tool}} --args '{{args}}'

# The release build's code layout (decisions 0022 and 0023): check the resident set after
# session/new, or rewrite link/startup.ld, start-up and per-call blocks (needs valgrind
# and perf).
startup-check:
    cargo build --release
    python3 link/startup.py check target/release/warden

startup-layout:
    WARDEN_STARTUP_LAYOUT=off cargo build --release
    cp target/release/warden target/release/warden-unlaid
    python3 link/startup.py write target/release/warden-unlaid
    cargo build --release
    python3 link/startup.py add target/release/warden
    cargo build --release
    python3 link/startup.py check target/release/warden

# The instructions Warden's main thread runs per tool call, counted exactly under
# callgrind: from the model's reply to the request handed to the SDK (decision 0023), and
# until Warden waits again after writing it, as the turn benchmark's window (0024); then
# the distinct lines of code that window runs, which the processor fetches for each call.
call-instructions:
    cargo build --release
    python3 link/startup.py calls target/release/warden
    python3 link/startup.py window target/release/warden
    python3 link/startup.py footprint target/release/warden
