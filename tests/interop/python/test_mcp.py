"""A real third-party MCP server from PyPI (`mcp-server-time`, the reference time server)
passed to Warden in session/new by the official Python ACP SDK client. run.sh installs it in
a venv of its own and names its command in $MCP_SERVER_TIME.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from acp.schema import McpServerStdio

from harness import always, warden


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "warden-home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def time_server() -> McpServerStdio:
    command = os.environ.get("MCP_SERVER_TIME")
    assert command, "run.sh sets MCP_SERVER_TIME to the mcp-server-time command"
    return McpServerStdio(name="time", command=command, args=["--local-timezone", "UTC"], env=[])


def test_mcp_server_time_is_asked_about_and_answers(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, always("allow-once")) as w:
            sid = await w.new_session(project, [time_server()])
            args = {"timezone": "Asia/Tokyo"}
            turn = await w.prompt(sid, f"/call mcp__time__get_current_time {json.dumps(args)}")
            assert turn.stop_reason == "end_turn"
            assert len(turn.permission_requests) == 1
            request = turn.permission_requests[0]
            assert request["toolCall"]["title"] == "Run get_current_time from time"
            assert [o["optionId"] for o in request["options"]] == [
                "allow-once",
                "allow-session",
                "allow-project",
                "reject-once",
                "reject-and-stop",
                "reject-project",
            ]
            prompt = request["toolCall"]["content"][0]["content"]["text"]
            assert prompt.startswith("Allow tool call from time?"), prompt
            assert '"timezone": "Asia/Tokyo"' in prompt, prompt
            statuses = list(turn.statuses().values())
            assert statuses == [["pending", "in_progress", "completed"]], statuses
            text = json.dumps([u for u in turn.updates if u.get("sessionUpdate") == "tool_call_update"])
            assert "Asia/Tokyo" in text, text

    asyncio.run(scenario())


def test_a_deny_rule_keeps_the_time_server_s_tool_from_running(home: Path, project: Path) -> None:
    (home / "policy.toml").write_text('[[rule]]\ntool = "mcp__time__*"\ndecision = "deny"\n')

    async def scenario() -> None:
        async with warden(home, always("allow-once")) as w:
            sid = await w.new_session(project, [time_server()])
            turn = await w.prompt(sid, '/call mcp__time__get_current_time {"timezone": "UTC"}')
            assert turn.permission_requests == []
            assert list(turn.statuses().values()) == [["pending", "failed"]]

    asyncio.run(scenario())
