"""`warden chat` at a terminal with an agent that is not Warden (`toy_agent.py`, on the official
Python SDK): a real pseudo-terminal, typed at as a person would. The contract's permission prompt (section 9) with the
other agent's options on keys, a batch answered one at a time and sent together, undo,
`--resume` through the agent's `session/load`, and no agent left running afterwards.

Waits are for text on the screen, with a deadline; nothing sleeps.
"""

from __future__ import annotations

import os
import pty
import re
import select
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness import TURN_TIMEOUT_SECS, warden_bin

TOY_AGENT = Path(__file__).resolve().parent / "toy_agent.py"
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[@-~]|\x1b\][^\x07]*\x07|\r")


class Screen:
    """`warden chat` on a pty; `expect` waits for text after the last match."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.project = tmp_path / "project"
        self.project.mkdir(exist_ok=True)
        home = tmp_path / "warden-home"
        home.mkdir(exist_ok=True)
        agent = f"{shlex.quote(sys.executable)} {shlex.quote(str(TOY_AGENT))}"
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "WARDEN_HOME": str(home),
            "TERM": "xterm-256color",
        }
        self.master, slave = pty.openpty()
        # `setsid --ctty`: the pty is the chat's controlling terminal, so Ctrl-C is a signal.
        self.process = subprocess.Popen(
            ["setsid", "--ctty", warden_bin(), "chat", "--agent", agent, "--cwd", str(self.project), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
        )
        os.close(slave)
        self.raw = b""
        self.seen = 0

    def text(self) -> str:
        return ESCAPES.sub("", self.raw.decode("utf-8", "replace"))

    def read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        if b"\x1b[6n" in chunk:
            os.write(self.master, b"\x1b[1;1R")
        self.raw += chunk
        return True

    def expect(self, text: str) -> str:
        deadline = time.monotonic() + TURN_TIMEOUT_SECS
        while True:
            screen = self.text()
            at = screen.find(text, self.seen)
            if at >= 0:
                self.seen = at + len(text)
                return screen
            left = deadline - time.monotonic()
            if left <= 0 or not self.read(left):
                raise AssertionError(f"{text!r} did not appear; the screen after the last match:\n{screen[self.seen:]}")

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait(self) -> int:
        """The chat's exit status; a chat that does not exit fails with its screen and its
        threads' states, so that a hang says where it is."""
        deadline = time.monotonic() + TURN_TIMEOUT_SECS
        while self.read(max(0.0, deadline - time.monotonic())) and time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
        try:
            return self.process.wait(timeout=TURN_TIMEOUT_SECS)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"the chat did not exit; its threads: {threads(self.process.pid)}\n"
                f"the screen:\n{self.text()}"
            ) from None

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def threads(pid: int) -> list[str]:
    """Each thread of a process (`setsid` execs the chat, so the pid is the chat's): its
    name, state and the kernel function it waits in."""
    found = []
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        try:
            name = (task / "comm").read_text().strip()
            state = (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
            wchan = (task / "wchan").read_text().strip()
        except OSError:
            continue
        found.append(f"{name} {state} {wchan}")
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return not stat.rsplit(")", 1)[1].strip().startswith("Z")


def test_prompt_batch_and_undo_at_a_terminal_with_another_agent(tmp_path: Path) -> None:
    chat = Screen(tmp_path)
    try:
        screen = chat.expect("Ctrl-D leaves.")
        pid = int(screen.split("(pid ", 1)[1].split(")", 1)[0])
        chat.expect("> ")
        chat.send("touch-many one.txt two.txt\r")
        for text in [
            "Allow tool call from Toy Agent?  (1 of 2)",
            "  Run Create one.txt from Toy Agent  (> shows the arguments)",
            "Malicious MCP servers or conversation content could potentially trick the agent into attempting harmful actions through your installed tools.",
            "Review each action carefully before approving",
            # Another agent's own option names, each on its key; the toy agent sends no
            # risk, so Enter picks nothing.
            "[a] Yes, always  [o] Yes, once  [d] No",
            "Enter picks nothing: choose an option's key",
        ]:
            chat.expect(text)
        # The toy agent does not read Warden's `_meta`: no edit or note keys.
        assert "e edit" not in chat.text()
        chat.send("d")
        chat.expect("Denied  (u undoes)")
        chat.expect("(2 of 2)")
        chat.send("u")
        # The prompt is redrawn in place: request 1 is open again.
        chat.expect("(1 of 2)")
        chat.send("o")
        chat.expect("Approved once  (u undoes)")
        chat.expect("(2 of 2)")
        assert not (chat.project / "one.txt").exists(), "an answer went back before the last one"
        chat.send("d")
        chat.expect("All 2 answers sent together")
        chat.expect("one.txt: toy-yes, two.txt: toy-no")
        chat.expect("\n> ")
        assert (chat.project / "one.txt").exists()
        assert not (chat.project / "two.txt").exists()
        chat.send("\x04")
        assert chat.wait() == 0, chat.text()
        assert not alive(pid), f"the toy agent {pid} outlived the chat"
    finally:
        chat.close()


def test_ctrl_c_answers_the_other_agents_open_requests_cancelled(tmp_path: Path) -> None:
    chat = Screen(tmp_path)
    try:
        chat.expect("Ctrl-D leaves.")
        chat.expect("> ")
        chat.send("touch-many one.txt two.txt\r")
        chat.expect("(1 of 2)")
        chat.expect("[o] Yes, once")
        chat.send("o")
        chat.expect("(2 of 2)")
        chat.send("\x03")
        chat.expect("2 open requests are answered cancelled")
        chat.expect("one.txt: cancelled, two.txt: cancelled")
        chat.expect("\n> ")
        assert not (chat.project / "one.txt").exists()
        # At the prompt, a Ctrl-C warns first, and a second one leaves.
        chat.send("\x03")
        chat.expect("press Ctrl-C again to quit")
        chat.send("\x03")
        assert chat.wait() == 130, chat.text()
    finally:
        chat.close()


def test_a_sigint_while_the_prompt_reads_a_line_ends_the_chat(tmp_path: Path) -> None:
    """A Ctrl-C typed just before the prompt's line read began reaches the chat as SIGINT
    while the read runs. The line editor once swapped in a SIGINT handler of its own for
    each read, so the signal, taken on another thread, was lost while the read blocked:
    the chat sat at its prompt instead of leaving. A SIGINT sent while the prompt reads
    is that case, without its timing."""
    chat = Screen(tmp_path)
    try:
        chat.expect("Ctrl-D leaves.")
        chat.expect("> ")
        os.kill(chat.process.pid, signal.SIGINT)
        assert chat.wait() == 130, chat.text()
    finally:
        chat.close()


def test_resume_loads_the_session_where_the_agent_offers_session_load(tmp_path: Path) -> None:
    chat = Screen(tmp_path, "--resume", "toy-7")
    try:
        chat.expect("resumed toy-7")
        chat.expect("Session toy-7 with Toy Agent")
        chat.expect("> ")
        chat.send("\x04")
        assert chat.wait() == 0, chat.text()
    finally:
        chat.close()


def test_a_request_sent_while_a_session_loads_is_answered_at_the_terminal(tmp_path: Path) -> None:
    chat = Screen(tmp_path, "--resume", "toy-asks")
    try:
        chat.expect("resumed toy-asks")
        chat.expect("Allow tool call from Toy Agent?")
        chat.expect("Run Create loaded.txt from Toy Agent")
        chat.expect("[o] Yes, once")
        chat.send("o")
        chat.expect("Approved once")
        chat.expect("loaded.txt: toy-yes")
        chat.expect("Session toy-asks with Toy Agent")
        chat.expect("> ")
        assert (chat.project / "loaded.txt").exists()
        chat.send("\x04")
        assert chat.wait() == 0, chat.text()
    finally:
        chat.close()
