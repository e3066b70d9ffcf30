#!/usr/bin/env python3
"""The release build's code layout: write link/startup.ld, or check what it achieves.

An editor starts one Warden per thread, and the kernel maps a program's code in large
blocks around each page it first touches. Spread over the whole binary, the few thousand
functions that run before the `session/new` answer touch most of it; placed together they
touch a megabyte (decision 0022). The functions that run for every tool call are placed
together after them: a call then runs through fewer pages of code, which the processor's
caches and page tables hold better (decision 0023).

Usage: python3 link/startup.py write|add|check|calls|window|footprint [path/to/release/warden]

- `write` replaces startup.ld with what the given build runs at start-up.
- `add` keeps the patterns already in startup.ld and adds the run's: run `write` on a build
  without the layout (WARDEN_STARTUP_LAYOUT=off), then `add` on the build with it, which
  finds what ran natively outside the laid-out block; repeat `add` until the check passes.
- `check` measures the resident set after `session/new` (median of three starts, the
  binary evicted from the page cache before each) for each client of SCENARIOS, and fails
  when one is over the 8 MB bound.
- `calls` counts, under callgrind, the instructions Warden's main thread runs from the
  model's reply that proposes a call to the call's permission request (the median of
  CALLS calls): the tool-call target's window, exactly, for comparing two builds.
- `window` counts the same from the model's reply until Warden waits again after the
  request, which also holds the SDK's and the line writer's work on it: all that the turn
  benchmark's window holds (needs `callgrind_control`).
- `footprint` counts, over the same window, the distinct 64-byte lines of code the main
  thread runs: what the processor fetches into its caches for each call, which costs it
  more than the instructions themselves (docs/performance.md).

The binary must be a release build of this tree. Two runs per client of SCENARIOS find the
functions:
- under callgrind (valgrind), every function that runs by the `session/new` answer;
- natively, under `perf record -e page-faults` when perf is available, the functions whose
  first run faulted in a page outside the laid-out block (what runs only outside valgrind,
  such as the Landlock probe).
One more run under callgrind, of CALLS tool calls from an OpenAI-compatible model (a small
server in this script) that the client allows, finds the functions that ran in every call.
Rust names are written in the v0 scheme (`.cargo/config.toml`) with what differs between
builds of the same code made wildcards (`wildcards`, `patterns`), so a list stays valid
across compilers, profiles and dependency updates; a function that no longer exists
matches nothing.
"""
import functools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "startup.ld")
SECTION = ".text.warden_startup"
WINDOW_SECTION = ".text.warden_window"
CALLS_SECTION = ".text.warden_calls"
# Tool calls in the calls run; a function that ran fewer times is not run by every call.
CALLS = 12
# The resident set after `session/new`, in bytes (docs/performance.md).
BOUND = 8_000_000


# How clients start Warden: an editor that offers its files and terminal, and a scripted
# client that offers nothing and names a managed policy file (which need not exist). Their
# start-ups run partly different code; the layout holds both.
SCENARIOS = [
    ({"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}, {}),
    ({}, {"WARDEN_MANAGED_POLICY": "{home}/managed-policy.toml"}),
]


class Client:
    """Warden's other end: JSON-RPC lines on its stdin and stdout."""

    def __init__(self, proc):
        self.proc = proc

    def send(self, message):
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self.proc.stdin.flush()

    def until(self, wanted):
        """The first message from Warden that `wanted` accepts."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("Warden ended before it answered")
            message = json.loads(line)
            if wanted(message):
                return message

    def call(self, i, method, params):
        """Sends request `i` and returns its result."""
        self.send({"id": i, "method": method, "params": params})
        answer = self.until(lambda m: m.get("id") == i and "method" not in m)
        if "result" not in answer:
            sys.exit(f"{method} failed: {answer}")
        return answer["result"]

    def end(self):
        self.proc.stdin.close()
        self.proc.wait()


def requests(proc, cwd, capabilities, answered=None):
    """Send `initialize` and `session/new` and wait for each answer."""
    client = Client(proc)
    client.call(1, "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities})
    client.call(2, "session/new", {"cwd": cwd, "mcpServers": []})
    if answered:
        answered()
    client.end()


def run(argv, scenario=SCENARIOS[0], measure=False):
    """Start Warden as a client of the scenario does, in a home and a project folder of
    its own that are removed afterwards, and send it the two requests; with `measure`,
    return its resident set in bytes once `session/new` is answered."""
    capabilities, variables = scenario
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        env = dict(os.environ, HOME=home, WARDEN_HOME=home)
        env.update({key: value.format(home=home) for key, value in variables.items()})
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        resident = []
        requests(proc, cwd, capabilities,
                 lambda: resident.append(vm_rss(proc.pid)) if measure else None)
    return resident[0] if resident else None


def vm_rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    sys.exit("no VmRSS in /proc/<pid>/status")


def evict(path):
    """Drop the binary from the page cache, so each start reads it as a first start does:
    how the cache holds a file (the blocks it was written or read in) changes how much the
    kernel maps around each touched page."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def check(binary):
    worst = 0
    for scenario in SCENARIOS:
        runs = []
        for _ in range(3):
            evict(binary)
            runs.append(run([binary], scenario, measure=True))
        median = sorted(runs)[1]
        worst = max(worst, median)
        print(f"resident set after session/new: {median / 1e6:.1f} MB "
              f"(runs: {', '.join(f'{r / 1e6:.1f}' for r in runs)}; bound {BOUND / 1e6:.0f} MB)")
    if worst > BOUND:
        sys.exit("over the bound: start-up has grown out of link/startup.ld; "
                 "run `python3 link/startup.py add` on this build and rebuild")


def under_callgrind(binary):
    names = []
    for scenario in SCENARIOS:
        names += callgrind_run(binary, scenario)
    return names


def callgrind_run(binary, scenario):
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        run(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
             "--compress-pos=no", f"--callgrind-out-file={out}", binary], scenario)
        return [name for name in profiled(out) if name in functions(binary)]


def profiled(out):
    """The functions a callgrind profile names, each with how often it was called."""
    ran, callee = {}, None
    for line in open(out):
        if line.startswith("fn="):
            ran.setdefault(line[3:].strip(), 0)
        elif line.startswith("cfn="):
            callee = line[4:].strip()
        elif line.startswith("calls="):
            ran[callee] = ran.get(callee, 0) + int(line[6:].split()[0])
    return ran


@functools.cache
def symbols(binary):
    """The binary's functions (from `nm`): each name's address, and each address's names."""
    listing = subprocess.run(["nm", "--defined-only", binary], capture_output=True,
                             text=True, check=True).stdout
    at, names_at = {}, {}
    for parts in map(str.split, listing.splitlines()):
        if len(parts) == 3 and parts[1] in "tTwW":
            at[parts[2]] = parts[0]
            names_at.setdefault(parts[0], []).append(parts[2])
    return at, names_at


def functions(binary):
    """The functions the binary defines, by name. Callgrind's own object names cannot
    tell: it does not place a function of a laid-out section in the binary."""
    return symbols(binary)[0]


def model_server(before_call=None):
    """A Chat Completions server on 127.0.0.1 that streams, turn by turn, a reply that
    proposes one `terminal` call and then a closing text: the base URL to give Warden.
    `before_call`, if given, runs before each reply that proposes a call is written."""
    def chunk(delta, finish=None):
        return "data: " + json.dumps({"choices": [
            {"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"

    def serve(conn):
        stream, n = conn.makefile("rb"), 0
        while True:
            headers = []
            while (line := stream.readline()) not in (b"", b"\r\n", b"\n"):
                headers.append(line.decode())
            if not headers:
                return
            stream.read(sum(int(h.split(":", 1)[1]) for h in headers
                            if h.lower().startswith("content-length:")))
            if n % 2 == 0:
                call = {"index": 0, "id": f"call_{n}", "type": "function", "function": {
                    "name": "terminal", "arguments": json.dumps({"command": f"touch f{n}"})}}
                body = chunk({"tool_calls": [call]}) + chunk({}, "tool_calls")
                if before_call:
                    before_call()
            else:
                body = chunk({"content": "Done."}) + chunk({}, "stop")
            body = (body + "data: [DONE]\n\n").encode()
            n += 1
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                         b"transfer-encoding: chunked\r\n\r\n"
                         + f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n")

    listener = socket.create_server(("127.0.0.1", 0))

    def accept():
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/v1"


def tool_calls(proc, cwd, asked_hook=None):
    """CALLS prompts, each of which the model answers with a command that the client
    allows once, then the end of the input. `asked_hook`, if given, runs after each
    permission request is read and before it is answered."""
    client = Client(proc)
    client.call(1, "initialize", {"protocolVersion": 1})
    session = client.call(2, "session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
    for i in range(CALLS):
        prompt_id = 10 + i
        client.send({"id": prompt_id, "method": "session/prompt", "params": {
            "sessionId": session, "prompt": [{"type": "text", "text": "go"}]}})
        asked = client.until(lambda m: m.get("method") == "session/request_permission")
        if asked_hook:
            asked_hook()
        client.send({"id": asked["id"], "result": {
            "outcome": {"outcome": "selected", "optionId": "allow-once"}}})
        answer = client.until(lambda m: m.get("id") == prompt_id and "method" not in m)
        if answer.get("result", {}).get("stopReason") != "end_turn":
            sys.exit(f"a tool call's turn failed: {answer}")
    client.end()


def calls_under_callgrind(binary, scratch, options, control=False):
    """Runs CALLS tool calls with the binary under callgrind, its profiles in `scratch`.
    With `control`, callgrind's counts are zeroed while Warden waits for each reply that
    proposes a call, and dumped while it waits for the answer to the call's request."""
    started = {}

    def command(flag):
        # Warden has finished what it was doing and waits; callgrind takes the command
        # through valgrind's gdbserver (`vgdb`) and returns when it is done. The dump
        # waits less than the half second after which a question's first look for an
        # answer from elsewhere (the claim poll) runs: natively that look is far outside
        # the window, and under callgrind it would fall inside it.
        time.sleep(0.5 if flag == "-z" else 0.2)
        subprocess.run(["callgrind_control", flag, str(started["pid"])],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    url = model_server(before_call=(lambda: command("-z")) if control else None)
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        env = dict(os.environ, HOME=home, WARDEN_HOME=home, WARDEN_MODEL="openai:layout",
                   OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-layout")
        proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", *options,
             f"--callgrind-out-file={os.path.join(scratch, 'callgrind.out')}", binary],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, cwd=cwd)
        started["pid"] = proc.pid
        tool_calls(proc, os.path.realpath(cwd),
                   asked_hook=(lambda: command("-d")) if control else None)


def run_per_call(binary):
    """The binary's functions that ran in every one of CALLS tool calls, under callgrind."""
    with tempfile.TemporaryDirectory() as scratch:
        calls_under_callgrind(binary, scratch, ["--demangle=no", "--compress-strings=no",
                                                "--compress-pos=no"])
        return every_call(os.path.join(scratch, "callgrind.out"), binary)


def instructions_per_call(binary):
    """The instructions Warden's main thread runs from reading the model's reply that
    proposes a call to sending the call's permission request, for each of CALLS calls:
    the tool-call target's window, counted exactly (docs/performance.md)."""
    main_thread_instructions(binary, "permission request", [
        "--zero-before=*ReplyDecoder*feed*", "--dump-after=*send_permission_request*"])


def instructions_per_window(binary):
    """The instructions Warden's main thread runs from the model's reply that proposes a
    call until it waits again after sending the call's permission request, for each of
    CALLS calls: all the turn benchmark's window holds, the SDK's and the line writer's
    work on the request included."""
    main_thread_instructions(binary, "Warden waiting after the permission request", [],
                             control=True)


def main_thread_instructions(binary, until, options, control=False):
    """Runs CALLS tool calls under callgrind with `options` (each call's profile dumped
    on the main thread) and prints the median count from the model's reply to `until`."""
    main_thread_median(binary, until, options, control, instructions_in,
                       lambda n: f"{n:,} instructions")


def code_footprint(binary):
    """The distinct 64-byte lines of code Warden's main thread runs in the turn
    benchmark's window (`window`), for each of CALLS calls: printed as the median."""
    main_thread_median(binary, "Warden waiting after the permission request",
                       ["--dump-instr=yes", "--compress-pos=no"], True, code_lines,
                       lambda n: f"{n:,} lines of code ({n * 64 // 1024} KiB)")


def main_thread_median(binary, until, options, control, count, describe):
    """Runs CALLS tool calls under callgrind with `options` and prints the median of
    `count` over the main thread's profile of each call, as `describe` words it."""
    with tempfile.TemporaryDirectory() as scratch:
        calls_under_callgrind(binary, scratch, ["--separate-threads=yes", *options],
                              control=control)
        counts = sorted(filter(None, map(count, main_thread_dumps(scratch))))
    if not counts:
        sys.exit("no profile of a tool call was written")
    print(f"main thread, model's tool call -> {until}: "
          f"median {describe(counts[len(counts) // 2])} over {len(counts)} calls "
          f"(from {counts[0]:,} to {counts[-1]:,})")


def code_lines(path):
    """The distinct 64-byte lines of the instruction addresses in a profile written with
    `--dump-instr=yes --compress-pos=no`, where every cost line starts with one."""
    lines = set()
    with open(path) as f:
        for line in f:
            if line.startswith("0x"):
                lines.add(int(line.split(None, 1)[0], 16) >> 6)
    return len(lines)


def instructions_in(path):
    """A profile's instruction count (`None` when it has none)."""
    found = re.search(r"^(?:summary|totals): (\d+)", open(path).read(), re.M)
    return int(found.group(1)) if found else None


def main_thread_dumps(scratch):
    """The main thread's profile of each dump in `scratch`: callgrind names them
    `callgrind.out.<dump>-<thread>`, the main thread first."""
    return [os.path.join(scratch, name) for name in os.listdir(scratch)
            if re.fullmatch(r"callgrind\.out\.\d+-01", name)]


def run_in_window(binary):
    """The binary's functions that ran in most of CALLS windows of the turn benchmark
    (from the model's reply until Warden waits after the permission request), under
    callgrind: the code one asked call runs after the wait for the model."""
    with tempfile.TemporaryDirectory() as scratch:
        calls_under_callgrind(binary, scratch, ["--separate-threads=yes", "--demangle=no",
                                                "--compress-strings=no", "--compress-pos=no"],
                              control=True)
        dumps = main_thread_dumps(scratch)
        ours = functions(binary)
        runs = {}
        for dump in dumps:
            for name in profiled(dump):
                if name in ours:
                    runs[name] = runs.get(name, 0) + 1
    return [name for name, count in runs.items() if 2 * count > len(dumps)]


def every_call(out, binary):
    """The binary's functions that a callgrind profile shows called at least CALLS times."""
    ours = functions(binary)
    return [name for name, calls in profiled(out).items() if calls >= CALLS and name in ours]


def faulted_natively(binary):
    """The binary's functions whose first run faulted in a page of its code, natively:
    on a laid-out build, those outside the block are the ones it misses."""
    if not shutil.which("perf"):
        print("perf not found: only the callgrind run is used", file=sys.stderr)
        return []
    names = []
    for scenario in SCENARIOS:
        with tempfile.TemporaryDirectory() as scratch:
            data = os.path.join(scratch, "perf.data")
            run(["perf", "record", "-q", "-e", "page-faults", "-c", "1", "-d", "-o", data,
                 binary], scenario)
            names += faults_in(data, binary)
    return names


def faults_in(data, binary):
    script = subprocess.run(["perf", "script", "-i", data, "-F", "addr,ip,sym,dso",
                             "--no-demangle"],
                            capture_output=True, text=True, check=True).stdout
    names = []
    for line in script.splitlines():
        # Each line is the fault's address, its symbol and its program (`(path)`), then
        # the instruction's. An instruction fetch faults at its own address; the C
        # library's and the loader's faults are not the binary's to lay out.
        parts = line.split()
        if (len(parts) == 6 and parts[0] == parts[3] and parts[4] != "[unknown]"
                and os.path.realpath(parts[5].strip("()")) == binary):
            names.append(parts[4])
    return names


def with_aliases(binary, names):
    """Each name with every other name of the same code.

    Identical functions are merged into one body with several names, and the linker sees
    the body's section under one of them only: which one, the run cannot tell.
    """
    at, names_at = symbols(binary)
    expanded = []
    for name in names:
        expanded.extend(names_at.get(at.get(name), [name]))
    return expanded


def previous_patterns(section):
    """The section patterns already in startup.ld for one output section, so that `add`
    only adds to them."""
    if not os.path.exists(OUT):
        return []
    block = re.search(r"^  " + re.escape(section) + r" : \{\n    \*\(\n(.*?)^    \)",
                      open(OUT).read(), re.M | re.S)
    return re.findall(r"^      (\S+)$", block.group(1), re.M) if block else []


def wildcards(name):
    """A v0 name with what differs between builds of the same code made wildcards: each
    crate's hash (`Cs<hash>_`), and the back-references (`B<offset>_`), which count bytes
    of the name and so move when a hash's length does (a different profile makes other
    hashes). An identifier that happens to look like a back-reference only widens the
    pattern; it still matches its own function."""
    name = re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", name)
    return re.sub(r"B[0-9A-Za-z]{0,4}_", "B*_", name) if name.startswith("_R") else name


def patterns(name):
    """The sections a function's code can be in, as patterns that survive a new compiler
    or dependency version.

    What differs between builds becomes a wildcard (`wildcards`). A Rust name ends in one
    too: a local function that the crate's units share gets a `.llvm.<hash>` suffix, and
    which ones do changes from build to build. Cold functions (`#[cold]`, as the standard
    library marks its one-time set-up) are in `.text.unlikely.` sections and C
    constructors in `.text.startup.`.
    """
    if name.startswith("0x") or not re.fullmatch(r"[A-Za-z0-9_.$]+", name):
        return []
    if name.startswith("_R"):
        base = wildcards(re.sub(r"(\.llvm)?\.\d+$", "", name))
        return [kind + base + "*" for kind in (".text.", ".text.unlikely.")]
    # A C function's name is its section's whole name, clones (`.part.0`, `.isra.0`)
    # included.
    return [kind + name for kind in (".text.", ".text.unlikely.", ".text.startup.")]


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("write", "add", "check", "calls", "window",
                                                 "footprint"):
        sys.exit(__doc__)
    binary = os.path.realpath(sys.argv[2] if len(sys.argv) > 2 else "target/release/warden")
    if sys.argv[1] == "check":
        return check(binary)
    if sys.argv[1] == "calls":
        return instructions_per_call(binary)
    if sys.argv[1] == "window":
        return instructions_per_window(binary)
    if sys.argv[1] == "footprint":
        return code_footprint(binary)
    adding = sys.argv[1] == "add"
    names = with_aliases(binary, under_callgrind(binary) + faulted_natively(binary))
    kept = previous_patterns(SECTION) if adding else []
    startup = list(dict.fromkeys(kept + [p for name in names for p in patterns(name)]))
    # A function that also runs at start-up stays in the start-up block: the linker
    # places a section by the first description that names it.
    taken = set(startup)

    def block(kept, names):
        # Only the ordinary sections: the cold ones run on no call's way, and each
        # pattern costs the link time.
        found = [p for name in names for p in patterns(name)]
        chosen = [p for p in dict.fromkeys(kept + found)
                  if p not in taken and not p.startswith((".text.unlikely.", ".text.startup."))]
        taken.update(chosen)
        return chosen
    # The window's code first, packed, then the rest of what every call runs.
    window = block(previous_patterns(WINDOW_SECTION) if adding else [],
                   with_aliases(binary, run_in_window(binary)))
    calls = block(previous_patterns(CALLS_SECTION) if adding else [],
                  with_aliases(binary, run_per_call(binary)))
    with open(OUT, "w") as f:
        f.write("/* The functions that run by the `session/new` answer, laid out first "
                "(decision 0022),\n   then those that run from a model's reply to its "
                "permission request, then the rest\n   of those that run for every tool "
                "call (decision 0023).\n"
                "   Written by link/startup.py; regenerate it when start-up changes. */\n")
        # One input description per block for all its patterns: the linker walks every
        # section of the program once per description.
        for section, found in ((SECTION, startup), (WINDOW_SECTION, window),
                               (CALLS_SECTION, calls)):
            f.write(f"SECTIONS {{\n  {section} : {{\n    *(\n")
            f.writelines(f"      {p}\n" for p in found)
            f.write("    )\n  }\n} INSERT BEFORE .text;\n")
    print(f"{len(startup)} start-up, {len(window)} window and {len(calls)} per-call section "
          f"patterns written to {os.path.relpath(OUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
