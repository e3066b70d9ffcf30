// Real third-party MCP servers (from npm) passed to Warden in session/new by the official
// TypeScript ACP SDK client: the reference "everything" server and the filesystem server,
// the first over stdio and over streamable HTTP, the second over stdio. Each call is asked about with the contract's MCP prompt (section 7) and
// its result reaches the tool call's content.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, test } from "node:test";

import { always, withWarden } from "./harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const serverScript = (name) => join(here, "node_modules", "@modelcontextprotocol", name, "dist", "index.js");
const call = (tool, args) => `/call ${tool} ${JSON.stringify(args)}`;

// The text of every content block of the call's last update that has content.
function resultText(turn) {
  const withContent = turn.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.content);
  const last = withContent[withContent.length - 1];
  return (last?.content ?? []).map((c) => c.content?.text ?? "").join("\n");
}

// A port nothing listens on now: bound by the system's choice, then let go.
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// server-everything over streamable HTTP on a free port, once it listens.
async function everythingOverHttp() {
  const port = await freePort();
  const child = spawn(process.execPath, [serverScript("server-everything"), "streamableHttp"], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let said = "";
  await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      said += chunk;
      if (said.includes("listening on port")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

describe("third-party MCP servers through the TypeScript SDK", { timeout: 120_000 }, () => {
  let root;
  let home;
  let project;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "warden-interop-mcp-"));
    home = join(root, "warden-home");
    project = join(root, "project");
    mkdirSync(home);
    mkdirSync(project);
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test("server-everything over stdio: asked with the MCP prompt, then its echo runs", async () => {
    await withWarden(home, always("allow-once"), async (w) => {
      const everything = { name: "everything", command: process.execPath, args: [serverScript("server-everything"), "stdio"], env: [] };
      const sid = await w.newSession(project, [everything]);
      const turn = await w.prompt(sid, call("mcp__everything__echo", { message: "hello MCP" }));
      assert.equal(turn.stopReason, "end_turn");
      assert.equal(turn.permissionRequests.length, 1);
      const [request] = turn.permissionRequests;
      assert.equal(request.toolCall.title, "Run echo from everything");
      const prompt = request.toolCall.content[0].content.text;
      assert.ok(prompt.startsWith("Allow tool call from everything?"), prompt);
      assert.ok(prompt.includes('"message": "hello MCP"'), prompt);
      assert.ok(prompt.endsWith("**Review each action carefully before approving**"), prompt);
      assert.deepEqual(
        request.options.map((o) => [o.optionId, o.name]),
        [
          ["allow-once", "Allow once"],
          ["allow-session", "Allow for this chat"],
          ["allow-project", "Always allow echo from everything in this project"],
          ["reject-once", "Deny"],
          ["reject-and-stop", "Reject and stop"],
          ["reject-project", "Always reject echo from everything in this project"],
        ],
      );
      assert.deepEqual(Object.values(turn.statuses()), [["pending", "in_progress", "completed"]]);
      assert.ok(resultText(turn).includes("hello MCP"), resultText(turn));
    });
  });

  test("server-everything over streamable HTTP: advertised, asked with the MCP prompt, then its echo runs", async () => {
    const { child, url } = await everythingOverHttp();
    try {
      await withWarden(home, always("allow-once"), async (w) => {
        assert.equal(w.initialize.agentCapabilities.mcpCapabilities.http, true);
        const everything = { type: "http", name: "everything", url, headers: [{ name: "X-Interop", value: "1" }] };
        const sid = await w.newSession(project, [everything]);
        const turn = await w.prompt(sid, call("mcp__everything__echo", { message: "hello over HTTP" }));
        assert.equal(turn.stopReason, "end_turn");
        assert.equal(turn.permissionRequests.length, 1);
        assert.equal(turn.permissionRequests[0].toolCall.title, "Run echo from everything");
        assert.deepEqual(Object.values(turn.statuses()), [["pending", "in_progress", "completed"]]);
        assert.ok(resultText(turn).includes("hello over HTTP"), resultText(turn));
      });
    } finally {
      child.kill();
    }
  });

  test("server-filesystem over stdio: a denied call does not run, an allowed one lists the folder", async () => {
    writeFileSync(join(project, "notes.txt"), "hi\n");
    const answers = ["reject-once", "allow-once"];
    await withWarden(home, () => ({ outcome: { outcome: "selected", optionId: answers.shift() } }), async (w) => {
      const files = { name: "files", command: process.execPath, args: [serverScript("server-filesystem"), project], env: [] };
      const sid = await w.newSession(project, [files]);
      const denied = await w.prompt(sid, call("mcp__files__list_directory", { path: project }));
      assert.deepEqual(Object.values(denied.statuses()), [["pending", "failed"]]);
      const allowed = await w.prompt(sid, call("mcp__files__list_directory", { path: project }));
      assert.deepEqual(Object.values(allowed.statuses()), [["pending", "in_progress", "completed"]]);
      assert.ok(resultText(allowed).includes("notes.txt"), resultText(allowed));
    });
  });

  test("a server that cannot start is named to the user and the session still works", async () => {
    await withWarden(home, always("reject-once"), async (w) => {
      const broken = { name: "broken", command: join(root, "no-such-server"), args: [], env: [] };
      const sid = await w.newSession(project, [broken]);
      const turn = await w.prompt(sid, "/say hello");
      assert.equal(turn.stopReason, "end_turn");
      assert.ok(w.recorder.updates.some((u) => JSON.stringify(u).includes("MCP server `broken` was not started")));
    });
  });
});
