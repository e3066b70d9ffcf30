"""`warden chat --agent` with an ACP agent that is not Warden: `toy_agent.py`, written with the
official Python SDK. The prompt, the `--approve` answers and the exit code work with it too, and
the agent does not outlive the chat.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from harness import TURN_TIMEOUT_SECS, warden_bin

TOY_AGENT = Path(__file__).resolve().parent / "toy_agent.py"


def chat(tmp_path: Path, approve: str, prompt: str) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    home = tmp_path / "warden-home"
    home.mkdir(exist_ok=True)
    agent = f"{shlex.quote(sys.executable)} {shlex.quote(str(TOY_AGENT))}"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "WARDEN_HOME": str(home),
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [warden_bin(), "chat", "--agent", agent, "--cwd", str(project), "--approve", approve, "--prompt", prompt],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=TURN_TIMEOUT_SECS,
    )


def agent_pid(out: str) -> int:
    return int(out.split("(pid ", 1)[1].split(")", 1)[0])


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return not stat.rsplit(")", 1)[1].strip().startswith("Z")


def test_approve_all_allows_once_with_another_agent(tmp_path: Path) -> None:
    result = chat(tmp_path, "all", "touch made.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout.splitlines()
    for line in [
        "Allow tool call from Toy Agent?",
        "  Run Create made.txt from Toy Agent",
        '  > {"name":"made.txt"}',
        "Review each action carefully before approving",
        "[Allow once] [Allow for this chat: Yes, always] [Deny]",
        "Chosen: Yes, once (--approve all)",
        "[tool] Create made.txt: completed",
        "created made.txt",
        "[turn ended: end_turn]",
    ]:
        assert line in out, f"missing {line!r} in:\n{result.stdout}"
    assert (tmp_path / "project" / "made.txt").exists()
    assert not alive(agent_pid(result.stdout))


def test_approve_none_denies_with_another_agent(tmp_path: Path) -> None:
    result = chat(tmp_path, "none", "touch made.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Denied: No (--approve none)" in result.stdout.splitlines(), result.stdout
    assert "not created: toy-no" in result.stdout
    assert not (tmp_path / "project" / "made.txt").exists()
    assert not alive(agent_pid(result.stdout))


def test_approve_all_never_approves_what_another_agent_marks_critical(tmp_path: Path) -> None:
    result = chat(tmp_path, "all", "touch-critical made.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout.splitlines()
    assert "Critical: a toy call marked Critical" in out, result.stdout
    assert "Denied: No (the agent marks this call Critical, which --approve all never approves)" in out, result.stdout
    assert not (tmp_path / "project" / "made.txt").exists()


def test_a_turn_that_fails_exits_1(tmp_path: Path) -> None:
    result = chat(tmp_path, "ask", "fail")
    assert result.returncode == 1, result.stdout + result.stderr
    assert any(line.startswith("[turn failed: ") for line in result.stdout.splitlines()), result.stdout
    assert not alive(agent_pid(result.stdout))
