"""A tiny ACP agent that is not Warden, on the official Python SDK, for `warden chat --agent`.

A prompt `touch NAME` proposes one tool call that creates NAME in the session's folder, asks
the client with `session/request_permission` (its own option ids and labels), and creates the
file only when an allow option was selected. `touch-critical NAME` does the same but marks
the call Critical the way Warden does (`_meta.warden.risk`). `fail` answers the prompt with an
error. `touch-many A B …` proposes one call per name and asks about all of them at once
(the requests are open together, as an agent's batch is). It offers `session/load`: loading a
session replays one message that names it, and loading `toy-asks` asks about creating
`loaded.txt` before it answers. Anything else is echoed back.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, run_agent
from acp.helpers import start_tool_call, text_block, update_agent_message, update_tool_call
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
)


class ToyAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.cwd: dict[str, Path] = {}
        self.calls = 0

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(load_session=True),
            agent_info=Implementation(name="toy-agent", title="Toy Agent", version="0.0.1"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        session_id = f"toy-{len(self.cwd) + 1}"
        self.cwd[session_id] = Path(cwd)
        return NewSessionResponse(session_id=session_id)

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> LoadSessionResponse:
        self.cwd[session_id] = Path(cwd)
        await self.say(session_id, f"resumed {session_id}\n")
        if session_id == "toy-asks":
            # A call that was waiting for approval when the session was stored, asked again.
            chosen = await self.touch(session_id, "loaded.txt", {})
            await self.say(session_id, f"loaded.txt: {chosen or 'cancelled'}\n")
        return LoadSessionResponse()

    async def touch(self, session_id: str, name: str, meta: dict[str, Any]) -> str | None:
        """Proposes creating NAME, asks, creates it when allowed; returns the option chosen."""
        self.calls += 1
        call_id = f"toy_call_{self.calls}"
        title = f"Create {name}"
        await self.conn.session_update(
            session_id=session_id,
            update=start_tool_call(call_id, title, kind="edit", status="pending", raw_input={"name": name}),
        )
        response = await self.conn.request_permission(
            session_id=session_id,
            tool_call=ToolCallUpdate(tool_call_id=call_id, title=title, raw_input={"name": name}),
            options=[
                PermissionOption(option_id="toy-yes", name="Yes, once", kind="allow_once"),
                PermissionOption(option_id="toy-always", name="Yes, always", kind="allow_always"),
                PermissionOption(option_id="toy-no", name="No", kind="reject_once"),
            ],
            **meta,
        )
        chosen = getattr(response.outcome, "option_id", None)
        if chosen in ("toy-yes", "toy-always"):
            (self.cwd[session_id] / name).write_text("made by the toy agent\n")
            await self.conn.session_update(session_id=session_id, update=update_tool_call(call_id, status="completed"))
        else:
            await self.conn.session_update(session_id=session_id, update=update_tool_call(call_id, status="failed"))
        return chosen

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id=session_id, update=update_agent_message(text_block(text)))

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt).strip()
        verb, _, name = text.partition(" ")
        if text == "fail":
            raise RequestError.internal_error({"reason": "the toy agent fails on request"})
        if verb == "touch-many" and name:
            names = name.split()
            chosen = await asyncio.gather(*(self.touch(session_id, n, {}) for n in names))
            await self.say(session_id, ", ".join(f"{n}: {c or 'cancelled'}" for n, c in zip(names, chosen)) + "\n")
            return PromptResponse(stop_reason="end_turn")
        if verb not in ("touch", "touch-critical") or not name:
            await self.say(session_id, f"echo: {text}")
            return PromptResponse(stop_reason="end_turn")
        self.calls += 1
        call_id = f"toy_call_{self.calls}"
        title = f"Create {name}"
        await self.conn.session_update(
            session_id=session_id,
            update=start_tool_call(call_id, title, kind="edit", status="pending", raw_input={"name": name}),
        )
        meta = {"warden": {"risk": "critical", "reason": "a toy call marked Critical"}} if verb == "touch-critical" else {}
        response = await self.conn.request_permission(
            session_id=session_id,
            tool_call=ToolCallUpdate(tool_call_id=call_id, title=title, raw_input={"name": name}),
            options=[
                PermissionOption(option_id="toy-yes", name="Yes, once", kind="allow_once"),
                PermissionOption(option_id="toy-always", name="Yes, always", kind="allow_always"),
                PermissionOption(option_id="toy-no", name="No", kind="reject_once"),
            ],
            **meta,
        )
        chosen = getattr(response.outcome, "option_id", None)
        if chosen in ("toy-yes", "toy-always"):
            (self.cwd[session_id] / name).write_text("made by the toy agent\n")
            await self.conn.session_update(session_id=session_id, update=update_tool_call(call_id, status="completed"))
            await self.say(session_id, f"created {name}")
        else:
            await self.conn.session_update(session_id=session_id, update=update_tool_call(call_id, status="failed"))
            await self.say(session_id, f"not created: {chosen or 'cancelled'}")
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


if __name__ == "__main__":
    asyncio.run(run_agent(ToyAgent()))
