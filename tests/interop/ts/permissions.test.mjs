// Warden's permission flow, driven by the official TypeScript ACP SDK client.
//
// Each test is one scenario of docs/contract.md (sections 3-5): it prompts the scripted model with
// `/call` lines, answers the permission requests the way a user would, and asserts what can
// be observed: the prompt's stopReason, the tool call statuses, the agent's final message,
// and the files created (or not) in the project folder.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";

import { RequestError } from "@agentclientprotocol/sdk";

import { always, byCommand, cancelled, neverAsked, selected, untilWithdrawn, within, withWarden } from "./harness.mjs";

const call = (tool, args) => `/call ${tool} ${JSON.stringify(args)}`;
const touch = (name) => call("terminal", { command: `touch ${name}` });
const optionIds = (request) => request.options.map((o) => o.optionId);
const modeUpdates = (updates) => updates.filter((u) => u.sessionUpdate === "current_mode_update").map((u) => u.currentModeId);

// The turn's one call ran without a permission request and completed.
function assertRanUnasked(turn, tool) {
  assert.deepEqual(turn.permissionRequests, []);
  assert.deepEqual(Object.values(turn.statuses()), [["pending", "in_progress", "completed"]]);
  assert.equal(turn.message(), `- ${tool}: completed`);
}

// The turn's one call was denied without a permission request.
function assertDeniedUnasked(turn, tool) {
  assert.deepEqual(turn.permissionRequests, []);
  assert.deepEqual(Object.values(turn.statuses()), [["pending", "failed"]]);
  assert.ok(turn.message().startsWith(`- ${tool}: denied`), turn.message());
}

const TEST_TIMEOUT_MS = 60_000;

describe("warden permissions through the TypeScript SDK", { timeout: TEST_TIMEOUT_MS }, () => {
  let root;
  let home;
  let project;
  const inProject = (name) => join(project, name);

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

  // --- allow ---------------------------------------------------------------------------------

  test("allow once runs the call and asks again next time", async () => {
    await withWarden(home, byCommand({ "touch a": "allow-once", "touch b": "reject-once" }), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      assert.equal(turn.stopReason, "end_turn");
      assert.equal(turn.permissionRequests.length, 1);
      const [request] = turn.permissionRequests;
      assert.deepEqual(optionIds(request), ["allow-once", "allow-session", "allow-project", "reject-once", "reject-and-stop", "reject-project"]);
      assert.deepEqual(request.toolCall.rawInput, { command: "touch a" });
      const [callId] = turn.callIds();
      assert.equal(request.toolCall.toolCallId, callId);
      assert.deepEqual(turn.statuses()[callId], ["pending", "in_progress", "completed"]);
      assert.equal(turn.message(), "- terminal: completed");
      assert.ok(existsSync(inProject("a")));

      // allow-once stores nothing: the next matching call asks again.
      const again = await w.prompt(sid, touch("b"));
      assert.equal(again.permissionRequests.length, 1);
      assert.ok(!existsSync(inProject("b")));
    });
  });

  test("allow for the session runs later matching calls unasked", async () => {
    await withWarden(home, byCommand({ "touch a": "allow-session", "touch c": "reject-once" }), async (w) => {
      const sid = await w.newSession(project);
      const first = await w.prompt(sid, touch("a"));
      assert.equal(first.permissionRequests.length, 1);
      assert.ok(existsSync(inProject("a")));

      // A command that changes files is granted exactly: the same one runs unasked.
      rmSync(inProject("a"));
      const second = await w.prompt(sid, touch("a"));
      assertRanUnasked(second, "terminal");
      assert.equal(second.stopReason, "end_turn");
      assert.ok(existsSync(inProject("a")));

      // The grant is the session's: another session of the same process still asks.
      const other = await w.newSession(project);
      const third = await w.prompt(other, touch("c"));
      assert.equal(third.permissionRequests.length, 1);
      assert.ok(!existsSync(inProject("c")));
    });
  });

  test("allow for the project survives a restart", async () => {
    await withWarden(home, always("allow-project"), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      assert.equal(turn.permissionRequests.length, 1);
      // Without session notices, the stored grant is told in the agent's text.
      assert.equal(
        turn.message(),
        '\n\n**Grant stored: exactly "touch a" is allowed in this project**: `/grants` lists what is stored, `/revoke ID` removes it.\n\n- terminal: completed',
      );
      assert.ok(existsSync(inProject("a")));
    });
    rmSync(inProject("a"));
    await withWarden(home, neverAsked(), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      assert.deepEqual(turn.permissionRequests, []);
      assert.equal(turn.message(), "- terminal: completed");
      assert.ok(existsSync(inProject("a")));
    });
  });

  test("a critical call offers only once options", async () => {
    await withWarden(home, always("reject-once"), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, call("terminal", { command: "sudo touch a" }));
      assert.equal(turn.permissionRequests.length, 1);
      const [request] = turn.permissionRequests;
      // Reject first: a client whose cursor starts on the first option never runs it by a
      // bare Enter.
      assert.deepEqual(optionIds(request), ["reject-once", "reject-and-stop", "allow-once"]);
      assert.deepEqual(request.options.map((o) => o.kind), ["reject_once", "reject_once", "allow_once"]);
      assert.match(request.toolCall.content[0].content.text, /^Critical: /);
      assert.equal(turn.message(), "- terminal: denied (User denied tool invocation)");
      assert.ok(!existsSync(inProject("a")));
    });
  });

  test("a write is asked with its diff and risk in view", async () => {
    await withWarden(home, always("reject-once"), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, call("fs_write", { path: "notes.txt", content: "hello\n" }));
      assert.equal(turn.permissionRequests.length, 1);
      const [request] = turn.permissionRequests;
      const [diff, risk] = request.toolCall.content;
      assert.equal(diff.type, "diff");
      assert.equal(diff.path, inProject("notes.txt"));
      assert.equal(diff.oldText ?? null, null);
      assert.equal(diff.newText, "hello\n");
      assert.match(risk.content.text, /^Medium: writes /);
      assert.equal(request.options[1].name, "Always allow fs_write on notes.txt in this session");
      // On the wire: the first notification names its status, and a new file's oldText is null.
      const [raw] = w.recorder.rawIn
        .filter((m) => m.method === "session/update" && m.params.update.sessionUpdate === "tool_call")
        .map((m) => m.params.update);
      assert.equal(raw.status, "pending");
      assert.ok("oldText" in raw.content[0] && raw.content[0].oldText === null, JSON.stringify(raw));
      assert.ok(!existsSync(inProject("notes.txt")));
    });
  });

  test("the commands arrive, and Warden's own are answered without the model", async () => {
    await withWarden(home, neverAsked(), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, "/grants");
      assert.equal(turn.stopReason, "end_turn");
      assert.equal(turn.message(), "No grants apply here: calls are decided by the policy and the session mode `ask`.");
      const listed = w.recorder.updates.filter((u) => u.sessionUpdate === "available_commands_update");
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0].availableCommands.map((c) => c.name), ["call", "say", "grants", "revoke", "why", "mode", "tools"]);
    });
  });

  // --- reject --------------------------------------------------------------------------------

  test("reject once does not run the call", async () => {
    await withWarden(home, always("reject-once"), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      assert.equal(turn.stopReason, "end_turn");
      assert.equal(turn.permissionRequests.length, 1);
      const [callId] = turn.callIds();
      assert.deepEqual(turn.statuses()[callId], ["pending", "failed"]);
      assert.equal(turn.message(), "- terminal: denied (User denied tool invocation)");
      assert.ok(!existsSync(inProject("a")));
    });
  });

  test("reject for the project denies a later call unasked", async () => {
    await withWarden(home, byCommand({ "touch a": "reject-project", "touch b": "allow-once" }), async (w) => {
      const sid = await w.newSession(project);
      const first = await w.prompt(sid, touch("a"));
      assert.equal(first.permissionRequests.length, 1);
      assert.ok(first.message().startsWith('\n\n**Grant stored: exactly "touch a" is denied in this project**'), first.message());
      assert.match(first.message(), /\n\n- terminal: denied/);
      assert.ok(!existsSync(inProject("a")));

      const second = await w.prompt(sid, touch("a"));
      assertDeniedUnasked(second, "terminal");
      assert.ok(!existsSync(inProject("a")));
    });
  });

  // --- cancel and fail-closed answers --------------------------------------------------------

  test("cancel while a permission request is pending", async () => {
    await withWarden(home, untilWithdrawn, async (w) => {
      const sid = await w.newSession(project);
      const turnPromise = w.prompt(sid, touch("a"));
      await within(w.recorder.asked(), 20_000, "the permission request");
      // The user presses stop: the client cancels the turn and, as the spec requires,
      // answers every pending permission request with the `cancelled` outcome.
      await w.cancel(sid);
      w.recorder.answerAllPending(cancelled());
      const turn = await turnPromise;
      assert.equal(turn.stopReason, "cancelled");
      const [callId] = turn.callIds();
      assert.equal(turn.finalStatus(callId), "failed");
      assert.ok(!existsSync(inProject("a")));
      const ids = w.recorder.permissionRequestIds();
      const answers = w.recorder.rawOut.filter((m) => "result" in m && ids.has(m.id));
      assert.deepEqual(answers.map((a) => a.result.outcome), [{ outcome: "cancelled" }]);

      // The session is still usable after the cancelled turn.
      const after = await w.prompt(sid, "/say still here");
      assert.equal(after.stopReason, "end_turn");
      assert.equal(after.message(), "still here");
    });
  });

  // Nothing about a turn is sent after its `session/prompt` response. The spec's
  // cancellation rule says the same: the agent answers the prompt with `cancelled` only after
  // every ongoing operation of the turn was aborted, and withdrawing a pending permission
  // request (`$/cancel_request`) is one of them.
  test("nothing about a cancelled turn follows its prompt response", async () => {
    await withWarden(home, untilWithdrawn, async (w) => {
      const sid = await w.newSession(project);
      const turnPromise = w.prompt(sid, touch("a"));
      await within(w.recorder.asked(), 20_000, "the permission request");
      // A slow client: it cancels, but its dialog answers `cancelled` only after the turn has
      // ended (or once the agent withdraws the request), which makes the order of Warden's
      // messages deterministic here.
      await w.cancel(sid);
      const turn = await turnPromise;
      w.recorder.answerAllPending(cancelled());
      assert.equal(turn.stopReason, "cancelled");
      // A later turn that has ended bounds what Warden could still send about the first.
      await w.prompt(sid, "/say still here");

      const [promptId] = w.recorder.rawOut.filter((m) => m.method === "session/prompt").map((m) => m.id);
      const raw = w.recorder.rawIn;
      const responseAt = raw.findIndex((m) => m.id === promptId && !("method" in m));
      const askIds = w.recorder.permissionRequestIds();
      const turnCalls = new Set(turn.callIds());
      const late = raw
        .slice(responseAt + 1)
        .filter(
          (m) =>
            (m.method === "$/cancel_request" && askIds.has(m.params.requestId)) ||
            (m.method === "session/update" && turnCalls.has(m.params.update.toolCallId)),
        );
      assert.deepEqual(late, [], "sent after the cancelled turn's response");
    });
  });

  test("an unknown optionId is a denial", async () => {
    await withWarden(home, always("yes-please"), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      assert.equal(turn.stopReason, "end_turn");
      const [callId] = turn.callIds();
      assert.deepEqual(turn.statuses()[callId], ["pending", "failed"]);
      assert.match(turn.message(), /^- terminal: denied/);
      assert.ok(!existsSync(inProject("a")));
    });
  });

  test("a malformed answer without outcome is a denial", async () => {
    // The SDK does not check a handler's result, so this goes out as `{"result": {"foo": 1}}`.
    await withWarden(home, () => ({ foo: 1 }), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      const ids = w.recorder.permissionRequestIds();
      assert.deepEqual(w.recorder.rawOut.filter((m) => ids.has(m.id)).map((m) => m.result), [{ foo: 1 }]);
      assert.equal(turn.stopReason, "end_turn");
      const [callId] = turn.callIds();
      assert.deepEqual(turn.statuses()[callId], ["pending", "failed"]);
      assert.match(turn.message(), /^- terminal: denied/);
      assert.ok(!existsSync(inProject("a")));
    });
  });

  test("an error response is a denial", async () => {
    const fail = () => {
      throw RequestError.internalError({ details: "the dialog crashed" });
    };
    await withWarden(home, fail, async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      const ids = w.recorder.permissionRequestIds();
      assert.deepEqual(w.recorder.rawOut.filter((m) => ids.has(m.id)).map((m) => m.error?.code), [-32603]);
      assert.equal(turn.stopReason, "end_turn");
      const [callId] = turn.callIds();
      assert.deepEqual(turn.statuses()[callId], ["pending", "failed"]);
      assert.match(turn.message(), /^- terminal: denied/);
      assert.ok(!existsSync(inProject("a")));
    });
  });

  test("a timeout withdraws the request and fails the call", async () => {
    writeFileSync(join(home, "policy.toml"), "approval_timeout_secs = 1\n");
    await withWarden(home, untilWithdrawn, async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      assert.equal(turn.stopReason, "end_turn");
      const [callId] = turn.callIds();
      assert.deepEqual(turn.statuses()[callId], ["pending", "failed"]);
      assert.equal(turn.message(), "- terminal: timed out");
      assert.ok(!existsSync(inProject("a")));
      // `$/cancel_request` names the permission request that was never answered, and the SDK
      // turned it into an abort of the handler's signal with a -32800 "request cancelled".
      const [withdrawn] = w.recorder.cancelRequestsReceived();
      const [request] = turn.permissionRequests;
      assert.equal(withdrawn.params.requestId, request.jsonrpcId);
      assert.equal(w.recorder.aborted.length, 1);
      assert.equal(w.recorder.aborted[0].callId, callId);
      assert.equal(w.recorder.aborted[0].reason.code, -32800);

      // The late `cancelled` answer the client sent after the withdrawal is ignored.
      const after = await w.prompt(sid, "/say still here");
      assert.equal(after.message(), "still here");
    });
  });

  // --- batches and the _meta extension -------------------------------------------------------

  test("a batch with mixed outcomes", async () => {
    const choices = { "touch a": "allow-once", "touch b": "reject-once", "touch c": "allow-once" };
    // Answer only once all three requests are open: the batch is asked at once.
    const allAtOnce = async (ctx, recorder) => {
      await within(recorder.asked(3), 20_000, "all three permission requests");
      return selected(choices[ctx.params.toolCall.rawInput.command]);
    };
    await withWarden(home, allAtOnce, async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, [touch("a"), touch("b"), touch("c")].join("\n"));
      assert.equal(turn.stopReason, "end_turn");
      assert.equal(turn.permissionRequests.length, 3);
      const byInput = Object.fromEntries(turn.permissionRequests.map((r) => [r.toolCall.rawInput.command, r.toolCall.toolCallId]));
      assert.equal(turn.finalStatus(byInput["touch a"]), "completed");
      assert.equal(turn.finalStatus(byInput["touch b"]), "failed");
      assert.equal(turn.finalStatus(byInput["touch c"]), "completed");
      assert.deepEqual(turn.message().split("\n"), [
        "- terminal: completed",
        "- terminal: denied (User denied tool invocation)",
        "- terminal: completed",
      ]);
      assert.deepEqual(readdirSync(project).sort(), ["a", "c"]);
    });
  });

  test("edited input runs the edited command", async () => {
    const edit = { warden: { editedInput: { command: "touch edited" } } };
    await withWarden(home, always("allow-once", edit), async (w) => {
      assert.equal(w.initialize.agentCapabilities._meta.warden.permissionResponseMeta.editedInput, true);
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("original"));
      assert.equal(turn.stopReason, "end_turn");
      const [callId] = turn.callIds();
      assert.equal(turn.finalStatus(callId), "completed");
      const edited = turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.rawInput !== undefined);
      assert.deepEqual(edited.map((u) => u.rawInput), [{ command: "touch edited" }]);
      assert.equal(turn.message(), "- terminal: completed");
      assert.ok(existsSync(inProject("edited")));
      assert.ok(!existsSync(inProject("original")));
    });
  });

  test("a note on a denial reaches the final message", async () => {
    const note = { warden: { note: "use the staging database instead" } };
    await withWarden(home, always("reject-once", note), async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, touch("a"));
      const [callId] = turn.callIds();
      assert.equal(turn.finalStatus(callId), "failed");
      assert.equal(turn.message(), "- terminal: denied (User denied tool invocation: use the staging database instead)");
      assert.ok(!existsSync(inProject("a")));
    });
  });

  // --- modes ---------------------------------------------------------------------------------

  test("read-only mode denies a write unasked", async () => {
    await withWarden(home, neverAsked(), async (w) => {
      const sid = await w.newSession(project);
      await w.setMode(sid, "read-only");
      assert.deepEqual(modeUpdates(w.recorder.updates), ["read-only"]);
      const turn = await w.prompt(sid, call("fs_write", { path: "w.txt", content: "hi" }));
      assertDeniedUnasked(turn, "fs_write");
      assert.ok(!existsSync(inProject("w.txt")));
    });
  });

  test("auto-approve mode runs a medium-risk call unasked", async () => {
    await withWarden(home, neverAsked(), async (w) => {
      const sid = await w.newSession(project);
      await w.setMode(sid, "auto-approve");
      assert.deepEqual(modeUpdates(w.recorder.updates), ["auto-approve"]);
      const turn = await w.prompt(sid, touch("a"));
      assertRanUnasked(turn, "terminal");
      assert.ok(existsSync(inProject("a")));
    });
  });

  test("auto-deny mode denies unasked", async () => {
    await withWarden(home, neverAsked(), async (w) => {
      const sid = await w.newSession(project);
      await w.setMode(sid, "auto-deny");
      assert.deepEqual(modeUpdates(w.recorder.updates), ["auto-deny"]);
      const turn = await w.prompt(sid, touch("a"));
      assertDeniedUnasked(turn, "terminal");
      assert.ok(!existsSync(inProject("a")));
    });
  });

  test("accept-edits mode writes inside the workspace unasked", async () => {
    await withWarden(home, neverAsked(), async (w) => {
      const sid = await w.newSession(project);
      await w.setMode(sid, "accept-edits");
      assert.deepEqual(modeUpdates(w.recorder.updates), ["accept-edits"]);
      const turn = await w.prompt(sid, call("fs_write", { path: "w.txt", content: "hello" }));
      assertRanUnasked(turn, "fs_write");
      assert.equal(readFileSync(inProject("w.txt"), "utf8"), "hello");
    });
  });

  // --- the editor's file system and terminals ------------------------------------------------

  test("the editor's fs and terminal carry the allowed calls", async () => {
    const op = async (w) => {
      const sid = await w.newSession(project);
      const turn = await w.prompt(sid, [touch("a"), call("fs_write", { path: "w.txt", content: "hello" })].join("\n"));
      assert.equal(turn.stopReason, "end_turn");
      assert.equal(turn.permissionRequests.length, 2);
      assert.deepEqual(turn.message().split("\n"), ["- terminal: completed", "- fs_write: completed"]);
      const starts = turn.updates.filter((u) => u.sessionUpdate === "tool_call");
      const [termCall] = starts.filter((u) => u.kind === "execute").map((u) => u.toolCallId);
      const [writeCall] = starts.filter((u) => u.kind === "edit").map((u) => u.toolCallId);
      assert.equal(turn.finalStatus(termCall), "completed");
      assert.equal(turn.finalStatus(writeCall), "completed");

      const calls = w.recorder.editorCalls;
      // The command ran in the editor's terminal, in the project, and was released.
      const created = calls.filter(([m]) => m === "terminal/create").map(([, p]) => p);
      assert.equal(created.length, 1);
      assert.equal(created[0].cwd, project);
      assert.ok(existsSync(inProject("a")));
      const [terminalId] = [...w.recorder.terminals.keys()];
      assert.ok(calls.some(([m, p]) => m === "terminal/release" && p.terminalId === terminalId));
      const embedded = turn.updates
        .filter((u) => u.toolCallId === termCall)
        .flatMap((u) => u.content ?? [])
        .filter((c) => c.type === "terminal");
      assert.ok(embedded.length > 0);
      assert.ok(embedded.every((c) => c.terminalId === terminalId));
      // The write went through the editor, with an absolute path.
      const writes = calls.filter(([m]) => m === "fs/write_text_file").map(([, p]) => p);
      assert.deepEqual(writes, [{ path: inProject("w.txt"), content: "hello" }]);
      assert.equal(readFileSync(inProject("w.txt"), "utf8"), "hello");
    };
    await withWarden(home, always("allow-once"), op, { editor: true });
  });
});
