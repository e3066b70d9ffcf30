#!/usr/bin/env python3
"""Write link/startup.ld: the functions Warden runs at start-up, laid out together.

An editor starts one Warden per thread, and the kernel maps a program's code in large
blocks around each page it first touches. Spread over the whole binary, the few thousand
functions that run before the `session/new` answer touch most of it; placed together they
touch a megabyte (decision 0022).

Usage: python3 link/generate.py [--add] [path/to/release/warden]

With `--add`, the patterns already in startup.ld are kept and the run's are added: run it
once on a build without the layout and once more, with `--add`, on the build with it,
which finds what ran natively outside the laid-out block.

The binary must be a release build of this tree. Two runs find the functions:
- under callgrind (valgrind), every function that runs by the `session/new` answer;
- natively, under `perf record -e page-faults` when perf is available, the functions whose
  first run faulted in a page outside the laid-out block (what runs only outside valgrind,
  such as the Landlock probe).
Names are written in the v0 scheme (`.cargo/config.toml`) with each crate's hash replaced by a
wildcard, so a list stays valid across compilers, profiles and dependency updates; a
function that no longer exists matches nothing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "startup.ld")
SECTION = ".text.warden_startup"


def requests(proc, cwd):
    """Send `initialize` and `session/new`, as an editor does, and wait for each answer."""
    def call(i, method, params):
        line = {"jsonrpc": "2.0", "id": i, "method": method, "params": params}
        proc.stdin.write((json.dumps(line) + "\n").encode())
        proc.stdin.flush()
        while True:
            answer = json.loads(proc.stdout.readline())
            if answer.get("id") == i:
                if "result" not in answer:
                    sys.exit(f"{method} failed: {answer}")
                return
    call(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    call(2, "session/new", {"cwd": cwd, "mcpServers": []})
    proc.stdin.close()
    proc.wait()


def run(argv):
    home, cwd = tempfile.mkdtemp(), tempfile.mkdtemp()
    env = dict(os.environ, HOME=home, WARDEN_HOME=home)
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    requests(proc, cwd)


def under_callgrind(binary):
    out = tempfile.mktemp(suffix=".callgrind")
    run(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
         "--compress-pos=no", f"--callgrind-out-file={out}", binary])
    names, obj = [], None
    for line in open(out):
        if line.startswith("ob="):
            obj = os.path.realpath(line[3:].strip())
        elif line.startswith("fn=") and obj == binary:
            names.append(line[3:].strip())
    return names


def faulted_natively(binary):
    """Functions whose code faulted in a page outside the laid-out block, natively."""
    if not shutil.which("perf"):
        print("perf not found: only the callgrind run is used", file=sys.stderr)
        return []
    data = tempfile.mktemp(suffix=".perf")
    run(["perf", "record", "-q", "-e", "page-faults", "-c", "1", "-d", "-o", data, binary])
    script = subprocess.run(["perf", "script", "-i", data, "-F", "addr,ip,sym", "--no-demangle"],
                            capture_output=True, text=True, check=True).stdout
    names = []
    for line in script.splitlines():
        parts = line.split()
        # Each line is the fault's address and its symbol, then the instruction's. An
        # instruction fetch faults at its own address.
        if len(parts) >= 4 and parts[0] == parts[2] and parts[3] != "[unknown]":
            names.append(parts[3])
    return names


def with_aliases(binary, names):
    """Each name with every other name of the same code.

    Identical functions are merged into one body with several names, and the linker sees
    the body's section under one of them only: which one, the run cannot tell.
    """
    table = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True,
                           check=True).stdout
    at, names_at = {}, {}
    for line in table.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            at[parts[2]] = parts[0]
            names_at.setdefault(parts[0], []).append(parts[2])
    expanded = []
    for name in names:
        expanded.extend(names_at.get(at.get(name), [name]))
    return expanded


def previous_patterns():
    """The patterns already in startup.ld, so a second run only adds to them."""
    if not os.path.exists(OUT):
        return []
    return re.findall(r"\*\(\.text\.(\S+) ", open(OUT).read())


def pattern(name):
    """The name as a section pattern that survives a new compiler or dependency version."""
    if name.startswith("0x") or not re.fullmatch(r"[A-Za-z0-9_.$]+", name):
        return None
    name = re.sub(r"(\.llvm)?\.\d+$", "", name)
    name = re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", name)
    name = re.sub(r"17h[0-9a-f]{16}E$", "17h*", name)
    return name + "*" if name.startswith(("_R", "_ZN")) else name


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    binary = os.path.realpath(args[0] if args else "target/release/warden")
    names = with_aliases(binary, under_callgrind(binary) + faulted_natively(binary))
    kept = previous_patterns() if "--add" in sys.argv else []
    patterns = list(dict.fromkeys(kept + [p for p in map(pattern, names) if p]))
    with open(OUT, "w") as f:
        f.write("/* The functions that run by the `session/new` answer, laid out first (decision 0022).\n"
                "   Written by link/generate.py; regenerate it when start-up changes. */\n")
        f.write(f"SECTIONS {{\n  {SECTION} : {{\n")
        # Cold functions (`#[cold]`, as the standard library marks its one-time set-up) are in
        # `.text.unlikely.` sections and C constructors in `.text.startup.`.
        f.writelines(f"    *(.text.{p} .text.unlikely.{p} .text.startup.{p})\n" for p in patterns)
        f.write("  }\n} INSERT BEFORE .text;\n")
    print(f"{len(patterns)} functions written to {os.path.relpath(OUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
