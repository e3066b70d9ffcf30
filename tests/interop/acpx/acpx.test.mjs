// Warden driven by acpx (npm `acpx`), a headless ACP client that nobody on this project
// wrote. acpx prints every JSON-RPC message of the connection with `--format json`, so
// each scenario reads what a person would be shown off the wire: whether a call asked,
// the diff and the risk on the request, the order of the options, the answer acpx gave,
// how the turn ended, and the effect on disk.
//
// Run by run.sh (next to this file), which installs acpx and Node 22 into node_modules.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const ACPX = join(here, "node_modules", "acpx", "dist", "cli.js");
const WARDEN = process.env.WARDEN_BIN;
// One acpx run: start, one prompt, stop. Generous for a loaded 2-core machine.
const RUN_TIMEOUT_MS = 60_000;

/** The messages of a `--format json` run, in order. */
function messages(stdout) {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

/** What one acpx run produced. */
class Run {
  constructor(code, stdout, stderr) {
    this.code = code;
    this.stdout = stdout;
    this.stderr = stderr;
    this.messages = messages(stdout);
  }

  updates() {
    return this.messages.filter((m) => m.method === "session/update").map((m) => m.params.update);
  }

  permissionRequests() {
    return this.messages.filter((m) => m.method === "session/request_permission" && m.id !== undefined);
  }

  /** acpx's answer to a request of Warden's. */
  answerTo(request) {
    return this.messages.find((m) => m.id === request.id && m.method === undefined && m.result !== undefined);
  }

  statuses(callId) {
    return this.updates()
      .filter((u) => u.toolCallId === callId && u.status !== undefined)
      .map((u) => u.status);
  }

  text() {
    return this.updates()
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");
  }

  stopReason() {
    return this.messages.find((m) => m.result?.stopReason !== undefined)?.result.stopReason;
  }
}

describe("warden through acpx", { timeout: 5 * RUN_TIMEOUT_MS }, () => {
  let root;
  let home;
  let project;

  beforeEach(() => {
    assert.ok(WARDEN && existsSync(WARDEN), `WARDEN_BIN must name the warden binary, not ${WARDEN}`);
    root = mkdtempSync(join(tmpdir(), "warden-acpx-"));
    home = join(root, "home");
    project = join(root, "project");
    mkdirSync(home);
    mkdirSync(project);
    writeFileSync(join(home, "keep"), "precious\n");
    writeFileSync(join(project, "a.txt"), "hello\n");
  });

  afterEach(async () => {
    // A persistent acpx session keeps a queue owner (and Warden) alive: close it, so no
    // process outlives the test.
    await acpx(["sessions", "close"]).catch(() => {});
    rmSync(root, { recursive: true, force: true });
  });

  /** Runs acpx with Warden as its agent; resolves with the run whatever its exit code. */
  function acpx(args) {
    const env = {
      // Node 22 first: acpx needs it, and it starts itself with `node`.
      PATH: `${join(here, "node_modules", ".bin")}:${process.env.PATH}`,
      // acpx keeps its state under ~/.acpx, and Warden's `~` is this folder too.
      HOME: home,
      WARDEN_HOME: join(root, "warden-home"),
      // In a folder of its own, like /etc/warden/: Warden protects the managed policy's
      // folder, so it must not be an ancestor of the project.
      WARDEN_MANAGED_POLICY: join(root, "managed", "policy.toml"),
      WARDEN_MODEL: "scripted",
      RUST_LOG: "warn",
    };
    const argv = [ACPX, "--agent", `${WARDEN} acp`, "--cwd", project, "--ttl", "30", ...args];
    return new Promise((resolve) => {
      execFile(process.execPath, argv, { env, timeout: RUN_TIMEOUT_MS }, (error, stdout, stderr) => {
        resolve(new Run(error ? (error.code ?? 1) : 0, stdout, stderr));
      });
    });
  }

  const json = (...args) => acpx(["--format", "json", ...args]);
  const call = (tool, args) => `/call ${tool} ${JSON.stringify(args)}`;

  test("a read runs unasked", async () => {
    const run = await json("--non-interactive-permissions", "fail", "exec", call("fs_read", { path: "a.txt" }));
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.permissionRequests(), []);
    assert.deepEqual(run.statuses("call_1"), ["pending", "in_progress", "completed"]);
    assert.equal(run.text(), "- fs_read: completed");
  });

  test("a write asks and shows its diff; approved, it runs", async () => {
    const run = await json("--approve-all", "exec", call("fs_write", { path: "notes.txt", content: "new\n" }));
    assert.equal(run.code, 0, run.stderr);
    const [request] = run.permissionRequests();
    assert.ok(request, run.stdout);
    const [diff, risk] = request.params.toolCall.content;
    assert.deepEqual(diff, { type: "diff", path: join(project, "notes.txt"), oldText: null, newText: "new\n" });
    assert.match(risk.content.text, /^Medium: writes .*notes\.txt inside the workspace$/);
    // The tool_call before it carried the same, with its status written out.
    const [proposed] = run.updates().filter((u) => u.sessionUpdate === "tool_call");
    assert.equal(proposed.status, "pending");
    assert.deepEqual(proposed.content, request.params.toolCall.content);
    assert.equal(run.answerTo(request).result.outcome.outcome, "selected");
    assert.equal(readFileSync(join(project, "notes.txt"), "utf8"), "new\n");
  });

  test("rm -rf ~ asks with reject first, and is not run", async () => {
    const run = await json("--deny-all", "exec", call("terminal", { command: "rm -rf ~" }));
    const [request] = run.permissionRequests();
    assert.ok(request, run.stdout);
    assert.deepEqual(
      request.params.options.map((o) => [o.optionId, o.kind]),
      [
        ["reject-once", "reject_once"],
        ["reject-and-stop", "reject_once"],
        ["allow-once", "allow_once"],
      ],
    );
    const text = request.params.toolCall.content[0].content.text;
    assert.ok(text.startsWith(`Critical: recursively deletes ${home}, the home folder`), text);
    assert.equal(request.params._meta.warden.reason, `recursively deletes ${home}, the home folder`);
    assert.ok(existsSync(join(home, "keep")));
  });

  test("--deny-all rejects", async () => {
    const run = await json("--deny-all", "exec", call("fs_write", { path: "a.txt", content: "changed\n" }));
    const [request] = run.permissionRequests();
    assert.ok(request, run.stdout);
    // The diff shows what would have changed.
    assert.equal(request.params.toolCall.content[0].oldText, "hello\n");
    const answer = run.answerTo(request).result.outcome;
    assert.deepEqual(answer, { outcome: "selected", optionId: "reject-once" });
    assert.deepEqual(run.statuses("call_1"), ["pending", "failed"]);
    assert.equal(run.text(), "- fs_write: denied (User denied tool invocation)");
    assert.equal(run.stopReason(), "end_turn");
    assert.equal(readFileSync(join(project, "a.txt"), "utf8"), "hello\n");
  });

  test("a cancel from a second process ends the turn", async () => {
    const created = await acpx(["sessions", "new"]);
    assert.equal(created.code, 0, created.stderr);
    const command = "touch started && sleep 60";
    const prompt = json("--approve-all", "prompt", call("terminal", { command }));
    // The turn is running once the command has started; only then is there something
    // to cancel.
    await until(() => existsSync(join(project, "started")), "the command to start");
    const cancel = await acpx(["cancel"]);
    assert.equal(cancel.code, 0, cancel.stderr);
    const run = await prompt;
    assert.equal(run.stopReason(), "cancelled", run.stdout);
    assert.deepEqual(run.statuses("call_1"), ["pending", "in_progress", "failed"]);
  });

  test("a persistent session survives a restart of its agent with its conversation intact", async () => {
    const created = await acpx(["sessions", "new"]);
    assert.equal(created.code, 0, created.stderr);
    const read = call("fs_read", { path: "a.txt" });
    const first = await json("--approve-all", "prompt", read);
    assert.deepEqual(first.statuses("call_1"), ["pending", "in_progress", "completed"], first.stdout);
    // Kill -9 the Warden that acpx keeps for the session (by the pid acpx recorded).
    const shown = await acpx(["sessions", "show"]);
    const pid = Number(/^pid: (\d+)$/m.exec(shown.stdout)?.[1]);
    assert.ok(pid > 0, shown.stdout);
    process.kill(pid, "SIGKILL");
    // acpx starts a new Warden, which restores the stored session: the scripted model
    // numbers a call after the calls of the conversation, so `call_2` proves the
    // conversation came back whole.
    const second = await json("--approve-all", "prompt", read);
    assert.equal(second.code, 0, second.stderr);
    assert.ok(
      second.messages.some((m) => m.method === "session/resume" || m.method === "session/load"),
      second.stdout,
    );
    assert.deepEqual(second.statuses("call_2"), ["pending", "in_progress", "completed"], second.stdout);
    assert.equal(second.text(), "- fs_read: completed");
  });

  test("the commands list arrives, and /grants is answered by Warden", async () => {
    const run = await json("exec", "/grants");
    assert.equal(run.code, 0, run.stderr);
    const [listed] = run.updates().filter((u) => u.sessionUpdate === "available_commands_update");
    assert.ok(listed, run.stdout);
    assert.deepEqual(
      listed.availableCommands.map((c) => c.name),
      ["call", "say", "grants", "revoke", "why", "mode", "tools"],
    );
    assert.equal(run.text(), "No grants apply here: calls are decided by the policy and the session mode `ask`.");
  });

  // acpx 0.19 reads MCP servers from --mcp-config and passes them in session/new; the
  // server is mcp-server-time from PyPI, which run.sh installs and names in
  // $MCP_SERVER_TIME.
  test("an MCP server from --mcp-config is asked about with the MCP prompt, and runs", async () => {
    const timeServer = process.env.MCP_SERVER_TIME;
    assert.ok(timeServer && existsSync(timeServer), `MCP_SERVER_TIME must name mcp-server-time, not ${timeServer}`);
    const config = join(root, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: [{ name: "time", command: timeServer, args: ["--local-timezone", "UTC"], env: [] }] }),
    );
    const run = await json("--approve-all", "--mcp-config", config, "exec", call("mcp__time__get_current_time", { timezone: "UTC" }));
    assert.equal(run.code, 0, run.stderr);
    const [request] = run.permissionRequests();
    assert.ok(request, run.stdout);
    assert.equal(request.params.toolCall.title, "Run get_current_time from time");
    assert.ok(request.params.toolCall.content[0].content.text.startsWith("Allow tool call from time?"));
    assert.deepEqual(
      request.params.options.map((o) => [o.optionId, o.name]),
      [
        ["allow-once", "Allow once"],
        ["allow-session", "Allow for this chat"],
        ["allow-project", "Always allow get_current_time from time in this project"],
        ["reject-once", "Deny"],
        ["reject-and-stop", "Reject and stop"],
        ["reject-project", "Always reject get_current_time from time in this project"],
      ],
    );
    assert.deepEqual(run.statuses("call_1"), ["pending", "in_progress", "completed"]);
  });
});

/** Waits for `condition`, checking every 50 ms, and fails after a minute. */
async function until(condition, what) {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
