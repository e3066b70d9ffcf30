"""Drives Warden through the official Python ACP SDK (`agent-client-protocol` on PyPI).

The SDK's `spawn_agent_process` starts the real binary and gives a `ClientSideConnection`;
`Recorder` is the SDK `Client` implementation that the agent calls back into. Each scenario
passes an `answer` coroutine that decides what the "user" says to a permission request.

Everything the agent sends is recorded twice: typed, through the SDK's own handlers (which
proves the SDK parses Warden's messages), and raw, through a stream observer (for what the
SDK does not surface, such as `$/cancel_request` and JSON-RPC ids).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    TextContentBlock,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

# Every wait is bounded, so a Warden that hangs fails the test instead of the CI job.
TURN_TIMEOUT_SECS = 20.0

REPO_ROOT = Path(__file__).resolve().parents[3]


def warden_bin() -> str:
    """The binary under test: `$WARDEN_BIN`, else `target/debug/warden` of this repository."""
    path = Path(os.environ.get("WARDEN_BIN", REPO_ROOT / "target" / "debug" / "warden"))
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"warden binary not found or not executable: {path} (set WARDEN_BIN)")
    return str(path)


def dump(model: Any) -> Any:
    """A pydantic model as the JSON the wire carries (camelCase, no unset fields)."""
    if hasattr(model, "model_dump"):
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return model


# An answer gets the permission request (as wire JSON) and the recorder, and returns what the
# client responds: an SDK response model, a raw dict (to send something malformed), or it
# raises `RequestError` (to send an error response).
Answer = Callable[[dict[str, Any], "Recorder"], Awaitable[Any]]


def selected(option_id: str, meta: dict[str, Any] | None = None) -> RequestPermissionResponse:
    """The response that picks `option_id`, with an optional `_meta` object."""
    return RequestPermissionResponse(
        outcome=AllowedOutcome(outcome="selected", option_id=option_id),
        field_meta=meta,
    )


def cancelled() -> RequestPermissionResponse:
    """The `cancelled` outcome, which the spec requires for requests pending at a cancel."""
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def always(option_id: str, meta: dict[str, Any] | None = None) -> Answer:
    """An answer that picks the same option for every request."""

    async def answer(_request: dict[str, Any], _recorder: Recorder) -> Any:
        return selected(option_id, meta)

    return answer


def by_command(choices: dict[str, str]) -> Answer:
    """An answer that picks an option by the terminal command of the call."""

    async def answer(request: dict[str, Any], _recorder: Recorder) -> Any:
        return selected(choices[request["toolCall"]["rawInput"]["command"]])

    return answer


def never_asked() -> Answer:
    """An answer for scenarios that must not ask: it records the request and refuses it."""

    async def answer(_request: dict[str, Any], _recorder: Recorder) -> Any:
        return selected("reject-once")

    return answer


async def until_withdrawn(request: dict[str, Any], recorder: Recorder) -> Any:
    """Never answers by itself; answers `cancelled` once the agent withdraws the request.

    That is what an editor does when `$/cancel_request` names an open dialog: it closes it.
    """
    return await recorder.pending_future(request["toolCall"]["toolCallId"])


@dataclass
class Recorder:
    """The SDK `Client`: records what the agent sends and answers permission requests."""

    answer: Answer
    updates: list[dict[str, Any]] = field(default_factory=list)
    permission_requests: list[dict[str, Any]] = field(default_factory=list)
    raw_in: list[dict[str, Any]] = field(default_factory=list)
    raw_out: list[dict[str, Any]] = field(default_factory=list)
    # JSON-RPC id of each permission request -> its tool call id (from the raw stream).
    request_ids: dict[Any, str] = field(default_factory=dict)
    pending: dict[str, asyncio.Future[Any]] = field(default_factory=dict)
    asked: asyncio.Event = field(default_factory=asyncio.Event)
    # Set on every session/update (see `until_update`).
    updated: asyncio.Event = field(default_factory=asyncio.Event)
    # Calls of the editor methods, as (method, params), in order.
    editor_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    terminals: dict[str, Any] = field(default_factory=dict)

    # --- the SDK's Client interface -------------------------------------------------------

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any) -> Any:
        request = {"sessionId": session_id, "toolCall": dump(tool_call), "options": [dump(o) for o in options]}
        if kwargs:
            request["_meta"] = kwargs
        self.permission_requests.append(request)
        self.asked.set()
        return await self.answer(request, self)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(dump(update))
        self.updated.set()

    async def until_update(self, wanted: Any, since: int = 0) -> dict[str, Any]:
        """The first update from index `since` on for which `wanted` is true, waiting for it."""
        while True:
            self.updated.clear()
            for update in self.updates[since:]:
                if wanted(update):
                    return update
            await self.updated.wait()

    # The editor's file system and terminals, used only when `warden(editor=True)` advertises
    # them. They act on the real disk, so a scenario checks the effect as for local tools.

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        self.editor_calls.append(("fs/write_text_file", {"path": path, "content": content}))
        Path(path).write_text(content)
        return WriteTextFileResponse()

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> Any:
        self.editor_calls.append(("fs/read_text_file", {"path": path}))
        try:
            lines = Path(path).read_text().splitlines(keepends=True)
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None
        start = (line or 1) - 1
        end = None if limit is None else start + limit
        return ReadTextFileResponse(content="".join(lines[start:end]))

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> Any:
        self.editor_calls.append(("terminal/create", {"command": command, "args": args or [], "cwd": cwd}))
        process = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = (process, asyncio.ensure_future(process.stdout.read()))
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.editor_calls.append(("terminal/wait_for_exit", {"terminalId": terminal_id}))
        process, _ = self.terminals[terminal_id]
        code = await process.wait()
        return WaitForTerminalExitResponse(exit_code=code if code >= 0 else None)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.editor_calls.append(("terminal/output", {"terminalId": terminal_id}))
        process, output = self.terminals[terminal_id]
        if process.returncode is None:
            return TerminalOutputResponse(output="", truncated=False)
        text = (await output).decode(errors="replace")
        code = process.returncode
        status = TerminalExitStatus(exit_code=code if code >= 0 else None)
        return TerminalOutputResponse(output=text, truncated=False, exit_status=status)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.editor_calls.append(("terminal/kill", {"terminalId": terminal_id}))
        process, _ = self.terminals[terminal_id]
        if process.returncode is None:
            process.kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.editor_calls.append(("terminal/release", {"terminalId": terminal_id}))
        process, _ = self.terminals[terminal_id]
        if process.returncode is None:
            process.kill()
        await process.wait()
        return ReleaseTerminalResponse()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None

    # --- raw stream observation ------------------------------------------------------------

    def observe(self, event: StreamEvent) -> None:
        message = event.message
        if event.direction == StreamDirection.OUTGOING:
            self.raw_out.append(message)
            return
        self.raw_in.append(message)
        if message.get("method") == "session/request_permission" and "id" in message:
            self.request_ids[message["id"]] = message["params"]["toolCall"]["toolCallId"]
        if message.get("method") == "$/cancel_request":
            # SDK 0.12.1 has no handler for `$/cancel_request` (it logs "method not found"),
            # so the client dismisses the matching dialog here, as an editor would.
            call_id = self.request_ids.get((message.get("params") or {}).get("requestId"))
            future = self.pending.get(call_id) if call_id else None
            if future is not None and not future.done():
                future.set_result(cancelled())

    # --- helpers for scenarios -------------------------------------------------------------

    def pending_future(self, call_id: str) -> asyncio.Future[Any]:
        future = self.pending.get(call_id)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self.pending[call_id] = future
        return future

    def answer_all_pending(self, response: Any) -> None:
        for future in self.pending.values():
            if not future.done():
                future.set_result(response)

    def cancel_requests_received(self) -> list[dict[str, Any]]:
        return [m for m in self.raw_in if m.get("method") == "$/cancel_request"]


@dataclass
class Turn:
    """What one `session/prompt` produced."""

    stop_reason: str
    updates: list[dict[str, Any]]
    permission_requests: list[dict[str, Any]]

    def statuses(self) -> dict[str, list[str]]:
        """Each tool call's statuses in order; a `tool_call` without one counts as `pending`."""
        out: dict[str, list[str]] = {}
        for update in self.updates:
            kind = update.get("sessionUpdate")
            if kind == "tool_call":
                out.setdefault(update["toolCallId"], []).append(update.get("status", "pending"))
            elif kind == "tool_call_update" and "status" in update:
                out.setdefault(update["toolCallId"], []).append(update["status"])
        return out

    def final_status(self, call_id: str) -> str:
        return self.statuses()[call_id][-1]

    def call_ids(self) -> list[str]:
        return [u["toolCallId"] for u in self.updates if u.get("sessionUpdate") == "tool_call"]

    def message(self) -> str:
        """The agent's reply text of this turn."""
        return "".join(
            u["content"]["text"]
            for u in self.updates
            if u.get("sessionUpdate") == "agent_message_chunk" and u["content"].get("type") == "text"
        )


@dataclass
class Warden:
    """One running Warden process and the SDK connection to it."""

    conn: Any
    process: Any
    recorder: Recorder
    initialize: dict[str, Any]

    async def new_session(self, cwd: Path, mcp_servers: list[Any] | None = None) -> str:
        response = await asyncio.wait_for(
            self.conn.new_session(cwd=str(cwd), mcp_servers=mcp_servers or []), TURN_TIMEOUT_SECS
        )
        return response.session_id

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        await asyncio.wait_for(self.conn.set_session_mode(session_id=session_id, mode_id=mode_id), TURN_TIMEOUT_SECS)

    async def prompt(self, session_id: str, text: str) -> Turn:
        """Sends one prompt and returns what the turn produced once it has ended."""
        updates_before = len(self.recorder.updates)
        asks_before = len(self.recorder.permission_requests)
        self.recorder.asked.clear()
        response = await asyncio.wait_for(
            self.conn.prompt(session_id=session_id, prompt=[TextContentBlock(type="text", text=text)]),
            TURN_TIMEOUT_SECS,
        )
        return Turn(
            stop_reason=response.stop_reason,
            updates=self.recorder.updates[updates_before:],
            permission_requests=self.recorder.permission_requests[asks_before:],
        )

    def start_prompt(self, session_id: str, text: str) -> asyncio.Task[Turn]:
        """Starts a prompt without waiting for it (for cancelling it mid-turn)."""
        return asyncio.create_task(self.prompt(session_id, text))


@asynccontextmanager
async def warden(
    home: Path, answer: Answer, *, editor: bool = False, killed: bool = False
) -> AsyncIterator[Warden]:
    """Starts Warden with `home` as WARDEN_HOME and an empty managed policy, and initializes it.

    With `editor`, the client advertises its file system and terminals, and Warden's file tools
    and commands go through it instead of running locally. With `killed`, the scenario kills
    the process itself, and its exit status is not checked.

    Only a trimmed environment (the SDK's default: HOME, PATH, ...) plus Warden's own variables
    reaches the process, so nothing of the developer's configuration leaks in.
    """
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "WARDEN_HOME": str(home),
        "WARDEN_MANAGED_POLICY": str(home / "no-managed-policy.toml"),
        "WARDEN_MODEL": "scripted",
        "RUST_LOG": "warn",
    }
    recorder = Recorder(answer=answer)
    with open(home / "warden-stderr.log", "ab") as stderr:
        async with spawn_agent_process(
            recorder,
            warden_bin(),
            "acp",
            env=env,
            transport_kwargs={"stderr": stderr},
            observers=[recorder.observe],
        ) as (conn, process):
            init = await asyncio.wait_for(
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=ClientCapabilities(
                        fs=FileSystemCapabilities(read_text_file=editor, write_text_file=editor),
                        terminal=editor,
                    ),
                    client_info=Implementation(name="warden-interop-python", version="0"),
                ),
                TURN_TIMEOUT_SECS,
            )
            yield Warden(conn=conn, process=process, recorder=recorder, initialize=dump(init))
    # Reached only when the scenario passed. The SDK closed stdin and waited (then terminated
    # the process after 2 s): Warden must have exited by itself, cleanly.
    assert killed or process.returncode == 0, (
        f"warden exited with {process.returncode} after its stdin closed (log: {home / 'warden-stderr.log'})"
    )
