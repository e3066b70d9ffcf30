"""Stored sessions through the official Python ACP SDK client (docs/sessions.md): a session
outlives its Warden, `session/load` replays it, `session/resume` restores it without a
replay, `session/list` finds it by `cwd`, and `session/close` frees it without deleting it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

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


def append_line() -> str:
    return "/call terminal " + json.dumps({"command": "echo line >> out.txt"})


def lines(project: Path) -> int:
    out = project / "out.txt"
    return len(out.read_text().splitlines()) if out.exists() else 0


def test_a_session_is_loaded_with_its_replay_resumed_listed_and_closed(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, always("allow-once")) as first:
            caps = first.initialize["agentCapabilities"]
            assert caps["loadSession"] is True
            assert set(caps["sessionCapabilities"]) >= {"list", "resume", "close"}
            session = await first.new_session(project)
            turn = await first.prompt(session, append_line())
            assert turn.stop_reason == "end_turn"
            assert lines(project) == 1

        # A new Warden on the same folders: the stored session is listed, loaded and replayed.
        async with warden(home, always("reject-once")) as second:
            listed = await asyncio.wait_for(second.conn.list_sessions(cwd=str(project)), 20)
            assert [s.session_id for s in listed.sessions] == [session]
            before = len(second.recorder.updates)
            await asyncio.wait_for(second.conn.load_session(cwd=str(project), session_id=session), 20)
            replay = [
                (u["sessionUpdate"], u.get("status"))
                for u in second.recorder.updates[before:]
                if u["sessionUpdate"] != "available_commands_update"
            ]
            assert replay == [
                ("user_message_chunk", None),
                ("tool_call", "completed"),
                ("agent_message_chunk", None),
            ]
            # The conversation goes on; nothing of the old turn runs again.
            turn = await second.prompt(session, "/say and now?")
            assert "and now?" in turn.message()
            assert lines(project) == 1
            await asyncio.wait_for(second.conn.close_session(session_id=session), 20)

        # Closed is not deleted: resume restores it without a replay.
        async with warden(home, always("reject-once")) as third:
            before = len(third.recorder.updates)
            await asyncio.wait_for(third.conn.resume_session(session_id=session, cwd=str(project)), 20)
            assert [
                u for u in third.recorder.updates[before:] if u["sessionUpdate"] != "available_commands_update"
            ] == []
            turn = await third.prompt(session, "/say still here")
            assert turn.stop_reason == "end_turn"
            assert lines(project) == 1

    asyncio.run(scenario())


def test_a_call_waiting_when_warden_was_killed_is_asked_again_at_load_and_runs_once(
    home: Path, project: Path
) -> None:
    """The SDK client loads a session whose call waited for approval when its Warden was
    killed: the call is asked again right after the load, without a prompt; approved, it
    runs exactly once, and the turn goes on to the model's reply."""

    async def never(_request: dict[str, Any], _recorder: Any) -> Any:
        await asyncio.Event().wait()

    async def scenario() -> None:
        async with warden(home, never, killed=True) as first:
            session = await first.new_session(project)
            first.start_prompt(session, append_line())
            await asyncio.wait_for(first.recorder.asked.wait(), 20)
            first.process.kill()
            await first.process.wait()
        assert lines(project) == 0

        async with warden(home, always("allow-once")) as second:
            await asyncio.wait_for(second.conn.load_session(cwd=str(project), session_id=session), 20)
            replayed = len(second.recorder.updates)
            await asyncio.wait_for(second.recorder.asked.wait(), 20)
            assert [r["toolCall"]["toolCallId"] for r in second.recorder.permission_requests] == ["call_1"]

            await asyncio.wait_for(
                second.recorder.until_update(lambda u: u["sessionUpdate"] == "agent_message_chunk", replayed), 20
            )
            assert lines(project) == 1
            turn = await second.prompt(session, "/say done")
            assert turn.stop_reason == "end_turn"
            assert turn.permission_requests == []
            assert lines(project) == 1

    asyncio.run(scenario())
