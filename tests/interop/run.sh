#!/usr/bin/env bash
# Runs Warden's interop suites: the permission scenarios driven by the official ACP SDK
# clients for Python (agent-client-protocol, pytest) and TypeScript (@agentclientprotocol/sdk,
# node --test), and what a person is shown, driven by acpx, a headless ACP client from npm
# (it needs Node 22, which tests/interop/acpx installs as the `node` package).
#
# Builds nothing: the binary under test is $WARDEN_BIN (default target/debug/warden, relative
# to the repository root; honours $CARGO_TARGET_DIR when that is set and WARDEN_BIN is not).
# Creates or refreshes the venv in .venv/ (git-ignored) and installs the npm packages of
# tests/interop/ts and tests/interop/acpx. Exits non-zero when any suite fails; all always run.
#
# Usage: bash tests/interop/run.sh    (from anywhere inside the repository)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"

if [ -z "${WARDEN_BIN:-}" ]; then
    WARDEN_BIN="${CARGO_TARGET_DIR:-target}/debug/warden"
fi
case "$WARDEN_BIN" in
    /*) ;;
    *) WARDEN_BIN="$repo/$WARDEN_BIN" ;;
esac
if [ ! -x "$WARDEN_BIN" ]; then
    echo "interop: warden binary not found at $WARDEN_BIN; run \`cargo build\` first or set WARDEN_BIN" >&2
    exit 1
fi
export WARDEN_BIN
# Nothing of the caller's Warden setup may reach the agents under test (the harnesses also
# pass each process a trimmed environment of its own).
unset WARDEN_HOME WARDEN_MANAGED_POLICY WARDEN_MODEL RUST_LOG

python="${PYTHON:-python3}"
venv="$repo/.venv"
requirements="$repo/tests/interop/python/requirements.txt"

step() {
    printf '\n==> interop: %s\n' "$*" >&2
}

started=$SECONDS
step "binary: $WARDEN_BIN"

step "python venv ($venv) from ${requirements#"$repo"/}"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
# The stamp records which requirements the venv was last synced with, so a re-run skips pip.
stamp="$venv/.interop-requirements"
if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
fi

# A real MCP server from PyPI for the Python suite, in a venv of its own so that the suite's
# pinned requirements stay the SDK's alone.
mcp_venv="$repo/.venv-mcp"
step "mcp-server-time ($mcp_venv)"
if [ ! -x "$mcp_venv/bin/mcp-server-time" ]; then
    "$python" -m venv "$mcp_venv"
    "$mcp_venv/bin/python" -m pip install --quiet --disable-pip-version-check mcp-server-time==2026.10.19
fi
export MCP_SERVER_TIME="$mcp_venv/bin/mcp-server-time"

step "npm ci (tests/interop/ts)"
(cd tests/interop/ts && npm ci --no-audit --no-fund --loglevel=error)

step "npm install (tests/interop/acpx: acpx and Node 22)"
# `npm install`, not `npm ci`: the lock pins every version, but npm ci refuses a lock that
# lacks the other platforms' optional builds of one of acpx's dependencies, which a
# registry mirror may not carry.
(cd tests/interop/acpx && npm install --no-audit --no-fund --loglevel=error)

python_status=0
ts_status=0
acpx_status=0

step "python SDK suite (pytest)"
(cd tests/interop/python && "$venv/bin/python" -m pytest -q) || python_status=$?

step "typescript SDK suite (node --test)"
(cd tests/interop/ts && node --test --test-reporter=spec permissions.test.mjs mcp.test.mjs sessions.test.mjs) || ts_status=$?

step "acpx suite (node 22 --test)"
(cd tests/interop/acpx && node_modules/.bin/node --test --test-reporter=spec acpx.test.mjs) || acpx_status=$?

verdict() {
    if [ "$1" -eq 0 ]; then echo "passed"; else echo "FAILED (exit $1)"; fi
}
step "summary after $((SECONDS - started)) s"
printf 'interop python (agent-client-protocol): %s\n' "$(verdict "$python_status")" >&2
printf 'interop typescript (@agentclientprotocol/sdk): %s\n' "$(verdict "$ts_status")" >&2
printf 'interop acpx: %s\n' "$(verdict "$acpx_status")" >&2

if [ "$python_status" -ne 0 ] || [ "$ts_status" -ne 0 ] || [ "$acpx_status" -ne 0 ]; then
    exit 1
fi
