"""Warden's permission flow, driven by the official Python ACP SDK client.

Each test is one scenario of docs/contract.md (sections 3-5): it prompts the scripted model with
`/call` lines, answers the permission requests the way a user would, and asserts what can be
observed: the prompt's stopReason, the tool call statuses, the agent's final message, and the
files created (or not) in the project folder.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from acp import RequestError

from harness import (
    Recorder,
    Turn,
    always,
    by_command,
    cancelled,
    never_asked,
    selected,
    until_withdrawn,
    warden,
)


def call(tool: str, args: dict) -> str:
    """One scripted-model directive line."""
    return f"/call {tool} {json.dumps(args)}"


def touch(name: str) -> str:
    return call("terminal", {"command": f"touch {name}"})


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


def run(coro):
    return asyncio.run(coro)


def assert_ran_unasked(turn: Turn, tool: str) -> None:
    """The turn's one call ran without a permission request and completed."""
    assert turn.permission_requests == []
    assert list(turn.statuses().values()) == [["pending", "in_progress", "completed"]]
    assert turn.message() == f"- {tool}: completed"


def assert_denied_unasked(turn: Turn, tool: str) -> None:
    """The turn's one call was denied without a permission request."""
    assert turn.permission_requests == []
    assert list(turn.statuses().values()) == [["pending", "failed"]]
    assert turn.message().startswith(f"- {tool}: denied")


def option_ids(request: dict) -> list[str]:
    return [o["optionId"] for o in request["options"]]


# --- allow -----------------------------------------------------------------------------------


def test_allow_once_runs_the_call_and_asks_again_next_time(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, by_command({"touch a": "allow-once", "touch b": "reject-once"})) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            assert turn.stop_reason == "end_turn"
            [request] = turn.permission_requests
            assert option_ids(request) == ["allow-once", "allow-session", "allow-project", "reject-once", "reject-and-stop", "reject-project"]
            assert request["toolCall"]["rawInput"] == {"command": "touch a"}
            [call_id] = turn.call_ids()
            assert request["toolCall"]["toolCallId"] == call_id
            assert turn.statuses()[call_id] == ["pending", "in_progress", "completed"]
            assert turn.message() == "- terminal: completed"
            assert (project / "a").exists()

            # allow-once stores nothing: the next matching call asks again.
            again = await w.prompt(sid, touch("b"))
            assert len(again.permission_requests) == 1
            assert not (project / "b").exists()

    run(scenario())


def test_allow_session_runs_later_matching_calls_unasked(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, by_command({"touch a": "allow-session", "touch c": "reject-once"})) as w:
            sid = await w.new_session(project)
            first = await w.prompt(sid, touch("a"))
            assert len(first.permission_requests) == 1
            assert (project / "a").exists()

            # A command that changes files is granted exactly: the same one runs unasked.
            (project / "a").unlink()
            second = await w.prompt(sid, touch("a"))
            assert_ran_unasked(second, "terminal")
            assert second.stop_reason == "end_turn"
            assert (project / "a").exists()

            # The grant is the session's: another session of the same process still asks.
            other = await w.new_session(project)
            third = await w.prompt(other, touch("c"))
            assert len(third.permission_requests) == 1
            assert not (project / "c").exists()

    run(scenario())


def test_allow_project_survives_a_restart(home: Path, project: Path) -> None:
    async def first_process() -> None:
        async with warden(home, always("allow-project")) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            assert len(turn.permission_requests) == 1
            # Without session notices, the stored grant is told in the agent's text.
            assert turn.message() == (
                '\n\n**Grant stored: exactly "touch a" is allowed in this project**: '
                "`/grants` lists what is stored, `/revoke ID` removes it.\n\n- terminal: completed"
            )
            assert (project / "a").exists()

    async def second_process() -> None:
        (project / "a").unlink()
        async with warden(home, never_asked()) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            assert turn.permission_requests == []
            assert turn.message() == "- terminal: completed"
            assert (project / "a").exists()

    run(first_process())
    run(second_process())


def test_a_critical_call_offers_only_once_options(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, always("reject-once")) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, call("terminal", {"command": "sudo touch a"}))
            [request] = turn.permission_requests
            # Reject first: a client whose cursor starts on the first option never runs it
            # by a bare Enter.
            assert option_ids(request) == ["reject-once", "reject-and-stop", "allow-once"]
            assert [o["kind"] for o in request["options"]] == ["reject_once", "reject_once", "allow_once"]
            risk = request["toolCall"]["content"][0]["content"]["text"]
            assert risk.startswith("Critical: "), risk
            assert turn.message() == "- terminal: denied (User denied tool invocation)"
            assert not (project / "a").exists()

    run(scenario())


def test_a_write_is_asked_with_its_diff_and_risk_in_view(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, always("reject-once")) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, call("fs_write", {"path": "notes.txt", "content": "hello\n"}))
            [request] = turn.permission_requests
            diff, risk = request["toolCall"]["content"]
            assert diff["type"] == "diff"
            assert diff["path"] == str(project / "notes.txt")
            assert diff.get("oldText") is None
            assert diff["newText"] == "hello\n"
            assert risk["content"]["text"].startswith("Medium: writes ")
            assert [o["name"] for o in request["options"]][1] == "Always allow fs_write on notes.txt in this session"
            # On the wire: the first notification names its status, a new file's oldText is null.
            [raw] = [
                m["params"]["update"]
                for m in w.recorder.raw_in
                if m.get("method") == "session/update" and m["params"]["update"]["sessionUpdate"] == "tool_call"
            ]
            assert raw["status"] == "pending"
            assert "oldText" in raw["content"][0] and raw["content"][0]["oldText"] is None
            assert not (project / "notes.txt").exists()

    run(scenario())


def test_the_commands_arrive_and_wardens_own_are_answered_without_the_model(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, never_asked()) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, "/grants")
            assert turn.stop_reason == "end_turn"
            assert turn.message() == "No grants apply here: calls are decided by the policy and the session mode `ask`."
            [listed] = [u for u in w.recorder.updates if u.get("sessionUpdate") == "available_commands_update"]
            names = [c["name"] for c in listed["availableCommands"]]
            assert names == ["call", "say", "grants", "revoke", "why", "mode", "tools"]

    run(scenario())


# --- reject ----------------------------------------------------------------------------------


def test_reject_once_does_not_run_the_call(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, always("reject-once")) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            assert turn.stop_reason == "end_turn"
            assert len(turn.permission_requests) == 1
            [call_id] = turn.call_ids()
            assert turn.statuses()[call_id] == ["pending", "failed"]
            assert turn.message() == "- terminal: denied (User denied tool invocation)"
            assert not (project / "a").exists()

    run(scenario())


def test_reject_project_denies_a_later_call_unasked(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, by_command({"touch a": "reject-project", "touch b": "allow-once"})) as w:
            sid = await w.new_session(project)
            first = await w.prompt(sid, touch("a"))
            assert len(first.permission_requests) == 1
            assert first.message().startswith('\n\n**Grant stored: exactly "touch a" is denied in this project**')
            assert "\n\n- terminal: denied" in first.message()
            assert not (project / "a").exists()

            second = await w.prompt(sid, touch("a"))
            assert_denied_unasked(second, "terminal")
            assert not (project / "a").exists()

    run(scenario())


# --- cancel and fail-closed answers ----------------------------------------------------------


def test_cancel_while_a_permission_request_is_pending(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, until_withdrawn) as w:
            sid = await w.new_session(project)
            task = w.start_prompt(sid, touch("a"))
            await asyncio.wait_for(w.recorder.asked.wait(), 20)
            # The user presses stop: the client cancels the turn and, as the spec requires,
            # answers every pending permission request with the `cancelled` outcome.
            await w.conn.cancel(session_id=sid)
            w.recorder.answer_all_pending(cancelled())
            turn = await task
            assert turn.stop_reason == "cancelled"
            [call_id] = turn.call_ids()
            assert turn.final_status(call_id) == "failed"
            assert not (project / "a").exists()
            answers = [m for m in w.recorder.raw_out if "result" in m and m["id"] in w.recorder.request_ids]
            assert [a["result"]["outcome"] for a in answers] == [{"outcome": "cancelled"}]

            # The session is still usable after the cancelled turn.
            after = await w.prompt(sid, "/say still here")
            assert after.stop_reason == "end_turn"
            assert after.message() == "still here"

    run(scenario())


def test_nothing_about_a_cancelled_turn_follows_its_prompt_response(home: Path, project: Path) -> None:
    """Nothing about a turn is sent after its `session/prompt` response.

    The spec's cancellation rule says the same: the agent answers the prompt with `cancelled`
    only after every ongoing operation of the turn was aborted, and withdrawing a pending
    permission request (`$/cancel_request`) is one of them.
    """

    async def scenario() -> None:
        async with warden(home, until_withdrawn) as w:
            sid = await w.new_session(project)
            task = w.start_prompt(sid, touch("a"))
            await asyncio.wait_for(w.recorder.asked.wait(), 20)
            # A slow client: it cancels, but its dialog answers `cancelled` only after the turn
            # has ended (or once the agent withdraws the request), which makes the order of
            # Warden's messages deterministic here.
            await w.conn.cancel(session_id=sid)
            turn = await task
            w.recorder.answer_all_pending(cancelled())
            assert turn.stop_reason == "cancelled"
            # A later turn that has ended bounds what Warden could still send about the first.
            await w.prompt(sid, "/say still here")

            [prompt_id, _] = [m["id"] for m in w.recorder.raw_out if m.get("method") == "session/prompt"]
            raw = w.recorder.raw_in
            response_at = next(i for i, m in enumerate(raw) if m.get("id") == prompt_id and "method" not in m)
            turn_calls = set(turn.call_ids())
            late = [
                m
                for m in raw[response_at + 1 :]
                if (m.get("method") == "$/cancel_request" and m["params"]["requestId"] in w.recorder.request_ids)
                or (m.get("method") == "session/update" and m["params"]["update"].get("toolCallId") in turn_calls)
            ]
            assert late == [], f"sent after the cancelled turn's response: {late}"

    run(scenario())


def test_unknown_option_id_is_a_denial(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, always("yes-please")) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            assert turn.stop_reason == "end_turn"
            [call_id] = turn.call_ids()
            assert turn.statuses()[call_id] == ["pending", "failed"]
            assert turn.message().startswith("- terminal: denied")
            assert not (project / "a").exists()

    run(scenario())


def test_malformed_answer_without_outcome_is_a_denial(home: Path, project: Path) -> None:
    async def malformed(_request: dict, _recorder: Recorder) -> dict:
        # The SDK sends a plain dict unchecked, so this goes out as `{"result": {"foo": 1}}`.
        return {"foo": 1}

    async def scenario() -> None:
        async with warden(home, malformed) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            sent = [m for m in w.recorder.raw_out if m.get("id") in w.recorder.request_ids]
            assert [m.get("result") for m in sent] == [{"foo": 1}]
            assert turn.stop_reason == "end_turn"
            [call_id] = turn.call_ids()
            assert turn.statuses()[call_id] == ["pending", "failed"]
            assert turn.message().startswith("- terminal: denied")
            assert not (project / "a").exists()

    run(scenario())


def test_error_response_is_a_denial(home: Path, project: Path) -> None:
    async def error(_request: dict, _recorder: Recorder) -> dict:
        raise RequestError(-32603, "the dialog crashed")

    async def scenario() -> None:
        async with warden(home, error) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            sent = [m for m in w.recorder.raw_out if m.get("id") in w.recorder.request_ids]
            assert [m["error"]["code"] for m in sent] == [-32603]
            assert turn.stop_reason == "end_turn"
            [call_id] = turn.call_ids()
            assert turn.statuses()[call_id] == ["pending", "failed"]
            assert turn.message().startswith("- terminal: denied")
            assert not (project / "a").exists()

    run(scenario())


def test_timeout_withdraws_the_request_and_fails_the_call(home: Path, project: Path) -> None:
    (home / "policy.toml").write_text("approval_timeout_secs = 1\n")

    async def scenario() -> None:
        async with warden(home, until_withdrawn) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            assert turn.stop_reason == "end_turn"
            [call_id] = turn.call_ids()
            assert turn.statuses()[call_id] == ["pending", "failed"]
            assert turn.message() == "- terminal: timed out"
            assert not (project / "a").exists()
            # The SDK does not surface `$/cancel_request`; the raw stream shows it names the
            # permission request that was never answered.
            [withdrawn] = w.recorder.cancel_requests_received()
            assert w.recorder.request_ids[withdrawn["params"]["requestId"]] == call_id

            # The late `cancelled` answer the client sent after the withdrawal is ignored.
            after = await w.prompt(sid, "/say still here")
            assert after.message() == "still here"

    run(scenario())


# --- batches and the _meta extension ---------------------------------------------------------


def test_batch_with_mixed_outcomes(home: Path, project: Path) -> None:
    choices = {"touch a": "allow-once", "touch b": "reject-once", "touch c": "allow-once"}

    async def all_at_once(request: dict, recorder: Recorder) -> object:
        # Answer only once all three requests are open: the batch is asked at once.
        future = recorder.pending_future(request["toolCall"]["toolCallId"])
        if len(recorder.permission_requests) == 3:
            for asked in recorder.permission_requests:
                response = selected(choices[asked["toolCall"]["rawInput"]["command"]])
                recorder.pending_future(asked["toolCall"]["toolCallId"]).set_result(response)
        return await future

    async def scenario() -> None:
        async with warden(home, all_at_once) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, "\n".join([touch("a"), touch("b"), touch("c")]))
            assert turn.stop_reason == "end_turn"
            assert len(turn.permission_requests) == 3
            by_input = {
                r["toolCall"]["rawInput"]["command"]: r["toolCall"]["toolCallId"] for r in turn.permission_requests
            }
            assert turn.final_status(by_input["touch a"]) == "completed"
            assert turn.final_status(by_input["touch b"]) == "failed"
            assert turn.final_status(by_input["touch c"]) == "completed"
            assert turn.message().splitlines() == [
                "- terminal: completed",
                "- terminal: denied (User denied tool invocation)",
                "- terminal: completed",
            ]
            assert sorted(p.name for p in project.iterdir()) == ["a", "c"]

    run(scenario())


def test_edited_input_runs_the_edited_command(home: Path, project: Path) -> None:
    edit = {"warden": {"editedInput": {"command": "touch edited"}}}

    async def scenario() -> None:
        async with warden(home, always("allow-once", edit)) as w:
            assert w.initialize["agentCapabilities"]["_meta"]["warden"]["permissionResponseMeta"]["editedInput"]
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("original"))
            assert turn.stop_reason == "end_turn"
            [call_id] = turn.call_ids()
            assert turn.final_status(call_id) == "completed"
            edited = [u for u in turn.updates if u.get("sessionUpdate") == "tool_call_update" and "rawInput" in u]
            assert [u["rawInput"] for u in edited] == [{"command": "touch edited"}]
            assert turn.message() == "- terminal: completed"
            assert (project / "edited").exists()
            assert not (project / "original").exists()

    run(scenario())


def test_note_on_a_denial_reaches_the_final_message(home: Path, project: Path) -> None:
    note = {"warden": {"note": "use the staging database instead"}}

    async def scenario() -> None:
        async with warden(home, always("reject-once", note)) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(sid, touch("a"))
            [call_id] = turn.call_ids()
            assert turn.final_status(call_id) == "failed"
            assert turn.message() == "- terminal: denied (User denied tool invocation: use the staging database instead)"
            assert not (project / "a").exists()

    run(scenario())


# --- modes -----------------------------------------------------------------------------------


def mode_updates(updates: list[dict]) -> list[str]:
    return [u["currentModeId"] for u in updates if u.get("sessionUpdate") == "current_mode_update"]


def test_read_only_mode_denies_a_write_unasked(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, never_asked()) as w:
            sid = await w.new_session(project)
            await w.set_mode(sid, "read-only")
            assert mode_updates(w.recorder.updates) == ["read-only"]
            turn = await w.prompt(sid, call("fs_write", {"path": "w.txt", "content": "hi"}))
            assert_denied_unasked(turn, "fs_write")
            assert not (project / "w.txt").exists()

    run(scenario())


def test_auto_approve_mode_runs_a_medium_risk_call_unasked(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, never_asked()) as w:
            sid = await w.new_session(project)
            await w.set_mode(sid, "auto-approve")
            assert mode_updates(w.recorder.updates) == ["auto-approve"]
            turn = await w.prompt(sid, touch("a"))
            assert_ran_unasked(turn, "terminal")
            assert (project / "a").exists()

    run(scenario())


def test_auto_deny_mode_denies_unasked(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, never_asked()) as w:
            sid = await w.new_session(project)
            await w.set_mode(sid, "auto-deny")
            assert mode_updates(w.recorder.updates) == ["auto-deny"]
            turn = await w.prompt(sid, touch("a"))
            assert_denied_unasked(turn, "terminal")
            assert not (project / "a").exists()

    run(scenario())


def test_accept_edits_mode_writes_inside_the_workspace_unasked(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, never_asked()) as w:
            sid = await w.new_session(project)
            await w.set_mode(sid, "accept-edits")
            assert mode_updates(w.recorder.updates) == ["accept-edits"]
            turn = await w.prompt(sid, call("fs_write", {"path": "w.txt", "content": "hello"}))
            assert_ran_unasked(turn, "fs_write")
            assert (project / "w.txt").read_text() == "hello"

    run(scenario())


# --- the editor's file system and terminals --------------------------------------------------


def test_editor_fs_and_terminal_carry_the_allowed_calls(home: Path, project: Path) -> None:
    async def scenario() -> None:
        async with warden(home, always("allow-once"), editor=True) as w:
            sid = await w.new_session(project)
            turn = await w.prompt(
                sid, "\n".join([touch("a"), call("fs_write", {"path": "w.txt", "content": "hello"})])
            )
            assert turn.stop_reason == "end_turn"
            assert len(turn.permission_requests) == 2
            assert turn.message().splitlines() == ["- terminal: completed", "- fs_write: completed"]
            by_tool = {u["toolCallId"]: u["kind"] for u in turn.updates if u.get("sessionUpdate") == "tool_call"}
            [term_call] = [c for c, k in by_tool.items() if k == "execute"]
            [write_call] = [c for c, k in by_tool.items() if k == "edit"]
            assert turn.final_status(term_call) == "completed"
            assert turn.final_status(write_call) == "completed"

            calls = w.recorder.editor_calls
            # The command ran in the editor's terminal, in the project, and was released.
            [created] = [p for m, p in calls if m == "terminal/create"]
            assert created["cwd"] == str(project)
            assert (project / "a").exists()
            [terminal_id] = w.recorder.terminals
            assert ("terminal/release", {"terminalId": terminal_id}) in calls
            embedded = [
                c
                for u in turn.updates
                if u.get("toolCallId") == term_call
                for c in u.get("content", [])
                if c.get("type") == "terminal"
            ]
            assert embedded and all(c["terminalId"] == terminal_id for c in embedded)
            # The write went through the editor, with an absolute path.
            writes = [p for m, p in calls if m == "fs/write_text_file"]
            assert writes == [{"path": str(project / "w.txt"), "content": "hello"}]
            assert (project / "w.txt").read_text() == "hello"

    run(scenario())
