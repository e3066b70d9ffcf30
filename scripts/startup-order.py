#!/usr/bin/env python3
"""Writes `link/startup-order.txt`: the functions a release `warden` runs from its start
to the answer of its first `session/new`, by their symbol names, which `build.rs` hands
to the linker so that they are laid out next to each other (docs/performance.md,
"Start-up memory").

Usage: scripts/startup-order.py [path/to/warden ...]

Each binary given (default: target/release/warden) is run once under valgrind's
callgrind with a temporary WARDEN_HOME; the names of the functions it ran that are
defined in the binary are merged into the list (the release build and the benchmark's
build differ in a few crates' features, hence in some symbols' hashes, so both may be
given). The list goes stale when dependencies or the toolchain change, which costs
start-up memory but never correctness: the benchmark `acp_transport` shows it.
"""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "link", "startup-order.txt")


def executed(binary):
    """The mangled names of the functions `binary` runs up to `session/new`."""
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        requests = (
            '{"jsonrpc":"2.0","id":0,"method":"initialize","params":'
            '{"protocolVersion":1,"clientCapabilities":{}}}\n'
            '{"jsonrpc":"2.0","id":1,"method":"session/new","params":'
            f'{{"cwd":"{cwd}","mcpServers":[]}}}}\n'
        )
        out = os.path.join(home, "callgrind.out")
        env = {k: v for k, v in os.environ.items() if k != "RUST_LOG"}
        env["WARDEN_HOME"] = home
        env["WARDEN_MANAGED_POLICY"] = os.path.join(home, "no-managed-policy.toml")
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--demangle=no",
             f"--callgrind-out-file={out}", binary],
            input=requests.encode(), env=env, check=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        names = set()
        with open(out) as f:
            for line in f:
                m = re.match(r"^c?fn=\(\d+\) (.+)$", line.strip())
                if m:
                    names.add(m.group(1))
    defined = subprocess.run(
        ["nm", "--defined-only", binary], check=True, capture_output=True, text=True
    ).stdout.split("\n")
    text = {p[2] for p in (line.split() for line in defined)
            if len(p) == 3 and p[1] in "tTwW"}
    return names & text


def main():
    binaries = sys.argv[1:] or [os.path.join(ROOT, "target", "release", "warden")]
    names = set()
    for binary in binaries:
        found = executed(binary)
        print(f"{binary}: {len(found)} functions", file=sys.stderr)
        names |= found
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("\n".join(sorted(names)) + "\n")
    print(f"{OUT}: {len(names)} functions", file=sys.stderr)


if __name__ == "__main__":
    main()
