// Stored sessions through the official TypeScript ACP SDK client (docs/sessions.md): a session
// outlives its Warden, `session/load` replays it, `session/resume` restores it without a
// replay, `session/list` finds it by `cwd`, and `session/close` frees it without deleting it.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";

import { always, TURN_TIMEOUT_MS, within, withWarden } from "./harness.mjs";

const appendLine = `/call terminal ${JSON.stringify({ command: "echo line >> out.txt" })}`;
const notCommands = (updates) => updates.filter((u) => u.sessionUpdate !== "available_commands_update");

describe("stored sessions through the TypeScript SDK", { timeout: 60_000 }, () => {
  let root;
  let home;
  let project;
  const lines = () => {
    const out = join(project, "out.txt");
    return existsSync(out) ? readFileSync(out, "utf8").split("\n").filter(Boolean).length : 0;
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "warden-interop-"));
    home = join(root, "warden-home");
    project = join(root, "project");
    mkdirSync(home);
    mkdirSync(project);
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test("a session is loaded with its replay, resumed, listed and closed across restarts", async () => {
    const session = await withWarden(home, always("allow-once"), async (w) => {
      const caps = w.initialize.agentCapabilities;
      assert.equal(caps.loadSession, true);
      for (const c of ["list", "resume", "close"]) assert.ok(c in caps.sessionCapabilities, c);
      const id = await w.newSession(project);
      const turn = await w.prompt(id, appendLine);
      assert.equal(turn.stopReason, "end_turn");
      return id;
    });
    assert.equal(lines(), 1);

    await withWarden(home, always("reject-once"), async (w) => {
      const listed = await within(w.agent.request("session/list", { cwd: project }), TURN_TIMEOUT_MS, "session/list");
      assert.deepEqual(listed.sessions.map((s) => s.sessionId), [session]);
      const before = w.recorder.updates.length;
      await within(
        w.agent.request("session/load", { sessionId: session, cwd: project, mcpServers: [] }),
        TURN_TIMEOUT_MS,
        "session/load",
      );
      const replay = notCommands(w.recorder.updates.slice(before)).map((u) => [u.sessionUpdate, u.status ?? null]);
      assert.deepEqual(replay, [
        ["user_message_chunk", null],
        ["tool_call", "completed"],
        ["agent_message_chunk", null],
      ]);
      const turn = await w.prompt(session, "/say and now?");
      assert.ok(turn.message().includes("and now?"), turn.message());
      await within(w.agent.request("session/close", { sessionId: session }), TURN_TIMEOUT_MS, "session/close");
    });
    assert.equal(lines(), 1);

    await withWarden(home, always("reject-once"), async (w) => {
      const before = w.recorder.updates.length;
      await within(w.agent.request("session/resume", { sessionId: session, cwd: project }), TURN_TIMEOUT_MS, "session/resume");
      assert.deepEqual(notCommands(w.recorder.updates.slice(before)), []);
      const turn = await w.prompt(session, "/say still here");
      assert.equal(turn.stopReason, "end_turn");
    });
    assert.equal(lines(), 1);
  });
});
